"""A thin matrix product: ask the caches once for what every output re-reads.

C = A @ B with A of M x K, B of K x N and K = 8: a thin product whose 2K = 16 FLOPs per
output are cheap and whose reference time is writing C at the measured copy rate
(``perfmodel.ops.gemm``: intensity about 4 FLOP/byte, below the ridge). A and B
together are under a megabyte and stay in the L2, so no tile has to fit anywhere and
DRAM sees each value once whatever the kernel does: what this challenge is about is the
requests. The starter's thread computes one C[i, j]
and reads a row of A and a column of B for it: 2K loads per output, 64 bytes asked of
the caches for every 4 bytes written, and every value of A is asked for N times. Let a
block own a tile of C: copy the tile's rows of A into ``cuda.shared.array`` once, keep
the values of B each thread needs in registers, and reuse both for every output of the
tile.

The check counts the reads of A and of B per element (target: at most 4; the
starter's are N and M) and the sectors of C's stores (target: 1; sectors, the 32-byte
pieces a warp's access is served in, come later in chapter 8). A thread computing
four neighbouring columns and writing them with one ``store4`` is how the reference
comes near that reference time (vector loads, later in chapter 8).

Sizes: M = N = 8192 (quick: 4096), K = 8. On a T4 (quick): about 8 s (estimated by
:func:`labs.challenges.estimate.quick_seconds`: start-up 3 s, two compiles 4 s, the host 0.5 s; each
launch writes 67 MB).
"""
from __future__ import annotations

import numpy as np

from perfmodel import ops

from .spec import COALESCED, FIX_STORE, by_mode, seeded_sizes

NAME = "matmul"
TITLE = "Your turn: a thin product that asks the caches once"
#: The staircase (requests to the caches), not "Why a tile has to fit": K = 8 leaves no
#: tile that must fit.
CHAPTER, SECTION = "08_memory", "The staircase: how much, and how fast"
KERNELS = ("matmul", "launch")
UNIT = "fp32"
RTOL, ATOL = 1e-5, 1e-5
COMPILES, HOST_PASSES = 2, 8
K = 8


sizes = by_mode(sim={"m": 32, "n": 1024}, quick={"m": 4096, "n": 4096},
                full={"m": 8192, "n": 8192})
#: N a multiple of 8 (rows of C start on a sector), neither size a multiple of a tile.
#: Small: the starter runs a simulated thread per output.
CHECK_SIZES = seeded_sizes({"m": 5, "n": 136},
                           [{"m": m, "n": n} for m, n in ((33, 104), (35, 88), (37, 96), (39, 72))],
                           {"m": 4096, "n": 4096})
MECHANISM = {
    "reads_per_element.a": {"at_most": 4, "fix": "copy a tile's rows of A into shared "
                            "memory once and reuse them for every column of the tile"},
    "reads_per_element.b": {"at_most": 4, "fix": "keep the column of B a thread needs in "
                            "registers and reuse it for every row of the tile"},
    "sectors.c.store": {"at_most": COALESCED, "fix": FIX_STORE},
}
MILESTONES = (
    ("textbook", "A's rows in shared memory, a column of B in registers, one column per "
                 "thread, 4-byte stores"),
    ("copy", "writing C alone, launched the same way, with no products"),
    ("reference", "four columns per thread written with one 16-byte store, chapter 8's "
                  "vector loads"),
)


def make_inputs(rng, m: int, n: int) -> dict:
    return {"a": rng.random((m, K), dtype=np.float32),
            "b": rng.random((K, n), dtype=np.float32)}


def outputs(m: int, n: int) -> dict:
    return {"c": ((m, n), np.float32)}


def expected(inp: dict) -> dict:
    return {"c": (inp["a"].astype(np.float64) @ inp["b"].astype(np.float64))
            .astype(np.float32)}


def launch(ns, d: dict) -> None:
    ns.launch(d["a"], d["b"], d["c"])


def op(m: int, n: int):
    return ops.gemm(m, n, K)


def naive_loads_per_output() -> int:
    """Loads the one-output-per-thread kernel issues for each output: a row of A and a
    column of B, K each (``perfmodel.ops.matmul``'s "none" reuse, 2 n^3 loads, for n = K)."""
    return 2 * K


def data_bytes(m: int, n: int) -> float:
    return 4.0 * (m * K + K * n + m * n)


def compile_args() -> list[tuple[str, tuple]]:
    a, b = np.zeros((64, K), np.float32), np.zeros((K, 1024), np.float32)
    return [("matmul", (a, b, np.zeros((64, 1024), np.float32)))]
