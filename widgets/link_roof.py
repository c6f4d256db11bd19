"""A link is a roof too: a collective's bus bandwidth against message size, under the
link's per-direction rate (perfmodel.comm's alpha-beta model).

Dropdowns pick the link, the collective (ring or tree all-reduce, ring all-gather) and the
number of GPUs; the slider picks a message size, whose time, bus bandwidth and share of
the roof the table reads out and the dot marks on the curve.
"""
from __future__ import annotations

from perfmodel import comm, units

from . import axes
from .base import Control, Settings, View, check_choice, with_value
from .style import COLORS, table_trace

#: The links offered, fastest first.
LINKS = ("nvlink4", "pcie5", "pcie3", "ib_ndr")
#: The collectives offered: label -> (op, algorithm).
COLLECTIVES = {"ring all-reduce": ("all_reduce", "ring"),
               "tree all-reduce": ("all_reduce", "tree"),
               "ring all-gather": ("all_gather", "ring")}
GPUS = (2, 8, 64)
SIZES = [2 ** k for k in range(12, 31, 2)]       # 4 KiB, 16 KiB, ... 1 GiB
CURVE = [2 ** (k / 2) for k in range(20, 65)]    # 1 KiB .. 4 GiB, two points an octave
Y_RANGE = (1e7, 3e12)


def _size(nbytes: float) -> str:
    """4 KiB, 64 MiB, 1 GiB: message sizes in binary prefixes, as NCCL-tests prints them."""
    for unit, scale in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:g} {unit}"
    return f"{nbytes:g} B"


class LinkRoof(View):
    """Link, collective, GPUs and message size to time and bus bandwidth."""

    name = "link-roof"
    height = 500
    TABLE, PLOT = (0.84, 1.0), (0.0, 0.66)
    legend = {"x": 0.01, "y": 0.68, "xanchor": "left", "yanchor": "bottom",
              "orientation": "h"}
    title = "A link is a roof: bus bandwidth by message size"

    def __init__(self, link: str = "nvlink4", collective: str = "ring all-reduce",
                 gpus: int = 8, nbytes: int = 2 ** 26):
        self.link0 = check_choice("link", link, LINKS)
        self.collective0 = check_choice("collective", collective, list(COLLECTIVES))
        self.gpus = with_value(GPUS, gpus, "gpus", 2, 4096, integer=True)
        self.sizes = with_value(SIZES, nbytes, "nbytes", 1, 2 ** 34, integer=True)
        super().__init__(link=self.link0, collective=self.collective0, gpus=gpus, nbytes=nbytes)

    def controls(self) -> list[Control]:
        i = self._initial
        return [Control("link", "link", list(LINKS), i["link"], "dropdown",
                        lambda k: comm.link(k).label),
                Control("collective", "collective", list(COLLECTIVES), i["collective"],
                        "dropdown"),
                Control("gpus", "GPUs", self.gpus, i["gpus"], "dropdown", lambda n: f"{n:,}"),
                Control("nbytes", "message", self.sizes, i["nbytes"], "slider", _size)]

    def point(self, s: Settings, nbytes: float) -> tuple[float, float]:
        """(seconds, bus bandwidth in byte/s) of the chosen collective at ``nbytes``."""
        op, algorithm = COLLECTIVES[s["collective"]]
        link, n = comm.link(s["link"]), s["gpus"]
        t = comm.collective_time(op, nbytes, n, link, algorithm)
        return t, comm.bus_bandwidth(op, nbytes, t, n)

    def traces(self, s: Settings) -> list[dict]:
        link = comm.link(s["link"])
        t, bus = self.point(s, s["nbytes"])
        curve = [self.point(s, x)[1] for x in CURVE]
        header = ["message", "time", "bus bandwidth", "share of the roof"]
        cells = [[_size(s["nbytes"])], [units.seconds(t)], [units.bandwidth(bus)],
                 [f"{100 * bus / link.bandwidth:.1f} %"]]
        return [
            table_trace(header, cells, list(self.TABLE)),
            {"type": "scatter", "mode": "lines", "name": f"{s['collective']}, {s['gpus']:,} GPUs",
             "x": CURVE, "y": curve, "line": {"color": COLORS["roof"], "width": 3},
             "hovertemplate": "%{x:.3s}B: %{y:.3s}B/s<extra></extra>"},
            {"type": "scatter", "mode": "lines", "name": f"roof: {units.bandwidth(link.bandwidth)}"
             " each way", "x": [CURVE[0], CURVE[-1]], "y": [link.bandwidth] * 2,
             "line": {"color": COLORS["ridge"], "dash": "dash"}, "hoverinfo": "skip"},
            {"type": "scatter", "mode": "markers", "name": "chosen message",
             "x": [s["nbytes"]], "y": [bus], "showlegend": False,
             "marker": {"color": COLORS["accent"], "size": 13},
             "hovertemplate": "%{x:.3s}B: %{y:.3s}B/s<extra>chosen</extra>"},
        ]

    def layout(self, s: Settings) -> dict:
        h, w = self.height, self.plot_px()
        return {"xaxis": axes.log_axis("B", CURVE[0], CURVE[-1], "message size (bytes)",
                                       length_px=w, domain=[0, 1], anchor="y"),
                "yaxis": axes.log_axis("B/s", *Y_RANGE, "bus bandwidth", vertical=True,
                                       length_px=h * (self.PLOT[1] - self.PLOT[0]),
                                       domain=list(self.PLOT), anchor="x")}


def link_roof(link: str = "nvlink4", collective: str = "ring all-reduce", gpus: int = 8,
              nbytes: int = 2 ** 26) -> LinkRoof:
    """A collective's bus bandwidth by message size under a link's roof: ``link`` a key of
    perfmodel.comm.LINKS, ``collective`` one of "ring all-reduce", "tree all-reduce",
    "ring all-gather", on ``gpus`` GPUs, with a message of ``nbytes`` bytes marked."""
    return LinkRoof(link, collective, gpus, nbytes)
