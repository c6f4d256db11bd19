"""Tiles and waves: an n x n output cut into tiles, the tiles launched in waves over the
SMs, and how full the last wave is (perfmodel.waves; the 1792 vs 1793 example).

Each tile is drawn at its true size and aspect (one output element is as wide as it is
tall) and coloured by the wave it runs in; partial tiles at the edges, which can be one
element thin (well under a pixel), are outlined so they can be seen; the bars beside
show how many SMs each wave keeps busy.
"""
from __future__ import annotations

from perfmodel import waves

from .base import Control, Settings, View, check_int, with_value
from .style import COLORS, fraction_label

TILES = [(256, 128), (128, 128), (256, 256)]
SMS = {40: "40 (T4)", 108: "108 (A100)", 132: "132 (H100, H200)", 148: "148 (B200)"}
SIZES = [1024, 1536, 1792, 1793, 2048, 2049, 2304]


class TilesAndWaves(View):
    """Tiles, waves on N SMs, and the last wave's utilisation."""

    name = "tiles-and-waves"
    height = 400
    SPAN = 2304                 # output elements shown along each side
    TILES_X = (0.0, 0.62)       # the tiles' panel, as a fraction of the plot's width

    def __init__(self, n: int = 1792, tile_m: int = 256, tile_n: int = 128, sms: int = 108):
        self.sizes = with_value(SIZES, n, "n", 1, 8192, integer=True)
        check_int("tile_m", tile_m, 1, 8192)
        check_int("tile_n", tile_n, 1, 8192)
        self.tiles = TILES if (tile_m, tile_n) in TILES else TILES + [(tile_m, tile_n)]
        self.sms = with_value(list(SMS), sms, "sms", 1, 10_000, integer=True)
        super().__init__(tile=(tile_m, tile_n), sms=sms, n=n)

    def controls(self) -> list[Control]:
        i = self._initial
        return [Control("tile", "tile", self.tiles, i["tile"], "dropdown", lambda t: f"{t[0]}×{t[1]}"),
                Control("sms", "SMs", self.sms, i["sms"], "dropdown", lambda k: SMS.get(k, str(k))),
                Control("n", "matrix size n", self.sizes, i["n"], "slider", lambda n: f"{n:,}")]

    def numbers(self, s: Settings) -> dict[str, float]:
        """Tiles, waves, last-wave and overall utilisation (what the figure reports)."""
        (tm, tn), n, sms = s["tile"], s["n"], s["sms"]
        t = waves.tiles(n, n, tm, tn)
        return {"tiles": t, "waves": waves.waves(t, sms),
                "last": waves.last_wave_utilization(t, sms), "overall": waves.utilization(t, sms)}

    def title_for(self, s: Settings) -> str:
        return "Tiles and waves"

    def traces(self, s: Settings) -> list[dict]:
        (tm, tn), n, sms = s["tile"], s["n"], s["sms"]
        x = self.numbers(s)
        grid = waves.assignment(n, n, tm, tn, sms)
        busy = waves.busy_per_wave(x["tiles"], sms)
        full = (n // tm) * (n // tn)
        partial = x["tiles"] - full
        # outline the partial column and row of tiles (a thick line down their middle)
        ox, oy = [], []
        if n % tn:
            mid = (n // tn) * tn + (n % tn) / 2
            ox += [mid, mid, None]
            oy += [0, n, None]
        if n % tm:
            mid = (n // tm) * tm + (n % tm) / 2
            ox += [0, n, None]
            oy += [mid, mid, None]
        # no partial tiles: one gap, so the trace keeps a point (and a step, its shape)
        ox, oy = ox or [None], oy or [None]
        thin = min([k for k in (n % tn, n % tm) if k] or [0])
        return [
            {"type": "heatmap", "x": waves.tile_edges(n, tn), "y": waves.tile_edges(n, tm),
             "z": grid, "zmin": 1, "zmax": max(x["waves"], 2), "showscale": False,
             "colorscale": [[0, COLORS["roof"]], [1, COLORS["accent"]]], "xgap": 1, "ygap": 1,
             "xaxis": "x", "yaxis": "y", "name": "tiles",
             "hovertemplate": "tile at column %{x}, row %{y}: wave %{z}<extra></extra>"},
            {"type": "scatter", "mode": "text", "x": [0], "y": [-0.03 * self.SPAN], "xaxis": "x",
             "yaxis": "y", "textposition": "top right", "textfont": {"size": 13},
             "text": [f"{x['tiles']} tiles → {x['waves']} wave{'s' if x['waves'] > 1 else ''}"
                      f" on {sms} SMs, last wave {fraction_label(x['last'])} full"
                      + (f"<br>{partial} partial tiles (outlined in orange), the thinnest {thin} element"
                         f"{'s' if thin > 1 else ''} wide" if partial else "<br>no partial tiles")],
             "cliponaxis": False,
             "hoverinfo": "skip", "name": "summary"},
            {"type": "bar", "x": list(range(1, len(busy) + 1)), "y": busy, "name": "SMs busy",
             "marker": {"color": [COLORS["roof"]] * (len(busy) - 1) + [COLORS["accent"]]},
             "xaxis": "x2", "yaxis": "y2",
             "hovertemplate": "wave %{x}: %{y} SMs busy<extra></extra>"},
            {"type": "scatter", "mode": "lines", "name": "partial tiles", "x": ox, "y": oy,
             "line": {"color": COLORS["parts"]["compute"], "width": 3}, "xaxis": "x",
             "yaxis": "y", "hoverinfo": "skip", "showlegend": False},
        ]

    def layout(self, s: Settings) -> dict:
        # one element as wide as it is tall: the panel's pixels per element both ways
        w = self.plot_px() * (self.TILES_X[1] - self.TILES_X[0])
        top = -0.12 * self.SPAN
        rows_px = w * (self.SPAN - top) / self.SPAN
        return {"xaxis": {"domain": list(self.TILES_X), "anchor": "y", "range": [0, self.SPAN],
                          "showgrid": False, "title": {"text": "output columns", "standoff": 2},
                          "constrain": "domain"},
                "yaxis": {"domain": [1 - min(rows_px / self.height, 1), 1], "anchor": "x",
                          "range": [self.SPAN, top], "title": {"text": "output rows"},
                          "showgrid": False, "scaleanchor": "x", "scaleratio": 1,
                          "constrain": "domain"},
                "xaxis2": {"domain": [0.74, 1], "anchor": "y2", "title": {"text": "wave"},
                           "dtick": 1, "range": [0.4, 9.6]},
                "yaxis2": {"domain": [0.15, 0.8], "anchor": "x2", "range": [0, s["sms"] * 1.1],
                           "title": {"text": "SMs busy", "standoff": 2}}}


def tiles_and_waves(n: int = 1792, tile_m: int = 256, tile_n: int = 128, sms: int = 108
                    ) -> TilesAndWaves:
    """An n x n output in tile_m x tile_n tiles on ``sms`` SMs (one tile per SM at a time):
    tiles, waves and the last wave's utilisation; slide n, pick the tile and the SMs."""
    return TilesAndWaves(n, tile_m, tile_n, sms)
