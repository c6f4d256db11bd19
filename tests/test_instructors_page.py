"""The "For instructors" page: in the Appendix, documents the two edition commands, and
its generated list holds every exercise id (numeric from the registry, written from the
chapters' {exercise} labels) with how it is checked and whether it wants a GPU."""
from __future__ import annotations

import pathlib
import re

import yaml

from exercises import _catalog, all_exercises

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_page_is_in_the_appendix():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    appendix = next(p for p in toc["parts"] if p.get("caption") == "Appendix")
    assert {"file": "appendix/instructors"} in appendix["chapters"]


def test_page_documents_the_edition_commands_that_exist():
    page = (ROOT / "appendix" / "instructors.md").read_text()
    makefile = (ROOT / "Makefile").read_text()
    for edition in ("student", "instructor"):
        assert f"make {edition}" in page and f"_build/{edition}/html" in page
        assert re.search(rf"^{edition}:", makefile, re.M)
        assert f"scripts/build_edition.py {edition}" in makefile
    assert re.search(r"^notebooks:", makefile, re.M)


def test_rows_cover_every_exercise():
    rows = _catalog.exercise_rows()
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "an exercise id appears twice"
    numeric = {e.id for e in all_exercises()}
    written = {d.label for d in _catalog.exercises()} - numeric
    assert numeric <= set(ids) and written <= set(ids)
    for r in rows:
        assert (r["answer"] == "written") == (r["id"] not in numeric)
        assert r["GPU"] in ("", _catalog.GPU_NEEDED, _catalog.GPU_OPTIONAL)


def test_gpu_marks():
    d = _catalog.directives(":::{exercise} T\n:label: a-1\n:class: needs-gpu\nRun it.\n:::\n")[0]
    assert _catalog.gpu_use(d) == "needed"
    d = _catalog.directives(":::{exercise} Predict, then measure\n:label: a-2\nx\n:::\n")[0]
    assert _catalog.gpu_use(d) == "optional"
    d = _catalog.directives(":::{exercise} Sums\n:label: a-3\nAdd 2 and 2.\n:::\n")[0]
    assert _catalog.gpu_use(d) == "" and _catalog.gpu_use(d, numeric_needs_gpu=True) == "needed"


def test_built_page_lists_every_id(site):
    html = (site / "appendix" / "instructors.html").read_text()
    for r in _catalog.exercise_rows():  # a cell of a MyST table: <td><p>id</p></td>
        assert re.search(rf"<td>(<p>)?{re.escape(r['id'])}(</p>)?</td>", html), r["id"]
    assert "_build/student/html" in html and "_build/instructor/html" in html
