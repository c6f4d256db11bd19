"""Every page of the built site, offline in headless Chromium: no console error, no
request leaving the site, and plotly.js loaded exactly where a page has figures."""

import pytest

from conftest import SITE

PAGES = sorted(str(p.relative_to(SITE)) for p in SITE.rglob("*.html")
               if not p.relative_to(SITE).parts[0].startswith("_")
               and p.name not in ("genindex.html", "search.html", "index.html"))


def test_the_site_has_its_pages():
    for page in ("intro.html", "appendix/machines.html", "chapters/01_why_gpus.html"):
        assert page in PAGES


@pytest.mark.parametrize("page", PAGES)
def test_page_opens_offline(open_page, page):
    p = open_page(page)
    loads_plotly = p.page.evaluate(
        "() => Array.from(document.scripts).some(s => (s.src || '').includes('plotly.min.js'))")
    assert loads_plotly == (p.figures() > 0), \
        f"{page}: plotly.js {'loaded' if loads_plotly else 'missing'} with {p.figures()} figures"
    assert p.blocked == [], f"requests left the site: {p.blocked}"
    assert p.errors == [], f"console errors: {p.errors}"


@pytest.mark.parametrize("page", ["chapters/07_latency.html", "appendix/gallery.html"])
def test_icons_are_drawn_and_then_no_longer_watched_on_pages_of_figures(open_page, page):
    """Font Awesome draws every icon of the page's HTML (none is left an <i>), then stops
    watching the page (book-plotly.js): an icon added afterwards stays an <i>, while on a
    page without figures the watch goes on and draws it."""
    add_icon = """() => new Promise(done => {
        const i = document.createElement('i'); i.className = 'fa-solid fa-sun';
        document.querySelector('main').appendChild(i);
        setTimeout(() => done(i.isConnected ? 'left an <i>' : 'drawn'), 500); })"""
    for path, after in ((page, "left an <i>"), ("appendix/sources.html", "drawn")):
        p = open_page(path)
        p.page.wait_for_function("() => document.querySelectorAll('svg.svg-inline--fa').length > 3")
        assert p.page.evaluate("() => document.querySelectorAll('i[class*=fa-]').length") == 0
        assert p.page.evaluate(add_icon) == after, path
        p.page.close()


def test_the_root_redirects_to_the_first_page_and_names_the_icon(open_page):
    """index.html sends a reader to intro.html and declares the site's icon, so no
    browser asks for a /favicon.ico the site does not have (a 404 in the console)."""
    import re

    html = (SITE / "index.html").read_text(encoding="utf-8")
    assert re.search(r'http-equiv="Refresh" content="0; url=intro.html"', html), html
    icon = re.search(r'<link rel="icon" href="([^"]+)"', html)
    assert icon and (SITE / icon.group(1)).is_file(), html
    p = open_page("index.html")
    p.page.wait_for_url("**/intro.html")
    assert p.errors == [] and p.blocked == []
