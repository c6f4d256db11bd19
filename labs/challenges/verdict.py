"""The verdict on a timed challenge kernel: the model's time for the operation on the GPU
in hand, the share of it reached, the term that limits it, and the timings it refuses.

Pure arithmetic over perfmodel and numpy (no numba, no torch), so it is tested with fake machines
and synthetic timings. The model's time is ``max(F / P, D / B)`` for the challenge's
operation (its ``perfmodel.ops`` counts: useful FLOPs, compulsory DRAM bytes), with P and B
the labs' measured rates for this GPU where a run is recorded under
``labs/results/<gpu>/`` (the intensity lab's FMA and copy rates) and the datasheet's
(``perfmodel.machines``) otherwise. Only datasheet ceilings are bounds in this book: at
the measured rates the time is *the reference time* (a good kernel comes near it, and
may pass it by the rates' own variation), at datasheet ceilings *the bound*
(:func:`time_name`); the verdict says which.
"""
from __future__ import annotations

import json
import pathlib

import numpy as np

from perfmodel import machines
from perfmodel.ops import Op

from ..results import RESULTS_DIR, slug

#: A timing below this share of the model's time is refused: the copy and FMA rates are
#: what the hardware does, so a kernel far faster did not do the work (a skipped write, a
#: wrong size, work done before the clock started). The 10% is room for the measured
#: rates' own variation (the H200's copy and FMA rates vary by a few percent from run to
#: run).
IMPOSSIBLE_BELOW = 0.9
#: How a verdict names the rates its time comes from, measured or not.
RATES = {True: "the measured copy and FMA rates", False: "the datasheet's ceilings"}


def time_name(machine: machines.Machine) -> str:
    """What a verdict calls ``max(F / P, D / B)`` on ``machine``: "reference time" at
    measured rates (``machine.measured``), "bound" at datasheet ceilings (the only bounds
    in this book)."""
    return "reference time" if machine.measured else "bound"


def roofs(gpu_name: str, results_dir: str | pathlib.Path | None = None) -> machines.Machine:
    """The machine whose roofs judge a kernel on ``gpu_name`` (as the GPU names itself,
    e.g. 'NVIDIA H200'): the intensity lab's recorded run for that GPU
    (``labs/results/<slug>/intensity.json``, not a reference set), else the datasheet
    machine whose name the GPU's holds; neither -> ValueError naming what is known."""
    base = pathlib.Path(results_dir) if results_dir else RESULTS_DIR
    path = base / slug(gpu_name) / "intensity.json"
    if path.exists():
        result = json.loads(path.read_text())
        if not result.get("context", {}).get("reference"):
            return machines.from_results(result)
    upper = str(gpu_name).upper()
    for m in machines.all_machines():
        if m.kind == "gpu" and m.name.upper() in upper:
            return m
    raise ValueError(f"gpu_name {gpu_name!r} is neither recorded under {base} nor one of "
                     f"the datasheet machines ({', '.join(machines.names())})")


def verdict(op: Op, seconds: float, machine: machines.Machine, unit: str = "fp32",
            impossible_below: float = IMPOSSIBLE_BELOW) -> dict:
    """Judge ``seconds`` (a measured time of the whole operation) against ``op`` on
    ``machine``. Returns ``{accepted, reason, seconds, bound_s, compute_s, memory_s,
    limit ("memory" or "compute"), share (bound_s / seconds, accepted only), flops_per_s,
    bytes_per_s, peak, bandwidth, roofs_source, term}``: ``bound_s`` is the model's time
    ``max(F / P, D / B)``, which ``term`` names (:func:`time_name`); a time below
    ``impossible_below`` x that is not accepted and has no share, and ``reason`` says
    why."""
    if not isinstance(op, Op):
        raise ValueError(f"op must be a perfmodel Op; got {type(op).__name__}")
    if not (isinstance(seconds, (int, float)) and seconds > 0 and seconds == seconds
            and seconds != float("inf")):
        raise ValueError(f"seconds must be a positive finite time; got {seconds!r}")
    if not 0 < impossible_below <= 1:
        raise ValueError(f"impossible_below must be in (0, 1]; got {impossible_below!r}")
    peak, bandwidth = machine.peak_flops(unit), machine.bandwidth("dram")
    compute_s, memory_s = op.flops / peak, op.bytes / bandwidth
    bound = max(compute_s, memory_s)
    limit = "memory" if memory_s >= compute_s else "compute"
    out = {"seconds": float(seconds), "bound_s": bound, "compute_s": compute_s,
           "memory_s": memory_s, "limit": limit, "flops_per_s": op.flops / seconds,
           "bytes_per_s": op.bytes / seconds, "peak": peak, "bandwidth": bandwidth,
           "roofs": machine.name, "term": time_name(machine),
           "roofs_source": {"peak": machine.source(unit), "bandwidth": machine.source("dram")}}
    name, rates = out["term"], RATES[bool(machine.measured)]
    if seconds < impossible_below * bound:
        term = "D / B" if limit == "memory" else "F / P"
        beyond = ("no kernel can beat the bound" if not machine.measured else
                  "no kernel runs this far past the measured rates")
        out.update(accepted=False, share=None, reason=(
            f"rejected: {seconds * 1e6:.4g} us is {seconds / bound:.2f} of the {name} "
            f"{bound * 1e6:.4g} us ({term} at {rates}); {beyond}, so the timing does not "
            f"measure the whole operation (a skipped write, a wrong size, or work done "
            f"outside the timed launch)"))
        return out
    share = bound / seconds
    out.update(accepted=True, share=share, reason=(
        f"{share:.0%} of the {name} {bound * 1e6:.4g} us ({rates}), limited by "
        f"{'memory (D / B)' if limit == 'memory' else 'compute (F / P)'}"))
    return out


def describe(v: dict) -> str:
    """One paragraph a student reads: the time, the model's time and its terms, the share
    or the reason it was refused, and where the rates come from."""
    lines = [f"time {v['seconds'] * 1e6:.4g} us; {v.get('term', 'bound')} "
             f"{v['bound_s'] * 1e6:.4g} us = "
             f"max(F/P {v['compute_s'] * 1e6:.4g} us, D/B {v['memory_s'] * 1e6:.4g} us) "
             f"on {v['roofs']}",
             v["reason"],
             f"P from {v['roofs_source']['peak']}; B from {v['roofs_source']['bandwidth']}"]
    return "\n".join(lines)


def first_wrong(name: str, got: np.ndarray, want: np.ndarray, rtol: float,
                atol: float, positions: np.ndarray | None = None,
                shape: tuple | None = None) -> str | None:
    """None when ``got`` matches ``want`` within rtol/atol; else a sentence naming the
    first wrong element: its index, the value got, the value expected. ``positions``:
    ``got`` and ``want`` are a sample, the values at these flat positions of an output of
    ``shape``, and the sentence names the element's index in that output."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return f"{name} has shape {got.shape}; expected {want.shape}"
    ok = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=False)
    if ok.all():
        return None
    flat = int(np.flatnonzero(~ok.ravel())[0])
    g, w = got.reshape(-1)[flat], want.reshape(-1)[flat]
    if positions is None:
        idx, of = np.unravel_index(flat, want.shape), f"{want.size} elements"
    else:
        idx = np.unravel_index(int(np.asarray(positions).reshape(-1)[flat]), shape)
        of = (f"{want.size:,} sampled elements (of {int(np.prod(shape, dtype=np.int64)):,})")
    where = ", ".join(str(int(i)) for i in idx)
    hint = " (never written: the output starts as NaN)" if np.isnan(g) else ""
    wrong = int((~ok).sum())
    return (f"{name}[{where}] = {float(g):.9g}, expected {float(w):.9g}{hint}; {wrong} of "
            f"{of} wrong (tolerance rtol={rtol:g}, atol={atol:g})")


def timed_text(result: dict) -> str:
    """A timing's result as ``python -m labs challenge time`` prints it: the status line,
    the message, the verdict's paragraph (:func:`describe`) and the milestones (the
    result's ``milestones``: :func:`labs.challenges.milestones.ladder_text`)."""
    status = ("PASSED" if result.get("passed") else
              "BROKEN" if result.get("broken") else "FAILED")
    lines = [f"{result.get('challenge')}: {status} on {result.get('device')}",
             f"    {result.get('message')}"]
    for part in (describe(result["verdict"]) if result.get("verdict") else "",
                 result.get("milestones") or ""):
        if part:
            lines.append("    " + part.replace("\n", "\n    "))
    return "\n".join(lines)
