"""A tiled matrix product: stage in shared memory what every output re-reads.

C = A @ B with A of M x K, B of K x N and K = 8: a thin product whose 2K = 16 FLOPs per
output are cheap and whose bound is writing C (``perfmodel.ops.gemm``: intensity about
4 FLOP/byte, below the ridge). The starter's thread computes one C[i, j] and reads a row
of A and a column of B from global memory for it: 2K loads per output, 64 bytes asked of
the caches for every 4 bytes written. Let a block own a tile of C; copy the tile's rows
of A into ``cuda.shared.array`` once, keep the values of B each thread needs in
registers, and reuse both for every output of the tile (a thread computing four
neighbouring columns can write them with one ``store4``).

Sizes: M = N = 8192 (quick: 4096), K = 8. On a T4 (quick): about 8 s (estimated by
:func:`labs.challenges.estimate.quick_seconds`: start-up 3 s, two compiles 4 s, the host 0.5 s; each
launch writes 67 MB).
"""
from __future__ import annotations

import numpy as np

from perfmodel import ops

from .spec import by_mode

NAME = "matmul"
TITLE = "Your turn: a shared-memory tiled matrix product"
CHAPTER, SECTION = "08_memory", "Why a tile has to fit"
KERNELS = ("matmul", "launch")
UNIT = "fp32"
RTOL, ATOL = 1e-5, 1e-5
COMPILES, HOST_PASSES = 2, 8
K = 8


sizes = by_mode(sim={"m": 32, "n": 1024}, quick={"m": 4096, "n": 4096},
                full={"m": 8192, "n": 8192})


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
