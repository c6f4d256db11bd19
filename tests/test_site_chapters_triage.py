"""Chapter 5 (triage) in headless Chromium, offline: every figure drawn, no request leaves
the site, no console error, and a reader's click on a slider or dropdown moves a trace."""
import math

PAGE = "chapters/05_triage.html"


def _finite(values):
    return [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]


def _snapshot(p, i):
    return [(t["name"], t["x"], t["y"], t["visible"]) for t in p.figure_data(i)]


def _plots(p):
    return p.page.locator(".book-figure .js-plotly-plot")


def test_triage_page_renders_offline(open_page):
    p = open_page(PAGE)
    n = p.figures()
    # The fusion widget, the fusion lab, the operation timer and the PCIe lab at least.
    assert n >= 4, f"expected at least 4 figures, found {n}"
    assert _plots(p).count() == n
    for i in range(n):
        traces = p.figure_data(i)
        assert traces, f"figure {i} has no traces"
        assert any(_finite(t["y"]) or _finite(t["x"]) for t in traces), f"figure {i} is empty"
        # plotly drew something: an svg with at least one trace group
        assert p.page.locator(".book-figure .js-plotly-plot").nth(i).locator(
            "g.trace, g.barlayer g.point, path.js-line").count() > 0, f"figure {i} drew nothing"
    # The glued numbers are in the prose (the GELU floor of 2.50 ms, the 2.83x measured).
    text = p.page.locator("main").inner_text()
    assert "2.50 ms" in text and "2.83" in text and "44" in text
    # Twelve exercises, each with a solution.
    assert p.page.locator(".exercise").count() == 12
    assert p.page.locator(".solution").count() == 12
    p.screenshot("triage-light")
    assert p.blocked == [], f"requests left the site: {p.blocked}"
    assert p.errors == [], f"console errors: {p.errors}"


def _move_a_control(p, i) -> bool:
    """Click the i-th figure's last slider step or its dropdown's last entry, as a reader
    would; True when the traces changed."""
    fig = _plots(p).nth(i)
    before = _snapshot(p, i)
    rails = fig.locator("g.slider-group rect.slider-rail")
    if rails.count():
        box = rails.first.bounding_box()
        p.page.mouse.click(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)
        p.page.wait_for_timeout(600)
        if _snapshot(p, i) != before:
            return True
        p.page.mouse.click(box["x"] + 2, box["y"] + box["height"] / 2)
        p.page.wait_for_timeout(600)
        if _snapshot(p, i) != before:
            return True
    menus = fig.locator(".updatemenu-header-group")
    if menus.count():
        menus.first.click()
        p.page.wait_for_timeout(300)
        items = fig.locator(".updatemenu-item-rect")
        for k in range(items.count() - 1, -1, -1):
            items.nth(k).click(force=True)
            p.page.wait_for_timeout(600)
            if _snapshot(p, i) != before:
                return True
            menus.first.click()
            p.page.wait_for_timeout(300)
    return False


def test_triage_controls_move_traces(open_page):
    p = open_page(PAGE)
    moved = [i for i in range(p.figures()) if _move_a_control(p, i)]
    assert moved, "no slider or dropdown on the page moved a trace"
    p.screenshot("triage-after-click")
    p.set_theme("dark")
    p.screenshot("triage-dark")
    assert p.errors == [] and p.blocked == []
