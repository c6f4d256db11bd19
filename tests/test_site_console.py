"""Every page of the built site as a first-time reader opens it: nothing in localStorage
(each document starts with it emptied; conftest's open_page stores a theme there, these
tests do not), offline, and the console must stay free of errors and warnings, among them the
theme's "Got invalid theme mode: . Resetting to auto." that an empty stored mode gave."""
from __future__ import annotations

import pytest

from conftest import SITE, open_tab

pytestmark = pytest.mark.browser

PAGES = sorted(str(p.relative_to(SITE)) for p in SITE.rglob("*.html")
               if not p.relative_to(SITE).parts[0].startswith("_"))


def first_visit(site_tabs, server, path: str, scheme: str = "light"):
    """Open path in a new tab whose documents start with an empty localStorage and whose
    system colour scheme is ``scheme``; return (page, console messages of type error or
    warning, page errors, requests that tried to leave the site). The tab is the caller's
    to close."""
    page, blocked = open_tab(site_tabs, server, theme=None, color_scheme=scheme)
    logged, raised = [], []
    page.on("console", lambda m: logged.append(f"{m.type}: {m.text}")
            if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: raised.append(str(e)))
    page.goto(f"{server}/{path}", wait_until="load")
    n = page.locator(".book-figure").count()
    if n:
        page.wait_for_function(
            "n => document.querySelectorAll('.book-figure[data-ready]').length === n",
            arg=n, timeout=60000)
    page.wait_for_timeout(300)
    return page, logged, raised, blocked


def test_every_page_is_checked():
    for page in ("intro.html", "search.html", "genindex.html", "appendix/gallery.html",
                 "chapters/01_why_gpus.html"):
        assert page in PAGES


@pytest.mark.parametrize("path", PAGES)
def test_first_visit_logs_no_error_or_warning(site_tabs, server, path):
    page, logged, raised, blocked = first_visit(site_tabs, server, path)
    try:
        assert logged == [], f"{path}: console {logged}"
        assert raised == [], f"{path}: uncaught {raised}"
        assert blocked == [], f"{path}: requests left the site: {blocked}"
    finally:
        page.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_first_visit_takes_the_system_scheme(site_tabs, server, scheme):
    """With no stored choice the theme runs in "auto" mode: the page follows the
    system's colour scheme, and the figures with it."""
    page, logged, raised, _ = first_visit(site_tabs, server, "appendix/gallery.html", scheme)
    try:
        root = page.evaluate("() => [document.documentElement.dataset.mode,"
                             " document.documentElement.dataset.theme]")
        assert root == ["auto", scheme]
        font = page.evaluate("() => document.querySelector('.book-figure .js-plotly-plot')"
                             "._fullLayout.font.color")
        assert font == ("#e6e6e6" if scheme == "dark" else "#222222")
        assert logged == [] and raised == []
    finally:
        page.close()
