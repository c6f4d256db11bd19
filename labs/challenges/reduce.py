"""Sum a vector with warp shuffles instead of one atomic add per element.

The starter is correct and hopeless: every thread adds its element to ``out[0]`` with an
atomic, so n additions queue on one address, one after another. A reduction reads 4
bytes per FLOP (``perfmodel.ops.reduction``), so its bound is the read of x at the DRAM
bandwidth. Give each thread many elements (a grid-stride loop, 16-byte loads through
``load4``), add them in registers, combine the 32 lanes of a warp with
``cuda.shfl_down_sync(0xffffffff, v, d)`` for d = 16, 8, 4, 2, 1, combine the warps of a
block through shared memory, and issue one atomic per block. ``launch`` must also set
``out[0]`` to 0 first (the output starts as NaN).

Sizes: 2**27 floats (quick: 2**24). On a T4 (quick): about 10 s (estimated by
:func:`labs.challenges.estimate.quick_seconds`: start-up 3 s, three compiles 6 s; each
launch reads 67 MB).
"""
from __future__ import annotations

import numpy as np

from perfmodel import ops

from .spec import by_mode

NAME = "reduce"
TITLE = "Your turn: a block reduction with warp shuffles"
CHAPTER, SECTION = "06_simt", "Barriers: what `__syncthreads()` costs"
KERNELS = ("launch",)
UNIT = "fp32"
RTOL, ATOL = 1e-4, 1e-3
COMPILES, HOST_PASSES = 3, 4


sizes = by_mode(sim={"n": 3001}, quick={"n": 2 ** 24}, full={"n": 2 ** 27})


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
