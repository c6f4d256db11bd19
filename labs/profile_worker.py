"""The program ``ncu`` profiles for :mod:`labs.profile`: small launches of the Part II labs'
own kernels, one lesson at a time.

``python -m labs.profile_worker LESSON MANIFEST [--quick]`` builds the lesson's kernels and
data, launches every case once untimed (compiling it, outside the profiled range), then
launches each case once more between ``cuProfilerStart`` and ``cuProfilerStop``, so ncu
(run with ``--profile-from-start off``) profiles exactly one launch per case, in the order
of the cases. MANIFEST receives the cases as JSON, in that order: lesson, lab, case,
kernel name, launch shape, registers per thread and the sizes the model needs.

Lessons: ``simt`` (divergence kernels), ``latency`` (the pointer chase and the streaming
read at several warps per SM), ``memory`` (strided reads, gathers and the staircase,
coalescing lab kernels), ``compute`` (the FMA-peak kernel and the intensity knob) and
``transpose`` (a naive and a shared-memory-tiled transpose: where their stores go).

Imports torch and numba, never plotly.
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

LESSONS = ("simt", "latency", "memory", "compute", "transpose", "stalls")
#: Side of the transposed float32 matrix (8192: 256 MiB, the challenge's size).
TRANSPOSE_SIDE = {False: 8192, True: 4096}
#: Sizes: full run, and quick (a reader's GPU in a chapter cell).
DIVERGE_ITERS = {False: 4096, True: 1024}
DIVERGE_PATHS = {False: (1, 2, 4, 8), True: (1, 4)}
ONE_IN_K = {False: (8, 32), True: (32,)}
STRIDES = {False: (1, 2, 4, 8, 16, 32), True: (1, 4, 16)}
WARPS_PER_SM = {False: (2, 8, 32, 64), True: (8, 64)}
KNOB_KS = {False: (1, 256), True: (1, 256)}
#: Bytes of the buffer the memory and latency lessons stream from DRAM (16x an H200 L2).
DRAM_BUFFER = {False: 2 ** 30, True: 2 ** 28}
CHAIN_BYTES = 2 ** 28
CHASE_STEPS = 1024
GATHER_POSITIONS = 2 ** 22
KNOB_FLOATS = 2 ** 26
ILP = 8


def _regs(kernel) -> int:
    return int(next(iter(kernel.overloads.values())).regs_per_thread)


def _case(lesson: str, lab: str, case: str, kernel, blocks: int, block: int, **model) -> dict:
    return {"lesson": lesson, "lab": lab, "case": case, "kernel": kernel.py_func.__name__,
            "blocks": int(blocks), "block": int(block), **model}


def simt_cases(quick: bool):
    """Divergence: P paths split through every warp and between warps; one thread in k."""
    from . import divergence
    from .ceilings import fma_grid
    from .kernels import BLOCK

    kern = divergence.kernels()
    blocks, threads = fma_grid()
    iters = DIVERGE_ITERS[quick]
    out = kern.cuda.device_array(threads, dtype=np.float32)
    cases = []
    for split in ("within", "between"):
        for p in DIVERGE_PATHS[quick] if split == "within" else (max(DIVERGE_PATHS[quick]),):
            cases.append((dict(paths=p, split=split, iters=iters),
                          lambda p=p, split=split: kern.diverge[blocks, BLOCK](
                              out, p, split == "between", iters), kern.diverge,
                          f"{p} path{'s' if p > 1 else ''}, split "
                          + ("through every warp" if split == "within" else "between warps")))
    for k in ONE_IN_K[quick]:
        cases.append((dict(k=k, iters=iters),
                      lambda k=k: kern.one_in_k[blocks, BLOCK](out, k, iters), kern.one_in_k,
                      f"one busy thread in {k}"))
    return [(c, fn, kfn, name, blocks, BLOCK) for c, fn, kfn, name in cases], [out]


def latency_cases(quick: bool):
    """The latency lab's lone pointer chaser, and the streaming read (one 16-byte load a
    turn per thread) at several warps per SM: the occupancy a launch shape gives."""
    import torch

    from . import latency, littles_law
    from .gpu import numba_cuda
    from .memkernels import chase_kernel, read_kernel, wide_load

    cuda = numba_cuda()
    sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
    chain = latency.device_chain(CHAIN_BYTES, seed=3)
    arr = cuda.as_cuda_array(chain).view(np.uint32)
    res = cuda.device_array(4, dtype=np.int64)
    chase = chase_kernel()
    cases = [(dict(steps=CHASE_STEPS, working_set_bytes=CHAIN_BYTES),
              lambda: chase[1, 1](arr, 0, 0, CHASE_STEPS, res), chase,
              "one thread chasing pointers", 1, 1)]
    n = DRAM_BUFFER[quick] // 4
    data = torch.rand(n, device="cuda")
    x = cuda.as_cuda_array(data)
    read = read_kernel(1, wide_load())
    keep = [chain, data, res]
    for w in WARPS_PER_SM[quick]:
        blocks, tpb = littles_law.block_shape(w * sms, sms)
        threads = blocks * tpb
        iters = max(1, (n // 4) // threads)
        out = cuda.device_array(threads, dtype=np.float64)
        keep.append(out)
        cases.append((dict(warps_per_sm=w, loads_per_thread=1, load_bytes=16, iters=iters,
                           bytes_read=threads * iters * 16),
                      lambda blocks=blocks, tpb=tpb, iters=iters, out=out:
                      read[blocks, tpb](x, x, 0, iters, 1, out), read,
                      f"streaming read, {w} warps per SM", blocks, tpb))
    return cases, keep


def memory_cases(quick: bool):
    """Coalescing: float32 reads ``stride`` apart (one pass over a DRAM-sized buffer, and
    wrapping round a buffer a quarter of the L2), the gather in order and at random."""
    import torch

    from .coalescing import pow2_floor
    from .ceilings import fma_grid
    from .gpu import context, numba_cuda
    from .kernels import BLOCK
    from .memkernels import gather_load, read_kernel, strided_load

    cuda = numba_cuda()
    threads = pow2_floor(fma_grid()[1])
    blocks = threads // BLOCK
    out = cuda.device_array(threads, dtype=np.float64)
    n = DRAM_BUFFER[quick] // 4
    data = torch.rand(n, device="cuda")
    x = cuda.as_cuda_array(data)
    l2 = int(context().get("l2_bytes") or 4 * 2 ** 20)
    n_l2 = pow2_floor(l2 // 16)
    small_t = torch.rand(n_l2, device="cuda")
    small = cuda.as_cuda_array(small_t)
    strided = read_kernel(ILP, strided_load())
    gather = read_kernel(ILP, gather_load())
    keep = [out, data, small_t]
    cases = []
    for s in STRIDES[quick]:
        iters = max(1, (n // s) // (threads * ILP))
        cases.append((dict(stride=s, placement="dram", positions=threads * ILP * iters,
                           buffer_bytes=4 * n),
                      lambda s=s, iters=iters: strided[blocks, BLOCK](x, x, 0, iters, s, out),
                      strided, f"stride {s}, one pass over {4 * n // 2 ** 20} MiB", blocks, BLOCK))
    passes = 16
    iters = max(1, passes * n_l2 // (threads * ILP))
    cases.append((dict(stride=1, placement="l2", positions=threads * ILP * iters,
                       buffer_bytes=4 * n_l2),
                  lambda iters=iters: strided[blocks, BLOCK](small, small, 0, iters, 1, out),
                  strided,
                  f"stride 1, {passes} passes over {4 * n_l2 // 2 ** 20} MiB", blocks, BLOCK))
    iters = max(1, GATHER_POSITIONS // (threads * ILP))
    m = threads * ILP * iters
    for order in ("sequential", "random"):
        idx_t = (torch.arange(m, device="cuda", dtype=torch.int32) if order == "sequential"
                 else torch.randint(0, n, (m,), device="cuda", dtype=torch.int32))
        idx = cuda.as_cuda_array(idx_t)
        keep.append(idx_t)
        cases.append((dict(order=order, positions=m, buffer_bytes=4 * n),
                      lambda idx=idx, iters=iters: gather[blocks, BLOCK](x, idx, 0, iters, 1, out),
                      gather, f"gather, {order} indices", blocks, BLOCK))
    return cases, keep


def compute_cases(quick: bool):
    """The FMA-peak kernel (registers only) and the intensity knob launched as fresh
    threads at a memory-bound and a compute-bound k."""
    import torch

    from . import intensity
    from .ceilings import fma_grid
    from .fma_variants import fmas_per_turn
    from .kernels import BLOCK, kernels, make_knob, peak_flops_per_launch

    k = kernels()
    blocks, threads = fma_grid()
    out = k.cuda.device_array(threads, dtype=np.float32)
    turns = 16 if quick else 64
    flops = peak_flops_per_launch(threads, turns, fmas_per_turn(k.fma_peak))
    cases = [(dict(turns=turns, flops=flops),
              lambda: k.fma_peak[blocks, BLOCK](out, turns), k.fma_peak,
              "FMA peak (registers only)", blocks, BLOCK)]
    data = torch.rand(KNOB_FLOATS, device="cuda")
    x = k.cuda.as_cuda_array(data)
    launch, kblocks = intensity.knob_launch(x, KNOB_FLOATS, *intensity.LAUNCHES["fresh"])
    for kk in KNOB_KS[quick]:
        cases.append((dict(k=kk, floats=KNOB_FLOATS, intensity=kk / 4.0,
                           flops=2.0 * kk * KNOB_FLOATS, bytes=8.0 * KNOB_FLOATS),
                      lambda kk=kk: launch(kk), make_knob(1), f"intensity knob, k = {kk}",
                      kblocks, BLOCK))
    return cases, [out, data]


def transpose_cases(quick: bool):
    """out = a.T for a side x side float32 matrix, naive (each warp's stores 4 x side bytes
    apart) and tiled through shared memory (each warp's stores one 128-byte row)."""
    import torch

    from .gpu import numba_cuda
    from .memkernels import TRANSPOSE_ROWS, TRANSPOSE_TILE, transpose_kernels

    cuda = numba_cuda()
    side = TRANSPOSE_SIDE[quick]
    a_t = torch.rand(side, side, device="cuda")
    out_t = torch.empty_like(a_t)
    a, out = cuda.as_cuda_array(a_t), cuda.as_cuda_array(out_t)
    grid, block = (side // TRANSPOSE_TILE, side // TRANSPOSE_TILE), (TRANSPOSE_TILE, TRANSPOSE_ROWS)
    naive, tiled, unpadded = transpose_kernels()
    cases = []
    for kern, name in ((naive, "naive transpose"),
                       (tiled, "tiled transpose (32 x 33 in shared memory)"),
                       (unpadded, "tiled transpose, unpadded (32 x 32)")):
        cases.append((dict(side=side, elements=side * side, bytes=4 * side * side),
                      lambda kern=kern: kern[grid, block](a, out), kern, name,
                      grid[0] * grid[1], TRANSPOSE_TILE * TRANSPOSE_ROWS))
    return cases, [a_t, out_t]


BUILDERS = {"simt": simt_cases, "latency": latency_cases, "memory": memory_cases,
            "compute": compute_cases, "transpose": transpose_cases, "stalls": latency_cases}
LABS = {"simt": "divergence", "latency": "latency / littles_law", "memory": "coalescing",
        "compute": "intensity", "transpose": "coalescing", "stalls": "latency / littles_law"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m labs.profile_worker")
    ap.add_argument("lesson", choices=LESSONS)
    ap.add_argument("manifest")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args(argv)
    from .gpu import numba_cuda

    cuda = numba_cuda()
    built, _keep = BUILDERS[a.lesson](a.quick)
    for _model, launch, _kern, _name, _blocks, _block in built:   # compile and warm up
        launch()
    cuda.synchronize()
    manifest = []
    for model, launch, kern, name, blocks, block in built:
        manifest.append(_case(a.lesson, LABS[a.lesson], name, kern, blocks, block,
                              registers_per_thread=_regs(kern), **model))
        cuda.profile_start()
        launch()
        cuda.synchronize()
        cuda.profile_stop()
    with open(a.manifest, "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"profile_worker {a.lesson}: {len(manifest)} launches profiled", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
