"""Variants of numeric exercises in chapters 2, 3 and 5: parallelism, intensity, triage."""
from __future__ import annotations

import math

from perfmodel import machines, ops, parallel, roofline

from ..parallelism import offload_speedup
from ..triage import row_sums, stencil9
from . import define
from ._fmt import a, count, dtype, si

GPUS = ("T4", "A100", "H100", "H200", "B200")
DTYPES = ("fp32", "fp16", "bf16")


def _gpu(p: dict, name: str) -> machines.Machine:
    return machines.measured(name, {"fp32": 19.5e12}, {"dram": p["bw"]},
                             source="an exercise variant's GPU")


# --- Chapter 2: parallelism -----------------------------------------------------------

define(
    "parallelism-1", title="Amdahl's law, offload form",
    defaults={"share": 0.8, "gain": 20},
    draw=lambda r: {"share": r.choice((0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 0.95)),
                    "gain": r.choice((5, 8, 10, 16, 20, 30, 50))},
    question=lambda p: (
        f"A pipeline moves {p['share']:.0%} of its time to a GPU that runs that part "
        f"{p['gain']:g}x faster; the rest stays on the CPU as it was. Give the **overall "
        "speed-up**."),
    answer=lambda p: offload_speedup(p["share"], p["gain"]))

define(
    "parallelism-5", title="Efficiency",
    defaults={"speedup": 24, "cores": 32},
    draw=lambda r: (lambda c: {"cores": c, "speedup": r.randrange(2, c // 2 + 1)})(
        r.choice((8, 16, 32, 64, 128, 256))),
    question=lambda p: (
        f"A program runs {p['speedup']}x faster on {p['cores']} cores than on one. Give its "
        "**parallel efficiency** (a number between 0 and 1)."),
    answer=lambda p: parallel.efficiency(p["speedup"], p["cores"]))

define(
    "parallelism-7", title="Gustafson's scaled speed-up",
    defaults={"serial": 0.02, "units": 4096},
    draw=lambda r: {"serial": r.choice((0.01, 0.02, 0.05, 0.1, 0.2)),
                    "units": r.choice((64, 128, 256, 512, 1024, 2048, 4096))},
    question=lambda p: (
        f"A job grows with the machine so that its serial part stays a fraction "
        f"$s = {p['serial']:g}$ of the parallel run's time. Give **Gustafson's scaled "
        f"speed-up** on {count(p['units'])} units."),
    answer=lambda p: parallel.gustafson(p["serial"], p["units"]))

# --- Chapter 3: intensity -------------------------------------------------------------

define(
    "intensity-2", title="Intensity of softplus",
    defaults={"dtype": "fp32", "ops": 21},
    draw=lambda r: {"dtype": r.choice(DTYPES), "ops": r.randrange(13, 32, 2)},
    question=lambda p: (
        f"Give the **arithmetic intensity in FLOP/byte** of $y_i = \\log(1 + \\exp(x_i))$ in "
        f"{dtype(p['dtype'])}, counting the exponential, the logarithm and the add as about "
        f"{p['ops']} operations together (no reuse: read $x$ once, write $y$ once)."),
    answer=lambda p: ops.elementwise(2 ** 24, p["ops"], reads=1, writes=1,
                                     dtype=p["dtype"]).intensity)

define(
    "intensity-4", title="A skinny matrix product",
    defaults={"m": 48, "k": 4096, "n": 4096, "dtype": "bf16"},
    draw=lambda r: {"m": r.choice((1, 2, 4, 8, 16, 32, 64, 128)),
                    "k": r.choice((1024, 2048, 4096, 8192)),
                    "n": r.choice((1024, 2048, 4096, 8192)), "dtype": r.choice(DTYPES)},
    question=lambda p: (
        f"Give the **arithmetic intensity in FLOP/byte** of $C = AB$ with $A$ of "
        f"{p['m']}×{p['k']} and $B$ of {p['k']}×{p['n']} in {dtype(p['dtype'])}, reading $A$ "
        "and $B$ once and writing $C$ once."),
    answer=lambda p: ops.gemm(p["m"], p["n"], p["k"], p["dtype"]).intensity)

# --- Chapter 5: triage ------------------------------------------------------------------

define(
    "triage-1", title="A stencil sweep at the speed of light",
    defaults={"gpu": "T4", "edge": 4096},
    draw=lambda r: {"gpu": r.choice(GPUS), "edge": r.choice((2048, 4096, 8192, 16384))},
    question=lambda p: (
        f"Give the **speed-of-light time in seconds** on {a(p['gpu'])} (datasheet: "
        f"{si(machines.get(p['gpu']).bandwidth('dram'), 'B/s')}, "
        f"{si(machines.get(p['gpu']).peak_flops('fp32'), 'FLOP/s')} FP32) of one 3×3 box blur "
        f"(a 9-point FP32 stencil) over a {count(p['edge'])} × {count(p['edge'])} grid, each input read "
        "once and each output written once."),
    answer=lambda p: roofline.speed_of_light(p["gpu"], stencil9(p["edge"] ** 2, True)))

define(
    "triage-4", title="Many small kernels",
    defaults={"kernels": 30, "gb": 10, "bw": 2e12},
    draw=lambda r: {"kernels": r.randrange(5, 51, 5), "gb": r.choice((2, 4, 5, 8, 10, 16, 20)),
                    "bw": r.choice((1.0, 1.5, 2.0, 3.0, 3.35, 4.8)) * 1e12},
    question=lambda p: (
        f"A model applies {p['kernels']} separate elementwise kernels, one after the other, to "
        f"a {p['gb']} GB FP32 tensor on a GPU with {si(p['bw'], 'B/s')} of memory bandwidth. "
        "Each kernel reads the tensor and writes it back. Give the **runtime in seconds** "
        "(ignore launch tolls)."),
    answer=lambda p: roofline.time(_gpu(p, "exercise GPU"),
                                   ops.repeated_elementwise(int(p["gb"] * 1e9 / 4), p["kernels"],
                                                            fused=False)))

define(
    "triage-5", title="Row sums at the speed of light",
    defaults={"gpu": "H200", "shape": (32, 2048, 8192)},
    draw=lambda r: {"gpu": r.choice(("A100", "H100", "H200", "B200")),
                    "shape": (r.choice((8, 16, 32, 64)), r.choice((1024, 2048, 4096)),
                              r.choice((4096, 8192, 12288)))},
    question=lambda p: (
        f"A [{', '.join(str(x) for x in p['shape'])}] BF16 tensor is summed along its last "
        f"axis into FP32 totals on {a(p['gpu'])} (datasheet: "
        f"{si(machines.get(p['gpu']).bandwidth('dram'), 'B/s')}). Give the **speed-of-light "
        "time in seconds**."),
    answer=lambda p: roofline.speed_of_light(p["gpu"], row_sums(p["shape"])))
