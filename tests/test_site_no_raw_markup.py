"""No built page shows markup that should have been rendered: a glued value's name and
format ("t4_bw_gbs:.0f"), a MyST role or directive ("{glue:text}"), or TeX outside maths
("\\ln 4", "2^{26}", "$x_i$" printed as text). Maths the site renders (MathJax's
``.math`` elements), code and scripts are not prose and are skipped."""
from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

# Not prose: code, scripts, maths the page renders, the search index's pages.
SKIP_TAGS = ("script", "style", "pre", "code", "kbd", "samp", "textarea", "noscript",
             "svg", "mjx-container", "math")
SKIP_CLASSES = ("math", "highlight", "MathJax", "plotly-graph-div")
SKIP_PAGES = ("_static/", "_sources/", "_images/", "genindex.html", "search.html")

PATTERNS = {
    # a glued name with its format spec: "t4_bw_gbs:.0f", "e4_max_threads:,.0f", "ratio:.1%"
    "unrendered placeholder": re.compile(
        r"\b[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z0-9_]+)?:[<>^=+#0-9]*,?(?:\.\d+)?"
        r"(?:[defgn]\b|%)"),
    "MyST role or directive": re.compile(r"\{(?:glue|exercise|solution|math|ref|numref|doc|"
                                         r"term|eq|cite|dropdown|code-cell)(?::[\w-]*)?\}"),
    "raw TeX command": re.compile(r"\\(?:[A-Za-z]{2,}|[,;:! ])"),
    "raw TeX group": re.compile(r"[\^_]\{"),
    "raw inline maths": re.compile(r"(?<![\w$])\$[^$\s][^$\n]{0,80}[\\^_][^$\n]{0,80}\$"),
}


def prose(html: str) -> str:
    """The page's visible prose: everything but code, scripts and rendered maths."""
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup.find_all(SKIP_TAGS):
        tag.decompose()
    for tag in soup.find_all(class_=lambda c: c and any(k in c.split() if isinstance(c, str)
                                                         else k in c for k in SKIP_CLASSES)):
        tag.decompose()
    return soup.get_text(" ")


def raw_markup(html: str) -> list[str]:
    """'<kind>: ...context...' for every unrendered placeholder or raw TeX in the prose."""
    text = prose(html)
    found = []
    for kind, pattern in PATTERNS.items():
        for m in pattern.finditer(text):
            context = " ".join(text[max(0, m.start() - 40):m.end() + 40].split())
            found.append(f"{kind}: …{context}…")
    return found


@pytest.mark.parametrize("bad", [
    "<p>A T4 has t4_bw_gbs:.0f GB/s and needs e4_max_threads:,.0f threads.</p>",
    "<p>An tr_n:.0f x tr_n:.0f FP32 matrix</p>",
    "<td>Scores (\\ln 4, 0, \\ln 3) and \\sin^2 + \\cos^2</td>",
    "<p>a vector of 2^{26} elements</p>",
    "<p>it pastes {glue:text}`x:.1f` here</p>",
    "<p>the answer is $x_i$ here</p>",
])
def test_the_detector_finds_raw_markup(bad):
    assert raw_markup(f"<html><body>{bad}</body></html>")


@pytest.mark.parametrize("good", [
    '<p>A T4 has <span class="pasted-text">320</span> GB/s.</p>',
    '<p>Scores <span class="math notranslate nohighlight">\\((\\ln 4, 0, \\ln 3)\\)</span></p>',
    '<div class="math notranslate nohighlight">\\[2^{26}\\]</div>',
    "<pre>answer_roofline_3 = 2.1e12 / 3.6e12  # fraction: f\"{x:.0f}\"</pre>",
    "<p>Note: figures are datasheet values; ratio 2.3x; at 10:45 UTC; C:/path; $3 and $4.</p>",
    "<p>Exercise 4.3: Where the ridge sits. See: fig 2. Step 1: d = 64.</p>",
])
def test_the_detector_passes_rendered_pages(good):
    assert raw_markup(f"<html><body>{good}</body></html>") == []


def test_no_page_shows_raw_markup(site):
    pages = [p for p in sorted(site.rglob("*.html"))   # the book's pages, not copied files
             if not any(s in p.relative_to(site).as_posix() for s in SKIP_PAGES)
             and not any(part.startswith(".") for part in p.relative_to(site).parts)]
    assert len(pages) >= 10
    problems = []
    for page in pages:
        for hit in raw_markup(page.read_text(errors="replace")):
            problems.append(f"{page.relative_to(site)}: {hit}")
    assert not problems, "\n".join(problems[:40]) + (
        f"\n... and {len(problems) - 40} more" if len(problems) > 40 else "")


#: Control characters a TeX command becomes when it passes through a Python string that is
#: not raw: "\times" a tab, "\beta" a backspace, "\frac" a form feed, "\vec" a vertical
#: tab, "\rho" a carriage return, "\alpha" a bell ("$0.25 \times$" once reached a page as
#: "$0.25 <tab>imes$" and broke the formula).
ESCAPED = re.compile(r"[\x07\x08\x09\x0b\x0c\x0d]")


def eaten_escapes(html: str) -> list[str]:
    """'...context...' for every control character inside the page's maths."""
    soup = BeautifulSoup(html, "html.parser")
    found = []
    for tag in soup.find_all(class_=lambda c: c and "math" in (c.split() if isinstance(c, str)
                                                               else c)):
        text = tag.get_text()
        for m in ESCAPED.finditer(text):
            found.append(repr(text[max(0, m.start() - 30):m.end() + 30]))
    return found


def test_the_escape_detector_finds_an_eaten_backslash():
    bad = '<span class="math notranslate nohighlight">\\(0.25 \times 2\\)</span>'
    assert eaten_escapes(f"<p>{bad}</p>")
    good = '<span class="math notranslate nohighlight">\\(0.25 \\times 2\\)</span>'
    assert eaten_escapes(f"<p>{good}</p>") == []


def test_no_page_has_a_tex_command_eaten_by_a_python_string(site):
    problems = [f"{p.relative_to(site)}: {hit}" for p in sorted(site.rglob("*.html"))
                if not any(s in p.relative_to(site).as_posix() for s in SKIP_PAGES)
                for hit in eaten_escapes(p.read_text(errors="replace"))]
    assert not problems, "\n".join(problems[:20])
