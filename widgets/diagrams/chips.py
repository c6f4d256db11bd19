"""Chips drawn from their Machine: the CPU's and the GPU's transistor bets (chapter 1),
one SM's anatomy (chapter 6) and the peak as a product of four numbers (chapter 9).

Every count drawn is the model's: ``Machine.sms`` squares for the SMs,
``Machine.fp32_lanes_per_sm`` squares for the lanes, the register file and L1/shared sizes
from ``Machine.hardware``, the peak from ``perfmodel.clocks.peak``.
"""
from __future__ import annotations

from perfmodel import clocks, machines, units

from ..base import Settings
from ._base import FILL, Diagram, grid, label, machine_menu, rect, size

#: Warp schedulers (SM sub-partitions) per SM on Turing, Ampere, Hopper and Blackwell
#: (NVIDIA's architecture whitepapers): each issues one warp's instruction per cycle.
SCHEDULERS_PER_SM = 4


def _per_cycle(m) -> float:
    """The CPU's FLOP per clock cycle: its FP32 rate over its clock."""
    return m.peak_flops("fp32") / m.clock_hz


def _gpu_per_cycle(m) -> float:
    """A GPU's FP32 FLOP per clock cycle from the counts drawn: SMs x lanes x 2 (an FMA),
    not the datasheet's rounded peak over its clock (5,094 for a T4, against 5,120)."""
    return clocks.peak(m.sms, m.fp32_lanes_per_sm, 1.0)


class MachineDiagram(Diagram):
    """A diagram with one dropdown: the machine."""

    need: tuple[str, ...] = ("sms", "fp32_lanes_per_sm")

    def __init__(self, machine="T4"):
        self.menu, name = machine_menu(machine, self.need)
        super().__init__(machine=name)

    def controls(self):
        return [self.machine_control()]

    def m(self, s: Settings):
        return self.menu[s["machine"]]


class TransistorBets(MachineDiagram):
    name = "transistor-bets"
    title = "Where the transistors go: a CPU and a GPU"
    caption = ("The CPU spends its area on making one stream of instructions fast (control, "
               "caches, a few cores); the GPU on many SMs full of arithmetic lanes.")
    height = 330
    need = ("sms", "fp32_lanes_per_sm", "clock_hz")

    def picture(self, s):
        m, cpu = self.m(s), machines.get("CPU")
        sh = [rect(0, 0, 44, 78, FILL["host"], "die"),
              rect(3, 40, 41, 74, FILL["warm"], "control"),
              rect(3, 4, 41, 24, FILL["chip"], "cache"),
              rect(3, 27, 21, 37, FILL["compute"], "core"),
              rect(23, 27, 41, 37, FILL["compute"], "core"),
              rect(52, 0, 100, 78, FILL["host"], "die"),
              rect(54, 2, 98, 10, FILL["chip"], "cache")]
        sh += [rect(*c, FILL["compute"], "sm", width=0.6)
               for c in grid(m.sms, 54, 12, 98, 76, aspect=self.aspect())]
        notes = [label(22, 57, "control: branch prediction,<br>out-of-order, prefetch"),
                 label(22, 14, "large caches"), label(12, 32, "core"), label(32, 32, "core"),
                 label(76, 6, "L2 cache, shared by every SM", size=11),
                 label(22, 90, f"CPU: {units.number(_per_cycle(cpu))} FLOP per cycle"),
                 label(76, 90, f"{m.name}: {m.sms} SMs × {m.fp32_lanes_per_sm} lanes"),
                 label(76, 83, f"{units.count(_gpu_per_cycle(m))} FLOP per cycle", size=11,
                       name="gpu-per-cycle"),
                 label(22, 83, "(the T4 note's host, schematic)", size=11)]
        return sh, notes

    xrange, yrange = (0, 100), (-2, 96)

    def describe(self, s):
        m, cpu = self.m(s), machines.get("CPU")
        return (f"Two chips side by side. The CPU is drawn as a large block of control "
                f"logic, large caches and two cores, {units.number(_per_cycle(cpu))} FLOP "
                f"per clock cycle. The {m.name} is drawn as {m.sms} small SMs, each with "
                f"{m.fp32_lanes_per_sm} FP32 lanes, over one L2 cache: "
                f"{units.count(_gpu_per_cycle(m))} FLOP per clock cycle.")


class SMAnatomy(MachineDiagram):
    name = "sm-anatomy"
    title = "Inside one SM"
    caption = ("One streaming multiprocessor: four warp schedulers, each with its share of "
               "the FP32 lanes, over a register file and L1/shared memory that its resident "
               "blocks divide between them.")
    height = 380
    xrange, yrange = (0, 100), (0, 100)

    def _fact(self, m, key):
        try:
            return m.hardware(key)
        except ValueError:
            return None

    def picture(self, s):
        m = self.m(s)
        q = m.fp32_lanes_per_sm // SCHEDULERS_PER_SM
        sh, notes = [rect(0, 0, 100, 88, FILL["host"], "sm-outline")], []
        for k in range(SCHEDULERS_PER_SM):
            x0 = 2 + k * 24.5
            sh.append(rect(x0, 36, x0 + 23, 86, FILL["idle"], "partition"))
            sh.append(rect(x0 + 1, 77, x0 + 22, 85, FILL["warm"], "scheduler"))
            notes.append(label(x0 + 11.5, 81, "warp scheduler", size=11))
            sh += [rect(*c, FILL["compute"], "lane", width=0.5)
                   for c in grid(q, x0 + 1, 38, x0 + 22, 75, aspect=self.aspect())]
        regs = self._fact(m, "registers_per_sm_bytes")
        l1 = self._fact(m, "l1_shared_per_sm_bytes")
        thr = self._fact(m, "max_threads_per_sm")
        sh.append(rect(2, 20, 98, 33, FILL["chip"], "registers"))
        sh.append(rect(2, 3, 98, 17, FILL["cool"], "l1"))
        notes += [label(50, 26.5, "register file: " + (size(regs)
                                                      if regs else "size not on record")),
                  label(50, 10, "L1 cache + shared memory: " + (
                      size(l1) if l1 else "size not on record")),
                  label(50, 94, f"{m.name}: {SCHEDULERS_PER_SM} × {q} = "
                        f"{m.fp32_lanes_per_sm} FP32 lanes"
                        + (f", up to {int(thr) // 32} warps resident" if thr else ""))]
        return sh, notes

    def describe(self, s):
        m = self.m(s)
        regs = self._fact(m, "registers_per_sm_bytes")
        l1 = self._fact(m, "l1_shared_per_sm_bytes")
        return (f"One SM of the {m.name}: {SCHEDULERS_PER_SM} warp schedulers, each over "
                f"{m.fp32_lanes_per_sm // SCHEDULERS_PER_SM} FP32 lanes "
                f"({m.fp32_lanes_per_sm} in all); below them the register file "
                f"({size(regs) if regs else 'size not on record'}) "
                f"and the L1 cache with shared memory "
                f"({size(l1) if l1 else 'size not on record'}). "
                f"The chip has {m.sms} such SMs.")


class PeakProduct(MachineDiagram):
    name = "peak-product"
    title = "A peak is a product of four numbers"
    caption = ("SMs × FP32 lanes per SM × 2 FLOP per fused multiply-add × clock: the FP32 "
               "peak, computed from the machine's own hardware figures.")
    height = 210
    need = ("sms", "fp32_lanes_per_sm", "clock_hz")
    xrange, yrange = (0, 100), (0, 60)

    def picture(self, s):
        m = self.m(s)
        p = clocks.peak(m.sms, m.fp32_lanes_per_sm, m.clock_hz)
        parts = [(str(m.sms), "SMs", "factor"), (str(m.fp32_lanes_per_sm), "lanes per SM", "factor"),
                 ("2", "FLOP per FMA", "factor"), (units.si(m.clock_hz, "Hz", 3), "clock", "factor"),
                 (units.si(p, "FLOP/s", 3), "FP32 peak", "peak")]
        sh, notes = [], []
        for k, (value, what, kind) in enumerate(parts):
            x0 = k * 20.5
            sh.append(rect(x0, 18, x0 + 16, 44, FILL["compute" if kind == "peak" else "chip"],
                           kind))
            notes += [label(x0 + 8, 35, value, name="value"), label(x0 + 8, 24, what, size=11)]
            if k:
                notes.append(label(x0 - 2.25, 31, "=" if kind == "peak" else "×"))
        notes.append(label(50, 8, f"{m.name}: datasheet FP32 peak "
                                  f"{units.si(m.peak_flops('fp32'), 'FLOP/s', 3)}", size=11))
        return sh, notes

    def describe(self, s):
        m = self.m(s)
        p = clocks.peak(m.sms, m.fp32_lanes_per_sm, m.clock_hz)
        return (f"Five boxes: {m.sms} SMs times {m.fp32_lanes_per_sm} lanes per SM times 2 "
                f"FLOP per fused multiply-add times a {units.si(m.clock_hz, 'Hz', 3)} clock "
                f"equals {units.si(p, 'FLOP/s', 3)} for the {m.name}.")


def transistor_bets(machine="T4") -> TransistorBets:
    """The CPU of the T4 note beside ``machine``'s SMs (chapter 1)."""
    return TransistorBets(machine)


def sm_anatomy(machine="T4") -> SMAnatomy:
    """One SM of ``machine``: schedulers, lanes, register file, L1/shared (chapter 6)."""
    return SMAnatomy(machine)


def peak_product(machine="T4") -> PeakProduct:
    """SMs x lanes x 2 x clock = ``machine``'s FP32 peak (chapter 9)."""
    return PeakProduct(machine)
