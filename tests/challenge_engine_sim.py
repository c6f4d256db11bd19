"""Run under NUMBA_ENABLE_CUDASIM=1 (by tests/test_challenge_engine.py, in a process of its
own): tiny hand-written kernels through the simulator's recorder, whose counters the test
compares with hand-computed values, and wrong saxpy submissions (files in the folder given
as the one argument) through collect and judge. Prints one JSON object on its last line."""
from __future__ import annotations

import json
import os
import pathlib
import sys
import time

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

import numpy as np  # noqa: E402
from numba import cuda, float32  # noqa: E402

from labs.challenges import counters, harness, sim  # noqa: E402
from labs.challenges.collect import collect  # noqa: E402
from labs.challenges.judge import judge  # noqa: E402

N = 256


@cuda.jit
def coalesced(x, out):
    i = cuda.grid(1)
    out[i] = x[i]


@cuda.jit
def strided(x, out):
    i = cuda.grid(1)
    out[i] = x[8 * i]          # 4-byte values 32 bytes apart: a sector each


@cuda.jit
def vector(x, out):
    i = cuda.grid(1)
    a, b, c, d = harness.load4(x, i)
    harness.store4(out, i, a, b, c, d)


@cuda.jit
def two_way(x, out):
    buf = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    buf[2 * t] = x[t]          # words 0, 2, ..., 62: banks 0, 2, ..., 30 twice each
    cuda.syncthreads()
    out[t] = buf[2 * t]


@cuda.jit
def broadcast(x, out):
    buf = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    if t == 0:
        buf[0] = x[0]
    cuda.syncthreads()
    out[t] = buf[0]            # one word for every lane: no conflict


@cuda.jit
def divergent(x, out):
    i = cuda.grid(1)
    if i % 2 == 0:
        out[i] = x[i] * 2.0
    else:
        out[i] = x[i] + 1.0


@cuda.jit
def converged(x, out):
    i = cuda.grid(1)
    out[i] = x[i] * 2.0


@cuda.jit
def shuffle_in_branch(x, out):
    i = cuda.grid(1)
    v = x[i]
    if cuda.threadIdx.x < 16:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, 1)
    out[i] = v


def closure_kernel():
    """A kernel whose barrier sits in a device function it reaches through a closure."""
    @cuda.jit(device=True)
    def stage(buf, t, v):
        buf[t] = v
        cuda.syncthreads()

    @cuda.jit
    def reverse(x, out):
        buf = cuda.shared.array(64, float32)
        t = cuda.threadIdx.x
        stage(buf, t, x[t])
        out[t] = buf[63 - t]   # another thread's element: right only after the barrier

    return reverse


def measure(kernel, n_in: int, n_out: int, blocks: int, threads: int) -> dict:
    rec = sim.Recorder(trace_files={__file__})
    with rec:
        x = rec.wrap("x", np.arange(n_in, dtype=np.float32))
        out = rec.wrap("out", np.zeros(n_out, np.float32))
        with rec.launching():
            kernel[blocks, threads](x, out)
    return counters.count(rec.events, {"x": n_in, "out": n_out}, rec.paths, rec.launches)


def verdict(path: pathlib.Path, name: str = "saxpy", seed: int = 11) -> dict:
    t0 = time.perf_counter()
    arrays, meta = collect(name, path, seed, compile_check=False)
    v = judge(name, {**arrays, "meta": meta}, seed)
    return {"passed": v["passed"], "correct": v["correct"], "first_wrong": v["first_wrong"],
            "messages": v["messages"], "host_transfers": meta["host_transfers"],
            "seconds": time.perf_counter() - t0}


def main() -> int:
    folder = pathlib.Path(sys.argv[1])
    out = {"coalesced": measure(coalesced, N, N, 2, 128),
           "strided": measure(strided, 8 * N, N, 2, 128),
           "vector": measure(vector, 4 * N, 4 * N, 2, 128),
           "two_way": measure(two_way, 32, 32, 1, 32),
           "broadcast": measure(broadcast, 32, 32, 1, 32),
           "divergent": measure(divergent, N, N, 2, 128),
           "converged": measure(converged, N, N, 2, 128)}
    rec = sim.Recorder()
    with rec:
        x, out_ = rec.wrap("x", np.arange(64, dtype=np.float32)), rec.wrap(
            "out", np.zeros(64, np.float32))
        closure_kernel()[1, 64](x, out_)
    out["closure_barrier"] = {"reversed": bool((out_._ary == np.arange(64)[::-1]).all()),
                              "needs_threads": sim.needs_threads(closure_kernel().py_func),
                              "in_turn": not sim.needs_threads(coalesced.py_func)}
    t0 = time.perf_counter()
    try:
        measure(shuffle_in_branch, 64, 64, 1, 64)
        out["shuffle_in_branch"] = {"error": None}
    except Exception as e:
        out["shuffle_in_branch"] = {"error": str(e)}
    out["shuffle_in_branch"]["seconds"] = time.perf_counter() - t0
    # the same waits with OS threads (where greenlet is missing, as in Colab's runtime)
    saved = list(sim._GREENLET)
    sim._GREENLET[:] = [None]
    try:
        fallback = {"two_way": measure(two_way, 32, 32, 1, 32)["bank_ways"]}
        try:
            measure(shuffle_in_branch, 64, 64, 1, 64)
            fallback["shuffle_in_branch"] = None
        except Exception as e:
            fallback["shuffle_in_branch"] = str(e)
        rec = sim.Recorder()
        with rec:
            x, out_ = rec.wrap("x", np.arange(64, dtype=np.float32)), rec.wrap(
                "out", np.zeros(64, np.float32))
            closure_kernel()[1, 64](x, out_)
        fallback["reversed"] = bool((out_._ary == np.arange(64)[::-1]).all())
    finally:
        sim._GREENLET[:] = saved
    out["os_threads"] = fallback
    for f in sorted(folder.glob("*.py")):
        out[f"file/{f.stem}"] = verdict(f)
    print(json.dumps(out, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
