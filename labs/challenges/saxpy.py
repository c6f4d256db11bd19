"""Write SAXPY, out = a * x + y, and bring it to the copy roof.

The starter launches one thread per element and leaves the body empty. Before you fill
it in, count: how many FLOPs and how many bytes of DRAM traffic does one element cost,
what intensity is that, and which side of your GPU's ridge does it sit on? Write the
time you expect for the full size from the copy rate. Then fill the body in, so that
the check passes, and time it: the verdict's reference time is the operation's bytes at the
measured copy rate, and it reports that reference time as a share of yours; its D/B term
is the time your count predicts, so compare it with the time you wrote down.

The mechanism the check measures is the one this chapter's knob relies on: every warp
reads and writes whole 32-byte sectors, one sector per 32 useful bytes, and nothing is
computed on the host. To get the last few percent, move 16 bytes per access:
``load4(x, i)`` and ``store4(out, i, ...)`` from ``labs.challenges.harness`` read and
write floats 4i .. 4i + 3 in one instruction (chapter 8 explains why wider accesses
help); the threads then cover four floats each, and the last partial group of four
needs a plain loop.

Sizes: 2**26 floats per array (quick: 2**24). On a T4 (quick): about 9 s (estimated by
:func:`labs.challenges.estimate.quick_seconds`: start-up 3 s, two compiles 4 s, the
host's random inputs and reference 1.2 s; each launch moves 201 MB in under 1 ms).
"""
from __future__ import annotations

import numpy as np

from perfmodel import ops

from .spec import COALESCED, FIX_LOAD, FIX_STORE, by_mode, seeded_sizes

NAME = "saxpy"
TITLE = "Your turn: SAXPY at the copy roof"
CHAPTER, SECTION = "03_intensity", "Measure it: the intensity knob"
KERNELS = ("saxpy", "launch")
UNIT = "fp32"
RTOL, ATOL = 1e-6, 1e-6
COMPILES, HOST_PASSES = 2, 6
A = np.float32(2.5)


sizes = by_mode(sim={"n": 1000}, quick={"n": 2 ** 24}, full={"n": 2 ** 26})
#: What a check runs: a size that is no multiple of any block size, a mid size, and on a
#: GPU the timing size.
CHECK_SIZES = seeded_sizes({"n": 999}, [{"n": n} for n in (2100, 2301, 2503, 2707)],
                           {"n": 2 ** 24})
#: The mechanism: whole sectors for every array (a few partial ones at the ragged end).
MECHANISM = {
    "sectors.out.store": {"at_most": COALESCED, "fix": FIX_STORE},
    "sectors.x.load": {"at_most": COALESCED, "fix": FIX_LOAD},
    "sectors.y.load": {"at_most": COALESCED, "fix": FIX_LOAD},
}
#: The ladder ``time`` prints beside a student's share (recorded on the H200).
MILESTONES = (
    ("textbook", "the one-line body, one float per thread, 4-byte accesses"),
    ("reference", "16-byte accesses with load4 and store4, chapter 8's lines and vector "
                  "loads"),
)


def make_inputs(rng, n: int) -> dict:
    return {"a": A, "x": rng.random(n, dtype=np.float32),
            "y": rng.random(n, dtype=np.float32)}


def outputs(n: int) -> dict:
    return {"out": ((n,), np.float32)}


def expected(inp: dict) -> dict:
    return {"out": inp["a"] * inp["x"] + inp["y"]}


def launch(ns, d: dict) -> None:
    ns.launch(d["a"], d["x"], d["y"], d["out"])


def op(n: int):
    return ops.saxpy(n)


def data_bytes(n: int) -> float:
    return 12.0 * n


def compile_args() -> list[tuple[str, tuple]]:
    f32 = np.zeros(64, np.float32)
    return [("saxpy", (A, f32, f32, f32))]
