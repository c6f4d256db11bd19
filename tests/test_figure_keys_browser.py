"""Keyboard and screen-reader access to the built site's figures (issue 26, part A), in
headless Chromium, offline:

- every slider of every slider figure in the Widget gallery is stepped from the keyboard
  (End, Home, the arrow keys, Page Down) on its own Tab stop: the page's traces then hold
  what the view computes from the model for that setting (computed here in Python), and
  the figure is the SVG that Plotly.restyle of that step draws (as after a mouse step:
  tests/test_slider_steps_browser.py);
- Tab gives each slider and menu of a figure one stop, and no stop is a plotly mode-bar
  button; the focused control shows a ring over the plotly control it stands for, in
  the light and the dark theme;
- every figure on every page has a non-empty accessible name and description (as
  Chromium's accessibility tree computes them) and each control a name;
- after each keyboard step the figure's data table holds the step's numbers: the table the
  page writes from its traces is the one widgets/a11y.py writes from the same traces;
- a keyboard step puts the step's result in words in the figure's polite live region:
  the roofline explorer's numbers are checked against perfmodel here;
- a menu chosen from the keyboard draws the model's figure for that choice;
- under reduced motion no slider has a transition and nothing plays by itself.
"""
from __future__ import annotations

import html as _html
import math
import re

import pytest
from test_slider_steps_browser import ARM, DATA_HOLDS_STEP, RESTYLE, SERIALISE, STATE, _where
from conftest import STEP_DRAWN, bounded
from widgets_helpers import approx

import widgets
from perfmodel import machines, ops
from widgets import a11y, diagrams, static

pytestmark = pytest.mark.browser
PAGE = "appendix/gallery.html"

GD = "document.querySelectorAll('.book-figure .js-plotly-plot')[%s]"
#: Figures whose drawn SVG may differ from a whole restyle's, by name, with the reason (the
#: data, the model and plotly's state are still compared for them).
KNOWN_SVG: dict[str, str] = {}
# The gallery's figures with sliders: (index, figure id, slider count, menu count).
SLIDER_FIGURES = """() => Array.from(document.querySelectorAll('.book-figure')).map((f, i) => {
  const gd = f.querySelector('.js-plotly-plot');
  return [i, f.id, (gd.layout.sliders || []).length, (gd.layout.updatemenus || []).length];
})"""


def _views() -> dict:
    """The gallery's views by name (the gallery calls each with its defaults)."""
    made = [getattr(widgets, w)() for w in widgets.WIDGETS]
    made += [getattr(diagrams, d)() for d, _chapter in diagrams.DIAGRAMS]
    return {v.name: v for v in made}


def _view_of(fid: str, views: dict):
    name = fid.removeprefix("book-figure-").rsplit("-", 1)[0]
    assert name in views, f"{fid}: no gallery view named {name!r}"
    return views[name]


def _range(page, fig: int, s: int):
    return page.locator(".book-figure").nth(fig).locator(".book-figure-keys input[type=range]").nth(s)


def _model_holds(page, fig: int, view, slider: int, step: int) -> list[str]:
    """Where the page's traces that slider ``slider`` moves differ from the view's traces
    at that step, computed here from the model (every other control at its start)."""
    c = view.sliders()[slider]
    s = view.initial()
    value = c.choices(s)[step]
    want = static._plain(view.traces(view.settle({**s, c.name: value})))
    idx = page.evaluate(f"([s, k]) => {GD % fig}.layout.sliders[s].steps[k].args[1]",
                        [slider, step])
    got = page.evaluate(f"""idx => idx.map(j => {{
        const t = {GD % fig}.data[j];
        const arr = v => v == null ? null : Array.from(v, x => (Array.isArray(x) || ArrayBuffer.isView(x)) ? Array.from(x) : x);
        return {{x: arr(t.x), y: arr(t.y), text: t.text === undefined ? null : t.text}};
    }})""", idx)
    wrong = []
    for j, g in zip(idx, got):
        for key in ("x", "y"):
            w = want[j].get(key)
            if w is None or g[key] is None:
                continue
            nums = all(isinstance(v, (int, float)) or v is None for v in w)
            gap = lambda vs: [math.nan if v is None else v for v in vs]  # noqa: E731
            if (gap(g[key]) != approx(gap(w), rel=1e-5)) if nums else (g[key] != w):
                wrong.append(f"{view.name} {c.name}={value}: trace {j} {key} "
                             f"{str(g[key])[:60]} != {str(w)[:60]}")
        if isinstance(want[j].get("text"), list) and g["text"] != want[j]["text"]:
            wrong.append(f"{view.name} {c.name}={value}: trace {j} text differs")
    return wrong


#: The figure's data tables as the page holds them: per table its caption, column heads
#: and rows of cells (texts), after the table is opened (a closed one is written on opening).
PAGE_TABLES = """async i => {
  const f = document.querySelectorAll('.book-figure')[i];
  const d = f.querySelector('details.book-figure-data');
  if (!d) return null;
  if (!d.open) {               // opened as a reader opens it; its toggle event comes later
    const toggled = new Promise(r => d.addEventListener('toggle', () => setTimeout(r, 0), {once: true}));
    d.querySelector('summary').click();
    await toggled;
  }
  const text = el => el.textContent;
  return Array.from(d.querySelectorAll('table')).map(t => [
    t.querySelector('caption') ? text(t.querySelector('caption')) : '',
    Array.from(t.querySelectorAll('thead th')).map(text),
    Array.from(t.querySelectorAll('tbody tr')).map(r => Array.from(r.querySelectorAll('td')).map(text))]);
}"""
#: The figure's present traces and every axis's title, as plain JSON (what a11y.data_table
#: reads).
PAGE_SPEC = """i => {
  const gd = document.querySelectorAll('.book-figure .js-plotly-plot')[i];
  const plainArr = v => (v != null && typeof v === 'object' && typeof v.length === 'number')
    ? Array.from(v, plainArr) : v;
  const data = gd.data.map(t => {
    const o = {};
    for (const k of ['type', 'name', 'x', 'y', 'z', 'text', 'hoverinfo', 'showlegend', 'visible',
                     'header', 'cells', 'customdata', 'meta', 'xaxis', 'yaxis'])
      if (t[k] !== undefined) o[k] = plainArr(t[k]);
    for (const k of ['header', 'cells']) if (t[k]) o[k] = {values: plainArr(t[k].values)};
    return o;
  });
  const layout = {};           // every axis's title (a trace on x2 reads xaxis2's)
  for (const a of Object.keys(gd.layout).filter(a => /^[xy]axis\\d*$/.test(a)))
    layout[a] = {title: (gd.layout[a] || {}).title};
  return {data, layout};
}"""


def _tables_of(markup: str) -> list:
    """(caption, heads, rows) of each table in a11y.data_table's markup."""
    cells = lambda tag, text: [_html.unescape(c) for c in  # noqa: E731
                               re.findall(rf"<{tag}(?:\s[^>]*)?>(.*?)</{tag}>", text, re.S)]
    out = []
    for table in re.findall(r"<table.*?</table>", markup, re.S):
        caption = cells("caption", table)
        body = table.split("<tbody>", 1)[1] if "<tbody>" in table else ""
        out.append([caption[0] if caption else "", cells("th", table),
                    [cells("td", row) for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]])
    return out


def _table_follows(page, fig: int) -> list[str]:
    """Where the figure's data table differs from a11y.data_table of the traces the figure
    holds now (the table is opened first; a closed one is written when it opens)."""
    shown = page.evaluate(bounded(PAGE_TABLES, "the data table to open"), fig)
    if shown is None:
        return []
    want = _tables_of(a11y.data_table(page.evaluate(PAGE_SPEC, fig)))
    if shown == want:
        return []
    for k, (a, b) in enumerate(zip(shown, want)):
        if a != b:
            return [f"data table {k} ({b[0]}): shows {str(a)[:160]}, want {str(b)[:160]}"]
    return [f"{len(shown)} data tables shown, {len(want)} wanted"]


def _press(page, key: str) -> str:
    page.keyboard.press(key)
    return page.evaluate(STEP_DRAWN)


def test_every_slider_steps_from_the_keyboard_as_the_model_says(open_page):
    p = open_page(PAGE)
    page = p.page
    views = _views()
    figures = [f for f in page.evaluate(SLIDER_FIGURES) if f[2]]
    assert len(figures) >= 15, f"only {len(figures)} slider figures in the gallery"
    problems, steps = [], 0
    for i, fid, n_sliders, _menus in figures:
        view = _view_of(fid, views)
        for s in range(n_sliders):
            n = page.evaluate(f"s => {GD % i}.layout.sliders[s].steps.length", s)
            control = _range(page, i, s)
            control.focus()
            active = page.evaluate(f"s => {GD % i}.layout.sliders[s].active", s)
            # End, Home, then one step right and a page down, each from where it is.
            plan = [("End", n - 1), ("Home", 0), ("ArrowRight", 1), ("PageDown", 0)]
            for key, k in plan:
                if k == active or k >= n:
                    continue
                page.evaluate(ARM, i)
                _press(page, key)
                page.evaluate(STEP_DRAWN)   # drawn (a rerange step draws after a relayout)
                page.wait_for_timeout(50)
                active = page.evaluate(f"s => {GD % i}.layout.sliders[s].active", s)
                if active != k:
                    problems.append(f"{fid} slider {s}: {key} went to step {active}, not {k}")
                    continue
                steps += 1
                wrong = page.evaluate(DATA_HOLDS_STEP, [i, s, k]) + _model_holds(page, i, view, s, k)
                wrong += _table_follows(page, i)
                problems += [f"{fid} slider {s} {key}: {w}" for w in wrong[:3]]
                drawn, state = page.evaluate(SERIALISE, i), page.evaluate(STATE, i)
                page.evaluate(bounded(RESTYLE, "Plotly.update of the step"), [i, s, k])
                page.wait_for_timeout(50)
                for what, a, b in (("plotly's state", state, page.evaluate(STATE, i)),
                                   ("SVG", drawn, page.evaluate(SERIALISE, i))):
                    if what == "SVG" and view.name in KNOWN_SVG:
                        continue
                    if a != b:
                        problems.append(f"{fid} slider {s} {key}: {what} differs from "
                                        f"restyle's: " + _where(a, b))
                control.focus()
    assert problems == [], "\n".join(problems)
    assert steps > 3 * len(figures)
    assert p.errors == [] and p.blocked == []


TAB_STOP = """() => {
  const el = document.activeElement;
  const fig = el && el.closest('.book-figure');
  return {fig: fig ? fig.id : null, tag: el ? el.tagName.toLowerCase() : '',
          type: el && el.type || '', cls: el && el.getAttribute('class') || '',
          name: el && (el.getAttribute('aria-label') || el.textContent.trim()).slice(0, 40)};
}"""


def test_tab_gives_each_control_one_stop_and_the_mode_bar_none(open_page):
    p = open_page(PAGE)
    page = p.page
    figures = page.evaluate(SLIDER_FIGURES)
    assert page.locator(".book-figure .modebar-btn").count() == 0 or \
        page.evaluate("() => Array.from(document.querySelectorAll('.modebar-btn'))"
                      ".every(b => b.tabIndex < 0)")
    problems = []
    for i, fid, n_sliders, n_menus in figures:
        # A stop placed just before the figure; Tab from it until focus leaves the figure.
        page.evaluate("""i => {
            const f = document.querySelectorAll('.book-figure')[i];
            const b = document.createElement('button'); b.id = 'tab-start'; b.textContent = 'start';
            f.parentNode.insertBefore(b, f); b.focus(); }""", i)
        stops = []
        for _ in range(n_sliders + n_menus + 10):
            page.keyboard.press("Tab")
            stop = page.evaluate(TAB_STOP)
            if stop["fig"] != fid:
                break
            stops.append(stop)
        page.evaluate("() => document.getElementById('tab-start').remove()")
        kinds = [(s["tag"], s["type"]) for s in stops]
        want = [("select", "select-one")] * n_menus + [("input", "range")] * n_sliders
        has_table = page.locator(".book-figure").nth(i).locator("details > summary").count()
        want += [("summary", "")] * has_table
        if kinds != want:
            problems.append(f"{fid}: Tab stops {kinds}, want {want}")
        if any("modebar" in s["cls"] for s in stops):
            problems.append(f"{fid}: a mode-bar button is a Tab stop")
    assert problems == [], "\n".join(problems)
    assert p.errors == [] and p.blocked == []


RING = """([i, s]) => {
  const f = document.querySelectorAll('.book-figure')[i];
  const box = f.querySelectorAll('.book-figure-keys .book-key-slider')[s];
  const st = getComputedStyle(box), r = box.getBoundingClientRect();
  const rail = f.querySelectorAll('.slider-group')[s].querySelector('.slider-rail-rect')
    .getBoundingClientRect();
  const cx = rail.left + rail.width / 2, cy = rail.top + rail.height / 2;
  return {style: st.outlineStyle, width: parseFloat(st.outlineWidth), colour: st.outlineColor,
          over: r.left <= cx && cx <= r.right && r.top <= cy && cy <= r.bottom,
          focused: document.activeElement === box.querySelector('input')};
}"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_focused_control_shows_a_ring_over_its_slider(open_page, theme):
    p = open_page(PAGE, theme=theme)
    page = p.page
    for i, _fid, n_sliders, _menus in page.evaluate(SLIDER_FIGURES)[:3]:
        for s in range(n_sliders):
            _range(page, i, s).focus()
            ring = page.evaluate(RING, [i, s])
            assert ring["focused"] and ring["over"], ring
            assert ring["style"] == "solid" and ring["width"] >= 2, ring
            assert not re.fullmatch(r"rgba\(\d+, \d+, \d+, 0\)|transparent", ring["colour"]), ring
            page.keyboard.press("Tab")       # and it goes away with the focus
            assert page.evaluate(RING, [i, s])["style"] == "none"
    assert p.errors == [] and p.blocked == []


def _pages_with_figures(site) -> list[str]:
    return sorted(str(f.relative_to(site)) for f in site.rglob("*.html")
                  if "_static" not in f.parts and 'class="book-figure"' in f.read_text())


def _ax(cdp, node_id: int) -> dict:
    nodes = cdp.send("Accessibility.getPartialAXTree", {"nodeId": node_id,
                                                         "fetchRelatives": False})["nodes"]
    node = next(n for n in nodes if not n.get("ignored"))
    value = lambda k: (node.get(k) or {}).get("value", "")  # noqa: E731
    return {"role": value("role"), "name": value("name"), "description": value("description")}


def test_every_figure_on_the_site_has_a_name_and_a_description(open_page, site):
    pages = _pages_with_figures(site)
    assert len(pages) >= 12, pages
    problems, figures = [], 0
    for path in pages:
        p = open_page(path)
        cdp = p.page.context.new_cdp_session(p.page)
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        for sel, role in ((".book-figure", "figure"),
                          (".book-figure-keys input[type=range]", "slider"),
                          (".book-figure-keys select", "combobox")):
            for node in cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": sel})["nodeIds"]:
                ax = _ax(cdp, node)
                figures += role == "figure"
                if ax["role"] != role or not ax["name"].strip():
                    problems.append(f"{path}: a {sel} reads as {ax}")
                if role == "figure" and len(ax["description"].split()) < 4:
                    problems.append(f"{path}: a figure's description is {ax['description']!r}")
        assert p.errors == [] and p.blocked == [], path
        p.page.close()      # one page at a time: 17 pages of figures weigh
    assert problems == [], "\n".join(problems[:40])
    assert figures >= 40


LIVE = "i => document.querySelectorAll('.book-figure')[i].querySelector('[aria-live=polite]').textContent"
NUMBER = r"([\d,.]+) ?([kMGTP]?)"
SCALE = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}


def _si(number: str, prefix: str) -> float:
    return float(number.replace(",", "")) * SCALE[prefix]


def test_a_keyboard_step_says_its_result_in_the_live_region(open_page):
    """The roofline explorer (T4, FP32 to start): End on the vector-length slider, then
    one step left on the matmul slider; the live region's numbers are perfmodel's."""
    p = open_page(PAGE)
    page = p.page
    i = next(f[0] for f in page.evaluate(SLIDER_FIGURES) if "roofline-explorer" in f[1])
    t4 = machines.get("T4")
    view = widgets.roofline_explorer()
    n = len(view.sliders()[0].choices(view.initial()))
    assert page.evaluate(LIVE, i) == ""
    for s, key, name in ((0, "End", "vector add"), (1, "ArrowLeft", "matmul, naive")):
        page.evaluate(ARM, i)
        _range(page, i, s).focus()
        page.keyboard.press(key)
        page.evaluate(STEP_DRAWN)
        said = page.evaluate(LIVE, i)
        size = view.sliders()[s].choices(view.initial())[
            page.evaluate(f"s => {GD % i}.layout.sliders[s].active", s)]
        op = ops.vector_add(size, "fp32") if s == 0 else ops.matmul(size, "none", dtype="fp32")
        m = re.search(re.escape(name) + r": intensity " + NUMBER + r" FLOP/byte, " + NUMBER
                      + r"FLOP/s attainable, (memory|compute)-bound", said)
        assert m, said
        peak, bw = t4.peak_flops("fp32"), t4.bandwidth("dram")
        assert _si(m[1], m[2]) == pytest.approx(op.flops / op.bytes, rel=5e-3)
        assert _si(m[3], m[4]) == pytest.approx(min(peak, op.flops / op.bytes * bw), rel=5e-3)
        assert m[5] == ("memory" if op.flops / op.bytes < peak / bw else "compute")
    assert n > 2
    assert p.errors == [] and p.blocked == []


def test_every_slider_figure_says_each_keyboard_step(open_page):
    """Each slider's keyboard step changes its figure's live region to words that name
    the step ("cycle 40: ...")."""
    p = open_page(PAGE)
    page = p.page
    views = _views()
    problems = []
    for i, fid, n_sliders, _menus in page.evaluate(SLIDER_FIGURES):
        view = _view_of(fid, views)
        for s in range(n_sliders):
            before = page.evaluate(LIVE, i)
            at_end = page.evaluate(f"s => {GD % i}.layout.sliders[s].active === "
                                   f"{GD % i}.layout.sliders[s].steps.length - 1", s)
            page.evaluate(ARM, i)
            _range(page, i, s).focus()
            page.keyboard.press("Home" if at_end else "End")   # a key that makes a step
            page.evaluate(STEP_DRAWN)
            said = page.evaluate(LIVE, i)
            c = view.sliders()[s]
            step = f"{c.label} {c.fmt(c.choices(view.initial())[0 if at_end else -1])}"
            if not said or said == before:
                problems.append(f"{fid} slider {s}: live region {said!r}")
            elif view.name != "roofline-explorer" and not said.startswith(step):
                # (the roofline explorer's words name the dot: the test above)
                problems.append(f"{fid} slider {s}: {said!r} does not name the step {step!r}")
    assert problems == [], "\n".join(problems)
    assert p.errors == [] and p.blocked == []


def test_a_menu_chosen_from_the_keyboard_draws_the_models_figure(open_page):
    """The roofline explorer's machine menu: Arrow Down picks the next machine, and the
    roof drawn is that machine's peak (perfmodel), as a click on the entry draws it; the
    data table follows."""
    p = open_page(PAGE)
    page = p.page
    i = next(f[0] for f in page.evaluate(SLIDER_FIGURES) if "roofline-explorer" in f[1])
    select = page.locator(".book-figure").nth(i).locator(".book-figure-keys select").first
    select.focus()
    page.keyboard.press("ArrowDown")
    page.wait_for_function(f"() => {GD % i}.layout.updatemenus[0].active === 1")
    page.wait_for_timeout(200)
    label = page.evaluate(f"() => {GD % i}.layout.updatemenus[0].buttons[1].label")
    name = label.split(": ", 1)[1]
    roof = p.figure_data(i)[0]
    assert max(roof["y"]) == pytest.approx(machines.get(name).peak_flops("fp32"), rel=1e-5)
    assert page.evaluate(LIVE, i).startswith(label)
    assert select.evaluate("s => s.value") == "1"
    # its data table holds the new machine's roof (written when the table is opened)
    assert _table_follows(page, i) == []
    roof_rows = page.evaluate(PAGE_TABLES, i)[0][2]
    assert a11y.number(machines.get(name).peak_flops("fp32")) in [row[1] for row in roof_rows]
    page.keyboard.press("Home")
    page.wait_for_function(f"() => {GD % i}.layout.updatemenus[0].active === 0")
    assert p.errors == [] and p.blocked == []


def test_under_reduced_motion_no_slider_moves_by_itself(open_page):
    p = open_page(PAGE)
    page = p.page
    page.emulate_media(reduced_motion="reduce")
    found = page.evaluate("""() => Array.from(document.querySelectorAll('.book-figure .js-plotly-plot'))
      .map(gd => ({transitions: (gd._fullLayout.sliders || []).map(s => s.transition.duration),
                   frames: (gd._transitionData && gd._transitionData._frames || []).length,
                   animate: (gd.layout.updatemenus || []).some(m => (m.buttons || [])
                     .some(b => b.method === 'animate'))}))""")
    assert found and all(set(f["transitions"]) <= {0} and not f["frames"] and not f["animate"]
                         for f in found), found
    assert p.errors == [] and p.blocked == []
