"""Grading a folder of submitted assignment notebooks, as data.

    python -m exercises grade _build/assignments/hw1/assignment.json submissions/ \\
        --out _build/grades/hw1

A submission is untrusted: this module never runs a student's code. It parses the
notebook's JSON, finds each answer cell by the metadata the assignment wrote (or, when
that is gone, by the ``answer_<id> = ...`` line), and reads the number from the cell's
source (:func:`exercises.notebook.read_answer`). Each answer is checked against the
student's own numbers, recomputed here from ``assignment.json`` and the student's id (the
file's name: ``submissions/<student>.ipynb`` or ``submissions/<student>/<any>.ipynb``), never
against anything the notebook says about itself. When an editor has dropped the cells'
metadata, answers are found by their ``answer_<id> = ...`` line and written answers by
their place under the question.

A kernel challenge is the exception: its answer is code, and checking it means running
it. The challenge cell's text (never its outputs) is written to a file, run by the
challenge's ``collect`` inside a bubblewrap sandbox with a fresh secret seed, and judged
outside it by a separate trusted process (:mod:`exercises.challenges`,
:mod:`exercises.sandbox`); the points come from the judge's verdicts (correct outputs, the
simulator's mechanism counters, with ``--gpu`` the timed share of the reference time)
and the assignment's scoring, computed here. A hang, a crash or a limit reached is a *fail* with
its reason. Without a sandbox the grader refuses to run student code unless told
``sandboxed=False`` (``--no-sandbox``), which the gradebook records. This module never
imports ``labs`` nor the book-building scripts (``pip install .[grader]`` is enough).

It writes, under ``--out``:

- ``gradebook.csv``: one row per student and exercise: student, exercise, answer,
  expected, status, points, out_of, share (a kernel's timed share of the reference
  time, --gpu), counters (a kernel's mechanism counters), checked (``sandbox``, ``no
  sandbox``, or ``not run`` for a kernel held for review). Status is ``right``,
  ``close``, ``wrong``, ``invalid`` (not a number, or a notebook that cannot be read),
  ``missing`` (no answer, no answer cell, no submission) or ``by hand`` (a written
  exercise: see the rubric); a kernel challenge is ``pass``, ``partial`` or ``fail``
  (``missing`` when its cell is gone or is the starter untouched; ``held for review:
  uses X``, 0 points and never run, when it uses what :mod:`exercises.policy` holds), its
  answer the path of the extracted cell under ``kernels/``;
- ``totals.csv``: student, points, out_of, to_grade_by_hand, late;
- ``grades_wide.csv``: one row per student (the roster's id column, each exercise's
  points, total, out_of, late), for an LMS to import;
- ``hand_scores.csv``: the scores given by hand (``--hand FILE`` merges a CSV of student,
  exercise, points[, comment] into it); kept across regrades and applied to every one;
- ``grading.json``: how it was graded (sandbox, GPU, limits, key fingerprint, book
  commits, warnings);
- ``feedback/<student>.md``: each answer with the checker's message, and what was wrong
  with the notebook itself (edited or deleted cells, a changed seed, another student's
  notebook);
- ``rubric.md``: each written exercise with the book's model solution and every
  student's answer, for grading by hand;
- with kernel challenges, ``kernels/<student>/<challenge>.py`` (each extracted cell) and
  ``challenges.json`` (the limits, and each check's verdict, reason and message).
"""
from __future__ import annotations

import concurrent.futures
import csv
import datetime
import hashlib
import html
import json
import math
import pathlib
import re
from dataclasses import dataclass, field

from . import _catalog, challenges, roster, secret, variants
from .assign import METADATA_KEY, RUBRIC, SPEC, digest, expected, pinned_commit
from .notebook import read_answer, variable
from .registry import judge

#: What the gradebook's ``expected`` column says for a kernel challenge.
PASSES = "passes its check"
#: Where ``grade`` writes each student's extracted kernel cells, under ``--out``.
KERNELS = "kernels"
#: Largest submission read (bytes); a notebook of answers is a few hundred kB at most.
MAX_BYTES = roster.NOTEBOOK_BYTES
COLUMNS = ("student", "exercise", "answer", "expected", "status", "points", "out_of",
           "share", "counters", "checked")
#: Where the scores given by hand are kept, under ``--out``.
HAND = "hand_scores.csv"
#: How a kernel challenge's points are shared when the assignment says nothing: ``correct``
#: is the share for right outputs at every size; the rest comes, on the simulator, from the
#: mechanism verdict and, with ``--gpu``, from the highest ``shares`` threshold
#: [share of the reference time, share of the rest] the timing reaches.
SCORING = {"correct": 0.5, "shares": [[0.25, 0.5], [0.5, 1.0]]}


@dataclass
class Row:
    student: str
    exercise: str
    answer: str
    expected: str
    status: str
    points: float | None
    message: str = ""
    out_of: float = 1.0
    share: float | None = None
    counters: str = ""
    checked: str = ""

    def csv(self) -> list[str]:
        pts = "" if self.points is None else f"{self.points:g}"
        share = "" if self.share is None else f"{self.share:.3f}"
        # every cell as text, never a formula: the counters' names and a check's messages
        # come from what a submission's process handed back
        return [_cell(c) for c in (self.student, self.exercise, self.answer, self.expected,
                                   self.status, pts, f"{self.out_of:g}", share, self.counters,
                                   self.checked)]


def _cell(text: str) -> str:
    """A student's text as a spreadsheet shows it, never as a formula: text that starts
    with = + - @ (and is not a plain number) gets a leading apostrophe."""
    text = " ".join(str(text).split())
    if text[:1] in ("=", "+", "-", "@"):
        try:
            float(text)
        except ValueError:
            return "'" + text
    return text


@dataclass
class Submission:
    student: str
    path: pathlib.Path | None
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    written: dict[str, str] = field(default_factory=dict)
    kernels: dict[str, challenges.Result] = field(default_factory=dict)
    late: str = ""


def load_spec(path: str | pathlib.Path) -> dict:
    """The assignment as ``assign`` recorded it (the grader's only source of truth)."""
    if not isinstance(path, (str, pathlib.PurePath)):
        raise TypeError(f"path must be the assignment.json (or its folder), got {path!r}"[:200])
    p = pathlib.Path(path)
    if p.is_dir():
        p = p / SPEC
    try:
        spec = json.loads(p.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"path: cannot read {p} ({exc}); give the assignment.json "
                         "that `python -m exercises assign` wrote") from None
    for key in ("assignment", "exercises", "students", "variants"):
        if not isinstance(spec, dict) or key not in spec:
            raise ValueError(f"path: {p} has no {key!r}: not written by "
                             "`python -m exercises assign`")
    return spec


def submissions(folder: str | pathlib.Path) -> dict[str, pathlib.Path]:
    """Student id -> notebook: ``<folder>/<student>.ipynb``, or the newest ``.ipynb`` of
    ``<folder>/<student>/`` (by its own time, not a link's target's). Whatever bears the
    name is listed, links and FIFOs too: reading it says what it is, in that student's
    feedback (:func:`exercises.roster.read_notebook`)."""
    if not isinstance(folder, (str, pathlib.PurePath)):
        raise TypeError(f"folder must be a folder of notebooks, got {folder!r}"[:200])
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        raise ValueError(f"submissions must be a folder of notebooks; {folder} is not a folder")
    found: dict[str, pathlib.Path] = {}
    for p in sorted(folder.iterdir()):
        if p.suffix == ".ipynb" and not p.is_dir():
            found[p.stem] = p
        elif p.is_dir() and not p.is_symlink():
            books = sorted((q for q in p.glob("*.ipynb") if not q.is_dir()),
                           key=lambda q: (q.lstat().st_mtime, q.name))
            if books:
                found[p.name] = books[-1]
    return found


def _source(cell: dict) -> str:
    s = cell.get("source", "")
    return "".join(str(x) for x in s) if isinstance(s, list) else str(s)


def _meta(cell: dict) -> dict:
    m = cell.get("metadata")
    m = m.get(METADATA_KEY) if isinstance(m, dict) else None
    return m if isinstance(m, dict) else {}


def _cells(nb: object) -> list[dict]:
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise ValueError("it is JSON but not a notebook (no list of cells)")
    return [c for c in nb["cells"] if isinstance(c, dict)]


def _raised(cell: dict) -> str:
    """'NameError' when the cell's saved outputs hold an error."""
    for out in cell.get("outputs") or []:
        if isinstance(out, dict) and out.get("output_type") == "error":
            return str(out.get("ename", "an error"))[:60]
    return ""


def _find(cells: list[dict], role: str, id: str) -> dict | None:
    found = [c for c in cells if _meta(c).get("role") == role and _meta(c).get("id") == id]
    return found[-1] if found else None


def _written_by_position(cells: list[dict], id: str) -> dict | None:
    """The written-answer cell of ``id`` when its metadata is gone (a notebook editor that
    drops cell metadata): the first "*Your answer:*" text cell after the question whose
    heading names the id."""
    mark = re.compile(rf"\(`?{re.escape(id)}`?\)")
    after = False
    for c in cells:
        if c.get("cell_type") != "markdown":
            continue
        text = _source(c)
        if text.lstrip().startswith("*Your answer:*"):
            if after:
                return c
            continue
        after = bool(mark.search(text.split("\n", 1)[0]))
    return None


def _points(status: str, points: float, close_points: float) -> float:
    return {"right": points, "close": close_points * points}.get(status, 0.0)


def _fmt(x: float | None) -> str:
    return "" if x is None else f"{x:.6g}"


def _kernel_cell(cells: list[dict], name: str) -> dict | None:
    """The challenge cell of ``name``: by its metadata, else (an editor that drops cell
    metadata) the last code cell whose first line is the challenge's marker."""
    cell = _find(cells, "challenge", name)
    if cell is None:
        found = [c for c in cells if c.get("cell_type") == "code"
                 and challenges.is_cell_of(_source(c), name)]
        cell = found[-1] if found else None
    return cell


def _kernel_points(result: challenges.Result, points: float, scoring: dict | None,
                  gpu: bool) -> float:
    """A kernel challenge's points from the judge's verdicts (never from anything the
    submission printed): nothing unless every output is right; then ``correct`` of the
    points, and the rest for the mechanism verdict on the simulator or, with ``gpu``, the
    share of the rest that the highest threshold of ``shares`` the timed share reaches
    gives (see :data:`SCORING`)."""
    sc = {**SCORING, **(scoring or {})}
    c = float(sc["correct"])
    if not result.correct:
        return 0.0
    if not gpu:
        return points * (c + (1 - c) * (1.0 if result.mechanism else 0.0))
    share = result.share
    credit = max([float(f) for t, f in sc["shares"] if share is not None and share >= float(t)],
                 default=0.0)
    return points * (c + (1 - c) * credit)


def _counters(result: challenges.Result) -> str:
    m = result.report.get("mechanism")
    c = m.get("counters") if isinstance(m, dict) else None
    if not isinstance(c, dict):
        return ""
    return ";".join(f"{k}={v:g}" if isinstance(v, (int, float)) else f"{k}={v}"
                    for k, v in sorted(c.items()))[:500]


def _grade_kernel(ex: dict, student: str, cells: list[dict], problem: str,
                  path: pathlib.Path | None, sub: Submission, points: float,
                  kernel: dict) -> Row:
    """One kernel challenge's row: the challenge cell's text (never its outputs) collected
    in the sandbox and judged outside (:func:`exercises.challenges.run_check`), its points
    from :func:`_kernel_points`."""
    name = ex["id"]
    if problem:
        return Row(student, name, "", PASSES, "missing" if path is None else "invalid", 0.0,
                   problem, points)
    cell = _kernel_cell(cells, name)
    if cell is None:
        return Row(student, name, "", PASSES, "missing", 0.0,
                   f"no challenge cell (`{challenges.marker(name)}`) in the notebook", points)
    source = _source(cell)
    if challenges.digest_code(source) == ex.get("starter_digest"):
        return Row(student, name, "", PASSES, "missing", 0.0,
                   "the starting kernel, handed back unchanged: not checked", points)
    keep = kernel.get("keep")
    shown = f"{KERNELS}/{_safe(student)}/{name}.py" if keep else \
        f"(kernel cell, {len(source.splitlines())} lines)"
    gpu = bool(kernel.get("gpu"))
    result = challenges.run_check(
        name, source, limits=kernel.get("limits"), gpu=gpu,
        root=kernel.get("root", _catalog.ROOT), engine=kernel.get("engine"),
        sandboxed=kernel.get("sandboxed", True), machine=kernel.get("machine", "T4"),
        keep=pathlib.Path(keep) / _safe(student) / f"{name}.py" if keep else None,
        review=kernel.get("review", True))
    sub.kernels[name] = result
    got = _kernel_points(result, points, kernel.get("scoring"), gpu)
    status = "pass" if got >= points else ("partial" if got > 0 else "fail")
    said = {"pass": "Passed", "partial": "Partly passed"}.get(status, f"Failed: {result.reason}")
    if result.held:  # never run: 0 points, the status says why, the kept cell is the rest
        return Row(student, name, shown, PASSES, result.reason, 0.0,
                   f"Held for review ({result.message}).", points, None, "", "not run")
    if result.correct:
        said += ("; mechanism " + ("met" if result.mechanism else "not met")) if not gpu else \
            (f"; {result.share:.0%} of the {result.report.get('share_of') or 'reference time'}"
             if result.share is not None else "; not timed")
    said += f". {result.message}" if result.message else "."
    said += f" (checked on: {result.device})" if result.device else ""
    return Row(student, name, shown, PASSES, status, round(got, 4), said.strip(), points,
               result.share, _counters(result), "sandbox" if result.sandboxed else "no sandbox")


def grade_one(spec: dict, student: str, path: pathlib.Path | None, *, points: float = 1.0,
              close_points: float = 0.5, kernel: dict | None = None,
              key: bytes | None = None) -> Submission:
    """One student's rows and notes. Never raises for a bad notebook. ``kernel`` says how
    kernel challenges are checked: ``limits`` (:class:`exercises.challenges.Limits`),
    ``gpu``, ``engine`` (:class:`exercises.challenges.Engine`), ``sandboxed``, ``root`` (the
    book's), ``scoring`` and ``keep`` (a folder for the extracted cells). ``points`` is
    the default of each question (the assignment's ``points`` may set one per question);
    ``key`` the instructor's secret of a keyed assignment."""
    if not isinstance(spec, dict) or not {"assignment", "exercises", "students"} <= set(spec):
        raise TypeError(f"spec must be an assignment as load_spec() reads it, got {spec!r}"[:200])
    if not isinstance(student, str) or not student:
        raise TypeError(f"student must be a student's id, got {student!r}"[:200])
    if path is not None and not isinstance(path, pathlib.PurePath):
        raise TypeError(f"path must be a pathlib.Path or None, got {path!r}"[:200])
    for name, value in (("points", points), ("close_points", close_points)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0 \
                or value == float("inf"):
            raise ValueError(f"{name} must be a number >= 0, got {value!r}")
    sub = Submission(student, path)
    assignment = spec["assignment"]
    exercises = spec["exercises"]
    if student not in spec["students"] and spec["students"]:
        sub.notes.append(f"{student!r} is not on the assignment's roster.")
    cells: list[dict] = []
    problem = ""
    if path is None:
        problem = "no submission"
    else:
        try:
            nb = json.loads(roster.read_notebook(path, MAX_BYTES))
            cells = _cells(nb)
            owner = (nb.get("metadata") or {}).get(METADATA_KEY, {}) or {}
            if isinstance(owner, dict) and owner.get("student") not in (None, student):
                sub.notes.append(f"This notebook was made for {str(owner['student'])[:64]!r}; "
                                 f"it is graded with {student}'s numbers.")
            problem = _other_version(spec, owner if isinstance(owner, dict) else {}, cells)
        except (OSError, ValueError, RecursionError, UnicodeDecodeError) as exc:
            problem = f"the notebook cannot be read: {exc}"[:300]
    if problem:
        sub.notes.append(problem[:1].upper() + problem[1:] + ".")
    else:
        _notes(spec, student, cells, sub)
    for ex in exercises:
        id = ex["id"]
        pts = float((spec.get("points") or {}).get(id, points))
        if ex["kind"] == "challenge":
            sub.rows.append(_grade_kernel(ex, student, cells, problem, path, sub, pts,
                                          kernel or {}))
            continue
        if ex["kind"] == "written":
            text = ""
            if not problem:
                cell = _find(cells, "written", id) or _written_by_position(cells, id)
                text = re.sub(r"^\s*\*Your answer:\*\s*", "", _source(cell)).strip() if cell else ""
            sub.written[id] = text
            status = "by hand" if text else ("invalid" if path and problem else "missing")
            sub.rows.append(Row(student, id, text[:200], "", status, None,
                                "Graded by hand (see the rubric)." if text
                                else problem or "No answer written.", pts))
            continue
        try:
            inst = expected(id, assignment, student, bool(ex.get("varied")), key)
        except ValueError as exc:  # the exercise left the book since the assignment
            sub.rows.append(Row(student, id, "", "", "invalid", 0.0, f"cannot grade: {exc}", pts))
            continue
        truth = _fmt(inst.answer)
        if problem:
            sub.rows.append(Row(student, id, "", truth, "missing" if path is None else "invalid",
                                0.0, problem, pts))
            continue
        cell = _find(cells, "answer", id)
        if cell is None:  # metadata lost: the last code cell assigning the answer variable
            name = variable(id)
            cands = [c for c in cells if c.get("cell_type") == "code"
                     and re.search(rf"^\s*{name}\s*[:=]", _source(c), re.M)]
            cell = cands[-1] if cands else None
        if cell is None:
            sub.rows.append(Row(student, id, "", truth, "missing", 0.0,
                                f"no answer cell (`{variable(id)} = ...`) in the notebook", pts))
            continue
        reading = read_answer(_source(cell), id)
        raised = _raised(cell)
        if reading.status != "answered":
            msg = reading.message + (f" (when you ran it, the cell raised {raised})"
                                     if raised else "")
            status = "missing" if reading.status == "empty" else "invalid"
            shown = "" if reading.status == "empty" else reading.text
            sub.rows.append(Row(student, id, shown, truth, status, 0.0, msg, pts))
            continue
        verdict = judge(inst.exercise, reading.value, inst.answer)
        msg = str(verdict) + (f" (Note: when you ran it, the cell raised {raised}.)"
                              if raised else "")
        sub.rows.append(Row(student, id, reading.text, truth, verdict.status,
                            _points(verdict.status, pts, close_points), msg, pts))
    return sub


def _other_version(spec: dict, owner: dict, cells: list[dict]) -> str:
    """Why the notebook was made against another version of the book than the one the
    assignment pins ("" when it was not): its own metadata, or its set-up cell's pin."""
    want = spec.get("book_commit") or ""
    if not want:
        return ""
    said = owner.get("book_commit")
    if isinstance(said, str) and said and said != want:
        return (f"the notebook was made against the book at commit {said[:12]}, and the "
                f"assignment pins {want[:12]}: hand in the notebook of this assignment")
    for c in cells:
        if _meta(c).get("role") == "setup":
            pin = pinned_commit(_source(c))
            if pin and pin != want:
                return (f"its set-up cell installs the book at commit {pin[:12]}, and the "
                        f"assignment pins {want[:12]}: hand in the notebook of this "
                        "assignment")
    return ""


def _notes(spec: dict, student: str, cells: list[dict], sub: Submission) -> None:
    """What is wrong with the notebook itself: another student's, edited or deleted cells,
    a changed seed."""
    ids = {ex["id"]: ex for ex in spec["exercises"]}
    made_for = [c for c in cells if _meta(c).get("role") == "intro"]
    digests = spec.get("digests", {}).get(student) or {}
    for c in cells:
        m = _meta(c)
        role, id = m.get("role"), m.get("id")
        key = f"{role}-{id}" if id else str(role)
        want = digests.get(key)
        if want and digest(_source(c)) != want:
            what = f"the {role} cell of {id}" if id else f"the {role} cell"
            sub.notes.append(f"{what[:1].upper() + what[1:]} was edited.")
        if role == "question" and id in ids and ids[id].get("varied") and "seed" in m:
            if m.get("seed") != variants.seed(spec["assignment"], student, id):
                sub.notes.append(f"The seed of {id} was changed: it is graded with your own "
                                 "numbers.")
    for ex in spec["exercises"]:
        role = {"numeric": "answer", "challenge": "challenge"}.get(ex["kind"], "written")
        if _find(cells, "question", ex["id"]) is None:
            sub.notes.append(f"The question cell of {ex['id']} is missing.")
        if _find(cells, role, ex["id"]) is None:
            sub.notes.append(f"The {role} cell of {ex['id']} is missing (its metadata is gone).")
    if not made_for:
        sub.notes.append("The notebook's introduction cell is missing.")


def _feedback(sub: Submission, spec: dict) -> str:
    kinds = {ex["id"]: ex["kind"] for ex in spec["exercises"]}
    numeric = [r for r in sub.rows if r.points is not None and kinds.get(r.exercise) != "challenge"]
    kernels = [r for r in sub.rows if kinds.get(r.exercise) == "challenge"]
    got = sum(r.points or 0 for r in numeric)
    out = [f"# {spec.get('title') or spec['assignment']}: feedback for {sub.student}", ""]
    if numeric or not kernels:
        out.append(f"Numeric questions: {got:g} point(s) of {sum(r.out_of for r in numeric):g}.")
    if kernels:
        out.append(f"Kernel challenges: {sum(r.status == 'pass' for r in kernels)} passed "
                   f"of {len(kernels)} ({sum(r.points or 0 for r in kernels):g} point(s) of "
                   f"{sum(r.out_of for r in kernels):g}).")
    if sub.late:
        out.append(f"Handed in late: {sub.late}.")
    written = [r for r in sub.rows if r.points is None]
    if written:
        out.append(f"Written questions: {len(written)}, graded by hand.")
    if sub.notes:
        out += ["", "## About the notebook", ""] + [f"- {n}" for n in sub.notes]
    out += ["", "## Each question", ""]
    for r in sub.rows:
        pts = "" if r.points is None else f" ({r.points:g} point(s))"
        ans = f" Your answer: `{' '.join(r.answer.split())}`." \
            if r.answer and kinds.get(r.exercise) != "challenge" else ""
        out.append(f"- **{r.exercise}**: {r.status}{pts}.{ans} {r.message}".rstrip())
    return "\n".join(out) + "\n"


def _rubric(spec: dict, subs: list[Submission], questions: dict) -> str:
    """The written questions, the book's model answers (from ``rubric.json``, written by
    ``assign``: no book-building code runs here) and every student's answer, escaped."""
    written = [ex for ex in spec["exercises"] if ex["kind"] == "written"]
    title = spec.get("title") or spec["assignment"]
    out = [f"# {title}: rubric for the written questions", ""]
    if not written:
        return "\n".join(out + ["This assignment has no written questions."]) + "\n"
    out += [f"Give each answer its points in `{HAND}` (student,exercise,points,comment) or "
            "in a CSV passed with `--hand`; they are kept across regrades.", ""]
    for ex in written:
        id = ex["id"]
        q = questions.get(id) if isinstance(questions.get(id), dict) else {}
        out += [f"## {id}", "", str(q.get("question") or "(question text not recorded)"), ""]
        if q.get("model"):
            out += ["**Model answer (the book's solution):**", ""]
            out += [f"> {line}".rstrip() for line in str(q["model"]).splitlines()] + [""]
        out += ["**Students' answers:**", ""]
        for sub in subs:
            text = sub.written.get(id, "")
            shown = html.escape(" ".join(text.split())) if text else "*(none)*"
            out += [f"- **{html.escape(sub.student)}**: {shown}"]
        out.append("")
    return "\n".join(out)


def _safe(name: str) -> str:
    """A student id as a file name: unchanged when it is one already (letters, digits and
    ``_.@+-``, not starting with a dot, at most 128 characters), else its safe characters
    and the first 12 hex digits of its SHA-256, so that no two ids share a name (``.bob``
    and ``a b`` cannot overwrite ``bob``'s and ``a_b``'s kept kernel and feedback)."""
    safe = re.sub(r"[^A-Za-z0-9_.@+-]", "_", name)[:128].lstrip(".")
    if safe == name and name:
        return name
    return f"{safe[:100] or '_'}~{hashlib.sha256(name.encode()).hexdigest()[:12]}"


def _load_key(spec: dict, key: bytes | None) -> bytes | None:
    """The key a keyed assignment is graded with (ValueError naming ``key`` when it is
    missing or is another one)."""
    want = spec.get("key_fingerprint")
    if not want:
        return None
    if key is None:
        try:
            key = secret.read(secret.default_path(spec.get("course") or secret.COURSE))
        except ValueError as exc:
            raise ValueError(f"key: this assignment's numbers derive from the instructor's "
                             f"key; give it with --key ({exc})") from None
    if secret.fingerprint(key) != want:
        raise ValueError("key: this is not the key the assignment was made with (its "
                         "fingerprint differs)")
    return key


def _when(text: str, what: str) -> datetime.datetime:
    """An ISO date-time (a date alone is its end of day; no zone: UTC)."""
    try:
        t = datetime.datetime.fromisoformat(str(text).strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{what} must be an ISO date or date-time "
                         f"(2026-03-01T23:59+01:00), got {text!r}") from None
    if len(str(text).strip()) == 10:
        t = t.replace(hour=23, minute=59, second=59)
    return t if t.tzinfo else t.replace(tzinfo=datetime.timezone.utc)


def late_flags(due: str | None, submitted: str | pathlib.Path | None,
               students: list[str]) -> dict[str, str]:
    """Student -> "late by 2 h 5 min" for each submission time (a CSV with a student
    column and a time column: "submitted", "submission time", "time" or "date") after
    ``due``."""
    if not due or submitted is None:
        return {}
    deadline = _when(due, "due")
    try:
        rows = list(csv.DictReader(pathlib.Path(submitted).read_text(encoding="utf-8-sig")
                                   .splitlines()))
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"submitted: cannot read {submitted} ({exc})") from None
    names = {k.strip().lower(): k for k in (rows[0].keys() if rows else [])}
    who = next((names[k] for k in roster.ID_COLUMNS if k in names), None)
    when = next((names[k] for k in ("submitted", "submission time", "submitted at", "time",
                                    "date", "created_at") if k in names), None)
    if who is None or when is None:
        raise ValueError(f"submitted: {submitted} needs a student column and a time column "
                         f"(it has {', '.join(names) or 'none'})")
    out = {}
    for r in rows:
        s = (r.get(who) or "").strip()
        if s in students and (r.get(when) or "").strip():
            t = _when(r[when], f"submitted ({s})")
            if t > deadline:
                m = math.ceil((t - deadline).total_seconds() / 60)
                out[s] = f"late by {m // 60} h {m % 60} min" if m >= 60 else f"late by {m} min"
    return out


def _read_hand(path: pathlib.Path) -> dict[tuple[str, str], tuple[float, str]]:
    """(student, exercise) -> (points, comment) from a CSV with those columns."""
    try:
        rows = list(csv.DictReader(path.read_text(encoding="utf-8-sig").splitlines()))
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"hand: cannot read {path} ({exc})") from None
    out = {}
    for i, r in enumerate(rows, 2):
        r = {(k or "").strip().lower(): (v or "").strip() for k, v in r.items()}
        try:
            pts = float(r["points"])
            if not math.isfinite(pts) or pts < 0:
                raise ValueError
            out[(r["student"], r["exercise"])] = (pts, r.get("comment", ""))
        except (KeyError, ValueError):
            raise ValueError(f"hand: {path} line {i}: needs student, exercise and points "
                             "(a number >= 0)") from None
    return out


def _write_hand(path: pathlib.Path, scores: dict) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(("student", "exercise", "points", "comment"))
        for (s, e), (p, c) in sorted(scores.items()):
            w.writerow((_cell(s), e, f"{p:g}", _cell(c)))


def _apply_hand(subs: list[Submission], scores: dict) -> None:
    for sub in subs:
        for r in sub.rows:
            if (sub.student, r.exercise) in scores:
                pts, comment = scores[(sub.student, r.exercise)]
                r.points, r.status = pts, "graded by hand"
                r.message = f"Graded by hand: {pts:g} point(s)." \
                    + (f" {comment}" if comment else "")


def _old_rows(out: pathlib.Path, keep_out: str) -> tuple[list[dict], dict]:
    """The gradebook rows and challenge checks of every student but ``keep_out`` from the
    last grading (a one-student regrade keeps them)."""
    try:
        with open(out / "gradebook.csv", newline="") as f:
            rows = [r for r in csv.DictReader(f) if r["student"] != keep_out]
    except OSError:
        raise ValueError(f"only: there is no earlier gradebook in {out} to regrade "
                         f"{keep_out} into") from None
    try:
        checks = json.loads((out / "challenges.json").read_text()).get("checks", {})
    except (OSError, ValueError):
        checks = {}
    checks.pop(keep_out, None)
    return rows, checks


def grade(spec_path: str | pathlib.Path, folder: str | pathlib.Path,
          out: str | pathlib.Path, *, points: float = 1.0, close_points: float = 0.5,
          root: pathlib.Path = _catalog.ROOT, glued: dict[str, dict] | None = None,
          limits: challenges.Limits | None = None, gpu: bool = False,
          checker: list[str] | None = None, log=None, engine: challenges.Engine | None = None,
          sandboxed: bool = True, key: bytes | None = None, jobs: int = 1,
          only: str | None = None, hand: str | pathlib.Path | None = None,
          due: str | None = None, submitted: str | pathlib.Path | None = None,
          machine: str = "T4", review: bool = True) -> list[Submission]:
    """Grade every notebook in ``folder`` (and list the roster's students who handed in
    nothing) and write the files listed in the module's docstring under ``out``.

    Kernel challenges are checked in the sandbox (:func:`exercises.challenges.run_check`)
    under ``limits`` (default: 60 s and 4 GiB on the simulator, no memory limit with
    ``gpu``), ``jobs`` students at a time; ``sandboxed=False`` runs them without one (the
    gradebook says so). ``key``: the instructor's secret of a keyed assignment (default:
    the course's key file). ``only``: regrade that one student, keeping the others' rows.
    ``hand``: a CSV of scores given by hand, merged into ``<out>/hand_scores.csv``.
    ``due`` (ISO date-time, default the assignment's) and ``submitted`` (a CSV of
    submission times) flag late work. ``log`` hears of each student as they are graded.
    ``review=False`` runs every kernel cell the sandbox takes, without first holding for
    review those :mod:`exercises.policy` would (the hostile tests try the sandbox alone).
    ``glued`` is accepted for older callers and unused."""
    if not 0 <= close_points <= 1:
        raise ValueError(f"close_points must be in [0, 1], got {close_points!r}")
    if not 0 < points < float("inf"):
        raise ValueError(f"points must be a positive number, got {points!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= 64:
        raise ValueError(f"jobs must be a whole number from 1 to 64, got {jobs!r}")
    spec = load_spec(spec_path)
    key = _load_key(spec, key)
    found, warnings = roster.match(submissions(folder), list(spec["students"]))
    students = list(spec["students"]) + sorted(set(found) - set(spec["students"]))
    if not students:
        raise ValueError(f"submissions: no .ipynb in {folder} and no roster in the assignment")
    if only is not None and only not in students:
        raise ValueError(f"only: {only!r} is neither on the roster nor among the submissions")
    todo = [only] if only is not None else students
    kernels = [ex["id"] for ex in spec["exercises"] if ex["kind"] == "challenge"]
    if kernels:  # the checker itself must work before any student is judged by it
        known = challenges.names(checker, root)
        gone = [k for k in kernels if k not in known]
        if gone:
            raise ValueError(f"assignment: the challenges {', '.join(gone)} are not in "
                             f"`challenge list` ({', '.join(known) or 'none'})")
        engine = engine or challenges.Engine()
        if sandboxed:
            why = challenges.sandbox.probe(pathlib.Path(root), gpu, engine.code, engine.hidden)
            if why:
                raise ValueError(f"sandbox: {why}. The grader does not run students' code "
                                 "without it; --no-sandbox runs it anyway (recorded in the "
                                 "gradebook)")
    if limits is None:
        limits = challenges.Limits(memory_bytes=None) if gpu else challenges.Limits()
    out = pathlib.Path(out)
    old_rows, old_checks = _old_rows(out, only) if only is not None else ([], {})
    kernel = {"limits": limits, "gpu": gpu, "engine": engine, "root": root,
              "keep": out / KERNELS, "sandboxed": sandboxed, "machine": machine,
              "review": review,
              "scoring": spec.get("scoring")}
    flags = late_flags(due or spec.get("due"), submitted, students)

    def one(student: str) -> Submission:
        if log is not None:
            log(f"grading {student}")
        try:
            sub = grade_one(spec, student, found.get(student), points=points,
                            close_points=close_points, kernel=kernel, key=key)
        except ValueError:
            raise
        except Exception as exc:  # noqa: BLE001 (a bug here must not stop the others)
            sub = Submission(student, found.get(student))
            sub.notes.append(f"The grader failed on this notebook ({type(exc).__name__}: {exc}); "
                             "grade it by hand and report the bug.")
            sub.rows = [Row(student, ex["id"], "", "", "invalid", 0.0, sub.notes[-1])
                        for ex in spec["exercises"]]
        sub.late = flags.get(student, "")
        return sub

    if jobs == 1:
        subs = [one(s) for s in todo]
    else:
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            subs = list(pool.map(one, todo))
    for w in warnings:
        for sub in subs:
            if sub.path is not None and w.startswith(sub.path.name + ":"):
                said = w[len(sub.path.name) + 2:]
                sub.notes.append(f"{said[:1].upper()}{said[1:]} ({sub.path.name}).")
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    scores = _read_hand(out / HAND) if (out / HAND).exists() else {}
    if hand is not None:
        scores.update(_read_hand(pathlib.Path(hand)))
    _write_hand(out / HAND, scores)
    _apply_hand(subs, scores)
    rows = old_rows + [dict(zip(COLUMNS, r.csv())) for sub in subs for r in sub.rows]
    order = {s: i for i, s in enumerate(students)}
    rows.sort(key=lambda r: order.get(r["student"], len(order)))
    _write_books(out, spec, rows, {s.student: s.late for s in subs}, students)
    for sub in subs:
        (out / "feedback" / f"{_safe(sub.student)}.md").write_text(_feedback(sub, spec))
    try:
        questions = json.loads((pathlib.Path(_load_spec_path(spec_path)).parent / RUBRIC)
                               .read_text())
    except (OSError, ValueError):
        questions = {}
    (out / "rubric.md").write_text(_rubric(spec, subs, questions))
    if kernels:
        checks = dict(old_checks)
        checks.update({sub.student: {name: {
            "passed": r.passed, "reason": r.reason, "message": r.message, "device": r.device,
            "wall_s": round(r.wall_s, 3), "exit_status": r.returncode, "sandboxed": r.sandboxed,
            "correct": r.correct, "mechanism": r.mechanism, "share": r.share,
            "verdict": r.report} for name, r in sub.kernels.items()} for sub in subs})
        (out / "challenges.json").write_text(json.dumps(
            {"gpu": gpu, "sandboxed": sandboxed, "wall_s": limits.wall_s, "cpu_s": limits.cpu,
             "memory_bytes": limits.memory_bytes, "checks": checks}, indent=1,
            default=str) + "\n")
    (out / "grading.json").write_text(json.dumps({
        "assignment": spec["assignment"], "sandboxed": sandboxed,
        "sandbox": challenges.sandbox.backend() if sandboxed and kernels else "", "gpu": gpu,
        "limits": {"wall_s": limits.wall_s, "cpu_s": limits.cpu,
                   "memory_bytes": limits.memory_bytes, "output_bytes": limits.output_bytes,
                   "processes": limits.processes},
        "key_fingerprint": spec.get("key_fingerprint"), "book_commit": spec.get("book_commit"),
        "grader_commit": _head(root), "only": only, "jobs": jobs, "warnings": warnings,
        "graded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }, indent=1) + "\n")
    return subs


def _load_spec_path(path: str | pathlib.Path) -> pathlib.Path:
    p = pathlib.Path(path)
    return p / SPEC if p.is_dir() else p


def _head(root: pathlib.Path) -> str:
    from .assign import _book_commit

    return _book_commit(pathlib.Path(root))


def _write_books(out: pathlib.Path, spec: dict, rows: list[dict], late: dict[str, str],
                 students: list[str]) -> None:
    """gradebook.csv (long), totals.csv and grades_wide.csv (one row a student)."""
    with open(out / "gradebook.csv", "w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    ids = [ex["id"] for ex in spec["exercises"]]
    by: dict[str, dict[str, dict]] = {}
    for r in rows:
        by.setdefault(r["student"], {})[r["exercise"]] = r
    old_late = {}
    try:
        with open(out / "totals.csv", newline="") as f:
            old_late = {r["student"]: r.get("late", "") for r in csv.DictReader(f)}
    except OSError:
        pass

    def num(x: str) -> float:
        try:
            return float(x)
        except (TypeError, ValueError):
            return 0.0

    order = [s for s in students if s in by] + [s for s in by if s not in students]
    with open(out / "totals.csv", "w", newline="") as f, \
            open(out / "grades_wide.csv", "w", newline="") as g:
        t, wd = csv.writer(f), csv.writer(g)
        t.writerow(("student", "points", "out_of", "to_grade_by_hand", "late"))
        wd.writerow((spec.get("id_column") or "student", *ids, "total", "out_of", "late"))
        for s in order:
            mine = by[s]
            graded = [r for r in mine.values() if r["points"] != ""]
            total = sum(num(r["points"]) for r in graded)
            out_of = sum(num(r["out_of"]) for r in graded)
            flag = late.get(s, old_late.get(s, ""))
            t.writerow((_cell(s), f"{total:g}", f"{out_of:g}",
                        sum(r["status"] == "by hand" for r in mine.values()), flag))
            wd.writerow((_cell(s), *[mine.get(i, {}).get("points", "") for i in ids],
                         f"{total:g}", f"{out_of:g}", flag))
