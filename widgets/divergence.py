"""Divergence: the warp, not the thread, is the unit of cost (perfmodel.simt).

Top: 8 warps of 32 lanes coloured by the path each lane takes, with paths split between
warps or dealt lane by lane through every warp; each warp makes as many passes as it has
distinct paths, so the predicted time (same total work) is that many times one path.
Bottom: one busy thread in every k; a warp with any busy lane runs the whole loop, so the
time follows the fraction of warps holding a busy lane, not the fraction of threads.
"""
from __future__ import annotations

from perfmodel import simt

from . import axes
from .base import Control, Settings, View, check_choice, with_value
from .style import COLORS, fraction_label, pow2

WARPS_SHOWN = 8        # warps in the path picture
BUSY_WARPS = 16        # warps in the one-in-k picture
KS = pow2(0, 9)
SPLITS = ["within", "between"]
SPLIT_LABELS = {"within": "through every warp", "between": "between whole warps"}


def path_colors(paths: int) -> list:
    """A stepped colourscale giving path i (z from -0.5 to paths - 0.5) its own colour."""
    from perfmodel import _check

    paths = _check.count("paths", paths, maximum=1024)
    pal = COLORS["ops"]
    return [[edge, pal[i % len(pal)]] for i in range(paths)
            for edge in (i / paths, (i + 1) / paths)]


class Divergence(View):
    """Paths per warp and one busy thread in k, drawn lane by lane."""

    name = "divergence"
    height = 500
    title = "Divergence: cost is counted in warps"

    def __init__(self, paths: int = 2, split: str = "within", k: int = 32):
        split = check_choice("split", split, SPLITS)
        self.paths = with_value(pow2(0, 5), paths, "paths", 1, simt.WARP, integer=True)
        self.ks = with_value(KS, k, "k", 1, 2 ** 20, integer=True)
        super().__init__(paths=paths, split=split, k=k)

    def controls(self) -> list[Control]:
        i = self._initial
        return [Control("split", "paths split", SPLITS, i["split"], "dropdown",
                        SPLIT_LABELS.get),
                Control("paths", "paths per warp", self.paths, i["paths"], "slider"),
                Control("k", "one busy thread in k", self.ks, i["k"], "slider")]

    def time_vs_k(self, k: int) -> float:
        """Predicted time with one busy thread in k, relative to every thread busy."""
        return simt.one_in_k_time(k, 1.0, 0.0)

    def traces(self, s: Settings) -> list[dict]:
        p, split, k = s["paths"], s["split"], s["k"]
        lanes = simt.warp_paths(p, split, WARPS_SHOWN)
        passes = simt.divergence_passes(p, split)
        busy = simt.busy_lanes(k, BUSY_WARPS)
        warp_runs = busy.any(axis=1)
        state = busy.astype(int) + warp_runs[:, None].astype(int)   # 0 idle, 1 idle in a running warp, 2 busy
        t = self.time_vs_k(k)
        return [
            {"type": "heatmap", "z": lanes.tolist(), "zmin": -0.5, "zmax": p - 0.5,
             "colorscale": path_colors(p), "showscale": False, "xgap": 1, "ygap": 2,
             "xaxis": "x", "yaxis": "y", "name": "path of each lane",
             "hovertemplate": "warp %{y}, lane %{x}: path %{z}<extra></extra>"},
            {"type": "scatter", "mode": "text", "x": [-0.5], "y": [-1.2],
             "text": [f"{passes} pass{'es' if passes > 1 else ''} per warp → {passes}× one path's time"],
             "textposition": "middle right", "textfont": {"size": 13}, "xaxis": "x", "yaxis": "y",
             "cliponaxis": False,
             "hoverinfo": "skip", "name": "passes"},
            {"type": "heatmap", "z": state.tolist(), "zmin": 0, "zmax": 2,
             "colorscale": [[0, "rgba(150,150,150,0.25)"], [0.5, "#f6c28b"], [1, "#e45756"]],
             "showscale": False, "xgap": 1, "ygap": 2, "xaxis": "x2", "yaxis": "y2",
             "name": "busy lanes",
             "hovertemplate": "warp %{y}, lane %{x}: %{z}<extra>0 idle, 1 waits in a running warp, 2 busy</extra>"},
            {"type": "scatter", "mode": "text", "x": [-0.5], "y": [-3.2],
             "text": [f"1 thread in {k} busy:<br>{fraction_label(simt.busy_warp_fraction(k))}"
                      f" of warps run → time {fraction_label(t)}"],
             "textposition": "middle right", "textfont": {"size": 13}, "xaxis": "x2", "yaxis": "y2",
             "cliponaxis": False,
             "hoverinfo": "skip", "name": "busy warps"},
            {"type": "scatter", "mode": "lines+markers", "name": "predicted time (warps)",
             "x": KS, "y": [self.time_vs_k(j) for j in KS], "line": {"color": COLORS["accent"]},
             "xaxis": "x3", "yaxis": "y3"},
            {"type": "scatter", "mode": "lines", "name": "busy threads 1/k",
             "x": KS, "y": [1 / j for j in KS], "line": {"color": COLORS["muted"], "dash": "dot"},
             "xaxis": "x3", "yaxis": "y3"},
            {"type": "scatter", "mode": "markers", "name": "this k", "x": [k], "y": [t],
             "marker": {"size": 13, "color": COLORS["accent"], "line": {"width": 2, "color": "#fff"}},
             "xaxis": "x3", "yaxis": "y3", "showlegend": False},
        ]

    def layout(self, s: Settings) -> dict:
        lanes = {"showgrid": False, "zeroline": False}
        return {"xaxis": {**lanes, "domain": [0, 1], "anchor": "y",
                          "range": [-0.5, 31.5]},
                "yaxis": {**lanes, "domain": [0.68, 0.98], "anchor": "x",
                          "range": [WARPS_SHOWN - 0.5, -2], "tickvals": list(range(WARPS_SHOWN)),
                          "title": {"text": "warp"}},
                "xaxis2": {**lanes, "domain": [0, 1], "anchor": "y2", "range": [-0.5, 31.5],
                           "title": {"text": "lane", "standoff": 2}},
                "yaxis2": {**lanes, "domain": [0.3, 0.6], "anchor": "x2",
                           "range": [BUSY_WARPS - 0.5, -5.5], "tickvals": list(range(0, BUSY_WARPS, 4)),
                           "title": {"text": "warp"}},
                "xaxis3": {**axes.log_axis("", KS[0] / 1.2, KS[-1] * 1.2,
                                           length_px=self.plot_px()),
                           "tickvals": KS, "ticktext": [str(k) for k in KS],
                           "domain": [0, 1], "anchor": "y3",
                           "title": {"text": "k (one busy thread in k)"}},
                "yaxis3": {"domain": [0, 0.2], "anchor": "x3", "range": [0, 1.1],
                           "tickformat": ".0%", "title": {"text": "time"}},
                "showlegend": False}


def divergence(paths: int = 2, split: str = "within", k: int = 32) -> Divergence:
    """Paths per warp (``paths``, split "within" every warp or "between" warps) and one
    busy thread in ``k``: passes per warp and predicted time, lane by lane."""
    return Divergence(paths, split, k)
