"""Intensity calculator: an operation, its shape, reuse and dtype to FLOPs, bytes,
intensity, bound and speed-of-light time on a machine.

The table answers for the chosen machine; the strip below puts the operation's intensity
among the ridges of every GPU (each for the compute unit the dtype runs on there).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from perfmodel import machines as pm_machines
from perfmodel import ops, roofline, units
from perfmodel.machines import UNIT_LABELS, Machine

from .base import Control, Settings, View, check_choice, with_value
from . import axes
from .style import COLORS, int_label, pow2, table_trace


@dataclass(frozen=True)
class Entry:
    """One operation of the menu: label, shape name, sizes, builder (size, dtype) -> Op,
    tensor (a matrix product, which runs on tensor cores in narrow dtypes)."""

    label: str
    shape: str
    sizes: list[int]
    build: Callable[[int, str], ops.Op]
    tensor: bool = False


#: The menu: an operation with its reuse (the byte count the kernel achieves).
ENTRIES = {
    "matmul": Entry("matmul n×n, perfect reuse", "n", pow2(4, 14, 2),
                    lambda n, dt: ops.matmul(n, "perfect", dtype=dt), True),
    "matmul_tiled": Entry("matmul n×n, tiled T=32", "n", pow2(4, 14, 2),
                          lambda n, dt: ops.matmul(n, "tiled", 32, dt), True),
    "matmul_naive": Entry("matmul n×n, naive (no reuse)", "n", pow2(4, 14, 2),
                          lambda n, dt: ops.matmul(n, "none", dtype=dt), True),
    "linear": Entry("linear 4096×4096", "batch", pow2(0, 12, 2),
                    lambda b, dt: ops.linear(b, 4096, 4096, dt), True),
    "attention_flash": Entry("attention d=64, flash", "sequence S", pow2(7, 15, 2),
                             lambda n, dt: ops.attention(n, 64, flash=True, dtype=dt), True),
    "attention_naive": Entry("attention d=64, naive", "sequence S", pow2(7, 15, 2),
                             lambda n, dt: ops.attention(n, 64, flash=False, dtype=dt), True),
    "vector_add": Entry("vector add", "n", pow2(10, 30, 4), ops.vector_add),
    "saxpy": Entry("SAXPY", "n", pow2(10, 30, 4), ops.saxpy),
    "reduction": Entry("reduction (sum)", "n", pow2(10, 30, 4), ops.reduction),
    "gelu": Entry("GELU", "n", pow2(10, 30, 4), lambda n, dt: ops.gelu(n, dt)),
    "stencil5": Entry("5-point stencil, perfect reuse", "points", pow2(10, 30, 4),
                      lambda n, dt: ops.stencil5(n, "perfect", dt)),
    "stencil5_naive": Entry("5-point stencil, no reuse", "points", pow2(10, 30, 4),
                            lambda n, dt: ops.stencil5(n, "none", dt)),
    "layernorm": Entry("layer norm ×4096, 3 passes", "rows", pow2(0, 16, 4),
                       lambda r, dt: ops.layernorm(r, 4096, 3, dt)),
    "layernorm_welford": Entry("layer norm ×4096, 2 passes", "rows", pow2(0, 16, 4),
                               lambda r, dt: ops.layernorm(r, 4096, 2, dt)),
}
DTYPES = ["fp32", "fp16", "fp8"]


class IntensityCalculator(View):
    """FLOPs, bytes, intensity, bound and speed-of-light time of one operation."""

    name = "intensity-calculator"
    height = 430

    def __init__(self, op: str = "matmul", machine: str | Machine = "T4",
                 dtype: str = "fp32", size: int | None = None):
        op = check_choice("op", op, list(ENTRIES))
        self.machine = pm_machines.get(machine)
        e = ENTRIES[op]
        dtype = check_choice("dtype", dtype, DTYPES)
        size = e.sizes[len(e.sizes) // 2] if size is None else size
        self.sizes = {k: with_value(v.sizes, size, "size", 1, 2 ** 40, integer=True)
                      if k == op else v.sizes for k, v in ENTRIES.items()}
        self.gpus = [m for m in pm_machines.all_machines() if m.kind == "gpu"]
        if self.machine.name not in [m.name for m in self.gpus]:
            self.gpus.append(self.machine)
        super().__init__(op=op, dtype=dtype, size=size)

    def controls(self) -> list[Control]:
        i = self._initial
        return [
            Control("op", "operation", list(ENTRIES), i["op"], "dropdown",
                    lambda k: ENTRIES[k].label),
            Control("dtype", "dtype", DTYPES, i["dtype"], "dropdown"),
            Control("size", "size", lambda s: self.sizes[s["op"]], i["size"], "slider", int_label),
        ]

    def op(self, s: Settings) -> ops.Op:
        """The Op at settings s."""
        return ENTRIES[s["op"]].build(s["size"], s["dtype"])

    def unit(self, s: Settings, machine: Machine) -> str:
        return roofline.unit_for(machine, s["dtype"], ENTRIES[s["op"]].tensor)

    def numbers(self, s: Settings) -> dict[str, float | str]:
        """What the table shows, in SI units (tests compare these with perfmodel)."""
        op, m = self.op(s), self.machine
        unit = self.unit(s, m)
        return {"flops": op.flops, "bytes": op.bytes, "intensity": op.intensity,
                "ridge": m.ridge(unit), "bound": roofline.bound(m, op, unit),
                "time": roofline.speed_of_light(m, op, unit), "unit": unit}

    def title_for(self, s: Settings) -> str:
        return f"Intensity calculator, on the {self.machine.name}"

    def traces(self, s: Settings) -> list[dict]:
        e, x = ENTRIES[s["op"]], self.numbers(s)
        shape = f"{e.shape} = {s['size']:,}"
        rows = [("shape", f"{shape}, {s['dtype']}"), ("FLOPs F", units.si(x["flops"], "FLOP")), ("bytes D (DRAM)", units.nbytes(x["bytes"])),
                ("intensity I = F / D", f"{units.number(x['intensity'])} FLOP/B"),
                (f"ridge ({UNIT_LABELS[x['unit']]})", f"{units.number(x['ridge'])} FLOP/B"),
                ("bound", f"{x['bound']}-bound"),
                ("speed of light max(F/P, D/B)", units.seconds(x["time"]))]
        table = table_trace(["", f"on the {self.machine.name}"],
                            [[r[0] for r in rows], [r[1] for r in rows]], [0.42, 1], [0.45, 0.55])
        ridges = {"type": "scatter", "mode": "markers+text", "name": "ridges",
                  "x": [m.ridge(self.unit(s, m)) for m in self.gpus],
                  "y": [m.name for m in self.gpus], "text": [m.name for m in self.gpus],
                  "textposition": "middle left",
                  "marker": {"symbol": "line-ns-open", "size": 18, "line": {"width": 3},
                             "color": [COLORS["accent"] if m is self.machine else COLORS["roof"]
                                       for m in self.gpus]},
                  "hovertemplate": "%{y} ridge: %{x:.3g} FLOP/B<extra></extra>"}
        dot = {"type": "scatter", "mode": "lines+text", "name": "this operation",
               "x": [x["intensity"]] * 2, "y": [self.gpus[0].name, self.gpus[-1].name],
               "text": ["", f"I = {units.number(x['intensity'])}"], "textposition": "top center",
               "line": {"color": COLORS["gpu"], "width": 4},
               "hovertemplate": "I = %{x:.3g} FLOP/B<extra></extra>"}
        return [table, ridges, dot]

    def layout(self, s: Settings) -> dict:
        return {"xaxis": axes.log_axis("FLOP/B", 1e-2, 1e5,
                                       "intensity (FLOP/byte); ticks: each GPU's ridge",
                                       length_px=self.plot_px(), domain=[0, 1]),
                "yaxis": {"domain": [0, 0.36], "showticklabels": False, "type": "category"}}


def intensity_calculator(op: str = "matmul", machine: str | Machine = "T4", **settings
                         ) -> IntensityCalculator:
    """Pick an operation with its reuse (``op``: a key of ENTRIES, e.g. "matmul",
    "matmul_naive", "attention_flash", "vector_add"), ``dtype`` (fp32, fp16, fp8) and
    ``size``; see F, D, I, the bound and the speed-of-light time on ``machine``."""
    return IntensityCalculator(op, machine, **settings)
