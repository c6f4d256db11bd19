"""The instructor's side of grading: the key kept from students, graded check cells that
say nothing of magnitude, LMS rosters and file names, hand scores kept across regrades,
one-student regrades, late flags, the pinned book version, a Gradescope autograder run on
a sample submission, and a grader that imports none of the book-building stack."""
from __future__ import annotations

import csv
import json
import os
import pathlib
import re
import subprocess
import sys
import zipfile

import pytest

from exercises import graded, secret, variants
from exercises.assign import assign, expected
from exercises.grade import grade
from exercises.notebook import variable
from exercises.roster import match, read_roster

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from test_assign_grade import KEY, PLAIN, V1  # noqa: E402

OTHER_KEY = bytes(range(100, 132))


def test_without_the_key_no_variant_answer_can_be_computed():
    """For every exercise with variants and several students: the keyed seed is not the
    public one, and the public code's answer (no key, or another key) differs from the
    keyed answer for nearly all (a discrete draw may coincide by chance)."""
    same = total = 0
    for id in variants.ids():
        for student in ("ada", "bo", "cy", "alice@uni.edu"):
            keyed = expected(id, "hw1", student, True, KEY)
            assert keyed.seed != variants.seed("hw1", student, id)
            assert keyed.seed != variants.seed("hw1", student, id, OTHER_KEY)
            for guess in (expected(id, "hw1", student, True),
                          expected(id, "hw1", student, True, OTHER_KEY)):
                total += 1
                same += guess.answer == keyed.answer
    assert total >= 60 and same / total < 0.2, (same, total)


def test_the_key_file_lives_outside_the_repository(tmp_path):
    with pytest.raises(ValueError, match="repository"):
        secret.create(ROOT / "instructor.key")
    key = secret.create(tmp_path / "conf" / "c.key")
    assert len(key) == 32 and secret.create(tmp_path / "conf" / "c.key") == key  # kept
    assert oct((tmp_path / "conf" / "c.key").stat().st_mode & 0o777) == "0o600"
    assert secret.fingerprint(key) != secret.fingerprint(OTHER_KEY)
    with pytest.raises(ValueError, match="path"):
        secret.read(tmp_path / "missing.key")


def test_graded_check_cells_say_right_or_not_yet_only():
    from exercises.registry import get

    truth = get(PLAIN).answer
    tries = [truth * 1000, truth * 1.04, truth * 0.5, truth]
    said = [graded.check_answers("hw", "ada", [PLAIN], history=[f"{variable(PLAIN)} = {t!r}"])
            for t in tries]
    assert said[:3] == [f"{PLAIN}: not yet."] * 3 and said[3] == f"{PLAIN}: right."
    for text in said:                       # no magnitude, percentage or hint
        assert not re.search(r"\d", text.replace(PLAIN, "")), text
    # A varied answer (keyed numbers) is only read back, never judged.
    text = graded.check_answers("hw", "ada", [V1], varied=[V1],
                                history=[f"{variable(V1)} = 2.5"])
    assert "read as 2.5" in text and "right" not in text and "not yet" not in text
    # The attempt limit counts distinct answers per question.
    for t in (1, 2):
        graded.check_answers("hwa", "bo", [PLAIN], attempts=2,
                             history=[f"{variable(PLAIN)} = {t}"])
    left = graded.check_answers("hwa", "bo", [PLAIN], attempts=2,
                                history=[f"{variable(PLAIN)} = 3"])
    assert "no checks left" in left


CANVAS = '''Student,ID,SIS User ID,SIS Login ID,Section
    Points Possible,,,,
"Lovelace, Ada",1001,ada.lovelace@uni.edu,alovelace,GPU 101
"Smith, Bo",1002,bo.smith@uni.edu,bsmith,GPU 101
"Smith, Cy",1003,cy.smith@uni.edu,csmith,GPU 101
'''


def test_a_canvas_roster_and_file_names_grade_the_right_students(tmp_path):
    (tmp_path / "roster.csv").write_text(CANVAS)
    with pytest.raises(ValueError, match="column"):
        read_roster(tmp_path / "roster.csv", "Email")
    ids = read_roster(tmp_path / "roster.csv", "SIS User ID")
    assert ids == ["ada.lovelace@uni.edu", "bo.smith@uni.edu", "cy.smith@uni.edu"]
    assert read_roster(tmp_path / "roster.csv", 4) == ["alovelace", "bsmith", "csmith"]
    hw = tmp_path / "hw"
    assign("wk3", hw, ids=[PLAIN, V1], students=ids, use_variants=True, key=KEY,
           id_column="SIS User ID", points={V1: 2.0})
    subs = tmp_path / "subs"
    subs.mkdir()
    for s, canvas_name in zip(ids, ("lovelaceada_1001_2002_wk3-ada.ipynb",
                                    "smithbo_1002_2003_wk3.ipynb", None)):
        if canvas_name is None:
            continue                                           # cy hands in nothing
        nb = json.loads((hw / f"{s}.ipynb").read_text())
        for c in nb["cells"]:
            m = c["metadata"].get("exercises", {})
            if m.get("role") == "answer":
                c["source"] = f"{variable(m['id'])} = " \
                              f"{expected(m['id'], 'wk3', s, m['id'] == V1, KEY).answer!r}"
        (subs / canvas_name).write_text(json.dumps(nb))
    found, warnings = match({p.stem: p for p in subs.iterdir()}, ids)
    assert set(found) == {"ada.lovelace@uni.edu", "bo.smith@uni.edu"} and len(warnings) == 2
    out = tmp_path / "grades"
    (tmp_path / "times.csv").write_text("SIS User ID,Submitted\n"
                                        "ada.lovelace@uni.edu,2026-03-01T22:00+00:00\n"
                                        "bo.smith@uni.edu,2026-03-02T01:30+00:00\n")
    grade(hw, subs, out, key=KEY, due="2026-03-01T23:59+00:00",
          submitted=tmp_path / "times.csv", jobs=2)
    with open(out / "totals.csv", newline="") as f:
        totals = {r["student"]: r for r in csv.DictReader(f)}
    assert set(totals) == set(ids)                             # no phantom students
    assert totals["ada.lovelace@uni.edu"]["points"] == "3" == totals["bo.smith@uni.edu"]["points"]
    assert totals["ada.lovelace@uni.edu"]["out_of"] == "3"     # 2 for V1, 1 for PLAIN
    assert totals["cy.smith@uni.edu"]["points"] == "0"
    assert totals["bo.smith@uni.edu"]["late"] == "late by 1 h 31 min"
    assert totals["ada.lovelace@uni.edu"]["late"] == ""
    with open(out / "grades_wide.csv", newline="") as f:
        wide = list(csv.reader(f))
    assert wide[0] == ["SIS User ID", PLAIN, V1, "total", "out_of", "late"]
    assert [r[0] for r in wide[1:]] == ids
    feedback = (out / "feedback" / "ada.lovelace@uni.edu.md").read_text()
    assert "graded as ada.lovelace@uni.edu" in feedback.lower()
    # Without the key, the grader refuses rather than grade with public numbers.
    with pytest.raises(ValueError, match="key"):
        grade(hw, subs, tmp_path / "g2", key=OTHER_KEY)


def test_hand_scores_survive_a_regrade_of_one_student(tmp_path):
    hw = tmp_path / "hw"
    assign("wk4", hw, ids=[PLAIN], students=["ada", "bo"])
    subs = tmp_path / "subs"
    subs.mkdir()
    for s in ("ada", "bo"):
        (subs / f"{s}.ipynb").write_text((hw / f"{s}.ipynb").read_text())
    out = tmp_path / "grades"
    (tmp_path / "hand.csv").write_text("student,exercise,points,comment\nbo,{},0.5,"
                                       "\"=HYPERLINK(1)\"\n".format(PLAIN))
    grade(hw, subs, out, hand=tmp_path / "hand.csv")
    nb = json.loads((hw / "ada.ipynb").read_text())           # ada hands in again, right
    for c in nb["cells"]:
        if c["metadata"].get("exercises", {}).get("role") == "answer":
            c["source"] = f"{variable(PLAIN)} = {expected(PLAIN, 'wk4', 'ada', False).answer!r}"
    (subs / "ada.ipynb").write_text(json.dumps(nb))
    grade(hw, subs, out, only="ada")
    with open(out / "gradebook.csv", newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert (rows["ada"]["status"], rows["ada"]["points"]) == ("right", "1")
    assert (rows["bo"]["status"], rows["bo"]["points"]) == ("graded by hand", "0.5")
    assert "'=HYPERLINK" in (out / "hand_scores.csv").read_text()   # never a formula
    with pytest.raises(ValueError, match="only"):
        grade(hw, subs, out, only="zed")


def test_a_notebook_made_against_another_book_version_is_refused(tmp_path):
    hw = tmp_path / "hw"
    assign("wk5", hw, ids=[PLAIN], students=["ada"])
    spec = json.loads((hw / "assignment.json").read_text())
    if not spec["book_commit"]:
        pytest.skip("not a git checkout: nothing is pinned")
    nb = json.loads((hw / "ada.ipynb").read_text())
    assert f"commit = {spec['book_commit']!r}" in "".join(nb["cells"][0]["source"])
    nb["metadata"]["exercises"]["book_commit"] = "0" * 40
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "ada.ipynb").write_text(json.dumps(nb))
    got = grade(hw, subs, tmp_path / "g")
    assert got[0].rows[0].status == "invalid" and "pins" in got[0].rows[0].message


def test_without_a_sandbox_the_grader_refuses_unless_told(tmp_path, monkeypatch):
    from test_grade_challenges import CHECKER, ENGINE

    from exercises import sandbox

    hw = tmp_path / "hw"
    assign("wk6", hw, kernels=["vadd"], students=["ada"], checker=CHECKER)
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "ada.ipynb").write_text((hw / "ada.ipynb").read_text())
    monkeypatch.setattr(sandbox, "probe", lambda *a, **k: "namespaces are forbidden here")
    with pytest.raises(ValueError, match="--no-sandbox"):
        grade(hw, subs, tmp_path / "g", checker=CHECKER, engine=ENGINE)
    grade(hw, subs, tmp_path / "g", checker=CHECKER, engine=ENGINE, sandboxed=False)
    assert json.loads((tmp_path / "g" / "grading.json").read_text())["sandboxed"] is False


def _valid_results(r: dict) -> None:
    """Gradescope's results.json format (its autograder specification): a score or test
    scores, tests with numbers and known statuses and visibilities."""
    vis = {"hidden", "after_due_date", "after_published", "visible"}
    assert set(r) <= {"score", "execution_time", "output", "output_format", "visibility",
                      "stdout_visibility", "extra_data", "tests", "leaderboard"}
    assert isinstance(r.get("score"), (int, float)) or all("score" in t for t in r["tests"])
    assert r.get("visibility", "visible") in vis and r.get("stdout_visibility", "hidden") in vis
    assert isinstance(r["tests"], list)
    for t in r["tests"]:
        assert set(t) <= {"score", "max_score", "status", "name", "name_format", "number",
                          "output", "output_format", "tags", "visibility", "extra_data"}
        assert isinstance(t["score"], (int, float)) and isinstance(t["max_score"], (int, float))
        assert t.get("status", "passed") in {"passed", "failed"}
        assert isinstance(t.get("name", ""), str) and isinstance(t.get("output", ""), str)
        assert t.get("visibility", "visible") in vis
    json.dumps(r)


def test_the_gradescope_autograder_runs_on_a_sample_submission(tmp_path):
    from exercises.gradescope import write_zip

    hw = tmp_path / "hw"
    assign("wk7", hw, ids=[PLAIN, V1], students=["ada@uni.edu", "bo@uni.edu"],
           use_variants=True, key=KEY)
    (tmp_path / "k.key").write_text(KEY.hex())
    spec = json.loads((hw / "assignment.json").read_text())
    if not spec["book_commit"]:
        pytest.skip("not a git checkout: the autograder pins a commit")
    zip_path = write_zip(hw, tmp_path / "autograder.zip", key_path=tmp_path / "k.key")
    a = tmp_path / "autograder"
    with zipfile.ZipFile(zip_path) as z:
        names = z.namelist()
        assert {"setup.sh", "run_autograder", "assignment/assignment.json", "key"} <= set(names)
        z.extractall(a / "source")
    assert spec["book_commit"] in (a / "source" / "setup.sh").read_text()
    nb = json.loads((hw / "ada@uni.edu.ipynb").read_text())
    for c in nb["cells"]:
        m = c["metadata"].get("exercises", {})
        if m.get("role") == "answer":
            c["source"] = f"{variable(m['id'])} = " \
                          f"{expected(m['id'], 'wk7', 'ada@uni.edu', m['id'] == V1, KEY).answer!r}"
    (a / "submission").mkdir(parents=True)
    (a / "submission" / "week7.ipynb").write_text(json.dumps(nb))
    (a / "submission_metadata.json").write_text(json.dumps(
        {"users": [{"email": "ada@uni.edu", "name": "Ada", "sid": "1001"}]}))
    run = a / "source" / "run_autograder"
    run.chmod(0o755)
    got = subprocess.run([str(run)], capture_output=True, text=True, timeout=300,
                         env={"PATH": os.environ["PATH"], "AUTOGRADER_ROOT": str(a),
                              "GPU_PERF_BOOK": str(ROOT), "GRADER_PYTHON": sys.executable,
                              "HOME": str(tmp_path)})
    assert got.returncode == 0, got.stdout + got.stderr
    results = json.loads((a / "results" / "results.json").read_text())
    _valid_results(results)
    assert results["score"] == 2 and [t["status"] for t in results["tests"]] == ["passed"] * 2


def test_grading_imports_none_of_the_book_building_stack(tmp_path):
    """A grading machine needs `pip install .[grader]` only: grade runs with jupytext,
    nbformat, yaml, plotly, nbclient and the labs blocked from import."""
    hw = tmp_path / "hw"
    assign("wk8", hw, ids=[PLAIN], students=["ada"])
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "ada.ipynb").write_text((hw / "ada.ipynb").read_text())
    code = ("import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in ('jupytext', 'nbformat', 'yaml', 'plotly',\n"
            "                                  'nbclient', 'labs', 'myst_nb', 'ipywidgets'):\n"
            "            raise ImportError('blocked: ' + name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "from exercises.__main__ import main\n"
            f"sys.exit(main(['grade', {str(hw)!r}, {str(tmp_path / 'subs')!r}, "
            f"'--out', {str(tmp_path / 'g')!r}]))\n")
    got = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert got.returncode == 0, got.stderr[-2000:]
    assert (tmp_path / "g" / "rubric.md").exists() and (tmp_path / "g" / "totals.csv").exists()


def test_the_student_tree_holds_no_reference_kernel_and_clones_its_branch(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    import build_edition

    tree = build_edition.student_tree(ROOT, tmp_path / "book")
    assert not build_edition.leaks(tree)
    solutions = tree / "labs" / "challenges" / "solutions"
    assert [p.name for p in solutions.iterdir()] == ["__init__.py"]
    assert (tree / "labs" / "challenges" / "starters" / "saxpy.py").exists()
    assert "branch: student" in (tree / "_config.yml").read_text()
    for nb in (tree / "notebooks").glob("*.ipynb"):
        assert "branch, name = 'main'" not in nb.read_text(), nb.name
    (solutions / "saxpy.py").write_text("x = 1\n")           # a leak is caught
    (tree / "course.key").write_text("00" * 32)
    assert build_edition.leaks(tree) == ["course.key", "labs/challenges/solutions/saxpy.py"]
