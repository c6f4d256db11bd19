"""Benchmarks of the book build (not tests; nothing here is asserted).

Prints: the full build time from nothing, the rebuild time when nothing changed, the
rebuild time with only the execution cache kept, and the heaviest page with the bytes
of HTML, JavaScript and CSS it loads. Run: `make bench` (or .venv/bin/python scripts/bench.py).
"""
from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"
JB = pathlib.Path(sys.executable).with_name("jupyter-book")


def build() -> float:
    t = time.perf_counter()
    subprocess.run([str(JB), "build", str(ROOT), "--warningiserror", "--keep-going", "-q"],
                   check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def page_weight(page: pathlib.Path) -> tuple[int, int, int, list[str]]:
    """(html bytes, js bytes, css bytes, js files) for one built page, local assets only."""
    text = page.read_text(errors="replace")
    js = re.findall(r'<script[^>]*src="([^"]+)"', text)
    css = re.findall(r'<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"', text)

    def size(ref: str) -> int:
        if ref.startswith(("http:", "https:", "//")):
            raise SystemExit(f"{page} loads {ref} from outside the site")
        p = (page.parent / ref.split("?")[0]).resolve()
        return p.stat().st_size if p.exists() else 0

    return (len(text.encode()), sum(size(r) for r in js), sum(size(r) for r in css),
            [r.split("?")[0].split("/")[-1] for r in js])


def main() -> None:
    shutil.rmtree(BUILD, ignore_errors=True)
    full = build()
    nochange = build()
    shutil.rmtree(BUILD / "html", ignore_errors=True)
    shutil.rmtree(BUILD / ".doctrees", ignore_errors=True)
    cached = build()
    pages = sorted((BUILD / "html").rglob("*.html"))
    pages = [p for p in pages if p.name not in ("genindex.html", "search.html")]
    weights = {p: page_weight(p) for p in pages}
    heaviest = max(weights, key=lambda p: sum(weights[p][:3]))
    h, j, c, files = weights[heaviest]
    print(f"full build from nothing          {full:7.1f} s")
    print(f"rebuild, nothing changed         {nochange:7.1f} s")
    print(f"rebuild, execution cache only    {cached:7.1f} s")
    print(f"heaviest page                    {heaviest.relative_to(BUILD / 'html')}")
    print(f"  html {h / 1e6:.2f} MB, JavaScript {j / 1e6:.2f} MB, CSS {c / 1e6:.2f} MB")
    print(f"  scripts: {', '.join(files)}")
    for p in pages:
        hh, jj, cc, _ = weights[p]
        print(f"  {str(p.relative_to(BUILD / 'html')):40s} html {hh / 1e3:8.0f} kB  total "
              f"{(hh + jj + cc) / 1e6:6.2f} MB")


if __name__ == "__main__":
    main()
