"""Dark mode on the built site: the lab cells' "No CUDA GPU here" note is readable (WCAG
AA contrast against the page, 4.5:1, in light and dark), and the figures' slider rails
take the theme's colours instead of plotly's light grey."""
from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser
CHAPTER = "chapters/01_why_gpus.html"     # its lab cell shows the recorded run's note


def luminance(css: str) -> float:
    """Relative luminance (WCAG 2.x) of an rgb()/rgba() colour string."""
    r, g, b = (int(v) / 255 for v in re.findall(r"[\d.]+", css)[:3])
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_contrast_formula():
    assert contrast("rgb(0, 0, 0)", "rgb(255, 255, 255)") == pytest.approx(21.0)
    assert contrast("rgb(119, 119, 119)", "rgb(255, 255, 255)") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_no_gpu_note_is_readable(open_page, theme):
    p = open_page(CHAPTER, theme=theme)
    # p.book-lab-note (labs/display.py); found by its text, as a cached output may hold it
    # without the class.
    note = p.page.locator("div.cell_output p", has_text="No CUDA GPU here").first
    assert note.inner_text().startswith("No CUDA GPU here")
    colours = note.evaluate("""n => {
        const em = n.querySelector('em') || n;
        let bg = 'rgba(0, 0, 0, 0)', e = n;
        while (e && /rgba\\(0, 0, 0, 0\\)|transparent/.test(bg)) {
            bg = getComputedStyle(e).backgroundColor; e = e.parentElement; }
        if (/rgba\\(0, 0, 0, 0\\)/.test(bg)) bg = getComputedStyle(document.body).backgroundColor;
        return [getComputedStyle(em).color, bg]; }""")
    assert contrast(*colours) >= 4.5, f"{theme}: note {colours[0]} on {colours[1]}"
    assert p.errors == []


def test_slider_rails_follow_the_theme(open_page):
    p = open_page("appendix/gallery.html", theme="light")
    i = p.figure_index("roofline-explorer")
    light = p.figure_layout(i)["sliders"][0]
    p.set_theme("dark")
    p.page.wait_for_timeout(500)
    dark = p.figure_layout(i)["sliders"][0]
    assert light["bgcolor"] != dark["bgcolor"]
    page_bg = p.page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    rail = tuple(int(dark["bgcolor"][i:i + 2], 16) for i in (1, 3, 5))
    # The dark rail is a dark bar (plotly's default, #f8fafc, is near white) and its
    # grip stands out from it.
    assert luminance("rgb(%d, %d, %d)" % rail) < 0.1 < luminance("rgb(248, 250, 252)")
    assert contrast("rgb(%d, %d, %d)" % rail, page_bg) < 3
    grip = tuple(int(dark["activebgcolor"][i:i + 2], 16) for i in (1, 3, 5))
    assert contrast("rgb(%d, %d, %d)" % grip, "rgb(%d, %d, %d)" % rail) > 1.5
    assert p.errors == []
