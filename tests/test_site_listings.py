"""On the built site, every chapter with a lab cell shows at least one kernel listing, and
each listing's code is still the source the lab runs: a function part must equal (up to
whitespace) a function of the name it claims in that module's current file (found with
``ast``, independently of labs/listing.py), and a launch part the lines tagged in the lab
now. A stale or missing listing fails. Reads ``_build/html`` (conftest builds the book
only where it is not built yet, as for every site test); builds nothing extra."""
import ast
import html
import importlib
import inspect
import pathlib
import re
import textwrap

import pytest

from labs import listing

ROOT = pathlib.Path(__file__).resolve().parents[1]
LAB_CHAPTERS = sorted(p.stem for p in (ROOT / "chapters").glob("*.md")
                      if "labs.show(" in p.read_text())

DIV = re.compile(r'<div class="book-listing" data-listing="(\w+)" data-parts="(\d+)">')
PART = re.compile(r'<span class="book-listing-part" data-name="([^"]+)"></span>')
PRE = re.compile(r"<pre[^>]*>(.*?)</pre>", re.S)


def _norm(code: str) -> str:
    lines = [ln.rstrip() for ln in textwrap.dedent(code).strip("\n").splitlines()]
    return "\n".join(ln for ln in lines if ln)


def _pre_text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def listings_in(page: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """(key, [(claimed name, code)]) for each listing on a built page."""
    out = []
    for m in DIV.finditer(page):
        key, n, pos, parts = m.group(1), int(m.group(2)), m.end(), []
        for _ in range(n):
            p = PART.search(page, pos)
            pre = PRE.search(page, p.end()) if p else None
            assert p and pre, f"listing {key}: fewer parts on the page than its marker says"
            parts.append((html.unescape(p.group(1)), _pre_text(pre.group(1))))
            pos = pre.end()
        out.append((key, parts))
    return out


def defs_named(module: str, qualname: str) -> list[str]:
    """Source of every function in module's current file whose nesting matches qualname
    (``kernels.<locals>.fma_peak`` -> def fma_peak inside def kernels), decorators included."""
    src = inspect.getsource(importlib.import_module(module))
    want = [p for p in qualname.split(".") if p != "<locals>"]
    lines, found = src.splitlines(), []

    def walk(node, path):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                here = path + [child.name]
                if here == want:
                    first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                    found.append("\n".join(lines[first - 1:child.end_lineno]))
                walk(child, here)
            else:
                walk(child, path)

    walk(ast.parse(src), [])
    return found


@pytest.fixture(scope="module")
def pages(site):
    """The built chapter pages (conftest's ``site``: the book the other site tests read)."""
    return {c: (site / "chapters" / f"{c}.html").read_text() for c in LAB_CHAPTERS}


def test_there_are_lab_chapters():
    assert len(LAB_CHAPTERS) >= 9


@pytest.mark.parametrize("chapter", LAB_CHAPTERS)
def test_chapter_shows_a_kernel_listing_that_is_the_labs_current_source(pages, chapter):
    found = listings_in(pages[chapter])
    assert found, f"{chapter}: a chapter with a lab shows no kernel listing"
    for key, parts in found:
        now = listing.parts(key)
        assert [n for n, _c in parts] == [n for _t, n, _c in now], (
            f"{chapter}: listing {key!r} shows other parts than the lab has now: rebuild")
        for name, code in parts:
            if "#" in name:  # launch lines tagged in the lab
                module, tag = name.split("#")
                assert _norm(code) == _norm(listing.tagged(module, tag)), (
                    f"{chapter}: the launch lines of {name} on the page are stale")
            else:
                module, qualname = name.split(":")
                current = [_norm(d) for d in defs_named(module, qualname)]
                assert current, f"{chapter}: {name} is no longer in {module}"
                assert _norm(code) in current, (
                    f"{chapter}: the listing of {name} is not its current source: rebuild")
