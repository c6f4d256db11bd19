"""No reader sees e-notation ("1.37e+03", "5.1e-05"): not in a built page's prose, and not
in any text a figure can show, including the text of every dropdown entry and slider step
(the figures' own JSON, walked whole). Numbers are plotly data, not text, and are skipped;
so are plotly's format templates ("%{x:.3g}"), which format hover values at run time."""
from __future__ import annotations

import json
import re

import pytest
from bs4 import BeautifulSoup

from test_site_no_raw_markup import SKIP_PAGES, prose

E_NOTATION = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[eE][+-]?\d+\b")
#: Keys whose strings are plotly's format templates, not text shown as written.
TEMPLATES = ("hovertemplate", "texttemplate", "tickformat", "hoverformat", "valueformat")


def strings(obj, key: str = ""):
    """Every string in a figure's JSON with the key it stands under, templates left out."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from strings(v, str(k))
    elif isinstance(obj, list):
        for v in obj:
            yield from strings(v, key)
    elif isinstance(obj, str) and not key.split(".")[-1].endswith(TEMPLATES):
        yield key, obj


def e_notation(html: str) -> list[str]:
    """'<where>: <text>' for every e-notation number in the prose or a figure's text."""
    found = [f"prose: …{m.group(0)}…" for m in E_NOTATION.finditer(prose(html))]
    soup = BeautifulSoup(html, "html.parser")
    for fig in soup.select(".book-figure"):
        for script in fig.find_all("script", type="application/json"):
            for key, text in strings(json.loads(script.string or "null")):
                if E_NOTATION.search(text):
                    found.append(f"{fig.get('id')} {key}: {text[:80]}")
    return found


@pytest.mark.parametrize("bad", [
    "<p>the serial part is 5.1e-05 of the run</p>",
    '<div class="book-figure" id="f"><script type="application/json">'
    '{"data": [{"cells": {"values": [["I = 1.37e+03 FLOP/B"]]}}]}</script></div>',
])
def test_the_detector_finds_e_notation(bad):
    assert e_notation(bad)


def test_the_detector_passes_numbers_and_templates():
    good = ('<p>0.000051 serial, 1,370 FLOP/B, float16, sm_75</p>'
            '<div class="book-figure" id="f"><script type="application/json">'
            '{"data": [{"y": [1e-05, 2e+12], "hovertemplate": "%{y:.3e}"}]}</script></div>')
    assert e_notation(good) == []


def test_no_page_shows_e_notation(site):
    pages = [p for p in sorted(site.rglob("*.html"))
             if not any(s in p.relative_to(site).as_posix() for s in SKIP_PAGES)]
    assert len(pages) >= 10
    found = {p.relative_to(site).as_posix(): hits for p in pages
             if (hits := e_notation(p.read_text(encoding="utf-8")))}
    assert found == {}, found
