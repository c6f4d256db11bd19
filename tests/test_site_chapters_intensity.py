"""Chapter 3 (arithmetic intensity) in headless Chromium, offline: every figure drawn, no
request leaves the site, no console error, and a reader's click on a slider or dropdown
moves a trace."""
import math

PAGE = "chapters/03_intensity.html"


def _finite(values):
    return [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]


def _snapshot(p, i):
    return [(t["name"], t["x"], t["y"], t["visible"]) for t in p.figure_data(i)]


def _plots(p):
    return p.page.locator(".book-figure .js-plotly-plot")


def _move_a_control(p, i) -> bool:
    """Click the i-th figure's slider ends or its dropdowns' entries, as a reader would;
    True when the traces changed."""
    fig = _plots(p).nth(i)
    fig.scroll_into_view_if_needed()
    before = _snapshot(p, i)
    rails = fig.locator("g.slider-group rect.slider-rail")
    for r in range(rails.count()):
        box = rails.nth(r).bounding_box()
        for x in (box["x"] + box["width"] - 2, box["x"] + 2):
            p.page.mouse.click(x, box["y"] + box["height"] / 2)
            p.page.wait_for_timeout(500)
            if _snapshot(p, i) != before:
                return True
    menus = fig.locator(".updatemenu-header-group")
    for m in range(menus.count()):
        menus.nth(m).click()
        p.page.wait_for_timeout(300)
        items = fig.locator(".updatemenu-item-rect")
        for k in range(items.count() - 1, -1, -1):
            items.nth(k).click(force=True)
            p.page.wait_for_timeout(500)
            if _snapshot(p, i) != before:
                return True
            menus.nth(m).click()
            p.page.wait_for_timeout(300)
    return False


def test_intensity_page_renders_offline(open_page):
    p = open_page(PAGE)
    n = p.figures()
    # the catalogue strip, the intensity calculator and the intensity-knob lab at least
    assert n >= 3, f"expected at least 3 figures, found {n}"
    assert _plots(p).count() == n
    for i in range(n):
        traces = p.figure_data(i)
        assert traces, f"figure {i} has no traces"
        assert any(_finite(t["y"]) or _finite(t["x"]) for t in traces), f"figure {i} is empty"
        assert _plots(p).nth(i).locator("g.trace, g.barlayer g.point, path.js-line").count() > 0, \
            f"figure {i} drew nothing"
    # glued numbers reached the prose: vector add 1/12, perfect-reuse matmul N/6, flash S/4
    text = p.page.locator("main").inner_text()
    assert "0.083" in text and "683" in text and "512" in text
    assert "{glue" not in text
    # thirteen exercises, each with its solution
    assert p.page.locator(".exercise").count() == 13
    assert p.page.locator(".solution").count() == 13
    p.screenshot("intensity-light")
    assert p.blocked == [], f"requests left the site: {p.blocked}"
    assert p.errors == [], f"console errors: {p.errors}"


def test_intensity_controls_move_traces(open_page):
    p = open_page(PAGE)
    moved = [i for i in range(p.figures()) if _move_a_control(p, i)]
    assert moved, "no slider or dropdown on the page moved a trace"
    p.screenshot("intensity-after-click")
    p.set_theme("dark")
    p.screenshot("intensity-dark")
    assert p.errors == [] and p.blocked == []
