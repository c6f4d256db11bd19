"""Command line: python -m labs list | run NAME [--quick] [--out DIR] | run --all |
challenge ... (kernel challenges: python -m labs challenge --help)."""
from __future__ import annotations

import argparse
import sys
import time
import traceback

from . import LABS, available, module, results


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["challenge"]:
        from .challenges.cli import main as challenge_main

        return challenge_main(argv[1:])
    ap = argparse.ArgumentParser(prog="python -m labs", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list the labs")
    sub.add_parser("challenge", help="kernel challenges: python -m labs challenge --help")
    r = sub.add_parser("run", help="run labs on this machine's GPU and save their results")
    r.add_argument("name", nargs="?", help="the lab to run (see list)")
    r.add_argument("--all", action="store_true", help="run every lab")
    r.add_argument("--quick", action="store_true", help="small sizes, well under a minute each")
    r.add_argument("--out", default=None, help="results folder (default labs/results)")
    a = ap.parse_args(argv)
    if a.cmd == "list":
        have = set(available())
        for name in LABS:
            doc = (module(name).__doc__ or "").strip().splitlines()[0] if name in have else "(missing)"
            print(f"{name:14s} {doc}")
        return 0
    if a.all == bool(a.name):
        ap.error("run takes one lab NAME or --all")
    names = available() if a.all else [a.name]
    if a.name and a.name not in LABS:
        ap.error(f"unknown lab {a.name!r}; labs: {', '.join(LABS)}")
    from .gpu import has_cuda

    if not has_cuda():
        print("python -m labs run: no CUDA GPU here (torch sees none), so there is nothing to "
              "measure; the recorded results are under labs/results/ (labs.show(NAME) draws "
              "them)", file=sys.stderr)
        return 2
    from .ncu import NcuUnavailable

    failed = []
    for name in names:
        t0 = time.perf_counter()
        try:
            res = module(name).run(quick=a.quick)
            path = results.save(res, a.out)
            print(f"{name}: {time.perf_counter() - t0:.1f} s -> {path}", flush=True)
            for k, v in res["summary"].items():
                print(f"    {k} = {v}")
        except NcuUnavailable as exc:  # a tool this machine lacks: said, not a failure
            print(f"{name}: skipped: {exc}", flush=True)
            if not a.all:
                failed.append(name)
        except Exception:
            failed.append(name)
            print(f"{name}: FAILED after {time.perf_counter() - t0:.1f} s", flush=True)
            traceback.print_exc()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
