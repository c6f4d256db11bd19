"""Latency hiding (chapter 7): warps taking turns at one scheduler while their loads are
on their way, cycle by cycle with the bytes in flight counted (perfmodel.little's
issue_timeline and in_flight); and the warp slots of one SM that Little's law fills.
"""
from __future__ import annotations

import math

from perfmodel import little, simt, units

from ..base import Control, check_choice, with_value
from ..style import COLORS
from ._base import (FILL, Diagram, RowsDiagram, boxes_trace, grid, key, label, machine_menu,
                    rect, text_trace)

CYCLES = 40
BYTES_PER_LOAD = 4.0     # one FP32 per thread: a warp's load is 128 bytes
STATES = [little.READY, little.ISSUE_LOAD, little.WAITING, little.ISSUE_USE]
#: Opaque mid-tones, each at least 3:1 against the light theme's white and the dark
#: theme's near-black (ready #8c8c8c: 3.4 and 5.6; waiting #5b8fc9: 3.4 and 5.5), so the
#: cells and their key read on both.
STATE_COLORS = ["#8c8c8c", COLORS["accent"], "#5b8fc9", COLORS["gpu"]]
#: The key's words, in the order of STATES.
STATE_WORDS = ["ready, not issued", "load issued", "waiting", "use issued"]
#: Cycles (x units) a character of the key's 11 px labels takes at the narrowest column
#: (about 6 px a character, 16.8 px a cycle), with room to spare.
KEY_CYCLES_PER_CHAR = 0.4


class LatencyTimeline(RowsDiagram):
    name = "latency-timeline"
    title = "Hiding latency: warps take turns while their loads travel"
    caption = ("One scheduler issues one instruction per cycle. Each warp issues a load "
               "(red), waits for it (blue), then uses it (green); while it waits, another "
               "warp issues. Enough warps and the scheduler never idles, with that many "
               "loads in flight.")
    height = 340
    xrange = (-0.5, CYCLES - 0.5)
    #: Above the warps: a line on how to read them and the key; below: the counters.
    around_px = (46, 48)

    def __init__(self, warps: int = 4, latency_cycles: int = 8):
        check_choice("warps", warps, [1, 2, 4, 5, 8, 12])
        check_choice("latency_cycles", latency_cycles, [4, 8, 16])
        super().__init__(warps=warps, latency_cycles=latency_cycles, step=1)

    def controls(self):
        i = self._initial
        return [Control("warps", "warps", [1, 2, 4, 5, 8, 12], i["warps"], "dropdown"),
                Control("latency_cycles", "load latency", [4, 8, 16], i["latency_cycles"],
                        "dropdown", lambda c: f"{c} cycles"),
                Control("step", "cycle", list(range(1, CYCLES + 1)), CYCLES // 2, "slider")]

    def timeline(self, s):
        return little.issue_timeline(s["warps"], s["latency_cycles"], CYCLES)

    def counters(self, s, t: int) -> dict:
        rows = self.timeline(s)
        now = [r[t - 1] for r in rows]
        flying = sum(x in (little.ISSUE_LOAD, little.WAITING) for x in now)
        used = sum(r[:t].count(little.ISSUE_USE) for r in rows)
        issued = sum(1 for c in range(t) if any(r[c] in (little.ISSUE_LOAD, little.ISSUE_USE)
                                                for r in rows))
        return {"flying": flying, "bytes": little.in_flight(flying, 1, BYTES_PER_LOAD),
                "moved": little.in_flight(used, 1, BYTES_PER_LOAD), "issued": issued}

    def moving(self, s):
        t, rows = s["step"], self.timeline(s)
        z = [[STATES.index(x) if c < t else None for c, x in enumerate(r)] for r in rows]
        n = len(STATES)
        scale = [[e, col] for i, col in enumerate(STATE_COLORS) for e in (i / n, (i + 1) / n)]
        c = self.counters(s, t)
        text = (f"cycle {t}: {c['flying']} load{'s' if c['flying'] != 1 else ''} in flight = "
                f"{units.count(c['bytes'])} bytes<br>bytes delivered so far: "
                f"{units.count(c['moved'])}; scheduler busy {c['issued']} of {t} cycles")
        return [{"type": "heatmap", "z": z, "zmin": -0.5, "zmax": n - 0.5, "colorscale": scale,
                 "showscale": False, "xgap": 1, "ygap": 2, "xaxis": "x", "yaxis": "y",
                 "name": "warp states", "hoverinfo": "skip"},
                text_trace(-0.5, s["warps"] - 0.5 + 26 / self.axis(s)[0], text, "counters",
                           size=12)]

    def row_count(self, s) -> int:
        return s["warps"]

    def picture(self, s):
        """The key: a swatch of each state's own colour and its name, in a row above the
        warps, under a line on how to read them."""
        unit = self.axis(s)[0]
        sh, notes = key([(STATE_COLORS[k], STATE_WORDS[k]) for k in (1, 2, 3, 0)],
                        -0.5, -0.5 - 14 / unit, (0.8, 11 / unit), KEY_CYCLES_PER_CHAR)
        notes.append(label(-0.5, -0.5 - 36 / unit, "one row per warp, one column per cycle",
                           size=11, xanchor="left"))
        return sh, notes

    def describe(self, s):
        rows = self.timeline(s)
        busy = sum(1 for c in range(CYCLES)
                   if any(r[c] in (little.ISSUE_LOAD, little.ISSUE_USE) for r in rows))
        return (f"{s['warps']} warps over {CYCLES} cycles with a {s['latency_cycles']}-cycle "
                f"load latency: the scheduler issues in {busy} of the {CYCLES} cycles. Each "
                f"warp in flight holds {units.count(little.in_flight(1, 1, BYTES_PER_LOAD))} "
                f"bytes on order. The slider moves one cycle at a time.")


class WarpSlots(Diagram):
    name = "warp-slots"
    title = "Little's law on one SM: the warps that must wait at once"
    caption = ("Each square is a warp slot of one SM. Bandwidth × latency, shared out over "
               "the SMs, says how many warps must have a load on its way at every moment "
               "(filled); more loads per thread, fewer warps.")
    height = 300
    xrange, yrange = (0, 100), (0, 100)

    def __init__(self, machine="T4", latency_ns: float = 400, loads_per_thread: int = 1):
        self.menu, name = machine_menu(machine, ("sms", "max_threads_per_sm"))
        self.latency = with_value([], latency_ns, "latency_ns", 1, 1e6)[0] * 1e-9
        check_choice("loads_per_thread", loads_per_thread, [1, 2, 4, 8])
        super().__init__(machine=name, loads=loads_per_thread)

    def controls(self):
        return [self.machine_control(),
                Control("loads", "loads in flight per thread", [1, 2, 4, 8],
                        self._initial["loads"], "slider")]

    def counts(self, s) -> dict:
        m = self.menu[s["machine"]]
        slots = int(m.hardware("max_threads_per_sm")) // simt.WARP
        need = little.threads_needed(m.bandwidth("dram"), self.latency,
                                     s["loads"] * BYTES_PER_LOAD) / simt.WARP / m.sms
        # a whole warp for any part of one (rounded first: 25.000000001 is 25)
        return {"slots": slots, "need": need, "filled": min(slots, math.ceil(round(need, 6))),
                "bytes": little.bytes_in_flight(m.bandwidth("dram"), self.latency)}

    def _cells(self, s):
        return grid(self.counts(s)["slots"], 0, 8, 100, 80, aspect=self.aspect())

    def picture(self, s):
        m = self.menu[s["machine"]]
        c = self.counts(s)
        sh = [rect(*cell, FILL["idle"], "warp-slot", width=0.6) for cell in self._cells(s)]
        notes = [label(0, 92, f"{m.name}: {units.si(m.bandwidth('dram'), 'B/s', 3)} × "
                              f"{units.si(self.latency, 's', 3)} = "
                              f"{units.si(c['bytes'], 'B', 3)} in flight, over {m.sms} SMs",
                       xanchor="left")]
        return sh, notes

    def moving(self, s):
        c = self.counts(s)
        cells = self._cells(s)[:c["filled"]]
        over = " (more than fit!)" if c["need"] > c["slots"] else ""
        text = (f"{units.number(c['need'])} warps per SM must wait on a load, of "
                f"{c['slots']} slots{over}")
        return [boxes_trace(cells, FILL["hot"], "warps waiting"),
                text_trace(0, 3, text, "counters", size=12)]

    def describe(self, s):
        m, c = self.menu[s["machine"]], self.counts(s)
        return (f"{c['slots']} warp slots of one {m.name} SM, {c['filled']} of them filled: "
                f"with {s['loads']} load(s) of 4 bytes in flight per thread, "
                f"{units.number(c['need'])} warps per SM keep "
                f"{units.si(c['bytes'], 'B', 3)} on order across the chip.")


def latency_timeline(warps: int = 4, latency_cycles: int = 8) -> LatencyTimeline:
    """``warps`` warps sharing one scheduler, each load taking ``latency_cycles``, stepped
    cycle by cycle with the bytes in flight (chapter 7)."""
    return LatencyTimeline(warps, latency_cycles)


def warp_slots(machine="T4", latency_ns: float = 400, loads_per_thread: int = 1) -> WarpSlots:
    """One SM's warp slots, filled by the warps Little's law needs on ``machine`` (chapter 7)."""
    return WarpSlots(machine, latency_ns, loads_per_thread)
