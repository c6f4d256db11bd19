"""Every chapter has a core path a student reads first: at most 3,000 words of main-line
prose on the built site (the paragraphs and list items above the Exercises section, with
code, maths, figures, tables and every collapsed block left out: scripts/core_path.py), its
reading time stated at the top, and its depth in collapsed "Lab notes" and "Going further"
asides.

The counter itself is tested first on a page made by hand, so a pass below means the
chapters are short, not that the counter is blind."""
from __future__ import annotations

import re
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import core_path  # noqa: E402

CHAPTERS = sorted(p.stem for p in (ROOT / "chapters").glob("[0-9][0-9]_*.md"))
ASIDES = ("lab-notes", "going-further")

HAND_MADE = """<html><body><article>
<section><h1>A chapter</h1>
<p>One two three four five.</p>
<ul><li>six seven</li></ul>
<div class="admonition tip"><p class="admonition-title">Goal</p><p>eight nine</p></div>
<div class="admonition dropdown lab-notes"><p class="admonition-title">Lab notes</p>
<p>folded words that do not count at all</p></div>
<details><summary>a summary</summary><p>hidden words</p></details>
<div class="highlight-python notranslate"><pre>x = 1  # code</pre></div>
<p>ten <code>not_counted()</code> eleven <span class="math notranslate">\\(x^2\\)</span></p>
<figure><p>a caption-like paragraph</p></figure>
<table><tr><td><p>a cell</p></td></tr></table>
<div class="cell_output"><p>twelve from a Markdown output</p></div>
<div class="output text_html challenge"><p>Your turn: a challenge statement</p></div>
<section id="exercises"><h2>Exercises</h2><p>an exercise with many words here</p></section>
</section></article></body></html>"""


def test_the_counter_counts_prose_and_nothing_else():
    text = core_path.site_text(HAND_MADE)
    # Counted by hand: "One two three four five" 5, "six seven" 2, the goal box's title and
    # text 1 + 2, "ten eleven" 2, the Markdown output's paragraph 5.
    assert core_path.site_words(HAND_MADE) == 17, text
    for left_out in ("folded", "hidden", "code", "not_counted", "caption", "cell", "exercise",
                     "challenge"):
        assert left_out not in text


def test_reading_minutes_round_up_at_200_words_a_minute():
    assert [core_path.reading_minutes(w) for w in (0, 1, 200, 201, 3000)] == [1, 1, 1, 2, 15]
    with pytest.raises(ValueError, match="words"):
        core_path.reading_minutes(-1)


@pytest.fixture(scope="module")
def pages(site) -> dict[str, str]:
    return {name: (site / "chapters" / f"{name}.html").read_text(encoding="utf-8")
            for name in CHAPTERS}


@pytest.mark.parametrize("name", CHAPTERS)
def test_core_path_is_at_most_3000_words(pages, name):
    words = core_path.site_words(pages[name])
    assert words <= core_path.BUDGET_WORDS, (
        f"{name}: the core path is {words:,} words (budget {core_path.BUDGET_WORDS:,}); fold "
        f"lab notes and depth into 'Lab notes' / 'Going further' dropdowns")


@pytest.mark.parametrize("name", CHAPTERS)
def test_reading_time_is_stated_at_the_top_and_true(pages, name):
    html = pages[name]
    start = html.find("<article")
    first_h2 = html.find("<h2", start)            # the article's first section, not the sidebar's
    head = html[start:first_h2 if first_h2 > 0 else len(html)]
    stated = core_path.READING_TIME.search(re.sub(r"<[^>]+>", "", head))
    assert stated, f"{name}: no 'Core path: about N minutes' line before the first section"
    want = core_path.reading_minutes(core_path.site_words(html))
    assert abs(int(stated.group(1)) - want) <= 1, (
        f"{name}: states {stated.group(1)} minutes; its {core_path.site_words(html):,} words "
        f"take {want} at {core_path.WORDS_PER_MINUTE} a minute")


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_aside_is_folded(pages, name):
    """A 'Lab notes' or 'Going further' box is a dropdown (closed until opened)."""
    boxes = re.findall(r'<div class="([^"]*\b(?:lab-notes|going-further)\b[^"]*)"', pages[name])
    assert all("dropdown" in b.split() for b in boxes), boxes
