"""Every kernel challenge on this GPU: starter, reference, textbook solution, a plain copy
of the same launch shape and any variants, each timed at the full size and judged against
the reference time (this GPU's measured copy and FMA rates), with the engine's estimate
for this GPU recorded beside the measured time; then the engine's wrong launches (a
truncated grid, no bounds check, a grid hard-coded for one size, a numpy "kernel";
``labs/challenges/engine_gpu_check.py``) checked on the GPU as they are on the simulator.

    python3 -m labs.challenges.on_device --out DIR [--only NAME,...] [--limit S]

Each challenge runs in a process of its own under a time limit (``--limit``, 40 s by
default), so a kernel that faults or hangs costs only its own rows; every kernel is in a
try/except that writes the error into its row. Writes ``DIR/challenges.json`` (a lab
result: lab "challenges", the context of :func:`labs.gpu.context`, one row per challenge
and kernel, a summary of each kernel's share) after every challenge, and prints a table.
Copy it to ``labs/results/<gpu>/challenges.json`` (the statements' milestones read it), and
``DIR/engine_gpu_check.json`` beside it. Budget: under 4 minutes on an H200
(eight processes of about 5 s start-up each, inputs of up to 512 MB made once per
challenge, a compile of 1-2 s and under a second of timed launches per kernel).
"""
from __future__ import annotations

import argparse
import importlib
import json
import pathlib
import subprocess
import sys
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: Extra versions of the weakest references, timed beside them: challenge -> {label:
#: module}. Each module has the reference's names.
VARIANTS: dict[str, dict[str, str]] = {
    "regroup": {"early": "labs.challenges.variants.regroup_early"},
    "softmax": {"flat": "labs.challenges.variants.softmax_flat",
                "t512": "labs.challenges.variants.softmax_t512",
                "t512_flat": "labs.challenges.variants.softmax_t512_flat",
                "t512_early": "labs.challenges.variants.softmax_t512_early"},
    "matmul": {"persistent": "labs.challenges.variants.matmul_persistent",
               "persistent_flat": "labs.challenges.variants.matmul_persistent_flat",
               "early": "labs.challenges.variants.matmul_early"},
}


def kernels(name: str) -> dict[str, object]:
    """label -> the namespace to time: starter, reference, textbook, copy, variants."""
    from . import copies

    out = {"starter": f"labs.challenges.starters.{name}",
           "reference": f"labs.challenges.solutions.{name}",
           "textbook": f"labs.challenges.textbooks.{name}"}
    out.update(VARIANTS.get(name, {}))
    found = {}
    for label, module in out.items():
        try:
            found[label] = importlib.import_module(module)
        except Exception as e:  # recorded as the row's error
            found[label] = e
    if name in copies.COPIES:
        found["copy"] = copies.COPIES[name]
    return found


#: The kernels whose estimate is recorded beside their time.
ESTIMATED = ("starter", "reference", "textbook")


def simulate_all(names: list[str], out: pathlib.Path, workers: int = 12) -> dict:
    """The engine's collect under the simulator for every starter, reference and
    textbook solution, in parallel processes (CPU only), then its judge's estimate for the
    H200 from their counters: {(name, kernel): {"estimate_s", "estimate_limit"} or
    {"estimate_error"}}. Runs while the GPU is idle, before the timings."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    from . import HERE

    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", CUDA_VISIBLE_DEVICES="")
    folders = {"starter": "starters", "reference": "solutions", "textbook": "textbooks"}

    def run(job):
        name, kernel = job
        npz = out / f".sim_{name}_{kernel}.npz"
        try:
            subprocess.run([sys.executable, "-m", "labs.challenges.collect", name,
                            str(HERE / folders[kernel] / f"{name}.py"), "--seed", "0",
                            "--out", str(npz), "--no-compile"], cwd=ROOT, env=env,
                           capture_output=True, timeout=120)
            return job, estimate_row(name, npz)
        except Exception as e:  # recorded
            return job, {"estimate_s": None, "estimate_error": f"{type(e).__name__}: {e}"}
        finally:
            npz.unlink(missing_ok=True)

    jobs = [(n, k) for n in names for k in ESTIMATED]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return dict(pool.map(run, jobs))


def estimate_row(name: str, npz: pathlib.Path, machine: str = "H200") -> dict:
    """The engine's estimate on ``machine`` from a simulator run's counters (its judge,
    :func:`labs.challenges.judge.judge`); an error is recorded, not raised."""
    try:
        from .judge import judge

        v = judge(name, npz, 0, machine=machine)
        e = v.get("estimate") or {}
        if not e:
            why = [m for m in v.get("messages", []) if "estimate" in m]
            return {"estimate_s": None, "estimate_error": (why or ["no estimate"])[0][:300],
                    "sim_mechanism_passed": v["mechanism"]["passed"]}
        return {"estimate_s": e.get("seconds"), "estimate_limit": e.get("limit"),
                "estimate": e, "sim_mechanism_passed": v["mechanism"]["passed"]}
    except Exception as e:  # the engine may lack it, or the kernel may not run there
        return {"estimate_s": None, "estimate_error": f"{type(e).__name__}: {e}"[:400]}


def time_one(name: str, label: str, ns, prepared) -> dict:
    """Correctness at the full size, then the median time of ``launch`` and its verdict."""
    import numpy as np

    from .. import timing
    from . import challenge
    from . import verdict as judge
    from .harness import _to_device, compare, cuda, device_name

    ch = challenge(name)
    size = ch.sizes("full")
    inputs, want = prepared
    arrays = _to_device(inputs, ch.outputs(**size), None)
    ch.launch(ns, arrays)
    cuda.synchronize()
    got = {k: arrays[k].copy_to_host() for k in ch.outputs(**size)}
    wrong = compare(ch, inputs, got, want) if label != "copy" else None
    for k, (shape, dtype) in ch.outputs(**size).items():
        arrays[k].copy_to_device(np.full(shape, np.nan, dtype=dtype))
    seconds = timing.queued_time(lambda: ch.launch(ns, arrays), warmup=2, repeats=10)
    v = judge.verdict(ch.op(**size), seconds, judge.roofs(device_name()), ch.UNIT)
    return {"correct": wrong is None, "first_wrong": wrong, "seconds": seconds,
            "bound_s": v["bound_s"], "share": v["share"], "limit": v["limit"],
            "accepted": v["accepted"], "message": v["reason"], "roofs": v["roofs"]}


def one(name: str, rows_path: pathlib.Path) -> None:
    """In the child: every kernel of one challenge, rows written after each."""
    from . import challenge
    from .harness import prepare

    ch = challenge(name)
    rows: list[dict] = []
    t0 = time.perf_counter()
    prepared = prepare(ch, ch.sizes("full"), seed=0)
    print(f"{name}: inputs and numpy reference {time.perf_counter() - t0:.1f} s", flush=True)
    for label, ns in kernels(name).items():
        t0 = time.perf_counter()
        row = {"challenge": name, "kernel": label, "sizes": ch.sizes("full")}
        try:
            if isinstance(ns, Exception):
                raise ns
            row.update(time_one(name, label, ns, prepared))
        except Exception as e:  # recorded; the next kernel still runs
            row.update(error=f"{type(e).__name__}: {e}"[:600],
                       traceback=traceback.format_exc()[-1500:])
        row["wall_s"] = time.perf_counter() - t0
        rows.append(row)
        rows_path.write_text(json.dumps(rows, default=str))


def table(rows: list[dict]) -> str:
    lines = [f"{'challenge':10s} {'kernel':16s} {'time':>10s} {'share':>6s} {'est':>10s}  note"]
    for r in rows:
        t = f"{r['seconds'] * 1e6:8.1f}us" if r.get("seconds") else "-"
        s = f"{r['share']:.3f}" if r.get("share") else "-"
        e = f"{r['estimate_s'] * 1e6:8.1f}us" if r.get("estimate_s") else "-"
        note = r.get("error") or r.get("first_wrong") or r.get("message") or ""
        lines.append(f"{r['challenge']:10s} {r['kernel']:16s} {t:>10s} {s:>6s} {e:>10s}  "
                     f"{str(note)[:70]}")
    return "\n".join(lines)


def summary(rows: list[dict]) -> dict:
    return {f"{r['challenge']}_{r['kernel']}_share": r["share"] for r in rows
            if r.get("share")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--limit", type=float, default=40.0)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--rows", help=argparse.SUPPRESS)
    ap.add_argument("--no-misbehaving", action="store_true")
    a = ap.parse_args(argv)
    if a.one:
        one(a.one, pathlib.Path(a.rows))
        return 0
    from .. import common
    from . import NAMES

    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    names = [n for n in a.only.split(",") if n] or list(NAMES)
    ctx = common.context()
    rows: list[dict] = []
    t_start = time.perf_counter()

    def save():
        result = common.record("challenges", {"names": names, "sizes": "full"}, rows,
                               summary(rows), ctx)
        (out / "challenges.json").write_text(json.dumps(result, indent=1, default=str) + "\n")

    t0 = time.perf_counter()
    estimates = simulate_all(names, out)
    print(f"simulator runs for the estimates: {time.perf_counter() - t0:.1f} s", flush=True)
    for flag, name in [("--one", n) for n in names]:
        part = out / f".{name}.rows.json"
        part.unlink(missing_ok=True)
        t0 = time.perf_counter()
        cmd = [sys.executable, "-m", "labs.challenges.on_device", "--out", str(out),
               flag, name, "--rows", str(part)]
        try:
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                                  timeout=a.limit)
            tail = (proc.stdout + proc.stderr)[-1500:]
        except subprocess.TimeoutExpired:
            tail = f"timed out after {a.limit:.0f} s"
        got = json.loads(part.read_text()) if part.exists() else []
        part.unlink(missing_ok=True)
        for r in got:
            r.update(estimates.get((r["challenge"], r["kernel"]), {}))
            if r.get("estimate_s") and r.get("seconds"):
                r["estimate_over_measured"] = r["estimate_s"] / r["seconds"]
        rows += got
        if not got or "timed out" in tail:
            rows.append({"challenge": name, "kernel": "process", "error": tail[-600:],
                         "wall_s": time.perf_counter() - t0})
        save()
        print(f"{name}: {time.perf_counter() - t0:.1f} s", flush=True)
    if not a.no_misbehaving:      # the engine's wrong launches on this GPU, its own file
        try:
            proc = subprocess.run([sys.executable, "-m", "labs.challenges.engine_gpu_check", "--out",
                                   str(out)], cwd=ROOT, capture_output=True, text=True,
                                  timeout=a.limit)
            print((proc.stdout + proc.stderr)[-600:], flush=True)
        except Exception as e:  # the timings above are already written
            print(f"engine_gpu_check: {type(e).__name__}: {e}", flush=True)
    print(table(rows))
    print(f"all: {time.perf_counter() - t_start:.1f} s -> {out / 'challenges.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
