"""The bibliography's markup fix (_ext/a11y.py), on docutils' own output: each entry of the
citation list becomes a list item, and nothing else in the page changes."""
from __future__ import annotations

import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "_ext"))
from a11y import citations_as_list_items  # noqa: E402

# As Sphinx 7.4 with docutils 0.21 writes two entries of appendix/sources.md.
DOCUTILS = ('<div role="list" class="citation-list">\n'
            '<div class="citation" id="id15" role="doc-biblioentry">\n'
            '<span class="label"><span class="fn-bracket">[</span>T4 datasheet'
            '<span class="fn-bracket">]</span></span>\n<p>NVIDIA. T4 datasheet. 2019.</p>\n</div>\n'
            '<div class="citation" id="id16" role="doc-biblioentry">\n'
            '<span class="label"><a role="doc-backlink" href="#id1">Little 1961</a></span>\n'
            '<p>J. D. C. Little. 1961.</p>\n</div>\n</div>')


def test_each_entry_becomes_a_list_item():
    out = citations_as_list_items(DOCUTILS)
    assert "doc-biblioentry" not in out
    assert out.count('role="listitem"') == 2
    assert '<div class="citation" id="id16" role="listitem">' in out
    # the list, the labels and the backlinks are as docutils wrote them
    assert out.replace('role="listitem"', 'role="doc-biblioentry"') == DOCUTILS


def test_a_page_without_citations_is_unchanged():
    page = '<p role="doc-biblioentry">not an entry</p><div class="citation-list"></div>'
    assert citations_as_list_items(page) == page


def test_refuses_what_is_not_text():
    with pytest.raises(TypeError, match="html must be text"):
        citations_as_list_items(b"<div></div>")


def test_the_built_sources_page_has_no_deprecated_role(site):
    html = (site / "appendix" / "sources.html").read_text(encoding="utf-8")
    assert 'class="citation-list"' in html
    assert "doc-biblioentry" not in html
    assert html.count('<div class="citation"') == html.count('role="listitem"') > 10
