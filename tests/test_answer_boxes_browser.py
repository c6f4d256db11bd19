"""The answer boxes on the built site (issue 36), in headless Chromium, offline, from the
keyboard alone: a reader follows a link to an exercise, presses Tab to reach its box, types
an answer and presses Enter; the box's polite live region then holds exercises.check's
verdict on that text, word for word. Three chapters: a right answer in another prefix, a
unit slip and a percentage slip. Every numeric exercise of every chapter has a box, and no
other exercise has one. The student edition's key holds no answer, and its exercises say
where the answers are checked. Every wait is bounded (a few seconds).
"""
from __future__ import annotations

import json
import re

import pytest

from conftest import ROOT, SITE, open_tab
from exercises import all_exercises, check

pytestmark = pytest.mark.browser
WAIT_MS = 5000
LOAD_MS = 30000  # a chapter with its figures on a loaded machine
JS = ROOT / "_static" / "book-check.js"

#: (page, exercise, what the reader types): right in another prefix, a unit slip (the
#: answer in s typed as if ms were s), a fraction on a percentage question, and a share
#: typed as a percentage on a fraction question.
TYPED = [
    ("chapters/04_roofline.html", "roofline-4", lambda t: f"{t * 1e3:.3g} ms"),
    ("chapters/04_roofline.html", "roofline-4", lambda t: f"{t * 1e3:.3g} s"),
    ("chapters/06_simt.html", "simt-2", lambda t: f"{t / 100:g}"),
    ("chapters/06_simt.html", "simt-2", lambda t: f"{t:g}%"),
    ("chapters/02_parallelism.html", "parallelism-5", lambda t: f"{t * 100:g}%"),
    ("chapters/02_parallelism.html", "parallelism-5", lambda t: f"{t * 1e3:g}"),
]


@pytest.fixture(scope="module")
def _tab(site_tabs, server):
    page, _ = open_tab(site_tabs, server)
    page.set_default_timeout(WAIT_MS)
    yield page
    page.close()


@pytest.fixture
def tab(_tab):
    """The module's tab, in front of any opened since (a tab behind another draws no frame:
    its transitions and animation frames stand still)."""
    _tab.bring_to_front()
    return _tab


def _tab_to(page, target: str, limit: int = 25) -> None:
    """Press Tab until the element of id ``target`` has the focus (at most ``limit``)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("id => document.activeElement && document.activeElement.id === id",
                         target):
            return
    raise AssertionError(f"{limit} Tabs after the exercise did not reach #{target}")


@pytest.mark.parametrize("page_name,id,typed", TYPED,
                         ids=[f"{t[1]}-{k}" for k, t in enumerate(TYPED)])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_keyboard_answer_gets_the_notebook_verdict(tab, server, page_name, id, typed, theme):
    tab.goto(f"{server}/{page_name}#{id}", wait_until="domcontentloaded", timeout=LOAD_MS)
    tab.evaluate("t => document.documentElement.setAttribute('data-theme', t)", theme)
    box = f"book-check-{id}"
    _tab_to(tab, box)
    text = typed(next(e.answer for e in all_exercises() if e.id == id))
    tab.keyboard.type(text)
    tab.keyboard.press("Enter")
    out = tab.locator(f"#{box} ~ .book-check-verdict")
    tab.wait_for_function(
        "id => document.querySelector('#book-check-' + id + ' ~ .book-check-verdict')"
        ".textContent.length > 0", arg=id, timeout=WAIT_MS)
    want = check(id, text)
    assert out.text_content() == str(want)
    assert out.get_attribute("data-status") == want.status
    assert out.get_attribute("aria-live") == "polite" and out.get_attribute("role") == "status"
    # the label names the box, and the box sits under its exercise, before the solution
    assert tab.evaluate("id => document.querySelector('label[for=\"' + id + '\"]').textContent",
                        box).startswith("Your answer")
    assert tab.evaluate("id => document.getElementById(id).nextElementSibling.className",
                        id) == "book-check"


def test_the_three_kinds_of_verdict_are_reached():
    says = [str(check(id, typed(next(e.answer for e in all_exercises() if e.id == id))))
            for _, id, typed in TYPED]
    assert "right (read" in says[0] and "unit slip" in says[1]
    assert "as a fraction it is 75%" in says[2] and says[3].startswith("simt-2: right")
    assert says[4].startswith("parallelism-5: right") and "times too high" in says[5]


def test_every_numeric_exercise_has_a_box_and_no_other_has_one(tab, server):
    numeric = {e.id for e in all_exercises()}
    for page in sorted((SITE / "chapters").glob("*.html")):
        tab.goto(f"{server}/chapters/{page.name}", wait_until="domcontentloaded", timeout=LOAD_MS)
        labels = tab.evaluate("() => Array.from(document.querySelectorAll('.exercise[id]'))"
                              ".map(e => [e.id, !!document.getElementById('book-check-' + e.id)])")
        for label, has_box in labels:
            assert has_box == (label in numeric), f"{page.name} {label}: box {has_box}"


def test_student_edition_pages_hold_no_answer_and_say_where_it_is_checked(browser):
    import sys
    sys.path.insert(0, str(ROOT / "_ext"))
    import answer_boxes

    body = '<div class="exercise admonition" id="simt-2"><p>q</p></div>'
    script = answer_boxes.key_script(body, answers=False)
    key = json.loads(re.search(r">(.*)</script>", script, re.S)[1].replace("<\\/", "</"))
    assert set(key["exercises"]["simt-2"]) == {"unit"}
    assert "75" not in json.dumps(key["exercises"]) and key["elsewhere"]
    with_answers = answer_boxes.key_script(body, answers=True)
    assert '"answer": 75.0' in with_answers
    ctx = browser.new_context()
    ctx.set_default_timeout(WAIT_MS)
    page = ctx.new_page()
    try:
        page.set_content(f"<html lang='en'><body><main>{body}{script}</main></body></html>")
        page.add_script_tag(path=str(JS))
        assert page.locator("form.book-check").count() == 0
        assert "assignment" in page.locator(".book-check-elsewhere").text_content()
    finally:
        ctx.close()
