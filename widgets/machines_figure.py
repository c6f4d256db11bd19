"""The appendix figure: every machine's roofline, with a dropdown for the compute unit."""
from __future__ import annotations

import numpy as np

from perfmodel import machines, units

from . import axes
from perfmodel.machines import UNIT_LABELS

#: Intensity axis of the roofline figures, FLOP/byte.
INTENSITY = np.logspace(-2, 4, 121)
COLORS = {"T4": "#1f77b4", "A100": "#2ca02c", "H100": "#d62728", "H200": "#9467bd",
          "B200": "#ff7f0e", "CPU": "#7f7f7f"}


def roof_curve(machine: machines.Machine, unit: str, intensity=INTENSITY) -> np.ndarray:
    """Attainable FLOP/s along the intensity axis (NaN where the machine lacks the unit)."""
    machine = machines.get(machine)
    if not isinstance(unit, str):
        raise TypeError(f"unit must be a compute unit's name like 'fp32', got {unit!r}"[:200])
    try:
        intensity = np.asarray(intensity, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"intensity must be numbers (FLOP/byte), got {intensity!r}"[:200]) from None
    if intensity.ndim != 1:
        raise ValueError(f"intensity must be a list of FLOP/byte values, got shape {intensity.shape}")
    if unit not in machine.peaks:
        return np.full(len(intensity), np.nan)
    return np.minimum(machine.peak_flops(unit), intensity * machine.bandwidth("dram"))


def machines_roofline(unit: str = "fp32"):
    """A static plotly figure: one roofline per machine, a dropdown switching the unit.

    Machines without the chosen unit show no line for it (the legend says so).
    """
    import plotly.graph_objects as go

    ms = machines.all_machines()
    unit_list = [u for u in machines.UNITS if any(u in m.peaks for m in ms)]
    if unit not in unit_list:
        raise ValueError(f"unit must be one of {', '.join(unit_list)}; got {unit!r}")
    fig = go.Figure()
    for m in ms:
        fig.add_trace(go.Scatter(x=INTENSITY, y=roof_curve(m, unit), mode="lines", name=m.name,
                                 line={"color": COLORS.get(m.name), "width": 2.5},
                                 hovertemplate="%{x:.3g} FLOP/B → %{y:.3s}FLOP/s<extra>"
                                 + m.name + "</extra>"))
    buttons = []
    for u in unit_list:
        ys = [roof_curve(m, u).tolist() for m in ms]
        names = [m.name if u in m.peaks else f"{m.name} (no {UNIT_LABELS[u]})" for m in ms]
        buttons.append({"label": UNIT_LABELS[u], "method": "update",
                        "args": [{"y": ys, "name": names},
                                 {"title.text": f"Rooflines, {UNIT_LABELS[u]} vs DRAM"}]})
    fig.update_layout(
        title={"text": f"Rooflines, {UNIT_LABELS[unit]} vs DRAM"},
        xaxis=axes.log_axis("FLOP/B", INTENSITY[0], INTENSITY[-1], "arithmetic intensity (FLOP/byte)",
                            length_px=560),
        yaxis=axes.log_axis("FLOP/s", 6e7, 3e16, "attainable", vertical=True, length_px=330),
        updatemenus=[{"buttons": buttons, "active": unit_list.index(unit), "x": 0.0, "y": 1.18,
                      "xanchor": "left", "yanchor": "top", "direction": "down"}],
        legend={"orientation": "h", "y": -0.25}, margin={"t": 90, "l": 100, "r": 20, "b": 40},
        height=480)
    return fig


def machines_table() -> list[dict]:
    """One row per machine: peaks per unit, bandwidth per level, ridge per unit (strings)."""
    rows = []
    for m in machines.all_machines():
        row = {"machine": m.name, "what": m.description}
        for u in machines.UNITS:
            row[UNIT_LABELS[u]] = units.flops(m.peak_flops(u)) if u in m.peaks else "—"
        for lvl in machines.LEVELS:
            row[machines.LEVEL_LABELS[lvl]] = (units.bandwidth(m.bandwidth(lvl))
                                               if lvl in m.bandwidths else "—")
        for u in machines.UNITS:
            if u in m.peaks:
                row[f"ridge {UNIT_LABELS[u]}"] = units.number(m.ridge(u))
        rows.append(row)
    return rows


def sources_table() -> list[dict]:
    """One row per (machine, figure): where each number comes from."""
    rows = []
    for m in machines.all_machines():
        for u in m.units():
            rows.append({"machine": m.name, "figure": UNIT_LABELS[u],
                         "value": units.flops(m.peak_flops(u)), "source": m.source(u)})
        for lvl in m.levels():
            rows.append({"machine": m.name, "figure": machines.LEVEL_LABELS[lvl],
                         "value": units.bandwidth(m.bandwidth(lvl)), "source": m.source(lvl)})
        rows.append({"machine": m.name, "figure": "launch toll",
                     "value": units.seconds(m.launch_overhead.value),
                     "source": m.launch_overhead.source})
    return rows
