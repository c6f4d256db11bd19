"""Slider steps on the Widget gallery in headless Chromium, offline: book-plotly.js applies
a step without plotly's whole-figure replot where the step leaves axes and legend as they
are (see stepSlider there). Every slider of every widget is clicked with the mouse onto
its last, first and middle tick; after each step

- the page's plotly data holds the step's values (the values widgets/base.py computed
  from perfmodel for that setting; tests/test_widgets_static.py checks those against
  perfmodel), and
- the figure's SVG is the one Plotly.restyle of the same step draws: the figure is
  serialised, restyled with the step's arguments (a whole replot; the axis types its
  layout sets kept), serialised again, and
  the two must be equal; and so must what plotly computed from the data, the full traces
  and their calcdata (what hover labels and later steps read), and each table's model
  with the values its column blocks and cells hold (what scrolling the table redraws
  from). Empty text groups (<g class="textpoint"></g>, which draw nothing) are left out of
  both; plotly keeps or drops them depending on the path.

A table's cells are rewritten in place by a step where they can be (tablesInPlace in
widgets/plotly_step.js); a second test takes each table figure through several steps in a
row, with no replot between, before it compares.

No timing is asserted here: speed is measured by scripts/bench_widgets.py."""
from __future__ import annotations

import pytest

import widgets
from conftest import STEP_DRAWN, bounded
from widgets import diagrams

pytestmark = pytest.mark.browser
PAGE = "appendix/gallery.html"

SERIALISE = r"""i => {
  const gd = document.querySelectorAll('.book-figure .js-plotly-plot')[i];
  return Array.from(gd.querySelectorAll('.main-svg')).map(svg => {
    const copy = svg.cloneNode(true);
    copy.querySelectorAll('.hoverlayer, .slider-container, .updatemenu-container')
        .forEach(n => n.remove());
    return copy.outerHTML;
  }).join('\n').replace(/<g class="textpoint"( transform="[^"]*")?><\/g>/g, '')
    // a translate's sub-pixel noise (1.6990 against 1.7000 px) draws nothing different
    .replace(/translate\(([-\d.e]+),\s*([-\d.e]+)\)/g,
             (m, x, y) => `translate(${(+x).toFixed(2)},${(+y).toFixed(2)})`);
}"""

# What plotly computed from the data (the full traces and their calcdata), without
# plotly's private bookkeeping (keys with "_", except a trace's length and the data
# extremes its axes range from), DOM nodes, and the sizes that drawing the legend notes
# on a trace's first point (a whole replot draws the legend, a step does not).
STATE = r"""i => {
  const gd = document.querySelectorAll('.book-figure .js-plotly-plot')[i];
  const KEEP = ['_length', '_extremes'];
  const plain = (v, depth) => {
    if (typeof v === 'function') return 'function';
    if (v === null || typeof v !== 'object') return v;
    if (v instanceof Node || depth > 8) return '...';
    if (Array.isArray(v) || ArrayBuffer.isView(v)) return Array.from(v, x => plain(x, depth + 1));
    const o = {};
    Object.keys(v).sort().forEach(k => {
      if (k === 'trace' || (k.startsWith('_') && !KEEP.includes(k))) return;
      o[k] = plain(v[k], depth + 1);
    });
    return o;
  };
  // a table's model (plotly builds it from the trace as it draws it, and its column
  // blocks and cells keep their parts: what scrolling the table draws again from)
  const tables = Array.from(gd.querySelectorAll('g.table')).map(g => ({
    model: plain(g.__data__, 4),
    blocks: Array.from(g.querySelectorAll('.column-block'), b => plain(b.__data__.values, 0)),
    cells: Array.from(g.querySelectorAll('.cell-text'), c => plain(c.__data__.value, 0))}));
  return JSON.stringify({tables: tables, full: gd._fullData.map(t => plain(t, 0)),
                         calc: gd.calcdata.map(cd => cd.map((pt, n) => {
                           const p = plain(pt, 0);
                           if (n === 0) ['height', 'lineHeight', 'width'].forEach(k => delete p[k]);
                           return p;
                         }))});
}"""

ARM = """i => {
  const gd = document.querySelectorAll('.book-figure .js-plotly-plot')[i];
  window.__step = new Promise(resolve => {
    const done = ev => { gd.removeListener('book_slider_step', done); resolve(ev.path); };
    gd.on('book_slider_step', done);
  });
}"""

DATA_HOLDS_STEP = """([i, s, k]) => {
  const gd = document.querySelectorAll('.book-figure .js-plotly-plot')[i];
  const [upd, idx] = gd.layout.sliders[s].steps[k].args;
  const wrong = [];
  idx.forEach((j, n) => Object.keys(upd).forEach(key => {
    let v = gd.data[j];
    for (const part of key.split('.')) v = v === undefined ? v : v[part];
    const got = JSON.stringify(v === undefined ? null : v), want = JSON.stringify(upd[key][n]);
    if (got !== want) wrong.push(`trace ${j} ${key}: ${got.slice(0, 80)} != ${want.slice(0, 80)}`);
  }));
  return wrong;
}"""

# The whole replot of a step: Plotly.restyle, with the axis types that the figure's own
# layout sets (read from its JSON) kept: plain restyle of x or y clears them (log types
# excepted; a type is kept on autoranged axes only, as relayout of a type autoranges).
RESTYLE = """([i, s, k]) => {
  const holder = document.querySelectorAll('.book-figure')[i];
  const gd = holder.querySelector('.js-plotly-plot');
  const spec = JSON.parse(holder.querySelector("script[type='application/json']").textContent);
  const types = {};
  Object.entries(spec.layout).forEach(([name, ax]) => {
    if (/^[xy]axis[0-9]*$/.test(name) && ax.type && ax.type !== 'log' && !ax.range &&
        ax.autorange !== false) types[name + '.type'] = ax.type;
  });
  const [upd, idx] = gd.layout.sliders[s].steps[k].args;
  return Plotly.update(gd, upd, types, idx).then(() => true);
}"""


def _where(a: str, b: str) -> str:
    """Where two serialisations first differ, with some text of each around it."""
    at = next((j for j, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"at {at}: {a[max(0, at - 100):at + 80]!r} vs {b[max(0, at - 100):at + 80]!r}"


def slider_figures(page) -> list[tuple[int, str, int]]:
    """(index, figure id, number of sliders) of the gallery's figures with sliders."""
    figs = page.evaluate("() => Array.from(document.querySelectorAll('.book-figure')).map(f =>"
                         " [f.id, (f.querySelector('.js-plotly-plot').layout.sliders || []).length])")
    return [(i, fid, n) for i, (fid, n) in enumerate(figs) if n]


#: Resolves when the armed step has been drawn, or with null after ``ms`` milliseconds.
STEP_WITHIN = """ms => Promise.race([window.__step,
                                   new Promise(r => setTimeout(() => r(null), ms))])"""


def click_tick(page, fig: int, slider: int, tick: int, tries: int = 3) -> str:
    """Click a slider's tick with the mouse and return the path its step was drawn by
    (the step must be armed first). The boxes are read again before each try: a figure
    painted late above the slider (content-visibility skips figures off screen) can move
    the page between reading a box and clicking it, and on a loaded machine such a click
    missed the tick and the step it waited for never came (the hang this test once had)."""
    group = page.locator(".book-figure").nth(fig).locator(".slider-group").nth(slider)
    for _ in range(tries):
        group.scroll_into_view_if_needed()
        page.wait_for_timeout(50)
        rail = group.locator(".slider-rail-rect").bounding_box()
        box = group.locator(".slider-tick-rect").nth(tick).bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, rail["y"] + rail["height"] / 2)
        path = page.evaluate(STEP_WITHIN, 3000)
        if path is not None:
            return path
    # No step after every try: wait once more, bounded, so the failure says what it waited for.
    return page.evaluate(STEP_DRAWN)


def test_every_step_draws_what_restyle_draws(open_page):
    p = open_page(PAGE)
    page = p.page
    figures = slider_figures(page)
    names = {getattr(widgets, w)().name for w in widgets.WIDGETS} | \
        {getattr(diagrams, d)().name for d, _chapter in diagrams.DIAGRAMS}
    assert {fid.rsplit("-", 1)[0].removeprefix("book-figure-") for _, fid, _ in figures} \
        <= names
    how = {"lean": 0, "rerange": 0, "fast": 0, "replot": 0}
    problems = []
    for i, fid, n_sliders in figures:
        for s in range(n_sliders):
            n = page.evaluate("([i, s]) => document.querySelectorAll('.book-figure .js-plotly-plot')"
                              "[i].layout.sliders[s].steps.length", [i, s])
            for k in dict.fromkeys([n - 1, 0, n // 2]):
                active = page.evaluate("([i, s]) => document.querySelectorAll('.book-figure "
                                       ".js-plotly-plot')[i].layout.sliders[s].active", [i, s])
                if active == k:
                    continue
                page.evaluate(ARM, i)
                path = click_tick(page, i, s, k)
                how[path] += 1
                page.wait_for_timeout(50)
                wrong = page.evaluate(DATA_HOLDS_STEP, [i, s, k])
                if wrong:
                    problems.append(f"{fid} slider {s} step {k}: data {wrong[:3]}")
                drawn, state = page.evaluate(SERIALISE, i), page.evaluate(STATE, i)
                page.evaluate(bounded(RESTYLE, "Plotly.update of the step"), [i, s, k])
                page.wait_for_timeout(50)
                replotted, restate = page.evaluate(SERIALISE, i), page.evaluate(STATE, i)
                for what, a, b in (("plotly's state", state, restate), ("SVG", drawn, replotted)):
                    if a != b:
                        problems.append(f"{fid} slider {s} step {k} ({path}): {what} differs: "
                                        + _where(a, b))
    print(f"slider steps: {how['lean']} lean (calc only), {how['rerange']} lean with axes ranged "
          f"again, {how['fast']} through Plotly.animate, "
          f"{how['replot']} replotted")
    assert problems == [], "\n".join(problems)
    assert how["lean"] > 0, "no step took book-plotly.js's lean path (calc without defaults)"
    assert p.errors == [] and p.blocked == []


#: How each figure's tables were drawn by its steps so far: [figure id, {"inPlace": n,
#: "plotted": m}] for the figures with a table (book-plotly-step.js notes it).
TABLE_STEPS = """() => Array.from(document.querySelectorAll('.book-figure')).map(f => {
  const gd = f.querySelector('.js-plotly-plot');
  return gd.querySelector('g.table') && (gd.layout.sliders || []).length ?
    [f.id, gd._bookTableSteps || {inPlace: 0, plotted: 0}, gd._bookTableWhy || null] : null;
}).filter(Boolean)"""


def test_steps_in_a_row_write_tables_as_restyle_draws_them(open_page):
    """A table's cells rewritten in place (book-plotly-step.js's tablesInPlace) step after
    step, with no whole replot between: every tick of each figure's first slider in turn,
    then the figure, its table's model and its plotly state are the ones Plotly.restyle
    of the last step draws. Each figure with a table and a slider wrote its table in place
    at every step."""
    p = open_page(PAGE)
    page = p.page
    tables = {fid for fid, _tally, _why in page.evaluate(TABLE_STEPS)}
    assert len(tables) >= 3, tables            # the book draws tables in several widgets
    problems = []
    for i, fid, _n in slider_figures(page):
        if fid not in tables:
            continue
        n = page.evaluate("i => document.querySelectorAll('.book-figure .js-plotly-plot')[i]"
                          ".layout.sliders[0].steps.length", i)
        active = page.evaluate("i => document.querySelectorAll('.book-figure .js-plotly-plot')"
                               "[i].layout.sliders[0].active", i)
        ticks = [k for k in list(range(n - 1, -1, -1))[:6] if k != active]
        for k in ticks:
            page.evaluate(ARM, i)
            assert click_tick(page, i, 0, k) == "lean", f"{fid} tick {k}"
        page.wait_for_timeout(50)
        drawn, state = page.evaluate(SERIALISE, i), page.evaluate(STATE, i)
        page.evaluate(bounded(RESTYLE, "Plotly.update of the step"), [i, 0, ticks[-1]])
        page.wait_for_timeout(50)
        for what, a, b in (("plotly's state", state, page.evaluate(STATE, i)),
                           ("SVG", drawn, page.evaluate(SERIALISE, i))):
            if a != b:
                problems.append(f"{fid} after ticks {ticks}: {what} differs: " + _where(a, b))
    assert problems == [], "\n".join(problems)
    tallies = page.evaluate(TABLE_STEPS)
    assert {fid for fid, _t, _w in tallies} == tables
    for fid, tally, why in tallies:
        assert tally["plotted"] == 0 and tally["inPlace"] > 0, (fid, tally, why)
    assert p.errors == [] and p.blocked == []


def test_steps_are_marked_for_book_plotly_and_themed(open_page):
    """The site's figures carry their steps with execute false (book-plotly.js applies
    them), the sliders a dropdown entry installs too; the Python figure itself keeps
    plotly's default (a figure drawn outside the site steps by itself)."""
    p = open_page(PAGE, theme="dark")
    i = p.figure_index("roofline-explorer")
    lay = p.figure_layout(i)
    for sl in lay["sliders"]:
        assert all(st.get("execute") is False for st in sl["steps"] if st["method"] == "restyle")
        assert sl["bgcolor"] == "#2b2f36" and sl["activebgcolor"] == "#5c6470"
    for menu in lay["updatemenus"]:
        for button in menu["buttons"]:
            for sl in button["args"][1].get("sliders", []):
                assert all(st.get("execute") is False for st in sl["steps"])
                assert sl["bgcolor"] == "#2b2f36"
    fig = widgets.roofline_explorer().static_figure().to_plotly_json()
    assert all("execute" not in st for sl in fig["layout"]["sliders"] for st in sl["steps"])
    # A dropdown entry installs its own sliders: they keep the dark rails.
    plot = p.page.locator(".book-figure").nth(i)
    plot.locator(".updatemenu-header-group").nth(0).click()
    plot.locator(".updatemenu-item-text", has_text="machine: H100").first.click()
    p.page.wait_for_timeout(300)
    after = p.figure_layout(i)
    assert [sl["bgcolor"] for sl in after["sliders"]] == ["#2b2f36"] * len(after["sliders"])
    assert p.errors == [] and p.blocked == []
