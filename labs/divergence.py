"""Divergence: the warp, not the thread, is the unit of cost.

What it isolates: who runs which instructions, with the amount of work held fixed. In the
``diverge`` kernel every thread runs ONE of P loops of ``iters`` dependent FP32 multiply-
adds; the loops are separate code (each its own constants), so a warp whose lanes want
different loops must run them one after another with the other lanes masked off. The split
runs either between whole warps (warp w takes loop w mod P) or through every warp (lane l
takes loop l mod P). Every thread does the same arithmetic in every configuration. Then
``one_in_k``: one thread in every k runs the loop and the rest do nothing.

What the model predicts (:mod:`perfmodel.simt`): split between warps, every warp makes one
pass, so the time does not move with P; split through every warp, each warp makes
min(P, 32) passes, so the time grows P-fold. With one busy thread in k, the time follows
the fraction of warps holding a busy lane, min(1, 32/k), not the fraction of busy threads
1/k: one in 32 costs as much as all busy. It stops falling at the floor of one warp's
dependent chain (timed alone: one block of 32 threads), since a few warps leave the SM
nothing to switch to while each result is pending.

Sizes: one full wave of resident threads (SMs x max threads per SM, blocks of 256), so no
block waits for a second wave; ``iters`` = 2^16 (quick 2^14) multiply-adds per loop.

On a T4 (quick): about 8 s (:func:`labs.budget.estimate`: one wave is 40 SMs x 1024
threads, and every timed launch together takes about 0.03 s at 1.59 GHz; compiling the two
kernels 4 s and start-up 3 s are the rest). The kernels and sizes are the same on every
GPU; only the wave follows the device.
"""
from __future__ import annotations

import functools
from types import SimpleNamespace

import numpy as np

from perfmodel import simt

from . import common
from .ceilings import fma_grid
from .gpu import numba_cuda
from .kernels import BLOCK
from .timing import queued_time

SUMMARY_KEYS = ("within_warp_slowdown", "between_warp_slowdown", "one_in_32_vs_all")
PATHS = (1, 2, 4, 8)
KS = tuple(2 ** j for j in range(11))            # 1 .. 1024
KS_QUICK = (1, 8, 32, 64, 256, 1024)
SPLITS = ("between", "within")
#: Per-path constants of v <- v * a + b: a different loop body for each path.
PATH_CONSTANTS = tuple((np.float32(0.999 - 0.0001 * p), np.float32(0.001 * (p + 1)))
                       for p in range(max(PATHS)))
#: Steps of the inner loop, a compile-time constant: the compiler lays them out as one
#: straight run of multiply-adds, so a step is one FFMA and the loop counter is paid once
#: per UNROLL steps (``iters`` must be a multiple of it).
UNROLL = 32
#: numba.cuda, bound on first use (a module global: the simulator swaps it while kernels run).
cuda = None


def path_of(tid: int, paths: int, between: bool, warp: int = simt.WARP) -> int:
    """The loop thread ``tid`` runs: warp index mod P (between) or lane mod P (within)."""
    return (tid // warp) % paths if between else (tid % warp) % paths


def loop_reference(v: float, path: int, iters: int) -> np.float32:
    """What one path's loop does to v (numpy float32, multiply then add); the kernel runs
    ``iters`` rounded down to a multiple of UNROLL steps."""
    a, b = PATH_CONSTANTS[path]
    v = np.float32(v)
    for _ in range(int(iters) // UNROLL * UNROLL):
        v = v * a + b
    return v


def start_value(tid: int) -> np.float32:
    """The value each thread's loop starts from."""
    return np.float32(tid % 7) * np.float32(0.125)


def _loop(a: np.float32, b: np.float32):
    @cuda.jit(device=True)
    def loop(v, iters):
        for _ in range(iters // UNROLL):
            for _ in range(UNROLL):      # a constant trip count: compiled as 32 FFMAs in a row
                v = v * a + b
        return v

    return loop


@functools.cache
def kernels() -> SimpleNamespace:
    """``diverge(out, paths, between, iters)`` and ``one_in_k(out, k, iters)``; each thread
    writes its loop's result to out[thread] (checked under the simulator)."""
    global cuda
    cuda = numba_cuda()
    f0, f1, f2, f3, f4, f5, f6, f7 = (_loop(a, b) for a, b in PATH_CONSTANTS)

    path_dev = cuda.jit(device=True)(path_of)
    start_dev = cuda.jit(device=True)(start_value)

    @cuda.jit
    def diverge(out, paths, between, iters):
        tid = cuda.grid(1)
        v = start_dev(tid)
        p = path_dev(tid, paths, between)
        if p == 0:
            v = f0(v, iters)
        elif p == 1:
            v = f1(v, iters)
        elif p == 2:
            v = f2(v, iters)
        elif p == 3:
            v = f3(v, iters)
        elif p == 4:
            v = f4(v, iters)
        elif p == 5:
            v = f5(v, iters)
        elif p == 6:
            v = f6(v, iters)
        else:
            v = f7(v, iters)
        if tid < out.size:
            out[tid] = v

    @cuda.jit
    def one_in_k(out, k, iters):
        tid = cuda.grid(1)
        v = start_dev(tid)
        if tid % k == 0:
            v = f0(v, iters)
        if tid < out.size:
            out[tid] = v

    return SimpleNamespace(diverge=diverge, one_in_k=one_in_k, cuda=cuda)


def _summary(rows: list[dict]) -> dict:
    def slow(split):
        return {str(r["paths"]): r["slowdown"] for r in rows
                if r.get("experiment") == "paths" and r["split"] == split}

    rel = {r["k"]: r["relative"] for r in rows if r.get("experiment") == "one_in_k"}
    return {"within_warp_slowdown": slow("within"), "between_warp_slowdown": slow("between"),
            "one_in_32_vs_all": rel.get(32)}


def run(quick: bool = False, iters: int | None = None, ks=None, repeats: int | None = None) -> dict:
    """Time the P-path split both ways and the one-in-k sweep; see the module docstring."""
    common.require_cuda("divergence")
    iters = int(iters or (2 ** 14 if quick else 2 ** 16))
    ks = tuple(ks or (KS_QUICK if quick else KS))
    if iters < UNROLL or iters % UNROLL or any(int(k) != k or k < 1 for k in ks):
        raise ValueError(f"iters must be a positive multiple of {UNROLL} and every k an "
                         f"integer >= 1; got {iters}, {ks}")
    repeats = int(repeats or (5 if quick else 15))
    ctx = common.context()
    kern = kernels()
    blocks, threads = fma_grid()
    out = kern.cuda.device_array(threads, dtype=np.float32)

    def time(launch) -> float:
        return queued_time(launch, warmup=2, repeats=repeats)

    rows: list[dict] = []
    for split in SPLITS:
        base = None
        for p in PATHS:
            t = time(lambda: kern.diverge[blocks, BLOCK](out, p, split == "between", iters))  # listing: divergence
            base = base or t
            rows.append({"experiment": "paths", "split": split, "paths": p, "seconds": t,
                         "slowdown": t / base, "predicted": simt.divergence_passes(p, split)})
    t_floor = time(lambda: kern.one_in_k[1, simt.WARP](out, 1, iters))
    t_all = None
    for k in sorted(set(ks) | {1}):
        t = time(lambda: kern.one_in_k[blocks, BLOCK](out, k, iters))
        t_all = t_all or t
        rows.append({"experiment": "one_in_k", "k": k, "seconds": t, "relative": t / t_all,
                     "busy_thread_fraction": 1 / k, "busy_warp_fraction": simt.busy_warp_fraction(k),
                     "predicted": simt.one_in_k_time(k, t_all, t_floor) / t_all})
    rows.append({"experiment": "floor", "warps": 1, "seconds": t_floor, "relative": t_floor / t_all,
                 "seconds_per_fma": t_floor / iters})
    params = {"quick": quick, "iters": iters, "unroll": UNROLL, "blocks": blocks, "block": BLOCK,
              "threads": threads, "paths": list(PATHS), "ks": list(ks), "repeats": repeats}
    return common.record("divergence", params, rows, _summary(rows), ctx)


def plot(results: list[dict]):
    """Left: slowdown against P, split between warps and through every warp, with the
    passes the model counts. Right: time with one busy thread in k, relative to all busy,
    against k, with the model (busy warps, floored) and the busy-thread fraction."""
    from . import plotting as p

    fig = p.figure("Divergence: the warp is the unit of cost", cols=2,
                   subtitles=("slowdown vs paths (same work)", "one busy thread in k"))
    for i, r, name in p.each(results):
        for k, split in enumerate(("within", "between")):
            rs = p.rows(r, experiment="paths", split=split)
            p.points(fig, i, p.column(rs, "paths"), p.column(rs, "slowdown"),
                     f"{name}: split {'through every warp' if split == 'within' else 'between warps'}",
                     col=1, series=k)
        rs = p.rows(r, experiment="one_in_k")
        p.points(fig, i, p.column(rs, "k"), p.column(rs, "relative"), f"{name}: one in k", col=2,
                 series=2)
        if i == 0 and rs and rs[0].get("predicted") is not None:
            p.model(fig, p.column(rs, "k"), p.column(rs, "predicted"),
                    "model: busy warps, floored by one warp's chain", col=2)
    for split in SPLITS:
        p.model(fig, PATHS, [simt.divergence_passes(q, split) for q in PATHS],
                f"model: {split} ({'P passes' if split == 'within' else '1 pass'})", col=1,
                dash="dash" if split == "within" else "dot")
    ks = KS
    p.model(fig, ks, [1 / k for k in ks], "if threads were the unit: 1/k", col=2, dash="dot")
    p.axes(fig, "paths P", "time / time with P = 1", xlog=True, ylog=False, col=1)
    p.axes(fig, "k (one busy thread in every k)", "time / time all busy", col=2)
    return p.finish(fig)
