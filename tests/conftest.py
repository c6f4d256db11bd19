"""Shared fixtures: the built site served on localhost and a headless Chromium that may
only talk to it. Browser tests need Debian's chromium (/usr/bin/chromium); they fail,
not skip, when it is missing, since CI installs it."""
from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import pathlib
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
SCREENSHOTS = ROOT / "_build" / "screenshots"


#: The most a test may take, by kind, in seconds (pytest-timeout; a test's own
#: ``@pytest.mark.timeout`` wins). The clock covers a test's fixtures too, so the first test
#: of a module pays for its module's set-up. Each ceiling is about five times the slowest
#: test of its kind seen on a loaded 2-core machine running two workers, so a slow CI
#: machine passes and a hang fails in minutes, not at CI's 90-minute limit:
#: - unit: a model, exercise, lab-under-the-simulator or script test: at most ~60 s;
#: - browser: one page, or one figure's controls, in headless Chromium: at most ~100 s;
#: - sweep: a test that walks every page of the site (legibility), or whose module's
#:   fixture builds the two editions, executes every Colab twin or starts JupyterLab:
#:   at most ~300 s;
#: - book: the test that builds the book when _build/html is missing.
TIME_CEILING_S = {"unit": 300, "browser": 600, "sweep": 1500, "book": 1800}
SWEEPS = {"test_figures_legible", "test_editions", "test_notebooks", "test_colab_twins",
          "test_jupyterlab_live", "test_challenges_colab"}

#: How long a page may take to answer one in-page wait (a step drawn, a table written).
PAGE_WAIT_S = 10.0


#: Modules whose tests are spread one by one over the workers (``make test`` runs pytest
#: with ``-n 2 --dist loadgroup``): each test opens its own pages, and none shares a costly
#: module or session fixture of its module. Every other module runs whole on one worker,
#: so its module and session fixtures (a built edition, the executed twins, a JupyterLab
#: server, compiled kernels) are made once, by one process, never raced by two.
SPREAD = {"test_figures_legible", "test_axe", "test_site_chapters", "test_site_pages",
          "test_figure_keys_browser", "test_site_dark"}


#: Run first, longest first (pytest-xdist hands out groups and spread tests in the order
#: they are collected): a module of one group, or one spread test, that takes a minute or
#: more and starts last keeps one worker busy while the other has nothing left (about a
#: minute of a clean-clone run's end, as test times of three runs replayed show). Test
#: times (s) of a clean-clone run on 2 cores, 2026-12-07: notebooks 165, widgets in the
#: browser 129, the challenge engine 99, each half of the legibility sweep 73-88, the
#: grading command 85, JupyterLab 80, the Colab twins 79, the console 68, the hostile
#: grader 60, slider steps 57, challenges 51, keyboard steps 50, WebGPU 49, figure names
#: 43. Prefixes of "module::test".
LONGEST_FIRST = ("test_notebooks", "test_widgets_browser", "test_challenge_engine",
                 "test_figures_legible::test_every_figure_is_legible", "test_grade_challenges",
                 "test_jupyterlab_live", "test_colab_twins", "test_site_console",
                 "test_grader_hostile", "test_slider_steps_browser", "test_challenges::",
                 "test_figure_keys_browser::test_every_slider_steps_from_the_keyboard",
                 "test_webgpu", "test_figure_keys_browser::test_every_figure_on_the_site")


def _start_rank(module: str, name: str) -> int:
    """Where a test starts in the run: its place in LONGEST_FIRST, or after all of them."""
    key = f"{module}::{name}"
    return next((i for i, head in enumerate(LONGEST_FIRST) if key.startswith(head)),
                len(LONGEST_FIRST))


# First: pytest-xdist's own hook reads the xdist_group markers (into each test's node id)
# in this same hook; run after it, the groups were never seen and every module's tests,
# and so its costly fixtures, were spread over both workers.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module else item.nodeid
        if module not in SPREAD:
            item.add_marker(pytest.mark.xdist_group(module))
        if item.get_closest_marker("timeout") is not None:
            continue
        kind = ("book" if item.get_closest_marker("book") else
                "sweep" if module in SWEEPS else
                "browser" if item.get_closest_marker("browser") else "unit")
        item.add_marker(pytest.mark.timeout(TIME_CEILING_S[kind]))
    items.sort(key=lambda item: _start_rank(
        item.module.__name__.rsplit(".", 1)[-1] if item.module else "", item.name))


def bounded(js: str, what: str, seconds: float = PAGE_WAIT_S) -> str:
    """A page function for ``page.evaluate``: ``js`` (a function of one argument that may
    return a promise) raced, inside the page, against a timer of ``seconds``. A page that
    never answers makes ``evaluate`` raise "timed out after N s waiting for <what>" instead
    of blocking forever (Playwright bounds no evaluation by itself)."""
    if seconds <= 0:
        raise ValueError(f"seconds must be > 0, got {seconds}")
    message = json.dumps(f"timed out after {seconds:g} s waiting for {what}")
    return f"""async arg => {{
  let timer;
  const limit = new Promise((_, reject) => {{
    timer = setTimeout(() => reject(new Error({message})), {round(seconds * 1000)});
  }});
  try {{ return await Promise.race([Promise.resolve(({js})(arg)), limit]); }}
  finally {{ clearTimeout(timer); }}
}}"""


#: The slider step armed with ``window.__step`` (a promise that resolves with the path
#: book-plotly.js drew the step by), bounded.
STEP_DRAWN = bounded("() => window.__step", "the slider step to be drawn")


def pytest_terminal_summary(terminalreporter):
    if SCREENSHOTS.exists() and any(SCREENSHOTS.iterdir()):
        terminalreporter.write_line(f"screenshots of the built site: {SCREENSHOTS}")


@pytest.fixture(scope="session")
def site() -> pathlib.Path:
    """The built book; built here (warnings as errors) when it is not there yet."""
    if not (SITE / "intro.html").exists():
        jb = pathlib.Path(sys.executable).with_name("jupyter-book")
        subprocess.run([str(jb), "build", str(ROOT), "--warningiserror", "--keep-going"],
                       check=True, cwd=ROOT)
    return SITE


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def server(site):
    handler = functools.partial(_Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def chromium_path() -> str:
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(path):
        pytest.fail("Debian's chromium is needed for the browser tests: apt-get install chromium")
    return path


#: Chromium's switches for every browser test: no sandbox or GPU in a container, and no
#: network but the local server. Chromium sends a request for a loopback address straight
#: to it; every other request goes to a proxy at a port nothing listens on and fails, and
#: no host name resolves. (Tests note such a request from the page's "request" event and
#: fail on it: routing every request through playwright would do the same but turns the
#: browser's HTTP cache off, and with it the compiled-code cache that lets a page start
#: without compiling plotly.js again.)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--proxy-server=http://127.0.0.1:9",
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]


def off_site(server: str):
    """A page "request" listener's test: True for a request that leaves the local server
    (data: and blob: URLs never reach the network)."""
    return lambda url: not url.startswith((server, "data:", "blob:", "about:"))


@pytest.fixture(scope="session")
def _chromium(tmp_path_factory):
    """One headless Chromium a worker, with one lasting context (a profile in a temporary
    folder, made for this session): pages opened in it share its HTTP cache and V8's
    compiled code, so a page after the first does not compile plotly.js again (0.8 s of a
    chapter's 1.5 s load on this machine)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=chromium_path(),
            headless=True, args=CHROMIUM_ARGS)
        yield ctx
        ctx.close()


@pytest.fixture(scope="session")
def browser(_chromium):
    """Headless Chromium (a test makes its own context with ``browser.new_context``)."""
    return _chromium.browser


@pytest.fixture(scope="session")
def site_tabs(_chromium):
    """The lasting context: ``site_tabs.new_page()`` opens a tab that shares the caches.
    Its tabs share one localStorage, where the site keeps the reader's theme: ``open_tab``
    stores a tab's theme (or none) at the start of each of its documents, before the site's
    scripts read it."""
    return _chromium


def open_tab(site_tabs, server: str, width: int = 1280, height: int = 900,
             theme: str | None = "light", init_script: str | None = None,
             color_scheme: str = "light", reduced_motion: str = "no-preference"):
    """A new tab in the lasting context, ``width`` x ``height`` px, whose every document
    starts with the theme ``theme`` (light or dark) stored, or, for ``theme=None``, with
    nothing stored (a first visit: localStorage emptied), and runs ``init_script`` first;
    the system's colour scheme and motion preference are emulated. Returns (tab, requests
    that left the site: a list filled as the tab makes them). The new tab is in front; a
    tab kept across tests must be brought to the front (``tab.bring_to_front()``) before
    it is used again, since a tab behind another draws no frame (its transitions and
    animation frames stand still)."""
    if theme not in ("light", "dark", None):
        raise ValueError(f"theme must be 'light', 'dark' or None, got {theme!r}")
    tab = site_tabs.new_page()
    tab.set_viewport_size({"width": width, "height": height})
    tab.emulate_media(color_scheme=color_scheme, reduced_motion=reduced_motion)
    tab.add_init_script("localStorage.clear();" if theme is None else
                        f"localStorage.setItem('theme', '{theme}');"
                        f"localStorage.setItem('mode', '{theme}');")
    if init_script:
        tab.add_init_script(init_script)
    blocked, leaves = [], off_site(server)
    tab.on("request", lambda r: blocked.append(r.url) if leaves(r.url) else None)
    return tab, blocked


@dataclass
class Page:
    """A page of the site opened offline, with what it tried to fetch and what it logged."""

    page: object
    blocked: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    theme: str = "light"

    def figures(self) -> int:
        return self.page.locator(".book-figure").count()

    @contextlib.contextmanager
    def _every_figure_painted(self):
        """Figures well off screen are not painted (content-visibility in book.css), and a
        capture does not scroll to them: while this holds, every figure is painted."""
        style = self.page.add_style_tag(
            content=".book-figure-plot { content-visibility: visible !important; }")
        self.page.wait_for_timeout(100)
        try:
            yield
        finally:
            style.evaluate("el => el.remove()")

    def screenshot(self, name: str) -> pathlib.Path:
        """The whole page as a PNG under _build/screenshots/."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        with self._every_figure_painted():
            self.page.screenshot(path=str(path), full_page=True)
        return path

    def figure_screenshot(self, index: int, path: pathlib.Path) -> pathlib.Path:
        """The index-th book figure as a PNG at path: scrolled to the middle of the window
        and cut from it (0.08 s a figure), or, for a figure taller than the window, cut
        from the whole page (0.5 s). (An element screenshot of a figure taller than the
        window came out shifted; so did a whole-page cut of a figure lower on the page.)"""
        box = self.page.evaluate(
            "k => { const r = document.querySelectorAll('.book-figure')[k]"
            ".getBoundingClientRect(); return {x: r.x + window.scrollX, "
            "y: r.y + window.scrollY, width: r.width, height: r.height, "
            "view: window.innerHeight, was: window.scrollY}; }", index)
        if box["height"] + 2 * 80 > box["view"]:       # 80: room for the sticky header
            with self._every_figure_painted():
                self.page.screenshot(path=str(path), full_page=True, clip={
                    k: box[k] for k in ("x", "y", "width", "height")})
            return path
        top = self.page.evaluate(
            "y => { window.scrollTo(0, y); return window.scrollY; }",
            max(0.0, box["y"] - (box["view"] - box["height"]) / 2))
        self.page.screenshot(path=str(path), clip={
            "x": box["x"], "y": box["y"] - top, "width": box["width"], "height": box["height"]})
        self.page.evaluate("y => window.scrollTo(0, y)", box["was"])
        return path

    def set_theme(self, theme: str) -> None:
        """Switch the theme as the theme's own button does (data-theme on <html>), and wait,
        bounded, until every figure has been recoloured for it (book-plotly.js)."""
        self.page.evaluate(bounded(
            "async t => { document.documentElement.setAttribute('data-theme', t);"
            " await new Promise(r => setTimeout(r, 0));"
            " if (window.bookFigures) await window.bookFigures.recoloured; }",
            "the figures to be recoloured for the theme"), theme)
        self.theme = theme
        self.page.wait_for_timeout(100)

    def set_width(self, width: int) -> None:
        """Make the window ``width`` px wide (its height kept), as a reader who resizes it,
        and wait, bounded, until plotly has drawn every figure again for its new column
        (each figure's resize, which the window's resize event has already asked for)."""
        self.page.set_viewport_size({"width": width,
                                     "height": self.page.viewport_size["height"]})
        self.page.evaluate(bounded(
            "async () => { await new Promise(r => requestAnimationFrame(() => r()));"
            " await Promise.all(Array.from(document.querySelectorAll("
            "'.book-figure .js-plotly-plot'), gd => window.Plotly.Plots.resize(gd)"
            ".catch(() => null))); }",
            "the figures to be drawn again for the new width"), None)
        self.page.wait_for_timeout(100)

    def figure_data(self, index: int = 0):
        """The plotly data (traces) of the index-th book figure, read from the page."""
        return self.page.evaluate(
            "i => document.querySelectorAll('.book-figure .js-plotly-plot')[i].data"
            ".map(t => ({name: t.name, x: Array.from(t.x || []), y: Array.from(t.y || []),"
            " z: Array.from(t.z || [], r => Array.isArray(r) || ArrayBuffer.isView(r)"
            " ? Array.from(r) : r), text: t.text, visible: t.visible,"
            " cells: t.cells ? JSON.parse(JSON.stringify(t.cells.values || [])) : []}))", index)

    def figure_index(self, name: str) -> int:
        """The index of the first book figure whose id holds ``name`` (e.g.
        "roofline-explorer"): tests find a figure by what it is, not by where a page puts it."""
        i = self.page.evaluate("n => Array.from(document.querySelectorAll('.book-figure'))"
                               ".findIndex(f => f.id.includes(n))", name)
        if i < 0:
            raise AssertionError(f"no figure named {name!r} on the page")
        return i

    def figure_layout(self, index: int = 0):
        return self.page.evaluate(
            "i => JSON.parse(JSON.stringify(document.querySelectorAll("
            "'.book-figure .js-plotly-plot')[i].layout))", index)


@pytest.fixture
def open_page(site_tabs, server):
    """open_page("appendix/machines.html", width=1280, theme="light") -> Page, offline."""
    tabs = []

    def _open(path: str, width: int = 1280, height: int = 900, theme: str = "light") -> Page:
        page, blocked = open_tab(site_tabs, server, width, height, theme)
        tabs.append(page)
        result = Page(page, blocked=blocked, theme=theme)
        page.on("console", lambda m: result.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: result.errors.append(str(e)))
        page.goto(f"{server}/{path}", wait_until="load")
        n = page.locator(".book-figure").count()
        if n:
            page.wait_for_function(
                "n => document.querySelectorAll('.book-figure[data-ready]').length === n",
                arg=n, timeout=30000)
        return result

    yield _open
    for tab in tabs:
        tab.close()
