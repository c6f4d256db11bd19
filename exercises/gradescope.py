"""A Gradescope autograder for an assignment: ``assign --gradescope hw3.zip``.

The zip holds, at its root (Gradescope's autograder specification):

- ``setup.sh``: run once as root when Gradescope builds the image: installs git,
  bubblewrap and a virtual environment, fetches the book at the assignment's commit and
  installs it with ``pip install .[grader]``;
- ``run_autograder``: run for each submission; grades ``/autograder/submission/*.ipynb``
  with the same checks, sandbox and scoring as ``python -m exercises grade`` and writes
  ``/autograder/results/results.json``;
- ``assignment/`` (``assignment.json``, ``rubric.json``) and, for a keyed assignment, the
  instructor's ``key`` (the zip is the instructor's: Gradescope never shows it to
  students).

``run_autograder`` reads ``AUTOGRADER_ROOT`` (default ``/autograder``), ``GPU_PERF_BOOK``
(the book's checkout) and ``GRADER_PYTHON``, so that it can be tried on a sample
submission in a temporary folder.
"""
from __future__ import annotations

import json
import pathlib
import shutil
import stat
import tempfile
import time
import zipfile

from . import secret
from .assign import RUBRIC, SPEC
from .roster import read_notebook

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image.
set -euo pipefail
apt-get install -y --no-install-recommends git bubblewrap python3 python3-venv python3-pip
git clone --quiet --no-checkout {repo} /autograder/book
git -C /autograder/book checkout --quiet --detach {commit}
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install --quiet "/autograder/book[grader]"
"""
RUN = """#!/usr/bin/env bash
# Gradescope runs this for each submission; it writes results/results.json.
set -uo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
BOOK="${{GPU_PERF_BOOK:-$ROOT/book}}"
PY="${{GRADER_PYTHON:-$ROOT/venv/bin/python}}"
cd "$BOOK"
exec "$PY" -m exercises gradescope-run --root "$ROOT" --source "$ROOT/source"{flags}
"""


def _path(name: str, value: object) -> pathlib.Path:
    """A file or folder argument as a Path, or TypeError naming the argument."""
    if not isinstance(value, (str, pathlib.PurePath)) or not str(value).strip():
        raise TypeError(f"{name} must be a path (text or pathlib.Path), got {value!r}"[:200])
    return pathlib.Path(value)


def _read_spec(name: str, path: pathlib.Path) -> dict:
    """The assignment.json at ``path``, or ValueError naming the argument it came from."""
    try:
        spec = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{name}: cannot read {path} ({exc})"[:300]) from None
    if not isinstance(spec, dict) or not isinstance(spec.get("assignment"), str):
        raise ValueError(f"{name}: {path} is not an assignment.json written by "
                         "`python -m exercises assign`")
    return spec


def _repository(root: pathlib.Path) -> str:
    """The book's public repository, from ``_config.yml`` (read as text: no yaml needed)."""
    import re

    text = (root / "_config.yml").read_text()
    m = re.search(r"^repository:\s*\n(?:\s+.*\n)*?\s+url:\s*(\S+)", text, re.M)
    if not m:
        raise ValueError("_config.yml has no repository: url:, which setup.sh clones")
    url = m[1].strip("'\"").rstrip("/")
    return url if url.endswith(".git") else url + ".git"


def write_zip(assignment: str | pathlib.Path, zip_path: str | pathlib.Path, *,
              key_path: pathlib.Path | None = None,
              root: pathlib.Path | None = None) -> pathlib.Path:
    """Write the autograder zip of the assignment folder ``assignment`` (see the module's
    docstring) and return its path."""
    from ._catalog import ROOT

    folder = _path("assignment", assignment)
    zip_path = _path("zip_path", zip_path)
    key_path = None if key_path is None else _path("key_path", key_path)
    root = None if root is None else _path("root", root)
    spec = _read_spec("assignment", folder / SPEC)
    if not spec.get("book_commit"):
        raise ValueError("assignment: it records no book_commit (made outside a git "
                         "checkout?); the autograder installs the book at that commit")
    if spec.get("key_fingerprint") and key_path is None:
        raise ValueError("key_path: a keyed assignment's autograder needs the key")
    try:
        key = None if key_path is None else key_path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"key_path: cannot read {key_path} ({exc})"[:300]) from None
    try:
        setup = SETUP.format(repo=_repository(root or ROOT), commit=spec["book_commit"])
    except OSError as exc:
        raise ValueError(f"root: cannot read the book's _config.yml ({exc})"[:300]) from None
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as z:
        def add(name: str, text: str, mode: int = 0o644) -> None:
            info = zipfile.ZipInfo(name, date_time=time.localtime()[:6])
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text)

        add("setup.sh", setup, 0o755)
        add("run_autograder", RUN.format(flags=""), 0o755)
        add(f"assignment/{SPEC}", (folder / SPEC).read_text())
        if (folder / RUBRIC).exists():
            add(f"assignment/{RUBRIC}", (folder / RUBRIC).read_text())
        if key is not None:
            add("key", key, 0o600)
    return zip_path


def _student(spec: dict, root: pathlib.Path, notebook: pathlib.Path) -> tuple[str, str]:
    """(student id, note): the roster id among the submitter's e-mail and SIS id
    (``submission_metadata.json``), else the notebook's own, else the e-mail."""
    from .roster import notebook_student

    try:
        meta = json.loads((root / "submission_metadata.json").read_text())
        users = meta.get("users") or []
    except (OSError, ValueError, AttributeError):
        users = []
    roster = set(spec.get("students") or [])
    said = [str(u.get(k)) for u in users if isinstance(u, dict) for k in ("sid", "email")
            if u.get(k)]
    for s in said:
        if s in roster:
            return s, ""
    own = notebook_student(notebook)
    if own in roster:
        return own, (f"Graded as {own}, the student this notebook was made for "
                     "(the submitter is not on the assignment's roster).")
    return (said[0] if said else own or "unknown"), "The submitter is not on the roster."


def _results(subs, spec: dict, note: str, seconds: float) -> dict:
    """results.json (Gradescope's format) for one graded submission."""
    sub = subs[0]
    tests = []
    for i, r in enumerate(sub.rows, 1):
        by_hand = r.points is None
        tests.append({"name": r.exercise, "number": str(i),
                      "score": 0.0 if by_hand else float(r.points),
                      "max_score": 0.0 if by_hand else float(r.out_of),
                      "status": "passed" if (not by_hand and r.points >= r.out_of) else "failed",
                      "output": (r.message or r.status)[:5000], "visibility": "visible"})
    score = sum(t["score"] for t in tests)
    notes = ([note] if note else []) + sub.notes
    return {"score": score, "execution_time": int(round(seconds)),
            "output": (" ".join(notes) or f"{spec.get('title') or spec['assignment']}")[:5000],
            "visibility": "visible", "stdout_visibility": "hidden", "tests": tests}


def run(root: pathlib.Path, source: pathlib.Path) -> pathlib.Path:
    """Grade the submission under ``root/submission`` and write
    ``root/results/results.json``; returns its path."""
    from .grade import grade

    t0 = time.monotonic()
    root, source = _path("root", root), _path("source", source)
    spec = _read_spec("source", source / "assignment" / SPEC)
    key = secret.read(source / "key") if (source / "key").exists() else None
    out = root / "results"
    out.mkdir(parents=True, exist_ok=True)
    books = sorted((p for p in (root / "submission").rglob("*.ipynb") if not p.is_dir()),
                   key=lambda p: (p.lstat().st_mtime, p.name))
    with tempfile.TemporaryDirectory(prefix="gradescope-") as tmp:
        tmp = pathlib.Path(tmp)
        subs_dir = tmp / "submissions"
        subs_dir.mkdir()
        if not books:
            (out / "results.json").write_text(json.dumps({
                "score": 0.0, "output": "No notebook (.ipynb) was submitted.",
                "visibility": "visible", "tests": []}, indent=1))
            return out / "results.json"
        student, note = _student(spec, root, books[-1])
        try:    # a regular file: a link or a FIFO from an archive is named, never followed
            (subs_dir / f"{student}.ipynb").write_bytes(read_notebook(books[-1]))
        except (OSError, ValueError) as e:
            (out / "results.json").write_text(json.dumps({
                "score": 0.0, "output": f"The notebook {books[-1].name} cannot be read: {e}.",
                "visibility": "visible", "tests": []}, indent=1))
            return out / "results.json"
        one = dict(spec, students=[student])
        (tmp / SPEC).write_text(json.dumps(one))
        if (source / "assignment" / RUBRIC).exists():
            shutil.copy(source / "assignment" / RUBRIC, tmp / RUBRIC)
        subs = grade(tmp / SPEC, subs_dir, tmp / "grades", key=key)
    (out / "results.json").write_text(json.dumps(
        _results(subs, spec, note, time.monotonic() - t0), indent=1) + "\n")
    return out / "results.json"
