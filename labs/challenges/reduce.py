"""Sum a vector with warp shuffles instead of one atomic add per element.

The starter adds every element to ``out[0]`` with an atomic, so n additions queue on
one address, one after another. It is correct at the sizes the check runs and slow; at
the timed size it is wrong as well. A float32 has 24 bits of significand, so above
2^24 = 16,777,216 neighbouring floats are 2 apart, and adding a value below 1 to a
running sum that large rounds back to the same sum: the starter's one accumulator stops
at 16,777,216 while the true sum of 2^27 floats between 0 and 1 is about 67 million.
A reduction reads 4 bytes per FLOP (``perfmodel.ops.reduction``), so its reference time
is the read of x at the measured copy rate. Give each thread many elements (a
grid-stride loop over 16-byte loads through ``load4(x, i)``, which returns floats 4i to
4i + 3, about one wave of blocks: 1024 blocks of 256 threads),
add them in a register, combine the 32 lanes of a warp with
``cuda.shfl_down_sync(0xffffffff, v, d)`` for d = 16, 8, 4, 2, 1, combine the warps of a
block through shared memory, and issue one atomic per block. Each register then sums a
few hundred floats and each atomic adds a block's sum, so no running sum is large next to
what is added to it: the fix for the time fixes the accuracy too. ``launch`` must also
set ``out[0]`` to 0 first (the output starts as NaN). The check counts the atomic adds
on ``out`` per call (target: at most 64 at its sizes; the starter makes one per element)
and the reads of x per element (target: 1). The reference adds one thing: two
independent 16-byte loads a turn instead of one, more bytes in flight per thread
(chapter 7).

Sizes: 2**27 floats (quick: 2**24). On a T4 (quick): about 10 s (estimated by
:func:`labs.challenges.estimate.quick_seconds`: start-up 3 s, three compiles 6 s; each
launch reads 67 MB).
"""
from __future__ import annotations

import numpy as np

from perfmodel import ops

from .spec import by_mode, seeded_sizes

NAME = "reduce"
TITLE = "Your turn: a block reduction with warp shuffles"
CHAPTER, SECTION = "06_simt", "Barriers: what `__syncthreads()` costs"
KERNELS = ("launch",)
UNIT = "fp32"
RTOL, ATOL = 1e-4, 1e-3
COMPILES, HOST_PASSES = 3, 4


sizes = by_mode(sim={"n": 3001}, quick={"n": 2 ** 24}, full={"n": 2 ** 27})
CHECK_SIZES = seeded_sizes({"n": 999}, [{"n": n} for n in (3001, 3203, 3405, 3607)],
                           {"n": 2 ** 24})
MECHANISM = {
    "atomics_global": {"at_most": 64, "fix": "add in registers, combine a warp "
                               "with shuffles and a block through shared memory, and "
                               "issue one atomic add per block, not one per element"},
    "reads_per_element.x": {"at_most": 1.0, "fix": "read each element of x once"},
}
MILESTONES = (
    ("textbook", "one 16-byte load a turn, shuffles, one atomic per block"),
    ("copy", "a plain read of x launched the same way, no arithmetic"),
    ("reference", "two independent 16-byte loads a turn, chapter 7's bytes in flight"),
)


def make_inputs(rng, n: int) -> dict:
    return {"x": rng.random(n, dtype=np.float32)}


def outputs(n: int) -> dict:
    return {"out": ((1,), np.float32)}


def expected(inp: dict) -> dict:
    return {"out": np.array([inp["x"].sum(dtype=np.float64)], dtype=np.float32)}


def launch(ns, d: dict) -> None:
    ns.launch(d["x"], d["out"])


def op(n: int):
    return ops.reduction(n)


def data_bytes(n: int) -> float:
    return 4.0 * n


def compile_args() -> list[tuple[str, tuple]]:
    f32, one = np.zeros(64, np.float32), np.zeros(1, np.float32)
    return [("zero", (one,)), ("add_all", (f32, one)), ("block_sums", (f32, one))]
