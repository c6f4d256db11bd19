"""Amdahl and Gustafson on one figure: speedup and efficiency against p for a serial
fraction f (perfmodel.parallel)."""
from __future__ import annotations

from perfmodel import parallel, units

from . import axes
from .base import Control, Settings, View, with_value
from .style import COLORS, pow2

#: Processing units on the x axis.
P = pow2(0, 14)
FRACTIONS = [0.0, 0.001, 0.01, 0.02, 0.05, 10 / 110, 0.2, 0.5]


def _f_label(f: float) -> str:
    return "10/110 ≈ 0.091 (10 µs of host work in 110)" if f == 10 / 110 else f"{f:g}"


class AmdahlGustafson(View):
    """Speedup (top) and efficiency (bottom) against p for both laws."""

    name = "amdahl-gustafson"
    height = 460
    legend = {"x": 0.01, "y": 0.99, "xanchor": "left", "yanchor": "top"}
    title = "Amdahl vs Gustafson"

    def __init__(self, serial_fraction: float = 0.05):
        self.fractions = with_value(FRACTIONS, serial_fraction, "serial_fraction", 0.0, 1.0)
        super().__init__(serial_fraction=serial_fraction)

    def controls(self) -> list[Control]:
        return [Control("serial_fraction", "serial fraction f", self.fractions,
                        self._initial["serial_fraction"], "slider", _f_label)]

    def traces(self, s: Settings) -> list[dict]:
        f = s["serial_fraction"]
        am = [parallel.amdahl(f, p) for p in P]
        gu = [parallel.gustafson(f, p) for p in P]
        limit = parallel.amdahl(f, float("inf"))
        common = {"mode": "lines+markers", "marker": {"size": 5}}
        return [
            {"type": "scatter", "name": "ideal (speedup = p)", "x": P, "y": P, "mode": "lines",
             "line": {"color": COLORS["muted"], "dash": "dot"}, "xaxis": "x", "yaxis": "y"},
            {"type": "scatter", "name": "Amdahl", "x": P, "y": am, **common,
             "line": {"color": COLORS["roof"]}, "xaxis": "x", "yaxis": "y",
             "hovertemplate": "p=%{x}: %{y:.3g}x<extra>Amdahl</extra>"},
            {"type": "scatter", "name": "Gustafson", "x": P, "y": gu, **common,
             "line": {"color": COLORS["parts"]["compute"]},
             "xaxis": "x", "yaxis": "y", "hovertemplate": "p=%{x}: %{y:.3g}x<extra>Gustafson</extra>"},
            {"type": "scatter", "name": "Amdahl's limit 1/f", "mode": "lines+text",
             # at f = 0 there is no limit: two gaps, so the trace keeps its points
             "x": [P[0], P[-1]], "y": [limit, limit] if f > 0 else [None, None],
             "text": ["", f"1/f = {units.number(limit)}" if f > 0 else ""], "textposition": "top left",
             "line": {"color": COLORS["roof"], "dash": "dash", "width": 1},
             "xaxis": "x", "yaxis": "y", "showlegend": False, "hoverinfo": "skip"},
            {"type": "scatter", "name": "Amdahl efficiency", "x": P,
             "y": [parallel.efficiency(a, p) for a, p in zip(am, P)], **common,
             "line": {"color": COLORS["roof"]}, "xaxis": "x2", "yaxis": "y2", "showlegend": False,
             "hovertemplate": "p=%{x}: %{y:.1%}<extra>Amdahl efficiency</extra>"},
            {"type": "scatter", "name": "Gustafson efficiency", "x": P,
             "y": [parallel.efficiency(g, p) for g, p in zip(gu, P)], **common,
             "line": {"color": COLORS["parts"]["compute"]}, "xaxis": "x2", "yaxis": "y2", "showlegend": False,
             "hovertemplate": "p=%{x}: %{y:.1%}<extra>Gustafson efficiency</extra>"},
        ]

    def layout(self, s: Settings) -> dict:
        p = axes.log_axis("", P[0] / 1.3, P[-1] * 1.3, length_px=self.plot_px())
        return {"xaxis": {**p, "anchor": "y", "domain": [0, 1], "matches": "x2",
                          "showticklabels": False},
                "yaxis": axes.log_axis("", 1, 10 ** 4.3, "speedup", vertical=True,
                                       length_px=self.height * 0.58, domain=[0.42, 1]),
                "xaxis2": {**p, "anchor": "y2", "domain": [0, 1],
                           "title": {"text": "processing units p"}},
                "yaxis2": {"domain": [0, 0.34], "range": [0, 1.05], "tickformat": ".0%",
                           "title": {"text": "efficiency"}}}


def amdahl_gustafson(serial_fraction: float = 0.05) -> AmdahlGustafson:
    """Speedup and efficiency against p under Amdahl's and Gustafson's laws, for a
    serial fraction you slide (initially ``serial_fraction``, in [0, 1])."""
    return AmdahlGustafson(serial_fraction)
