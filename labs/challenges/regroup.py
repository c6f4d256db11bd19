"""Regroup a divergent kernel by path, so that every warp takes one side of the branch.

Even and odd elements take different paths (two different chains of 2 x 128 fused
multiply-adds; think of the real and imaginary parts of interleaved pairs). The starter
gives thread t element t, so in every warp 16 lanes take each path: the warp runs both
paths one after the other with half its lanes idle, and the kernel, which is
compute-bound (513 FLOPs for 8 bytes per element), takes about twice its reference time
(its FLOPs at the measured FMA rate). Change
``element`` (which element thread t works on) so that the 32 lanes of a warp all take
the same path; every output must still land in its own place. The check counts the
distinct paths a warp's lanes take (target: 1, a little more where the array ends
inside a warp).

Everything else is already in the starter and stays as it is: one wave
of resident blocks walking the array with the grid's stride (a multiple of 64, so a
thread's elements share their parity), the next pair of elements loading while this
pair's chains run (chapter 7's bytes in flight), and unsigned indices (numba adds
Python's negative-index wraparound to every access through a signed one).

Sizes: 2**24 floats (quick: 2**22). On a T4 (quick): about 8 s (estimated by
:func:`labs.challenges.estimate.quick_seconds`: start-up 3 s, two compiles 4 s; each
launch's 2.2 GFLOP take 0.3 ms at the T4's measured rate).
"""
from __future__ import annotations

import numpy as np

from perfmodel import ops

from .spec import (by_mode, seeded_sizes, vector_bytes,
                   vector_compile_args, vector_launch, vector_outputs)

NAME = "regroup"
TITLE = "Your turn: regroup a divergent kernel by path"
CHAPTER, SECTION = "06_simt", "Data-dependent branches, and what to do about them"
KERNELS = ("paths", "element", "launch")
UNIT = "fp32"
RTOL, ATOL = 1e-4, 1e-6
COMPILES, HOST_PASSES = 2, 10
#: FMAs per chain; two chains per element.
STEPS = 128
#: The two paths' multiply-adds v <- v * a + b (both have the fixed point 1).
PATH_A = (np.float32(0.999), np.float32(0.001))
PATH_B = (np.float32(0.998), np.float32(0.002))
FLOPS_PER_ELEMENT = 2 * 2 * STEPS + 1


sizes = by_mode(sim={"n": 2048}, quick={"n": 2 ** 22}, full={"n": 2 ** 24})
CHECK_SIZES = seeded_sizes({"n": 999}, [{"n": n} for n in (2050, 2251, 2453, 2655)],
                           {"n": 2 ** 22})
MECHANISM = {
    "paths_per_warp": {"at_most": 1.25, "fix": "map a warp's 32 lanes to elements of one "
                       "parity, so the whole warp takes one side of the branch"},
}
MILESTONES = (
    ("textbook", "the starter with element regrouped, the statement's one change"),
    ("reference", "the same kernel: the starter already holds the rest"),
)
#: The one-vector form: x in, out out, 8 bytes of data an element.
outputs, launch, data_bytes = vector_outputs, vector_launch, vector_bytes


def make_inputs(rng, n: int) -> dict:
    return {"x": rng.random(n, dtype=np.float32)}


def chain(v: np.ndarray, a: float, b: float, steps: int = STEPS) -> np.ndarray:
    """``steps`` multiply-adds v <- v a + b, in closed form (float64):
    a^k v + b (1 - a^k) / (1 - a)."""
    ak = float(a) ** steps
    return ak * v + float(b) * (1.0 - ak) / (1.0 - float(a))


def expected(inp: dict) -> dict:
    x = inp["x"].astype(np.float64)
    out = np.empty_like(x)
    for parity, (a, b) in ((0, PATH_A), (1, PATH_B)):
        v = x[parity::2]
        out[parity::2] = chain(v, a, b) + chain(v + 1.0, a, b)
    return {"out": out.astype(np.float32)}


def op(n: int):
    return ops.elementwise(n, FLOPS_PER_ELEMENT, 1, 1, "fp32", "two-path chains")


def paths_per_warp(element, n: int, threads: int | None = None) -> list[int]:
    """For each warp of ``threads`` (default n) consecutive threads, how many of the two
    paths its lanes take, under the map ``element(t, n)`` (the submission's device
    function, called as plain Python): 1 when the warp is converged, 2 when it diverges."""
    threads = n if threads is None else threads
    out = []
    for w in range(threads // 32):
        es = [element(t, n) for t in range(32 * w, 32 * w + 32)]
        out.append(len({e % 2 for e in es if 0 <= e < n}))
    return out


def compile_args() -> list[tuple[str, tuple]]:
    return vector_compile_args("paths")
