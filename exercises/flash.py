"""Numeric exercises of chapter 10, "FlashAttention".

Every answer is computed by perfmodel here; tests/test_exercises_flash.py checks each one
against plain arithmetic from the lecture notes' and the T4 note's numbers.
"""
from __future__ import annotations

import math

from perfmodel import _check, hierarchy, machines, ops, roofline, softmax

from .registry import register

CHAPTER = "flash"

# Exercise 1: a three-score row in two tiles (scores are logs, so the weights are 4 : 1 : 3).
ROW_SCORES = (math.log(4), 0.0, math.log(3))
ROW_VALUES = (2.0, 6.0, 1.0)
ROW_TILE = 2
# The attention lab's shape: batch 1, 16 heads, head dimension 64, FP16.
HEADS, HEAD_DIM, FP16 = 16, 64, 2
LONG_SEQ = 16384                 # the lab's longest sequence
MID_SEQ = 8192                   # the roofline exercises
BWD_SEQ, BWD_D = 8192, 128       # the backward-pass exercise, on an H200
RATIO_D = 64                     # flash-15: backward over forward at a smaller head
BLOCK_Q, BLOCK_K = 128, 64       # tile sizes of the SRAM and traffic exercises
CAUSAL_SEQ, CAUSAL_BLOCK = 4096, 128
# flash-3/4: a long-context layer the text does not work: 32 heads of d = 128, S = 32,768, FP16.
BIG_HEADS, BIG_SEQ, BIG_D = 32, 32768, 128
# flash-10: the re-read count with smaller query blocks and a bigger head than the text's.
REREAD_D, REREAD_BLOCK_Q = 128, 64
# flash-13: decoding one token, 32 heads of d = 128, a KV cache of 32,768 positions, FP16.
DEC_HEADS, DEC_D, DEC_SEQ = 32, 128, 32768
# flash-14: Algorithm 1's key block on an A100 (163 KiB of shared memory per block), d = 128.
A100_SMEM_BLOCK, FA_D = machines.get("A100").hardware("shared_per_block_bytes"), 128


def two_tile_output() -> float:
    return softmax.online(ROW_SCORES, ROW_VALUES, ROW_TILE)


def naive_peak_bytes() -> float:
    return hierarchy.attention_extra_bytes(BIG_SEQ, BIG_D, 1, BIG_HEADS, FP16)


def flash_peak_bytes() -> float:
    return hierarchy.attention_extra_bytes(BIG_SEQ, BIG_D, 1, BIG_HEADS, FP16, flash=True)


def naive_h200_time() -> float:
    op = ops.attention(MID_SEQ, HEAD_DIM, dtype="fp16", heads=HEADS)
    return roofline.time("H200", op, unit="fp16_tensor")


def flash_h200_time() -> float:
    op = ops.attention(MID_SEQ, HEAD_DIM, flash=True, dtype="fp16", heads=HEADS)
    return roofline.time("H200", op, unit="fp16_tensor")


def flash_ridge_seq() -> float:
    """S at which the flash intensity S/2 (FP16) reaches the B200's FP16 tensor ridge (the
    chapter works the H200's)."""
    per_s = ops.attention(1024, HEAD_DIM, flash=True, dtype="fp16").intensity / 1024
    return machines.get("B200").ridge("fp16_tensor") / per_s


def recompute_times(machine="H200", seq: int = BWD_SEQ, head_dim: int = BWD_D,
                    unit: str = "fp16_tensor") -> dict[str, float]:
    """Seconds, per head, of the backward pass's two ways to get P back (FP16): ``store``,
    writing the S x S probabilities and reading them again (4 S^2 bytes at the DRAM
    bandwidth); ``matmul``, recomputing Q K^T (2 S^2 d FLOPs on the tensor cores); and
    ``exp``, its S^2 exponentials on the SFUs (counted at the clock the tensor peak is
    quoted at, as :func:`perfmodel.softmax.exp_bound_fraction` does)."""
    m = machines.get(machine)
    seq, head_dim = _check.count("seq", seq), _check.count("head_dim", head_dim)
    s2 = float(seq) ** 2
    store = ops.Op("store and reload P", 0.0, 2 * s2 * ops.dtype_bytes("fp16"), "fp16")
    recompute = ops.Op("recompute Q K^T", 2 * s2 * head_dim, 0.0, "fp16")
    return {"store": roofline.memory_time(m, store),
            "matmul": roofline.compute_time(m, recompute, unit=unit),
            "exp": s2 / softmax.exp_rate(m, m.peak_clock(unit))}


def store_over_recompute(machine="H200", seq: int = BWD_SEQ, head_dim: int = BWD_D,
                         overlap: bool = False) -> float:
    """How many times longer storing P takes than recomputing it: recompute is the matrix
    product then its exponentials (``overlap=False``), or the longer of the two when one
    hides the other (``overlap=True``, FlashAttention-3's scheduling)."""
    if not isinstance(overlap, bool):
        raise ValueError(f"overlap must be True or False, got {overlap!r}")
    t = recompute_times(machine, seq, head_dim)
    redo = max(t["matmul"], t["exp"]) if overlap else t["matmul"] + t["exp"]
    return t["store"] / redo


def break_even_head_dim(machine="H200", overlap: bool = False,
                        unit: str = "fp16_tensor") -> float:
    """Head dimension at which recomputing P (FP16) stops paying: 4/B = 2d/F + 1/E
    (serial; F/E tensor FLOPs per exponential) gives d = (4F/B - F/E) / 2; with overlap
    the exponentials hide while they are shorter, and d = 2F/B."""
    m = machines.get(machine)
    ridge = m.ridge(unit)
    per_exp = m.peak_flops(unit) / softmax.exp_rate(m, m.peak_clock(unit))
    return 2 * ridge if overlap else (4 * ridge - per_exp) / 2


def store_over_recompute_h200() -> float:
    """flash-8: storing P over recomputing it, the exponentials after the product."""
    return store_over_recompute("H200", BWD_SEQ, BWD_D)


def backward_over_forward(machine="H200", seq: int = BWD_SEQ,
                          head_dim: int = RATIO_D) -> float:
    """flash-15: how many times longer FlashAttention's backward pass is than its forward,
    counting a head's S x S x d tensor-core products (two forward; five backward: Q K^T
    again, dV, dP, dQ, dK) and the S^2 exponentials each pass computes on the SFUs, one
    after the other (a ratio; heads cancel)."""
    t = recompute_times(machine, seq, head_dim)
    return (5 * t["matmul"] + t["exp"]) / (2 * t["matmul"] + t["exp"])


def block_sram_kib() -> float:
    return softmax.tile_bytes(BLOCK_Q, BLOCK_K, HEAD_DIM) / 1024


def tiled_intensity() -> float:
    return softmax.flash_tiled_intensity(LONG_SEQ, REREAD_D, REREAD_BLOCK_Q)


def causal_skip() -> float:
    return softmax.causal_skipped_fraction(CAUSAL_SEQ, CAUSAL_BLOCK)


register("flash-1", CHAPTER,
         "Scores (ln 4, 0, ln 3) with values (2, 6, 1), processed in a tile of two keys and a "
         "tile of one: the output u'/l' of the merged state.",
         two_tile_output, unit="",
         hint="Tile A: m = ln 4, l = 1 + 1/4, u = 2 + 6/4. Tile B: m = ln 3, l = 1, u = 1.")
#: flash-2: the maxima of three tiles, in the order the online softmax meets them.
THREE_TILE_MAXIMA = (1.0, 3.0, 2.0)


def first_tile_total_factor(maxima: tuple[float, ...] = THREE_TILE_MAXIMA) -> float:
    """Product of every rescaling factor the first tile's sum receives by the end of an
    online softmax over tiles with these maxima (one merge per later tile)."""
    maxima = _check.items("maxima", maxima, minimum=1)
    for x in maxima:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            raise ValueError(f"maxima must hold finite numbers, got {_check.show(x)}")
    m, total = float(maxima[0]), 1.0
    for tile_max in maxima[1:]:
        new = max(m, float(tile_max))
        total *= math.exp(m - new)   # the running state's factor alpha at this merge
        m = new
    return total


register("flash-2", CHAPTER,
         "Online softmax over three tiles whose maxima are 1, 3 and 2, in that order: the "
         "product of all the factors that rescale the first tile's sum by the end.",
         first_tile_total_factor, unit="",
         hint="Each merge multiplies the running sum by exp(old max - new max).")
register("flash-3", CHAPTER,
         "Naive attention's peak memory beside Q, K, V (scores and probabilities plus the "
         "output) for 32 heads, S = 32768, d = 128, FP16, at batch 1, in bytes.",
         naive_peak_bytes, unit="bytes",
         hint="2 S^2 elements per head while softmax runs, plus S x d for the output; 2 bytes "
              "each.")
register("flash-4", CHAPTER,
         "The fused kernel's peak memory for the shape of flash-3 (the output plus one FP32 "
         "log-sum-exp per row and head), in bytes.",
         flash_peak_bytes, unit="bytes",
         hint="32 heads x (S x d x 2 bytes + 4 bytes per row).")
register("flash-5", CHAPTER,
         "Roofline time on an H200 (datasheet, FP16 tensor cores) of naive attention, 16 heads, "
         "S = 8192, d = 64, FP16, in seconds.",
         naive_h200_time, unit="s",
         hint="Bytes: 16 x (4 S d + 5 S^2) x 2. FLOPs: 16 x 4 S^2 d. Take the larger time.")
register("flash-6", CHAPTER,
         "Roofline time on an H200 of FlashAttention for the same shape, in seconds.",
         flash_h200_time, unit="s",
         hint="Only Q, K, V and O move now; which term is larger?")
register("flash-7", CHAPTER,
         "Sequence length at which FlashAttention's FP16 intensity reaches the B200's FP16 "
         "tensor-core ridge (2,250 TFLOP/s over 8 TB/s).",
         flash_ridge_seq, unit="", rel_tol=0.02,
         hint="In FP16 the flash intensity is 4 S^2 d / (8 S d) = S / 2.")
register("flash-8", CHAPTER,
         "Backward pass on an H200, S = 8192, d = 128, FP16: the time to write and re-read the "
         "S x S probabilities over the time to recompute them (Q K^T on the tensor cores, then "
         "S^2 exponentials on the SFUs, one after the other).",
         store_over_recompute_h200, unit="x",
         hint="Store: 2 S^2 x 2 bytes at 4.8 TB/s. Recompute: 2 S^2 d FLOPs at 989 TFLOP/s "
              "plus S^2 exponentials at 132 SMs x 16 a clock x 1.83 GHz.")
register("flash-9", CHAPTER,
         "On-chip memory of one FlashAttention block with 128 query rows, 64 keys per tile, "
         "d = 64: FP16 Q, K, V tiles; FP32 scores, output accumulator, m and l. In KiB.",
         block_sram_kib, unit="KiB",
         hint="(128 x 64 + 2 x 64 x 64) x 2 + (128 x 64 + 128 x 64 + 2 x 128) x 4 bytes.")
register("flash-10", CHAPTER,
         "Intensity of tiled attention (FP16, S = 16384, d = 128) when K and V are re-read "
         "from DRAM for every block of 64 query rows, in FLOP/byte.",
         tiled_intensity, unit="FLOP/byte",
         hint="Bytes per head: (2 S d + (S / 64) x 2 S d) x 2. FLOPs per head: 4 S^2 d.")
register("flash-11", CHAPTER,
         "Causal attention, S = 4096, square blocks of 128: the fraction of (query block, key "
         "block) pairs the kernel can skip because every score in them is masked.",
         causal_skip, unit="",
         hint="32 blocks each way; the pairs strictly above the diagonal are fully masked.")
register("flash-13", CHAPTER,
         "Least time for one layer's decode attention on an H200 (4.8 TB/s): one query per head, "
         "32 heads, d = 128, a KV cache of 32,768 positions in FP16, batch 1, in seconds.",
         lambda: DEC_HEADS * 2 * DEC_SEQ * DEC_D * FP16 / machines.get("H200").bandwidth("dram"),
         unit="s",
         hint="The cache is read once: heads x 2 x S x d x 2 bytes, over the bandwidth.")
register("flash-14", CHAPTER,
         "FlashAttention's key-block rows B_c = ceil(M / 4d) for 163 KiB of FP16 shared memory "
         "and d = 128.",
         lambda: float(softmax.fa_block_sizes(A100_SMEM_BLOCK, FA_D, FP16)[1]), unit="rows",
         hint="M = 163 x 1024 / 2 elements; divide by 4 x 128 and round up.")
register("flash-15", CHAPTER,
         "FlashAttention on an H200 (989 TFLOP/s FP16 tensor; 132 SMs x 16 exponentials a "
         "clock at 1.83 GHz), S = 8192, d = 64, FP16: how many times longer the backward pass "
         "is than the forward, counting each pass's tensor-core products and its exponentials "
         "one after the other.",
         backward_over_forward, unit="x",
         hint="Forward: two 2 S^2 d products and S^2 exponentials; backward: five products "
              "and the S^2 exponentials of the recomputed P.")
