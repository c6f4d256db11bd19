"""The live widgets in a real JupyterLab 4, in headless Chromium, offline.

A notebook that displays every widget of ``widgets.WIDGETS`` (live mode) runs in a
JupyterLab served on 127.0.0.1 (tests/jupyterlab_live.py). In the page, each widget must
draw its figure across the whole width of its output, show every string of its tables
(drawn before its output was attached, a plotly table lost each string with a space and
a figure stayed 700 px wide), and redraw its traces when a slider's handle gets a key
press or a dropdown changes. Nothing may be fetched from anywhere but the lab.

Round-trip times are printed by scripts/bench_live_jupyterlab.py, never asserted here.
"""
from __future__ import annotations

import json
import re

import pytest

import jupyterlab_live as jl
import widgets
from conftest import SCREENSHOTS, bounded

pytestmark = pytest.mark.browser

NAMES = list(widgets.WIDGETS)


def _views() -> dict:
    return {n: getattr(widgets, n)() for n in NAMES}


@pytest.fixture(scope="module")
def lab_page(browser):
    """The widgets' notebook opened in JupyterLab and run, every widget scrolled to and
    drawn once."""
    with jl.jupyterlab() as lab:
        (lab.root / "widgets.ipynb").write_text(json.dumps(jl.widget_notebook(NAMES)))
        lp = jl.open_notebook(browser, lab, "widgets.ipynb")
        try:
            jl.run_all(lp, len(NAMES))
            for i in range(len(NAMES)):
                jl.show(lp, i)
            yield lp
        finally:
            lp.page.context.close()


def _text(s: str) -> str:
    """A table string as plotly writes it: tags (<b>, <br>) dropped; spaces dropped too,
    since a wrapped cell splits its words over lines."""
    return re.sub(r"\s+", "", re.sub(r"<[^>]*>", "", s))


def test_every_widget_fills_its_output_and_shows_its_table_text(lab_page):
    views = _views()
    problems = []
    for i, name in enumerate(NAMES):
        jl.show(lab_page, i)
        p = lab_page.page.evaluate("i => window.__book.probe(i)", i)
        jl.widget_cell(lab_page, i).locator(".jp-OutputArea-output").first.screenshot(
            path=str(_shot(f"jupyterlab-{name}")))
        if p["traces"] != len(views[name].traces(views[name].initial())):
            problems.append(f"{name}: {p['traces']} traces drawn")
        # plotly's figure (and the SVG it drew) spans the output area.
        for what in ("figureWidth", "svgWidth"):
            if p[what] is None or abs(p[what] - p["outputWidth"]) > 2:
                problems.append(f"{name}: {what} {p[what]} px in a {p['outputWidth']} px output")
        tables = [t for t in views[name].traces(views[name].initial())
                  if t.get("type") == "table"]
        if p["tables"] != len(tables):
            problems.append(f"{name}: {p['tables']} tables drawn, the view has {len(tables)}")
        shown = {_text(s) for s in p["tableText"]}
        for t in tables:
            want = [str(v) for v in t.get("header", {}).get("values", [])]
            want += [str(v) for col in t["cells"]["values"] for v in col]
            missing = [s for s in want if _text(s) and _text(s) not in shown]
            if missing:
                problems.append(f"{name}: table text not shown: {missing[:6]}")
        if p["sliders"] != len(views[name].sliders()) or \
                p["menus"] != len(views[name].menus()):
            problems.append(f"{name}: {p['sliders']} sliders and {p['menus']} dropdowns shown")
    assert not problems, "\n".join(problems)


def test_a_key_press_on_each_slider_moves_the_traces(lab_page):
    views = _views()
    failures = []
    for i, name in enumerate(NAMES):
        for k, control in enumerate(views[name].sliders()):
            r = jl.slider_round_trip(lab_page, i, k)
            if not r["moved"] or r["after"] == r["before"]:
                failures.append(f"{name} {control.name}: {r['key']} from {r['before']!r} "
                                f"to {r['after']!r}, traces moved: {r['moved']}")
    assert not failures, "\n".join(failures)


# The figure's SVG without what a step never draws (hover layer, menus), without the
# empty text groups plotly leaves for points with no text, and without the small shift
# plotly gives an axis title to clear its tick labels: plotly's own relayout of an
# autorange (a "rerange" step) and its whole replot settle it differently (coalescing's
# byte-address title: 1.7 px, once), whoever asked for them. Coordinates are compared to
# a hundredth of a pixel: a tick label at y="359.00000000000006" after one and y="359"
# after the other draws the same.
SVG = r"""i => {
  const gd = window.__book.outputs()[i].querySelector('.js-plotly-plot');
  return Array.from(gd.querySelectorAll('.main-svg')).map(svg => {
    const copy = svg.cloneNode(true);
    copy.querySelectorAll('.hoverlayer, .updatemenu-container').forEach(n => n.remove());
    copy.querySelectorAll('g[class^="g-"][class$="title"]').forEach(n => n.removeAttribute('transform'));
    return copy.outerHTML;
  }).join('\n').replace(/<g class="textpoint"( transform="[^"]*")?><\/g>/g, '')
    .replace(/\d+\.\d+/g, m => String(+(+m).toFixed(2)));
}"""


def test_slider_updates_are_drawn_lean_and_as_a_replot_draws_them(lab_page):
    """A kernel's slider update skips plotly's whole-figure replot (the step engine,
    widgets/plotly_step.js, draws it: "lean", or "rerange" where autoranged axes move),
    and what it drew is what plotly draws from the same data on a whole replot."""
    views = _views()
    failures = []
    for i, name in enumerate(NAMES):
        if not views[name].sliders():
            continue
        r = jl.slider_round_trip(lab_page, i, 0)
        how = lab_page.page.evaluate(
            "i => window.__book.outputs()[i].querySelector('.js-plotly-plot')"
            ".dataset.lastStep || 'plotly'", i)
        if how not in ("lean", "rerange"):
            failures.append(f"{name}: drawn by {how}, not the step engine ({r['events']})")
            continue
        drawn = lab_page.page.evaluate(SVG, i)
        lab_page.page.evaluate(bounded(
            "i => Plotly.redraw(window.__book.outputs()[i].querySelector('.js-plotly-plot'))",
            "Plotly.redraw of the live figure"), i)
        lab_page.page.wait_for_timeout(300)
        again = lab_page.page.evaluate(SVG, i)
        if drawn != again:
            at = next((j for j, (x, y) in enumerate(zip(drawn, again)) if x != y),
                      min(len(drawn), len(again)))
            failures.append(f"{name}: the {how} step differs from a replot at {at}: "
                            f"{drawn[max(0, at - 80):at + 60]!r} vs "
                            f"{again[max(0, at - 80):at + 60]!r}")
    assert not failures, "\n".join(failures)


def test_a_dropdown_change_redraws_the_figure(lab_page):
    views = _views()
    failures = []
    for i, name in enumerate(NAMES):
        for k, control in enumerate(views[name].menus()):
            r = jl.dropdown_round_trip(lab_page, i, k)
            if not r["moved"]:
                failures.append(f"{name} {control.name}: {r['before']!r} -> {r['after']!r} "
                                f"left the traces where they were")
    assert not failures, "\n".join(failures)


def test_nothing_but_the_lab_was_asked_for_and_no_console_error(lab_page):
    lp = lab_page
    assert lp.page.evaluate("() => window.__book.outputs().length") == len(NAMES)
    assert lp.blocked == [], f"requests that left the lab: {lp.blocked[:10]}"
    origin = lp.lab.url.replace("http://", "ws://")
    assert lp.sockets and all(u.startswith(origin + "/") for u in lp.sockets), lp.sockets
    assert lp.errors == [], lp.errors[:10]


def _shot(name: str):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"{name}.png"
