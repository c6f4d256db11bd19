"""Run under NUMBA_ENABLE_CUDASIM=1 (by tests/test_challenges.py, in a process of its
own): every challenge's starter and reference through ``check``, the structural counts of
each (from :class:`labs.challenges.harness.Tally` and launch counts), and wrong
submissions whose first wrong element is known. Prints one JSON object on its last line."""
from __future__ import annotations

import json
import os
import sys
import traceback
from types import SimpleNamespace

import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

import numba  # noqa: E402
from numba import cuda  # noqa: E402

import labs.challenges as ch  # noqa: E402
from labs.challenges import harness  # noqa: E402

#: Smaller sizes for the traced runs of the slow starters (the simulator runs a Python
#: thread per CUDA thread): the counts per element do not depend on the size.
TRACE = {"matmul": {"m": 8, "n": 256}}

LAUNCHES = []


def _count_launches() -> None:
    from numba.cuda.simulator import kernel

    call = kernel.FakeCUDAKernel.__call__

    def counted(self, *args):
        if not self._device:
            LAUNCHES.append(self.fn.__name__)
        return call(self, *args)

    kernel.FakeCUDAKernel.__call__ = counted


def traced(name: str, ns, size: dict) -> tuple[harness.Tally, list[str], dict]:
    """One run of ``ns`` at ``size`` with every access and launch recorded, the arrays a
    submission makes for itself (``cuda.device_array_like``) included."""
    spec = ch.challenge(name)
    tally = harness.Tally()
    LAUNCHES.clear()
    if hasattr(ns, "_scratch"):
        ns._scratch.clear()
    made = cuda.device_array_like

    def counted_like(a):
        return tally.wrap(f"scratch{len(tally.events)}", np.zeros_like(a._ary))

    numba.cuda.device_array_like = counted_like
    try:
        inputs, _arrays, got = harness.run_once(spec, ns, size, tally=tally)
    finally:
        numba.cuda.device_array_like = made
        if hasattr(ns, "_scratch"):
            ns._scratch.clear()
    return tally, list(LAUNCHES), {"correct": harness.compare(spec, inputs, got) is None}


def structure(name: str, ns, size: dict) -> dict:
    """The numbers each challenge's stated reason is about."""
    tally, launches, out = traced(name, ns, size)
    out["launches"] = len(launches)
    if name in ("saxpy", "fuse"):
        n = size["n"]
        out["bytes_per_element"] = 4 * len(tally.events) / n
    if name == "regroup":
        n = size["n"]
        warps = tally.per_warp("out", "w")
        out["warps"] = len(warps)
        out["warps_on_both_paths"] = sum(len({f % 2 for f in fl}) == 2 for fl in warps.values())
        out["paths_per_warp"] = sorted(set(ch.challenge(name).paths_per_warp(
            ns.element.py_func, n)))
    if name == "reduce":
        out["writes_of_out"] = tally.count("out", "w")
        out["n"] = size["n"]
    if name == "ilp":
        out["bytes_before_store"] = ch.challenge(name).loads_before_use(tally)
    if name == "transpose":
        out["write_sectors_per_useful"] = tally.sectors_per_useful("out", "w")
        out["read_sectors_per_useful"] = tally.sectors_per_useful("x", "r")
    if name == "matmul":
        outputs = size["m"] * size["n"]
        out["loads_per_output"] = (tally.count("a", "r") + tally.count("b", "r")) / outputs
    if name == "softmax":
        out["reads_per_element"] = tally.count("x", "r") / (size["rows"] * 4096)
    return out


def wrong_saxpy():
    """SAXPY right everywhere but element 7."""
    @cuda.jit
    def saxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i] + (1.0 if i == 7 else 0.0)

    def launch(a, x, y, out):
        saxpy[(x.size + 255) // 256, 256](a, x, y, out)

    return SimpleNamespace(saxpy=saxpy, launch=launch)


def wrong_matmul():
    """The naive product with C[3, 5] left unwritten."""
    @cuda.jit
    def matmul(a, b, c):
        j, i = cuda.grid(2)
        if i < c.shape[0] and j < c.shape[1] and not (i == 3 and j == 5):
            acc = 0.0
            for k in range(a.shape[1]):
                acc += a[i, k] * b[k, j]
            c[i, j] = acc

    def launch(a, b, c):
        matmul[((c.shape[1] + 31) // 32, (c.shape[0] + 7) // 8), (32, 8)](a, b, c)

    return SimpleNamespace(matmul=matmul, launch=launch)


def timed(name: str, ns, seconds_of) -> dict:
    """``time_submission`` under the simulator, its GPU-only parts stood in for: no GPU
    check, a clock that runs each launch and reports ``seconds_of(op)`` seconds, and a
    machine with round roofs (1 TFLOP/s, 100 GB/s)."""
    import labs.common
    import labs.timing
    from labs.challenges import verdict
    from perfmodel import machines

    fake = machines.measured("Fake GPU", {"fp32": 1e12}, {"dram": 1e11}, source="a test")
    spec = ch.challenge(name)
    op = spec.op(**spec.sizes("sim"))

    def clock(launch, warmup=2, repeats=10):
        for _ in range(warmup + repeats):
            launch()
        return seconds_of(op)

    saved = labs.common.require_cuda, labs.timing.queued_time, verdict.roofs
    labs.common.require_cuda = lambda lab: None
    labs.timing.queued_time = clock
    verdict.roofs = lambda gpu: fake
    try:
        r = harness.time_submission(spec, ns, size=spec.sizes("sim"))
    finally:
        labs.common.require_cuda, labs.timing.queued_time, verdict.roofs = saved
    return {k: r[k] for k in ("passed", "message")} | {"limit": (r["verdict"] or {}).get("limit"),
                                                        "share": (r["verdict"] or {}).get("share")}


def once_only_saxpy():
    """The reference SAXPY, but every launch after the first does nothing: it passes a
    check and would time as free."""
    ref = ch.reference("saxpy")
    calls = []

    def launch(a, x, y, out):
        calls.append(1)
        if len(calls) == 1:
            ref.launch(a, x, y, out)

    return SimpleNamespace(saxpy=ref.saxpy, launch=launch)


def main() -> int:
    _count_launches()
    out: dict = {}
    for name in ch.NAMES:
        for kind, get in (("starter", ch.starter), ("reference", ch.reference)):
            key = f"{name}/{kind}"
            try:
                ns = get(name)
                sim = ch.challenge(name).sizes("sim")
                size = TRACE.get(name, sim) if kind == "starter" else sim
                out[key] = {"structure": structure(name, ns, size)}
                if kind == "reference" or name == "saxpy":  # (the others: "correct" above)
                    out[key]["check"] = ch.check(name, ns, seed=0)
            except Exception:
                out[key] = {"error": traceback.format_exc()[-3000:]}
    out["wrong/saxpy"] = ch.check("saxpy", wrong_saxpy(), seed=0)
    out["wrong/matmul"] = ch.check("matmul", wrong_matmul(), seed=0)
    bound = lambda op: max(op.flops / 1e12, op.bytes / 1e11)  # noqa: E731 (the fake roofs)
    ref = ch.reference("saxpy")
    out["timed/plausible"] = timed("saxpy", ref, lambda op: 1.25 * bound(op))
    out["timed/impossible"] = timed("saxpy", ref, lambda op: 0.5 * bound(op))
    out["timed/compute"] = timed("regroup", ch.reference("regroup"), lambda op: 2 * bound(op))
    out["timed/once_only"] = timed("saxpy", once_only_saxpy(), lambda op: 1e-9)
    out["timed/wrong"] = timed("saxpy", ch.starter("saxpy"), lambda op: bound(op))
    print(json.dumps(out, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
