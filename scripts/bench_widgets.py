"""Latency of the book's widgets (a benchmark, not a test; nothing is asserted).

Prints two medians:

1. live update, in Python: a control's value changed (as the reader's ipywidget does)
   until the FigureWidget holds the recomputed traces; every slider of every widget,
   stepped back and forth;
2. static slider step, in headless Chromium on the built gallery page (offline): a mouse
   press on a slider at a tick until plotly's restyle is done and the next frame is
   painted.

Run: .venv/bin/python scripts/bench_widgets.py   (the book must be built for part 2)
"""
from __future__ import annotations

import functools
import http.server
import os
import pathlib
import statistics
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
sys.path.insert(0, str(ROOT))


def live_updates(rounds: int = 6) -> dict[str, float]:
    """Median seconds per live update, per widget."""
    os.environ["GPU_BOOK_WIDGETS"] = "live"
    import widgets

    out = {}
    for name in widgets.WIDGETS:
        view = getattr(widgets, name)()
        live = view.live()
        times = []
        for c in view.sliders():
            ctrl = live.controls[c.name]
            values = [v for _, v in ctrl.options]
            for _ in range(rounds):
                for v in (values[0], values[-1], values[len(values) // 2]):
                    if v == ctrl.value:
                        continue
                    t = time.perf_counter()
                    ctrl.value = v
                    times.append(time.perf_counter() - t)
        out[name] = statistics.median(times)
    return out


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def browser_steps(rounds: int = 8) -> dict[str, float]:
    """Median seconds from a mouse press on a slider tick to the repainted figure."""
    from playwright.sync_api import sync_playwright

    import widgets

    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}/appendix/gallery.html"
    out = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                     headless=True, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(url.split("/appendix")[0])
                   else r.abort())
        page.goto(url, wait_until="load")
        page.wait_for_function("document.querySelectorAll('.book-figure[data-ready]').length === "
                               "document.querySelectorAll('.book-figure').length", timeout=60000)
        page.evaluate("""() => {
            window.__t0 = 0; window.__t1 = 0;
            document.addEventListener('mousedown', () => { window.__t0 = performance.now(); }, true);
            document.querySelectorAll('.book-figure .js-plotly-plot').forEach(gd =>
              gd.on('plotly_restyle', () => requestAnimationFrame(() => {
                window.__t1 = performance.now(); })));
        }""")
        for i, name in enumerate(widgets.WIDGETS):
            group = page.locator(".book-figure").nth(i).locator(".slider-group").first
            group.scroll_into_view_if_needed()
            rail = group.locator(".slider-rail-rect").bounding_box()
            ticks = group.locator(".slider-tick-rect")
            n = ticks.count()
            times = []
            for _ in range(rounds):
                active = page.evaluate(
                    "i => document.querySelectorAll('.book-figure .js-plotly-plot')[i]"
                    ".layout.sliders[0].active", i)
                box = ticks.nth(n - 1 if active == 0 else 0).bounding_box()
                page.evaluate("() => { window.__t1 = 0; }")
                page.mouse.click(box["x"] + box["width"] / 2, rail["y"] + rail["height"] / 2)
                page.wait_for_function("window.__t1 > window.__t0", timeout=10000)
                times.append(page.evaluate("window.__t1 - window.__t0") / 1000)
            out[name] = statistics.median(times)
        browser.close()
    httpd.shutdown()
    return out


def main() -> None:
    live = live_updates()
    print("live update (control change -> FigureWidget updated, Python), median per widget:")
    for k, v in live.items():
        print(f"  {k:22s} {v * 1e3:7.2f} ms")
    print(f"  median over widgets     {statistics.median(live.values()) * 1e3:7.2f} ms")
    if not (SITE / "appendix" / "gallery.html").exists():
        print("static step: build the book first (make book)")
        return
    steps = browser_steps()
    print("static slider step (mouse press -> repainted, Chromium), median per widget:")
    for k, v in steps.items():
        print(f"  {k:22s} {v * 1e3:7.2f} ms")
    print(f"  median over widgets     {statistics.median(steps.values()) * 1e3:7.2f} ms")


if __name__ == "__main__":
    main()
