"""Nsight Compute (``ncu``) from Python: find it, ask its version and its metric names,
build a command line, and read its CSV.

Nothing here needs a GPU or imports torch, numba or plotly: the CSV parser is tested on a
recorded CSV. ``ncu --csv --page raw`` prints one header row (ID, process, kernel name,
block and grid size, then one column per metric), one row of units, then one row per
profiled kernel; numbers may carry thousands separators ("1,048,576") and unavailable
values read "n/a". :func:`parse_csv` turns that into one dict per kernel with every metric
in SI units (bytes, seconds, byte/s, Hz; percentages as fractions of 1).
"""
from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess

#: Where the CUDA toolkit usually keeps ncu (the H200 image has it there).
DEFAULT_PATHS = ("/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/ncu")
#: Columns of the raw page that describe the launch rather than a metric.
ID_COLUMNS = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
              "Stream", "Block Size", "Grid Size", "Device", "CC")
#: What ncu prints when the profiling counters are not open to this user or machine.
LOCKED_MARKERS = ("ERR_NVGPUCTRPERM", "LibraryNotLoaded", "Failed to initialize the profiler",
                  "does not have permission to access NVIDIA GPU Performance Counters")

_PREFIX = {"": 1.0, "p": 1e-12, "n": 1e-9, "u": 1e-6, "m": 1e-3, "K": 1e3, "k": 1e3,
           "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_BASE = {"byte": "byte", "second": "s", "cycle": "cycle", "hz": "Hz"}
#: Times as ncu 2025 writes them in base units ('ns' for gpu__time_duration).
_SHORT_TIME = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


class NcuUnavailable(RuntimeError):
    """ncu is missing here, or it cannot read the GPU's counters; the message says which
    in one sentence."""


def find(explicit: str | None = None) -> str | None:
    """Path of the ncu executable: ``explicit``, $NCU, the PATH, or the toolkit's usual
    places; None when there is none."""
    for cand in (explicit, os.environ.get("NCU"), shutil.which("ncu"), *DEFAULT_PATHS):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def version(ncu: str) -> str:
    """ncu's version line, e.g. 'Version 2025.3.1.0 (build 36398880) (public-release)'."""
    out = subprocess.run([ncu, "--version"], capture_output=True, text=True, timeout=60)
    lines = [ln.strip() for ln in (out.stdout + out.stderr).splitlines() if ln.strip()]
    for ln in lines:
        if ln.lower().startswith("version"):
            return ln
    return lines[-1] if lines else "unknown"


def base_name(metric: str) -> str:
    """The name ``ncu --query-metrics`` lists for a metric: its counter without the
    roll-up and submetric suffixes ('dram__bytes_read.sum.per_second' -> 'dram__bytes_read')."""
    if not isinstance(metric, str) or not metric:
        raise ValueError(f"metric must be a non-empty string; got {metric!r}")
    return metric.split(".", 1)[0]


def parse_query(text: str) -> set[str]:
    """Metric base names from the text ``ncu --query-metrics`` prints (first word of each
    line that looks like a metric: lower case with a double underscore)."""
    names = set()
    for line in text.splitlines():
        word = line.strip().split(" ", 1)[0]
        if re.fullmatch(r"[a-z0-9]+__[a-z0-9_]+", word):
            names.add(word)
    return names


def query(ncu: str) -> tuple[set[str], str]:
    """(metric base names this GPU offers, ncu's raw output)."""
    out = subprocess.run([ncu, "--query-metrics"], capture_output=True, text=True, timeout=300)
    text = out.stdout + out.stderr
    if locked(text):
        raise NcuUnavailable(unavailable_sentence(text))
    return parse_query(text), text


def locked(text: str) -> bool:
    """True when ncu's output says the performance counters could not be read."""
    return any(m in text for m in LOCKED_MARKERS)


def unavailable_sentence(text: str | None = None) -> str:
    """One sentence for a reader whose ncu is missing (text None) or locked."""
    if text is None:
        return ("Nsight Compute (ncu) is not installed here, so the profiler's counters "
                "cannot be read; showing the counters recorded on the H200.")
    return ("Nsight Compute (ncu) is here but this machine does not let it read the GPU's "
            "performance counters; showing the counters recorded on the H200.")


def command(ncu: str, metrics, target: list[str], log_file: str) -> list[str]:
    """The ncu command line that profiles ``target`` (a program and its arguments): only
    kernels launched between cuProfilerStart and cuProfilerStop, the clocks left as
    they are, the listed metrics, the raw page as CSV in base units, into ``log_file``."""
    metrics = list(metrics)
    if not metrics:
        raise ValueError("metrics must name at least one ncu metric")
    return [ncu, "--csv", "--page", "raw", "--print-units", "base", "--clock-control", "none",
            "--profile-from-start", "off", "--metrics", ",".join(metrics),
            "--log-file", log_file, *target]


def unit_scale(unit: str) -> tuple[float, str]:
    """(factor to SI, SI unit) for one of ncu's unit strings: 'Kbyte' -> (1e3, 'byte'),
    'usecond' -> (1e-6, 's'), 'Gbyte/second' -> (1e9, 'byte/s'), 'cycle/nsecond' ->
    (1e9, 'Hz'), '%' -> (0.01, 'fraction'); unknown units pass through with factor 1."""
    u = (unit or "").strip()
    if u == "%":
        return 0.01, "fraction"
    if "/" in u:
        num, den = u.split("/", 1)
        fn, un = unit_scale(num)
        fd, ud = unit_scale(den)
        if un == "cycle" and ud == "s":
            return fn / fd, "Hz"
        return fn / fd, f"{un}/{ud}"
    if u in _SHORT_TIME:
        return _SHORT_TIME[u], "s"
    for base, si in _BASE.items():
        if u.lower().endswith(base) and u[: len(u) - len(base)] in _PREFIX:
            return _PREFIX[u[: len(u) - len(base)]], si
    return 1.0, u


def number(text: str) -> float | None:
    """A CSV cell as a float: thousands separators dropped; '', 'n/a' and the like -> None."""
    t = (text or "").strip().replace(",", "")
    if not t or t.lower() in ("n/a", "nan", "-"):
        return None
    try:
        return float(t)
    except ValueError:
        return None


def parse_csv(text: str) -> list[dict]:
    """The kernels of an ``ncu --csv --page raw`` report, in launch order.

    Each kernel: ``id`` (int), ``name``, ``block`` and ``grid`` (as ncu writes them,
    e.g. '(256, 1, 1)'), ``metrics``: {metric name: value in SI units or None} and
    ``units``: {metric name: (ncu's unit, SI unit)}. Lines before the header (ncu's
    ``==PROF==`` messages, the program's own output) are skipped. Raises ValueError when
    the text holds no header row.
    """
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID"')), None)
    if start is None:
        raise ValueError("no ncu CSV header (a line starting with \"ID\") in the text")
    rows = list(csv.reader(io.StringIO("\n".join(ln for ln in lines[start:]
                                                 if ln.startswith('"')))))
    header = rows[0]
    metric_cols = [i for i, h in enumerate(header) if h not in ID_COLUMNS]
    body = rows[1:]
    units = {}
    if body and not number(body[0][0]) and body[0][0].strip() == "":
        units = {header[i]: body[0][i] for i in metric_cols if i < len(body[0])}
        body = body[1:]
    kernels = []
    for row in body:
        if len(row) < len(header) or number(row[0]) is None:
            continue
        cell = dict(zip(header, row))
        metrics, kunits = {}, {}
        for i in metric_cols:
            name = header[i]
            factor, si = unit_scale(units.get(name, ""))
            value = number(row[i])
            metrics[name] = None if value is None else value * factor
            kunits[name] = (units.get(name, ""), si)
        kernels.append({"id": int(number(cell["ID"])), "name": cell.get("Kernel Name", ""),
                        "block": cell.get("Block Size", ""), "grid": cell.get("Grid Size", ""),
                        "metrics": metrics, "units": kunits})
    return kernels
