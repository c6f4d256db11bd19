"""A challenge's milestones: what its textbook solution, a plain copy of the same launch
shape and its reference reach on a recorded GPU, read from the run that
:mod:`labs.challenges.on_device` wrote (``labs/results/<gpu>/challenges.json``), never
typed in. The ladder ``time`` prints beside a student's share, and the sentence a
statement shows. Each challenge module lists its rungs as ``MILESTONES``: (kernel label
in the recorded run, what that kernel does, in the chapter's words). numpy-free, json
only.
"""
from __future__ import annotations

import json
import pathlib

from ..results import RESULTS_DIR

#: The GPU whose recorded run the statements quote.
GPU = "H200"
#: How a statement names each kind of rung.
ROLES = {"textbook": "the textbook solution", "copy": "a plain copy",
         "reference": "the reference"}


def recorded(name: str, gpu: str = GPU, results_dir: str | pathlib.Path | None = None
             ) -> tuple[dict, str | None]:
    """({kernel label: its row} for challenge ``name`` in the recorded run of ``gpu``,
    the run's date or None); ({}, None) when nothing is recorded."""
    path = pathlib.Path(results_dir or RESULTS_DIR) / gpu / "challenges.json"
    if not path.exists():
        return {}, None
    run = json.loads(path.read_text())
    rows = {r["kernel"]: r for r in run.get("rows", []) if r.get("challenge") == name}
    return rows, (run.get("context") or {}).get("date")


def ladder(name: str, gpu: str = GPU, results_dir: str | pathlib.Path | None = None
           ) -> list[dict]:
    """The rungs of ``name`` in order: ``{"kernel", "what", "share"}`` (share of the
    reference time on ``gpu``, at its measured copy and FMA rates; None where the run
    lacks it or the kernel was wrong)."""
    from .catalog import challenge

    rows, _date = recorded(name, gpu, results_dir)
    out = []
    for kernel, what in getattr(challenge(name), "MILESTONES", ()):
        row = rows.get(kernel, {})
        ok = row.get("correct", True) and not row.get("error")
        out.append({"kernel": kernel, "what": what,
                    "share": row.get("share") if ok else None})
    return out


def ladder_text(name: str, share: float | None = None, gpu: str = GPU,
                results_dir: str | pathlib.Path | None = None) -> str:
    """The ladder as lines, highest share last, with ``share`` (a student's) placed among
    them: what ``time`` prints."""
    _rows, date = recorded(name, gpu, results_dir)
    rungs = ladder(name, gpu, results_dir)
    when = f", recorded {date[:10]}" if date else ""
    lines = [f"milestones on the {gpu} (share of the reference time{when}):"]
    entries = [(r["share"], f"{r['kernel']}: {r['what']}") for r in rungs]
    if share is not None:
        entries.append((share, "yours"))
    known = sorted((e for e in entries if e[0] is not None), key=lambda e: e[0])
    for s, text in known:
        lines.append(f"  {s:5.2f}  {text}" + ("   <--" if text == "yours" else ""))
    for s, text in entries:
        if s is None:
            lines.append(f"    -    {text} (not measured yet)")
    return "\n".join(lines)


def sentence(name: str, gpu: str = GPU, results_dir: str | pathlib.Path | None = None
             ) -> str:
    """What a statement says about its milestones, one sentence per rung."""
    _rows, date = recorded(name, gpu, results_dir)
    parts = []
    for r in ladder(name, gpu, results_dir):
        got = (f"reaches {r['share']:.0%} of the reference time" if r["share"] is not None
               else "is not measured yet")
        parts.append(f"{ROLES.get(r['kernel'], r['kernel'])} {got} ({r['what']})")
    when = f" (recorded {date[:10]})" if date else ""
    return f"Milestones on the {gpu}{when}: " + "; ".join(parts) + "."
