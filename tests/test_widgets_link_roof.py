"""The link-roof widget: its static slider steps and dropdown entries, and its live controls,
hold the alpha-beta numbers worked here by hand (alpha 5 us a step; NVLink 4 at 450 GB/s
each way, PCIe 3 x16 at 16 GB/s each way, from the datasheets)."""
from __future__ import annotations

import math

import pytest

import widgets
from widgets_helpers import (approx, button_value, live_trace, slider, static_dict,
                             step_value, table_text)

A = 5e-6


def _ring(s, n, beta):
    return 2 * (n - 1) * A + 2 * (n - 1) / n * s / beta


def test_the_defaults_read_out_64_mib_on_eight_h200s():
    view = widgets.link_roof()
    t = 14 * A + 1.75 * 2 ** 26 / 450e9                     # 330.98 us
    cells = table_text(view.traces(view.initial())[0]["cells"]["values"])
    assert cells == [["64 MiB"], ["331 µs"], ["355 GB/s"], ["78.9 %"]]
    assert 2 ** 26 / t * 1.75 == pytest.approx(354.8e9, rel=1e-3)


def test_static_steps_and_menus_hold_the_model(monkeypatch):
    monkeypatch.setenv("GPU_BOOK_WIDGETS", "static")
    fig = static_dict(widgets.link_roof())
    for step in slider(fig, "nbytes")["steps"]:
        unit, scale = step["label"].split(" ")[1], {"KiB": 2 ** 10, "MiB": 2 ** 20, "GiB": 2 ** 30}
        s = float(step["label"].split(" ")[0]) * scale[unit]
        bus = s / _ring(s, 8, 450e9) * 1.75
        assert step_value(step, fig, "chosen message", "y") == approx([bus], rel=1e-5)
        assert bus < 450e9
    links = fig["layout"]["updatemenus"][0]["buttons"]
    pcie3 = next(b for b in links if "PCIe 3.0" in b["label"])
    roof = button_value(pcie3, fig, "roof: 450 GB/s each way", "y")
    assert roof == approx([16e9, 16e9], rel=1e-5)


def test_live_tree_and_gather_curves(monkeypatch):
    pytest.importorskip("ipywidgets")
    pytest.importorskip("anywidget")
    live = widgets.link_roof().live()
    live.controls["collective"].value = "tree all-reduce"
    live.controls["gpus"].value = 64
    tr = live_trace(live, "tree all-reduce, 64 GPUs")
    for s, y in zip(tr.x, tr.y):           # 6 levels each way, whole buffers
        t = 12 * (A + s / 450e9)
        assert y == pytest.approx(s / t * 2 * 63 / 64, rel=1e-9)
    live.controls["collective"].value = "ring all-gather"
    live.controls["link"].value = "ib_ndr"
    tr = live_trace(live, "ring all-gather, 64 GPUs")
    s = tr.x[-1]
    assert tr.y[-1] == pytest.approx(s / (63 * A + 63 / 64 * s / 50e9) * 63 / 64, rel=1e-9)


@pytest.mark.parametrize("kw, name", [({"link": "nvlink9"}, "link"),
                                      ({"collective": "all-to-all"}, "collective"),
                                      ({"gpus": 1}, "gpus"), ({"nbytes": 0}, "nbytes"),
                                      ({"gpus": 2.5}, "gpus")])
def test_bad_input_names_the_argument(kw, name):
    with pytest.raises(ValueError, match=name):
        widgets.link_roof(**kw)
