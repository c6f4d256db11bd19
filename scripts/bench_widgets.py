"""Latency of the book's widgets (a benchmark, not a test; nothing is asserted).

Prints, per widget:

1. live update, in Python: a control's value changed (as the reader's ipywidget does)
   until the FigureWidget holds the recomputed traces; every slider of every widget,
   stepped back and forth (median);
2. static slider step, in headless Chromium on the built gallery page (offline): from a
   mouse press on a tick of the widget's first slider (released once the step has been
   measured, as a hand releases it later) until the browser has rendered a
   frame holding the redrawn figure (median and worst of the rounds), and how the step
   was drawn by the step engine (widgets/plotly_step.js, run by book-plotly.js): "lean"
   (the moved traces calced again, no defaults), "rerange" (lean, then the moved axes),
   "fast" (Plotly.animate's defaults and calc, then the traces redrawn) or "replot"
   (Plotly.restyle, the whole figure).

"Rendered" is measured the same way whatever draws the step: a MutationObserver on the
figure (its sliders, menus and hover layer left out) notes the first change to what it
draws; a change made inside an animation-frame callback is rendered in that frame, any
other change in the next one; the time is taken in the first task after that frame's
rendering (a MessageChannel message posted then); "(changed)" is the median time to
the figure's first change, the rest is waiting for and rendering the frame. The old measure (the next animation
frame after plotly_restyle) does not see a step that is not drawn by Plotly.restyle.

Run: .venv/bin/python scripts/bench_widgets.py [--static-only] [--site DIR] [--rounds N]
(the book must be built for part 2; --site serves another copy of the built site).
"""
from __future__ import annotations

import os
import pathlib
import re
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
sys.path.insert(0, str(ROOT))


def live_updates(rounds: int = 6) -> dict[str, float]:
    """Median seconds per live update, per widget: its sliders stepped, or its dropdowns
    for a widget that has no slider (the triage questions)."""
    os.environ["GPU_BOOK_WIDGETS"] = "live"
    import widgets

    out = {}
    for name in widgets.WIDGETS:
        view = getattr(widgets, name)()
        live = view.live()
        times = []
        for c in view.sliders() or view.menus():
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


MEASURE = """() => {
  window.__t0 = 0; window.__t1 = 0; window.__pending = false;
  const IGNORE = '.slider-container, .updatemenu-container, .hoverlayer, .modebar-container';
  const drawn = recs => recs.some(r => {
    const n = r.target.nodeType === 1 ? r.target : r.target.parentElement;
    return n && !n.closest(IGNORE);
  });
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    if (window.__pending) { window.__t1 = performance.now(); window.__pending = false; }
  };
  const afterRendering = () => channel.port2.postMessage(0);
  const raf = window.requestAnimationFrame.bind(window);
  const obs = new MutationObserver(recs => {
    if (window.__t0 && !window.__t1 && !window.__pending && drawn(recs)) {
      window.__tdom = performance.now();
      window.__pending = true;           // changed outside a frame: rendered in the next
      raf(afterRendering);
    }
  });
  window.requestAnimationFrame = cb => raf(t => {
    try { cb(t); } finally {             // changed in this frame's callbacks: rendered now
      const recs = obs.takeRecords();
      if (window.__t0 && !window.__t1 && !window.__pending && drawn(recs)) {
        window.__tdom = performance.now();
        window.__pending = true; afterRendering();
      }
    }
  });
  document.querySelectorAll('.book-figure .js-plotly-plot').forEach(gd => obs.observe(gd,
    {subtree: true, childList: true, attributes: true, characterData: true}));
  document.addEventListener('mousedown', () => {
    obs.takeRecords();
    window.__t0 = performance.now(); window.__t1 = 0; window.__tdom = 0; window.__pending = false;
  }, true);
}"""


def browser_steps(rounds: int = 8, site: pathlib.Path = SITE, only: list | None = None
                  ) -> dict[str, dict]:
    """Per widget: the median and worst seconds from a mouse press on a slider tick to the
    rendered figure, and how its steps were drawn ({"lean": n, "replot": m, ...})."""
    from playwright.sync_api import sync_playwright

    import widgets

    from offline_browser import chromium, serve

    httpd, base = serve(site)
    url = f"{base}/appendix/gallery.html"
    out = {}
    with sync_playwright() as pw:
        browser = chromium(pw)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(url.split("/appendix")[0])
                   else r.abort())
        page.goto(url, wait_until="load")
        page.wait_for_function("document.querySelectorAll('.book-figure[data-ready]').length === "
                               "document.querySelectorAll('.book-figure').length", timeout=60000)
        page.evaluate(MEASURE)
        figures = page.evaluate(
            "() => Array.from(document.querySelectorAll('.book-figure')).map(f => "
            "[f.id, (f.querySelector('.js-plotly-plot').layout.sliders || []).length])")
        for i, (fig_id, sliders) in enumerate(figures):
            if not sliders:
                continue                            # a widget with dropdowns only
            # a widget's or a diagram's name: "book-figure-waves-over-sms-28" -> waves_over_sms
            name = next((w for w in widgets.WIDGETS
                         if fig_id.startswith("book-figure-" + getattr(widgets, w)().name + "-")),
                        re.sub(r"^book-figure-|-\d+$", "", fig_id).replace("-", "_"))
            if only and name not in only:
                continue
            group = page.locator(".book-figure").nth(i).locator(".slider-group").first
            group.scroll_into_view_if_needed()
            page.wait_for_timeout(300)
            rail = group.locator(".slider-rail-rect").bounding_box()
            ticks = group.locator(".slider-tick-rect")
            n = ticks.count()
            times, dom, how = [], [], {}
            for _ in range(rounds):
                active = page.evaluate(
                    "i => document.querySelectorAll('.book-figure .js-plotly-plot')[i]"
                    ".layout.sliders[0].active", i)
                box = ticks.nth(n - 1 if active == 0 else 0).bounding_box()
                page.mouse.move(box["x"] + box["width"] / 2, rail["y"] + rail["height"] / 2)
                page.mouse.down()                   # a press; released once measured
                page.wait_for_function("window.__t1 > window.__t0", timeout=10000)
                page.mouse.up()
                t0, tdom, t1 = page.evaluate("[window.__t0, window.__tdom, window.__t1]")
                times.append((t1 - t0) / 1000)
                dom.append((tdom - t0) / 1000)
                page.wait_for_timeout(150)          # let a replot's promise settle
                kind = page.evaluate("i => document.querySelectorAll('.book-figure .js-plotly-plot')"
                                     "[i].dataset.lastStep || 'restyle'", i)
                how[kind] = how.get(kind, 0) + 1
            out[name] = {"median": statistics.median(times), "worst": max(times),
                         "dom": statistics.median(dom), "how": how}
        browser.close()
    httpd.shutdown()
    return out


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--static-only", action="store_true", help="skip the live (Python) part")
    ap.add_argument("--site", type=pathlib.Path, default=SITE, help="the built site to serve")
    ap.add_argument("--rounds", type=int, default=8, help="slider steps per widget")
    ap.add_argument("--only", nargs="*", help="these figures only (widgets.WIDGETS names, or diagrams' as waves_over_sms)")
    opts = ap.parse_args()
    if not opts.static_only:
        live = live_updates()
        print("live update (control change -> FigureWidget updated, Python), median per widget:")
        for k, v in live.items():
            print(f"  {k:22s} {v * 1e3:7.2f} ms")
        print(f"  median over widgets     {statistics.median(live.values()) * 1e3:7.2f} ms")
    if not (opts.site / "appendix" / "gallery.html").exists():
        print("static step: build the book first (make book)")
        return
    steps = browser_steps(opts.rounds, opts.site, opts.only)
    print(f"static slider step (mouse press -> frame rendered, Chromium), {opts.rounds} steps "
          "per widget:")
    print(f"  {'widget':22s} {'median':>9s} {'worst':>9s} {'(changed)':>10s}  drawn by")
    for k, v in steps.items():
        how = ", ".join(f"{n} {kind}" for kind, n in sorted(v["how"].items()))
        print(f"  {k:22s} {v['median'] * 1e3:6.1f} ms {v['worst'] * 1e3:6.1f} ms "
              f"{v['dom'] * 1e3:7.1f} ms  {how}")
    medians = [v["median"] for v in steps.values()]
    print(f"  median over widgets    {statistics.median(medians) * 1e3:6.1f} ms; "
          f"worst widget median {max(medians) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
