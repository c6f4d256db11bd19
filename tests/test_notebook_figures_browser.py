"""Outside the site, a figure must draw itself: the notebook form of a lab plot, a static
figure and a widget's static twin, put into a bare page as Colab, JupyterLab or VS Code
put an output (a page with no plotly.js of its own), draw their traces in Chromium.
plotly.js comes from plotly's CDN in a notebook; here that address is answered with the
plotly.js the installed plotly ships (no network), and every other request is refused."""
from __future__ import annotations

import os
import pathlib

import plotly
import pytest

import labs
import widgets
from widgets import static

pytestmark = pytest.mark.browser

PLOTLY_JS = pathlib.Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def _outputs() -> list[tuple[str, str, int]]:
    """(what, html, traces expected) in the notebook form."""
    os.environ.pop(static.MODE_ENV, None)
    assert not static.in_book_build()
    view = labs.show("divergence")
    lab_html = view._repr_mimebundle_()["text/html"]
    fig = view.figure()
    out = [("lab divergence", lab_html, len(fig.data))]
    sf = static.StaticFigure(fig, name="s")
    out.append(("StaticFigure", sf._repr_mimebundle_()["text/html"], len(fig.data)))
    w = widgets.amdahl_gustafson()
    out.append(("widget static twin", w.static_html(), len(w.static_figure().data)))
    from widgets import diagrams

    d = diagrams.flash_loop()
    out.append(("diagram", d.static_html(), len(d.static_figure().data)))
    return out


@pytest.mark.parametrize("preloaded", [False, True], ids=["loads plotly.js", "page has Plotly"])
def test_notebook_figures_draw_in_a_bare_page(browser, preloaded):
    for what, html, traces in _outputs():
        assert 'class="book-figure"' not in html, what  # never the site-only div
        ctx = browser.new_context(viewport={"width": 900, "height": 900})
        page = ctx.new_page()
        asked, errors = [], []

        def route(r):
            asked.append(r.request.url)
            if r.request.url == static.PLOTLY_CDN.format(version=static.plotly_js_version()) + ".js":
                r.fulfill(path=str(PLOTLY_JS), content_type="application/javascript")
            elif r.request.url.startswith("http://output.test/"):
                r.continue_()
            else:
                r.abort()

        page.route("**/*", route)
        page.on("pageerror", lambda e: errors.append(str(e)))
        head = f"<script>{PLOTLY_JS.read_text()}</script>" if preloaded else ""
        page.route("http://output.test/", lambda r: r.fulfill(
            body=f"<html><head>{head}</head><body>{html}</body></html>", content_type="text/html"))
        page.goto("http://output.test/")
        page.wait_for_function("() => document.querySelector('.js-plotly-plot') &&"
                               " document.querySelector('.js-plotly-plot').data", timeout=20000)
        drawn = page.evaluate("() => document.querySelector('.js-plotly-plot').data.length")
        width = page.evaluate("() => document.querySelector('.js-plotly-plot')"
                              ".getBoundingClientRect().width")
        ctx.close()
        assert drawn == traces, what
        assert width > 600, f"{what}: the figure should take the output's width, got {width}"
        assert not errors, (what, errors)
        loaded = [u for u in asked if "cdn.plot.ly" in u]
        assert loaded == ([] if preloaded else loaded[:1]) and (preloaded or loaded), (what, asked)
