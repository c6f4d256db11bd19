"""Tiles over SMs in waves (chapter 9): each wave a panel of the machine's SMs, filled
where an SM runs a tile; the last wave is as long as a full one however few SMs it keeps
busy (perfmodel.waves)."""
from __future__ import annotations

from perfmodel import units, waves

from ..base import Control, with_value
from ._base import FILL, Diagram, boxes_trace, grid, label, machine_menu, text_trace, texts_trace

SIZES = [1024, 1536, 1792, 1793, 2048, 2049, 2304]
MAX_WAVES = 6
PANEL = 100 / MAX_WAVES


class WavesOverSMs(Diagram):
    name = "waves-over-sms"
    title = "Tiles over SMs, wave by wave"
    caption = ("An n × n output cut into tiles, one tile per SM at a time: each panel is one "
               "wave over every SM of the machine, filled where an SM has a tile. A last wave "
               "with few tiles takes as long as a full one.")
    height = 260
    xrange, yrange = (0, 100), (0, 100)

    def __init__(self, machine="A100", n: int = 1792, tile_m: int = 256, tile_n: int = 128):
        self.menu, name = machine_menu(machine, ("sms",))
        self.sizes = with_value(SIZES, n, "n", 1, 8192, integer=True)
        self.tile = (with_value([], tile_m, "tile_m", 1, 8192, integer=True)[0],
                     with_value([], tile_n, "tile_n", 1, 8192, integer=True)[0])
        super().__init__(machine=name, n=n)

    def controls(self):
        return [self.machine_control(),
                Control("n", "matrix size n", self.sizes, self._initial["n"], "slider",
                        lambda n: f"{n:,}")]

    def numbers(self, s) -> dict:
        sms = self.menu[s["machine"]].sms
        t = waves.tiles(s["n"], s["n"], *self.tile)
        return {"tiles": t, "waves": waves.waves(t, sms), "busy": waves.busy_per_wave(t, sms),
                "sms": sms, "utilization": waves.utilization(t, sms)}

    def moving(self, s):
        x = self.numbers(s)
        if x["waves"] > MAX_WAVES:
            raise ValueError(f"n = {s['n']} gives {x['waves']} waves; at most {MAX_WAVES} are drawn")
        busy, idle, lx, ly, lt = [], [], [], [], []
        for w, b in enumerate(x["busy"]):
            cells = grid(x["sms"], w * PANEL + 1, 14, (w + 1) * PANEL - 1, 80, aspect=self.aspect())
            busy += cells[:b]
            idle += cells[b:]
            lx.append(w * PANEL + PANEL / 2)
            ly.append(88)
            lt.append(f"wave {w + 1}: {b}")
        text = (f"{units.count(x['tiles'])} tiles of {self.tile[0]}×{self.tile[1]} on "
                f"{x['sms']} SMs: {x['waves']} wave{'s' if x['waves'] > 1 else ''}, "
                f"{units.percent(x['utilization'])} of SM time busy")
        return [boxes_trace(busy, FILL["compute"], "busy SMs"),
                boxes_trace(idle, FILL["idle"], "idle SMs"),
                texts_trace(lx, ly, lt, "waves"),
                text_trace(0, 4, text, "counters", size=12)]

    def picture(self, s):
        return [], [label(0, 95, "each panel: one wave; each square: one SM (filled: has a "
                                 "tile)", size=11, xanchor="left")]

    def describe(self, s):
        x = self.numbers(s)
        return (f"n = {s['n']:,}: {x['tiles']} tiles over {x['sms']} SMs run in {x['waves']} "
                f"waves keeping {', '.join(map(str, x['busy']))} SMs busy; "
                f"{units.percent(x['utilization'])} of SM time is used.")


def waves_over_sms(machine="A100", n: int = 1792, tile_m: int = 256,
                   tile_n: int = 128) -> WavesOverSMs:
    """The tiles of an n x n output (``tile_m`` x ``tile_n``) in waves over ``machine``'s
    SMs (chapter 9)."""
    return WavesOverSMs(machine, n, tile_m, tile_n)
