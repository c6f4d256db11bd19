"""The "Measure this device" section: the reader's GPU measured in the page with WebGPU.

On the book's site the section is a button, a progress bar and a roofline: the model's T4
and H200 (datasheet FP32 roofs) with the book's vector add and a tiled matmul as dots.
``_static/book-webgpu.js`` runs the copy and FMA shaders, checks them, adds the device's
roof, ridge and dots to this figure, and offers the result as JSON in the labs' schema
(``perfmodel.machines.from_results`` reads it). In a notebook the figure shows with one
sentence saying where the measurement runs.
"""
from __future__ import annotations

import html as _html
import json

from perfmodel import machines, ops, roofline, units
from perfmodel.machines import UNIT_LABELS

from . import static
from .machines_figure import COLORS as MACHINE_COLORS
from . import axes
from .style import COLORS

#: The datasheet machines the device is drawn beside.
MACHINES = ("T4", "H200")
#: Intensity axis, FLOP/byte.
X_RANGE = (1e-2, 1e4)
#: The device's colour (roof, ridge, dot outlines), apart from the machines' and the ops'.
DEVICE_COLOR = COLORS["accent"]
UNIT = "fp32"


def dots() -> list[ops.Op]:
    """The operations drawn as dots: a vector add of 2^24 floats and a 4096 matmul with
    32x32 tiles (FP32)."""
    return [ops.vector_add(2 ** 24), ops.matmul(4096, "tiled", 32)]


def _dot_colors() -> list[str]:
    return [COLORS["ops"][0], COLORS["ops"][1]]


def figure():
    """The roofline the device joins: T4 and H200 FP32 roofs (datasheet) with their
    ridges (labelled at their foot, away from the dots on the roofs), and each op of
    :func:`dots` as a dot on each roof."""
    import plotly.graph_objects as go

    lo, hi = X_RANGE
    fig = go.Figure()
    for name in MACHINES:
        m = machines.get(name)
        peak, ridge = m.peak_flops(UNIT), m.ridge(UNIT)
        color = MACHINE_COLORS[name]
        fig.add_trace(go.Scatter(
            x=[lo, ridge, hi], y=[roofline.attainable(m, lo, UNIT), peak, peak], mode="lines",
            name=f"{name} roof (datasheet)", line={"color": color, "width": 2.5},
            hovertemplate="%{x:.3g} FLOP/B → %{y:.3s}FLOP/s<extra>" + name + "</extra>"))
        fig.add_trace(go.Scatter(
            x=[ridge, ridge], y=[peak / 1e3, peak], mode="lines+text", showlegend=False,
            text=[f"ridge {units.number(ridge)}", ""], textposition="top right",
            line={"color": color, "dash": "dot", "width": 1.5}, hoverinfo="skip"))
    symbols = {"T4": "circle", "H200": "square"}
    for op, color in zip(dots(), _dot_colors()):
        for name in MACHINES:
            m = machines.get(name)
            fig.add_trace(go.Scatter(
                x=[op.intensity], y=[roofline.attainable(m, op.intensity, UNIT)],
                mode="markers", name=f"{op.name} on {name}",
                marker={"symbol": symbols[name], "size": 11, "color": color,
                        "line": {"color": MACHINE_COLORS[name], "width": 2}},
                hovertemplate=f"{op.name} on {name}: " + "%{y:.3s}FLOP/s<br>"
                              "I = %{x:.3g} FLOP/B<extra></extra>"))
    fig.update_layout(
        title={"text": f"Rooflines, {UNIT_LABELS[UNIT]} vs DRAM: T4, H200 and this device"},
        xaxis=axes.log_axis("FLOP/B", *X_RANGE, "arithmetic intensity (FLOP/byte)", length_px=560),
        # every power of ten a device could reach, so the ticks hold when the page adds
        # this device's roof and plotly re-ranges the axis
        yaxis={"type": "log", "title": {"text": "attainable"}, "tickmode": "array",
               **dict(zip(("tickvals", "ticktext"), axes.log_ticks(1e6, 1e18, "FLOP/s", 13)))},
        legend={"orientation": "h", "y": -0.2}, margin={"t": 50, "l": 100, "r": 20, "b": 40},
        height=520)
    return fig


def _ops_json() -> str:
    return json.dumps([{"name": op.name, "intensity": op.intensity, "colour": c}
                       for op, c in zip(dots(), _dot_colors())])


def section_html(book: bool | None = None) -> str:
    """The section's HTML: the button, progress and result areas around the figure on the
    site (``book`` True), the figure and one sentence in a notebook (False). None: decide
    by where this code runs."""
    book = static.in_book_build() if book is None else book
    fig = figure()
    if not book:
        return ('<div class="book-webgpu-notebook"><p>On the book\'s web page a button here '
                "measures the reader's own GPU with WebGPU and draws it on this roofline; in "
                "a notebook with a CUDA GPU, <code>labs.my_roofline()</code> measures it "
                "natively.</p>" + static.notebook_html(fig, name="webgpu-roofline") + "</div>")
    attrs = (f' data-ops="{_html.escape(_ops_json())}"'
             f' data-x-range="{_html.escape(json.dumps(list(X_RANGE)))}"'
             f' data-colour="{DEVICE_COLOR}"')
    return (f'<div class="book-webgpu"{attrs}>'
            '<p class="book-webgpu-status" role="status" aria-live="polite">The button runs '
            "two WebGPU shaders on this device's GPU (about 10 s), checks their output and "
            "adds the device to the roofline below. This needs JavaScript and WebGPU.</p>"
            '<p><button type="button" class="book-webgpu-run" disabled>Measure this device'
            '</button> <progress class="book-webgpu-progress" max="1" value="0" hidden>'
            "</progress></p>"
            '<div class="book-webgpu-result book-table"></div>'
            '<p><a class="book-webgpu-download" hidden>Download the result (JSON, the labs\' '
            "schema)</a></p>"
            + static.to_html(fig, name="webgpu-roofline") + "</div>")


class MeasureDevice:
    """Display object of the section (text/html wherever it runs)."""

    def _repr_html_(self) -> str:
        return section_html()


def measure_device() -> MeasureDevice:
    """The "Measure this device" section for a chapter cell."""
    return MeasureDevice()
