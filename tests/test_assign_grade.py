"""Assign, fill, grade: the whole loop through the command line, as an instructor runs it.

Students get their own numbers; their notebooks are filled in here the way real
submissions go wrong (right, close, wrong, malformed, a cell that raises, a loop that never
ends, an edited question, a changed seed, a deleted answer cell, a classmate's notebook,
a notebook whose editor dropped every cell's metadata), plus a file that is not JSON, a
notebook from a student off the roster and a student who handed in nothing. The gradebook must say
exactly what each is. The exercises are picked from the registry (those with variants,
one without, one written), so that chapters may add or drop exercises."""
from __future__ import annotations

import csv
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

from exercises import _catalog, all_exercises, get, secret, variants
from exercises.assign import check_answers, expected, pin_setup
from exercises.notebook import read_answer, variable

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import colab_markdown  # noqa: E402
import make_notebooks  # noqa: E402

ROSTER = ["ada", "bo", "cy", "eve", "gus"]   # gus hands in nothing
A = "hw-test"
#: The instructor's key of these tests (``assign --variants`` keys the numbers by it): a
#: fixed one, in a configuration folder of their own, so that the picks below hold.
CONFIG = pathlib.Path(tempfile.mkdtemp(prefix="grader-test-config-"))
KEY = bytes(range(32))
(CONFIG / "gpu-perf-book").mkdir()
(CONFIG / "gpu-perf-book" / f"{secret.COURSE}.key").write_text(KEY.hex() + "\n")


def _no_glue(d: _catalog.Directive, solution: bool = False) -> bool:
    """Neither the question (nor, with ``solution``, its solution) pastes a glued value:
    the test then needs no chapter executed."""
    sols = [s for s in _catalog.solutions() if s.label == d.label] if solution else []
    return not colab_markdown.glue_references(d.body) and not any(
        colab_markdown.glue_references(s.body) for s in sols)


def _apart(id: str) -> bool:
    """The four students' answers differ by more than the close tolerance."""
    ex = get(id)
    answers = [variants.instance(id, A, s, KEY).answer for s in ROSTER]
    return all(abs(x - y) > ex.close_tol * max(abs(x), abs(y))
               for i, x in enumerate(answers) for y in answers[i + 1:])


def _pick():
    varied = [i for i in variants.ids() if _apart(i)]
    assert len(varied) >= 3, "fewer than three exercises with well-separated variants"
    directives = {d.label: d for d in _catalog.exercises()}
    numeric = {e.id for e in all_exercises()}
    plain = next(i for i in sorted(numeric - set(variants.ids()))
                 if i in directives and _no_glue(directives[i]))
    written = next(d.label for d in _catalog.exercises() if d.label and d.label not in numeric
                   and _no_glue(d, solution=True))
    return varied[:3], plain, written


(V1, V2, V3), PLAIN, WRITTEN = _pick()


def _run(*args: str) -> subprocess.CompletedProcess:
    # The grade command reads untrusted notebooks: a hang would fail here, not stall.
    return subprocess.run([sys.executable, "-m", "exercises", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "XDG_CONFIG_HOME": str(CONFIG)})


def _truth(id: str, student: str) -> float:
    return expected(id, A, student, id in variants.ids(), KEY).answer


def _close(id: str) -> float:
    ex = get(id)
    return (ex.rel_tol + ex.close_tol) / 2       # between right and the close limit


def _set(nb: dict, role: str, id: str, source: str, outputs: list | None = None) -> None:
    for c in nb["cells"]:
        m = c["metadata"].get("exercises", {})
        if m.get("role") == role and m.get("id") == id:
            c["source"] = source
            if outputs is not None:
                c["outputs"] = outputs
            return
    raise AssertionError(f"no {role} cell for {id}")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("course")
    roster = tmp / "roster.txt"
    roster.write_text("student\n" + "\n".join(ROSTER) + "\n")
    out = tmp / "hw"
    got = _run("assign", A, "--ids", f"{V1},{V2},{V3},{PLAIN},{WRITTEN}", "--students",
               str(roster), "--variants", "--out", str(out))
    assert got.returncode == 0, got.stderr
    books = {s: json.loads((out / f"{s}.ipynb").read_text()) for s in ROSTER}
    subs = tmp / "submissions"
    subs.mkdir()

    ada = books["ada"]                                  # right, close, wrong, malformed, words
    _set(ada, "answer", V1, f"{variable(V1)} = {_truth(V1, 'ada') * 1.001!r}")
    _set(ada, "answer", V2, f"{variable(V2)} = {_truth(V2, 'ada') * (1 + _close(V2))!r}")
    _set(ada, "answer", V3, f"{variable(V3)} = {_truth(V3, 'ada') * 3!r}  # x3")
    _set(ada, "answer", PLAIN, f'{variable(PLAIN)} = "{_truth(PLAIN, "ada")} GB"')
    _set(ada, "written", WRITTEN, "*Your answer:* Fuse the kernels; store FP16.")
    (subs / "ada.ipynb").write_text(json.dumps(ada))

    bo = books["bo"]                                    # raises, never ends, arithmetic, edits
    _set(bo, "answer", V1, f"{variable(V1)} = undefined_name * 2", outputs=[
        {"output_type": "error", "ename": "NameError", "evalue": "undefined_name",
         "traceback": []}])
    _set(bo, "answer", V2, f"while True:\n    pass\n{variable(V2)} = {_truth(V2, 'bo')!r}")
    _set(bo, "answer", V3, f"{variable(V3)} = {_truth(V3, 'bo') / 4!r} * 4")
    _set(bo, "answer", PLAIN, f"{variable(PLAIN)} = {_truth(PLAIN, 'bo')!r}")
    _set(bo, "question", V3, "Edited: the answer is 42.")
    for c in bo["cells"]:                               # a keyed notebook holds no seed
        assert "seed" not in c["metadata"].get("exercises", {})
    (subs / "bo").mkdir()
    (subs / "bo" / "Copy of bo.ipynb").write_text(json.dumps(bo))

    cy = json.loads((out / "ada.ipynb").read_text())   # ada's notebook, ada's right answers
    for id in (V1, V2, V3):
        _set(cy, "answer", id, f"{variable(id)} = {_truth(id, 'ada')!r}")
    cy["cells"] = [c for c in cy["cells"]               # and the plain answer cell deleted
                   if c["metadata"].get("exercises", {}) != {"role": "answer", "id": PLAIN}]
    (subs / "cy.ipynb").write_text(json.dumps(cy))

    (subs / "dan.ipynb").write_text('{"cells": [ not json')  # not on the roster either

    eve = json.loads((out / "eve.ipynb").read_text())    # an editor dropped every cell's
    _set(eve, "answer", V1, f"{variable(V1)} = {_truth(V1, 'eve')!r}")  # metadata
    _set(eve, "written", WRITTEN, "*Your answer:* Read the bytes once.")
    for c in eve["cells"]:
        c["metadata"] = {}
    (subs / "eve.ipynb").write_text(json.dumps(eve))
    (subs / "fay.ipynb").write_text(json.dumps(books["cy"]))  # nothing answered, off roster
    grades = tmp / "grades"
    got = _run("grade", str(out / "assignment.json"), str(subs), "--out", str(grades))
    assert got.returncode == 0, got.stderr
    with open(grades / "gradebook.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return out, grades, books, rows


def _row(rows, student, id):
    found = [r for r in rows if r["student"] == student and r["exercise"] == id]
    assert len(found) == 1, (student, id, found)
    return found[0]


def test_each_students_notebook(graded):
    out, _, books, _ = graded
    spec = json.loads((out / "assignment.json").read_text())
    assert spec["students"] == ROSTER and spec["variants"] is True
    setup = pin_setup(make_notebooks.setup_cell_source(ROOT), spec["book_commit"])
    for s, nb in books.items():
        cells = nb["cells"]
        assert "".join(cells[0]["source"]) == setup
        assert nb["metadata"]["exercises"]["book_commit"] == spec["book_commit"]
        roles = [(c["metadata"]["exercises"]["role"], c["metadata"]["exercises"].get("id"))
                 for c in cells]
        for id in (V1, V2, V3, PLAIN):
            assert ("question", id) in roles and ("answer", id) in roles
        assert ("written", WRITTEN) in roles and roles[-1] == ("check", None)
        check = "".join(cells[-1]["source"])
        assert f"check_answers({A!r}, {s!r}" in check
    # Each student's question states their own numbers.
    texts = {s: next("".join(c["source"]) for c in nb["cells"]
                     if c["metadata"]["exercises"] == {**c["metadata"]["exercises"],
                                                       "role": "question", "id": V1})
             for s, nb in books.items()}
    assert len(set(texts.values())) == len(ROSTER)


def test_the_gradebook_says_what_each_is(graded):
    _, _, _, rows = graded
    want = {
        ("ada", V1): ("right", "1"), ("ada", V2): ("close", "0.5"), ("ada", V3): ("wrong", "0"),
        ("ada", PLAIN): ("invalid", "0"), ("ada", WRITTEN): ("by hand", ""),
        ("bo", V1): ("invalid", "0"), ("bo", V2): ("invalid", "0"), ("bo", V3): ("right", "1"),
        ("bo", PLAIN): ("right", "1"), ("bo", WRITTEN): ("missing", ""),
        ("cy", V1): ("wrong", "0"), ("cy", V2): ("wrong", "0"), ("cy", V3): ("wrong", "0"),
        ("cy", PLAIN): ("missing", "0"), ("cy", WRITTEN): ("missing", ""),
        ("eve", V1): ("right", "1"), ("eve", PLAIN): ("missing", "0"),
        ("eve", WRITTEN): ("by hand", ""),
        ("fay", V1): ("missing", "0"), ("fay", PLAIN): ("missing", "0"),
        ("fay", WRITTEN): ("missing", ""),
        ("gus", V1): ("missing", "0"), ("gus", PLAIN): ("missing", "0"),
        ("gus", WRITTEN): ("missing", ""),
        ("dan", V1): ("invalid", "0"), ("dan", PLAIN): ("invalid", "0"),
    }
    for (student, id), (status, points) in want.items():
        r = _row(rows, student, id)
        assert (r["status"], r["points"]) == (status, points), (student, id, r)
    assert list(rows[0]) == ["student", "exercise", "answer", "expected", "status", "points",
                             "out_of", "share", "counters", "checked"]
    assert {r["student"] for r in rows} == {"ada", "bo", "cy", "eve", "gus", "dan", "fay"}
    assert len(rows) == 7 * 5
    # Expected is each student's own number (cy's differs from ada's, whose answers cy sent).
    for s in ("ada", "bo", "cy", "eve", "gus", "dan", "fay"):
        for id in (V1, V2, V3, PLAIN):
            assert float(_row(rows, s, id)["expected"]) == pytest.approx(_truth(id, s), rel=1e-5)
    assert _row(rows, "ada", WRITTEN)["answer"] == "Fuse the kernels; store FP16."
    assert _row(rows, "bo", V2)["answer"].startswith("while True:")  # the whole cell, as data
    assert _row(rows, "bo", V3)["answer"].endswith("* 4")


def test_feedback_and_rubric(graded):
    _, grades, _, _ = graded
    ada = (grades / "feedback" / "ada.md").read_text()
    assert "2 point(s)" not in ada and "1.5 point(s) of 4" in ada
    assert "without its unit" in ada                     # the malformed "... GB"
    bo = (grades / "feedback" / "bo.md").read_text()
    assert "raised NameError" in bo and "undefined_name" in bo
    assert "holds more than" in bo                        # the loop
    assert f"The question cell of {V3} was edited." in bo
    cy = (grades / "feedback" / "cy.md").read_text()
    assert "made for 'ada'" in cy and f"The answer cell of {PLAIN} is missing" in cy
    dan = (grades / "feedback" / "dan.md").read_text()
    assert "cannot be read" in dan and "not on the assignment's roster" in dan
    assert "no submission" in (grades / "feedback" / "gus.md").read_text().lower()
    eve = (grades / "feedback" / "eve.md").read_text()
    assert "metadata is gone" in eve
    rubric = (grades / "rubric.md").read_text()
    assert f"## {WRITTEN}" in rubric and "Fuse the kernels; store FP16." in rubric
    assert "Model answer" in rubric
    with open(grades / "totals.csv", newline="") as f:
        totals = {r["student"]: r for r in csv.DictReader(f)}
    assert totals["ada"]["points"] == "1.5" and totals["bo"]["points"] == "2"
    assert totals["ada"]["out_of"] == "4" and totals["ada"]["to_grade_by_hand"] == "1"


def test_the_check_cell_reads_answers_as_the_grader_does(capsys):
    ids = [V1, PLAIN]          # a practice notebook: numbers from public ids, no key
    history = [f"{variable(V1)} = {expected(V1, A, 'ada', True).answer!r}", "x = 3",
               f"{variable(PLAIN)} = x * 2"]
    text = check_answers(A, "ada", ids, varied=[V1], history=history)
    lines = text.splitlines()
    assert "right" in lines[0] and "name `x`" in lines[1]
    # Not in the varied list: it checks the chapter's numbers.
    chapter = [f"{variable(V1)} = {get(V1).answer!r}"]
    assert "right" in check_answers(A, "ada", [V1], varied=[], history=chapter)
    assert "no answer yet" in check_answers(A, "ada", [V1], varied=[V1], history=[])


def test_student_text_never_becomes_a_spreadsheet_formula():
    from exercises.grade import Row

    row = Row("=cmd|' /C calc'!A0", "w-1", "=HYPERLINK(\"http://x\")", "", "by hand", None)
    student, _, answer, *_ = row.csv()
    assert student.startswith("'=") and answer.startswith("'=")
    assert Row("ada", "x-1", "-8.5", "1", "wrong", 0.0).csv()[2] == "-8.5"
    # the counters' names come from the file a submission's process hands back
    forged = Row("ada", "saxpy", "", "", "pass", 1.0, counters='=HYPERLINK("http://x")=1')
    assert forged.csv()[8].startswith("'=")


def test_reading_answers_never_runs_them():
    # Reading a cell that would delete files, loop forever or exhaust memory is just text.
    for source in ("import os; os.remove('x')", "while True: pass", "x = [0] * 10**12",
                   "answer_a = __import__('os').system('true')", "answer_a = 9**9**9**9"):
        r = read_answer(source, "a")
        assert r.status == "invalid" and r.value is None, source
    assert read_answer("answer_a = 2.1e12 / 3.6e12", "a").value == pytest.approx(2.1 / 3.6)
    assert read_answer("answer_a = ...  # fraction", "a").status == "empty"


def test_bad_commands_say_what_is_wrong(tmp_path):
    got = _run("assign", "hw 1", "--ids", V1, "--out", str(tmp_path))
    assert got.returncode == 2 and "assignment" in got.stderr
    got = _run("assign", "hw1", "--ids", "roofline-999", "--out", str(tmp_path))
    assert got.returncode == 2 and "roofline-999" in got.stderr
    got = _run("assign", "hw1", "--ids", V1, "--variants", "--out", str(tmp_path))
    assert got.returncode == 2 and "roster" in got.stderr
    got = _run("grade", str(tmp_path / "nothing.json"), str(tmp_path))
    assert got.returncode == 2 and "assignment.json" in got.stderr


def _bash_blocks(section: str) -> list[str]:
    page = (ROOT / "appendix" / "instructors.md").read_text()
    part = page.split(section, 1)[1].split("\n## ", 1)[0]
    import re
    return re.findall(r"```bash\n(.*?)```", part, re.S)


def test_the_instructors_page_commands_work(tmp_path):
    """The walkthrough's commands, run as printed (from a course folder instead of the
    repository's root, with this interpreter for .venv/bin/python)."""
    assign_block, grade_block = _bash_blocks("## Assign, distribute, collect, grade")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}

    def run(block: str) -> None:
        script = block.replace(".venv/bin/python", sys.executable)
        got = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path,
                             capture_output=True, text=True, timeout=600, env=env)
        assert got.returncode == 0, got.stdout + got.stderr

    run(assign_block)
    made = tmp_path / "_build" / "assignments" / "hw1"
    spec = json.loads((made / "assignment.json").read_text())
    (tmp_path / "submissions").mkdir()
    for s in spec["students"]:                         # students hand in their notebooks
        (tmp_path / "submissions" / f"{s}.ipynb").write_text((made / f"{s}.ipynb").read_text())
    run(grade_block)
    with open(tmp_path / "_build" / "grades" / "hw1" / "gradebook.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["student"] for r in rows} == set(spec["students"])
    assert {r["status"] for r in rows} == {"missing"}    # handed in unanswered


def test_a_notebook_runs_and_its_check_cell_reads_the_answers(tmp_path):
    """An assignment notebook executed top to bottom in a kernel, as a student runs it
    outside Colab: the set-up cell says where it is, the check cell reads the answer
    cells as the grader does."""
    import nbformat
    from nbclient import NotebookClient

    got = _run("assign", A, "--ids", f"{V1},{PLAIN}", "--student", "ada", "--variants",
               "--out", str(tmp_path))
    assert got.returncode == 0, got.stderr
    nb = nbformat.read(tmp_path / "ada.ipynb", as_version=4)
    for c in nb.cells:
        m = c.metadata.get("exercises", {})
        if m.get("role") == "answer" and m["id"] == V1:
            c.source = f"{variable(V1)} = {_truth(V1, 'ada')!r}"
        elif m.get("role") == "answer":
            c.source = f"{variable(PLAIN)} = x"          # a name: refused, as by the grader
    # The kernel imports this checkout's code (not an installed copy of the book's).
    nb.cells.insert(0, nbformat.v4.new_code_cell(f"import sys\nsys.path.insert(0, {str(ROOT)!r})"))
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    assert f"{V1}: read as {_truth(V1, 'ada')!r}" in text, nb.cells[-1].outputs  # keyed
    assert f"{PLAIN}:" in text and "name `x`" in text, text
