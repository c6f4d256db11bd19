"""The communication-roofline widget: its roofs, ridges and dots hold the numbers worked
here by hand from the datasheets (H200 dense BF16 989 TFLOP/s; NVLink 4 450 GB/s, PCIe 5
x16 64 GB/s and InfiniBand NDR 50 GB/s, each way) and the intensity 2 T n / ((n - 1) b)
with BF16 gradients (b = 2 bytes)."""
from __future__ import annotations

import pytest

import widgets
from widgets_helpers import approx, button_value, live_trace, slider, static_dict, step_value

F = 989e12
BETA = {"NVLink 4 (H100, H200)": 450e9, "PCIe 5.0 x16": 64e9, "InfiniBand NDR (400 Gb/s)": 50e9}


def _intensity(tokens, n):
    return 2 * tokens * n / ((n - 1) * 2)


def test_the_opening_batch_hides_behind_nvlink_only():
    view = widgets.comm_roofline()
    traces = view.traces(view.initial())
    # 2,048 tokens on 8 GPUs: I = 2 x 2048 x 8 / 14 = 2,340.6 FLOP/B
    assert _intensity(2048, 8) == pytest.approx(2340.571, rel=1e-6)
    roofs = {t["name"].split(": ridge")[0]: t for t in traces if t["mode"] == "lines"}
    assert set(roofs) == set(BETA)
    for label, beta in BETA.items():
        assert roofs[label]["x"][1] == pytest.approx(F / beta, rel=1e-12)   # the ridge
        assert roofs[label]["y"][1] == pytest.approx(F, rel=1e-12)
    dots = [t for t in traces if t["mode"] == "markers"]
    # NVLink: 2,340.6 x 450e9 = 1.05e15 > F, so the full 989 TFLOP/s; PCIe: 1.498e14; IB: 1.170e14
    assert [d["y"][0] for d in dots] == approx([F, 2340.5714285714 * 64e9, 2340.5714285714 * 50e9],
                                               rel=1e-9)
    assert ["hidden" in d["name"] for d in dots] == [True, False, False]


def test_static_steps_and_menus_hold_the_model(monkeypatch):
    monkeypatch.setenv("GPU_BOOK_WIDGETS", "static")
    fig = static_dict(widgets.comm_roofline())
    pcie_dot = "PCIe 5.0 x16 at 2,048 tokens (exposed)"
    for step in slider(fig, "tokens")["steps"]:
        tokens = int(step["label"].split(" ")[0].replace(",", ""))
        i = _intensity(tokens, 8)
        assert step_value(step, fig, pcie_dot, "x") == approx([i])
        assert step_value(step, fig, pcie_dot, "y") == approx([min(F, i * 64e9)])
    two = next(b for b in fig["layout"]["updatemenus"][0]["buttons"] if b["label"] == "GPUs: 2")
    # two GPUs send half the gradient each way: I = 2 T = 4,096 FLOP/B at 2,048 tokens
    assert button_value(two, fig, pcie_dot, "x") == approx([4096.0])


def test_live_gpus_move_the_dots(monkeypatch):
    pytest.importorskip("ipywidgets")
    pytest.importorskip("anywidget")
    live = widgets.comm_roofline().live()
    live.controls["gpus"].value = 64
    live.controls["tokens"].value = 16384
    dot = live_trace(live, "InfiniBand NDR (400 Gb/s) at 16,384 tokens (exposed)")
    i = 2 * 16384 * 64 / (63 * 2)                      # 16,644 FLOP/B, below IB's 19,780
    assert list(dot.x) == approx([i]) and list(dot.y) == approx([i * 50e9])


@pytest.mark.parametrize("kw, name", [({"machine": "T4"}, "machine"), ({"gpus": 1}, "gpus"),
                                      ({"tokens": 0}, "tokens"), ({"tokens": 2.5}, "tokens")])
def test_bad_input_names_the_argument(kw, name):
    with pytest.raises(ValueError, match=name):
        widgets.comm_roofline(**kw)
