"""Time every kernel challenge's reference solution and starter on this GPU, judged
against the bound, and record the run.

    python3 scripts/challenges_on_device.py --out DIR [--quick] [--only NAME,...]

Each challenge runs in a process of its own with a time limit (``--limit`` seconds, 60 by
default), so a kernel that faults or hangs costs only its own row. Writes
``DIR/challenges.json`` (a lab result: lab "challenges", the run's context from
:func:`labs.gpu.context`, one row per challenge and kernel, and a summary holding each
reference's share of its bound) after every challenge, and prints a table. Copy the file
to ``labs/results/<gpu>/challenges.json``. On an H200 the whole run should take about two
minutes (not yet measured: eight challenges, each a process start with CUDA, numba and
torch, about 5 s; the inputs and numpy reference made once for both kernels, up to a few
seconds for the largest, 512 MB; the compiles 1-2 s a kernel; the timed launches under a
second, the slowest the reduction starter's 2**27 atomics on one address).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def one(name: str, quick: bool, out: pathlib.Path) -> None:
    """In the child: time the reference and the starter of one challenge, write rows."""
    import traceback

    import labs.challenges as ch
    from labs.challenges.harness import prepare

    rows = []
    spec = ch.challenge(name)
    t0 = time.perf_counter()
    prepared = prepare(spec, spec.sizes("quick" if quick else "full"))
    print(f"{name}: inputs and numpy reference {time.perf_counter() - t0:.1f} s", flush=True)
    for kind, get in (("reference", ch.reference), ("starter", ch.starter)):
        t0 = time.perf_counter()
        try:
            r = ch.time(name, get(name), quick=quick, prepared=prepared)
            v = r.get("verdict") or {}
            rows.append({"challenge": name, "kernel": kind, "passed": bool(r["passed"]),
                         "message": r["message"], "sizes": r["sizes"],
                         "seconds": v.get("seconds"), "bound_s": v.get("bound_s"),
                         "share": v.get("share"), "limit": v.get("limit"),
                         "compute_s": v.get("compute_s"), "memory_s": v.get("memory_s"),
                         "roofs": v.get("roofs"), "roofs_source": v.get("roofs_source"),
                         "wall_s": time.perf_counter() - t0})
        except Exception as e:  # recorded, and the other kernel still runs
            rows.append({"challenge": name, "kernel": kind, "passed": False,
                         "message": f"{type(e).__name__}: {e}",
                         "error": traceback.format_exc()[-2000:],
                         "wall_s": time.perf_counter() - t0})
    out.write_text(json.dumps(rows, default=str))


def table(rows: list[dict]) -> str:
    lines = [f"{'challenge':10s} {'kernel':9s} {'time':>10s} {'bound':>10s} {'share':>6s} "
             f"limit   verdict"]
    for r in rows:
        t = f"{r['seconds'] * 1e6:8.1f}us" if r.get("seconds") else "-"
        b = f"{r['bound_s'] * 1e6:8.1f}us" if r.get("bound_s") else "-"
        s = f"{r['share']:.2f}" if r.get("share") else "-"
        lines.append(f"{r['challenge']:10s} {r['kernel']:9s} {t:>10s} {b:>10s} {s:>6s} "
                     f"{r.get('limit') or '-':7s} {r['message'][:90]}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--limit", type=float, default=60.0)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--rows", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.one:
        one(a.one, a.quick, pathlib.Path(a.rows))
        return 0
    from labs import common
    from labs.challenges import NAMES

    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    names = [n for n in a.only.split(",") if n] or list(NAMES)
    ctx = common.context()
    rows: list[dict] = []
    t_start = time.perf_counter()
    for name in names:
        part = out / f".{name}.rows.json"
        part.unlink(missing_ok=True)
        t0 = time.perf_counter()
        cmd = [sys.executable, __file__, "--out", str(out), "--one", name, "--rows", str(part)]
        try:
            proc = subprocess.run(cmd + (["--quick"] if a.quick else []), cwd=ROOT,
                                  capture_output=True, text=True, timeout=a.limit)
            tail = (proc.stdout + proc.stderr)[-1500:]
        except subprocess.TimeoutExpired:
            tail = f"timed out after {a.limit:.0f} s"
        if part.exists():
            rows += json.loads(part.read_text())
            part.unlink()
        else:
            rows.append({"challenge": name, "kernel": "both", "passed": False,
                         "message": f"no result: {tail.strip().splitlines()[-1] if tail.strip() else ''}",
                         "error": tail, "wall_s": time.perf_counter() - t0})
        summary = {f"{r['challenge']}_reference_share": r["share"] for r in rows
                   if r["kernel"] == "reference" and r.get("share")}
        result = common.record("challenges", {"quick": a.quick, "names": names}, rows,
                               summary, ctx)
        (out / "challenges.json").write_text(json.dumps(result, indent=1, default=str) + "\n")
        print(f"{name}: {time.perf_counter() - t0:.1f} s", flush=True)
    print(table(rows))
    print(f"all: {time.perf_counter() - t_start:.1f} s -> {out / 'challenges.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
