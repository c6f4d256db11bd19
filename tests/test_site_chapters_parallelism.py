"""Chapter 2 (the mathematics of parallelism) in headless Chromium, offline: every figure drawn, no request
leaves the site, no console error, and a reader's click on a slider or dropdown moves a trace."""
import math

PAGE = "chapters/02_parallelism.html"


def _finite(values):
    return [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]


def _snapshot(p, i):
    return [(t["name"], t["x"], t["y"], t["visible"]) for t in p.figure_data(i)]


def _plots(p):
    return p.page.locator(".book-figure .js-plotly-plot")


def test_parallelism_page_renders_offline(open_page):
    p = open_page(PAGE)
    n = p.figures()
    # The Amdahl/Gustafson widget and the paradox lab at least.
    assert n >= 2, f"expected at least 2 figures, found {n}"
    assert _plots(p).count() == n
    for i in range(n):
        traces = p.figure_data(i)
        assert traces, f"figure {i} has no traces"
        assert any(_finite(t["y"]) or _finite(t["x"]) for t in traces), f"figure {i} is empty"
        assert _plots(p).nth(i).locator("g.trace, g.barlayer g.point, path.js-line").count() > 0, \
            f"figure {i} drew nothing"
    text = p.page.locator("main").inner_text()
    # Glued numbers: f = 10/110 and its 11x ceiling, Gustafson's 973x, the straggler's 12.8%.
    assert "0.091" in text and "11×" in text and "973×" in text and "12.8%" in text
    # Thirteen exercises, each with a solution; the toll table holds the T4 reference row.
    assert p.page.locator(".exercise").count() == 13
    assert p.page.locator(".solution").count() == 13
    assert "Amdahl's serial fraction" in text and "Tesla T4 (notes)" in text
    p.screenshot("parallelism-light")
    assert p.blocked == [], f"requests left the site: {p.blocked}"
    assert p.errors == [], f"console errors: {p.errors}"


def _move_a_control(p, i) -> bool:
    """Click the i-th figure's last slider step or a dropdown entry, as a reader would;
    True when the traces changed."""
    fig = _plots(p).nth(i)
    before = _snapshot(p, i)
    rails = fig.locator("g.slider-group rect.slider-rail-touch-rect, g.slider-group rect.slider-rail-rect")
    if rails.count():
        rails.first.scroll_into_view_if_needed()
        box = rails.first.bounding_box()
        for x in (box["x"] + box["width"] - 2, box["x"] + 2):
            p.page.mouse.click(x, box["y"] + box["height"] / 2)
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


def test_parallelism_amdahl_slider_moves(open_page):
    p = open_page(PAGE)
    # The Amdahl/Gustafson widget is the first figure: its serial-fraction slider moves the curves.
    assert _move_a_control(p, 0), "the Amdahl/Gustafson slider did not move a trace"
    p.screenshot("parallelism-after-click")
    p.set_theme("dark")
    p.screenshot("parallelism-dark")
    assert p.errors == [] and p.blocked == []
