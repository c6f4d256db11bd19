"""Fuse a chain of three elementwise kernels into one.

The starter computes out = relu(1.5 x + 0.5) the way three library calls would: one
kernel multiplies, one adds, one takes the ReLU, each reading its input from DRAM and
writing its result back. That is 24 bytes per element for 3 FLOPs, where the operation
needs only 8 (read x once, write out once; ``perfmodel.ops.scale_shift_relu``). All three
kernels are memory-bound. The reference time is the fused operation's 8 bytes an element
at the measured copy rate; the starter moves three times those bytes, and on the H200 it
took 4.8 times the reference time: three times the bytes, at about 63% of the copy rate,
what a kernel of one float a thread measured there. Write
one kernel that keeps the intermediate values in registers, and change ``launch`` to
launch it once: the check counts kernel launches per call (target: 1) and reads of x
per element (target: 1).

One thread per element, as in the starter, is enough for the
lesson; 16-byte accesses (``load4``/``store4`` from ``labs.challenges.harness``, four
floats per thread and a plain loop for the last partial group) take you the rest of the
way to the copy roof (chapter 8: lines and vector loads).

Sizes: 2**26 floats (quick: 2**24). On a T4 (quick): about 11 s (estimated by
:func:`labs.challenges.estimate.quick_seconds`: start-up 3 s, three compiles 6 s, the
host's inputs and reference 1.1 s; the starter's chain moves 403 MB a call).
"""
from __future__ import annotations

import numpy as np

from perfmodel import ops

from .spec import (COALESCED, FIX_STORE, by_mode, seeded_sizes, vector_bytes,
                   vector_compile_args, vector_launch, vector_outputs)

NAME = "fuse"
TITLE = "Your turn: fuse relu(1.5 x + 0.5) into one kernel"
CHAPTER, SECTION = "05_triage", "Fusion: the cheapest byte is the one you never move"
KERNELS = ("launch",)
UNIT = "fp32"
RTOL, ATOL = 1e-6, 1e-6
COMPILES, HOST_PASSES = 3, 8
SCALE, SHIFT = np.float32(1.5), np.float32(0.5)
#: The chain as perfmodel counts it: three kernels, each (reads, writes, FLOPs) per element.
CHAIN = ((1, 1, 1), (1, 1, 1), (1, 1, 1))


sizes = by_mode(sim={"n": 1000}, quick={"n": 2 ** 24}, full={"n": 2 ** 26})
CHECK_SIZES = seeded_sizes({"n": 999}, [{"n": n} for n in (2100, 2301, 2503, 2707)],
                           {"n": 2 ** 24})
MECHANISM = {
    "launches": {"at_most": 1, "fix": "do the three steps in one kernel, holding the "
                 "intermediate values in registers, and launch it once"},
    "reads_per_element.x": {"at_most": 1.0, "fix": "read each x once, in the one kernel"},
    "sectors.out.store": {"at_most": COALESCED, "fix": FIX_STORE},
}
MILESTONES = (
    ("textbook", "one fused kernel, one float per thread, 4-byte accesses"),
    ("copy", "out[i] = x[i], launched the same way"),
    ("reference", "the fused kernel with 16-byte accesses, the idea of chapter 8's lines "
                  "and vector loads"),
)
#: The one-vector form: x in, out out, 8 bytes of data an element.
outputs, launch, data_bytes = vector_outputs, vector_launch, vector_bytes


def make_inputs(rng, n: int) -> dict:
    return {"x": rng.standard_normal(n, dtype=np.float32)}


def expected(inp: dict) -> dict:
    return {"out": np.maximum(inp["x"] * SCALE + SHIFT, np.float32(0.0))}


def op(n: int):
    """The fused operation's counts: what the reference time is computed from."""
    return ops.scale_shift_relu(n, fused=True, dtype="fp32")


def unfused_op(n: int):
    """The starter's counts: every kernel reads and writes DRAM."""
    return ops.scale_shift_relu(n, fused=False, dtype="fp32")


def compile_args() -> list[tuple[str, tuple]]:
    return vector_compile_args("scale", "shift", "relu", "fused")
