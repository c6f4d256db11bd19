"""Time every challenge check under numba's CUDA simulator: the starter, the reference and
any extra file given, each collected (every size of the check, counters included) and
judged, as ``python -m labs challenge check`` does: every challenge's starter, reference and
textbook solution, then the typical wrong saxpy kernels of ``labs/challenges/engine_gpu_check.py``
(a truncated grid, no bounds check, a grid hard-coded for one size, a numpy "kernel") and the
instructor trial's reduce on 64 blocks and with a shuffle inside a branch. Prints one
line a check: seconds, verdict, and with --counters the counters. Timing is measured here, never
asserted.

    NUMBA_ENABLE_CUDASIM=1 python scripts/bench_challenges.py [NAME ...] [--extra FILE:NAME]
        [--counters] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["NUMBA_ENABLE_CUDASIM"] = "1"


def bench(name: str, path: pathlib.Path, seed: int = 1) -> dict:
    from labs.challenges.collect import collect
    from labs.challenges.judge import judge

    t0 = time.perf_counter()
    arrays, meta = collect(name, path, seed, compile_check=False)
    t1 = time.perf_counter()
    v = judge(name, {**arrays, "meta": meta}, seed)
    return {"name": name, "file": str(path.relative_to(ROOT) if path.is_relative_to(ROOT)
                                       else path),
            "collect_s": t1 - t0, "judge_s": time.perf_counter() - t1,
            "passed": v["passed"], "correct": v["correct"], "messages": v["messages"],
            "counters": meta.get("counters", {})}


#: The instructor trial's two slow checks (19.6 s and 31.8 s then): the textbook reduce on
#: a fixed grid of 64 blocks (right), and with its last shuffles inside a branch (wrong).
#: name -> (text to find in the textbook reduce, its replacement).
TRIAL_REDUCE = {
    "reduce_64_blocks": ("block_sums[min(BLOCKS, (groups + THREADS - 1) // THREADS), THREADS]",
                         "block_sums[64, THREADS]"),
    "reduce_shuffle_in_branch": (
        "        for d in (16, 8, 4, 2, 1):\n            s += cuda.shfl_down_sync(FULL, s, d)\n"
        "        if lane == 0:\n            cuda.atomic.add",
        "        if lane < WARPS:\n            for d in (16, 8, 4, 2, 1):\n"
        "                s += cuda.shfl_down_sync(FULL, s, d)\n"
        "        if lane == 0:\n            cuda.atomic.add"),
}


def wrong_kernels() -> list[tuple[str, pathlib.Path]]:
    """(challenge, file) for the engine's wrong saxpy kernels and the trial's two reduce
    kernels, each written to a file of its own in a temp folder that goes when the bench
    ends. A textbook that no longer has the text to edit -> ValueError."""
    import atexit
    import shutil
    import tempfile

    from labs.challenges.engine_gpu_check import WRONG

    folder = pathlib.Path(tempfile.mkdtemp(prefix="bench_wrong_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    texts = {("saxpy", f"wrong_{label}"): text for label, text in WRONG.items()}
    reduce = (ROOT / "labs/challenges/textbooks/reduce.py").read_text()
    for label, (old, new) in TRIAL_REDUCE.items():
        if old not in reduce:
            raise ValueError(f"{label}: the textbook reduce no longer has {old!r}")
        texts["reduce", label] = reduce.replace(old, new)
    paths = []
    for (name, label), text in texts.items():
        path = folder / f"{label}.py"
        path.write_text(text)
        paths.append((name, path))
    return paths


def main(argv: list[str] | None = None) -> int:
    from labs.challenges import NAMES, HERE

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", default=list(NAMES))
    ap.add_argument("--extra", action="append", default=[], help="FILE:NAME to time too")
    ap.add_argument("--counters", action="store_true")
    ap.add_argument("--json", help="write every result here")
    a = ap.parse_args(argv)
    todo = [(n, HERE / kind / f"{n}.py") for n in a.names
            for kind in ("starters", "solutions", "textbooks")]
    todo += [(e.rsplit(":", 1)[1], pathlib.Path(e.rsplit(":", 1)[0])) for e in a.extra]
    todo += [(name, path) for name, path in wrong_kernels() if name in a.names]
    out = []
    for name, path in todo:
        r = bench(name, path)
        out.append(r)
        print(f"{r['collect_s'] + r['judge_s']:6.2f} s  {name:9s} {r['file']:40s} "
              f"{'pass' if r['passed'] else 'fail'}  {r['messages'][0][:90]}", flush=True)
        if a.counters:
            print("         " + json.dumps({k: round(v, 3) if isinstance(v, float) else v
                                            for k, v in r["counters"].items()}), flush=True)
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
