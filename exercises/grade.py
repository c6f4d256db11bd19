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
it. The challenge cell's text (never its outputs) is written to a file and checked by
``python -m labs challenge check`` in a separate, contained process, one student at a
time (:mod:`exercises.challenges`: time and memory limits, a bare environment, the CUDA
simulator unless ``--gpu``); a hang, a crash or a limit reached is a *fail* with its
reason.

It writes, under ``--out``:

- ``gradebook.csv``: one row per student and exercise: student, exercise, answer,
  expected, status, points. Status is ``right``, ``close``, ``wrong``, ``invalid`` (not a
  number, or a notebook that cannot be read), ``missing`` (no answer, no answer cell, no
  submission) or ``by hand`` (a written exercise: see the rubric); a kernel challenge is
  ``pass`` or ``fail`` (``missing`` when its cell is gone or is the starter untouched),
  its answer the path of the extracted cell under ``kernels/``;
- ``totals.csv``: student, points, out_of (numeric exercises), to_grade_by_hand;
- ``feedback/<student>.md``: each answer with the checker's message, and what was wrong
  with the notebook itself (edited or deleted cells, a changed seed, another student's
  notebook);
- ``rubric.md``: each written exercise with the book's model solution and every
  student's answer, for grading by hand;
- with kernel challenges, ``kernels/<student>/<challenge>.py`` (each extracted cell) and
  ``challenges.json`` (the limits, and each check's verdict, reason and message).
"""
from __future__ import annotations

import csv
import json
import pathlib
import re
from dataclasses import dataclass, field

from . import _catalog, challenges, variants
from .assign import METADATA_KEY, SPEC, digest, expected, render
from .notebook import read_answer, variable
from .registry import judge

#: What the gradebook's ``expected`` column says for a kernel challenge.
PASSES = "passes its check"
#: Where ``grade`` writes each student's extracted kernel cells, under ``--out``.
KERNELS = "kernels"
#: Largest submission read (bytes); a notebook of answers is a few hundred kB at most.
MAX_BYTES = 50 * 2 ** 20
COLUMNS = ("student", "exercise", "answer", "expected", "status", "points")


@dataclass
class Row:
    student: str
    exercise: str
    answer: str
    expected: str
    status: str
    points: float | None
    message: str = ""

    def csv(self) -> list[str]:
        pts = "" if self.points is None else f"{self.points:g}"
        return [_cell(self.student), self.exercise, _cell(self.answer), self.expected,
                self.status, pts]


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
    ``<folder>/<student>/``."""
    if not isinstance(folder, (str, pathlib.PurePath)):
        raise TypeError(f"folder must be a folder of notebooks, got {folder!r}"[:200])
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        raise ValueError(f"submissions must be a folder of notebooks; {folder} is not a folder")
    found: dict[str, pathlib.Path] = {}
    for p in sorted(folder.iterdir()):
        if p.is_file() and p.suffix == ".ipynb":
            found[p.stem] = p
        elif p.is_dir():
            books = sorted(p.glob("*.ipynb"), key=lambda q: (q.stat().st_mtime, q.name))
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


def _grade_kernel(ex: dict, student: str, cells: list[dict], problem: str,
                  path: pathlib.Path | None, sub: Submission, points: float,
                  kernel: dict) -> Row:
    """One kernel challenge's row: the challenge cell's text (never its outputs) checked
    in a contained process (:func:`exercises.challenges.run_check`)."""
    name = ex["id"]
    if problem:
        return Row(student, name, "", PASSES, "missing" if path is None else "invalid", 0.0,
                   problem)
    cell = _kernel_cell(cells, name)
    if cell is None:
        return Row(student, name, "", PASSES, "missing", 0.0,
                   f"no challenge cell (`{challenges.marker(name)}`) in the notebook")
    source = _source(cell)
    if challenges.digest_code(source) == ex.get("starter_digest"):
        return Row(student, name, "", PASSES, "missing", 0.0,
                   "the starting kernel, handed back unchanged: not checked")
    keep = kernel.get("keep")
    shown = f"{KERNELS}/{_safe(student)}/{name}.py" if keep else \
        f"(kernel cell, {len(source.splitlines())} lines)"
    result = challenges.run_check(
        name, source, limits=kernel.get("limits"), gpu=bool(kernel.get("gpu")),
        checker=kernel.get("checker"), root=kernel.get("root", _catalog.ROOT),
        keep=pathlib.Path(keep) / _safe(student) / f"{name}.py" if keep else None)
    sub.kernels[name] = result
    said = "Passed its check" if result.passed else f"Failed: {result.reason}"
    said += f". {result.message[:1].upper()}{result.message[1:]}" if result.message else ""
    said += f" (checked on: {result.device})." if result.device else "."
    return Row(student, name, shown, PASSES, "pass" if result.passed else "fail",
               points if result.passed else 0.0, said)


def grade_one(spec: dict, student: str, path: pathlib.Path | None, *, points: float = 1.0,
              close_points: float = 0.5, kernel: dict | None = None) -> Submission:
    """One student's rows and notes. Never raises for a bad notebook. ``kernel`` says how
    kernel challenges are checked: ``limits`` (:class:`exercises.challenges.Limits`),
    ``gpu``, ``checker`` (the challenges' command), ``root`` (the book's, on the check's
    PYTHONPATH) and ``keep`` (a folder for the extracted cells)."""
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
            if path.stat().st_size > MAX_BYTES:
                raise ValueError(f"the file is larger than {MAX_BYTES // 2 ** 20} MiB")
            nb = json.loads(path.read_bytes())
            cells = _cells(nb)
            owner = (nb.get("metadata") or {}).get(METADATA_KEY, {}) or {}
            if isinstance(owner, dict) and owner.get("student") not in (None, student):
                sub.notes.append(f"This notebook was made for {str(owner['student'])[:64]!r}; "
                                 f"it is graded with {student}'s numbers.")
        except (OSError, ValueError, RecursionError, UnicodeDecodeError) as exc:
            problem = f"the notebook cannot be read: {exc}"[:300]
    if problem:
        sub.notes.append(problem[:1].upper() + problem[1:] + ".")
    else:
        _notes(spec, student, cells, sub)
    for ex in exercises:
        id = ex["id"]
        if ex["kind"] == "challenge":
            sub.rows.append(_grade_kernel(ex, student, cells, problem, path, sub, points,
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
                                else problem or "No answer written."))
            continue
        try:
            inst = expected(id, assignment, student, bool(ex.get("varied")))
        except ValueError as exc:  # the exercise left the book since the assignment
            sub.rows.append(Row(student, id, "", "", "invalid", 0.0, f"cannot grade: {exc}"))
            continue
        truth = _fmt(inst.answer)
        if problem:
            sub.rows.append(Row(student, id, "", truth, "missing" if path is None else "invalid",
                                0.0, problem))
            continue
        cell = _find(cells, "answer", id)
        if cell is None:  # metadata lost: the last code cell assigning the answer variable
            name = variable(id)
            cands = [c for c in cells if c.get("cell_type") == "code"
                     and re.search(rf"^\s*{name}\s*[:=]", _source(c), re.M)]
            cell = cands[-1] if cands else None
        if cell is None:
            sub.rows.append(Row(student, id, "", truth, "missing", 0.0,
                                f"no answer cell (`{variable(id)} = ...`) in the notebook"))
            continue
        reading = read_answer(_source(cell), id)
        raised = _raised(cell)
        if reading.status != "answered":
            msg = reading.message + (f" (when you ran it, the cell raised {raised})"
                                     if raised else "")
            status = "missing" if reading.status == "empty" else "invalid"
            shown = "" if reading.status == "empty" else reading.text
            sub.rows.append(Row(student, id, shown, truth, status, 0.0, msg))
            continue
        verdict = judge(inst.exercise, reading.value, inst.answer)
        msg = str(verdict) + (f" (Note: when you ran it, the cell raised {raised}.)"
                              if raised else "")
        sub.rows.append(Row(student, id, reading.text, truth, verdict.status,
                            _points(verdict.status, points, close_points), msg))
    return sub


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
        out.append(f"Numeric questions: {got:g} point(s) of {len(numeric):g}.")
    if kernels:
        out.append(f"Kernel challenges: {sum(r.status == 'pass' for r in kernels)} passed "
                   f"of {len(kernels)} ({sum(r.points or 0 for r in kernels):g} point(s)).")
    written = [r for r in sub.rows if r.points is None]
    if written:
        out.append(f"Written questions: {len(written)}, graded by hand.")
    if sub.notes:
        out += ["", "## About the notebook", ""] + [f"- {n}" for n in sub.notes]
    out += ["", "## Each question", ""]
    for r in sub.rows:
        pts = "" if r.points is None else f" ({r.points:g} point(s))"
        ans = f" Your answer: `{' '.join(r.answer.split())}`." if r.answer else ""
        out.append(f"- **{r.exercise}**: {r.status}{pts}.{ans} {r.message}".rstrip())
    return "\n".join(out) + "\n"


def _rubric(spec: dict, subs: list[Submission], root: pathlib.Path,
            glued: dict[str, dict] | None) -> str:
    written = [ex for ex in spec["exercises"] if ex["kind"] == "written"]
    title = spec.get("title") or spec["assignment"]
    out = [f"# {title}: rubric for the written questions", ""]
    if not written:
        return "\n".join(out + ["This assignment has no written questions."]) + "\n"
    from .assign import _scripts, glued_values

    make_notebooks, cm = _scripts()
    titles = make_notebooks.reference_titles(root)
    found = {d.label: d for d in _catalog.exercises(root)}
    sols = {d.label: d for d in _catalog.solutions(root)}
    chapters = sorted({found[ex["id"]].chapter for ex in written if ex["id"] in found})
    if glued is None:
        need = [c for c in chapters
                if any(cm.glue_references(d.body) for d in list(found.values()) + list(sols.values())
                       if d.chapter == c and d.label in {e["id"] for e in written})]
        glued = glued_values(need, root) if need else {}
    for ex in written:
        id = ex["id"]
        out += [f"## {id}", ""]
        d = found.get(id)
        if d is None:
            out += ["(This exercise is no longer in the book.)", ""]
            continue
        out += [render(d, glued.get(d.chapter), titles), ""]
        s = sols.get(id)
        if s is not None:
            body = cm.colab_markdown(s.body, glued=glued.get(d.chapter) or {},
                                     where=f"chapters/{d.chapter}.md", targets=titles).strip()
            out += ["**Model answer (the book's solution):**", ""]
            out += [f"> {line}".rstrip() for line in body.splitlines()] + [""]
        out += ["**Students' answers:**", ""]
        for sub in subs:
            text = sub.written.get(id, "")
            out += [f"- **{sub.student}**: " + (" ".join(text.split()) if text else "*(none)*")]
        out.append("")
    return "\n".join(out)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:80] or "_"


def grade(spec_path: str | pathlib.Path, folder: str | pathlib.Path,
          out: str | pathlib.Path, *, points: float = 1.0, close_points: float = 0.5,
          root: pathlib.Path = _catalog.ROOT, glued: dict[str, dict] | None = None,
          limits: challenges.Limits | None = None, gpu: bool = False,
          checker: list[str] | None = None, log=None) -> list[Submission]:
    """Grade every notebook in ``folder`` (and list the roster's students who handed in
    nothing) and write the gradebook, totals, feedback and rubric under ``out``.

    Kernel challenges are checked one student at a time, each in its own contained
    process (:func:`exercises.challenges.run_check`) under ``limits`` (default: 60 s and
    4 GiB on the simulator, no memory limit with ``gpu``), on the CUDA simulator unless
    ``gpu``; each student's extracted cells are kept under ``<out>/kernels/<student>/``
    and every check's verdict in ``<out>/challenges.json``. ``log`` (a callable taking a
    line) hears of each student as they are graded."""
    if not 0 <= close_points <= 1:
        raise ValueError(f"close_points must be in [0, 1], got {close_points!r}")
    if not 0 < points < float("inf"):
        raise ValueError(f"points must be a positive number, got {points!r}")
    spec = load_spec(spec_path)
    found = submissions(folder)
    students = list(spec["students"]) + sorted(set(found) - set(spec["students"]))
    if not students:
        raise ValueError(f"submissions: no .ipynb in {folder} and no roster in the assignment")
    kernels = [ex["id"] for ex in spec["exercises"] if ex["kind"] == "challenge"]
    if kernels:  # the checker itself must work before any student is judged by it
        known = challenges.names(checker, root)
        gone = [k for k in kernels if k not in known]
        if gone:
            raise ValueError(f"assignment: the challenges {', '.join(gone)} are not in "
                             f"`challenge list` ({', '.join(known) or 'none'})")
    if limits is None:
        limits = challenges.Limits(memory_bytes=None) if gpu else challenges.Limits()
    out = pathlib.Path(out)
    kernel = {"limits": limits, "gpu": gpu, "checker": checker, "root": root,
              "keep": out / KERNELS}
    subs = []
    for student in students:
        if log is not None:
            log(f"grading {student}")
        try:
            subs.append(grade_one(spec, student, found.get(student), points=points,
                                  close_points=close_points, kernel=kernel))
        except Exception as exc:  # noqa: BLE001 (a bug here must not stop the others)
            sub = Submission(student, found.get(student))
            sub.notes.append(f"The grader failed on this notebook ({type(exc).__name__}: {exc}); "
                             "grade it by hand and report the bug.")
            sub.rows = [Row(student, ex["id"], "", "", "invalid", 0.0, sub.notes[-1])
                        for ex in spec["exercises"]]
            subs.append(sub)
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    with open(out / "gradebook.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for sub in subs:
            w.writerows(r.csv() for r in sub.rows)
    with open(out / "totals.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(("student", "points", "out_of", "to_grade_by_hand"))
        for sub in subs:
            numeric = [r for r in sub.rows if r.points is not None]
            w.writerow((sub.student, f"{sum(r.points for r in numeric):g}",
                        f"{points * len(numeric):g}",
                        sum(r.status == "by hand" for r in sub.rows)))
    for sub in subs:
        (out / "feedback" / f"{_safe(sub.student)}.md").write_text(_feedback(sub, spec))
    (out / "rubric.md").write_text(_rubric(spec, subs, root, glued))
    if any(ex["kind"] == "challenge" for ex in spec["exercises"]):
        checks = {sub.student: {name: {"passed": r.passed, "reason": r.reason,
                                       "message": r.message, "device": r.device,
                                       "wall_s": round(r.wall_s, 3),
                                       "exit_status": r.returncode, "check": r.report}
                                for name, r in sub.kernels.items()} for sub in subs}
        (out / "challenges.json").write_text(json.dumps(
            {"gpu": gpu, "wall_s": limits.wall_s, "cpu_s": limits.cpu,
             "memory_bytes": limits.memory_bytes, "checks": checks}, indent=1) + "\n")
    return subs
