"""A one-pass online-softmax row kernel.

y = softmax(x) along each row of a rows x 4096 float32 matrix. The starter is the
textbook three passes: one over the row for its maximum, one for the sum of
exp(x - max), one to write exp(x - max) / sum; each pass reads the row again: 12 bytes
of reads asked of memory per element where the operation reads 4 (the caches catch some
of the re-reads, but each is still a request; ``perfmodel.ops.softmax``: read x once,
write y once, 8 bytes). Read each row once: let each of a block's 256 threads hold its
16 values in registers (four ``load4``, 256 groups of 16 bytes apart, so a warp's loads
are whole sectors), compute its own maximum m and sum l, then combine the threads'
pairs with the online-softmax merge (``perfmodel.softmax.merge``: m = max(m1, m2),
l = l1 exp(m1 - m) + l2 exp(m2 - m)), across a warp with ``cuda.shfl_xor_sync`` and
across the block's eight warps through shared memory, and write y from the registers
with ``store4``.

The check counts reads of x per element (target: 1) and the sectors of
x's loads and y's stores (target: 1). The reference adds chapter 7's bytes in flight: it
launches one wave of resident blocks (``resident_grid`` from
``labs.challenges.harness``), each walking rows r, r + G, r + 2G, ... and issuing the
loads of its next row before it reduces and writes this one.

Sizes: 16,384 rows (quick: 4,096) of 4,096. On a T4 (quick): about 9 s (estimated by
:func:`labs.challenges.estimate.quick_seconds`: start-up 3 s, two compiles 4 s, the
host's inputs and reference 1.6 s; each launch moves 134 MB).
"""
from __future__ import annotations

import numpy as np

from perfmodel import ops

from .spec import COALESCED, FIX_LOAD, FIX_STORE, by_mode, seeded_sizes

NAME = "softmax"
TITLE = "Your turn: a one-pass online softmax"
CHAPTER, SECTION = "10_flash_attention", "The online softmax"
KERNELS = ("softmax", "launch")
UNIT = "fp32"
RTOL, ATOL = 1e-4, 1e-9
COMPILES, HOST_PASSES = 2, 12
COLS = 4096


sizes = by_mode(sim={"rows": 2}, quick={"rows": 4096}, full={"rows": 16384})
CHECK_SIZES = seeded_sizes({"rows": 1}, [{"rows": 2}, {"rows": 3}], {"rows": 4096})
MECHANISM = {
    "reads_per_element.x": {"at_most": 1.0, "fix": "read each row once into registers "
                            "and merge the threads' (max, sum) pairs with the online "
                            "softmax"},
    "sectors.x.load": {"at_most": COALESCED, "fix": FIX_LOAD},
    "sectors.y.store": {"at_most": COALESCED, "fix": FIX_STORE},
}
MILESTONES = (
    ("textbook", "one block a row, 16 values a thread in registers, the online merge"),
    ("copy", "a row copy launched the same way, a block of 256 threads a row"),
    ("reference", "one wave of blocks, each loading its next row while it reduces this "
                  "one, chapter 7's bytes in flight"),
)


def make_inputs(rng, rows: int) -> dict:
    return {"x": rng.standard_normal((rows, COLS), dtype=np.float32) * np.float32(3.0)}


def outputs(rows: int) -> dict:
    return {"y": ((rows, COLS), np.float32)}


def expected(inp: dict) -> dict:
    x = inp["x"].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"y": (e / e.sum(axis=1, keepdims=True)).astype(np.float32)}


def launch(ns, d: dict) -> None:
    ns.launch(d["x"], d["y"])


def op(rows: int):
    return ops.softmax(rows, COLS)


def data_bytes(rows: int) -> float:
    return 8.0 * rows * COLS


def compile_args() -> list[tuple[str, tuple]]:
    f32 = np.zeros((2, COLS), np.float32)
    return [("softmax", (f32, f32.copy()))]
