"""Two editions from one source: the student edition (``make student``) holds no solution
text anywhere in its site, the instructor edition (``make instructor``) holds every one.

Both are built here (incrementally, from the jupyter cache that ``make book`` fills), each
in its own process, one after the other (they share the cache)."""
from __future__ import annotations

import html
import html.parser
import pathlib
import re
import subprocess
import sys

import pytest
import yaml

from exercises import _catalog

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import build_edition  # noqa: E402

pytestmark = pytest.mark.book
TEXT_FILES = {".html", ".js", ".txt", ".md", ".ipynb", ".json", ".inv"}


def _toc_chapters() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [c["file"] for part in toc.get("parts", []) for c in part.get("chapters", [])]
    return [f.removeprefix("chapters/") for f in files
            if f.startswith("chapters/") and (ROOT / f"{f}.md").exists()]


CHAPTERS = _toc_chapters()


class _Text(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("script", "style")

    def handle_endtag(self, tag):
        self._skip -= tag in ("script", "style") and self._skip > 0

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def page_text(path: pathlib.Path) -> str:
    parser = _Text()
    parser.feed(path.read_text())
    return re.sub(r"\s+", " ", html.unescape(" ".join(parser.parts)))


def _solution_phrases() -> dict[str, dict[str, list[str]]]:
    """chapter -> solution label -> phrases found only in that solution's text."""
    out: dict[str, dict[str, list[str]]] = {}
    for name in CHAPTERS:
        source = (ROOT / "chapters" / f"{name}.md").read_text()
        rest = re.sub(r"\s+", " ", _catalog.strip_solutions(source))
        for d in _catalog.directives(source, name):
            if d.kind == "solution":
                # Short, maths-heavy solutions have only shorter plain runs.
                phrases = next((found for n in (5, 4, 3) if (found := [
                    p for p in _catalog.plain_phrases(d.body, n) if p not in rest])), [])
                out.setdefault(name, {})[d.label] = phrases[:3]
    return out


PHRASES = _solution_phrases()


@pytest.fixture(scope="session")
def editions() -> dict[str, tuple[int, str]]:
    built = {}
    for edition in ("student", "instructor"):
        proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_edition.py"),
                               edition], capture_output=True, text=True, cwd=ROOT)
        built[edition] = (proc.returncode, proc.stdout + proc.stderr)
    return built


@pytest.mark.parametrize("edition", ["student", "instructor"])
def test_edition_builds_without_warnings(editions, edition):
    rc, log = editions[edition]
    assert rc == 0, f"`make {edition}` failed:\n{log[-4000:]}"
    assert (build_edition.output_dir(edition) / "intro.html").exists()


def test_there_are_solutions_to_look_for():
    if not CHAPTERS:
        pytest.skip("no chapter in the toc yet")
    assert any(PHRASES.values()), "no chapter in the toc has a {solution}"
    assert all(phrases for sols in PHRASES.values() for phrases in sols.values()), (
        "a solution has no plain phrase to search for: "
        f"{[(c, l) for c, s in PHRASES.items() for l, p in s.items() if not p]}")


def test_student_edition_has_no_solution_text(editions):
    site = build_edition.output_dir("student")
    assert not (site / "_sources").exists(), "page sources (with solutions) were shipped"
    wanted = {p: (c, l) for c, sols in PHRASES.items() for l, ps in sols.items() for p in ps}
    leaks = []
    for path in site.rglob("*"):
        if path.suffix not in TEXT_FILES or not path.is_file() or "reports" in path.parts:
            continue
        raw = path.read_text(errors="replace")
        text = page_text(path) if path.suffix == ".html" else re.sub(r"\s+", " ", raw)
        if 'class="solution' in raw:
            leaks.append(f"{path.relative_to(site)}: a solution block")
        leaks += [f"{path.relative_to(site)}: {wanted[p]} {p!r}" for p in wanted if p in text]
    assert leaks == [], "solution text in the student edition:\n" + "\n".join(leaks)
    # The exercises themselves are all there; no button offers the page's source.
    for name in CHAPTERS:
        page = (site / "chapters" / f"{name}.html").read_text()
        assert "btn-download-source-button" not in page
        for d in _catalog.directives((ROOT / "chapters" / f"{name}.md").read_text()):
            if d.kind == "exercise" and d.label:
                assert f'id="{d.label}"' in page, (name, d.label)


@pytest.mark.parametrize("name", CHAPTERS)
def test_instructor_edition_has_every_solution(editions, name):
    page = build_edition.output_dir("instructor") / "chapters" / f"{name}.html"
    raw = page.read_text()
    text = page_text(page)
    solutions = PHRASES.get(name, {})
    assert raw.count('class="solution') == len(solutions)
    missing = [(label, p) for label, phrases in solutions.items() for p in phrases
               if p not in text]
    assert missing == [], f"solution text missing from the instructor edition: {missing}"
