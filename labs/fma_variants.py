"""Variants of the FMA-peak kernel, timed to find one that holds >= 0.97 of the clock peak.

The shipped kernel (``wide``, :func:`labs.kernels.kernels` ``.fma_peak``) runs 16
independent chains, each a fully unrolled block of 64 FMAs per loop turn: 1,024 FFMAs a
turn; on the H200 it held 0.974 of SMs x 128 x 2 x clock (median of three holds,
2026-12-03). The kernel it replaced, ``chains8`` (8 chains x UNROLL = 32 FMAs, 256 FFMAs a
turn), held 0.93-0.955, and ncu had its FMA pipe 95.9% busy (``wide``: 98.9%, labs/NOTES.md). An SM
sub-partition issues one warp
instruction a cycle and has 32 FP32 lanes, so every instruction that is not an FFMA (the
loop's counter, compare and branch, 64-bit in numba's ``range``) costs a lane-cycle; what
else is lost (register-bank conflicts on the three-operand FFMA, instruction fetch, the
start and end of a launch) these variants tell apart by measurement:

- ``chains8``: 8 chains x 32 FMAs a turn, the kernel shipped until 2026-12-03 (its loop,
  ``blocks8``, is still the knob's);
- ``chains16``: 16 chains x 32 FMAs a turn (512 FFMAs per loop overhead, twice the
  independent work a thread has in flight; about 16 more registers, still <= 32 so 2048
  threads an SM stay resident);
- ``unroll64``: 8 chains x 64 FMAs a turn (the same 512 per turn, the registers of
  ``chains8``; a longer loop body to fetch);
- ``interleaved``: 8 chains x 32 FMAs a turn written step-major (one FMA on each of the
  8 chains, 32 times), so that consecutive instructions never depend on each other even
  before ptxas schedules them (LLVM must unroll the 32-step loop of 8 FMAs for this to
  pay; if it leaves it rolled, the loop's overhead comes every 8 FMAs and the share falls:
  the measurement says which);

``wide`` (16 chains x 64 FMAs a turn) has a quarter of ``chains8``'s loop instructions per
FMA, the registers of ``chains16`` and a 16 KB loop body, which the instruction cache holds.

Each variant has ``fmas_per_turn`` (per thread); a launch ``kernel[blocks, BLOCK](out,
turns)`` does threads x turns x fmas_per_turn x 2 FLOPs, like the shipped kernel.
``python -m labs.fma_variants_time`` times them with the labs' method
(:func:`labs.ceilings.fma_peak`); the shipped kernel (:data:`labs.kernels.FMA_PEAK_VARIANT`)
is "wide", copied into labs/kernels.py, which imports none of these.
"""
from __future__ import annotations

import functools

import numpy as np

from . import kernels as _kern

#: Every variant, the shipped one first.
VARIANTS = ("wide", "chains8", "chains16", "unroll64", "interleaved")
#: numba.cuda, bound by variant(): a module global, since the simulator swaps a kernel's
#: global ``cuda`` for its fake module while it runs (as in labs/kernels.py).
cuda = None


def _seeds8(i, base):
    """Eight chain start values for thread i: (i % 1024) / 1000 + base + c / 10, c = 0..7
    (the shipped kernel's, with base = 0), as float32."""
    s = np.float32(i % 1024) * np.float32(1e-3) + base
    d = np.float32(0.1)
    return (s, s + d, s + np.float32(2) * d, s + np.float32(3) * d, s + np.float32(4) * d,
            s + np.float32(5) * d, s + np.float32(6) * d, s + np.float32(7) * d)


@functools.cache
def variant(name: str):
    """The FMA-peak kernel ``name`` (one of VARIANTS), with ``fmas_per_turn`` set."""
    if name not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}; got {name!r}")
    if name == "wide":
        return _kern.kernels().fma_peak
    global cuda
    _kern._bind()
    cuda = _kern.cuda
    blk32, blk64 = _kern._fixed(_kern.UNROLL), _kern._fixed(2 * _kern.UNROLL)
    a_, b_, unroll = _kern.FMA_A, _kern.FMA_B, _kern.UNROLL
    seeds8 = cuda.jit(device=True, inline=True)(_seeds8)
    z, half = np.float32(0.0), np.float32(0.05)

    if name == "chains8":
        blocks8 = _kern._fma_chains().blocks8

        @cuda.jit(fastmath=True)
        def fma_peak8(out, turns):
            i = cuda.grid(1)
            v0, v1, v2, v3, v4, v5, v6, v7 = seeds8(i, z)
            v0, v1, v2, v3, v4, v5, v6, v7 = blocks8(v0, v1, v2, v3, v4, v5, v6, v7, turns)
            if i < out.size:
                out[i] = ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7))

        kern, per_turn = fma_peak8, 8 * unroll
    elif name == "chains16":
        @cuda.jit(fastmath=True)
        def fma_peak16(out, turns):
            i = cuda.grid(1)
            v0, v1, v2, v3, v4, v5, v6, v7 = seeds8(i, z)
            v8, v9, va, vb, vc, vd, ve, vf = seeds8(i, half)
            for _ in range(turns):
                v0, v1, v2, v3 = blk32(v0), blk32(v1), blk32(v2), blk32(v3)
                v4, v5, v6, v7 = blk32(v4), blk32(v5), blk32(v6), blk32(v7)
                v8, v9, va, vb = blk32(v8), blk32(v9), blk32(va), blk32(vb)
                vc, vd, ve, vf = blk32(vc), blk32(vd), blk32(ve), blk32(vf)
            if i < out.size:
                out[i] = ((((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7)))
                          + (((v8 + v9) + (va + vb)) + ((vc + vd) + (ve + vf))))

        kern, per_turn = fma_peak16, 16 * unroll
    elif name == "unroll64":
        @cuda.jit(fastmath=True)
        def fma_peak_u64(out, turns):
            i = cuda.grid(1)
            v0, v1, v2, v3, v4, v5, v6, v7 = seeds8(i, z)
            for _ in range(turns):
                v0, v1, v2, v3 = blk64(v0), blk64(v1), blk64(v2), blk64(v3)
                v4, v5, v6, v7 = blk64(v4), blk64(v5), blk64(v6), blk64(v7)
            if i < out.size:
                out[i] = ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7))

        kern, per_turn = fma_peak_u64, 8 * 2 * unroll
    else:  # interleaved
        @cuda.jit(fastmath=True)
        def fma_peak_step(out, turns):
            i = cuda.grid(1)
            v0, v1, v2, v3, v4, v5, v6, v7 = seeds8(i, z)
            for _ in range(turns):
                for _ in range(unroll):  # a constant count: unrolled, step-major
                    v0, v1, v2, v3 = v0 * a_ + b_, v1 * a_ + b_, v2 * a_ + b_, v3 * a_ + b_
                    v4, v5, v6, v7 = v4 * a_ + b_, v5 * a_ + b_, v6 * a_ + b_, v7 * a_ + b_
            if i < out.size:
                out[i] = ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7))

        kern, per_turn = fma_peak_step, 8 * unroll
    kern.fmas_per_turn = per_turn
    return kern


def fmas_per_turn(kernel) -> int:
    """FMAs one thread of an FMA-peak kernel does per loop turn."""
    return int(getattr(kernel, "fmas_per_turn", _kern.PEAK_CHAINS * _kern.PEAK_BLOCK))
