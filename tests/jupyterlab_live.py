"""A real JupyterLab on 127.0.0.1 driven by headless Chromium, for the live widgets.

Used by tests/test_jupyterlab_live.py (what must hold) and scripts/bench_live_jupyterlab.py
(how long a round trip takes). JupyterLab runs from this interpreter's environment in a
temporary directory with its own settings, token-protected, with no browser of its own and
no update or news checks; the browser may talk only to it (every other request is aborted
and recorded).

Times are milliseconds measured in the page (``performance.now()``): from the key press or
the dropdown's change event to the end of plotly's redraw of the figure plus the next
animation frame (when the redrawn figure can be painted).
"""
from __future__ import annotations

import contextlib
import json
import os
import pathlib
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field

#: Notebook cell that puts the widgets in live mode (the book build sets "static").
SETUP = "import os\nos.environ['GPU_BOOK_WIDGETS'] = 'live'\nimport widgets"

#: JupyterLab's own settings for the run: a light theme, no news or update checks.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
        {"fetchNews": "false", "checkForUpdates": False},
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def notebook(cells: list[str]) -> dict:
    """A notebook (nbformat 4 dict) with one code cell per source string."""
    return {"cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}",
                       "metadata": {}, "outputs": [], "source": src}
                      for i, src in enumerate(cells)],
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                        "name": "python3"}},
            "nbformat": 4, "nbformat_minor": 5}


def widget_notebook(names: list[str], tree: str | None = None) -> dict:
    """SETUP, then one cell per widget whose last line displays it (``widgets.NAME()``);
    with ``tree``, the widgets are imported from that checkout instead (a benchmark of
    another commit)."""
    setup = SETUP if tree is None else f"import sys\nsys.path.insert(0, {tree!r})\n" + SETUP
    return notebook([setup] + [f"widgets.{n}()" for n in names])


@dataclass
class Lab:
    """A running JupyterLab: its base URL, token and root directory."""

    url: str
    token: str
    root: pathlib.Path
    proc: subprocess.Popen
    log: pathlib.Path

    def tree(self, name: str) -> str:
        return f"{self.url}/lab/tree/{name}?token={self.token}"


@contextlib.contextmanager
def jupyterlab(timeout_s: float = 90.0):
    """Start JupyterLab on a free port of 127.0.0.1 in a temporary directory; yield a Lab;
    stop it (and its kernels) on exit."""
    with tempfile.TemporaryDirectory(prefix="book-jlab-") as tmp:
        tmp = pathlib.Path(tmp)
        root, home = tmp / "work", tmp / "home"
        root.mkdir()
        settings = home / "lab-settings"
        for name, value in LAB_SETTINGS.items():
            path = settings / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(value))
        env = {**os.environ,
               "JUPYTER_CONFIG_DIR": str(home / "config"),
               "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
               "JUPYTERLAB_SETTINGS_DIR": str(settings),
               "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
               "IPYTHONDIR": str(home / "ipython"),
               "JUPYTER_PLATFORM_DIRS": "1"}
        env.pop("GPU_BOOK_WIDGETS", None)
        port, token = free_port(), secrets.token_hex(16)
        log = tmp / "jupyterlab.log"
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser",
               "--ServerApp.open_browser=False", "--ServerApp.ip=127.0.0.1",
               f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
               f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
               "--ServerApp.allow_root=True", "--LabApp.news_url=",
               "--LabApp.extension_manager=readonly",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
        with open(log, "wb") as out:
            proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
        lab = Lab(f"http://127.0.0.1:{port}", token, root, proc, log)
        try:
            deadline = time.monotonic() + timeout_s
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"JupyterLab exited:\n{log.read_text()[-3000:]}")
                try:
                    with urllib.request.urlopen(f"{lab.url}/api/status?token={token}",
                                                timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"JupyterLab did not start:\n{log.read_text()[-3000:]}")
                time.sleep(0.5)
            yield lab
        finally:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


#: JavaScript helpers installed in the page: what each widget output shows, and a timer
#: from an input event to the end of the next plotly redraw.
PAGE_JS = r"""
window.__book = {
  outputs() {
    // Every code cell whose output holds a widget box, in notebook order.
    return Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell'))
      .filter(cell => cell.querySelector('.jp-OutputArea-output .widget-vbox'));
  },
  drawn(i) {
    // Whether widget i's plotly figure has been drawn.
    const gd = this.outputs()[i].querySelector('.js-plotly-plot');
    return !!(gd && gd._fullLayout && gd.querySelector('.main-svg'));
  },
  probe(i) {
    const cell = this.outputs()[i];
    const gd = cell.querySelector('.js-plotly-plot');
    const svg = gd.querySelector('.main-svg');
    const out = gd.closest('.jp-OutputArea-output');
    const box = gd.closest('.widget-vbox') || gd.parentElement;
    // Every line of text the figure's tables show (plotly draws one .cell-text per cell).
    const tableText = Array.from(gd.querySelectorAll('.table .cell-text'))
      .map(n => n.textContent);
    const tables = (gd.data || []).filter(t => t.type === 'table').length;
    const sliders = cell.querySelectorAll('.widget-slider').length;
    return {figureWidth: gd._fullLayout ? gd._fullLayout.width : null,
            svgWidth: svg ? svg.getBoundingClientRect().width : null,
            gdWidth: gd.getBoundingClientRect().width,
            outputWidth: out.getBoundingClientRect().width,
            boxWidth: box.getBoundingClientRect().width,
            traces: (gd.data || []).length, tables, tableText, sliders,
            menus: cell.querySelectorAll('.widget-dropdown select').length};
  },
  traces(i) {
    const gd = this.outputs()[i].querySelector('.js-plotly-plot');
    return JSON.stringify((gd.data || []).map(t => [t.x, t.y, t.z, t.text,
      t.cells && t.cells.values]), (k, v) => ArrayBuffer.isView(v) ? Array.from(v) : v);
  },
  arm(i) {
    // Record the time of the next input event (key press or change) and of every plotly
    // redraw of figure i after it; each redraw's time is taken at the next animation frame.
    const gd = this.outputs()[i].querySelector('.js-plotly-plot');
    const rec = this.rec = {t0: null, draws: []};
    const start = e => { if (rec.t0 === null) rec.t0 = performance.now(); };
    document.addEventListener('keydown', start, {capture: true, once: true});
    document.addEventListener('change', start, {capture: true, once: true});
    if (!gd.__bookHooked) {
      gd.__bookHooked = true;
      // book_slider_step: a step drawn by the book's step engine (widgets/plotly_step.js)
      for (const name of ['plotly_afterplot', 'plotly_restyle', 'plotly_relayout',
                          'plotly_update', 'book_slider_step'])
        gd.on(name, () => {
          const r = window.__book.rec;
          if (r && r.t0 !== null)
            requestAnimationFrame(() => r.draws.push([name, performance.now() - r.t0]));
        });
    }
  },
  elapsed() {
    const r = this.rec;
    return r && r.t0 !== null && r.draws.length ? r : null;
  },
};
"""


@dataclass
class LabPage:
    """A notebook opened in JupyterLab in a Chromium page that may reach only the lab."""

    page: object
    lab: Lab
    blocked: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    sockets: list = field(default_factory=list)


def open_notebook(browser, lab: Lab, name: str, width: int = 1280, height: int = 900
                  ) -> LabPage:
    """Open lab/tree/NAME in a new browser context; requests that leave the lab's origin
    are aborted and recorded in ``blocked``; console errors go to ``errors``, the web
    sockets' addresses (the kernel's channels; watched, not routed) to ``sockets``."""
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    result = LabPage(page, lab)

    def route(r):
        if r.request.url.startswith(lab.url + "/") or r.request.url == lab.url:
            r.continue_()
        else:
            result.blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("websocket", lambda ws: result.sockets.append(ws.url))
    page.on("console", lambda m: result.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: result.errors.append(str(e)))
    page.goto(lab.tree(name), wait_until="load")
    page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=60000)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']",
                           timeout=60000)
    page.add_script_tag(content=PAGE_JS)
    return result


def run_all(lp: LabPage, n_figures: int, timeout_s: float = 150.0) -> None:
    """Run every cell (Run > Run All Cells) and wait until n_figures widget boxes are shown
    and the kernel is idle.
    The menu is tried again when no cell started (a click can land before the notebook's
    kernel session is ready)."""
    page = lp.page
    started = ("() => Array.from(document.querySelectorAll('.jp-Notebook .jp-InputPrompt'))"
               ".some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))")
    for attempt in range(5):
        page.locator(".jp-Notebook .jp-Cell").first.click()
        page.get_by_role("menuitem", name="Run", exact=True).click()
        item = page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first
        item.wait_for(state="visible")
        item.click()
        try:
            page.wait_for_function(started, timeout=5000)
            break
        except Exception:  # noqa: BLE001  (playwright's TimeoutError: try the menu again)
            page.keyboard.press("Escape")
    page.wait_for_function(
        "n => window.__book.outputs().length >= n", arg=n_figures, timeout=timeout_s * 1000)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']",
                           timeout=timeout_s * 1000)


def widget_cell(lp: LabPage, i: int):
    """The locator of the i-th code cell whose output holds a widget box."""
    return lp.page.locator(".jp-Notebook .jp-CodeCell:has(.jp-OutputArea-output .widget-vbox)"
                           ).nth(i)


def show(lp: LabPage, i: int, timeout_s: float = 30.0) -> None:
    """Scroll widget i's output into view, as a reader does, and wait until its figure is
    drawn (JupyterLab lays out only the cells near the viewport)."""
    box = widget_cell(lp, i).locator(".jp-OutputArea-output .widget-vbox").first
    box.scroll_into_view_if_needed()
    lp.page.wait_for_function("i => window.__book.drawn(i)", arg=i, timeout=timeout_s * 1000)


def _round_trip(lp: LabPage, i: int, act, settle_ms: int = 300, timeout_ms: int = 10000
                ) -> dict:
    """Arm the timer on figure i, act (a key press or a dropdown change), wait until the
    figure redrew and then stayed still for settle_ms. Returns "first" and "last": ms from
    the input event to the first and the last redraw (each at its next animation frame),
    None when nothing redrew within timeout_ms; "events": the plotly events seen;
    "moved": whether the figure's traces in the page changed."""
    page = lp.page
    before = page.evaluate("i => window.__book.traces(i)", i)
    page.evaluate("i => window.__book.arm(i)", i)
    act()
    try:
        page.wait_for_function("() => window.__book.elapsed() !== null", timeout=timeout_ms)
    except Exception:  # noqa: BLE001  (playwright's TimeoutError: no redraw)
        return {"first": None, "last": None, "events": [], "moved": False}
    n = -1
    while True:
        page.wait_for_timeout(settle_ms)
        rec = page.evaluate("() => window.__book.elapsed()")
        if len(rec["draws"]) == n:
            break
        n = len(rec["draws"])
    after = page.evaluate("i => window.__book.traces(i)", i)
    return {"first": rec["draws"][0][1], "last": rec["draws"][-1][1],
            "events": [d[0] for d in rec["draws"]], "moved": after != before}


def slider_handle(lp: LabPage, i: int, slider: int = 0):
    """The locator of the handle of slider number ``slider`` of widget i."""
    return widget_cell(lp, i).locator(".widget-slider .noUi-handle").nth(slider)


def slider_round_trip(lp: LabPage, i: int, slider: int = 0, key: str | None = None) -> dict:
    """Press key on the handle of slider number ``slider`` of widget i (default: the
    arrow towards the slider's far end, so the value changes); see _round_trip. Adds
    "key" and the slider's readout "before" and "after"."""
    handle = slider_handle(lp, i, slider)
    handle.scroll_into_view_if_needed()
    if key is None:
        now, top = (handle.get_attribute(a) for a in ("aria-valuenow", "aria-valuemax"))
        key = "ArrowLeft" if now is not None and now == top else "ArrowRight"
    readout = widget_cell(lp, i).locator(".widget-slider .widget-readout").nth(slider)
    shown = readout.inner_text()
    handle.focus()
    out = _round_trip(lp, i, lambda: lp.page.keyboard.press(key))
    return {**out, "key": key, "before": shown, "after": readout.inner_text()}


def dropdown_round_trip(lp: LabPage, i: int, menu: int = 0) -> dict:
    """Choose the next entry (or the first, from the last) of dropdown ``menu`` of widget i
    (see _round_trip). Adds the entries "before" and "after"."""
    select = widget_cell(lp, i).locator(".widget-dropdown select").nth(menu)
    select.scroll_into_view_if_needed()
    options = select.locator("option").all_inner_texts()
    current = select.evaluate("s => s.selectedIndex")
    label = options[(current + 1) % len(options)]
    out = _round_trip(lp, i, lambda: select.select_option(index=(current + 1) % len(options)))
    return {**out, "before": options[current], "after": label}
