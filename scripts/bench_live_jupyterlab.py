"""Round trip of the live widgets in a real JupyterLab (a benchmark, not a test).

For every widget of ``widgets.WIDGETS``, run live in a JupyterLab served on 127.0.0.1 and
driven by headless Chromium (tests/jupyterlab_live.py), prints the milliseconds from a key
press on its first slider's handle (or a change of its first dropdown, for a widget with no
slider) to the first and the last redraw of its figure, each taken at the next animation
frame: the median and the worst of the rounds, and what drew each round: the book's step
engine (widgets/plotly_step.js) or plotly's own update. The kernel, the comm and the redraw
are all inside that time; nothing is asserted (tests/test_jupyterlab_live.py holds what
must work).

Run: .venv/bin/python scripts/bench_live_jupyterlab.py [--rounds N] [--only NAME ...]
(needs Debian's chromium; the JupyterLab is the one .venv installs).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=8, help="round trips per widget (default 8)")
    ap.add_argument("--only", nargs="*", default=None, help="widgets to time (default: all)")
    a = ap.parse_args(argv)
    if a.rounds < 1:
        ap.error(f"--rounds must be at least 1; got {a.rounds}")

    import jupyterlab_live as jl
    import widgets
    from conftest import chromium_path
    from playwright.sync_api import sync_playwright

    names = list(widgets.WIDGETS)
    if a.only:
        unknown = sorted(set(a.only) - set(names))
        if unknown:
            ap.error(f"unknown widgets {unknown}; known: {', '.join(names)}")
    chosen = [n for n in names if not a.only or n in a.only]
    views = {n: getattr(widgets, n)() for n in chosen}

    with sync_playwright() as pw, jl.jupyterlab() as lab:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True,
                                     args=["--no-sandbox", "--disable-gpu"])
        (lab.root / "bench.ipynb").write_text(json.dumps(jl.widget_notebook(chosen)))
        lp = jl.open_notebook(browser, lab, "bench.ipynb")
        jl.run_all(lp, len(chosen))
        print(f"{'widget':24s} {'control':9s} {'first ms':>17s} {'last ms':>17s}  drawn by")
        firsts_all = []
        for i, name in enumerate(chosen):
            jl.show(lp, i)
            has_slider = bool(views[name].sliders())
            firsts, lasts, how = [], [], {}
            for _ in range(a.rounds):
                out = (jl.slider_round_trip(lp, i) if has_slider
                       else jl.dropdown_round_trip(lp, i))
                if out["first"] is not None:
                    firsts.append(out["first"])
                    lasts.append(out["last"])
                    # the book's step engine (widgets/plotly_step.js) or plotly's update
                    kind = "engine" if "book_slider_step" in out["events"] else "plotly"
                    how[kind] = how.get(kind, 0) + 1
            if not firsts:
                print(f"{name:24s} {'slider' if has_slider else 'dropdown':9s} no redraw seen")
                continue
            firsts_all += firsts
            drawn = ", ".join(f"{n} {k}" for k, n in sorted(how.items()))
            print(f"{name:24s} {'slider' if has_slider else 'dropdown':9s} "
                  f"{statistics.median(firsts):7.1f} (max {max(firsts):5.1f}) "
                  f"{statistics.median(lasts):7.1f} (max {max(lasts):5.1f})  {drawn}")
        if firsts_all:
            print(f"all widgets: median first redraw {statistics.median(firsts_all):.1f} ms")
        lp.page.context.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
