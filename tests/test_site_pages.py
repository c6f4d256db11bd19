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
