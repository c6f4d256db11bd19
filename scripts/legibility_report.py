"""Print what a reader cannot read in the built site's figures (tests/legibility.py).

    .venv/bin/python scripts/legibility_report.py [PAGE ...] [--width 1280 --width 760]

PAGE is a path under _build/html (default: every page with a figure). Offline: only the
site is served."""
from __future__ import annotations

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
sys.path.insert(0, str(ROOT / "tests"))
import legibility  # noqa: E402


def pages_with_figures() -> list[str]:
    return sorted(str(p.relative_to(SITE)) for p in SITE.rglob("*.html")
                  if 'class="book-figure"' in p.read_text(errors="ignore"))


def probe(pages: list[str], widths: list[int], themes=("light",)) -> dict:
    from playwright.sync_api import sync_playwright

    from offline_browser import chromium, serve

    httpd, base = serve(SITE)
    found = {}
    with sync_playwright() as pw:
        browser = chromium(pw)
        for width in widths:
            for theme in themes:
                ctx = browser.new_context(viewport={"width": width, "height": 900})
                ctx.add_init_script(f"localStorage.setItem('theme', '{theme}');"
                                    f"localStorage.setItem('mode', '{theme}');")
                page = ctx.new_page()
                page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(base)
                           else r.abort())
                for path in pages:
                    page.goto(f"{base}/{path}", wait_until="load")
                    page.wait_for_function(
                        "document.querySelectorAll('.book-figure[data-ready]').length === "
                        "document.querySelectorAll('.book-figure').length", timeout=60000)
                    page.wait_for_timeout(200)
                    for fig in page.evaluate(legibility.PROBE):
                        found[(path, width, theme, fig["id"])] = legibility.problems(fig)
                ctx.close()
        browser.close()
    httpd.shutdown()
    return found


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("pages", nargs="*")
    ap.add_argument("--width", type=int, action="append")
    args = ap.parse_args()
    found = probe(args.pages or pages_with_figures(), args.width or [1280, 760])
    bad = 0
    for (path, width, theme, fid), probs in found.items():
        if probs:
            bad += 1
            print(f"{path} @{width} {theme} {fid}:")
            for p in probs[:8]:
                print(f"    {p}")
            if len(probs) > 8:
                print(f"    ... {len(probs) - 8} more")
    print(f"{bad} of {len(found)} figure views have problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
