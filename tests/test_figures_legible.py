"""Every figure of every page of the built site, as a reader sees it: light and dark, in
a 1280 px window (a 688 px column) and a 760 px one (the column without the sidebar). Each
page is loaded once and the window narrowed, which a test below shows draws the figures a
reader who opens the page at 760 px sees.

tests/legibility.py's probe reads plotly's text boxes (ticks, titles, legend entries,
annotations, slider and menu labels, text beside points) and the drawn points; a figure
passes when no text leaves the figure or is cut at its plot area's edge, no two texts
overlap, no legend sits on drawn points and no tick writes plotly's "B" for billion or
e-notation. Every figure is also saved as a
screenshot under _build/screenshots/legibility/ for a person to look at.

The probe itself is tested first on a page made to fail, so a pass below means the
figures are legible, not that the probe is blind.
"""
from __future__ import annotations

import functools
import http.server
import json
import pathlib
import re
import threading

import pytest

from conftest import ROOT, SCREENSHOTS
import legibility

pytestmark = pytest.mark.browser

#: Each page is loaded once, at the first width, and looked at in both themes at each width:
#: the window is narrowed for the second (the sidebar folds away and every figure is drawn
#: again for its narrower column, as for a reader who narrows the window).
WIDTHS = (1280, 760)
THEMES = ("light", "dark")
#: The pages are split into this many tests, so that two workers share them.
PARTS = 2


def pages_with_figures(site) -> list[str]:
    return sorted(str(p.relative_to(site)) for p in site.rglob("*.html")
                  if 'class="book-figure"' in p.read_text(errors="ignore"))


def views(p):
    """Yield (width, theme, figures) for the open page p: every width of WIDTHS, and at each
    the themes in the order that needs one switch a width (light, dark at the first; dark,
    light at the next). The theme switch is the reader's (book-plotly.js recolours every
    figure and the switch waits for it); the width's change waits until plotly has drawn
    every figure again for its new column."""
    order = list(THEMES)
    for i, width in enumerate(WIDTHS):
        if i:
            p.set_width(width)
        for theme in order:
            if theme != p.theme:
                p.set_theme(theme)
            p.page.wait_for_timeout(150)
            yield width, theme, p.page.evaluate(legibility.PROBE)
        order.reverse()


def _report(found: dict, what: str) -> str:
    listed = "\n".join(f"{k}:\n    " + "\n    ".join(v[:6]) for k, v in found.items())
    return f"{len(found)} {what} are hard to read:\n{listed}"


@pytest.mark.parametrize("part", range(PARTS))
def test_every_figure_is_legible(site, open_page, part):
    """Every figure of every page (this test's share of the pages), in both themes at each
    width; each view saved as a screenshot under _build/screenshots/legibility/."""
    everything = pages_with_figures(site)
    assert len(everything) >= 12, f"only {len(everything)} pages with figures in {site}"
    pages = everything[part::PARTS]
    folder = SCREENSHOTS / "legibility"
    folder.mkdir(parents=True, exist_ok=True)
    found, seen = {}, 0
    for path in pages:
        p = open_page(path, width=WIDTHS[0], height=900, theme=THEMES[0])
        for width, theme, figures in views(p):
            assert figures, f"{path}: no figure drawn at {width} px ({theme})"
            for k, fig in enumerate(figures):
                seen += 1
                stem = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{path[:-5]}-{fig['id']}-{width}-{theme}")
                p.figure_screenshot(k, folder / f"{stem}.png")
                probs = legibility.problems(fig)
                if probs:
                    found[f"{path} {fig['id']} ({width} px, {theme})"] = probs
        p.page.close()
    assert not found, _report(found, f"of {seen} figure views on {len(pages)} pages")


def _placed(figures) -> list:
    """What the probe saw, as positions within each figure (px, rounded): the figure's size
    and each text with its kind and place."""
    return [(f["id"], round(f["x1"] - f["x0"]), round(f["y1"] - f["y0"]),
             sorted((t["text"], t["kind"], round(t["x0"] - f["x0"]), round(t["y0"] - f["y0"]))
                    for t in f["texts"])) for f in figures]


@pytest.mark.parametrize("path", ["chapters/04_roofline.html", "chapters/09_roof_moves.html"])
def test_a_narrowed_window_draws_what_a_narrow_one_loads(open_page, path):
    """The legibility test narrows the window instead of loading each page again: that is
    only the same test if every figure, drawn again for the narrower column, is the figure a
    reader who opens the page at that width sees. (Here it once was not: a floor on the
    figures' height in book.css stretched the 310 px diagrams of these pages to 360 px on a
    resize, moving every label.)"""
    fresh = open_page(path, width=WIDTHS[1], height=900, theme=THEMES[0])
    want = _placed(fresh.page.evaluate(legibility.PROBE))
    fresh.page.close()
    p = open_page(path, width=WIDTHS[0], height=900, theme=THEMES[0])
    looked = list(views(p))
    p.page.close()
    width, theme, figures = looked[-1]
    assert (width, theme) == (WIDTHS[1], THEMES[0])
    got = _placed(figures)
    assert want, f"{path}: no figure drawn"
    changed = [(w[0], w[1:3], g[1:3], sorted(set(w[3]) ^ set(g[3]))[:4])
               for w, g in zip(want, got) if w != g]
    assert len(got) == len(want) and not changed, changed


# --- the probe is not blind ------------------------------------------------------------

BAD = {
    "data": [
        {"type": "scatter", "x": [1, 2, 3, 4, 5, 6], "y": [1e9, 2e9, 3e9, 4e9, 5e9, 6e9],
         "name": "the data"},
        {"type": "scatter", "x": [1, 6], "y": [6e9, 1e9], "mode": "lines",
         "name": "a legend entry that is long enough to sit on the data"},
        {"type": "scatter", "x": [1, 6], "y": [1e10, 1e15], "yaxis": "y2", "mode": "lines",
         "showlegend": False},
        {"type": "scatter", "x": [5.8], "y": [2e9], "mode": "text", "showlegend": False,
         "text": ["a label the plot area cuts"], "textposition": "middle right"},
    ],
    "layout": {
        "height": 360, "margin": {"l": 10, "r": 160, "t": 10, "b": 40},
        "legend": {"x": 0.5, "y": 0.5, "xanchor": "center", "yanchor": "middle"},
        "xaxis": {"tickvals": [1, 1.05, 6], "ticktext": ["one tick label", "another one", "6"]},
        "yaxis": {"exponentformat": "B", "title": {"text": "a y title far too long to fit"}},
        "yaxis2": {"type": "log", "exponentformat": "power", "overlaying": "y", "side": "right"},
        "annotations": [{"x": 0.9, "y": 0.2, "xref": "paper", "yref": "paper", "showarrow": False,
                         "text": "an annotation past the right edge of it all", "xanchor": "left"}],
    },
}


@pytest.fixture
def bad_page(browser, tmp_path):
    """A page with plotly.js (the package's copy, the one the site ships), the site's
    book-plotly.js and one figure made to fail."""
    import plotly

    js = pathlib.Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    (tmp_path / "plotly.min.js").write_bytes(js.read_bytes())
    (tmp_path / "book-plotly.js").write_bytes((ROOT / "_static" / "book-plotly.js").read_bytes())
    (tmp_path / "book-plotly-step.js").write_bytes(
        (ROOT / "widgets" / "plotly_step.js").read_bytes())
    spec = BAD
    (tmp_path / "bad.html").write_text(
        '<!doctype html><html data-theme="light"><head><meta charset="utf-8">'
        '<script src="plotly.min.js"></script></head><body><div style="width:500px">'
        '<div class="book-figure" id="book-figure-bad"><div class="book-figure-plot" '
        'style="height:360px"></div><script type="application/json">'
        + json.dumps(spec) + '</script></div></div><script src="book-plotly-step.js"></script>'
        '<script src="book-plotly.js"></script></body></html>')

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                            functools.partial(Quiet, directory=str(tmp_path)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    ctx = browser.new_context(viewport={"width": 600, "height": 500})
    page = ctx.new_page()
    page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/bad.html", wait_until="load")
    page.wait_for_function("document.querySelector('.book-figure[data-ready]') !== null",
                           timeout=30000)
    yield page
    ctx.close()
    httpd.shutdown()


def test_the_probe_finds_what_a_reader_cannot_read(bad_page):
    (fig,) = bad_page.evaluate(legibility.PROBE)
    probs = legibility.problems(fig)
    text = "\n".join(probs)
    assert "overlap: tick 'one tick label' and tick 'another one'" in text, text
    assert "clipped annotation 'an annotation past the right edge of it all'" in text, text
    assert re.search(r"legend covers \d+ drawn point", text), text
    assert "cut at the plot's edge: text 'a label the plot area cuts'" in text, text
    assert re.search(r"billion: tick '\d+B'", text), text
    assert re.search(r"e-notation: tick '10\S?1[0-5]", text), text     # 10 and a raised 1x


def test_problems_reads_the_boxes_it_is_given():
    """problems() on boxes set by hand (no browser): what overlaps, what leaves the frame."""
    frame = {"x0": 0, "y0": 0, "x1": 100, "y1": 100, "legend": {"x0": 50, "y0": 50, "x1": 90, "y1": 90},
             "points": [{"x": 70, "y": 70}, {"x": 10, "y": 10}],
             "texts": [{"text": "a", "kind": "tick", "size": 12, "x0": 1, "y0": 1, "x1": 20, "y1": 12},
                       {"text": "b", "kind": "tick", "size": 12, "x0": 15, "y0": 2, "x1": 30, "y1": 13},
                       {"text": "c", "kind": "title", "size": 12, "x0": 95, "y0": 2, "x1": 120, "y1": 13},
                       {"text": "1e+15", "kind": "tick", "size": 12, "x0": 40, "y0": 30, "x1": 48, "y1": 40},
                       {"text": "hidden", "kind": "slider", "size": 1, "x0": 0, "y0": 0, "x1": 300, "y1": 1}]}
    got = legibility.problems(frame)
    assert got == ["clipped title 'c'", "overlap: tick 'a' and tick 'b'",
                   "e-notation: tick '1e+15'", "legend covers 1 drawn point(s)"]


# --- the diagrams (widgets/diagrams), each one by name -----------------------------------

def test_every_diagram_is_legible(site, open_page):
    """Every diagram, found by its name on the gallery page (which draws each one), passes
    the probe in both themes at each width; its screenshots are saved under
    _build/screenshots/diagrams/."""
    from widgets import diagrams

    want = {getattr(diagrams, name)().name for name, _chapter in diagrams.DIAGRAMS}
    folder = SCREENSHOTS / "diagrams"
    folder.mkdir(parents=True, exist_ok=True)
    p = open_page("appendix/gallery.html", width=WIDTHS[0], height=900, theme=THEMES[0])
    found = {}
    for width, theme, figures in views(p):
        seen = set()
        for k, fig in enumerate(figures):
            name = re.sub(r"^book-figure-|-\d+$", "", fig["id"])
            if name not in want:
                continue
            seen.add(name)
            p.figure_screenshot(k, folder / f"{name}-{width}-{theme}.png")
            probs = legibility.problems(fig)
            if probs:
                found[f"{name} ({width} px, {theme})"] = probs
        assert seen == want, (f"diagrams not drawn on the gallery ({width} px, {theme}): "
                              f"{sorted(want - seen)}")
    p.page.close()
    assert not found, _report(found, "diagram views")
