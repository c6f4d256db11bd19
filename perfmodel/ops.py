"""Operations as the roofline sees them: FLOPs and the DRAM bytes they must move.

Every builder returns an :class:`Op`. Counting rules (the book's three rules):
bytes are DRAM traffic, not bytes touched (on-chip reuse counts once); stores count;
only useful FLOPs count (a fused multiply-add is 2, index arithmetic is 0).
Every builder takes ``dtype=`` ("fp32" when not given).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from . import _check

#: Bytes per element. mxfp8 and nvfp4 include their block scales (one 8-bit scale
#: per 32 values for MXFP8, one E4M3 scale per 16 values for NVFP4).
DTYPE_BYTES = {"fp64": 8.0, "fp32": 4.0, "fp16": 2.0, "bf16": 2.0, "fp8": 1.0,
               "mxfp8": 1.0 + 1.0 / 32, "fp4": 0.5, "nvfp4": 0.5 + 1.0 / 16}


@dataclass(frozen=True)
class Op:
    """An operation: ``flops`` (FLOP), ``bytes`` (DRAM bytes read + written),
    ``work_items`` (independent units of work) and the dtype it runs in."""

    name: str
    flops: float
    bytes: float
    dtype: str = "fp32"
    work_items: float = 0.0

    @property
    def intensity(self) -> float:
        """Arithmetic intensity in FLOP/byte."""
        return self.flops / self.bytes


def dtype_bytes(dtype: str) -> float:
    """Bytes per element of a dtype name (see DTYPE_BYTES)."""
    return DTYPE_BYTES[_check.choice("dtype", dtype, DTYPE_BYTES)]


def _n(name: str, value) -> float:
    return float(_check.count(name, value))


def elementwise(n: int, flops_per_element: float = 1.0, reads: int = 1, writes: int = 1,
                dtype: str = "fp32", name: str = "elementwise") -> Op:
    """n independent elements, each reading ``reads`` and writing ``writes`` values."""
    n = _n("n", n)
    f = _check.non_negative("flops_per_element", flops_per_element)
    r = _check.count("reads", reads, 0)
    w = _check.count("writes", writes, 0)
    if r + w == 0:
        raise ValueError("reads + writes must be at least 1")
    s = dtype_bytes(dtype)
    return Op(name, f * n, (r + w) * n * s, dtype.lower(), n)


def vector_add(n: int, dtype: str = "fp32") -> Op:
    """c = a + b: 1 FLOP, 2 reads, 1 write per element (AI = 1/12 in FP32)."""
    return elementwise(n, 1, 2, 1, dtype, "vector add")


def saxpy(n: int, dtype: str = "fp32") -> Op:
    """y = a*x + y: one FMA (2 FLOPs), read x and y, write y (AI = 1/6 in FP32)."""
    return elementwise(n, 2, 2, 1, dtype, "SAXPY")


def square(n: int, dtype: str = "fp32") -> Op:
    """y = x*x: 1 FLOP, 1 read, 1 write."""
    return elementwise(n, 1, 1, 1, dtype, "square")


def relu(n: int, dtype: str = "fp32") -> Op:
    """y = max(x, 0) out of place: one comparison per element, 1 read, 1 write."""
    return elementwise(n, 1, 1, 1, dtype, "ReLU")


def exp(n: int, dtype: str = "fp32", flops_per_element: float = 10.0) -> Op:
    """y = exp(x): about 8-10 special-function operations per element, counted as FLOPs."""
    return elementwise(n, flops_per_element, 1, 1, dtype, "exp")


def gelu(n: int, dtype: str = "fp32", flops_per_element: float = 15.0) -> Op:
    """y = gelu(x), tanh approximation: about 15 FLOPs of mixed FMA/SFU work per element."""
    return elementwise(n, flops_per_element, 1, 1, dtype, "GELU")


def stencil5(n: int, reuse: str = "none", dtype: str = "fp32") -> Op:
    """out = 0.2*(5 neighbours) on n grid points: 4 adds + 1 multiply = 5 FLOPs.

    reuse="none": 5 loads + 1 store per point; "perfect": each input loaded once.
    """
    n = _n("n", n)
    reuse = _check.choice("reuse", reuse, ("none", "perfect"))
    loads = 5 if reuse == "none" else 1
    s = dtype_bytes(dtype)
    return Op(f"5-point stencil ({reuse} reuse)", 5 * n, (loads + 1) * n * s, dtype.lower(), n)


def conv3x3(n: int, reuse: str = "none", dtype: str = "fp32") -> Op:
    """3x3 convolution, one channel in and out, n outputs: 9 FMAs = 18 FLOPs each.

    reuse="none": 9 loads + 1 store per output; "tiled": shared-memory tiling makes each
    input load count once (1 load + 1 store).
    """
    n = _n("n", n)
    reuse = _check.choice("reuse", reuse, ("none", "tiled"))
    loads = 9 if reuse == "none" else 1
    s = dtype_bytes(dtype)
    return Op(f"3x3 convolution ({reuse})", 18 * n, (loads + 1) * n * s, dtype.lower(), n)


def reduction(n: int, dtype: str = "fp32") -> Op:
    """sum(a): n adds, n reads, one scalar written (AI about 1/4 in FP32)."""
    n = _n("n", n)
    s = dtype_bytes(dtype)
    return Op("reduction", n, (n + 1) * s, dtype.lower(), n)


def layernorm(rows: int, cols: int, passes: int = 3, dtype: str = "fp32") -> Op:
    """Layer norm over rows x cols: ``passes`` reads of x plus one write of the output.

    passes=3 is mean, then variance, then normalise; passes=2 is Welford (mean and
    variance together) then normalise. About 6 FLOPs per element (1 for the mean,
    3 for the variance, 2 to normalise).
    """
    rows, cols = _n("rows", rows), _n("cols", cols)
    passes = _check.count("passes", passes, 1)
    n = rows * cols
    s = dtype_bytes(dtype)
    return Op(f"layer norm ({passes} passes)", 6 * n, (passes + 1) * n * s, dtype.lower(), rows)


def softmax(rows: int, cols: int, dtype: str = "fp32") -> Op:
    """Row softmax, fused: read x once, write y once, about 5 FLOPs per element."""
    rows, cols = _n("rows", rows), _n("cols", cols)
    n = rows * cols
    s = dtype_bytes(dtype)
    return Op("softmax", 5 * n, 2 * n * s, dtype.lower(), rows)


def matmul(n: int, reuse: str = "perfect", tile: int = 32, dtype: str = "fp32") -> Op:
    """C = A @ B, all n x n: 2n^3 FLOPs.

    reuse="none": every output re-reads a row of A and a column of B (2n^3 loads);
    "tiled": T x T tiles cut the loads to 2n^3/T; "perfect": A, B read once, C written
    once (3n^2 elements, AI = n/6 in FP32). The n^2 writes of C count in every case.
    """
    n = _n("n", n)
    reuse = _check.choice("reuse", reuse, ("none", "tiled", "perfect"))
    s = dtype_bytes(dtype)
    if reuse == "none":
        loads = 2 * n ** 3
    elif reuse == "tiled":
        t = _check.count("tile", tile)
        loads = 2 * n ** 3 / t
    else:
        loads = 2 * n ** 2
    label = {"none": "naive", "tiled": f"tiled T={tile}", "perfect": "perfect reuse"}[reuse]
    return Op(f"matmul {int(n)} ({label})", 2 * n ** 3, (loads + n ** 2) * s, dtype.lower(), n * n)


def tile_intensity(tile: int, dtype: str = "fp32") -> float:
    """FLOP/byte of one inner step of a T x T tiled matmul: 2T^3 / (2 T^2 s) = T/s."""
    t = float(_check.count("tile", tile))
    return 2 * t ** 3 / (2 * t ** 2 * dtype_bytes(dtype))


def gemm(m: int, n: int, k: int, dtype: str = "fp32", name: str | None = None) -> Op:
    """C[m,n] = A[m,k] @ B[k,n] with compulsory traffic: read A and B once, write C once."""
    m, n, k = _n("m", m), _n("n", n), _n("k", k)
    s = dtype_bytes(dtype)
    return Op(name or f"GEMM {int(m)}x{int(k)}x{int(n)}", 2 * m * n * k,
              (m * k + k * n + m * n) * s, dtype.lower(), m * n)


def linear(batch: int, d_in: int, d_out: int, dtype: str = "fp16") -> Op:
    """A linear layer y = x W on a batch: a skinny GEMM whose weights dominate the bytes."""
    b, di, do = _check.count("batch", batch), _check.count("d_in", d_in), _check.count("d_out", d_out)
    return gemm(b, do, di, dtype, name=f"linear {di}x{do}, batch {b}")


def attention(seq: int, head_dim: int, flash: bool = False, dtype: str = "fp32",
              heads: int = 1) -> Op:
    """One attention head (times ``heads``): 4 S^2 d FLOPs for Q K^T and P V.

    Naive: the S x S scores are written, read for softmax, written as probabilities,
    read for P V, plus about one more trip of workspace: 5 S^2 elements, with
    Q, K, V, O (4 S d elements) on top, so AI is about d/5 in FP32. Flash: only Q, K,
    V, O touch DRAM, so AI = S/4 in FP32.
    """
    s_len, d = _n("seq", seq), _n("head_dim", head_dim)
    h = _n("heads", heads)
    s = dtype_bytes(dtype)
    elements = 4 * s_len * d + (0 if flash else 5 * s_len ** 2)
    name = f"attention S={int(s_len)} d={int(d)} ({'flash' if flash else 'naive'})"
    return Op(name, h * 4 * s_len ** 2 * d, h * elements * s, dtype.lower(), h * s_len)


def elementwise_chain(n: int, kernels: Sequence[tuple[int, int, float]], fused: bool,
                      inputs: int = 1, outputs: int = 1, dtype: str = "fp32",
                      name: str = "elementwise chain") -> Op:
    """A chain of elementwise kernels, each ``(reads, writes, flops)`` per element.

    Unfused, every kernel reads and writes its arrays in DRAM. Fused, the chain reads
    its ``inputs`` arrays once and writes its ``outputs`` once; intermediates stay in
    registers. FLOPs are the same either way.
    """
    n = _n("n", n)
    kernels = _check.items("kernels", kernels)
    for i, k in enumerate(kernels):
        if not isinstance(k, (tuple, list)) or len(k) != 3:
            raise ValueError(f"kernels[{i}] must be a (reads, writes, flops) triple, got "
                             f"{_check.show(k)}")
    if not kernels:
        raise ValueError("kernels must list at least one (reads, writes, flops) triple")
    s = dtype_bytes(dtype)
    flops = sum(_check.non_negative("flops", k[2]) for k in kernels) * n
    if fused:
        elements = (_check.count("inputs", inputs) + _check.count("outputs", outputs)) * n
    else:
        elements = sum(_check.count("reads", k[0], 0) + _check.count("writes", k[1], 0)
                       for k in kernels) * n
    return Op(f"{name} ({'fused' if fused else 'unfused'})", flops, elements * s, dtype.lower(), n)


def sin2_cos2(n: int, fused: bool, dtype: str = "fp32") -> Op:
    """y = sin(x)^2 + cos(x)^2 as five kernels (11 arrays moved) or one (2 arrays)."""
    kernels = [(1, 1, 1), (1, 1, 1), (1, 1, 1), (1, 1, 1), (2, 1, 1)]
    return elementwise_chain(n, kernels, fused, dtype=dtype, name="sin^2 + cos^2")


def scale_shift_relu(n: int, fused: bool, dtype: str = "fp16") -> Op:
    """relu(x*1.5 + 0.5): three kernels (multiply, add, ReLU) or one fused kernel."""
    kernels = [(1, 1, 1), (1, 1, 1), (1, 1, 1)]
    return elementwise_chain(n, kernels, fused, dtype=dtype, name="relu(x*1.5+0.5)")


def repeated_elementwise(n: int, count: int, fused: bool, dtype: str = "fp32") -> Op:
    """``count`` elementwise ops applied in sequence, each reading and writing the tensor."""
    c = _check.count("count", count, maximum=_check.MAX_ITEMS)
    return elementwise_chain(n, [(1, 1, 1)] * c, fused, dtype=dtype, name=f"{c} elementwise ops")


def pcie_round_trip_bytes(n: int, inputs: int = 2, outputs: int = 1, dtype: str = "fp32") -> float:
    """Bytes that cross the host link when ``inputs`` arrays of n go in and ``outputs`` come back."""
    return (_check.count("inputs", inputs, 0) + _check.count("outputs", outputs, 0)) * \
        _n("n", n) * dtype_bytes(dtype)


CATALOGUE = {
    "vector_add": vector_add, "saxpy": saxpy, "square": square, "relu": relu, "exp": exp,
    "gelu": gelu, "stencil5": stencil5, "conv3x3": conv3x3, "reduction": reduction,
    "layernorm": layernorm, "softmax": softmax, "matmul": matmul, "linear": linear,
    "attention": attention, "sin2_cos2": sin2_cos2, "scale_shift_relu": scale_shift_relu,
}

__all__ = ["Op", "DTYPE_BYTES", "dtype_bytes", "CATALOGUE"] + list(CATALOGUE) + [
    "elementwise", "elementwise_chain", "gemm", "tile_intensity", "repeated_elementwise",
    "pcie_round_trip_bytes"]
