"""Coalesce a transpose through shared memory.

out = x transposed, an n x n float32 matrix stored row by row (both arrays are passed
flat, with n). The starter's warp reads 32 consecutive floats of a row, one 128-byte
piece, and writes them down a column of ``out``: 32 floats n apart, each in a 32-byte
sector of its own, so 8 times the bytes it stores cross to the L2
(``perfmodel.simt.useful_fraction``). Stage a 32 x 32 tile in shared memory: read it
with consecutive threads on consecutive columns, wait at ``cuda.syncthreads()``, then
write it out with consecutive threads on consecutive columns of ``out``. Pad the tile by
one column, ``cuda.shared.array((32, 33), float32)``, so the column-wise reads from
shared memory do not collide in one bank (write the shape as literal numbers, or as
module-level integer constants with no arithmetic: ``(TILE, TILE + 1)`` runs in the
simulator and fails to compile for a GPU). The reference time is a copy's at the
measured copy rate: 8 bytes per element, no FLOPs.

The check counts the sectors per 32 useful bytes
of x's loads and out's stores (target: 1) and the ways of bank conflict of the worst
shared-memory access (target: 1, no conflict). n need not be a multiple of 32: guard the
edge tiles.

The reference goes two steps further, each from another chapter: a 64 x 32
tile moved with 16-byte accesses (``load4``/``store4``, chapter 8's vector loads), two
each way per thread, so each thread has more bytes in flight (chapter 7); the milestones
say what the statement's tile reaches without them.

Sizes: n = 8192 (quick: 4096). On a T4 (quick): about 8 s (estimated by
:func:`labs.challenges.estimate.quick_seconds`: start-up 3 s, two compiles 4 s, the
host's inputs and reference 0.8 s; each launch moves 134 MB).
"""
from __future__ import annotations

import numpy as np

from perfmodel import ops

from .spec import COALESCED, FIX_LOAD, by_mode, seeded_sizes

NAME = "transpose"
TITLE = "Your turn: a coalesced transpose"
CHAPTER, SECTION = "08_memory", "Transposes, views and shared memory"
KERNELS = ("transpose", "launch")
UNIT = "fp32"
RTOL, ATOL = 0.0, 0.0
COMPILES, HOST_PASSES = 2, 6


sizes = by_mode(sim={"n": 64}, quick={"n": 4096}, full={"n": 8192})
#: Multiples of 8 (so every row starts on a 32-byte sector) but not of 32.
CHECK_SIZES = seeded_sizes({"n": 40}, [{"n": n} for n in (72, 80, 88, 104)],
                           {"n": 4096})
MECHANISM = {
    "sectors.x.load": {"at_most": COALESCED, "fix": FIX_LOAD},
    "sectors.out.store": {"at_most": COALESCED, "fix": "stage a tile in shared memory and "
                          "write it out row by row of out, consecutive lanes on "
                          "consecutive floats"},
    "bank_ways": {"at_most": 1, "fix": "pad the tile by one column (32 x 33), so a "
                  "column of the tile spans all 32 banks"},
}
MILESTONES = (
    ("textbook", "the padded 32 x 33 tile, a block of 32 x 8 threads, 4-byte accesses"),
    ("copy", "each block copies its 32 x 32 tile in place, the same launch shape"),
    ("reference", "a 64 x 32 tile moved with 16-byte accesses, more bytes in flight per "
                  "thread: chapter 7's bytes in flight and chapter 8's vector loads"),
)


def make_inputs(rng, n: int) -> dict:
    return {"x": rng.random(n * n, dtype=np.float32), "n": n}


def outputs(n: int) -> dict:
    return {"out": ((n * n,), np.float32)}


def expected(inp: dict) -> dict:
    n = inp["n"]
    return {"out": np.ascontiguousarray(inp["x"].reshape(n, n).T).reshape(-1)}


def launch(ns, d: dict) -> None:
    ns.launch(d["x"], d["out"], d["n"])


def op(n: int):
    return ops.elementwise(n * n, 0, 1, 1, "fp32", f"transpose {n} x {n}")


def data_bytes(n: int) -> float:
    return 8.0 * n * n


def compile_args() -> list[tuple[str, tuple]]:
    f32 = np.zeros(64 * 64, np.float32)
    return [("transpose", (f32, f32.copy(), 64))]
