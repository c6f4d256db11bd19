"""Coalescing: one warp's 32 loads, the 32-byte sectors they touch, the useful fraction.

Top: each lane's byte address (4-byte floats at a stride, or a random gather) with the
sectors the request touches shaded. Bottom: the useful fraction of the bytes moved for
every stride, at the caches' 32-byte sectors and DRAM's 64-byte bursts (perfmodel.simt).
"""
from __future__ import annotations

from perfmodel import simt

from .base import Control, Settings, View, check_choice
from .style import COLORS, fraction_label

STRIDES: list[int | str] = [1, 2, 4, 8, 16, 32, 64, "random"]
SECTOR, BURST, ELEM = 32, 64, 4
#: Hover of the lower panel's points: the stride (customdata) and the useful fraction.
HOVER = "stride %{customdata}: %{y:.1%} useful<extra>%{fullData.name}</extra>"


def _label(stride) -> str:
    return "random gather" if stride == "random" else f"{stride} element{'s' if stride != 1 else ''}"


def _tick(stride) -> str:
    """The stride as the lower panel's axis writes it (the axis title says 'elements')."""
    return "random" if stride == "random" else str(stride)


class Coalescing(View):
    """The warp's 32 addresses and the sectors they cost."""

    name = "coalescing"
    height = 500
    # between the panels, under the byte-address axis: on neither panel's data
    legend = {"orientation": "h", "x": 0.0, "y": 0.335, "xanchor": "left", "yanchor": "top"}

    def __init__(self, stride: int | str = 1):
        check_choice("stride", stride, STRIDES, str)
        super().__init__(stride=stride)

    def controls(self) -> list[Control]:
        return [Control("stride", "stride", STRIDES, self._initial["stride"], "slider", _label)]

    def title_for(self, s: Settings) -> str:
        return "Coalescing: one warp's 32 loads of 4 bytes"

    def traces(self, s: Settings) -> list[dict]:
        st = s["stride"]
        addr = simt.lane_addresses(st, ELEM)
        sec = simt.touched_sectors(st, ELEM, SECTOR)
        rank = {int(a): i for i, a in enumerate(sec)}
        # Random addresses span megabytes: draw sectors side by side in address order.
        compress = st == "random"
        pos = [rank[int(a) // SECTOR] * SECTOR + int(a) % SECTOR if compress else int(a) for a in addr]
        starts = [i * SECTOR for i in range(len(sec))] if compress else [int(x) * SECTOR for x in sec]
        n_sec = len(sec)
        useful = simt.useful_fraction(st, ELEM, SECTOR)
        xs = list(STRIDES)
        stride_ticks = [_tick(x) for x in xs]  # the strides as the axis names them
        # The byte axis spans the sectors moved, [0, span] (span: the power of two that
        # holds them, so the labels are round), drawn at a fixed range of 0 to 1 with its
        # labels as a text trace: a step moves traces only, never the axis (an axis plotly
        # ranges again costs a relayout, too slow for a frame).
        span = 1 << (max(starts, default=0) + SECTOR - 1).bit_length()
        ticks = [i / 4 for i in range(5)]
        return [
            {"type": "bar", "x": [(x + SECTOR / 2) / span for x in starts], "y": [32] * n_sec,
             "width": [SECTOR * 0.96 / span] * n_sec, "base": [-0.5] * n_sec,
             "name": "32-byte sectors moved", "customdata": [x + SECTOR // 2 for x in starts],
             "meta": {"table_x": "customdata"},
             "marker": {"color": "rgba(76,120,168,0.25)", "line": {"width": 0}},
             "xaxis": "x", "yaxis": "y", "hoverinfo": "skip"},
            {"type": "scatter", "mode": "markers", "name": "lane's 4 bytes",
             "x": [x / span for x in pos], "y": list(range(simt.WARP)),
             "marker": {"color": COLORS["accent"], "size": 6, "symbol": "square"},
             "customdata": [int(a) for a in addr], "meta": {"table_x": "customdata"},
             "xaxis": "x", "yaxis": "y",
             "hovertemplate": "lane %{y}: byte %{customdata:,}<extra></extra>"},
            {"type": "scatter", "mode": "text", "x": ticks, "y": [-1] * len(ticks),
             "text": [f"{round(f * span):,}" for f in ticks], "textposition": "bottom center",
             "cliponaxis": False, "textfont": {"size": 12}, "xaxis": "x", "yaxis": "y",
             "meta": {"role": "axis labels"}, "hoverinfo": "skip", "showlegend": False},
            {"type": "scatter", "mode": "text", "x": [0], "y": [35], "xaxis": "x", "yaxis": "y",
             "text": [f"{n_sec} sectors{' (side by side)' if compress else ''} = "
                      f"{n_sec * SECTOR:,} B moved<br>for 128 B used: {fraction_label(useful)} useful"],
             "textposition": "middle right", "cliponaxis": False,
             "textfont": {"size": 13}, "hoverinfo": "skip", "showlegend": False},
            # The stride axis: numeric positions 0..7 at a fixed range, labelled by tick
            # text; the strides themselves in customdata (hover, data table, words).
            {"type": "scatter", "mode": "lines+markers", "name": "useful, 32 B sectors (L2)",
             "x": list(range(len(xs))), "customdata": stride_ticks,
             "meta": {"table_x": "customdata"}, "hovertemplate": HOVER,
             "y": [simt.useful_fraction(x, ELEM, SECTOR) for x in xs],
             "line": {"color": COLORS["roof"]}, "xaxis": "x2", "yaxis": "y2"},
            {"type": "scatter", "mode": "lines+markers", "name": "useful, 64 B bursts (DRAM)",
             "x": list(range(len(xs))), "customdata": stride_ticks,
             "meta": {"table_x": "customdata"}, "hovertemplate": HOVER,
             "y": [simt.useful_fraction(x, ELEM, BURST) for x in xs],
             "line": {"color": COLORS["parts"]["compute"]}, "xaxis": "x2", "yaxis": "y2"},
            {"type": "scatter", "mode": "markers", "name": "this stride",
             "x": [STRIDES.index(st)], "customdata": [_tick(st)],
             "meta": {"table_x": "customdata"}, "hovertemplate": HOVER, "y": [useful],
             "marker": {"size": 14, "color": COLORS["accent"],
                        "line": {"width": 2, "color": "#fff"}},
             "xaxis": "x2", "yaxis": "y2", "showlegend": False},
        ]

    def layout(self, s: Settings) -> dict:
        return {"xaxis": {"domain": [0, 1], "anchor": "y",
                          "title": {"text": "byte address", "standoff": 22},
                          "range": [-0.03, 1.03], "tickvals": [i / 4 for i in range(5)],
                          "showticklabels": False, "zeroline": False},
                "yaxis": {"domain": [0.42, 1], "anchor": "x", "range": [-1, 38],
                          "title": {"text": "lane"}},
                "xaxis2": {"domain": [0, 1], "anchor": "y2", "range": [-0.5, len(STRIDES) - 0.5],
                           "tickvals": list(range(len(STRIDES))),
                           "ticktext": [_tick(x) for x in STRIDES],
                           "title": {"text": "stride (elements between neighbouring lanes)",
                                     "standoff": 2}},
                "yaxis2": {"domain": [0, 0.24], "anchor": "x2", "range": [0, 1.1],
                           "tickformat": ".0%", "title": {"text": "useful"}},
                "barmode": "overlay"}


def coalescing(stride: int | str = 1) -> Coalescing:
    """One warp reading 4-byte floats at ``stride`` elements apart (or "random"): the
    sectors touched and the useful fraction of the bytes moved."""
    return Coalescing(stride)
