"""What a submissions folder may hold besides notebooks, as one unpacked from students'
archives would: a FIFO, a link to ``/dev/zero`` or to another student's notebook, a folder
named like a notebook, and ids that come out the same as file names (``.bob`` and ``bob``).
Grading finishes, says what each is in that student's row and feedback, reads nothing
through a link, and gives every student files of their own."""
from __future__ import annotations

import csv
import json
import os
import pathlib

import pytest

from exercises import roster
from exercises.assign import assign
from exercises.grade import _safe, grade


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("files")
    students = ["ada", "fifo", "zero", "thief", "folder", "nested", "bob", "a_b"]
    from test_assign_grade import PLAIN        # a numeric exercise that needs no chapter run

    assign("hwf", tmp / "hw", ids=[PLAIN], students=students, pin=False)
    subs = tmp / "subs"
    subs.mkdir()
    # ids off the roster come from file names: ".bob" and "a b" hand in copies of bob's
    # and a_b's notebooks
    for s, own in (("ada", "ada"), ("bob", "bob"), (".bob", "bob"), ("a b", "a_b"),
                   ("a_b", "a_b")):
        nb = json.loads((tmp / "hw" / f"{own}.ipynb").read_text())
        (subs / f"{s}.ipynb").write_text(json.dumps(nb))
    os.mkfifo(subs / "fifo.ipynb")                     # opened for reading, it would block
    (subs / "zero.ipynb").symlink_to("/dev/zero")      # read, it never ends
    (subs / "thief.ipynb").symlink_to(subs / "ada.ipynb")
    (subs / "folder").mkdir()
    (subs / "folder" / "x.ipynb").mkdir()              # a folder, not a notebook
    (subs / "nested").mkdir()
    os.mkfifo(subs / "nested" / "a.ipynb")
    out = tmp / "grades"
    grade(tmp / "hw" / "assignment.json", subs, out)
    with open(out / "gradebook.csv", newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    return {"out": out, "rows": rows, "students": students + [".bob", "a b"]}


@pytest.mark.parametrize("student, says", [
    ("fifo", "not a regular file"), ("zero", "symbolic link"), ("thief", "symbolic link"),
    ("nested", "not a regular file")])
def test_what_is_not_a_notebook_file_is_named_never_read(graded, student, says):
    feedback = (graded["out"] / "feedback" / f"{_safe(student)}.md").read_text()
    assert "The notebook cannot be read: it is " in feedback and says in feedback, \
        feedback[:600]
    assert graded["rows"][student]["points"] == "0"


def test_a_folder_named_like_a_notebook_is_no_submission(graded):
    feedback = (graded["out"] / "feedback" / "folder.md").read_text()
    assert "- No submission." in feedback and graded["rows"]["folder"]["points"] == "0"


def test_every_student_has_files_of_their_own(graded):
    names = [_safe(s) for s in graded["students"]]
    assert len(set(names)) == len(names), names
    assert _safe("bob") == "bob" and _safe("a_b") == "a_b"        # a plain id stays as it is
    for s in ("bob", ".bob", "a b", "a_b"):
        feedback = (graded["out"] / "feedback" / f"{_safe(s)}.md").read_text()
        assert f": feedback for {s}\n" in feedback, (s, feedback[:200])


def test_the_reader_refuses_what_is_not_a_regular_file(tmp_path):
    ok = tmp_path / "ok.ipynb"
    ok.write_text("{}")
    assert roster.read_notebook(ok) == b"{}"
    big = tmp_path / "big.ipynb"
    big.write_bytes(b" " * 101)
    with pytest.raises(ValueError, match="larger than"):
        roster.read_notebook(big, max_bytes=100)
    os.mkfifo(tmp_path / "f.ipynb")
    with pytest.raises(ValueError, match="not a regular file"):
        roster.read_notebook(tmp_path / "f.ipynb")
    (tmp_path / "l.ipynb").symlink_to(ok)
    with pytest.raises(ValueError, match="symbolic link"):
        roster.read_notebook(tmp_path / "l.ipynb")
    with pytest.raises(ValueError, match="cannot be opened"):
        roster.read_notebook(tmp_path / "missing.ipynb")
    with pytest.raises(ValueError, match="max_bytes"):
        roster.read_notebook(ok, max_bytes=-1)     # would read the whole file unbounded
    assert roster.notebook_student(tmp_path / "f.ipynb") is None      # and returns at once
