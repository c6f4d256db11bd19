"""The Machines appendix in headless Chromium, offline: figure drawn, dropdown works."""
import math

from perfmodel import machines


def _finite(values):
    return [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]


def test_machines_page_offline(open_page):
    p = open_page("appendix/machines.html")
    assert p.figures() == 1
    traces = p.figure_data(0)
    names = [t["name"] for t in traces]
    assert names == machines.names()
    # Every machine has an FP32 roof: its flat top is the model's FP32 peak.
    for t in traces:
        assert max(_finite(t["y"])) == machines.get(t["name"]).peak_flops("fp32")
    assert p.page.locator(".book-figure .js-plotly-plot path.js-line").count() >= len(names)
    p.screenshot("machines-light")
    assert p.blocked == [], f"requests left the site: {p.blocked}"
    assert p.errors == [], f"console errors: {p.errors}"


def test_machines_dropdown_switches_unit(open_page):
    p = open_page("appendix/machines.html")
    # Open the plotly dropdown and choose the BF16 tensor entry, as a reader would.
    p.page.locator(".book-figure .updatemenu-header-group").first.click()
    p.page.locator(".book-figure .updatemenu-item-text", has_text="BF16 tensor").first.click()
    p.page.wait_for_timeout(500)
    traces = {t["name"]: t for t in p.figure_data(0)}
    h100 = traces["H100"]
    assert max(_finite(h100["y"])) == machines.get("H100").peak_flops("bf16_tensor")
    # The T4 has no BF16 tensor unit: its line disappears and the legend says so.
    t4 = next(t for name, t in traces.items() if name.startswith("T4"))
    assert _finite(t4["y"]) == []
    assert "no BF16" in t4["name"]
    p.screenshot("machines-bf16")
    p.set_theme("dark")
    layout = p.figure_layout(0)
    assert layout["font"]["color"] == "#e6e6e6"
    p.screenshot("machines-dark")
    assert p.errors == [] and p.blocked == []
