"""Live rendering: setting each control from Python (as the reader's ipywidget would)
moves the FigureWidget's traces to what perfmodel computes for that setting."""
from __future__ import annotations

import math

import pytest

import widgets
from perfmodel import clocks, little, machines, ops, parallel, simt, softmax, units, waves
from widgets_helpers import (ROOFLINE_DOTS, UNIT_DTYPE, approx, dot, live_trace, table_text,
                             operation_total)


@pytest.fixture(autouse=True)
def live_mode(monkeypatch):
    monkeypatch.setenv("GPU_BOOK_WIDGETS", "live")


def set_control(live, name, value):
    """Move one control the way the reader does: through its ipywidget."""
    live.controls[name].value = value
    assert live.settings[name] == value


def test_roofline_explorer_every_slider_and_menu():
    live = widgets.roofline_explorer().live()
    for machine, unit in (("T4", "fp32"), ("H100", "fp8_tensor"), ("B200", "fp4_tensor"),
                          ("A100", "fp64")):
        set_control(live, "machine", machine)
        set_control(live, "unit", unit)
        m = machines.get(machine)
        roof = live_trace(live, f"roof ({machines.UNIT_LABELS[unit]}, DRAM)")
        assert max(roof.y) == approx(m.peak_flops(unit))
        assert roof.x[1] == approx(m.ridge(unit))
        for key, (trace, build) in ROOFLINE_DOTS.items():
            for value in live.controls[key].options[::3]:
                set_control(live, key, value[1])
                op = build(value[1], UNIT_DTYPE[unit])
                t = live_trace(live, trace)
                assert list(t.x) == approx([op.intensity] * 2)
                assert list(t.y) == approx(dot(m, unit, op))


def test_roofline_explorer_takes_a_measured_machine():
    mine = machines.measured("my GPU", {"fp32": 5e12}, {"dram": 200e9}, source="a test")
    live = widgets.roofline_explorer(machine=mine, machines=[mine]).live()
    assert live.settings["machine"] == "my GPU"
    assert max(live_trace(live, "roof (FP32 cores, DRAM)").y) == approx(5e12)
    set_control(live, "machine", "T4")
    assert max(live_trace(live, "roof (FP32 cores, DRAM)").y) == approx(8.1e12)


def test_operation_timer_size_op_and_pcie():
    live = widgets.operation_timer().live()
    for op_name, build, pcie_of in (
            ("vector_add", ops.vector_add, lambda n: 12 * n),
            ("matmul", lambda n: ops.matmul(n, "perfect"), lambda n: 12 * n * n)):
        set_control(live, "op", op_name)
        for pcie in (False, True):
            set_control(live, "pcie", pcie)
            for n in [o[1] for o in live.controls["n"].options][::2]:
                set_control(live, "n", n)
                op = build(n)
                want = [operation_total("T4", "CPU", "cpu", op),
                        operation_total("T4", "CPU", "gpu", op, pcie_of(n) if pcie else 0.0)]
                assert list(live_trace(live, "total time").x) == approx(want)
                assert list(live_trace(live, "size n").y) == approx(want)
                gpu, cpu = machines.get("T4"), machines.get("CPU")
                assert list(live_trace(live, "D / B").x) == approx(
                    [op.bytes / cpu.bandwidth("dram"), op.bytes / gpu.bandwidth("dram")])
                assert list(live_trace(live, "F / P").x) == approx(
                    [op.flops / cpu.peak_flops("fp32"), op.flops / gpu.peak_flops("fp32")])
                assert list(live_trace(live, "PCIe round trip").x) == approx(
                    [0.0, pcie_of(n) / gpu.bandwidth("pcie") if pcie else 0.0])


def test_operation_timer_breakeven_matches_the_model():
    live = widgets.operation_timer().live()
    line = live_trace(live, "GPU starts to win")
    be = line.x[0]
    # Just below the crossing the CPU is quicker, at it the GPU is (times by hand).
    below = int(be / 2 ** 0.25) + 1
    assert operation_total("T4", "CPU", "gpu", ops.vector_add(int(be))) < \
        operation_total("T4", "CPU", "cpu", ops.vector_add(int(be)))
    assert operation_total("T4", "CPU", "gpu", ops.vector_add(below)) >= \
        operation_total("T4", "CPU", "cpu", ops.vector_add(below)) * 0.99
    set_control(live, "pcie", True)
    # With the copies the GPU never wins a vector add (PCIe is slower than the CPU's DRAM).
    assert live_trace(live, "GPU starts to win").text == ("the GPU never wins",)


def test_intensity_calculator_every_op_dtype_and_size():
    live = widgets.intensity_calculator().live()
    t4 = machines.get("T4")
    cases = {"matmul": lambda n, dt: ops.matmul(n, "perfect", dtype=dt),
             "matmul_naive": lambda n, dt: ops.matmul(n, "none", dtype=dt),
             "attention_flash": lambda n, dt: ops.attention(n, 64, flash=True, dtype=dt),
             "vector_add": lambda n, dt: ops.vector_add(n, dt),
             "layernorm": lambda r, dt: ops.layernorm(r, 4096, 3, dt)}
    for key, build in cases.items():
        set_control(live, "op", key)
        for dtype in ("fp32", "fp16"):
            set_control(live, "dtype", dtype)
            for size in [o[1] for o in live.controls["size"].options][::2]:
                set_control(live, "size", size)
                op = build(size, dtype)
                tensor = key.startswith(("matmul", "attention"))
                unit = "fp16_tensor" if tensor and dtype == "fp16" else "fp32"
                cells = table_text(live.figure.data[0].cells.values)
                table = dict(zip(cells[0], cells[1]))
                assert table["intensity I = F / D"] == f"{units.number(op.intensity)} FLOP/B"
                bound = "memory" if op.intensity < t4.ridge(unit) else "compute"
                assert table["bound"] == f"{bound}-bound"
                sol = max(op.flops / t4.peak_flops(unit), op.bytes / t4.bandwidth("dram"))
                assert table["speed of light max(F/P, D/B)"] == units.seconds(sol)
                assert list(live_trace(live, "this operation").x) == approx([op.intensity] * 2)


def test_amdahl_gustafson_follows_the_serial_fraction():
    live = widgets.amdahl_gustafson().live()
    for f in [o[1] for o in live.controls["serial_fraction"].options]:
        set_control(live, "serial_fraction", f)
        p = list(live_trace(live, "Amdahl").x)
        assert list(live_trace(live, "Amdahl").y) == approx([1 / (f + (1 - f) / q) for q in p])
        assert list(live_trace(live, "Gustafson").y) == approx([f + (1 - f) * q for q in p])
        assert list(live_trace(live, "Amdahl efficiency").y) == approx(
            [1 / (f + (1 - f) / q) / q for q in p])
        assert list(live_trace(live, "Gustafson efficiency").y) == approx(
            [parallel.gustafson(f, q) / q for q in p])


def test_littles_law_latency_and_machine():
    live = widgets.littles_law().live()
    for machine in ("T4", "H100"):
        set_control(live, "machine", machine)
        bw = machines.get(machine).bandwidth("dram")
        for ns in (100, 400, 1000):
            set_control(live, "latency_ns", ns)
            lat = ns * 1e-9
            assert list(live_trace(live, "B × L").x) == approx([bw * lat] * 2)
            for ilp in (1, 2, 4, 8):
                t = live_trace(live, f"ILP {ilp}")
                assert list(t.y) == approx([min(bw, w * 32 * ilp * 16 / lat) for w in t.x])
                b = live_trace(live, f"ILP {ilp} (bytes)")
                assert list(b.x) == approx([w * 32 * ilp * 16 for w in t.x])
            cells = table_text(live.figure.data[0].cells.values)
            assert cells[2][0] == f"{bw * lat / 16:,.0f}"
    # The source notes' T4 number: 320 GB/s x 400 ns = 128 KB in flight.
    assert little.bytes_in_flight(320e9, 400e-9) == approx(128_000)


def test_divergence_paths_split_and_one_in_k():
    live = widgets.divergence().live()
    for split in ("within", "between"):
        set_control(live, "split", split)
        for p in (1, 2, 4, 32):
            set_control(live, "paths", p)
            z = [list(r) for r in live.figure.data[0].z]
            lanes = range(32)
            want = [[lane % p for lane in lanes] if split == "within" else [w % p] * 32
                    for w in range(8)]
            assert z == want
            passes = min(p, 32) if split == "within" else 1
            assert live.figure.data[1].text[0].startswith(f"{passes} pass")
    for k in (1, 32, 64, 256):
        set_control(live, "k", k)
        assert list(live_trace(live, "this k").y) == approx([min(1.0, 32 / k)])
        z = live.figure.data[2].z
        busy = sum(v == 2 for row in z for v in row)
        assert busy == math.ceil(16 * 32 / k)


def test_coalescing_sectors_per_stride():
    live = widgets.coalescing().live()
    for stride in (1, 2, 8, 32, "random"):
        set_control(live, "stride", stride)
        addr = simt.lane_addresses(stride, 4)
        sectors = len({int(a) // 32 for a in addr})
        bars = live_trace(live, "32-byte sectors moved")
        assert len(bars.x) == sectors
        assert list(live_trace(live, "this stride").y) == approx([128 / (sectors * 32)])
        lanes = live_trace(live, "lane's 4 bytes")
        assert list(lanes.customdata) == [int(a) for a in addr]       # hover and table
        if stride != "random":
            assert list(lanes.customdata) == [lane * stride * 4 for lane in range(32)]
            # drawn on the byte axis's fixed 0..1 range, the warp's span (32 lanes x
            # stride x 4 bytes, a power of two) its 1
            span = 32 * stride * 4
            assert list(lanes.x) == approx([lane * stride * 4 / span for lane in range(32)])
            labels = [t for t in live.figure.data if (t.meta or {}).get("role") == "axis labels"]
            assert [t.text for t in labels] == [(f"{0:,}", f"{span // 4:,}", f"{span // 2:,}",
                                                 f"{3 * span // 4:,}", f"{span:,}")]


def test_tiles_and_waves_1792_vs_1793():
    live = widgets.tiles_and_waves().live()
    for n, tiles, nwaves in ((1792, 98, 1), (1793, 120, 2)):
        set_control(live, "n", n)
        assert live.figure.data[1].text[0].startswith(f"{tiles} tiles → {nwaves} wave")
        assert list(live_trace(live, "SMs busy").y) == ([98] if n == 1792 else [108, 12])
    set_control(live, "sms", 132)
    set_control(live, "tile", (128, 128))
    set_control(live, "n", 2049)
    t = math.ceil(2049 / 128) ** 2
    assert t == waves.tiles(2049, 2049, 128, 128)
    busy = [132] * (t // 132) + ([t % 132] if t % 132 else [])
    assert list(live_trace(live, "SMs busy").y) == busy
    z = live.figure.data[0].z
    assert z[0][0] == 1 and z[-1][-1] == math.ceil(t / 132)


def test_online_softmax_steps_to_the_direct_answer():
    live = widgets.online_softmax().live()
    scores = [0.0, math.log(2), math.log(3)]
    # The source notes' three-score example, as one tile of 2 then one of 1: output 2.5.
    three = widgets.online_softmax(tile=2, scores=scores, values=[1, 4, 2]).live()
    set_control(three, "step", 2)
    assert list(live_trace(three, "running output u / l").y) == approx([3.0, 2.5])
    view = live.view
    for tile in view.tiles:
        set_control(live, "tile", tile)
        hist = softmax.steps(view.scores, view.values, tile)
        for k in range(1, len(hist) + 1):
            set_control(live, "step", k)
            got = list(live_trace(live, "running output u / l").y)
            assert got == approx([h["output"] for h in hist[:k]])
        assert got[-1] == approx(softmax.direct(view.scores, view.values))


def test_roof_moves_clock_and_power():
    live = widgets.roof_moves().live()
    t4 = machines.get("T4")
    for mhz in (570, 705, 1365, 1590):
        set_control(live, "clock_mhz", mhz)
        y = list(live_trace(live, "chosen clock").y)
        assert y[0] == approx(40 * 64 * 2 * mhz * 1e6 * 8.1e12 / (40 * 64 * 2 * 1.59e9))
        assert y[1] == approx(65e12 * mhz / 1590)
    for watts in (40, 70, 150):
        set_control(live, "power_limit_w", watts)
        got = live_trace(live, "model clock under the power limit")
        want = [min(t4.clock_hz, (watts - clocks.T4_IDLE_W) / ((w - clocks.T4_IDLE_W) / c)) / 1e6
                for _, c, w in clocks.T4_MEASURED.values()]
        assert list(got.x) == approx(want)


def test_fusion_chain_and_triage():
    live = widgets.fusion_chain().live()
    t4 = machines.get("T4")
    n = 2 ** 26
    for count in (1, 3, 10):
        set_control(live, "count", count)
        roof = live_trace(live, "at the memory roof")
        unfused, fused = 2 * count * n * 4, 2 * n * 4
        assert list(roof.x) == approx([unfused / 320e9, fused / 320e9])
        tolls = live_trace(live, "with a launch toll per kernel")
        assert list(tolls.x) == approx([count * 20e-6 + unfused / 320e9, 20e-6 + fused / 320e9])
    live = widgets.triage_questions().live()
    set_control(live, "op", "small_add")
    answers = table_text(live.figure.data[0].cells.values)[1]
    assert answers[0].startswith("10,000: not enough")
    set_control(live, "op", "gelu")
    answers = table_text(live.figure.data[0].cells.values)[1]
    gelu = ops.gelu(100_000_000)
    assert f"{gelu.intensity:.3g}" == "1.88" and answers[1].startswith("I = 1.88 vs 25.3")
    assert answers[2] == "800 MB → 2.5 ms"
    assert t4.ridge("fp32") == approx(8.1e12 / 320e9)


def test_a_step_reaches_the_front_end_whole(monkeypatch):
    """plotly's batch sends only the values that changed (Undefined where a trace's value
    stayed); the book's figure fills every hole with the value the trace was given, so the
    front end's lean step can take the step. Each value sent is the view's own, computed
    here for the new setting."""
    import plotly.basewidget
    from plotly.basedatatypes import Undefined

    from widgets.base import _snapshot, flatten

    sent = []
    real = plotly.basewidget.BaseFigureWidget._send_update_msg

    def spy(self, restyle_data, relayout_data, trace_indexes=None, source_view_id=None):
        sent.append((restyle_data, trace_indexes))
        return real(self, restyle_data, relayout_data, trace_indexes, source_view_id)

    monkeypatch.setattr(plotly.basewidget.BaseFigureWidget, "_send_update_msg", spy)
    checked = 0
    for name in ("roofline_explorer", "littles_law", "online_softmax", "divergence"):
        view = getattr(widgets, name)()
        live = view.live()
        control = view.sliders()[0]
        for _, value in live.controls[control.name].options[1::2]:
            sent.clear()
            set_control(live, control.name, value)
            expected = [flatten(_snapshot(t)) for t in view.traces(live.settings)]
            for restyle, idx in sent:
                for key, values in restyle.items():
                    assert len(values) == len(idx), (name, key)
                    for j, v in zip(idx, values):
                        assert v is not Undefined, f"{name}: a hole in {key} of trace {j}"
                        assert _snapshot(v) == expected[j].get(key), (name, key, j)
                        checked += 1
    assert checked > 50


def test_live_figures_have_no_mode_bar_and_keyboard_controls():
    """The live view's controls are ipywidgets (a native select, a slider with keyboard
    handling) and its figure has no mode bar, whose buttons would be Tab stops (issue 26)."""
    import ipywidgets as W

    live = widgets.roofline_explorer().live()
    assert live.figure._config.get("displayModeBar") is False
    kinds = {type(w) for w in live.controls.values()}
    assert kinds == {W.Dropdown, W.SelectionSlider}
    assert all(w.description for w in live.controls.values())
