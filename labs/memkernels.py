"""Memory kernels shared by the latency, Little's-law and coalescing labs.

Each kernel is built on first use by a factory; the streaming kernels take their load
function as an argument. The parts that exist only on a GPU (the 16-byte vector load, the
in-kernel clocks) come from :mod:`labs.kernels`, which swaps in plain-Python twins under
the CUDA simulator, so the simulator runs the same kernels. Nothing here runs at import
time and nothing imports torch or plotly.

- :func:`chase_kernel`: one thread follows a pointer chain, timed in SM cycles and ns.
- :func:`read_kernel`: a streaming read, ``ilp`` independent loads per thread per turn.
- :func:`pipeline_read_kernel`: the same read with ``ilp`` 16-byte requests per thread kept
  in flight continuously (asynchronous copies, ``cp.async``, counted by the hardware).
- :func:`loaded_chase_kernel`: block 0 chases while every other block streams.
- loads: :func:`wide_load` (16 bytes: four float32 in one instruction), :func:`strided_load`
  (one float32 at ``position x stride``, past the L1), :func:`gather_load` (``x[idx[p]]``).
"""
from __future__ import annotations

import functools

import numpy as np

from .gpu import numba_cuda
from .kernels import _timers, _vec4_gpu, _vec4_sim, simulated

#: numba.cuda, bound on first use by :func:`_bind` (a module global, so that the CUDA
#: simulator can swap it for its fake module while a kernel runs).
cuda = None
#: Bytes per element of a chain (uint32: one IMAD.WIDE per step for the address, no sign
#: check; chains up to 2**32 elements, 16 GiB).
CHAIN_ITEM_BYTES = 4
CHAIN_DTYPE = np.uint32


def cyclic_chain(lines: int, line_bytes: int = 128, seed: int = 0) -> np.ndarray:
    """A uint32 array whose nodes (one per ``line_bytes`` line) form ONE random cycle.

    Node k sits at element ``k * line_bytes / 4``; following ``j = chain[j]`` from any
    node visits every node once before returning. Built with numpy (for small chains and
    tests); :func:`labs.latency.device_chain` builds large ones on the GPU the same way.
    """
    lines, stride = _chain_shape(lines, line_bytes)
    order = np.random.default_rng(seed).permutation(lines)
    chain = np.zeros(lines * stride, dtype=CHAIN_DTYPE)
    chain[order * stride] = (np.roll(order, -1) * stride).astype(CHAIN_DTYPE)
    return chain


def _bind() -> None:
    global cuda
    cuda = numba_cuda()


def _register_room(ilp: int, load) -> dict:
    """cuda.jit options for a streaming kernel: up to 64 registers a thread when a turn's
    loads hold more than 16 floats (96 past 32 floats). Left to its own choice ptxas holds such a kernel to 32
    registers and, with eight 16-byte loads a turn, waits for the first four before issuing
    the rest (seen in the SASS for sm_90); with room for 48 it issues all eight first.
    Smaller turns keep the default (more warps fit). The simulator takes no such option."""
    n = ilp * getattr(load, "width", 1)
    if simulated() or n <= 16:
        return {}
    # 64 floats a turn (16 loads of 16 bytes) need more than 64: 96 holds them unspilled and
    # still lets 20 warps of a block fit (3,072 registers a warp, five a sub-partition)
    return {"max_registers": 64 if n <= 32 else 96}


def _chain_shape(lines: int, line_bytes: int) -> tuple[int, int]:
    if isinstance(lines, bool) or int(lines) != lines or lines < 2:
        raise ValueError(f"lines must be an integer >= 2, got {lines!r}")
    if line_bytes < CHAIN_ITEM_BYTES or line_bytes % CHAIN_ITEM_BYTES:
        raise ValueError(f"line_bytes must be a positive multiple of {CHAIN_ITEM_BYTES}, "
                         f"got {line_bytes!r}")
    if int(lines) * line_bytes // CHAIN_ITEM_BYTES > 2 ** 32:
        raise ValueError(f"a chain holds at most 2**32 uint32 elements (16 GiB); got {lines} "
                         f"lines of {line_bytes} B")
    return int(lines), line_bytes // CHAIN_ITEM_BYTES


def follow(chain: np.ndarray, start: int, steps: int) -> int:
    """Where ``steps`` steps of ``j = chain[j]`` from ``start`` end (the host reference)."""
    j = int(start)
    for _ in range(int(steps)):
        j = int(chain[j])
    return j


# ---------------------------------------------------------------------------- loads

@functools.cache
def wide_load():
    """Device function ``(x, idx, e, vals, k)``: ONE 16-byte load of float32 elements
    ``4 e`` .. ``4 e + 3`` of ``x`` (``e`` counts 16-byte units) into ``vals[4k:4k+4]``.

    numba alone splits wide reads into 4- or 8-byte loads; this uses the 16-byte vector
    load of :mod:`labs.kernels` (``ld.global.v4.f32``, the width a device copy uses), or
    its plain-Python twin under the simulator. ``x`` must be 16-byte aligned, as every
    CUDA allocation is.
    """
    _bind()
    load4, _store4 = _vec4_sim() if simulated() else _vec4_gpu()

    @cuda.jit(device=True)
    def load(x, idx, e, vals, k):
        v0, v1, v2, v3 = load4(x, e)
        vals[4 * k] = v0
        vals[4 * k + 1] = v1
        vals[4 * k + 2] = v2
        vals[4 * k + 3] = v3

    load.width = 4
    return load


def _ldcg_gpu():
    """ldcg(x, i) -> x[i] through ``ld.global.cg.f32``: cached in the L2 only, not the L1
    (inline PTX), so repeated reads of a small buffer measure the L2, not the L1."""
    from llvmlite import ir
    from numba import types
    from numba.cuda import cgutils
    from numba.cuda.extending import intrinsic

    @intrinsic
    def ldcg(typingctx, arr, i):
        sig = types.float32(arr, i)

        def codegen(context, builder, signature, args):
            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])
            addr = builder.ptrtoint(ptr, ir.IntType(64))
            asm = ir.InlineAsm(ir.FunctionType(ir.FloatType(), [ir.IntType(64)]),
                               "ld.global.cg.f32 $0, [$1];", "=f,l", side_effect=True)
            return builder.call(asm, [addr])

        return sig, codegen

    return ldcg


@functools.cache
def strided_load():
    """Device function ``(x, idx, e, vals, k)``: ``vals[k]`` = element ``e mod x.size``,
    read past the L1 (``ld.global.cg``; a plain read under the simulator). ``x`` is float32 and
    ``x.size`` a power of two, so the wrap is a bitwise and: element indices past the end
    wrap round to the start, several passes over a small buffer."""
    _bind()
    ldcg = (lambda x, i: x[i]) if simulated() else _ldcg_gpu()

    @cuda.jit(device=True)
    def load(x, idx, e, vals, k):
        vals[k] = ldcg(x, e & (x.size - 1))

    return load


@functools.cache
def gather_load():
    """Device function ``(x, idx, e, vals, k)``: ``vals[k] = x[idx[e]]`` (a gather)."""
    _bind()

    @cuda.jit(device=True)
    def load(x, idx, e, vals, k):
        vals[k] = x[idx[e]]

    return load


# ---------------------------------------------------------------------------- kernels

@functools.cache
def stream_body(ilp: int, load):
    """Device function ``(x, idx, base, iters, stride, tid, threads) -> float32``: a thread's
    share of a streaming read over float32 data (no NaN in it). Turn ``t`` loads positions
    ``p = base + (t ilp + k) threads + tid`` for ``k < ilp``, i.e. element index
    ``e = p x stride`` handed to ``load(x, idx, e, vals, k)``, which puts its ``load.width``
    floats (1, or 4 for :func:`wide_load`) in ``vals``: consecutive threads ``stride`` apart,
    no bounds test (the caller launches exactly ``threads x ilp x iters`` positions) and
    ``e`` kept as a running sum, so a load costs about eight instructions.

    Exactly ``ilp`` loads per thread are in flight: a turn issues all its loads before
    adding any of their values (summing each load's floats as it arrives, ptxas keeps only
    two to four loads open), and the next turn's addresses depend on this turn's sum
    through a test that never fires, so turns cannot overlap either.
    """
    if isinstance(ilp, bool) or int(ilp) != ilp or not 1 <= ilp <= 16:
        raise ValueError(f"ilp must be an integer in [1, 16], got {ilp!r}")
    _bind()
    ilp = int(ilp)
    n = ilp * getattr(load, "width", 1)

    @cuda.jit(device=True)
    def body(x, idx, base, iters, stride, tid, threads):
        acc = np.float32(0.0)
        e = (base + tid) * stride
        step = threads * stride
        vals = cuda.local.array(n, np.float32)
        for t in range(iters):
            for k in range(ilp):  # ilp is a compile-time constant: unrolled, all loads first
                load(x, idx, e, vals, k)
                e += step
            s = vals[n - 1]       # start from the last load: no add can run before it issues
            for k in range(n - 1):
                s += vals[k]
            acc += s
            if acc != acc:        # never (no NaN in the data), but the compiler cannot know:
                e += 1            # the next turn's addresses wait for this turn's loads
        return acc

    return body


@functools.cache
def read_kernel(ilp: int, load):
    """Kernel ``(x, idx, base, iters, stride, out)``: every thread runs :func:`stream_body`
    and writes its sum to ``out[thread]`` (so nothing is optimised away). Positions read:
    ``base`` .. ``base + gridsize x ilp x iters - 1``, each once."""
    _bind()
    body = stream_body(ilp, load)

    @cuda.jit(**_register_room(ilp, load))
    def kernel(x, idx, base, iters, stride, out):
        tid = cuda.grid(1)
        out[tid] = body(x, idx, base, iters, stride, tid, cuda.gridsize(1))

    return kernel


def _cp_async_gpu(ilp: int):
    """(copy16, commit, wait_oldest, wait_all) for sm_80 and later, as inline PTX:
    ``copy16(dst, d, src, s)`` starts ``cp.async.cg.shared.global`` of 16 bytes (floats
    4 s .. 4 s + 3 of the global array ``src``, past the L1) into floats 4 d .. 4 d + 3 of
    the shared array ``dst``; ``commit()`` closes the copies issued since the last one into
    a group; ``wait_oldest()`` waits until at most ``ilp - 1`` groups are still on their
    way (``cp.async.wait_group``: groups complete in the order they were committed), so
    the oldest group has landed; ``wait_all()`` waits for every group."""
    from llvmlite import ir
    from numba import types
    from numba.cuda.extending import intrinsic

    from .kernels import _vec4_ptr

    i64 = ir.IntType(64)

    @intrinsic
    def copy16(typingctx, dst, d, src, s):
        sig = types.void(dst, d, src, s)

        def codegen(context, builder, signature, args):
            dptr = _vec4_ptr(context, builder, signature.args[0], args[0], args[1],
                             signature.args[1])
            sptr = _vec4_ptr(context, builder, signature.args[2], args[2], args[3],
                             signature.args[3])
            asm = ir.InlineAsm(
                ir.FunctionType(ir.VoidType(), [i64, i64]),
                "{ .reg .u64 cpd, cps; cvta.to.shared.u64 cpd, $0; cvta.to.global.u64 cps, $1;"
                " cp.async.cg.shared.global [cpd], [cps], 16; }",
                "l,l,~{memory}", side_effect=True)
            builder.call(asm, [builder.ptrtoint(dptr, i64), builder.ptrtoint(sptr, i64)])
            return context.get_dummy_value()

        return sig, codegen

    def _plain(text):
        @intrinsic
        def op(typingctx):
            def codegen(context, builder, signature, args):
                asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), []), text, "~{memory}",
                                   side_effect=True)
                builder.call(asm, [])
                return context.get_dummy_value()

            return types.void(), codegen

        return op

    return (copy16, _plain("cp.async.commit_group;"),
            _plain(f"cp.async.wait_group {int(ilp) - 1};"), _plain("cp.async.wait_group 0;"))


def _cp_async_sim(ilp: int):
    """Plain-Python twins of :func:`_cp_async_gpu` for the simulator: the copy happens at
    once, so committing and waiting have nothing to do."""
    def copy16(dst, d, src, s):
        dst[4 * d:4 * d + 4] = src[4 * s:4 * s + 4]

    def nothing():
        pass

    return copy16, nothing, nothing, nothing


def pipeline_shared_bytes(ilp: int, threads_per_block: int) -> int:
    """Dynamic shared memory a block of :func:`pipeline_read_kernel` needs: one 16-byte
    slot per request in flight, ``ilp`` per thread."""
    return 16 * int(ilp) * int(threads_per_block)


@functools.cache
def pipeline_read_kernel(ilp: int, chained: bool = False):
    """Kernel ``(x, idx, base, iters, stride, out)`` with :func:`read_kernel`'s positions and
    result for 16-byte elements (``x`` float32, element ``e`` = floats 4 e .. 4 e + 3; ``idx``
    unused), but each thread keeps exactly ``ilp`` requests in flight ALL the time: a
    rotating pipeline of ``ilp`` slots in shared memory, filled by asynchronous copies
    (``cp.async``, sm_80 and later). The prologue starts one copy into every slot, each its
    own group; then each step waits for the OLDEST group (``cp.async.wait_group ilp-1``),
    adds its slot's four floats and at once starts the slot's next copy; the epilogue
    drains. Launch with :func:`pipeline_shared_bytes` of dynamic shared memory.

    A slot is refilled right after it is read: the refill's order after the wait and the
    read is fixed by the copies' own ordering (``cp.async`` and its waits are never moved
    past one another; the read comes first in program order and its copy lands a memory
    latency later). ``chained``: the refill's address also waits on the running sum
    (through a test that never fires), as in :func:`stream_body`; that puts the slot's
    shared-memory read, the adds and the test on each step's critical path, about 65 ns a
    step on the H200, which with ilp = 8 made a turn longer than the memory latency.

    Why not registers: :func:`stream_body` waits for a whole turn's loads before reissuing
    any, so a turn lasts as long as its slowest load and the slots sit idle while it sums;
    at equal bytes in flight the larger ``ilp`` got up to 1.5x less bandwidth on the H200.
    A register pipeline cannot do better under ptxas (sm_90, CUDA 13): it tracks loads
    still in flight round a loop's back edge on ONE scoreboard, so the first use of any
    slot waits for all of them (seen in the SASS), and with the refills left free it also
    gathers them after all the adds. Groups of ``cp.async`` are counted by the hardware in
    order, which is exactly "at most ilp - 1 others still on their way". (Measured on the
    H200, 2026-11-30: L = 1, 2, 4, 8 within 6-15% of one another at equal bytes in flight,
    against 28-51% for :func:`stream_body`; one SM, though, tops out near 49 GB/s through
    this path, against about 190 GB/s with plain loads; labs/NOTES.md.)
    """
    if isinstance(ilp, bool) or int(ilp) != ilp or not 1 <= ilp <= 16:
        raise ValueError(f"ilp must be an integer in [1, 16], got {ilp!r}")
    _bind()
    ilp = int(ilp)
    copy16, commit, wait_oldest, wait_all = (_cp_async_sim if simulated()
                                             else _cp_async_gpu)(ilp)
    from numba import types

    f32 = types.float32  # (a numba type: the simulator cannot size np.float32's slots)

    @cuda.jit
    def kernel(x, idx, base, iters, stride, out):
        slots = cuda.shared.array(0, f32)
        tid = cuda.grid(1)
        t = cuda.threadIdx.x
        nt = cuda.blockDim.x
        e = (base + tid) * stride
        step = cuda.gridsize(1) * stride
        acc = np.float32(0.0)
        for k in range(ilp):            # prologue: every slot on order, a group each
            copy16(slots, k * nt + t, x, e)
            commit()
            e += step
        for _ in range(iters - 1):
            for k in range(ilp):        # unrolled: slot k is the oldest group now
                wait_oldest()
                j = 4 * (k * nt + t)    # consecutive threads, consecutive 16 bytes
                acc += (slots[j] + slots[j + 1]) + (slots[j + 2] + slots[j + 3])
                if chained and acc != acc:  # never (no NaN in the data): the refill
                    e += 1                  # waits until slot k has been read and added
                copy16(slots, k * nt + t, x, e)
                commit()
                e += step
        wait_all()
        for k in range(ilp):            # epilogue: drain
            j = 4 * (k * nt + t)
            acc += (slots[j] + slots[j + 1]) + (slots[j + 2] + slots[j + 3])
        out[tid] = acc

    kernel.ilp = ilp
    return kernel


def allow_shared(kernel, nbytes: int) -> bool:
    """Let a compiled numba kernel take ``nbytes`` of dynamic shared memory per block (past
    the 48 KiB default, up to the device's opt-in limit). False where that cannot be
    set (then launches above 48 KiB fail and the caller skips them)."""
    if simulated() or nbytes <= 48 * 1024:
        return True
    try:
        from numba.cuda.cudadrv.driver import binding, driver

        cufunc = next(iter(kernel.overloads.values()))._codelibrary.get_cufunc()
        attr = binding.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        driver.cuKernelSetAttribute(attr, int(nbytes), cufunc.handle, cufunc.device.id)
        return True
    except Exception:  # an older driver binding: launches past 48 KiB are skipped
        return False


@functools.cache
def chase():
    """Device function ``(chain, j, steps) -> j``: ``steps`` dependent loads ``j = chain[j]``
    (pass ``j`` as np.uint32, the chain's type, so the index needs no sign check)."""
    _bind()

    @cuda.jit(device=True)
    def walk(chain, j, steps):
        for _ in range(steps):
            j = chain[j]
        return j

    return walk


@functools.cache
def chase_kernel():
    """Kernel ``(chain, start, warm, steps, out)`` for ONE thread: ``warm`` untimed steps
    (to load the caches), then ``steps`` steps between two reads of ``clock`` (SM cycles)
    and ``timer`` (ns). Writes out[0] = where the chain ended, out[1] = cycles,
    out[2] = nanoseconds: ``%clock64`` and ``%globaltimer`` on a GPU, host counters under the
    simulator (which checks only where the chain ends)."""
    _bind()
    walk = chase()
    timer, clock = _timers()

    @cuda.jit
    def kernel(chain, start, warm, steps, out):
        if cuda.grid(1) != 0:
            return
        j = walk(chain, np.uint32(start), warm)
        c0 = clock()
        t0 = timer()
        j = walk(chain, j, steps)
        c1 = clock()
        t1 = timer()
        out[0] = j
        out[1] = c1 - c0
        out[2] = t1 - t0

    return kernel


@functools.cache
def loaded_chase_kernel(ilp: int):
    """Kernel ``(chain, start, steps, x, iters, max_passes, flag, out, sums)``: thread 0 of
    block 0
    chases ``steps`` steps (timed as in :func:`chase_kernel`, results in out[0:3]) and then
    sets ``flag[0] = 1``; every thread of the other blocks streams over ``x`` (ilp 16-byte
    loads a turn, ``iters`` turns a pass: (blocks - 1) x threads x ilp x iters positions) pass after pass until it sees the flag, and counts its
    passes in ``out[3]`` (atomically), at most ``max_passes``. The latency one load sees while
    the memory is busy. Launch no more blocks than can be resident at once.
    """
    _bind()
    walk = chase()
    body = stream_body(ilp, wide_load())
    timer, clock = _timers()

    @cuda.jit(**_register_room(ilp, wide_load()))
    def kernel(chain, start, steps, x, iters, max_passes, flag, out, sums):
        if cuda.blockIdx.x == 0:
            if cuda.threadIdx.x == 0:
                c0 = clock()
                t0 = timer()
                j = walk(chain, np.uint32(start), steps)
                c1 = clock()
                t1 = timer()
                out[0] = j
                out[1] = c1 - c0
                out[2] = t1 - t0
                cuda.atomic.exch(flag, 0, 1)
            return
        threads = (cuda.gridDim.x - 1) * cuda.blockDim.x
        tid = (cuda.blockIdx.x - 1) * cuda.blockDim.x + cuda.threadIdx.x
        acc = 0.0
        passes = 0
        while cuda.atomic.add(flag, 0, 0) == 0 and passes < max_passes:
            acc += body(x, x, 0, iters, 1, tid, threads)
            passes += 1
        sums[tid] = acc
        if cuda.threadIdx.x == 0:
            cuda.atomic.add(out, 3, passes)

    return kernel


def resident_blocks(kernel, threads_per_block: int, shared_bytes: int = 0) -> int:
    """Blocks of ``threads_per_block`` threads (each with ``shared_bytes`` of dynamic shared
    memory) that fit on the whole GPU at once (the CUDA occupancy calculator, through
    numba); the kernel must have been launched once."""
    if not kernel.overloads:
        raise ValueError("launch the kernel once before asking how many blocks fit")
    compiled = next(iter(kernel.overloads.values()))
    return int(compiled.max_cooperative_grid_blocks(int(threads_per_block), int(shared_bytes)))


#: The transpose kernels' tile: 32 x 32 floats, staged in shared memory padded to 33 columns
#: so a column of the tile falls in 32 different banks; blocks of (32, 8) threads, each
#: thread moving TILE / 8 = 4 elements.
TRANSPOSE_TILE, TRANSPOSE_ROWS = 32, 8


@functools.cache
def transpose_kernels():
    """Kernels ``naive(a, out)``, ``tiled(a, out)`` and ``tiled_unpadded(a, out)``: out = a.T for a square float32
    matrix whose side is a multiple of 32, launched on a grid of (side/32, side/32) blocks
    of (32, 8) threads. Both read a row of ``a`` with consecutive lanes on consecutive
    columns (coalesced). ``naive`` writes each value straight to ``out[j, i]``, so a warp's
    32 stores land 4 x side bytes apart, 32 sectors a request; ``tiled`` stages a 32 x 32
    tile in shared memory and writes rows of ``out``, 4 sectors a request; ``tiled_unpadded``
    does the same with rows of 32, so reading a column of the tile is a 32-way bank conflict."""
    _bind()
    tile, rows = TRANSPOSE_TILE, TRANSPOSE_ROWS
    if tile != 32:
        raise ValueError(f"the padded tile is written as (32, 33); TRANSPOSE_TILE is {tile}")

    @cuda.jit
    def naive(a, out):
        x = cuda.blockIdx.x * tile + cuda.threadIdx.x
        y0 = cuda.blockIdx.y * tile + cuda.threadIdx.y
        for k in range(0, tile, rows):           # a constant trip count: unrolled
            out[x, y0 + k] = a[y0 + k, x]

    @cuda.jit
    def tiled(a, out):
        # The shape must be literal numbers for numba on a GPU ((TILE, TILE + 1) is an
        # int64 sum it refuses); TRANSPOSE_TILE is 32, checked below.
        buf = cuda.shared.array((32, 33), np.float32)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        x = cuda.blockIdx.x * tile + tx
        y0 = cuda.blockIdx.y * tile + ty
        for k in range(0, tile, rows):
            buf[ty + k, tx] = a[y0 + k, x]
        cuda.syncthreads()
        xo = cuda.blockIdx.y * tile + tx          # the block's tile, written transposed
        yo = cuda.blockIdx.x * tile + ty
        for k in range(0, tile, rows):
            out[yo + k, xo] = buf[tx, ty + k]

    @cuda.jit
    def tiled_unpadded(a, out):
        buf = cuda.shared.array((TRANSPOSE_TILE, TRANSPOSE_TILE), np.float32)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        x = cuda.blockIdx.x * tile + tx
        y0 = cuda.blockIdx.y * tile + ty
        for k in range(0, tile, rows):
            buf[ty + k, tx] = a[y0 + k, x]
        cuda.syncthreads()
        xo = cuda.blockIdx.y * tile + tx
        yo = cuda.blockIdx.x * tile + ty
        for k in range(0, tile, rows):
            out[yo + k, xo] = buf[tx, ty + k]   # a column of a 32-wide tile: one bank

    return naive, tiled, tiled_unpadded
