"""A stand-in for ``python -m labs challenge`` in the grader's tests: one challenge,
``vadd`` (``out[i] = a[i] + b[i]``), with the command line's contract

    challenge_double.py list
    challenge_double.py show NAME --json
    challenge_double.py check NAME FILE.py [--json]    exit 0 pass, 1 failed, 2 broken
    challenge_double.py collect NAME FILE.py --seed S --out OUT.npz [--gpu] [--time]
    challenge_double.py judge NAME OUT.npz --seed S [--mode sim|gpu] [--machine M] [--json]

``collect`` and ``judge`` keep the contract of ``labs.challenges.collect`` and
``labs.challenges.judge`` (an ``.npz`` of ``out{k}_out`` arrays and a JSON ``meta``; the
judge validates it strictly and returns the verdict dict) at the sizes in ``SIZES``, with
one mechanism counter: ``launches`` (the kernel launched once a call).

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
#: The sizes of collect's check: one not a multiple of the block, one larger.
SIZES = (300, 1000)
THREADS = 256


def _inputs(seed: int, n: int):
    import numpy as np

    rng = np.random.default_rng([seed, n])
    return rng.random(n), rng.random(n)


def collect(name: str, path: str, seed: int, out: str, gpu: bool) -> int:
    """Run the submission at each size (inputs from the seed) and write the .npz."""
    import numpy as np

    meta = {"challenge": name, "seed": seed, "mode": "gpu" if gpu else "sim",
            "sizes": list(SIZES), "counters": {}, "launches": 0, "host_transfers": [],
            "errors": {}, "device": ""}
    arrays = {}
    try:
        spec = importlib.util.spec_from_file_location("submission", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        kernel = module.vadd
    except Exception as exc:  # noqa: BLE001
        meta["errors"] = {str(k): f"does not import: {type(exc).__name__}: {exc}"[:300]
                          for k in range(len(SIZES))}
        kernel = None
    launches = 0
    for k, n in enumerate(SIZES):
        if kernel is None:
            break
        a, b = _inputs(seed, n)
        res = np.full(n, np.nan)
        try:
            kernel[(n + THREADS - 1) // THREADS, THREADS](a, b, res)
            launches += 1
        except Exception as exc:  # noqa: BLE001
            meta["errors"][str(k)] = f"{type(exc).__name__}: {str(exc)[:200]}"
            continue
        arrays[f"out{k}_out"] = res
    meta["launches"] = launches // max(1, len(SIZES) - len(meta["errors"])) if launches else 0
    meta["counters"] = {"launches": meta["launches"]}
    np.savez(out, meta=np.array(json.dumps(meta)), **arrays)
    return 0


def judge(name: str, npz: str, seed: int, mode: str | None) -> dict:
    """The verdict dict of the API, from the file alone (never the submission)."""
    import numpy as np

    v = {"challenge": name, "correct": False, "first_wrong": None,
         "mechanism": {"passed": False, "counters": {}, "targets": {"launches": 1},
                       "message": ""},
         "estimate": {"machine": "T4", "seconds": 0.0, "limit": "dram", "label": "estimate"},
         "share": None, "passed": False, "messages": []}

    def bad(why: str) -> dict:
        v["messages"].append(why)
        return v

    try:
        with np.load(npz, allow_pickle=False) as f:
            data = {k: f[k] for k in f.files}
        meta = json.loads(str(data.pop("meta")))
    except Exception as exc:  # noqa: BLE001
        return bad(f"the results file cannot be read: {type(exc).__name__}")
    if not isinstance(meta, dict) or meta.get("challenge") != name or meta.get("seed") != seed:
        return bad("the results file is not this check's (challenge or seed differ)")
    if mode is not None and meta.get("mode") != mode:
        return bad(f"the results file says mode {meta.get('mode')!r}, not {mode!r}")
    want = {f"out{k}_out" for k in range(len(SIZES))}
    errors = meta.get("errors") if isinstance(meta.get("errors"), dict) else {}
    if errors:
        return bad("; ".join(str(e) for e in errors.values())[:500])
    if set(data) != want:
        return bad(f"the results file holds {sorted(data)}, not {sorted(want)}")
    for k, n in enumerate(SIZES):
        got = data[f"out{k}_out"]
        if got.shape != (n,) or got.dtype != np.float64:
            return bad(f"out{k}_out has shape {got.shape} and dtype {got.dtype}")
        a, b = _inputs(seed, n)
        wrong = np.flatnonzero(~np.isclose(got, a + b))
        if wrong.size:
            v["first_wrong"] = f"out[{int(wrong[0])}] at n = {n}"
            return bad(f"{v['first_wrong']} is {got[wrong[0]]!r}, expected "
                       f"{a[wrong[0]] + b[wrong[0]]!r}")
    v["correct"] = True
    counters = meta.get("counters") if isinstance(meta.get("counters"), dict) else {}
    launches = counters.get("launches")
    ok = isinstance(launches, int) and launches == 1
    v["mechanism"].update(passed=ok, counters={"launches": launches},
                          message="one launch a call" if ok else f"{launches!r} launches a call")
    seconds = meta.get("seconds")
    if mode == "gpu" and isinstance(seconds, list) and seconds \
            and all(isinstance(s, (int, float)) and s > 0 for s in seconds):
        bound = 3 * 8 * SIZES[-1] / 300e9          # bytes moved / a T4-like bandwidth
        v["share"] = min(1.0, bound / float(seconds[-1]))
    v["passed"] = v["correct"] and (ok if mode != "gpu" else True)
    v["messages"].append(f"all {sum(SIZES)} elements right; " + v["mechanism"]["message"])
    return v


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
    p = sub.add_parser("collect")
    p.add_argument("name")
    p.add_argument("file")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--gpu", action="store_true")
    p.add_argument("--time", action="store_true")
    p = sub.add_parser("judge")
    p.add_argument("name")
    p.add_argument("npz")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--mode", choices=("sim", "gpu"))
    p.add_argument("--machine", default="T4")
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
    if a.cmd == "collect":
        return collect(a.name, a.file, a.seed, a.out, a.gpu)
    if a.cmd == "judge":
        v = judge(a.name, a.npz, a.seed, a.mode)
        print(json.dumps(v) if a.json else v["messages"])
        return 0 if v["passed"] else 1
    return check(a.name, a.file, a.json)


if __name__ == "__main__":
    sys.exit(main())
