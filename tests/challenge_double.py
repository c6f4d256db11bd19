"""A stand-in for ``python -m labs challenge`` in the grader's tests: one challenge,
``vadd`` (``out[i] = a[i] + b[i]``), with the command line's contract

    challenge_double.py list
    challenge_double.py show NAME --json
    challenge_double.py check NAME FILE.py [--json]    exit 0 pass, 1 failed, 2 broken

It imports FILE.py, launches its kernel ``vadd`` on 300 random elements (two blocks of
256 threads: the last 212 threads must not write) under whatever numba.cuda gives (the
simulator in the tests) and compares with numpy. Only the tests use it; the book's
challenges live in ``labs/challenges/``.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys

STARTER = '''from numba import cuda


@cuda.jit
def vadd(a, b, out):
    i = cuda.grid(1)
    # Your turn: write out[i] = a[i] + b[i] for the threads inside the arrays.
'''

REFERENCE = '''from numba import cuda


@cuda.jit
def vadd(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]
'''

N = 300


def _say(name: str, passed: bool, message: str, device: str, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"challenge": name, "passed": passed, "message": message,
                          "device": device}))
    else:
        print(f"{name}: {'passed' if passed else 'failed'}: {message}")


def check(name: str, path: str, as_json: bool) -> int:
    import numpy as np

    spec = importlib.util.spec_from_file_location("submission", path)
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        kernel = module.vadd
    except Exception as exc:  # noqa: BLE001 (a broken submission is reported)
        _say(name, False, f"the submission does not import: {type(exc).__name__}: {exc}",
             "", as_json)
        return 2
    from numba import cuda

    device = "CUDA simulator" if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1" else "GPU"
    rng = np.random.default_rng(1)
    a, b = rng.random(N), rng.random(N)
    out = np.zeros(N)
    try:
        kernel[2, 256](a, b, out)
    except Exception as exc:  # noqa: BLE001
        _say(name, False, f"the kernel raised {type(exc).__name__}: {str(exc)[:200]}",
             device, as_json)
        return 1
    bad = np.flatnonzero(~np.isclose(out, a + b))
    if bad.size:
        i = int(bad[0])
        _say(name, False, f"out[{i}] is {out[i]!r}, expected {a[i] + b[i]!r}", device, as_json)
        return 1
    _say(name, True, f"all {N} elements right", device, as_json)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list")
    p = sub.add_parser("show")
    p.add_argument("name")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("check")
    p.add_argument("name")
    p.add_argument("file")
    p.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.cmd == "list":
        print("vadd")
        return 0
    if a.name != "vadd":
        print(f"unknown challenge {a.name!r}", file=sys.stderr)
        return 2
    if a.cmd == "show":
        print(json.dumps({"challenge": "vadd", "title": "Vector add",
                          "statement": "Add two vectors: `out[i] = a[i] + b[i]`.",
                          "starter": STARTER, "chapter": "02_intensity"}))
        return 0
    return check(a.name, a.file, a.json)


if __name__ == "__main__":
    sys.exit(main())
