"""Lab results as JSON: ``labs/results/<gpu>/<lab>.json`` with keys lab, context, params,
rows and summary. Summary values are SI (seconds, byte/s, FLOP/s, Hz)."""
from __future__ import annotations

import json
import math
import pathlib
import re

RESULTS_DIR = pathlib.Path(__file__).resolve().parent / "results"
KEYS = ("lab", "context", "params", "rows", "summary")


def slug(gpu_name: str) -> str:
    """Folder name for a GPU: 'NVIDIA H200' -> 'H200', 'Tesla T4' -> 'T4'."""
    name = re.sub(r"^(NVIDIA|Tesla|GeForce)\s+", "", str(gpu_name).strip(), flags=re.I)
    name = re.sub(r"^(NVIDIA|Tesla|GeForce)\s+", "", name, flags=re.I)
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "unknown-gpu"


def validate(result: dict) -> dict:
    """Check a result's shape; raise ValueError naming what is wrong. Returns it."""
    if not isinstance(result, dict):
        raise ValueError(f"a lab result must be a dict, got {type(result).__name__}")
    missing = [k for k in KEYS if k not in result]
    if missing:
        raise ValueError(f"lab result is missing keys: {', '.join(missing)}")
    if not isinstance(result["lab"], str) or not result["lab"]:
        raise ValueError("result['lab'] must name the lab")
    for key in ("context", "params", "summary"):
        if not isinstance(result[key], dict):
            raise ValueError(f"result[{key!r}] must be a dict")
    if not isinstance(result["rows"], list) or not all(isinstance(r, dict) for r in result["rows"]):
        raise ValueError("result['rows'] must be a list of dicts")
    if "gpu_name" not in result["context"]:
        raise ValueError("result['context'] must record gpu_name")
    _finite(result["summary"], "summary")
    return result


def _finite(obj, where: str) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            _finite(v, f"{where}[{k!r}]")
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _finite(v, f"{where}[{i}]")
    elif isinstance(obj, float) and not math.isfinite(obj):
        raise ValueError(f"{where} is {obj}: summaries must be finite numbers")


def path_for(result: dict, out_dir: str | pathlib.Path | None = None) -> pathlib.Path:
    ctx = result["context"]
    gpu = ctx.get("gpu_slug") or slug(ctx.get("gpu_name", "unknown"))
    base = pathlib.Path(out_dir) if out_dir else RESULTS_DIR
    return base / gpu / f"{result['lab']}.json"


def save(result: dict, out_dir: str | pathlib.Path | None = None) -> pathlib.Path:
    """Write a result to ``<out_dir or labs/results>/<gpu>/<lab>.json``; returns the path."""
    validate(result)
    path = path_for(result, out_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1, sort_keys=False, allow_nan=False) + "\n")
    return path


def load(lab: str, gpu: str = "H200", results_dir: str | pathlib.Path | None = None) -> dict:
    """Load one recorded result; a missing file -> ValueError naming what exists."""
    base = pathlib.Path(results_dir) if results_dir else RESULTS_DIR
    path = base / gpu / f"{lab}.json"
    if not path.exists():
        have = sorted(p.parent.name for p in base.glob(f"*/{lab}.json"))
        raise ValueError(f"no recorded result for lab {lab!r} on {gpu!r}; recorded on: "
                         f"{', '.join(have) or 'none'}")
    return validate(json.loads(path.read_text()))


def list_recorded(lab: str, results_dir: str | pathlib.Path | None = None) -> list[dict]:
    """Every recorded result of a lab: real GPUs first (sorted by name), then references."""
    base = pathlib.Path(results_dir) if results_dir else RESULTS_DIR
    found = [validate(json.loads(p.read_text())) for p in sorted(base.glob(f"*/{lab}.json"))]
    return sorted(found, key=lambda r: (bool(r["context"].get("reference")),
                                        r["context"].get("gpu_slug", "")))


#: The labs whose recorded runs make a GPU's one measured profile (see :func:`machine_profile`).
PROFILE_LABS = ("intensity", "paradox", "pcie", "clocks")


def machine_profile(gpu: str = "H200", results_dir: str | pathlib.Path | None = None):
    """The one measured profile of a recorded GPU, as a ``perfmodel`` Machine.

    FP32 peak and DRAM copy bandwidth from the ``intensity`` run, the launch toll from
    ``paradox``, the pinned host link from ``pcie``, the held FP16 tensor rate from
    ``clocks`` (whichever of the last three were recorded). Every page that quotes a
    measured roof of this GPU quotes it from here, so one quantity has one value.
    """
    from perfmodel import machines

    base = pathlib.Path(results_dir) if results_dir else RESULTS_DIR
    runs = [load("intensity", gpu, results_dir)]
    runs += [load(lab, gpu, results_dir) for lab in PROFILE_LABS[1:]
             if (base / gpu / f"{lab}.json").exists()]
    return machines.from_results(*runs)
