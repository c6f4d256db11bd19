"""The grader's ``--gpu`` path on a real GPU: every kernel challenge's reference solution
handed in by one student, a kernel that never ends and one that writes past the end of
its array (``labs.challenges.misbehaving``, the ones tests/test_grade_challenges.py grades
under the simulator) by two others, graded by ``exercises.grade`` with the checks on the GPU.

    python3 scripts/grade_challenges_on_gpu.py [--out DIR] [--time-limit S]

It needs no Jupyter (the notebooks are written as plain JSON, only the cells the grader
reads). It prints each row and ``DIR/challenges.json``, and exits 1 unless: every
reference passes on the GPU (its device is not the simulator), the hanging kernel fails
as timed out (or stopped by the CPU limit first, since it spins the host: seen on the
H200), the grader finishes both students, and nothing the hanging check started is left
on the GPU. An out-of-bounds write on a GPU may go unnoticed (it lands in memory
the process owns); the row says what the GPU did, and that is reported, not judged. On an
H200: about 2 minutes (a process start with CUDA about 5 s, eight checks, one time limit).
"""
from __future__ import annotations

import argparse
import inspect
import json
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def notebook(cells: dict[str, str]) -> dict:
    from exercises.challenges import marker

    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
            "cells": [{"cell_type": "code", "metadata": {"exercises": {"role": "challenge",
                                                                        "id": name}},
                       "source": f"{marker(name)}\n{body}", "outputs": [],
                       "execution_count": None} for name, body in cells.items()]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None,
                    help="folder for the grades (default: a temporary one)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per check")
    a = ap.parse_args()
    import labs.challenges as book
    from exercises.challenges import Limits
    from labs.challenges.misbehaving import HANG, OUT_OF_BOUNDS
    from exercises.grade import grade

    names = list(book.NAMES)
    work = pathlib.Path(tempfile.mkdtemp(prefix="grade-gpu-"))
    out = pathlib.Path(a.out) if a.out else work / "grades"
    spec = {"assignment": "gpu-check", "title": "GPU grading check", "variants": False,
            "students": ["ada", "bo", "cy"], "digests": {},
            "exercises": [{"id": n, "chapter": "", "kind": "challenge", "varied": False}
                          for n in names]}
    (work / "assignment.json").write_text(json.dumps(spec))
    subs = work / "submissions"
    subs.mkdir()
    refs = {n: inspect.getsource(book.reference(n)) for n in names}
    (subs / "ada.ipynb").write_text(json.dumps(notebook(refs)))
    (subs / "bo.ipynb").write_text(json.dumps(notebook({"saxpy": HANG})))
    (subs / "cy.ipynb").write_text(json.dumps(notebook({"saxpy": OUT_OF_BOUNDS})))
    got = grade(work / "assignment.json", subs, out, gpu=True,
                limits=Limits(wall_s=a.time_limit, memory_bytes=None),
                log=lambda line: print(line, flush=True))
    checks = json.loads((out / "challenges.json").read_text())["checks"]
    problems = []
    for sub in got:
        for r in sub.rows:
            print(f"{r.student:4} {r.exercise:10} {r.status:8} {r.message[:160]}")
    for n in names:
        c = checks.get("ada", {}).get(n)
        if not c or not c["passed"] or "simulator" in c["device"].lower():
            problems.append(f"ada's reference {n}: {c}")
    hang = checks.get("bo", {}).get("saxpy", {})
    # A kernel that never ends keeps the host spinning in cuCtxSynchronize, so the CPU
    # limit can stop it before the wall-clock limit does (seen on the H200): either is a
    # failure with its reason.
    reason = str(hang.get("reason", ""))
    if hang.get("passed") is not False or not (reason.startswith("timed out")
                                               or "CPU limit" in reason):
        problems.append(f"bo's hanging kernel: {hang}")
    if {s.student for s in got} != {"ada", "bo", "cy"}:
        problems.append("the grader did not finish every student")
    try:  # the grader itself never touches CUDA: any compute process now is a leftover
        import subprocess

        left = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,process_name",
                               "--format=csv,noheader"], capture_output=True, text=True,
                              timeout=60).stdout.strip()
        if left:
            problems.append(f"processes left on the GPU: {left}")
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"(nvidia-smi not run: {exc})")
    print("cy (out of bounds):", json.dumps(checks.get("cy", {}), indent=1))
    print(f"grades in {out}")
    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
