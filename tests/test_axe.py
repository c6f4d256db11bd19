"""axe-core over every page of the built site: 0 violations of any impact (minor, moderate,
serious or critical), in the light and the dark theme, at 1280 px (desktop, sidebars shown) and 760 px (narrow: the
theme folds its sidebars into drawers).

axe-core comes from the npm registry at the version package-lock.json pins (`make axe`, which
`make test` runs; the fixture below runs `npm ci` itself when node_modules lacks it), never
from a CDN: the browser only ever talks to the local server. It is injected into each page
before the page's own scripts. One browser page per width opens every page of the site once;
the dark run follows the light one on the same page, switched as the theme's own button
switches it (data-theme on <html>), without a reload.

A failure lists, per theme, each rule with its impact and the nodes (CSS selector and a
snippet of their markup) that break it. axe-core is pinned at its newest 4.x release
(4.14.1): a newer axe finds what an older one let pass (4.14 flags the theme
button's icon titles, which 4.11 did not).
"""
from __future__ import annotations

import shutil
import subprocess

import pytest

from conftest import ROOT, SITE, bounded, open_tab

pytestmark = pytest.mark.browser

AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
WIDTHS = (1280, 760)
FAILING = ("minor", "moderate", "serious", "critical")  # every impact fails

#: Every page of the site: chapters, the landing page, the appendix, search and the index
#: (index.html is only a redirect to intro.html; _static and _sources hold no pages).
PAGES = sorted(str(p.relative_to(SITE)) for p in SITE.rglob("*.html")
               if not p.relative_to(SITE).parts[0].startswith("_") and p.name != "index.html")

#: axe.run over the document with every rule axe enables by default, plus
#: label-content-name-mismatch (a control's name must contain the words it shows: WCAG 2.5.3,
#: level A), which axe 4.x still tags experimental and leaves off unless asked. Violations
#: only, reduced to what a failure message needs.
RUN_AXE = """async () => {
  const r = await window.axe.run(document, {resultTypes: ['violations'],
    rules: {'label-content-name-mismatch': {enabled: true}}});
  return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 160)}))}));
}"""


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe.min.js from node_modules, installed with `npm ci` when it is not there yet."""
    if not AXE_JS.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is needed to install axe-core for the accessibility test")
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=ROOT, check=True)
    return AXE_JS.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def axe_tabs(site_tabs, server, axe_source):
    """{width: a tab with axe-core injected into every document it opens}, light theme on
    load, offline (conftest's Chromium reaches nothing but the local server)."""
    tabs = {width: open_tab(site_tabs, server, width, 900, "light", init_script=axe_source)[0]
            for width in WIDTHS}
    yield tabs
    for tab in tabs.values():
        tab.close()


def audit(tab) -> list[dict]:
    """The violations (of any impact) axe-core finds in the tab's current document."""
    return [v for v in tab.evaluate(bounded(RUN_AXE, "axe-core's audit of the page", 120))
            if v["impact"] in FAILING]


def body_luminance(tab) -> float:
    """Relative luminance (WCAG 2.x) of the page's background colour."""
    return tab.evaluate("""() => {
        const [r, g, b] = getComputedStyle(document.body).backgroundColor
            .match(/[\\d.]+/g).slice(0, 3).map(v => +v / 255)
            .map(c => c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
        return 0.2126 * r + 0.7152 * g + 0.0722 * b; }""")


def report(page: str, width: int, found: dict[str, list[dict]]) -> str:
    """The failure message: per theme, each rule with its impact and nodes."""
    lines = [f"{page} at {width} px:"]
    for theme, violations in found.items():
        for v in violations:
            lines.append(f"  [{theme}] {v['id']} ({v['impact']}, {len(v['nodes'])} nodes): "
                         f"{v['help']}")
            lines += [f"      {n['target']}  {n['html']}" for n in v["nodes"][:8]]
            if len(v["nodes"]) > 8:
                lines.append(f"      ... and {len(v['nodes']) - 8} more")
    return "\n".join(lines)


def test_every_page_is_audited():
    for page in ("intro.html", "search.html", "genindex.html", "appendix/sources.html",
                 "appendix/machines.html", "appendix/accessibility.html",
                 "chapters/01_why_gpus.html", "chapters/10_flash_attention.html"):
        assert page in PAGES


def test_axe_reports_what_it_should(axe_tabs):
    """The harness sees real violations: an image without a text alternative (image-alt,
    critical in axe's rule list), grey #aaa text on white (color-contrast, serious: 2.3:1
    against the 4.5:1 WCAG AA asks of body text) and a button that shows "Send" but is
    named "Go" (label-content-name-mismatch, serious, the rule the test turns on)."""
    tab = axe_tabs[WIDTHS[0]]
    tab.bring_to_front()
    tab.set_content('<html lang="en"><head><title>t</title></head><body><main><h1>t</h1>'
                    '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">'
                    '<p style="color:#aaa;background:#fff">faint text</p>'
                    '<button aria-label="Go">Send</button></main></body></html>')
    tab.add_script_tag(path=str(AXE_JS))
    found = {v["id"]: v["impact"] for v in audit(tab)}
    assert found == {"image-alt": "critical", "color-contrast": "serious",
                     "label-content-name-mismatch": "serious"}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page", PAGES)
def test_no_violation(axe_tabs, server, page, width):
    tab = axe_tabs[width]
    tab.bring_to_front()        # a tab behind another draws no frame: the theme's colour
    tab.goto(f"{server}/{page}", wait_until="load")    # transitions would stand still
    n = tab.locator(".book-figure").count()
    if n:
        tab.wait_for_function(
            "n => document.querySelectorAll('.book-figure[data-ready]').length === n",
            arg=n, timeout=60000)
    found = {"light": audit(tab)}
    light = body_luminance(tab)
    tab.evaluate("() => document.documentElement.setAttribute('data-theme', 'dark')")
    # book-plotly.js re-colours the figures (Plotly.relayout); the theme's script then
    # re-measures which code blocks scroll (300 ms after the last change to the page) and
    # makes those focusable: the audit waits for both.
    tab.wait_for_timeout(800)
    assert body_luminance(tab) < 0.1 < light, f"{page}: the dark theme did not take"
    found["dark"] = audit(tab)
    assert not any(found.values()), report(page, width, found)
