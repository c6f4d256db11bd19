"""No browser test can hang: an in-page wait that never resolves fails within its bound,
and says what it was waiting for.

Playwright bounds actions and ``wait_for_*`` calls but no ``page.evaluate``: a promise the
page never resolves blocks the test for ever. That is how the slider-steps test once sat at
0% CPU for 13 minutes: its mouse click missed the tick on a loaded machine, no step came,
and ``page.evaluate("window.__step")`` waited on. ``conftest.bounded`` races such a wait
against a timer inside the page; pytest-timeout bounds every test as a second line."""
from __future__ import annotations

import time

import pytest

from conftest import STEP_DRAWN, TIME_CEILING_S, bounded
from test_slider_steps_browser import ARM, PAGE, slider_figures

pytestmark = pytest.mark.browser


def test_a_wait_that_never_resolves_fails_within_its_bound_with_a_message(browser):
    page = browser.new_page()
    try:
        page.set_content("<p>a page that never answers</p>")
        start = time.monotonic()
        with pytest.raises(Exception, match=r"timed out after 1 s waiting for a promise "
                                             r"that never resolves"):
            page.evaluate(bounded("() => new Promise(() => {})",
                                  "a promise that never resolves", seconds=1))
        # Well inside the test's own ceiling: the page's timer, not pytest-timeout, ended it.
        assert time.monotonic() - start < 10
    finally:
        page.close()


def test_a_bounded_wait_returns_what_the_page_resolves(browser):
    page = browser.new_page()
    try:
        page.set_content("<p>ready</p>")
        got = page.evaluate(bounded("x => new Promise(r => setTimeout(() => r(x * 2), 50))",
                                    "a doubling", seconds=5), 21)
        assert got == 42
    finally:
        page.close()


def test_bounded_refuses_a_bound_that_is_not_positive():
    with pytest.raises(ValueError, match="seconds must be > 0"):
        bounded("() => 1", "nothing", seconds=0)


def test_a_missed_slider_click_fails_in_seconds_naming_the_step(open_page):
    """The slider-steps hang, reproduced without load: a step is armed and the click lands
    off the slider, so no step ever comes. The wait ends with the step named."""
    p = open_page(PAGE)
    i = slider_figures(p.page)[0][0]
    p.page.evaluate(ARM, i)
    p.page.mouse.click(2, 2)                       # the page's corner: no slider there
    start = time.monotonic()
    with pytest.raises(Exception, match="waiting for the slider step to be drawn"):
        p.page.evaluate(STEP_DRAWN)
    assert time.monotonic() - start < 30


def test_every_test_has_a_time_ceiling(request):
    """pytest-timeout is on, and this test (in a module of browser tests) carries the
    browser tests' ceiling."""
    assert request.config.pluginmanager.hasplugin("timeout")
    marker = request.node.get_closest_marker("timeout")
    assert marker is not None and marker.args[0] == TIME_CEILING_S["browser"]
