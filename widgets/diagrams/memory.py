"""Memory drawn from the model (chapters 5 and 8): the staircase of levels with their
sizes, bandwidths and latencies (perfmodel.hierarchy), one warp's addresses falling into
sectors and lines (perfmodel.simt, perfmodel.access), a tiled product's reuse
(perfmodel.ops.matmul) and the path a host array takes to the SMs (perfmodel.ops,
Machine.bandwidth("pcie")).
"""
from __future__ import annotations

import numpy as np

from perfmodel import access, hierarchy, ops, simt, units

from ..base import Control, check_choice, with_value
from ._base import FILL, Diagram, arrow, label, machine_menu, rect, size

LEVEL_NAMES = {"registers": "registers", "l1": "L1 + shared", "l2": "L2 cache",
               "dram": "DRAM / HBM"}


#: Where a bandwidth comes from, in the picture's words: the first of these words that
#: the figure's source names (a datasheet, a measurement), else "nominal" (a link's rated
#: rate, say).
PROVENANCE = ("measured", "datasheet")


def provenance(source: str) -> str:
    """"measured", "datasheet" or "nominal": how a :class:`perfmodel.machines.Figure`'s
    ``source`` says it was obtained; a source that is not text -> TypeError."""
    if not isinstance(source, str):
        raise TypeError(f"source must be a figure's source in words; got {source!r}"[:200])
    low = source.lower()
    return next((word for word in PROVENANCE if word in low), "nominal")


def _recorded(name: str, figures, what: str) -> dict:
    """``figures`` ({machine name: {level: value}}) checked: a mapping of mappings of
    positive numbers, or None for none."""
    if figures is None:
        return {}
    if not isinstance(figures, dict) or not all(isinstance(v, dict) for v in figures.values()):
        raise ValueError(f"{name} must map a machine name to {{level: {what}}}; got "
                         f"{type(figures).__name__}")
    for machine, levels in figures.items():
        for level, value in levels.items():
            if level not in LEVEL_NAMES or not isinstance(value, (int, float)) \
                    or isinstance(value, bool) or not 0 < value < float("inf"):
                raise ValueError(f"{name}[{machine!r}][{level!r}] must be a positive {what} "
                                 f"for one of {', '.join(LEVEL_NAMES)}; got {value!r}")
    return figures


class MemoryStaircase(Diagram):
    name = "memory-staircase"
    title = "The memory staircase"
    caption = ("Each step down the hierarchy holds more and delivers less: the registers and "
               "L1/shared memory of every SM, the L2 cache, then DRAM, with each level's size "
               "for the whole chip, its bandwidth and its latency, each figure marked as "
               "measured (a recorded lab run, or the T4 note) or as the datasheet's, and "
               "\"not measured\" where no run has recorded it.")
    height = 380
    xrange, yrange = (0, 100), (0, 100)

    def __init__(self, machine="H200", latencies: dict | None = None,
                 bandwidths: dict | None = None):
        self.menu, name = machine_menu(machine, ("sms",))
        self.latencies = _recorded("latencies", latencies, "latency in seconds")
        self.bandwidths = _recorded("bandwidths", bandwidths, "bandwidth in byte/s")
        super().__init__(machine=name)

    def controls(self):
        return [self.machine_control()]

    def rows(self, s) -> list[dict]:
        """hierarchy.staircase's rows for the machine chosen, each with the recorded
        ``latency`` (seconds) and ``measured`` bandwidth (byte/s), None where none."""
        m = self.menu[s["machine"]]
        lat, bw = self.latencies.get(m.name, {}), self.bandwidths.get(m.name, {})
        return [{**r, "latency": lat.get(r["level"]), "measured": bw.get(r["level"])}
                for r in hierarchy.staircase(m)]

    def figures(self, s, r: dict) -> list[tuple[str, str, str]]:
        """(name, drawn text, spoken text) of a level's bandwidth and latency lines: each
        figure with where it comes from, in words where there is none."""
        level = r["level"]
        if level == "registers":
            return [(f"bandwidth-{level}", "read within the instruction",
                     "operands read within the instruction that uses them")]
        m = self.menu[s["machine"]]
        out = []

        def figure(name, what, value, unit, how):
            text = units.si(value, unit, 3)
            out.append((name, f"{text} {how}", f"{what} {text} ({how})"))

        if r["bandwidth"] and not (r["measured"] and provenance(m.source(level)) == "measured"):
            figure(f"bandwidth-{level}", "bandwidth", r["bandwidth"], "B/s",
                   provenance(m.source(level)))
        if r["measured"]:
            figure(f"measured-bandwidth-{level}", "bandwidth", r["measured"], "B/s", "measured")
        if not out:
            out.append((f"bandwidth-{level}", "bandwidth not measured", "bandwidth not measured"))
        if r["latency"]:
            figure(f"latency-{level}", "latency", r["latency"], "s", "measured")
        else:
            out.append((f"latency-{level}", "latency not measured", "latency not measured"))
        return out

    def picture(self, s):
        sh, notes = [], []
        for k, r in enumerate(self.rows(s)):
            x0, top = k * 25, 50 + k * 12
            sh.append(rect(x0, 0, x0 + 24, top, FILL["dram" if r["level"] == "dram" else "chip"],
                           f"level-{r['level']}"))
            cap = size(r["capacity"]) if r["capacity"] else "size not on record"
            lines = [(f"capacity-{r['level']}", cap),
                     *((name, text) for name, text, _spoken in self.figures(s, r))]
            if r["per_sm"]:
                lines.append(("per-sm", f"({size(r['per_sm'])} per SM)"))
            y = top - 5
            notes.append(label(x0 + 12, y, f"<b>{LEVEL_NAMES[r['level']]}</b>", name="level"))
            for j, (name, text) in enumerate(lines):
                notes.append(label(x0 + 12, y - 8 - 6.5 * j, text, name=name, size=11))
        notes.append(label(0, 96, f"{s['machine']}: each step right holds more, further from "
                                  f"the lanes", size=12, xanchor="left"))
        return sh, notes

    def describe(self, s):
        parts = []
        for r in self.rows(s):
            cap = size(r["capacity"]) if r["capacity"] else "size not on record"
            said = ", ".join(spoken for _name, _text, spoken in self.figures(s, r))
            parts.append(f"{LEVEL_NAMES[r['level']]}: {cap}, {said}")
        return f"Four steps for the {s['machine']}, closest first. " + "; ".join(parts) + "."


STRIDES = [1, 2, 4, 8, 16, 32, "random"]


class Sectors(Diagram):
    name = "sectors"
    title = "One warp's 32 addresses, the sectors and lines they fall in"
    caption = ("The 32 lanes of a warp each load 4 bytes at a stride. The memory system moves "
               "whole 32-byte sectors (filled) of 128-byte lines (outlined): at stride 1 the "
               "warp's 128 bytes are 4 sectors, at larger strides each load drags a sector "
               "of its own.")
    height = 330
    xrange, yrange = (0, 100), (0, 100)

    def __init__(self, stride=1):
        check_choice("stride", stride, STRIDES)
        super().__init__(stride=stride)

    def controls(self):
        return [Control("stride", "stride", STRIDES, self._initial["stride"], "dropdown",
                        lambda v: "random gather" if v == "random"
                        else f"{v} element{'s' if v != 1 else ''}")]

    def layout_of(self, s):
        addr = simt.lane_addresses(s["stride"], 4)
        sectors = simt.touched_sectors(s["stride"], 4, access.SECTOR)
        lines = np.unique(addr // access.LINE)
        return addr, sectors, lines

    def picture(self, s):
        addr, sectors, lines = self.layout_of(s)
        lw = 100 / len(lines)
        per = access.LINE // access.SECTOR
        sh, notes = [], []
        where = {}
        for k, ln in enumerate(lines):
            x0 = k * lw
            sh.append(rect(x0 + 0.15, 10, x0 + lw - 0.15, 34, "rgba(0,0,0,0)", "line", width=1.6))
            for j in range(per):
                sec = ln * per + j
                on = sec in set(sectors.tolist())
                sw = (lw - 0.3) / per
                xa = x0 + 0.15 + j * sw
                if on:
                    sh.append(rect(xa, 12, xa + sw, 32, FILL["hot"], "sector", width=0.4))
                    where[int(sec)] = xa + sw / 2
                else:
                    sh.append(rect(xa, 12, xa + sw, 32, FILL["idle"], "sector-unused", width=0.4))
        for lane in range(simt.WARP):
            x0 = lane * 100 / simt.WARP
            sh.append(rect(x0 + 0.2, 72, x0 + 100 / simt.WARP - 0.2, 84, FILL["cool"], "lane",
                           width=0.4))
            tx = where[int(addr[lane] // access.SECTOR)]
            sh.append({"type": "line", "x0": x0 + 50 / simt.WARP, "y0": 72, "x1": tx, "y1": 34,
                       "xref": "x", "yref": "y", "line": {"color": "rgba(128,128,128,0.6)",
                                                          "width": 1}, "name": "address"})
        useful = simt.useful_fraction(s["stride"], 4, access.SECTOR)
        notes += [label(0, 90, "32 lanes, 4 bytes each", xanchor="left", size=11),
                  label(0, 4, f"{len(sectors)} sectors of 32 B in {len(lines)} line{'s' if len(lines) > 1 else ''} of 128 B "
                              f"moved: {len(sectors) * access.SECTOR:,} B for 128 B asked, "
                              f"{units.percent(useful)} useful", xanchor="left", name="count")]
        return sh, notes

    def describe(self, s):
        addr, sectors, lines = self.layout_of(s)
        return (f"32 lanes at stride {s['stride']} touch {len(sectors)} sectors of 32 bytes "
                f"in {len(lines)} cache lines of 128 bytes; "
                f"{units.percent(simt.useful_fraction(s['stride'], 4, access.SECTOR))} of the "
                f"bytes moved were asked for.")


class TileReuse(Diagram):
    name = "tile-reuse"
    title = "A tiled product: one tile of C, the panels of A and B it reads"
    caption = ("To compute one T × T tile of C the block reads a T-row panel of A and a "
               "T-column panel of B once into shared memory and uses each element T times: "
               "the loads fall by T.")
    height = 330
    xrange, yrange = (0, 100), (0, 100)

    def __init__(self, n: int = 8, tile: int = 4):
        self.n = check_choice("n", n, [8, 16])
        check_choice("tile", tile, [t for t in (1, 2, 4, 8) if t <= n])
        super().__init__(tile=tile)

    def controls(self):
        return [Control("tile", "tile T", [t for t in (1, 2, 4, 8) if t <= self.n],
                        self._initial["tile"], "dropdown")]

    def picture(self, s):
        n, t = self.n, s["tile"]
        cell = 26 / n
        sh, notes = [], []

        def grid(x0, y0, hot, name):
            for i in range(n):
                for j in range(n):
                    fill = FILL["warm"] if hot(i, j) else FILL["idle"]
                    sh.append(rect(x0 + j * cell, y0 - (i + 1) * cell, x0 + (j + 1) * cell,
                                   y0 - i * cell, fill, name, width=0.4))

        grid(4, 80, lambda i, j: i < t, "a-cell")
        grid(37, 80, lambda i, j: j < t, "b-cell")
        grid(70, 80, lambda i, j: i < t and j < t, "c-cell")
        for bi in range(n // t):
            for bj in range(n // t):
                sh.append(rect(70 + bj * t * cell, 80 - (bi + 1) * t * cell,
                               70 + (bj + 1) * t * cell, 80 - bi * t * cell, "rgba(0,0,0,0)",
                               "c-tile", width=2))
        naive, tiled = ops.matmul(n, "none"), ops.matmul(n, "tiled", tile=t)
        notes += [label(17, 86, "A (T rows read)"), label(50, 86, "B (T columns read)"),
                  label(83, 86, f"C: {(n // t) ** 2} tiles"),
                  label(33.5, 67, "×"), label(66.5, 67, "="),
                  label(0, 40, f"n = {n}: each element of A and B is read n / T = {n // t} "
                               f"times instead of n = {n}", xanchor="left", size=12),
                  label(0, 30, f"bytes moved (FP32): {units.count(tiled.bytes)} tiled, "
                               f"{units.count(naive.bytes)} naive", xanchor="left",
                        name="bytes", size=12),
                  label(0, 20, f"intensity: {units.number(tiled.intensity)} FLOP/B tiled, "
                               f"{units.number(naive.intensity)} naive", xanchor="left",
                        size=12)]
        return sh, notes

    def describe(self, s):
        n, t = self.n, s["tile"]
        tiled = ops.matmul(n, "tiled", tile=t)
        return (f"Three {n} by {n} grids, A times B equals C, with a {t} by {t} tile of C "
                f"highlighted and the {t} rows of A and {t} columns of B it reads. Tiled, the "
                f"product moves {tiled.bytes:,.0f} bytes at an intensity of "
                f"{units.number(tiled.intensity)} FLOP per byte.")


class PCIePath(Diagram):
    name = "pcie-path"
    title = "From host memory to the SMs: pageable, pinned, device"
    caption = ("An array in ordinary (pageable) host memory is first copied by the CPU into a "
               "pinned buffer, then crosses the PCIe link to GPU memory; pinned memory skips "
               "the first copy; data already on the device never crosses.")
    height = 300
    xrange, yrange = (0, 100), (0, 100)

    def __init__(self, machine="T4", n: int = 2 ** 28):
        self.menu, name = machine_menu(machine, ("sms",))
        self.n = with_value([], n, "n", 1, 2 ** 40, integer=True)[0]
        super().__init__(machine=name, where="pageable")

    def controls(self):
        return [self.machine_control(),
                Control("where", "data starts", ["pageable", "pinned", "device"], "pageable",
                        "dropdown", {"pageable": "in pageable host memory",
                                     "pinned": "in pinned host memory",
                                     "device": "on the GPU"}.get)]

    def crossings(self, s) -> dict:
        m = self.menu[s["machine"]]
        nbytes = ops.pcie_round_trip_bytes(self.n, 2, 1) if s["where"] != "device" else 0.0
        copies = {"pageable": 2, "pinned": 1, "device": 0}[s["where"]]
        return {"bytes": nbytes, "copies": copies,
                "link_s": nbytes / m.bandwidth("pcie") if nbytes else 0.0,
                "kernel_s": ops.vector_add(self.n).bytes / m.bandwidth("dram")}

    def picture(self, s):
        m, c = self.menu[s["machine"]], self.crossings(s)
        used = {"pageable": [1, 1, 1, 1], "pinned": [0, 1, 1, 1], "device": [0, 0, 0, 1]}[s["where"]]
        stages = [("pageable host memory", FILL["host"]), ("pinned buffer", FILL["host"]),
                  ("GPU memory (DRAM)", FILL["dram"]), ("SMs", FILL["compute"])]
        sh, notes = [], []
        for k, ((what, fill), on) in enumerate(zip(stages, used)):
            x0 = k * 26
            sh.append(rect(x0, 44, x0 + 22, 70, fill if on else FILL["idle"], "stage",
                           width=1.6 if on else 0.5))
            notes.append(label(x0 + 11, 57, what.replace(" ", "<br>", 1), size=11))
        links = [("CPU copy", used[0]),
                 (f"PCIe {units.si(m.bandwidth('pcie'), 'B/s', 3)}", used[1]),
                 (f"DRAM {units.si(m.bandwidth('dram'), 'B/s', 3)}", used[2])]
        for k, (what, on) in enumerate(links):
            x0 = k * 26 + 22
            if on:
                notes.append(arrow(x0 + 0.3, 57, x0 + 3.7, 57, name="hop"))
            # above the hop it names (the hops are 26 units, about 175 px, apart)
            notes.append(label(x0 + 2, 77, what, size=11,
                               name="link-on" if on else "link-off"))
        if c["bytes"]:
            text = (f"vector add of {units.count(self.n)} FP32: {units.si(c['bytes'], 'B', 3)} "
                    f"cross the link, at least {units.si(c['link_s'], 's', 3)} at the link's "
                    f"rate,<br>against {units.si(c['kernel_s'], 's', 3)} for the addition "
                    f"itself; copies per byte going in: {c['copies']}")
        else:
            text = (f"vector add of {units.count(self.n)} FP32 on data already on the GPU: "
                    f"nothing crosses the link; {units.si(c['kernel_s'], 's', 3)} for the addition")
        notes.append(label(0, 14, text, xanchor="left", name="count", size=11))
        return sh, notes

    def describe(self, s):
        c = self.crossings(s)
        return (f"Four stages left to right: pageable host memory, a pinned buffer, GPU "
                f"memory and the SMs. Starting {s['where']}, {c['copies']} copies per byte "
                f"reach GPU memory and {units.si(c['bytes'], 'B', 3) if c['bytes'] else 'no bytes'} "
                f"cross the PCIe link for a vector add of {self.n:,} elements.")


def memory_staircase(machine="H200", latencies: dict | None = None,
                     bandwidths: dict | None = None) -> MemoryStaircase:
    """Registers, L1/shared, L2 and DRAM of ``machine``: size, the machine's bandwidths
    (marked datasheet, measured or nominal, as their sources say) and the recorded ones
    (``bandwidths``, {machine name: {level: byte/s}}), and the recorded latencies
    (``latencies``, {machine name: {level: seconds}}), marked measured (chapter 8;
    ``labs.readouts.staircase_figures()`` gives both from the recorded runs)."""
    return MemoryStaircase(machine, latencies, bandwidths)


def sectors(stride=1) -> Sectors:
    """One warp's 32 four-byte loads at ``stride`` into 32-byte sectors and 128-byte
    lines (chapter 8)."""
    return Sectors(stride)


def tile_reuse(n: int = 8, tile: int = 4) -> TileReuse:
    """An n x n product cut into ``tile`` x ``tile`` tiles and what each reads (chapter 8)."""
    return TileReuse(n, tile)


def pcie_path(machine="T4", n: int = 2 ** 28) -> PCIePath:
    """The stages an array crosses from host memory to ``machine``'s SMs (chapter 5)."""
    return PCIePath(machine, n)
