"""Draw the book's figures on small standalone pages, probe them and take screenshots,
without building the book (minutes instead of the build's tens of minutes).

    .venv/bin/python scripts/figure_sandbox.py [NAME ...] [--width 688 --width 728]
        [--theme light --theme dark] [--shots DIR]

NAME is a widget (``roofline_explorer``), ``lab:NAME`` (``lab:ops_on_roof``), a diagram
(``diagram:memory_staircase``, drawn as the gallery draws it, or with arguments:
``diagram:latency_timeline:warps=12``) or ``machines``; default:
every widget, every lab plot, every diagram and the machines figure. Each figure
sits in a column as wide as the site's content at a 1280 px window (688 px) and at a
760 px window (728 px), uses the site's own plotly.js and book-plotly.js (with its step engine), and is judged by
tests/legibility.py. The site's verdict comes from tests/test_figures_legible.py on the
built book; this is for iterating on a figure.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
os.environ["GPU_BOOK_WIDGETS"] = "static"

import legibility  # noqa: E402


def _plotly_js() -> pathlib.Path:
    site = ROOT / "_build" / "html" / "_static" / "plotly.min.js"
    if site.exists():
        return site
    import plotly

    return pathlib.Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def figure_names() -> list[str]:
    import labs
    import widgets

    out = list(widgets.WIDGETS) + ["machines"]
    out += [f"lab:{n}" for n in labs.LABS if n != "profile"]
    out += ["lab:profile:simt", "lab:profile:latency", "lab:profile:memory"]
    from widgets import diagrams

    return out + [f"diagram:{n}" for n, _chapter in diagrams.DIAGRAMS]


def _keywords(args: str) -> dict:
    """"key=value,key=value" as keyword arguments (whole numbers as int)."""
    return {k: (int(v) if v.lstrip("-").isdigit() else v)
            for k, v in (a.split("=") for a in args.split(",") if a)}


def figure_html(name: str) -> str:
    """The HTML the book emits for one figure."""
    import widgets
    from widgets import static

    if name == "timer:ch1":
        from perfmodel import machines

        return widgets.operation_timer(op="vector_add", gpu=machines.notes_t4(), cpu="CPU",
                                       pcie=False).static_html()
    if name == "explorer:ch10":
        return widgets.roofline_explorer("H200", "fp16_tensor", seq=4096, head_dim=64).static_html()
    if name.startswith("diagram:"):
        from labs.readouts import staircase_figures
        from widgets import diagrams

        _, fn, *args = name.split(":", 2)          # diagram:NAME[:key=value,...]
        kw = staircase_figures() if fn == "memory_staircase" else {}
        kw.update(_keywords(args[0] if args else ""))
        return getattr(diagrams, fn)(**kw).static_html()
    if ":" in name and not name.startswith("lab:"):      # widget:key=value,key=value
        view, args = name.split(":", 1)
        return getattr(widgets, view)(**_keywords(args)).static_html()
    if name == "measure_device":
        from widgets import measure_device

        return static.to_html(measure_device.figure(), name="webgpu-roofline")
    if name == "machines":
        return static.to_html(widgets.machines_roofline(), name="machines")
    if name.startswith("lab:"):
        import labs

        parts = name.split(":")
        view = labs.show(parts[1], **({"lesson": parts[2]} if len(parts) > 2 else {}))
        bundle = view._repr_mimebundle_()
        return (bundle[0] if isinstance(bundle, tuple) else bundle)["text/html"]
    return getattr(widgets, name)().static_html()


def page(body: str, theme: str, width: int) -> str:
    return (f'<!doctype html><html data-theme="{theme}"><head><meta charset="utf-8">'
            '<script src="plotly.min.js"></script>'
            '<style>body{margin:0;padding:16px;font-family:sans-serif}'
            'html[data-theme=dark] body{background:#121212;color:#ddd}'
            f'.col{{width:{width}px}}</style></head>'
            f'<body><div class="col">{body}</div><script src="book-plotly-step.js"></script>'
            '<script src="book-plotly.js"></script>'
            '</body></html>')


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*")
    ap.add_argument("--width", type=int, action="append")
    ap.add_argument("--theme", action="append")
    ap.add_argument("--shots", default="/tmp/figure-shots")
    args = ap.parse_args()
    names = args.names or figure_names()
    widths = args.width or [688, 728]
    themes = args.theme or ["light"]
    shots = pathlib.Path(args.shots)
    shots.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="figsandbox-"))
    shutil.copy(_plotly_js(), tmp / "plotly.min.js")
    shutil.copy(ROOT / "_static" / "book-plotly.js", tmp / "book-plotly.js")
    shutil.copy(ROOT / "widgets" / "plotly_step.js", tmp / "book-plotly-step.js")
    html = {n: figure_html(n) for n in names}
    for n, body in html.items():
        for t in themes:
            for w in widths:
                (tmp / f"{n.replace(':', '_')}-{w}-{t}.html").write_text(page(body, t, w))

    from playwright.sync_api import sync_playwright

    from offline_browser import chromium, serve

    httpd, base = serve(tmp)
    bad = 0
    with sync_playwright() as pw:
        browser = chromium(pw)
        ctx = browser.new_context(viewport={"width": max(widths) + 40, "height": 900})
        p = ctx.new_page()
        for n in names:
            for t in themes:
                for w in widths:
                    stem = f"{n.replace(':', '_')}-{w}-{t}"
                    p.goto(f"{base}/{stem}.html", wait_until="load")
                    p.wait_for_function(
                        "document.querySelectorAll('.book-figure[data-ready]').length === "
                        "document.querySelectorAll('.book-figure').length", timeout=60000)
                    p.wait_for_timeout(100)
                    for k, fig in enumerate(p.evaluate(legibility.PROBE)):
                        probs = legibility.problems(fig)
                        p.locator(".book-figure").nth(k).screenshot(path=str(shots / f"{stem}.png"))
                        h = round(fig["y1"] - fig["y0"])
                        print(f"{n} @{w} {t} ({h} px tall): {'ok' if not probs else ''}")
                        for q in probs[:12]:
                            print(f"    {q}")
                        if len(probs) > 12:
                            print(f"    ... {len(probs) - 12} more")
                        bad += bool(probs)
        browser.close()
    httpd.shutdown()
    print(f"{bad} figure views with problems; screenshots in {shots}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
