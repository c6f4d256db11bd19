"""The numba.cuda kernels the labs share, built on first use by :func:`kernels`.

Each kernel isolates one mechanism:

- ``knob(x, k)``: the intensity knob. A thread loads four floats with one 16-byte load,
  does ``k`` fused multiply-adds on each, and stores them back with one 16-byte store:
  8 bytes of DRAM traffic and 2k FLOPs per float, so intensity = k/4 FLOP/byte, the same
  bytes for every k. 16-byte accesses are what lets a numba kernel stream at the copy
  bandwidth (4-byte grid-stride loads reach about 0.7 of it). The loop strides over the
  grid and loads the thread's next four floats before working on the current ones, so
  launched with one wave of resident threads every thread keeps a load in flight while it
  computes (launched with a thread per 16 bytes, the loop runs once). k is done as
  unrolled blocks of ``UNROLL`` FMAs plus unrolled blocks of 16, 8, 4, 2, 1 for the rest.
- ``fma_peak(out, turns)``: registers only. ``PEAK_CHAINS`` independent chains, each a
  fully unrolled block of ``UNROLL`` FMAs per loop turn, constants as literals (PTX
  ``fma.rn.f32 %f, %f, 0f..., 0f...``), so the loop's own instructions are a few percent
  of the issue slots. FLOPs = threads x turns x PEAK_CHAINS x UNROLL x 2.
- ``scale_shift_relu(x, y)``: relu(x*1.5+0.5) in one pass over FP16 data (the fusion
  lab's fallback where torch.compile is unavailable).
- ``sin2_cos2(x, y)``: sin(x)^2 + cos(x)^2 in one pass (FP32).
- ``spin(out, j, ns)``: one thread spins ``ns`` nanoseconds on ``%globaltimer`` and counts
  ``%clock64`` cycles meanwhile: the SM clock inside a burst, in cycles per nanosecond.
- ``empty()``: nothing at all, to time a bare numba launch.

Under the CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) the inline-PTX pieces (16-byte
vector access, the timers) are replaced by plain Python with the same meaning, so the
tests check every kernel's arithmetic on the CPU.
"""
from __future__ import annotations

import functools
import math
import os
import time
from types import SimpleNamespace

import numpy as np

from .gpu import clock64, globaltimer, numba_cuda

#: The multiply-add v <- v * FMA_A + FMA_B; |v| stays bounded (fixed point 1.0).
FMA_A = np.float32(0.999)
FMA_B = np.float32(0.001)
#: FMAs per chain in one fully unrolled block.
UNROLL = 32
#: Independent chains in the FMA-peak kernel (8 x 32 = 256 FMAs per loop turn).
PEAK_CHAINS = 8
#: Threads per block of every kernel here.
BLOCK = 256
#: Floats per 16-byte access of the knob kernel.
VEC = 4
#: numba.cuda, bound on first use by kernels(); a module global because the simulator
#: swaps the kernels' global ``cuda`` for its fake module while they run.
cuda = None


def simulated() -> bool:
    """True under numba's CUDA simulator."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


def fma_reference(x: np.ndarray, k: int) -> np.ndarray:
    """What k FMAs do to each float (numpy, float32, unfused: within rounding of the GPU)."""
    v = np.asarray(x, dtype=np.float32).copy()
    for _ in range(int(k)):
        v = v * FMA_A + FMA_B
    return v


def _vec4_sim():
    def load4(a, i):
        j = VEC * i
        return a[j], a[j + 1], a[j + 2], a[j + 3]

    def store4(a, i, v0, v1, v2, v3):
        j = VEC * i
        a[j], a[j + 1], a[j + 2], a[j + 3] = v0, v1, v2, v3

    return load4, store4


def _vec4_ptr(context, builder, aryty, ary, idx, idxty):
    """LLVM pointer to floats 4*idx .. 4*idx+3 of a float32 array, as <4 x float>*."""
    from llvmlite import ir
    from numba import types

    data = context.make_array(aryty)(context, builder, ary).data
    i = context.cast(builder, idx, idxty, types.intp)
    ptr = builder.gep(data, [builder.mul(i, ir.Constant(i.type, VEC))])
    return builder.bitcast(ptr, ir.VectorType(ir.FloatType(), VEC).as_pointer())


def _vec4_gpu():
    """load4(a, i) -> 4 floats and store4(a, i, v0..v3): one 16-byte access each
    (PTX ld.global.v4.f32 / st.global.v4.f32). ``a`` must be 16-byte aligned, as every
    allocation is."""
    from llvmlite import ir
    from numba import types
    from numba.cuda.extending import intrinsic

    @intrinsic
    def load4(typingctx, arr, idx):
        sig = types.UniTuple(types.float32, VEC)(arr, idx)

        def codegen(context, builder, signature, args):
            vptr = _vec4_ptr(context, builder, signature.args[0], args[0], args[1],
                             signature.args[1])
            v = builder.load(vptr, align=16)
            vals = [builder.extract_element(v, ir.Constant(ir.IntType(32), j)) for j in range(VEC)]
            return context.make_tuple(builder, signature.return_type, vals)

        return sig, codegen

    @intrinsic
    def store4(typingctx, arr, idx, v0, v1, v2, v3):
        sig = types.void(arr, idx, types.float32, types.float32, types.float32, types.float32)

        def codegen(context, builder, signature, args):
            vptr = _vec4_ptr(context, builder, signature.args[0], args[0], args[1],
                             signature.args[1])
            v = ir.Constant(ir.VectorType(ir.FloatType(), VEC), ir.Undefined)
            for j in range(VEC):
                val = context.cast(builder, args[2 + j], signature.args[2 + j], types.float32)
                v = builder.insert_element(v, val, ir.Constant(ir.IntType(32), j))
            builder.store(v, vptr, align=16)
            return context.get_dummy_value()

        return sig, codegen

    return load4, store4


def _timers():
    """(now_ns, cycles): %globaltimer and %clock64 on a GPU, host counters simulated."""
    if simulated():
        return (lambda: np.uint64(time.perf_counter_ns()),
                lambda: np.uint64(time.perf_counter_ns()))
    return globaltimer(), clock64()


@functools.cache
def kernels() -> SimpleNamespace:
    """Compile-on-first-call kernels (see the module docstring), as a namespace."""
    global cuda
    cuda = numba_cuda()
    if not simulated():  # spin and empty run on one block on purpose: no occupancy warning
        from numba.cuda.core import config

        config.CUDA_LOW_OCCUPANCY_WARNINGS = False
    load4, store4 = _vec4_sim() if simulated() else _vec4_gpu()
    now_ns, cycles = _timers()
    a_, b_ = FMA_A, FMA_B

    def fixed(count: int):
        """A device function doing ``count`` FMAs (a constant: fully unrolled)."""
        @cuda.jit(device=True, inline=True, fastmath=True)
        def f(v):
            for _ in range(count):
                v = v * a_ + b_
            return v
        return f

    fma_block, f16, f8, f4, f2, f1 = (fixed(c) for c in (UNROLL, 16, 8, 4, 2, 1))

    @cuda.jit(device=True, inline=True, fastmath=True)
    def fma_tail(v, r):
        """r < 32 FMAs as unrolled blocks of 16, 8, 4, 2 and 1 (r is the same in a warp)."""
        if r & 16:
            v = f16(v)
        if r & 8:
            v = f8(v)
        if r & 4:
            v = f4(v)
        if r & 2:
            v = f2(v)
        if r & 1:
            v = f1(v)
        return v

    @cuda.jit(fastmath=True)
    def knob(x, k):
        nvec = x.size // VEC
        stride = cuda.gridsize(1)
        i = cuda.grid(1)
        if i < nvec:
            v0, v1, v2, v3 = load4(x, i)
        while i < nvec:
            j = i + stride
            if j < nvec:  # the next four floats are on their way while these are worked on
                w0, w1, w2, w3 = load4(x, j)
            for _ in range(k // UNROLL):
                v0 = fma_block(v0)
                v1 = fma_block(v1)
                v2 = fma_block(v2)
                v3 = fma_block(v3)
            r = k % UNROLL
            store4(x, i, fma_tail(v0, r), fma_tail(v1, r), fma_tail(v2, r), fma_tail(v3, r))
            if j < nvec:
                v0, v1, v2, v3 = w0, w1, w2, w3
            i = j

    @cuda.jit(fastmath=True)
    def fma_peak(out, turns):
        i = cuda.grid(1)
        s = np.float32(i % 1024) * np.float32(1e-3)
        v0, v1, v2, v3 = s, s + np.float32(0.1), s + np.float32(0.2), s + np.float32(0.3)
        v4, v5, v6, v7 = s + np.float32(0.4), s + np.float32(0.5), s + np.float32(0.6), s + np.float32(0.7)
        for _ in range(turns):
            v0 = fma_block(v0)
            v1 = fma_block(v1)
            v2 = fma_block(v2)
            v3 = fma_block(v3)
            v4 = fma_block(v4)
            v5 = fma_block(v5)
            v6 = fma_block(v6)
            v7 = fma_block(v7)
        if i < out.size:
            out[i] = ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7))

    @cuda.jit
    def scale_shift_relu(x, y):
        i = cuda.grid(1)
        if i < x.size:
            v = np.float32(x[i]) * np.float32(1.5) + np.float32(0.5)
            y[i] = np.float16(v if v > np.float32(0.0) else np.float32(0.0))

    @cuda.jit
    def sin2_cos2(x, y):
        i = cuda.grid(1)
        if i < x.size:
            s = np.float32(math.sin(x[i]))
            c = np.float32(math.cos(x[i]))
            y[i] = s * s + c * c

    @cuda.jit
    def spin(out, j, ns):
        t0 = now_ns()
        c0 = cycles()
        t = t0
        while t - t0 < ns:
            t = now_ns()
        c1 = cycles()
        out[j, 0] = t0
        out[j, 1] = t - t0
        out[j, 2] = c1 - c0

    @cuda.jit
    def empty():
        pass

    return SimpleNamespace(knob=knob, fma_peak=fma_peak, scale_shift_relu=scale_shift_relu,
                           sin2_cos2=sin2_cos2, spin=spin, empty=empty, cuda=cuda)


def grid(n_threads: int) -> int:
    """Blocks of BLOCK threads covering n_threads."""
    if n_threads < 1:
        raise ValueError(f"n_threads must be >= 1; got {n_threads}")
    return (int(n_threads) + BLOCK - 1) // BLOCK


def peak_flops_per_launch(threads: int, turns: int) -> float:
    """FLOPs one fma_peak launch does: threads x turns x chains x UNROLL x 2."""
    return float(threads) * turns * PEAK_CHAINS * UNROLL * 2
