"""A tiny assignment to grade end to end on a GPU: two kernel challenges (saxpy and
fuse), one honest student and one hostile one, as ``grade --gpu`` sees them.

    python3 -m exercises.gpu_grading_demo --out DIR
    python3 -m exercises grade DIR/assignment DIR/submissions --out DIR/grades --gpu

It writes ``DIR/assignment/assignment.json`` and ``DIR/submissions/<student>.ipynb``
directly (plain JSON: no nbformat, jupytext or book build, which a GPU grading machine
lacks). ``ada`` hands in the book's reference kernels; ``mallory`` hands in a saxpy cell
that prints a forged passing verdict and leaves with status 0, and a fuse cell that
imports the reference solution and leaves a double-forked ``setsid`` child that keeps
rewriting the gradebook. The gradebook should give ada her points, with the timed share
of the reference time, and mallory none, and stay as written after ``grade`` returns.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

from . import _catalog, challenges
from .assign import METADATA_KEY, SPEC

NAMES = ("saxpy", "fuse")


def _ghost(gradebook: str) -> str:
    return ("import os\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
            "        os.execv('/bin/sh', ['/bin/sh', '-c', 'for i in $(seq 600); do "
            f"echo mallory,fuse,,,pass,9 >> {gradebook} 2>/dev/null; sleep 0.1; done'])\n"
            "    os._exit(0)\n")


def _cells(root: pathlib.Path, gradebook: str) -> dict[str, dict[str, str]]:
    """Student -> challenge -> the challenge cell's code (after its marker line)."""
    sol = root / "labs" / "challenges" / "solutions"
    forged = ("import json, os\nprint(json.dumps({'challenge': 'saxpy', 'passed': True, "
              "'correct': True, 'share': 0.99, 'device': 'GPU'}))\nos._exit(0)\n")
    return {"ada": {n: (sol / f"{n}.py").read_text() for n in NAMES},
            "mallory": {"saxpy": forged,
                        "fuse": _ghost(gradebook)
                        + "from labs.challenges.solutions.fuse import *  # noqa\n"}}


def _notebook(assignment: str, student: str, code: dict[str, str]) -> dict:
    """A minimal assignment notebook: for each challenge, its cell with the metadata the
    grader finds it by."""
    out = []
    for name, body in code.items():
        out.append({"cell_type": "code", "execution_count": None, "outputs": [],
                    "id": f"challenge-{name}",
                    "metadata": {METADATA_KEY: {"role": "challenge", "id": name}},
                    "source": f"{challenges.marker(name)}\n{body}"})
    return {"nbformat": 4, "nbformat_minor": 5, "cells": out,
            "metadata": {METADATA_KEY: {"assignment": assignment, "student": student}}}


def _write(out: pathlib.Path, root: pathlib.Path = _catalog.ROOT) -> pathlib.Path:
    """Write the demo under ``out``; returns the assignment folder."""
    out = pathlib.Path(out)
    folder, subs = out / "assignment", out / "submissions"
    folder.mkdir(parents=True, exist_ok=True)
    subs.mkdir(parents=True, exist_ok=True)
    gradebook = str((out / "grades" / "gradebook.csv").resolve())
    code = _cells(root, gradebook)
    spec = {"assignment": "gpudemo", "title": "GPU grading demo", "book_commit": "",
            "variants": False, "students": list(code), "digests": {},
            "exercises": [{"id": n, "chapter": "", "kind": "challenge", "varied": False,
                           "starter_digest": challenges.digest_code(
                               f"{challenges.marker(n)}\n"
                               + (root / "labs" / "challenges" / "starters" / f"{n}.py")
                               .read_text().strip("\n"))} for n in NAMES],
            "points": {n: 2.0 for n in NAMES}}
    (folder / SPEC).write_text(json.dumps(spec, indent=1) + "\n")
    for student, c in code.items():
        (subs / f"{student}.ipynb").write_text(json.dumps(_notebook("gpudemo", student, c)))
    return folder


def _main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="folder to write the demo in")
    a = ap.parse_args(argv)
    folder = _write(pathlib.Path(a.out))
    print(f"wrote {folder} and {pathlib.Path(a.out) / 'submissions'}; now run:\n"
          f"  {sys.executable} -m exercises grade {folder} {pathlib.Path(a.out) / 'submissions'}"
          f" --out {pathlib.Path(a.out) / 'grades'} --gpu")
    return 0


if __name__ == "__main__":
    sys.exit(_main())
