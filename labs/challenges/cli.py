"""python -m labs challenge list | starter NAME | check NAME FILE.py [--json] |
time NAME [FILE.py | --reference] [--quick] [--json]

check [--seed S] [--machine T4]: collect (:mod:`labs.challenges.collect`) then judge
(:mod:`labs.challenges.judge`): correct at every size of the check, the mechanism counters
against the challenge's targets and the model's estimate on the machine. Exit 0 when the
submission passes, 1 when it runs but is wrong or misses its mechanism target, 2 when it
cannot be run at some size (it does not import, lacks a name the challenge needs, or its
kernels do not compile, launch or finish: under the simulator an index out of bounds
raises, and lands here; so does work done on the host inside launch). Without a CUDA GPU
the check runs under numba's CUDA simulator. With --json the last line of stdout is the
verdict as one JSON object (challenge, passed, correct, broken, message, mechanism,
estimate, messages, device, mode, sizes, seed; time adds the verdict).

time (GPU only): check at the timing size, then time and judge against the reference time
on this GPU (its measured copy and FMA rates), beside the challenge's milestones; exit 0
when the timing is accepted, 1 when the check fails or the timing is refused as far
faster than those rates allow, 2 when the submission cannot be run or there is no GPU.
"""
from __future__ import annotations

import argparse
import json
import os
import sys


def _use_simulator_without_gpu() -> None:
    """Switch numba to its CUDA simulator when there is no GPU, before numba.cuda loads."""
    if "numba.cuda" in sys.modules:
        return
    from ..gpu import has_cuda

    if not has_cuda():
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"


def _print(result: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result, default=str, allow_nan=False, sort_keys=True))
        return
    from .verdict import timed_text

    print(timed_text(result))


def _clean(v):
    """The verdict with no NaN or inf (JSON)."""
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, float) and v != v:
        return None
    return v


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m labs challenge", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list the challenges")
    s = sub.add_parser("starter", help="print a challenge's starting file")
    s.add_argument("name")
    c = sub.add_parser("check", help="check a submission for correctness")
    c.add_argument("name")
    c.add_argument("file")
    c.add_argument("--json", action="store_true")
    c.add_argument("--seed", type=int, default=None, help="of the inputs (default: fresh)")
    c.add_argument("--machine", default="T4", help="perfmodel machine of the estimate")
    t = sub.add_parser("time", help="time a submission against its reference time (GPU only)")
    t.add_argument("name")
    t.add_argument("file", nargs="?")
    t.add_argument("--reference", action="store_true", help="time the reference solution")
    t.add_argument("--quick", action="store_true", help="the quick sizes")
    t.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)

    from . import NAMES, challenge, kernel_source

    if a.cmd == "list":
        for name in NAMES:
            ch = challenge(name)
            print(f"{name:10s} {ch.CHAPTER:20s} {ch.TITLE}")
        return 0
    if a.name not in NAMES:
        msg = f"unknown challenge {a.name!r}; challenges: {', '.join(NAMES)}"
        if getattr(a, "json", False):
            _print({"challenge": a.name, "passed": False, "broken": True, "message": msg,
                    "device": None}, True)
        else:
            print(msg, file=sys.stderr)
        return 2
    if a.cmd == "starter":
        print(kernel_source(a.name), end="")
        return 0
    if a.cmd == "check":
        _use_simulator_without_gpu()
        from . import check

        result = check(a.name, a.file, seed=a.seed, machine=a.machine)
        if a.json:
            _print(dict(result), True)
        else:
            print(result)
        return 0 if result["passed"] else 2 if result.get("broken") else 1
    from ..gpu import has_cuda

    if not has_cuda():
        _print({"challenge": a.name, "passed": False, "broken": True, "device": None,
                "message": "python -m labs challenge time needs a CUDA GPU (torch sees "
                           "none here); `check` runs under the simulator instead"}, a.json)
        return 2
    if bool(a.file) == a.reference:
        ap.error("time takes a FILE.py or --reference")
    from . import reference, time
    from .harness import BrokenSubmission

    try:
        result = time(a.name, reference(a.name) if a.reference else a.file, quick=a.quick)
    except BrokenSubmission as e:
        result = {"challenge": a.name, "passed": False, "broken": True, "message": str(e)}
    except Exception as e:  # a compile or launch error in the submission
        result = {"challenge": a.name, "passed": False, "broken": True,
                  "message": f"the kernels did not run: {type(e).__name__}: {e}"}
    result = _clean(result)
    _print(result, a.json)
    return 0 if result["passed"] else 2 if result.get("broken") else 1
