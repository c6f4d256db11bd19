"""Fusion and triage. Top: a chain of elementwise operations, one kernel each (every
intermediate written to DRAM and read back) or fused into one; bytes moved and time at
the memory roof, with and without the launch tolls. Bottom: the four triage questions
answered by the model for a chosen operation (perfmodel.ops, roofline, triage).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from perfmodel import machines as pm_machines
from perfmodel import ops, roofline, triage, units
from perfmodel.machines import UNIT_LABELS, Machine

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


class FusionTriage(View):
    """Unfused vs fused chains, and the four questions for one operation."""

    name = "fusion-triage"
    height = 560
    legend = {"orientation": "h", "x": 0.0, "y": 0.6, "xanchor": "left", "yanchor": "top"}

    def __init__(self, n: int = 2 ** 26, count: int = 3, op: str = "gelu",
                 machine: str | Machine = "T4", dtype: str = "fp32"):
        self.machine = pm_machines.get(machine)
        check_choice("op", op, list(CASES))
        self.dtype = check_choice("dtype", dtype, CHAIN_DTYPES)
        self.n = with_value([], n, "n", 1, 2 ** 40, integer=True)[0]
        self.counts = with_value(COUNTS, count, "count", 1, 64, integer=True)
        super().__init__(op=op, count=count)

    def controls(self) -> list[Control]:
        i = self._initial
        return [Control("op", "triage", list(CASES), i["op"], "dropdown", lambda k: CASES[k].label),
                Control("count", "elementwise ops in the chain", self.counts, i["count"], "slider")]

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

    def answers(self, s: Settings) -> tuple[triage.Triage, str]:
        """The four answers for the chosen case, and the compute unit they assume."""
        case = CASES[s["op"]]
        op = case.build()
        unit = roofline.unit_for(self.machine, op.dtype, case.tensor)
        return triage.triage(self.machine, op, unit, case.regular), unit

    def title_for(self, s: Settings) -> str:
        return f"Fusion and triage on the {self.machine.name}"

    def traces(self, s: Settings) -> list[dict]:
        k = s["count"]
        x = self.chain_times(k)
        names = [f"{k} kernel{'s' if k > 1 else ''}", "fused"]
        t, unit = self.answers(s)
        q = [["1. independent work items", "2. intensity vs ridge", "3. minimum bytes → speed of light",
              "4. access pattern"],
             [f"{t.work_items:,.0f}: {t.parallelism}",
              f"I = {t.intensity:.3g} vs {t.ridge:.3g} FLOP/B ({UNIT_LABELS[unit]}): "
              f"{t.bound}-bound by {t.factor:.3g}×",
              f"{units.nbytes(t.min_bytes)} → {units.seconds(t.speed_of_light)}",
              "regular, coalesced" if t.regular else "irregular: gathers waste most of each sector"]]
        return [
            {"type": "bar", "orientation": "h", "name": "at the memory roof", "y": names,
             "x": x["roof"], "text": [f"{units.nbytes(b)} moved, {units.seconds(v)}"
                                      for b, v in zip(x["bytes"], x["roof"])],
             "textposition": "auto", "marker": {"color": COLORS["parts"]["memory"]},
             "hovertemplate": "%{y}: %{x:.3s}s<extra>memory roof</extra>"},
            {"type": "bar", "orientation": "h", "name": "with a launch toll per kernel", "y": names,
             "x": x["tolls"], "marker": {"color": COLORS["parts"]["toll"]},
             "hovertemplate": "%{y}: %{x:.3s}s<extra>with tolls</extra>"},
            table_trace(["the four questions", CASES[s["op"]].label], q, [0, 0.52], [0.36, 0.64]),
        ]

    def layout(self, s: Settings) -> dict:
        top = self.chain_times(self.counts[-1])["tolls"][0]
        return {"barmode": "group",
                "xaxis": {"domain": [0, 1], "anchor": "y", "range": [0, top * 1.05],
                          "exponentformat": "SI",
                          "title": {"text": f"seconds ({self.n:,} {self.dtype})", "standoff": 2}},
                "yaxis": {"domain": [0.7, 1], "anchor": "x", "autorange": "reversed"}}


def fusion_triage(n: int = 2 ** 26, count: int = 3, op: str = "gelu",
                  machine: str | Machine = "T4", dtype: str = "fp32") -> FusionTriage:
    """A chain of ``count`` elementwise ops on ``n`` elements (``dtype``) unfused vs fused
    on ``machine``, and the four triage questions for ``op`` (one of CASES)."""
    return FusionTriage(n, count, op, machine, dtype)
