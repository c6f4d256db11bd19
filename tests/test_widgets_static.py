"""Static rendering: every slider step and dropdown entry of the static figure holds the
numbers perfmodel computes for that setting (the page gets the same, to 6 digits)."""
from __future__ import annotations

import json
import math
import re

import pytest

import widgets
from perfmodel import clocks, machines, ops, parallel, simt, softmax, units, waves
from widgets_helpers import (ROOFLINE_DOTS, UNIT_DTYPE, approx, button_value, dot, slider, table_text,
                             static_dict, step_value, trace_index, operation_total)


@pytest.fixture(autouse=True)
def static_mode(monkeypatch):
    monkeypatch.setenv("GPU_BOOK_WIDGETS", "static")


def test_roofline_explorer_slider_steps():
    fig = static_dict(widgets.roofline_explorer())
    for key, (trace, build) in ROOFLINE_DOTS.items():
        sl = slider(fig, key)
        values = [int(s["label"].split(" ")[0].replace(",", "")) for s in sl["steps"]]
        for step, v in zip(sl["steps"], values):
            assert step_value(step, fig, trace, "y") == approx(dot("T4", "fp32", build(v, "fp32")))
            assert len(step["args"][1]) <= 2       # a slider moves only its own dot(s)


def test_roofline_explorer_menus_carry_each_machine_and_unit():
    fig = static_dict(widgets.roofline_explorer())
    machine_menu, unit_menu = fig["layout"]["updatemenus"]
    labels = [b["label"] for b in machine_menu["buttons"]]
    assert labels == [f"machine: {m}" for m in ("T4", "A100", "H100", "H200", "B200")]
    for button in machine_menu["buttons"]:
        name = button["label"].split(": ")[1]
        m = machines.get(name)
        layout = button["args"][1]
        units = [b["label"] for b in layout["updatemenus[1].buttons"]]
        assert len(units) >= 3
        for ub in layout["updatemenus[1].buttons"]:
            unit = next(u for u in m.units() if ub["label"].startswith(f"precision: {machines.UNIT_LABELS[u]}"))
            roof = button_value(ub, fig, f"roof ({machines.UNIT_LABELS['fp32']}, DRAM)", "y") \
                if unit == "fp32" else ub["args"][0]["y"][0]
            assert max(roof) == approx(m.peak_flops(unit))
            # The entry also installs sliders computed for this machine and unit.
            vec = next(s for s in ub["args"][1]["sliders"] if s["name"] == "vector_n")
            upd, idx = vec["steps"][-1]["args"]
            n = int(vec["steps"][-1]["label"].split(" ")[0].replace(",", ""))
            assert upd["y"][0] == approx(dot(m, unit, ops.vector_add(n, UNIT_DTYPE[unit])))


def test_operation_timer_steps_and_menus():
    fig = static_dict(widgets.operation_timer())
    sl = slider(fig, "n")
    for step in sl["steps"]:
        n = int(step["label"].split(" ")[0].replace(",", ""))
        want = [operation_total("T4", "CPU", w, ops.vector_add(n)) for w in ("cpu", "gpu")]
        assert step_value(step, fig, "total time", "x") == approx(want)
    op_menu, pcie_menu = fig["layout"]["updatemenus"]
    matmul = op_menu["buttons"][1]
    mm_slider = matmul["args"][1]["sliders"][0]
    for step in mm_slider["steps"]:
        n = int(step["label"].split(" ")[0].replace(",", ""))
        j = trace_index(fig["data"], "total time")
        got = step["args"][0]["x"][step["args"][1].index(j)]
        assert got == approx([operation_total("T4", "CPU", w, ops.matmul(n)) for w in ("cpu", "gpu")])
    on = pcie_menu["buttons"][1]
    assert button_value(on, fig, "GPU starts to win", "text") == ["the GPU never wins"]


def test_intensity_calculator_steps():
    fig = static_dict(widgets.intensity_calculator())
    t4 = machines.get("T4")
    for step in slider(fig, "size")["steps"]:
        n = int(step["label"].split(" ")[0].replace(",", ""))
        op = ops.matmul(n, "perfect")
        cells = table_text(step["args"][0]["cells.values"][0])
        table = dict(zip(*cells))
        assert table["intensity I = F / D"] == f"{units.number(op.intensity)} FLOP/B"
        assert step_value(step, fig, "this operation", "x") == approx([op.intensity] * 2)
        bound = "memory" if op.intensity < t4.ridge("fp32") else "compute"
        assert table["bound"] == f"{bound}-bound"


def test_amdahl_steps():
    fig = static_dict(widgets.amdahl_gustafson())
    steps = slider(fig, "serial_fraction")["steps"]
    for step, f in zip(steps, widgets.amdahl_gustafson().fractions):
        p = fig["data"][trace_index(fig["data"], "Amdahl")]["x"]
        assert step_value(step, fig, "Amdahl", "y") == approx([parallel.amdahl(f, q) for q in p])
        assert step_value(step, fig, "Gustafson", "y") == approx([f + (1 - f) * q for q in p])


def test_littles_law_steps_per_machine():
    fig = static_dict(widgets.littles_law())
    for button in fig["layout"]["updatemenus"][0]["buttons"]:
        bw = machines.get(button["label"].split(": ")[1]).bandwidth("dram")
        sl = button["args"][1]["sliders"][0]
        for step in sl["steps"]:
            lat = float(step["label"].split(" ")[0]) * 1e-9
            j = trace_index(fig["data"], "B × L")
            assert step["args"][0]["x"][step["args"][1].index(j)] == approx([bw * lat] * 2)


def test_divergence_tiles_coalescing_softmax_roof_fusion_steps():
    fig = static_dict(widgets.divergence())
    for step in slider(fig, "k")["steps"]:
        k = int(step["label"])
        assert step_value(step, fig, "this k", "y") == approx([min(1.0, 32 / k)])
    fig = static_dict(widgets.tiles_and_waves())
    for step in slider(fig, "n")["steps"]:
        n = int(step["label"].replace(",", ""))
        t = math.ceil(n / 256) * math.ceil(n / 128)
        assert t == waves.tiles(n, n, 256, 128)
        busy = step_value(step, fig, "SMs busy", "y")
        assert sum(busy) == t and len(busy) == math.ceil(t / 108)
    fig = static_dict(widgets.coalescing())
    for step, stride in zip(slider(fig, "stride")["steps"], [1, 2, 4, 8, 16, 32, 64, "random"]):
        secs = len({int(a) // 32 for a in simt.lane_addresses(stride, 4)})
        assert step_value(step, fig, "this stride", "y") == approx([128 / (32 * secs)])
    view = widgets.online_softmax()
    fig = static_dict(view)
    hist = softmax.steps(view.scores, view.values, 2)
    for k, step in enumerate(slider(fig, "step")["steps"], start=1):
        assert step_value(step, fig, "running output u / l", "y") == approx(
            [h["output"] for h in hist[:k]])
    fig = static_dict(widgets.roof_moves())
    for step in slider(fig, "power_limit_w")["steps"]:
        w = float(step["label"].split(" ")[0])
        got = step_value(step, fig, "model clock under the power limit", "x")
        assert got == approx([clocks.t4_workload_clock(k, w) / 1e6 for k in clocks.T4_MEASURED])
    fig = static_dict(widgets.fusion_chain())
    for step in slider(fig, "count")["steps"]:
        c = int(step["label"])
        got = step_value(step, fig, "at the memory roof", "x")
        assert got == approx([2 * c * 2 ** 26 * 4 / 320e9, 2 * 2 ** 26 * 4 / 320e9])


def test_static_html_is_plain_json_rounded_to_six_digits():
    html = widgets.amdahl_gustafson().static_html()
    payload = re.search(r'<script type="application/json">(.*)</script>', html).group(1)
    spec = json.loads(payload)
    assert "bdata" not in payload
    amdahl = spec["data"][1]
    assert amdahl["name"] == "Amdahl"
    assert amdahl["y"] == pytest.approx([parallel.amdahl(0.05, p) for p in amdahl["x"]], rel=1e-5)


def test_every_static_figure_respects_its_page_weight():
    """Each widget's HTML stays under 450 kB (the steps are precomputed, so they weigh;
    so do the words of every step for screen readers and the data table, issue 26: the
    roofline explorer's words for its 19 machine and precision choices add 38 kB)."""
    for name in widgets.WIDGETS:
        assert len(getattr(widgets, name)().static_html()) < 450_000, name
