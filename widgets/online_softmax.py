"""Online softmax stepper: a row of scores processed tile by tile with the running state
(m, l, u), the rescaling factors alpha and beta, and the running output u / l, which
reaches the direct softmax-weighted sum at the last tile (perfmodel.softmax).

The default row starts with the source notes' three-score example (scores 0, ln 2, ln 3
with values 1, 4, 2, whose output is 2.5) and carries on for five more keys.
"""
from __future__ import annotations

import math

from perfmodel import _check, softmax, units

from .base import Control, Settings, View, check_int
from .style import COLORS, table_trace

SCORES = [0.0, math.log(2), math.log(3), math.log(6), math.log(1.5), math.log(4),
          math.log(0.5), math.log(5)]
VALUES = [1.0, 4.0, 2.0, 3.0, 5.0, 0.0, 6.0, 2.0]


def _g(x) -> str:
    return "" if x is None else units.number(x)


class OnlineSoftmax(View):
    """Step through a row of scores tile by tile."""

    name = "online-softmax"
    height = 520
    axis_px = 16          # under the plot is the table, which has no axis
    legend = {"x": 0.99, "y": 0.64, "xanchor": "right", "yanchor": "bottom",
              "orientation": "h"}

    def __init__(self, tile: int = 2, scores=None, values=None):
        self.scores = SCORES if scores is None else _check.items("scores", scores)
        self.values = VALUES if values is None else _check.items("values", values)
        self.scores, self.values = list(self.scores), list(self.values)
        softmax.state(self.scores, self.values)   # ValueError for a bad row
        if len(self.scores) > 16:
            raise ValueError(f"scores must hold at most 16 keys to draw; got {len(self.scores)}")
        check_int("tile", tile, 1, len(self.scores))
        self.tiles = sorted({1, 2, 3, 4, len(self.scores), tile})
        self.tiles = [t for t in self.tiles if t <= len(self.scores)]
        super().__init__(tile=tile, step=1)

    def steps(self, tile: int) -> list[dict]:
        return softmax.steps(self.scores, self.values, tile)

    def controls(self) -> list[Control]:
        return [Control("tile", "tile size", self.tiles, self._initial["tile"], "dropdown",
                        lambda t: f"{t} key{'s' if t > 1 else ''}"),
                Control("step", "after tile", lambda s: list(range(1, len(self.steps(s["tile"])) + 1)),
                        1, "slider", lambda k: str(k))]

    def title_for(self, s: Settings) -> str:
        return "Online softmax, tile by tile"

    def traces(self, s: Settings) -> list[dict]:
        hist = self.steps(s["tile"])
        k = s["step"]
        cur = hist[k - 1]
        keys = list(range(len(self.scores)))
        colors = [COLORS["roof"] if j < cur["start"] else COLORS["accent"] if j < cur["stop"]
                  else COLORS["muted"] for j in keys]
        direct = softmax.direct(self.scores, self.values)
        outs = [h["output"] for h in hist]
        header = ["tile", "α", "β", "m", "l", "u", "u / l"]
        rows = [[f"{h['start']}–{h['stop'] - 1}", _g(h["alpha"]), _g(h["beta"]), _g(h["state"].m),
                 _g(h["state"].l), _g(h["state"].u), _g(h["output"])] if i < k else [""] * 7
                for i, h in enumerate(hist)]
        return [
            {"type": "bar", "x": keys, "y": self.scores, "name": "scores s_j",
             "marker": {"color": colors}, "customdata": self.values,
             "xaxis": "x", "yaxis": "y", "showlegend": False,
             "hovertemplate": "key %{x}: s=%{y:.3f}, v=%{customdata:g}<extra></extra>"},
            {"type": "scatter", "mode": "lines", "name": "direct softmax",
             "x": [0.5, len(hist) + 0.5], "y": [direct, direct],
             "line": {"color": COLORS["gpu"], "dash": "dash"}, "xaxis": "x2", "yaxis": "y2"},
            {"type": "scatter", "mode": "lines+markers", "name": "running output u / l",
             "x": list(range(1, k + 1)), "y": outs[:k], "marker": {"size": 10},
             "line": {"color": COLORS["accent"]}, "xaxis": "x2", "yaxis": "y2"},
            table_trace(header, [list(col) for col in zip(*rows)], [0, 0.34]),
            # a dot on every score, so a score of 0 (key 0's) shows too
            {"type": "scatter", "mode": "markers", "x": keys, "y": self.scores, "name": "score",
             "marker": {"color": colors, "size": 9, "line": {"width": 1, "color": "#ffffff"}},
             "xaxis": "x", "yaxis": "y", "showlegend": False, "hoverinfo": "skip"},
        ]

    def layout(self, s: Settings) -> dict:
        n = len(self.steps(s["tile"]))
        lo, hi = min(min(self.scores), 0), max(self.scores)
        outs = [h["output"] for h in self.steps(s["tile"])]
        keys = list(range(len(self.scores)))
        return {"xaxis": {"domain": [0, 1], "anchor": "y", "tickmode": "array", "tickvals": keys,
                          "ticktext": [f"{j}: v={v:g}" for j, v in zip(keys, self.values)],
                          "title": {"text": "key j: its value v (done: blue, this tile: red)",
                                    "standoff": 2}},
                "yaxis": {"domain": [0.76, 1], "anchor": "x", "range": [lo - 0.3, hi + 0.3],
                          "zeroline": True, "title": {"text": "score"}},
                "xaxis2": {"domain": [0, 1], "anchor": "y2", "dtick": 1, "range": [0.5, n + 0.5],
                           "title": {"text": "tiles processed", "standoff": 2}},
                "yaxis2": {"domain": [0.44, 0.62], "anchor": "x2",
                           "range": [min(outs) - 0.5, max(outs) + 0.5], "title": {"text": "output"}}}


def online_softmax(tile: int = 2, scores=None, values=None) -> OnlineSoftmax:
    """Step tile by tile (``tile`` keys at a time) through a row of ``scores`` with
    ``values`` (default: the source notes' three-score example, extended to eight keys)."""
    return OnlineSoftmax(tile, scores, values)
