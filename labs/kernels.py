"""The numba.cuda kernels the labs share, built on first use by :func:`kernels`.

Each kernel isolates one mechanism:

- ``knob(x, k)``: the intensity knob. A thread loads four floats with one 16-byte load,
  does ``k`` fused multiply-adds on each, and stores them back with one 16-byte store:
  8 bytes of DRAM traffic and 2k FLOPs per float, so intensity = k/4 FLOP/byte, the same
  bytes for every k. 16-byte accesses are what lets a numba kernel stream near the copy
  bandwidth (4-byte grid-stride loads reach about 0.7 of it). The namespace's ``knob`` is
  the persistent one: launched with one wave of resident threads, each thread strides
  over the buffer ``KNOB_GROUPS`` groups of 16 bytes a turn and has the next turn's
  groups on their way while it computes (see :func:`make_knob`, which also says where
  ptxas puts the waits and why that decided the kernel's shape). The intensity lab also
  launches ``make_knob(1)`` as fresh threads, one per 16 bytes (labs.intensity.LAUNCHES). k is done as unrolled blocks of ``UNROLL`` FMAs per float plus
  unrolled blocks of 16, 8, 4, 2, 1 for the rest.
- ``fma_peak(out, turns)``: registers only. ``PEAK_CHAINS`` = 16 independent chains, each
  a fully unrolled block of ``PEAK_BLOCK`` = 64 FMAs per loop turn, constants as literals
  (PTX ``fma.rn.f32 %f, %f, 0f..., 0f...``): 1,024 FFMAs to the loop's own handful of
  instructions (under 1% of the issue slots), in 32 registers, so 2,048 threads an SM stay
  resident. FLOPs = threads x turns x PEAK_CHAINS x PEAK_BLOCK x 2. (Eight chains of 32, the
  earlier kernel, held 0.93-0.95 of the clock peak on the H200; this one 0.97: see
  labs/fma_variants.py and labs/NOTES.md.)
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
#: Independent chains in the FMA-peak kernel, and FMAs in each chain's block per loop turn
#: (16 x 64 = 1,024 FMAs per loop turn).
PEAK_CHAINS = 16
PEAK_BLOCK = 2 * UNROLL
#: The FMA-peak kernel kernels() ships: "wide", the one below (recorded). The variants it
#: was chosen from are in labs/fma_variants.py, their run in labs/results/H200/fma_variants.json;
#: shipping another means copying it here (this module imports none of them).
FMA_PEAK_VARIANT = "wide"
#: Threads per block of every kernel here.
BLOCK = 256
#: Floats per 16-byte access of the knob kernel.
VEC = 4
#: 16-byte groups a thread of the knob works on per turn (see :func:`make_knob`).
KNOB_GROUPS = 2
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
    # An array of more dimensions is read in its row-major order, as the GPU's load4 does
    # (its address is the data pointer plus 16 i bytes, whatever the shape); anything
    # without dimensions (a list) is indexed as it is.
    def load4(a, i):
        a = a.reshape(a.size) if getattr(a, "ndim", 1) > 1 else a
        j = VEC * i
        return a[j], a[j + 1], a[j + 2], a[j + 3]

    def store4(a, i, v0, v1, v2, v3):
        a = a.reshape(a.size) if getattr(a, "ndim", 1) > 1 else a
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
def _fixed(count: int):
    """A device function doing ``count`` FMAs v <- v * FMA_A + FMA_B (a constant count:
    fully unrolled; the constants are literals in the PTX)."""
    a_, b_ = FMA_A, FMA_B

    @cuda.jit(device=True, inline=True, fastmath=True)
    def f(v):
        for _ in range(count):
            v = v * a_ + b_
        return v

    return f


@functools.cache
def _bind() -> None:
    """Bind numba.cuda to the module global ``cuda`` (once)."""
    global cuda
    cuda = numba_cuda()
    if not simulated():  # spin and empty run on one block on purpose: no occupancy warning
        from numba.cuda.core import config

        config.CUDA_LOW_OCCUPANCY_WARNINGS = False


@functools.cache
def kernels() -> SimpleNamespace:
    """Compile-on-first-call kernels (see the module docstring), as a namespace."""
    _bind()
    now_ns, cycles = _timers()
    blocks16 = _fma_chains().blocks16
    knob = make_knob(KNOB_GROUPS)

    @cuda.jit(fastmath=True)
    def fma_peak(out, turns):
        i = cuda.grid(1)
        s = np.float32(i % 1024) * np.float32(1e-3)     # chain c starts at s + c / 20
        d = np.float32(0.05)
        v0, v1, v2, v3 = s, s + d, s + np.float32(2) * d, s + np.float32(3) * d
        v4, v5 = s + np.float32(4) * d, s + np.float32(5) * d
        v6, v7 = s + np.float32(6) * d, s + np.float32(7) * d
        v8, v9 = s + np.float32(8) * d, s + np.float32(9) * d
        va, vb = s + np.float32(10) * d, s + np.float32(11) * d
        vc, vd = s + np.float32(12) * d, s + np.float32(13) * d
        ve, vf = s + np.float32(14) * d, s + np.float32(15) * d
        (v0, v1, v2, v3, v4, v5, v6, v7,
         v8, v9, va, vb, vc, vd, ve, vf) = blocks16(v0, v1, v2, v3, v4, v5, v6, v7,
                                                    v8, v9, va, vb, vc, vd, ve, vf, turns)
        if i < out.size:
            out[i] = ((((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7)))
                      + (((v8 + v9) + (va + vb)) + ((vc + vd) + (ve + vf))))

    fma_peak.fmas_per_turn = PEAK_CHAINS * PEAK_BLOCK

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


@functools.cache
def _fma_chains():
    """fma4 and fma8: device functions doing k FMAs on each of four or eight floats
    (independent chains), as unrolled blocks of UNROLL then 16, 8, 4, 2, 1 (k is the same
    across a warp: no divergence), the knobs' arithmetic; blocks8, their whole blocks
    alone; and blocks16, the FMA-peak kernel's loop."""
    fma_block, f16, f8, f4, f2, f1 = (_fixed(c) for c in (UNROLL, 16, 8, 4, 2, 1))
    peak_block = _fixed(PEAK_BLOCK)

    @cuda.jit(device=True, inline=True, fastmath=True)
    def fma4(v0, v1, v2, v3, k):
        """k FMAs on each of four floats (four independent chains): blocks of UNROLL, then
        16, 8, 4, 2, 1 (k is the same across a warp: no divergence)."""
        for _ in range(k // UNROLL):
            v0 = fma_block(v0)
            v1 = fma_block(v1)
            v2 = fma_block(v2)
            v3 = fma_block(v3)
        r = k % UNROLL
        if r:
            if r & 16:
                v0, v1, v2, v3 = f16(v0), f16(v1), f16(v2), f16(v3)
            if r & 8:
                v0, v1, v2, v3 = f8(v0), f8(v1), f8(v2), f8(v3)
            if r & 4:
                v0, v1, v2, v3 = f4(v0), f4(v1), f4(v2), f4(v3)
            if r & 2:
                v0, v1, v2, v3 = f2(v0), f2(v1), f2(v2), f2(v3)
            if r & 1:
                v0, v1, v2, v3 = f1(v0), f1(v1), f1(v2), f1(v3)
        return v0, v1, v2, v3

    @cuda.jit(device=True, inline=True, fastmath=True)
    def blocks8(v0, v1, v2, v3, v4, v5, v6, v7, turns):
        """``turns`` fully unrolled blocks of UNROLL FMAs on each of 8 floats (8 independent
        chains): the FMA-peak kernel's loop, and the bulk of fma8."""
        for _ in range(turns):
            v0 = fma_block(v0)
            v1 = fma_block(v1)
            v2 = fma_block(v2)
            v3 = fma_block(v3)
            v4 = fma_block(v4)
            v5 = fma_block(v5)
            v6 = fma_block(v6)
            v7 = fma_block(v7)
        return v0, v1, v2, v3, v4, v5, v6, v7

    @cuda.jit(device=True, inline=True, fastmath=True)
    def fma8(v0, v1, v2, v3, v4, v5, v6, v7, k):
        """fma4 on 8 floats: 8 independent chains."""
        v0, v1, v2, v3, v4, v5, v6, v7 = blocks8(v0, v1, v2, v3, v4, v5, v6, v7, k // UNROLL)
        r = k % UNROLL
        if r:
            v0, v1, v2, v3 = fma4(v0, v1, v2, v3, r)
            v4, v5, v6, v7 = fma4(v4, v5, v6, v7, r)
        return v0, v1, v2, v3, v4, v5, v6, v7

    @cuda.jit(device=True, inline=True, fastmath=True)
    def blocks16(v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, va, vb, vc, vd, ve, vf, turns):
        """``turns`` fully unrolled blocks of PEAK_BLOCK FMAs on each of 16 floats (16
        independent chains): the FMA-peak kernel's loop."""
        for _ in range(turns):
            v0, v1, v2, v3 = peak_block(v0), peak_block(v1), peak_block(v2), peak_block(v3)
            v4, v5, v6, v7 = peak_block(v4), peak_block(v5), peak_block(v6), peak_block(v7)
            v8, v9, va, vb = peak_block(v8), peak_block(v9), peak_block(va), peak_block(vb)
            vc, vd, ve, vf = peak_block(vc), peak_block(vd), peak_block(ve), peak_block(vf)
        return v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, va, vb, vc, vd, ve, vf

    return SimpleNamespace(fma4=fma4, fma8=fma8, blocks8=blocks8, blocks16=blocks16)


@functools.cache
def make_knob(groups: int = 1):
    """The intensity-knob kernel ``knob(x, k)`` (see the module docstring) working on
    ``groups`` (1 or 2) 16-byte groups per thread per turn; :func:`kernels` ships
    ``make_knob(KNOB_GROUPS)``.

    A turn covers ``groups`` groups one grid-stride apart (each warp instruction still
    touches 512 contiguous bytes) and holds two sets of them, ``v`` (being worked on) and
    ``w`` (the next turn's). A turn: load ``w``; do k - 1 FMAs on every float of ``v``
    (4 x groups independent chains) and store it; ``v <- w`` (this move is where the
    thread waits for ``w``); do ``v``'s first FMA. Every float gets exactly k FMAs (k < 1:
    nothing to do, x is left as it is).

    Why this shape (each point read off the SASS for sm_90, CUDA 13): ptxas tracks the
    loads of a loop on ONE scoreboard, and at any use of a loaded register it waits for
    everything still on that scoreboard; at the top of the loop it also waits for what a
    path into the loop may have left on it. So a turn's load must be issued when nothing
    else is on order, and first be needed a whole turn later: here ``w`` is issued at the
    top of the turn and first needed by the move at its end. The prologue's first FMA on
    every float (unconditional, unlike a k-dependent count) makes the prologue wait for
    its own load, so nothing is pending at the loop's top. The version recorded on
    2026-11-30 loaded the next group at the top of the turn and used the current one right
    after; since the first group came from the same scoreboard, the first FMA of EVERY turn
    waited for the load just issued, and the prefetch overlapped nothing (k = 128: 1.27x
    the model). Three sets (load two turns ahead) cost registers and occupancy for no
    gain; spreading the warps' stores over the turn (a per-warp split of the FMAs) did not
    help either (labs/NOTES.md).

    ``groups``: the per-turn costs (the load, the store, the move, the loop's and the
    tail's own instructions) are shared by 4 x groups chains. Measured on the H200
    (2026-11-30, full sweep, one wave, 1 GiB): groups = 2 (32 registers, 2048 threads an
    SM, 32 bytes each on order) at k = 128 is 1.14x the model; a 4-group version (48
    registers, since removed: it is in the history) reached 1.11x and 23.7 s of compiling
    in quick mode; both stream at 0.88-0.89 of the same run's copy. Launched as fresh
    threads instead (one turn each), groups = 1 streams at 0.96-0.98 of the copy.
    """
    if groups not in (1, 2):
        raise ValueError(f"groups must be 1 or 2; got {groups!r}")
    _bind()
    f1 = _fixed(1)
    chains = _fma_chains()
    fma4, fma8 = chains.fma4, chains.fma8
    load4, store4 = _vec4_sim() if simulated() else _vec4_gpu()
    g_ = int(groups)

    # (the three bodies differ only in how many groups they hold: written out, since
    # numba keeps scalars in registers but a local array's copies let ptxas hoist the
    # end-of-turn move above the FMAs, which then waits for the load just issued)
    if g_ == 1:
        @cuda.jit(fastmath=True)
        def knob(x, k):
            nvec = x.size // VEC
            stride = cuda.gridsize(1)
            turn = stride
            i = cuda.grid(1)
            if k < 1:  # no FMAs: x stays as it is
                return
            z = np.float32(0.0)
            v0, v1, v2, v3 = z, z, z, z
            w0, w1, w2, w3 = z, z, z, z
            if i < nvec:
                v0, v1, v2, v3 = load4(x, i)
                # one FMA on every float: waits for v here, not in the loop
                v0, v1, v2, v3 = f1(v0), f1(v1), f1(v2), f1(v3)
            while i < nvec:
                j = i + turn
                if j < nvec:
                    w0, w1, w2, w3 = load4(x, j)
                v0, v1, v2, v3 = fma4(v0, v1, v2, v3, k - 1)
                store4(x, i, v0, v1, v2, v3)
                v0, v1, v2, v3 = w0, w1, w2, w3  # waits for w: a turn after its load
                v0, v1, v2, v3 = f1(v0), f1(v1), f1(v2), f1(v3)  # w's first FMA
                i = j
    elif g_ == 2:
        @cuda.jit(fastmath=True)
        def knob(x, k):
            nvec = x.size // VEC
            stride = cuda.gridsize(1)
            turn = 2 * stride
            i = cuda.grid(1)
            if k < 1:  # no FMAs: x stays as it is
                return
            z = np.float32(0.0)
            v0, v1, v2, v3, v4, v5, v6, v7 = z, z, z, z, z, z, z, z
            w0, w1, w2, w3, w4, w5, w6, w7 = z, z, z, z, z, z, z, z
            if i < nvec:
                v0, v1, v2, v3 = load4(x, i)
                if i + stride < nvec:
                    v4, v5, v6, v7 = load4(x, i + stride)
                # one FMA on every float: waits for v here, not in the loop
                (v0, v1, v2, v3, v4, v5, v6, v7) = (
                    f1(v0), f1(v1), f1(v2), f1(v3), f1(v4), f1(v5), f1(v6), f1(v7))
            while i < nvec:
                j = i + turn
                if j < nvec:
                    w0, w1, w2, w3 = load4(x, j)
                if j + stride < nvec:
                    w4, w5, w6, w7 = load4(x, j + stride)
                v0, v1, v2, v3, v4, v5, v6, v7 = fma8(v0, v1, v2, v3, v4, v5, v6, v7, k - 1)
                store4(x, i, v0, v1, v2, v3)
                if i + stride < nvec:
                    store4(x, i + stride, v4, v5, v6, v7)
                # waits for w: a turn after its load
                v0, v1, v2, v3, v4, v5, v6, v7 = w0, w1, w2, w3, w4, w5, w6, w7
                # w's first FMA
                (v0, v1, v2, v3, v4, v5, v6, v7) = (
                    f1(v0), f1(v1), f1(v2), f1(v3), f1(v4), f1(v5), f1(v6), f1(v7))
                i = j

    knob.groups = g_
    return knob


def grid(n_threads: int) -> int:
    """Blocks of BLOCK threads covering n_threads."""
    if n_threads < 1:
        raise ValueError(f"n_threads must be >= 1; got {n_threads}")
    return (int(n_threads) + BLOCK - 1) // BLOCK


def peak_flops_per_launch(threads: int, turns: int,
                          fmas_per_turn: int = PEAK_CHAINS * PEAK_BLOCK) -> float:
    """FLOPs one fma_peak launch does: threads x turns x FMAs a thread does per turn (the
    shipped kernel: PEAK_CHAINS x PEAK_BLOCK) x 2."""
    return float(threads) * turns * fmas_per_turn * 2
