"""Every chapter in headless Chromium, offline: every figure drawn, no request leaves the
site, no console error, the glued numbers reached the prose, every exercise has its
solution, and every figure that has a slider or dropdown moves a trace when a reader
clicks it."""
import math
import re

import pytest

# page, screenshot name, least figures, text that glued numbers put in the prose, exercises
CHAPTERS = [
    ("chapters/01_why_gpus.html", "why-gpus", 2,
     ["8.14 TFLOP/s", "380,000", "19×", "192", "66.9 TFLOP/s", "H200 ÷ T4"], 14),
    # f = 10/110 and its 11x ceiling, Gustafson's 973x, the straggler's 12.8%, the toll table
    ("chapters/02_parallelism.html", "parallelism", 1,
     ["0.091", "11×", "973×", "12.8%", "Amdahl's serial fraction", "Tesla T4 (reference)"], 15),
    # the catalogue strip, the intensity calculator and the knob lab: vector add 1/12,
    # perfect-reuse matmul N/6, flash S/4
    ("chapters/03_intensity.html", "intensity", 3, ["0.083", "683", "512"], 15),
    # two roofline explorers, ops-on-roof, linear-batch, the measured explorer: the T4
    # ridge, the H100 BF16 ridge, the H100 crossover batch
    ("chapters/04_roofline.html", "roofline", 5, ["25.3", "295", "345"], 13),
    # fusion widget and lab, operation timer, PCIe lab: the GELU floor, the measured 2.83x
    ("chapters/05_triage.html", "triage", 4, ["2.50 ms", "2.83", "44"], 14),
    # divergence widget and lab (the fixed-loop run of 2026-12-04): the H200's 1.993x and
    # 7.928x through every warp, 1.041x between warps, the warps of a million-element launch
    ("chapters/06_simt.html", "simt", 2, ["1.993", "7.928", "1.041", "31,256 warps"], 13),
    # Little's law widget, latency and Little's-law labs: the collapse, saturation over the
    # copy, the T4's 128 KB in flight
    ("chapters/07_latency.html", "latency", 3, ["1.154", "4.42", "128 KB in flight"], 11),
    # coalescing widget and lab: the random gather's 296 GB/s
    ("chapters/08_memory.html", "memory", 2, ["296 GB/s", "8.5×"], 11),
    # roof-moves and tiles-and-waves widgets, clocks and waves labs: the T4's FP32 peak,
    # the H200's held tensor clock (1,500 MHz in the run of 2026-12-03)
    ("chapters/09_roof_moves.html", "roof-moves", 4, ["8.14 TFLOP/s", "1,500 MHz", "206 in BF16"], 12),
    # online-softmax widget, attention lab, roofline explorer: naive 17.2 GB, SDPA 33.6 MB,
    # the naive count's 170 MB a head
    ("chapters/10_flash_attention.html", "flash", 3, ["17.2 GB", "33.6 MB", "170 MB"], 15),
    # ring diagram, link-roof widget, comm lab (the model alone until a run is recorded): the
    # gradients' all-reduce over NVLink 4, the data-parallel ridge in tokens a GPU
    # comm: the gradients' intensity at 2,048 tokens a GPU, 2,340 FLOP/byte
    ("chapters/11_communication.html", "comm", 3, ["54.5 ms", "2,340 FLOP/byte", "450 GB/s"], 10),
]
IDS = [c[1] for c in CHAPTERS]


def _exercises_in_source(page: str) -> int:
    """The {exercise} directives in the chapter's source: what the page must render."""
    import pathlib

    md = pathlib.Path(__file__).resolve().parents[1] / page.replace(".html", ".md")
    return len(re.findall(r"^:{3,}\{exercise\}", md.read_text(), re.M))


def _finite(values):
    return [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]


def _snapshot(p, i):
    """What a reader sees change: each trace's points, heatmap cells, labels, visibility,
    a table's cell text, and the layout's shapes and annotations (a diagram's step moves
    those)."""
    layout = p.figure_layout(i)
    return ([(t["name"], t["x"], t["y"], t["z"], t["text"], t["visible"], t["cells"])
             for t in p.figure_data(i)],
            layout.get("shapes"), [a.get("text") for a in layout.get("annotations") or []])


def _plots(p):
    return p.page.locator(".book-figure .js-plotly-plot")


def _controls(p, i):
    fig = _plots(p).nth(i)
    rails = fig.locator("g.slider-group rect.slider-rail-touch-rect, "
                        "g.slider-group rect.slider-rail-rect")
    return rails, fig.locator(".updatemenu-header-group")


def _changed(p, i, before, wait_ms: int = 3000) -> bool:
    """Whether the i-th figure's traces differ from ``before`` within ``wait_ms`` (polled:
    a step on a loaded machine can take longer than a fixed pause)."""
    for _ in range(max(1, wait_ms // 100)):
        p.page.wait_for_timeout(100)
        if _snapshot(p, i) != before:
            return True
    return False


def _move(p, i) -> bool:
    """Click the i-th figure's slider ends, then its dropdown entries, as a reader would;
    True when the traces changed."""
    before = _snapshot(p, i)
    rails, menus = _controls(p, i)
    if rails.count():
        # The box is read again before each click: a figure drawn above it late (on a
        # loaded machine) shifts the page, and a click on a stale box lands beside the rail.
        for end in ("right", "left") * 2:
            rails.first.scroll_into_view_if_needed()
            p.page.wait_for_timeout(100)
            box = rails.first.bounding_box()
            x = box["x"] + box["width"] - 2 if end == "right" else box["x"] + 2
            p.page.mouse.click(x, box["y"] + box["height"] / 2)
            if _changed(p, i, before):
                return True
    if menus.count():
        menus.first.scroll_into_view_if_needed()
        menus.first.click()
        p.page.wait_for_timeout(300)
        items = _plots(p).nth(i).locator(".updatemenu-item-rect")
        for k in range(items.count() - 1, -1, -1):
            items.nth(k).click(force=True)
            if _changed(p, i, before):
                return True
            menus.first.click()
            p.page.wait_for_timeout(300)
    return False


@pytest.mark.parametrize("page, name, least, texts, exercises", CHAPTERS, ids=IDS)
def test_chapter_renders_offline(open_page, page, name, least, texts, exercises):
    p = open_page(page)
    n = p.figures()
    assert n >= least, f"expected at least {least} figures, found {n}"
    assert _plots(p).count() == n
    for i in range(n):
        traces = p.figure_data(i)
        assert traces, f"figure {i} has no traces"
        assert any(_finite(t["y"]) or _finite(t["x"]) or any(t["cells"]) for t in traces), \
            f"figure {i} is empty"
        assert _plots(p).nth(i).locator("g.trace, g.barlayer g.point, path.js-line, "
                                        "g.cell-text-holder").count(), \
            f"figure {i} drew nothing"
    text = p.page.locator("main").inner_text()
    for t in texts:
        assert t in text, f"{t!r} is not in the page's text"
    assert "{glue" not in text, "a glue reference was left unresolved"
    n_ex = p.page.locator(".exercise").count()
    assert n_ex >= 8, f"a chapter has at least eight exercises; found {n_ex}"
    assert p.page.locator(".solution").count() == n_ex, "every exercise has a solution"
    assert n_ex == exercises == _exercises_in_source(page), (n_ex, exercises)
    p.screenshot(f"{name}-light")
    assert p.blocked == [], f"requests left the site: {p.blocked}"
    assert p.errors == [], f"console errors: {p.errors}"


@pytest.mark.parametrize("page, name", [c[:2] for c in CHAPTERS], ids=IDS)
def test_every_control_moves_its_figure(open_page, page, name):
    p = open_page(page)
    with_controls = [i for i in range(p.figures())
                     if any(loc.count() for loc in _controls(p, i))]
    assert with_controls, "a chapter has at least one figure with a slider or dropdown"
    still = [i for i in with_controls if not _move(p, i)]
    assert still == [], f"figures whose controls moved nothing: {still}"
    p.screenshot(f"{name}-after-click")
    p.set_theme("dark")
    p.screenshot(f"{name}-dark")
    assert p.errors == [] and p.blocked == []
