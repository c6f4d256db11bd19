"""Operation timer: one operation on a CPU and a GPU, t = t0 + max(F/P, D/B) (+ PCIe).

The top panel shows, for the chosen size, the parts of each machine's time: the launch
toll t0, F/P, D/B and (GPU, when on) the PCIe round trip; the total marker is
t0 + max(F/P, D/B) + PCIe. The bottom panel shows both totals against size with the
size where the GPU starts to win (perfmodel.roofline.breakeven).
"""
from __future__ import annotations

import math

from perfmodel import machines as pm_machines
from perfmodel import ops, roofline, units
from perfmodel.machines import Machine

from . import axes
from .base import Control, Settings, View, check_choice, with_value
from .style import COLORS, int_label, pow2

#: The operations: (label, builder n -> Op, bytes over PCIe for size n, sizes).
OPS = {
    "vector_add": ("vector add (FP32)", lambda n: ops.vector_add(n),
                   lambda n: ops.pcie_round_trip_bytes(n, 2, 1), pow2(10, 28, 2)),
    "matmul": ("matmul n x n (FP32)", lambda n: ops.matmul(n, "perfect"),
               lambda n: ops.pcie_round_trip_bytes(n * n, 2, 1), pow2(4, 13)),
}
PARTS = ("toll", "compute", "memory", "pcie")
PART_LABELS = {"toll": "launch toll t0", "compute": "F / P", "memory": "D / B",
               "pcie": "PCIe round trip"}


def curve_sizes(op: str) -> list[int]:
    """The sizes of the time-vs-size curves: four points per power of two."""
    if not isinstance(op, str) or op not in OPS:
        raise ValueError(f"op must be one of {', '.join(OPS)}; got {op!r}"[:300])
    lo, hi = OPS[op][3][0], OPS[op][3][-1]
    out, n = [], float(lo)
    while n <= hi * 1.0001:
        out.append(int(round(n)))
        n *= 2 ** 0.25
    return out


class OperationTimer(View):
    """CPU and GPU side by side for one operation; a size slider; PCIe on or off."""

    name = "operation-timer"
    height = 490
    # between the two panels, under the bars' time axis: off the bars and the curves
    legend = {"orientation": "h", "x": 0.0, "y": 0.53, "xanchor": "left", "yanchor": "top"}
    TOP = (0.66, 1.0)      # the bars' panel, as a fraction of the plot's height
    BOTTOM = (0.0, 0.38)   # the curves' panel
    PAD = 0.9              # decades left right of the longest bar for the totals

    def __init__(self, op: str = "vector_add", gpu: str | Machine = "T4",
                 cpu: str | Machine = "CPU", pcie: bool = False, n: int | None = None):
        self.op_name = check_choice("op", op, list(OPS))
        self.gpu = pm_machines.get(gpu)
        self.cpu = pm_machines.get(cpu)
        if not isinstance(pcie, bool):
            raise ValueError(f"pcie must be True or False; got {pcie!r}")
        if "pcie" not in self.gpu.bandwidths:
            raise ValueError(f"gpu {self.gpu.name} has no PCIe bandwidth; pick another gpu")
        sizes = OPS[op][3]
        n = sizes[len(sizes) // 2] if n is None else n
        self.sizes = {k: with_value(v[3], n, "n", 1, 2 ** 34, integer=True) if k == op else v[3]
                      for k, v in OPS.items()}
        super().__init__(op=op, pcie=pcie, n=n)

    def controls(self) -> list[Control]:
        i = self._initial
        return [Control("op", "operation", list(OPS), i["op"], "dropdown", lambda k: OPS[k][0]),
                Control("pcie", "PCIe copies", [False, True], i["pcie"], "dropdown",
                        lambda on: "counted" if on else "not counted"),
                Control("n", "size n", lambda s: self.sizes[s["op"]], i["n"], "slider", int_label)]

    def parts(self, s: Settings, machine: Machine, n: int) -> dict[str, float]:
        """Seconds of each part of the time at size n (what the bars show)."""
        _, build, pcie_bytes, _ = OPS[s["op"]]
        op = build(n)
        on_gpu = machine is self.gpu
        return {"toll": machine.launch_overhead.value,
                "compute": roofline.compute_time(machine, op),
                "memory": roofline.memory_time(machine, op),
                "pcie": roofline.pcie_time(machine, pcie_bytes(n)) if on_gpu and s["pcie"] else 0.0}

    def total(self, s: Settings, machine: Machine, n: int) -> float:
        """t0 + max(F/P, D/B) (+ PCIe on the GPU when counted), seconds."""
        _, build, pcie_bytes, _ = OPS[s["op"]]
        extra = pcie_bytes(n) if machine is self.gpu and s["pcie"] else 0.0
        return roofline.time(machine, build(n), overhead=machine.launch_overhead.value,
                             pcie_bytes=extra)

    def breakeven(self, s: Settings) -> int | None:
        _, build, pcie_bytes, _ = OPS[s["op"]]
        return roofline.breakeven(build, curve_sizes(s["op"]), self.cpu, self.gpu,
                                  fast_pcie=pcie_bytes if s["pcie"] else None)

    def title_for(self, s: Settings) -> str:
        return f"{OPS[s['op']][0]}: {self.cpu.name} vs {self.gpu.name}"

    def traces(self, s: Settings) -> list[dict]:
        n = s["n"]
        names = [self.cpu.name, self.gpu.name]
        out = []
        for part in PARTS:
            vals = [self.parts(s, m, n)[part] for m in (self.cpu, self.gpu)]
            out.append({"type": "bar", "orientation": "h", "name": PART_LABELS[part],
                        "x": vals, "y": names, "marker": {"color": COLORS["parts"][part]},
                        "xaxis": "x", "yaxis": "y",
                        "hovertemplate": "%{y}: %{x:.3s}s<extra>" + PART_LABELS[part] + "</extra>"})
        totals = [self.total(s, m, n) for m in (self.cpu, self.gpu)]
        out.append({"type": "scatter", "mode": "markers", "name": "total time",
                    "x": totals, "y": names, "marker": {"symbol": "line-ns-open", "size": 26,
                                                          "color": COLORS["accent"],
                                                          "line": {"width": 3}},
                    "xaxis": "x", "yaxis": "y", "showlegend": False,
                    "hovertemplate": "%{y}: total %{x:.3s}s<extra></extra>"})
        # the totals in a column at the right edge, which the longest bar never reaches
        out.append({"type": "scatter", "mode": "text", "name": "total",
                    "x": [10 ** self._bar_range(s)[1]] * 2, "y": names,
                    "text": [f"total {units.seconds(t)}" for t in totals],
                    "textposition": "middle left", "textfont": {"color": COLORS["accent"]},
                    "xaxis": "x", "yaxis": "y", "showlegend": False, "hoverinfo": "skip"})
        sizes = curve_sizes(s["op"])
        for m, color in ((self.cpu, COLORS["cpu"]), (self.gpu, COLORS["gpu"])):
            out.append({"type": "scatter", "mode": "lines", "name": f"{m.name} time",
                        "x": sizes, "y": [self.total(s, m, k) for k in sizes],
                        "line": {"color": color, "width": 2.5}, "xaxis": "x2", "yaxis": "y2",
                        "hovertemplate": "n=%{x:,}: %{y:.3s}s<extra>" + m.name + "</extra>"})
        be = self.breakeven(s)
        lo, hi = self._time_range(s)
        won = {"mode": "lines+text", "x": [be, be], "y": [lo, hi / 1.5],
               "text": ["", f"GPU wins from n ≈ {be:,}"]} if be else \
            {"mode": "text", "x": [sizes[len(sizes) // 2]], "y": [hi / 3],
             "text": ["the GPU never wins"]}
        out.append({"type": "scatter", "name": "GPU starts to win", **won,
                    "textposition": "bottom right", "showlegend": False,
                    "line": {"color": COLORS["ridge"], "dash": "dot"}, "xaxis": "x2",
                    "yaxis": "y2", "hoverinfo": "skip"})
        out.append({"type": "scatter", "mode": "markers", "name": "size n",
                    "x": [n, n], "y": totals, "xaxis": "x2", "yaxis": "y2", "showlegend": False,
                    "marker": {"size": 11, "color": [COLORS["cpu"], COLORS["gpu"]],
                               "line": {"width": 1.5, "color": "#ffffff"}},
                    "hovertemplate": "n=%{x:,}: %{y:.3s}s<extra></extra>"})
        return out

    def _bar_range(self, s: Settings) -> tuple[float, float]:
        """log10 of the bars' time axis: from 100 ns to PAD decades past the longest total."""
        top = max(self.total(s, m, k) for m in (self.cpu, self.gpu) for k in self.sizes[s["op"]])
        return -7.0, math.log10(top) + self.PAD

    def _time_range(self, s: Settings) -> tuple[float, float]:
        sizes = curve_sizes(s["op"])
        ts = [self.total(s, m, k) for m in (self.cpu, self.gpu) for k in (sizes[0], sizes[-1])]
        return min(ts) / 2, max(ts) * 2

    def layout(self, s: Settings) -> dict:
        lo, hi = self._time_range(s)
        a, b = self._bar_range(s)
        sizes = curve_sizes(s["op"])
        h = self.height
        return {"barmode": "group", "bargap": 0.25,
                "xaxis": axes.log_axis("s", 10 ** a, 10 ** b, "time", length_px=self.plot_px(),
                                       domain=[0, 1], anchor="y"),
                "yaxis": {"domain": list(self.TOP), "anchor": "x", "autorange": "reversed"},
                "xaxis2": axes.log_axis("", sizes[0] / 1.3, sizes[-1] * 1.3, "size n",
                                        length_px=self.plot_px(), domain=[0, 1], anchor="y2"),
                "yaxis2": axes.log_axis("s", lo, hi, "time", vertical=True,
                                        length_px=h * (self.BOTTOM[1] - self.BOTTOM[0]),
                                        domain=list(self.BOTTOM), anchor="x2")}


def operation_timer(op: str = "vector_add", gpu: str | Machine = "T4", cpu: str | Machine = "CPU",
                    pcie: bool = False, n: int | None = None) -> OperationTimer:
    """CPU vs GPU timing of one operation (``op`` "vector_add" or "matmul") at a size
    ``n`` you slide; ``pcie=True`` counts the copies to the GPU and back."""
    return OperationTimer(op, gpu, cpu, pcie, n)
