"""The browser tests' Chromium reaches nothing but the local server, and a tab notes every
request that tries to leave it (conftest.open_tab): a test that says "no request left the
site" can fail. Nothing is routed through playwright (which would turn the browser's cache
off); the switches in conftest.CHROMIUM_ARGS do the blocking."""
from __future__ import annotations

import pytest

from conftest import open_tab

pytestmark = pytest.mark.browser

#: fetch(url) from the page: "reached" or "failed: <why>", bounded by the page's own timer.
FETCH = """url => Promise.race([
  fetch(url, {mode: 'no-cors', cache: 'no-store'}).then(() => 'reached', e => 'failed: ' + e),
  new Promise(r => setTimeout(() => r('no answer in 8 s'), 8000))])"""


@pytest.mark.parametrize("url", ["http://example.com/plotly.min.js",   # a host name
                                 "http://192.0.2.1/x.js",              # an address
                                 "https://cdn.jsdelivr.net/npm/x.js"])
def test_a_request_that_leaves_the_site_fails_and_is_noted(site_tabs, server, url):
    tab, blocked = open_tab(site_tabs, server)
    try:
        tab.goto(f"{server}/intro.html", wait_until="load")
        assert blocked == []
        assert tab.evaluate(FETCH, url).startswith("failed")
        assert blocked == [url]
    finally:
        tab.close()


def test_the_local_server_is_reached_and_not_noted(site_tabs, server):
    tab, blocked = open_tab(site_tabs, server)
    try:
        tab.goto(f"{server}/intro.html", wait_until="load")
        assert tab.evaluate(FETCH, f"{server}/search.html") == "reached"
        assert blocked == []
    finally:
        tab.close()


def test_each_tab_starts_its_documents_with_its_own_theme(site_tabs, server):
    """The tabs share one localStorage; each document reads the theme stored by its own
    tab's first script, so two tabs open at once keep the themes they were opened with."""
    themed, _ = open_tab(site_tabs, server, theme="dark")
    first, _ = open_tab(site_tabs, server, theme=None)
    try:
        themed.goto(f"{server}/intro.html", wait_until="load")
        first.goto(f"{server}/intro.html", wait_until="load")
        mode = "() => [document.documentElement.dataset.mode, document.documentElement.dataset.theme]"
        assert themed.evaluate(mode) == ["dark", "dark"]
        assert first.evaluate(mode) == ["auto", "light"]    # the emulated system scheme
        with pytest.raises(ValueError, match="theme must be"):
            open_tab(site_tabs, server, theme="sepia")
    finally:
        themed.close()
        first.close()
