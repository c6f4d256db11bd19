"""Part I's pictures: the serial part that parallel workers wait for (Amdahl, chapter 2),
the bytes and the one FLOP of a vector add's element (chapter 3), and the two budgets an
operation spends, of which the longer is its time (chapter 4)."""
from __future__ import annotations

from perfmodel import machines, ops, parallel, roofline, units

from ..base import Control, check_choice
from ._base import (FILL, Diagram, arrow, boxes_trace, key, label, machine_menu, rect,
                    text_trace)

WORKERS = [1, 2, 4, 8, 16]
#: The fills (keys of FILL) of the serial part, the workers waiting for it and the parallel
#: part: three that stay apart on the light and the dark theme.
SERIAL, WAITING, PARALLEL = "warm", "idle", "compute"


class AmdahlSplit(Diagram):
    name = "amdahl-split"
    title = "Amdahl's law, drawn: the serial part does not split"
    caption = ("One unit of work on p workers: the serial part (orange) runs on one worker "
               "while the others wait (grey), the parallel part (green) is shared out; the "
               "time is f + (1 − f)/p, so the speed-up never passes 1/f.")
    height = 330
    xrange, yrange = (-0.02, 1.02), (0, 100)

    def __init__(self, serial_fraction: float = 0.1):
        check_choice("serial_fraction", serial_fraction, [0.05, 0.1, 0.25, 0.5])
        super().__init__(f=serial_fraction, p=4)

    def controls(self):
        return [Control("f", "serial fraction f", [0.05, 0.1, 0.25, 0.5], self._initial["f"],
                        "dropdown", units.percent),
                Control("p", "workers p", WORKERS, 4, "slider")]

    def moving(self, s):
        f, p = s["f"], s["p"]
        h = 70 / p
        rows = [(82 - (k + 1) * h + 0.4, 82 - k * h - 0.4) for k in range(p)]
        serial = [(0, rows[0][0], f, rows[0][1])]
        waiting = [(0, y0, f, y1) for y0, y1 in rows[1:]]
        work = [(f, y0, f + (1 - f) / p, y1) for y0, y1 in rows]
        t = f + (1 - f) / p
        text = (f"time {units.number(t)} of the one-worker time: speed-up "
                f"{units.number(parallel.amdahl(f, p))}×, efficiency "
                f"{units.percent(parallel.efficiency(parallel.amdahl(f, p), p))}; "
                f"never more than {units.number(1 / f)}×")
        return [boxes_trace(serial, FILL[SERIAL], "serial part"),
                boxes_trace(waiting, FILL[WAITING], "waiting"),
                boxes_trace(work, FILL[PARALLEL], "parallel part"),
                text_trace(0, 4, text, "counters", size=12)]

    def picture(self, s):
        sh, notes = key([(FILL[SERIAL], "serial part"), (FILL[WAITING], "waiting"),
                         (FILL[PARALLEL], "parallel part")], 0, 87.5, (0.02, 4.5), 0.0105)
        sh.append({"type": "line", "x0": 1, "x1": 1, "y0": 8, "y1": 86, "xref": "x",
                   "yref": "y", "line": {"color": "rgba(128,128,128,0.7)", "dash": "dot"},
                   "name": "one-worker"})
        notes += [label(0, 95, "one row per worker, time to the right", size=11,
                        xanchor="left"),
                  label(1, 95, "one worker's time", size=11, xanchor="right")]
        return sh, notes

    def describe(self, s):
        f = s["f"]
        return (f"Bars for 1 to {WORKERS[-1]} workers: with a serial fraction of "
                f"{units.percent(f)} the speed-up on {WORKERS[-1]} workers is "
                f"{units.number(parallel.amdahl(f, WORKERS[-1]))}×, and no number of "
                f"workers passes {units.number(1 / f)}×.")


class VectorAddBytes(Diagram):
    name = "vector-add-bytes"
    title = "One element of c = a + b: what moves and what is computed"
    caption = ("Each element of a vector add reads two numbers and writes one, and does one "
               "addition: a handful of bytes per FLOP, far below any GPU's ridge.")
    height = 250
    xrange, yrange = (0, 100), (0, 100)

    def __init__(self, dtype: str = "fp32", machine="T4"):
        check_choice("dtype", dtype, ["fp64", "fp32", "fp16"])
        self.machine = machines.get(machine)
        super().__init__(dtype=dtype)

    def controls(self):
        return [Control("dtype", "type", ["fp64", "fp32", "fp16"], self._initial["dtype"],
                        "dropdown")]

    def per_element(self, s) -> dict:
        op = ops.vector_add(1, s["dtype"])
        e = ops.dtype_bytes(s["dtype"])
        return {"read": 2 * e, "written": e, "bytes": op.bytes, "flops": op.flops,
                "intensity": op.intensity}

    def picture(self, s):
        x = self.per_element(s)
        e = ops.dtype_bytes(s["dtype"])
        sh = [rect(2, 58, 20, 80, FILL["dram"], "read"), rect(2, 22, 20, 44, FILL["dram"], "read"),
              rect(40, 38, 58, 64, FILL["compute"], "flop"), rect(80, 40, 98, 62, FILL["dram"], "write")]
        notes = [label(11, 69, f"a[i]: {units.number(e)} B"), label(11, 33, f"b[i]: {units.number(e)} B"),
                 label(49, 51, "+ (1 FLOP)"), label(89, 51, f"c[i]: {units.number(e)} B"),
                 arrow(20, 69, 40, 56), arrow(20, 33, 40, 46), arrow(58, 51, 80, 51),
                 label(0, 94, f"read {units.number(x['read'])} B, write {units.number(x['written'])} B, "
                              f"{units.number(x['flops'])} FLOP: intensity "
                              f"{units.number(x['intensity'])} FLOP/B", xanchor="left",
                       name="count"),
                 label(0, 8, f"the {self.machine.name}'s FP32 ridge: "
                             f"{units.number(self.machine.ridge('fp32'))} FLOP/B, "
                             f"{units.number(self.machine.ridge('fp32') / x['intensity'])}× more",
                       xanchor="left", size=11)]
        return sh, notes

    def describe(self, s):
        x = self.per_element(s)
        return (f"Two boxes a[i] and b[i] of {units.number(x['read'] / 2)} bytes each feed one "
                f"addition, whose result c[i] of {units.number(x['written'])} bytes is written: "
                f"{units.number(x['flops'])} FLOP per {units.number(x['bytes'])} bytes, "
                f"intensity {units.number(x['intensity'])} FLOP per byte.")


OPS = {"vector add, 2²⁸ FP32": lambda: ops.vector_add(2 ** 28),
       "matmul 4096, perfect reuse": lambda: ops.matmul(4096, "perfect"),
       "matmul 4096, tiled T=32": lambda: ops.matmul(4096, "tiled", tile=32)}


class TwoBudgets(Diagram):
    name = "two-budgets"
    title = "Two budgets, one bound: F/P against D/B"
    caption = ("An operation needs F/P seconds of arithmetic and D/B seconds of memory "
               "traffic, which overlap; the longer bar is its speed-of-light time and names "
               "the bound.")
    height = 240
    xrange, yrange = (0, 100), (0, 100)

    def __init__(self, machine="T4", op: str = "vector add, 2²⁸ FP32"):
        self.menu, name = machine_menu(machine, ())
        check_choice("op", op, list(OPS))
        super().__init__(machine=name, op=op)

    def controls(self):
        return [self.machine_control("machine"),
                Control("op", "operation", list(OPS), self._initial["op"], "dropdown")]

    def times(self, s) -> dict:
        m, op = self.menu[s["machine"]], OPS[s["op"]]()
        return {"compute": roofline.compute_time(m, op), "memory": roofline.memory_time(m, op),
                "time": roofline.time(m, op), "bound": roofline.bound(m, op)}

    def picture(self, s):
        t = self.times(s)
        longest = max(t["compute"], t["memory"])
        sh, notes = [], []
        for k, (what, key, fill) in enumerate((("arithmetic F/P", "compute", FILL["compute"]),
                                               ("memory D/B", "memory", FILL["dram"]))):
            y0 = 58 - k * 32
            w = 96 * t[key] / longest
            sh.append(rect(2, y0, 2 + w, y0 + 22, fill, key, width=2 if t[key] == longest else 1))
            notes.append(label(2, y0 + 28, f"{what}: {units.si(t[key], 's', 3)}", xanchor="left",
                               name=f"time-{key}"))
        notes.append(label(0, 8, f"time = max of the two = {units.si(t['time'], 's', 3)}: "
                                 f"{t['bound']}-bound", xanchor="left", name="bound"))
        return sh, notes

    def describe(self, s):
        t = self.times(s)
        return (f"Two bars for {s['op']} on the {s['machine']}: arithmetic "
                f"{units.si(t['compute'], 's', 3)}, memory {units.si(t['memory'], 's', 3)}; "
                f"the operation is {t['bound']}-bound at {units.si(t['time'], 's', 3)}.")


def amdahl_split(serial_fraction: float = 0.1) -> AmdahlSplit:
    """The serial and parallel parts of one job on 1 to 16 workers (chapter 2)."""
    return AmdahlSplit(serial_fraction)


def vector_add_bytes(dtype: str = "fp32", machine="T4") -> VectorAddBytes:
    """The bytes and the FLOP of one element of a vector add in ``dtype`` (chapter 3)."""
    return VectorAddBytes(dtype, machine)


def two_budgets(machine="T4", op: str = "vector add, 2²⁸ FP32") -> TwoBudgets:
    """F/P and D/B of ``op`` on ``machine`` as two bars (chapter 4)."""
    return TwoBudgets(machine, op)
