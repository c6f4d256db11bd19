"""A launch and a warp (chapter 6): the ladder from grid to block to warp to lane mapped
onto a machine's SMs, and one warp's active mask through a branch, one instruction at a
time (perfmodel.simt)."""
from __future__ import annotations

import math

from perfmodel import simt, units

from ..base import Control, Settings, check_choice, with_value
from ..style import COLORS
from ._base import FILL, Diagram, RowsDiagram, grid, key, label, machine_menu, rect, text_trace

BLOCKS = [64, 128, 256, 512, 1024]
BLOCKS_SHOWN = 12        # blocks of the grid drawn before an ellipsis


class LaunchLadder(Diagram):
    name = "launch-ladder"
    title = "From the grid down to the lane"
    caption = ("A launch of n threads: the grid's blocks land on the SMs (a block never "
               "moves), a block is cut into warps of 32 consecutive threads, and a warp's "
               "threads are its 32 lanes.")
    height = 400
    xrange, yrange = (0, 100), (0, 100)

    def __init__(self, machine="T4", n: int = 2 ** 20, block: int = 256):
        self.menu, name = machine_menu(machine, ("sms", "fp32_lanes_per_sm"))
        self.n = with_value([], n, "n", 1, 2 ** 40, integer=True)[0]
        check_choice("block", block, BLOCKS)
        super().__init__(machine=name, block=block)

    def controls(self):
        return [self.machine_control(),
                Control("block", "block", BLOCKS, self._initial["block"], "dropdown",
                        lambda b: f"{b} threads")]

    def counts(self, s: Settings) -> dict:
        m, b = self.menu[s["machine"]], s["block"]
        blocks = math.ceil(self.n / b)
        per_sm = int(m.extra["max_threads_per_sm"]) // b if "max_threads_per_sm" in m.extra else None
        return {"blocks": blocks, "warps": simt.launch_warps(self.n, b),
                "warps_per_block": simt.warps_per_block(b), "sms": m.sms, "per_sm": per_sm}

    def picture(self, s):
        m, c = self.menu[s["machine"]], self.counts(s)
        shown = min(c["blocks"], BLOCKS_SHOWN)
        sh = [rect(k * 6.2, 86, k * 6.2 + 5.4, 92, FILL["chip"], "block") for k in range(shown)]
        notes = [label(0, 97, f"grid: {units.count(c['blocks'])} blocks of {s['block']} threads "
                              f"(n = {units.count(self.n)})", xanchor="left")]
        if c["blocks"] > shown:
            notes.append(label(shown * 6.2 + 1, 89, "…", xanchor="left"))
        sh += [rect(*cell, FILL["compute"], "sm", width=0.6)
               for cell in grid(m.sms, 0, 50, 100, 76, aspect=self.aspect())]
        resident = (f"; each holds at most {c['per_sm']} such blocks" if c["per_sm"] else "")
        notes.append(label(0, 81, f"{m.name}: {m.sms} SMs{resident}", xanchor="left"))
        w = c["warps_per_block"]
        sh.append(rect(0, 8, 46, 40, FILL["idle"], "one-block"))
        sh += [rect(*cell, FILL["warm"], "warp", width=0.6) for cell in grid(w, 1, 10, 45, 34, aspect=self.aspect())]
        notes.append(label(0, 44, f"one block: {w} warps", xanchor="left"))
        sh.append(rect(52, 8, 100, 40, FILL["idle"], "one-warp"))
        sh += [rect(*cell, FILL["cool"], "lane", width=0.6)
               for cell in grid(simt.WARP, 53, 10, 99, 34, aspect=self.aspect())]
        notes.append(label(52, 44, f"one warp: {simt.WARP} lanes, one instruction at a time",
                           xanchor="left"))
        notes.append(label(0, 2, f"{units.count(c['warps'])} warps in all", xanchor="left",
                           size=11))
        return sh, notes

    def describe(self, s):
        m, c = self.menu[s["machine"]], self.counts(s)
        return (f"A grid of {c['blocks']:,} blocks of {s['block']} threads, for n = "
                f"{self.n:,}, lands on the {m.name}'s {m.sms} SMs. One block is "
                f"{c['warps_per_block']} warps; one warp is {simt.WARP} lanes; "
                f"{c['warps']:,} warps in all.")


def _mask_colors(paths: int) -> list:
    """Colourscale for z = 0 (lane masked off), 1 .. paths (lane on path z - 1) and
    paths + 1 (an instruction every lane runs, in the ridge's brown: the operations'
    palette without its own brown, so no path looks like every lane)."""
    pal = [c for c in COLORS["ops"] if c != "#8c564b"]
    cols = (["rgba(158,158,158,0.25)"] + [pal[i % len(pal)] for i in range(paths)]
            + [COLORS["ridge"]])
    n = len(cols)
    return [[edge, c] for i, c in enumerate(cols) for edge in (i / n, (i + 1) / n)]


class BranchMask(RowsDiagram):
    name = "branch-mask"
    title = "A warp through a branch: its active mask, instruction by instruction"
    caption = ("One warp of 32 lanes runs an if/else: each row is one instruction issued; "
               "a coloured lane executes it, a grey lane is masked off. The paths run one "
               "after the other, so the warp pays for every path its lanes take.")
    height = 400
    xrange, yrange = (-0.5, 31.5), (-1.6, 30.0)   # y range set per settings in layout
    #: Above the instructions: the lane labels; below: two rows of key, four of counters.
    around_px = (20, 118)

    def __init__(self, paths: int = 2, split: str = "within", body: int = 3):
        check_choice("paths", paths, [1, 2, 4, 8])
        check_choice("split", split, ["within", "between"])
        self.body = with_value([], body, "body", 1, 8, integer=True)[0]
        super().__init__(paths=paths, split=split, step=1)

    def controls(self):
        i = self._initial
        return [Control("paths", "paths", [1, 2, 4, 8], i["paths"], "dropdown"),
                Control("split", "split", ["within", "between"], i["split"], "dropdown",
                        {"within": "lane by lane", "between": "by warp"}.get),
                Control("step", "instructions issued",
                        lambda s: list(range(1, len(self.program(s)) + 1)), None, "slider")]

    def program(self, s: Settings) -> list[tuple[str, list[bool], int]]:
        """(what, mask, path) per issued instruction: two before the branch, ``body`` per
        path the warp's lanes take (lanes of one path only), one after it reconverges."""
        lanes = simt.warp_paths(s["paths"], s["split"], 1)[0]
        everyone = [True] * simt.WARP
        prog = [("compute the condition", everyone, -1), ("branch", everyone, -1)]
        for p in sorted(set(lanes.tolist())):
            prog += [(f"path {p}", [int(x) == p for x in lanes], p)] * self.body
        prog.append(("reconverge", everyone, -1))
        return prog

    def moving(self, s):
        prog = self.program(s)
        lanes = simt.warp_paths(s["paths"], s["split"], 1)[0]
        t = s["step"]
        z = []
        for r in range(len(prog)):
            if r < t:
                _, mask, p = prog[r]
                z.append([(int(lanes[j]) + 1 if p >= 0 else s["paths"] + 1) if mask[j] else 0
                          for j in range(simt.WARP)])
            else:
                z.append([None] * simt.WARP)
        used = sum(sum(mk) for _, mk, _ in prog[:t])
        passes = len({p for _, _, p in prog[:t] if p >= 0})
        total = simt.divergence_passes(s["paths"], s["split"])
        heat = {"type": "heatmap", "z": z, "zmin": -0.5, "zmax": s["paths"] + 1.5,
                "colorscale": _mask_colors(s["paths"]), "showscale": False, "xgap": 1,
                "ygap": 1, "xaxis": "x", "yaxis": "y", "name": "active mask",
                "hoverinfo": "skip"}
        text = (f"cycles (instructions issued): {t}<br>lane-slots used: {used} of "
                f"{simt.WARP * t} ({units.percent(used / (simt.WARP * t))})<br>"
                f"passes so far: {passes} of {total}<br>now: {prog[t - 1][0]}")
        unit = self.axis(s)[0]
        return [heat, text_trace(-0.5, len(prog) - 0.5 + 84 / unit, text, "counters",
                                 size=12)]

    def row_count(self, s) -> int:
        return len(self.program(s))

    def picture(self, s):
        unit, rows = self.axis(s)[0], len(self.program(s))
        head = -0.5 - 10 / unit
        notes = [label(0, head, "lane 0", size=11, xanchor="left"),
                 label(31, head, "lane 31", size=11, xanchor="right"),
                 label(15.5, head, "time runs down ↓", size=11)]
        pal = [c for _edge, c in _mask_colors(s["paths"])[1::2]]
        items = [(pal[-1], "every lane"), *((pal[p + 1], f"path {p}")
                                             for p in range(s["paths"])), (pal[0], "masked off")]
        # one character of an 11 px label: about 6 px, a lane 21 px at the narrowest column
        sh, keys = key(items, -0.5, rows - 0.5 + 14 / unit, (0.8, 11 / unit), 0.33,
                       wrap=31.5, row_step=18 / unit)
        return sh, notes + keys

    def describe(self, s):
        total = simt.divergence_passes(s["paths"], s["split"])
        prog = self.program(s)
        used = sum(sum(mk) for _, mk, _ in prog)
        return (f"A grid of 32 lanes by {len(prog)} issued instructions. With {s['paths']} "
                f"paths split {s['split']} the warp, the warp makes {total} pass"
                f"{'es' if total > 1 else ''} over the branch; {used} of "
                f"{simt.WARP * len(prog)} lane-slots do work. The slider issues one "
                f"instruction at a time.")


def launch_ladder(machine="T4", n: int = 2 ** 20, block: int = 256) -> LaunchLadder:
    """Grid -> blocks on ``machine``'s SMs -> warps -> lanes for ``n`` threads (chapter 6)."""
    return LaunchLadder(machine, n, block)


def branch_mask(paths: int = 2, split: str = "within", body: int = 3) -> BranchMask:
    """One warp's active mask through a branch of ``paths`` paths, ``body`` instructions
    each, stepped one instruction at a time (chapter 6)."""
    return BranchMask(paths, split, body)
