"""Shared fixtures: the built site served on localhost and a headless Chromium that may
only talk to it. Browser tests need Debian's chromium (/usr/bin/chromium); they fail,
not skip, when it is missing, since CI installs it."""
from __future__ import annotations

import contextlib
import functools
import http.server
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


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        yield b
        b.close()


@dataclass
class Page:
    """A page of the site opened offline, with what it tried to fetch and what it logged."""

    page: object
    blocked: list = field(default_factory=list)
    errors: list = field(default_factory=list)

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
        """The index-th book figure as a PNG at path, cut from the whole page (an element
        screenshot of a figure taller than the window came out shifted)."""
        with self._every_figure_painted():
            box = self.page.evaluate(
                "k => { const r = document.querySelectorAll('.book-figure')[k]"
                ".getBoundingClientRect(); return {x: r.x + window.scrollX, "
                "y: r.y + window.scrollY, width: r.width, height: r.height}; }", index)
            self.page.screenshot(path=str(path), full_page=True, clip=box)
        return path

    def set_theme(self, theme: str) -> None:
        """Switch the theme as the theme's own button does (data-theme on <html>)."""
        self.page.evaluate("t => document.documentElement.setAttribute('data-theme', t)", theme)
        self.page.wait_for_timeout(300)

    def figure_data(self, index: int = 0):
        """The plotly data (traces) of the index-th book figure, read from the page."""
        return self.page.evaluate(
            "i => document.querySelectorAll('.book-figure .js-plotly-plot')[i].data"
            ".map(t => ({name: t.name, x: Array.from(t.x || []), y: Array.from(t.y || []),"
            " z: Array.from(t.z || [], r => Array.isArray(r) || ArrayBuffer.isView(r)"
            " ? Array.from(r) : r), text: t.text, visible: t.visible,"
            " cells: t.cells ? JSON.parse(JSON.stringify(t.cells.values || [])) : []}))", index)

    def figure_layout(self, index: int = 0):
        return self.page.evaluate(
            "i => JSON.parse(JSON.stringify(document.querySelectorAll("
            "'.book-figure .js-plotly-plot')[i].layout))", index)


@pytest.fixture
def open_page(browser, server):
    """open_page("appendix/machines.html", width=1280, theme="light") -> Page, offline."""
    contexts = []

    def _open(path: str, width: int = 1280, height: int = 900, theme: str = "light") -> Page:
        ctx = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(ctx)
        ctx.add_init_script(f"localStorage.setItem('theme', '{theme}');"
                            f"localStorage.setItem('mode', '{theme}');")
        page = ctx.new_page()
        result = Page(page)

        def route(r):
            if r.request.url.startswith(server):
                r.continue_()
            else:
                result.blocked.append(r.request.url)
                r.abort()

        page.route("**/*", route)
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
    for ctx in contexts:
        ctx.close()
