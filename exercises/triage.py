"""Numeric exercises of chapter 5, "Triage before you write a kernel".

Every answer is computed by perfmodel here; tests/test_exercises_triage.py checks each
one against plain arithmetic from the source documents' figures.
"""
from __future__ import annotations

import math

from perfmodel import _check, machines, ops, roofline

from .registry import register

CHAPTER = "triage"

# Exercise 2.2's made-up GPU, reused by exercise 2.3: 19.5 TFLOP/s FP32, 900 GB/s.
GPU_900 = machines.measured("exercise GPU (900 GB/s)", {"fp32": 19.5e12}, {"dram": 900e9},
                            source="the made-up exercise GPU of Why GPUs Exist")
# Exercise 2.6's GPU: 2 TB/s (the FP32 peak is an A100's; the ops are memory-bound anyway).
GPU_2TB = machines.measured("exercise GPU (2 TB/s)", {"fp32": 19.5e12}, {"dram": 2e12},
                            source="exercise 2.6 of Why GPUs Exist")

STENCIL_N = 4096 * 4096          # grid points
LN_ROWS, LN_COLS = 8192, 4096    # exercise 2.3's layer norm
ELEMS_10GB = int(10e9 / 4)       # FP32 elements in 10 GB
ROW_SUM_SHAPE = (32, 2048, 8192)  # exercise 5: a BF16 tensor summed along its last axis
RESIDUAL_N = 24 * 2048 * 4096    # exercise 7: the bias, relu and residual chain, BF16
FUSION_N = 2 ** 28               # relu(x*1.5+0.5) in FP16, the size of the recorded H200 run
ATTN_SEQ, ATTN_D = 4096, 64      # recomputation exercise, FP16 on an H100
PARADOX_N = 2 ** 28              # the notes' largest addition, 268 million elements


def stencil9(n: int, reuse: bool) -> ops.Op:
    """A 3x3 box blur in FP32: each point becomes the mean of its 3x3 neighbourhood (8 adds and
    a multiply); with no reuse it loads 9 values, with perfect reuse 1; one store. Exercise 1
    uses it, not chapter 3's 5-point stencil, whose intensities that chapter prints."""
    return ops.elementwise(n, flops_per_element=9, reads=1 if reuse else 9, writes=1,
                           name=f"9-point stencil ({'perfect' if reuse else 'no'} reuse)")


def stencil_speed_of_light() -> float:
    return roofline.speed_of_light("T4", stencil9(STENCIL_N, True))


def layernorm_welford_time() -> float:
    return roofline.time(GPU_900, ops.layernorm(LN_ROWS, LN_COLS, passes=2))


ROWS, ROW_LENGTH = 512, 1_000_000   # triage-3: one thread per row of a [512, 1e6] matrix


def h100_slots_filled_pct(pieces: int = ROWS) -> float:
    """triage-3: the share of an H100's resident thread slots (SMs x threads per SM) that
    ``pieces`` independent threads fill, in percent."""
    pieces = _check.count("pieces", pieces)
    h100 = machines.get("H100")
    return 100 * pieces / (h100.sms * h100.hardware("max_threads_per_sm"))


def thirty_ops_unfused_time() -> float:
    return roofline.time(GPU_2TB, ops.repeated_elementwise(ELEMS_10GB, 30, fused=False))


def row_sums(shape: tuple[int, ...] = ROW_SUM_SHAPE, dtype: str = "bf16") -> ops.Op:
    """Exercise 5's operation: x of ``shape`` in ``dtype`` summed along its last axis into
    FP32 totals, read once (one add per element) and one 4-byte total written per row."""
    shape = tuple(_check.count("shape", d) for d in _check.items("shape", shape, minimum=1))
    n, rows = math.prod(shape), math.prod(shape[:-1])
    return ops.Op("row sums", float(n), n * ops.dtype_bytes(dtype) + 4.0 * rows, dtype, n)


def h200_row_sums_time() -> float:
    """Speed-of-light time (s) of exercise 5's row sums on an H200 (datasheet)."""
    return roofline.speed_of_light("H200", row_sums())


#: Exercise 6: FLOPs per element of a heavier activation than the 15-FLOP tanh GELU.
HEAVY_FLOPS = 400


def heavy_activation_slowdown() -> float:
    """Time of a HEAVY_FLOPS-per-element activation over the 15-FLOP GELU's, both on
    100M FP32 elements on a T4 (datasheet roofs)."""
    n = 100_000_000
    return (roofline.time("T4", ops.gelu(n, flops_per_element=HEAVY_FLOPS))
            / roofline.time("T4", ops.gelu(n, flops_per_element=15)))


def residual_chain(fused: bool) -> ops.Op:
    """Exercise 7's chain over RESIDUAL_N BF16 elements: t = x + bias, u = relu(t),
    y = u + r, as three kernels or one (the bias vector's bytes left out)."""
    kernels = [(1, 1, 1.0), (1, 1, 1.0), (2, 1, 1.0)]
    return ops.elementwise_chain(RESIDUAL_N, kernels, fused, inputs=2, outputs=1,
                                 dtype="bf16", name="bias, relu, residual")


def residual_time_saved() -> float:
    """Seconds fusing exercise 7's chain saves on an H200 (datasheet roofs)."""
    return (roofline.time("H200", residual_chain(False))
            - roofline.time("H200", residual_chain(True)))


def h200_fused_relu_time() -> float:
    return roofline.speed_of_light("H200", ops.scale_shift_relu(FUSION_N, fused=True))


def attention_store_over_recompute(machine="H100", seq: int = ATTN_SEQ,
                                   head_dim: int = ATTN_D) -> float:
    """Time to write and re-read the seq x seq FP16 probabilities over the time to
    recompute Q K^T on the tensor cores, on ``machine``."""
    m = machines.get(machine)
    seq, head_dim = _check.count("seq", seq), _check.count("head_dim", head_dim)
    s2 = float(seq) ** 2
    store = ops.Op("store and reload P", 0.0, 2 * s2 * ops.dtype_bytes("fp16"), "fp16")
    recompute = ops.Op("recompute Q K^T", 2 * s2 * head_dim, 0.0, "fp16")
    return (roofline.memory_time(m, store)
            / roofline.compute_time(m, recompute, unit="fp16_tensor"))


def h200_adds_per_trip() -> float:
    """How many 2^28-element FP32 adds (tolls left out) an H200 must run on data already in
    its memory before their kernel time equals one pinned round trip of the two inputs and
    the output over its PCIe link (datasheet roofs): the trip's time over one add's."""
    h200 = machines.get("H200")
    add = ops.vector_add(PARADOX_N)
    trip = ops.pcie_round_trip_bytes(PARADOX_N, 2, 1) / h200.bandwidth("pcie")
    return trip / roofline.time(h200, add)


register("triage-1", CHAPTER,
         "Speed-of-light time on a T4 of one 9-point (3x3 box blur) FP32 stencil sweep over a "
         "4096 x 4096 grid (each input read once, each output written once), in seconds.",
         stencil_speed_of_light, unit="s",
         hint="Perfect reuse moves 8 bytes per grid point; the sweep is memory-bound.")
register("triage-2", CHAPTER,
         "Predicted time of the two-pass (Welford) layer norm over [8192, 4096] "
         "FP32 at 900 GB/s, in seconds.",
         layernorm_welford_time, unit="s",
         hint="Two reads of x and one write of y, each 8192 x 4096 x 4 bytes.")
register("triage-3", CHAPTER,
         "Share of an H100's resident thread slots filled by a row-sum kernel with one thread "
         "per row of a [512, 1,000,000] FP32 matrix, in percent.",
         h100_slots_filled_pct, unit="%",
         hint="Count the independent threads (rows, not elements) over 132 SMs x 2048 threads.")
register("triage-4", CHAPTER,
         "Runtime of 30 separate elementwise kernels over a 10 GB FP32 tensor at "
         "2 TB/s, in seconds.",
         thirty_ops_unfused_time, unit="s",
         hint="Each kernel reads 10 GB and writes 10 GB.")
register("triage-5", CHAPTER,
         "Speed-of-light time on an H200 of summing a [32, 2048, 8192] BF16 tensor along its "
         "last axis into FP32 totals, in seconds.",
         h200_row_sums_time, unit="s",
         hint="Every element is read once; only one 4-byte total per row is written.")
register("triage-6", CHAPTER,
         "On a T4, the time of a 400-FLOP-per-element activation over 100M FP32 elements, over "
         "the time of the 15-FLOP GELU.",
         heavy_activation_slowdown, unit="x",
         hint="Compare each one's F/P with the 8 bytes per element over 320 GB/s.")
register("triage-7", CHAPTER,
         "Time fusion saves on an H200 for the chain t = x + bias, u = relu(t), y = u + r over "
         "[24, 2048, 4096] BF16 tensors, in seconds.",
         residual_time_saved, unit="s",
         hint="Count the arrays each of the three kernels reads and writes, then the fused "
              "kernel's: x and r in, y out.")
register("triage-8", CHAPTER,
         "Speed-of-light time on an H200 of the fused relu(x*1.5+0.5) over 2^28 FP16 elements, "
         "in seconds.",
         h200_fused_relu_time, unit="s",
         hint="Fused, each element is read once and written once: 4 bytes.")
register("triage-9", CHAPTER,
         "On a T4 (datasheet roofs), the time to write and re-read the 2048 x 2048 FP16 "
         "attention probabilities over the time to recompute Q K^T (d = 128) on the tensor "
         "cores.",
         lambda: attention_store_over_recompute("T4", 2048, 128), unit="x",
         hint="Store: 2 S^2 x 2 bytes at 320 GB/s. Recompute: 2 S^2 d FLOPs at 65 TFLOP/s.")
register("triage-10", CHAPTER,
         "Number of 2^28-element FP32 adds an H200 (4.8 TB/s) must run on data already in its "
         "memory for their kernel time to equal one pinned round trip of two such inputs and "
         "one output over PCIe Gen5 x16 at 64 GB/s (tolls left out).",
         h200_adds_per_trip, unit="adds",
         hint="The trip moves the add's own 12 bytes per element, at the link's rate instead "
              "of the memory's.")
