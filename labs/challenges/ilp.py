"""Raise the bytes in flight with independent loads until Little's law is met.

out = 2 x, with the grid fixed: two blocks of 256 threads per SM (``launch`` is the
challenge's, not yours), each thread striding over the array. The starter's thread loads
one float, stores it, and only then loads the next: the store needs the load's value,
and the next load is not issued before the store, because the compiler must assume that
``out`` may overlap ``x`` (the store could change the float the next load reads). That
leaves 4 bytes in flight per thread, about 0.27 MB on a whole H200, where Little's law
asks for bandwidth x latency (``perfmodel.little.bytes_in_flight``): 1.6 MB at the H200's
idle DRAM latency, and the Little's-law lab needed about 4 MB in flight to saturate it.
With the threads fixed, the only way up is more independent loads per thread: issue
several 16-byte loads (``load4``) before using any of them, then store them all.

The
check measures the most bytes a thread reads before its next store (target: at least
64, four 16-byte loads). The reference time is a copy's (8 bytes per element) at the
measured copy rate. The array's
length need not be a multiple of 4: handle the last few floats on their own.

Sizes: 2**26 floats (quick: 2**24). On a T4 (quick): about 8 s (estimated by
:func:`labs.challenges.estimate.quick_seconds`: start-up 3 s, two compiles 4 s, the
host's inputs and reference 0.8 s; each launch moves 134 MB).
"""
from __future__ import annotations

import numpy as np

from perfmodel import ops

from .spec import by_mode, seeded_sizes, vector_bytes, vector_compile_args, vector_outputs

NAME = "ilp"
TITLE = "Your turn: meet Little's law with independent loads"
CHAPTER, SECTION = "07_latency", "One curve: warps or independent loads"
KERNELS = ("scale",)
UNIT = "fp32"
RTOL, ATOL = 0.0, 0.0
COMPILES, HOST_PASSES = 2, 6
THREADS = 256
BLOCKS_PER_SM = 2


sizes = by_mode(sim={"n": 36864}, quick={"n": 2 ** 24}, full={"n": 2 ** 26})
#: Under the simulator the grid is 4 blocks of 256 threads (1,024), so the mid size
#: (over 8,192 groups of four) gives every thread a whole turn of eight 16-byte loads.
CHECK_SIZES = seeded_sizes({"n": 999}, [{"n": n} for n in (32776, 33001, 33203, 33405)],
                           {"n": 2 ** 24})
MECHANISM = {
    "bytes_in_flight": {"at_least": 64, "fix": "issue several independent 16-byte loads "
                        "(load4) before the first store, so each thread has more bytes "
                        "in flight"},
}
MILESTONES = (
    ("textbook", "four independent 16-byte loads per thread before its stores, 64 bytes "
                 "in flight"),
    ("copy", "one thread per float: more warps instead of more loads per thread, the "
             "other side of chapter 7's one curve"),
    ("reference", "eight 16-byte loads per thread, 128 bytes in flight"),
)
#: The one-vector form (x in, out out, 8 bytes of data an element), on a fixed grid.
outputs, data_bytes = vector_outputs, vector_bytes


def make_inputs(rng, n: int) -> dict:
    return {"x": rng.random(n, dtype=np.float32)}


def expected(inp: dict) -> dict:
    return {"out": inp["x"] * np.float32(2.0)}


def sms() -> int:
    """SMs of the GPU in hand (2 under the simulator: a small grid that still strides)."""
    from .harness import cuda, simulated

    if simulated():
        return 2
    return int(cuda.get_current_device().MULTIPROCESSOR_COUNT)


def grid_threads() -> int:
    return sms() * BLOCKS_PER_SM * THREADS


def launch(ns, d: dict) -> None:
    """The fixed grid: BLOCKS_PER_SM blocks of THREADS per SM."""
    ns.scale[sms() * BLOCKS_PER_SM, THREADS](d["x"], d["out"])


def op(n: int):
    return ops.elementwise(n, 1, 1, 1, "fp32", "scale")


def loads_before_use(tally, itemsize: int = 4) -> int:
    """Bytes a thread has asked for before it first stores, at most over the run (from a
    :class:`labs.challenges.harness.Tally`): the reads in a row between two writes, the
    bytes it can have in flight."""
    most = 0
    for events in tally.per_thread(("x", "out")).values():
        run = 0
        for _a, kind, _flat in events:
            run = run + 1 if kind == "r" else 0
            most = max(most, run)
    return most * itemsize


def compile_args() -> list[tuple[str, tuple]]:
    return vector_compile_args("scale")
