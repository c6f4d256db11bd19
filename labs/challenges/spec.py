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

#: A coalescing target: sectors of 32 bytes per 32 useful bytes, at most. 1.0 is every
#: sector used whole; the slack is for the few partial sectors at a ragged end (a size
#: that is no multiple of the block), where the strided or transposed access this catches
#: costs 2 to 8.
COALESCED = 1.1
#: The fix's direction when a warp's loads or stores are scattered (chapter 8's words).
FIX_LOAD = ("let consecutive lanes (threads) read consecutive floats, so a warp's 32 "
            "loads fall in whole 32-byte sectors")
FIX_STORE = ("let consecutive lanes (threads) write consecutive floats, so a warp's 32 "
             "stores fill whole 32-byte sectors")


def by_mode(sim: dict, quick: dict, full: dict) -> Callable[[str], dict]:
    """A challenge's ``sizes(mode)``: the keyword sizes of ``op``, ``make_inputs`` and
    ``outputs`` for each of MODES; an unknown mode -> ValueError naming them."""
    table = {"sim": sim, "quick": quick, "full": full}

    def sizes(mode: str) -> dict:
        if mode not in table:
            raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
        return dict(table[mode])

    return sizes


def seeded_sizes(small: dict, mids: list[dict], timing: dict) -> dict:
    """A challenge's ``CHECK_SIZES``: under the simulator ``small`` (no multiple of any
    block size) and one of ``mids`` chosen by the check's seed (so no grid sized for one
    check's numbers passes the next); on a GPU the same two, then ``timing``."""
    if not mids:
        raise ValueError("mids must hold at least one size")

    def sim(seed: int) -> list[dict]:
        return [dict(small), dict(mids[int(seed) % len(mids)])]

    return {"sim": sim, "gpu": lambda seed: sim(seed) + [dict(timing)]}


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


def with_names(module, **names) -> "SimpleNamespace":
    """The functions and kernels of ``module`` (a starter), re-made so that each sees
    ``names`` in place of the module's own (e.g. a new ``element``): what a student gets
    by editing those definitions in the starter's file and leaving the rest as it is.
    Kernels are compiled again with their own options (fastmath, device); under numba's
    CUDA simulator as well. Returns a namespace holding the module's names and ``names``."""
    from types import FunctionType, SimpleNamespace

    from numba import cuda

    space = dict(vars(module))
    space.update(names)

    def remade(fn):
        return FunctionType(fn.__code__, space, fn.__name__, fn.__defaults__, fn.__closure__)

    fresh = {}
    for key, obj in vars(module).items():
        if key in names or key.startswith("__"):
            continue
        py = getattr(obj, "py_func", None) or getattr(obj, "fn", None)
        if isinstance(obj, FunctionType) and obj.__module__ == module.__name__:
            fresh[key] = remade(obj)
        elif isinstance(py, FunctionType) and py.__module__ == module.__name__:
            opts = dict(getattr(obj, "targetoptions", None) or {})
            device = bool(opts.get("device", getattr(obj, "_device", False)))
            fastmath = bool(opts.get("fastmath", getattr(obj, "_fastmath", False)))
            inline = opts.get("inline")
            extra = {"inline": inline} if inline and not _simulated() else {}
            fresh[key] = cuda.jit(device=device, fastmath=fastmath, **extra)(remade(py))
    space.update(fresh)
    return SimpleNamespace(**{k: v for k, v in space.items() if not k.startswith("__")})


def _simulated() -> bool:
    import os

    return os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
