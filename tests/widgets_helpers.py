"""Helpers for the widget tests: read traces by name from a live or a static figure, and
the expected numbers computed by perfmodel directly (never copied from a widget)."""
from __future__ import annotations

import math

import pytest

from perfmodel import machines, ops, roofline


def approx(values, rel=1e-9):
    return pytest.approx(values, rel=rel, abs=1e-300, nan_ok=True)


def table_text(columns) -> list[list]:
    """A table's columns as a reader reads them: the no-break spaces that keep a cell that
    fits on one line (widgets.style.unbroken) made plain spaces."""
    return [[v.replace("\u00a0", " ") if isinstance(v, str) else v for v in col]
            for col in columns]


def trace_index(data, name: str) -> int:
    """The trace called ``name``, or whose name's first line is ``name`` (a legend entry
    whose second line follows the sliders)."""
    names = [t.get("name") if isinstance(t, dict) else t.name for t in data]
    heads = [(n or "").split("<br>")[0] for n in names]
    assert name in names or name in heads, f"no trace {name!r} among {names}"
    return names.index(name) if name in names else heads.index(name)


def live_trace(live, name: str):
    return live.figure.data[trace_index(live.figure.data, name)]


def static_dict(view) -> dict:
    """The static figure as plain JSON (what the page receives, before rounding)."""
    from widgets import static

    return static.figure_json(view.static_figure())


def slider(fig: dict, name: str) -> dict:
    for s in fig["layout"]["sliders"]:
        if s["name"] == name:
            return s
    raise AssertionError(f"no slider {name!r}")


def step_value(step: dict, fig: dict, trace: str, key: str):
    """The value a slider step gives ``key`` of the trace named ``trace``."""
    upd, idx = step["args"]
    j = trace_index(fig["data"], trace)
    assert j in idx, f"step {step['label']!r} does not move {trace!r}"
    return upd[key][idx.index(j)]


def button_value(button: dict, fig: dict, trace: str, key: str):
    """The value a dropdown entry gives ``key`` of the trace named ``trace``."""
    upd = button["args"][0]
    return upd[key][trace_index(fig["data"], trace)]


def dot(machine, unit: str, op) -> list[float]:
    """[attainable at the op's intensity, F / (toll + max(F/P, D/B))] straight from perfmodel."""
    m = machines.get(machine)
    p, b = m.peak_flops(unit), m.bandwidth("dram")
    t = m.launch_overhead.value + max(op.flops / p, op.bytes / b)
    return [min(p, op.intensity * b), op.flops / t]


#: The roofline explorer's dots: slider -> (trace name, builder(value, dtype)).
ROOFLINE_DOTS = {
    "vector_n": ("vector add", lambda n, dt: ops.vector_add(n, dt)),
    "matmul_n": ("matmul, perfect reuse", lambda n, dt: ops.matmul(n, "perfect", dtype=dt)),
    "tile": ("matmul 4096, tiled", lambda t, dt: ops.matmul(4096, "tiled", t, dt)),
    "batch": ("linear 4096x4096", lambda b, dt: ops.linear(b, 4096, 4096, dt)),
    "seq": ("attention, flash", lambda s, dt: ops.attention(s, 64, flash=True, dtype=dt)),
    "head_dim": ("attention, naive", lambda d, dt: ops.attention(4096, d, dtype=dt)),
}
UNIT_DTYPE = {"fp32": "fp32", "fp64": "fp64", "fp16_tensor": "fp16", "bf16_tensor": "bf16",
              "fp8_tensor": "fp8", "fp4_tensor": "nvfp4"}


def finite(values):
    return [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]


def operation_total(gpu, cpu, which: str, op, pcie_bytes: float = 0.0) -> float:
    """t0 + max(F/P, D/B) (+ PCIe bytes / B_pcie) in seconds, by hand."""
    m = machines.get(gpu if which == "gpu" else cpu)
    t = m.launch_overhead.value + max(op.flops / m.peak_flops("fp32"),
                                      op.bytes / m.bandwidth("dram"))
    return t + (pcie_bytes / m.bandwidth("pcie") if pcie_bytes else 0.0)


__all__ = ["approx", "trace_index", "live_trace", "static_dict", "slider", "step_value",
           "button_value", "dot", "ROOFLINE_DOTS", "UNIT_DTYPE", "finite", "operation_total",
           "roofline"]
