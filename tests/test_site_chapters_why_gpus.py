"""Chapter 1 (why GPUs exist) in headless Chromium, offline: every figure drawn, no request
leaves the site, no console error, and a reader's click on a slider or dropdown moves a trace."""
import math

PAGE = "chapters/01_why_gpus.html"


def _finite(values):
    return [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]


def _snapshot(p, i):
    return [(t["name"], t["x"], t["y"], t["visible"]) for t in p.figure_data(i)]


def _plots(p):
    return p.page.locator(".book-figure .js-plotly-plot")


def test_why_gpus_page_renders_offline(open_page):
    p = open_page(PAGE)
    n = p.figures()
    # The operation timer and the paradox lab at least.
    assert n >= 2, f"expected at least 2 figures, found {n}"
    assert _plots(p).count() == n
    for i in range(n):
        traces = p.figure_data(i)
        assert traces, f"figure {i} has no traces"
        assert any(_finite(t["y"]) or _finite(t["x"]) for t in traces), f"figure {i} is empty"
        assert _plots(p).nth(i).locator("g.trace, g.barlayer g.point, path.js-line").count() > 0, \
            f"figure {i} drew nothing"
    text = p.page.locator("main").inner_text()
    # Glued numbers: the T4 peak from its parts, the add whose work equals the toll, the
    # measured 19x, the break-even sizes.
    assert "8.14 TFLOP/s" in text and "383,333" in text and "19×" in text and "192" in text
    # Twelve exercises, each with a solution; the T4/H200 table is there.
    assert p.page.locator(".exercise").count() == 12
    assert p.page.locator(".solution").count() == 12
    assert "66.9 TFLOP/s" in text and "H200 ÷ T4" in text
    p.screenshot("why-gpus-light")
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


def test_why_gpus_operation_timer_moves(open_page):
    p = open_page(PAGE)
    # The operation timer is the first figure on the page: its size slider moves the bars.
    assert _move_a_control(p, 0), "the operation timer's controls did not move a trace"
    p.screenshot("why-gpus-after-click")
    p.set_theme("dark")
    p.screenshot("why-gpus-dark")
    assert p.errors == [] and p.blocked == []
