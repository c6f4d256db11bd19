"""What the challenge modules (``labs/challenges/<name>.py``) share in describing their
operation: sizes by mode, and the one-vector form that fuse, regroup and ilp take (a
float32 ``x`` of n elements in, a float32 ``out`` of n elements out, each moved once).
numpy only: the estimate and the sm_75 compile test read the modules without numba."""
from __future__ import annotations

from typing import Callable

import numpy as np

#: The sizes a challenge runs at: under the CUDA simulator (small), quick (a T4 in well
#: under a minute) and full (the timed run on the H200).
MODES = ("sim", "quick", "full")


def by_mode(sim: dict, quick: dict, full: dict) -> Callable[[str], dict]:
    """A challenge's ``sizes(mode)``: the keyword sizes of ``op``, ``make_inputs`` and
    ``outputs`` for each of MODES; an unknown mode -> ValueError naming them."""
    table = {"sim": sim, "quick": quick, "full": full}

    def sizes(mode: str) -> dict:
        if mode not in table:
            raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
        return dict(table[mode])

    return sizes


def vector_outputs(n: int) -> dict:
    """The one-vector form's result: ``out``, n float32."""
    return {"out": ((n,), np.float32)}


def vector_launch(ns, d: dict) -> None:
    """The one-vector form's call: the submission's ``launch(x, out)``."""
    ns.launch(d["x"], d["out"])


def vector_bytes(n: int) -> float:
    """The one-vector form's data: x read once and out written once, 8 bytes an element."""
    return 8.0 * n


def vector_compile_args(*kernels: str) -> list[tuple[str, tuple]]:
    """For each kernel named, arguments of the one-vector form's types: two float32
    arrays (the sm_75 compile test's signatures)."""
    f32 = np.zeros(64, np.float32)
    return [(k, (f32, f32.copy())) for k in kernels]
