"""A one-pass online-softmax row kernel.

y = softmax(x) along each row of a rows x 4096 float32 matrix. The starter is the
textbook three passes: one over the row for its maximum, one for the sum of
exp(x - max), one to write exp(x - max) / sum; each pass reads the row again, 12 bytes
read per element where the operation needs 4 (``perfmodel.ops.softmax``: read x once,
write y once, 8 bytes). Read each row once: let each of a block's 256 threads hold its
16 values in registers (four ``load4``), compute its own maximum m and sum l, then
combine the threads' pairs with the online-softmax merge (``perfmodel.softmax.merge``:
m = max(m1, m2), l = l1 exp(m1 - m) + l2 exp(m2 - m)), through warp shuffles and shared
memory, and write y from the registers.

Sizes: 16,384 rows (quick: 4,096) of 4,096. On a T4 (quick): about 9 s (estimated by
:func:`labs.challenges.estimate.quick_seconds`: start-up 3 s, two compiles 4 s, the
host's inputs and reference 1.6 s; each launch moves 134 MB).
"""
from __future__ import annotations

import numpy as np

from perfmodel import ops

from .spec import by_mode

NAME = "softmax"
TITLE = "Your turn: a one-pass online softmax"
CHAPTER, SECTION = "10_flash_attention", "The online softmax"
KERNELS = ("softmax", "launch")
UNIT = "fp32"
RTOL, ATOL = 1e-4, 1e-9
COMPILES, HOST_PASSES = 2, 12
COLS = 4096


sizes = by_mode(sim={"rows": 2}, quick={"rows": 4096}, full={"rows": 16384})


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
