"""What a lab run is judged against: the datasheet machine of the GPU it ran on (the bounds)
and the book's one measured profile of that GPU (the reference lines: its copy and FMA
rates). Shared by the labs' plots and their readout tables (labs/readouts.py)."""
from __future__ import annotations

import math
import re

from perfmodel import machines


def datasheet(result: dict) -> machines.Machine | None:
    """The datasheet machine of the GPU a result was measured on ('NVIDIA H200' -> H200,
    'Tesla T4' -> T4), or None for a GPU perfmodel does not know."""
    gpu = str(result.get("context", {}).get("gpu_name", "")).upper()
    for m in machines.all_machines():
        if m.kind == "gpu" and re.search(rf"(?<![A-Z0-9]){re.escape(m.name)}(?![0-9])", gpu):
            return m
    return None


def measured_profile(result: dict) -> machines.Machine | None:
    """The book's one measured profile (:func:`labs.results.machine_profile`) of the GPU a result was
    measured on, or None where the book recorded no profile of that GPU (a reference set, a
    live run on another card). Its copy and FMA rates are the reference lines every page
    quotes for that GPU, so a lab run on it is judged against the same copy as the text."""
    from .results import RESULTS_DIR, machine_profile

    ctx = result.get("context", {})
    slug = ctx.get("gpu_slug")
    if not slug or ctx.get("reference") or not (RESULTS_DIR / slug / "intensity.json").exists():
        return None
    return machine_profile(slug)


def reference_copy(result: dict) -> float | None:
    """The copy bandwidth (bytes/s) a result is judged against: the book's measured profile
    of its GPU where there is one, else the run's own copy (None if it has neither)."""
    m = measured_profile(result)
    copy = m.bandwidth("dram") if m is not None else result.get("summary", {}).get("copy_bandwidth")
    return copy if _num(copy) else None


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
