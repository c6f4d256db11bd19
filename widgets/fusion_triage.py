"""Fusion, and triage: two figures, one idea each.

- :func:`fusion_chain`: a chain of elementwise operations, one kernel each (every
  intermediate written to DRAM and read back) or fused into one; bytes moved and time at
  the memory roof, with and without the launch tolls, for a chain length you slide.
- :func:`triage_questions`: the four triage questions answered by the model for an operation you
  pick (perfmodel.ops, roofline, triage).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from perfmodel import machines as pm_machines
from perfmodel import ops, roofline, units
from perfmodel import triage as pm_triage
from perfmodel.machines import UNIT_LABELS, Machine

from . import axes
from .base import Control, Settings, View, check_choice, with_value
from .style import COLORS, table_trace


@dataclass(frozen=True)
class Case:
    """An operation to triage: label, builder, matrix product or not, regular access."""

    label: str
    build: Callable[[], ops.Op]
    tensor: bool = False
    regular: bool = True


CASES = {
    "gelu": Case("GELU, 100M FP32", lambda: ops.gelu(100_000_000)),
    "small_add": Case("add, 10,000 FP32", lambda: ops.vector_add(10_000)),
    "vector_add": Case("add, 2^28 FP32", lambda: ops.vector_add(2 ** 28)),
    "gather_add": Case("gather + add (random)",
                       lambda: ops.elementwise(2 ** 26, 1, 2, 1, name="gather + add"), regular=False),
    "layernorm": Case("layer norm 8192×4096", lambda: ops.layernorm(8192, 4096)),
    "linear_b1": Case("linear, batch 1, FP16", lambda: ops.linear(1, 4096, 4096), True),
    "attention": Case("attention, naive, FP16",
                      lambda: ops.attention(4096, 64, dtype="fp16"), True),
    "flash": Case("attention, flash, FP16",
                  lambda: ops.attention(4096, 64, flash=True, dtype="fp16"), True),
    "matmul": Case("matmul 4096, FP16", lambda: ops.matmul(4096, dtype="fp16"), True),
}
COUNTS = list(range(1, 11))
CHAIN_DTYPES = ("fp32", "fp16", "bf16")


class FusionChain(View):
    """A chain of ``count`` elementwise ops, unfused (one kernel each) vs fused."""

    name = "fusion-chain"
    height = 250
    # above the bars, right of the (short) title
    legend = {"orientation": "h", "x": 1.0, "y": 1.02, "xanchor": "right", "yanchor": "bottom"}

    def __init__(self, n: int = 2 ** 26, count: int = 3, machine: str | Machine = "T4",
                 dtype: str = "fp32"):
        self.machine = pm_machines.get(machine)
        self.dtype = check_choice("dtype", dtype, CHAIN_DTYPES)
        self.n = with_value([], n, "n", 1, 2 ** 40, integer=True)[0]
        self.counts = with_value(COUNTS, count, "count", 1, 64, integer=True)
        super().__init__(count=count)

    def controls(self) -> list[Control]:
        return [Control("count", "elementwise ops in the chain", self.counts,
                        self._initial["count"], "slider")]

    def chain(self, count: int, fused: bool) -> ops.Op:
        return ops.repeated_elementwise(self.n, count, fused, self.dtype)

    def chain_times(self, count: int) -> dict[str, list[float]]:
        """Seconds for [unfused, fused]: at the memory roof, and with a toll per kernel."""
        m, t0 = self.machine, self.machine.launch_overhead.value
        pair = [self.chain(count, False), self.chain(count, True)]
        return {"roof": [roofline.speed_of_light(m, op) for op in pair],
                "tolls": [roofline.time(m, pair[0], overhead=count * t0),
                          roofline.time(m, pair[1], overhead=t0)],
                "bytes": [op.bytes for op in pair]}

    def title_for(self, s: Settings) -> str:
        return f"Fusion on the {self.machine.name}"

    def traces(self, s: Settings) -> list[dict]:
        k = s["count"]
        x = self.chain_times(k)
        # The same two rows at every count (the slider says how many ops): a step then
        # moves the bars, not the axis's categories, and is drawn without a replot.
        names = ["one kernel per op", "fused: one kernel"]
        return [
            {"type": "bar", "orientation": "h", "name": "at the memory roof", "y": names,
             "x": x["roof"], "text": [f"{units.nbytes(b)} moved, {units.seconds(v)}"
                                      for b, v in zip(x["bytes"], x["roof"])],
             "textposition": "auto", "insidetextanchor": "start",
             "marker": {"color": COLORS["parts"]["memory"]},
             "hovertemplate": "%{y}: %{x:.3s}s<extra>memory roof</extra>"},
            {"type": "bar", "orientation": "h", "name": "with a launch toll per kernel", "y": names,
             "x": x["tolls"], "marker": {"color": COLORS["parts"]["toll"]},
             "hovertemplate": "%{y}: %{x:.3s}s<extra>with tolls</extra>"},
        ]

    def layout(self, s: Settings) -> dict:
        top = self.chain_times(self.counts[-1])["tolls"][0] * 1.05
        return {"barmode": "group", "bargap": 0.3,
                "xaxis": axes.linear_axis("s", 0, top, f"time for {self.n:,} {self.dtype.upper()} values",
                                          length_px=self.plot_px()),
                "yaxis": {"autorange": "reversed"}}


class Triage(View):
    """The four questions for one operation, answered by the model on a machine."""

    name = "triage-questions"
    height = 126
    axis_px = 8

    def __init__(self, op: str = "gelu", machine: str | Machine = "T4"):
        self.machine = pm_machines.get(machine)
        check_choice("op", op, list(CASES))
        super().__init__(op=op)

    def controls(self) -> list[Control]:
        return [Control("op", "operation", list(CASES), self._initial["op"], "dropdown",
                        lambda k: CASES[k].label)]

    def answers(self, s: Settings) -> tuple[pm_triage.Triage, str]:
        """The four answers for the chosen case, and the compute unit they assume."""
        case = CASES[s["op"]]
        op = case.build()
        unit = roofline.unit_for(self.machine, op.dtype, case.tensor)
        return pm_triage.triage(self.machine, op, unit, case.regular), unit

    def title_for(self, s: Settings) -> str:
        return f"Four questions before writing a kernel, on the {self.machine.name}"

    def traces(self, s: Settings) -> list[dict]:
        t, unit = self.answers(s)
        q = [["1. independent work items", "2. intensity vs ridge", "3. minimum bytes → speed of light",
              "4. access pattern"],
             [f"{t.work_items:,.0f}: {t.parallelism}",
              f"I = {units.number(t.intensity)} vs {units.number(t.ridge)} FLOP/B ({UNIT_LABELS[unit]}): "
              f"{t.bound}-bound by {units.number(t.factor)}×",
              f"{units.nbytes(t.min_bytes)} → {units.seconds(t.speed_of_light)}",
              "regular, coalesced" if t.regular else "irregular: gathers waste most of each sector"]]
        return [table_trace(["the four questions", CASES[s["op"]].label], q, [0, 1], [0.36, 0.64])]

    def layout(self, s: Settings) -> dict:
        return {"xaxis": {"visible": False}, "yaxis": {"visible": False}}


def fusion_chain(n: int = 2 ** 26, count: int = 3, machine: str | Machine = "T4",
                 dtype: str = "fp32") -> FusionChain:
    """A chain of ``count`` elementwise ops on ``n`` elements (``dtype``) on ``machine``,
    one kernel each vs fused into one: bytes moved and time, with and without the tolls."""
    return FusionChain(n, count, machine, dtype)


def triage_questions(op: str = "gelu", machine: str | Machine = "T4") -> Triage:
    """The four triage questions answered for ``op`` (a key of CASES) on ``machine``."""
    return Triage(op, machine)
