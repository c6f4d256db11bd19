"""No page of the built site shows a Python object's repr (``<IPython.core.display.Markdown
object>``, ``<function f at 0x7f...>``) or an empty output box: each is a cell whose value
was meant for the reader and reached the page as a programmer's placeholder (issue 36). The
helper that replaces the empty ``Markdown("")`` a chapter showed, labs.display.note, is
tested here too."""
from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from conftest import SITE

#: An object's default repr: "<module.Class object>" or "<... at 0x7f3a...>".
REPR = re.compile(r"<[\w.]+ object(?: at 0x[0-9a-fA-F]+)?>|<[^<>\n]{1,200} at 0x[0-9a-fA-F]{6,}>")
#: What an output box may hold besides text.
DRAWN = ["img", "svg", "iframe", "figure", "table", "canvas", "video", "script", "math"]


def _pages(site) -> list:
    return sorted(p for p in site.rglob("*.html") if not p.relative_to(site).parts[0].startswith("_"))


def test_the_patterns_catch_what_they_should():
    for shown in ("<IPython.core.display.Markdown object>", "<function f at 0x7f3a2b1c0d10>",
                  "<labs.display.LabView object at 0x7fb2c0>", "<Figure size 640x480 at 0x1a2b3c4d>"):
        assert REPR.search(shown), shown
    for fine in ("a <b>bold</b> word", "x < y and y > z", "<span class=\"pasted-text\">0.15</span>"):
        assert not REPR.search(fine), fine
    soup = BeautifulSoup('<div class="cell_output"><div class="output text_plain">'
                         '<pre>\n</pre></div></div>', "html.parser")
    assert _empty_outputs(soup) == 1


def _empty_outputs(soup) -> int:
    """Output boxes (a cell's outputs) with no text and nothing drawn."""
    return sum(1 for box in soup.select(".cell_output")
               if not box.get_text(strip=True) and not box.find(DRAWN))


@pytest.mark.parametrize("page", _pages(SITE) or ["(no site)"],
                         ids=lambda p: str(p.relative_to(SITE)) if SITE in getattr(p, "parents", ()) else str(p))
def test_no_repr_and_no_empty_output_box(site, page):
    if page == "(no site)":
        pytest.fail("the built site has no pages")
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    for s in soup(["script", "style"]):
        s.decompose()
    text = soup.get_text(" ")
    found = sorted(set(REPR.findall(text)))
    assert not found, f"{page.relative_to(site)} shows a Python repr: {found[:5]}"
    assert _empty_outputs(soup) == 0, f"{page.relative_to(site)} has an empty output box"


def test_note_shows_nothing_when_empty():
    from labs.display import Note, note

    assert note("") is None and note("  \n") is None
    shown = note("One caution about this run.")
    assert isinstance(shown, Note)
    assert shown._repr_mimebundle_() == {"text/markdown": "One caution about this run.",
                                         "text/plain": "One caution about this run."}
    with pytest.raises(ValueError, match="text"):
        note(None)
