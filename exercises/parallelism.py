"""Numeric exercises of the chapter "The mathematics of parallelism"
(chapters/02_parallelism.md).

Every answer is computed by perfmodel when asked for; the ids match the exercise labels
in the chapter. tests/test_exercises_parallelism.py checks each answer against plain
arithmetic from the source notes' numbers.
"""
from __future__ import annotations

import math

from perfmodel import machines, ops, parallel, roofline, simt

from .registry import register

CH = "parallelism"
#: Any large size: a vector add's intensity does not depend on it.
N = 2 ** 20
#: The notes' launch example: 10 us of host overhead, a 100 us kernel.
HOST_S, KERNEL_S = 10e-6, 100e-6
#: Exercise 10's pipeline: load, compute and store seconds per tile, and the tile count.
STAGES, TILES = (2e-6, 3e-6, 1e-6), 1000


def ridge40():
    """The notes' example machine: 40 TFLOP/s FP32 and 1 TB/s, a ridge of 40 FLOP/byte."""
    return machines.measured("RTX-class example", {"fp32": 40e12}, {"dram": 1e12},
                             source="the source notes' worked example")


register("parallelism-1", CH, "Largest speed-up Amdahl allows with a serial fraction of 0.02.",
         lambda: parallel.amdahl(0.02, math.inf), unit="x", hint="The limit is 1/f.")

register("parallelism-2", CH, "Arithmetic intensity of an FP32 vector add.",
         lambda: ops.vector_add(N).intensity, unit="FLOP/byte",
         hint="One FLOP; two 4-byte reads and one 4-byte write.")

register("parallelism-3", CH,
         "Best fraction of peak FLOP/s for an FP32 vector add on a machine whose ridge is 40.",
         lambda: roofline.attainable(ridge40(), ops.vector_add(N).intensity)
         / ridge40().peak_flops("fp32"),
         unit="fraction", hint="Intensity over ridge: (1/12) / 40.")

register("parallelism-5", CH, "Efficiency of a 10x speed-up on 64 cores.",
         lambda: parallel.efficiency(10, 64), unit="fraction", hint="E = S / p.")

register("parallelism-6", CH,
         "Speed-up on 4 GPUs of 10 us serial overhead plus a perfectly parallel 100 us kernel.",
         lambda: parallel.amdahl(parallel.serial_fraction(HOST_S, KERNEL_S), 4), unit="x",
         hint="f = 10/110; S = 1 / (f + (1 - f) / 4).")

register("parallelism-7", CH, "Gustafson's scaled speed-up with s = 0.05 on 1,024 units.",
         lambda: parallel.gustafson(0.05, 1024), unit="x", hint="S = s + (1 - s) p.")

register("parallelism-8", CH,
         "Predicted speed-up on 64 GPUs of a kernel measured at 6x on 8 (Karp-Flatt, then Amdahl).",
         lambda: parallel.amdahl(parallel.karp_flatt(6, 8), 64), unit="x",
         hint="f = (1/6 - 1/8) / (1 - 1/8) = 1/21.")

register("parallelism-9", CH,
         "Largest speed-up a faster GPU can give a 50 us kernel launched and waited for with "
         "the T4's 20 us toll.",
         lambda: parallel.amdahl(parallel.serial_fraction(
             machines.notes_t4().launch_overhead.value, 50e-6), math.inf),
         unit="x", hint="f = 20 / (20 + 50); the limit is 1/f.")

register("parallelism-10", CH,
         "Speed-up of a 3-stage pipeline (2, 3, 1 us per tile, 1,000 tiles) over no overlap.",
         lambda: TILES * sum(STAGES) / parallel.pipeline_time(TILES, STAGES), unit="x",
         hint="Overlapped: sum of stages + (n - 1) x slowest stage.")

register("parallelism-11", CH,
         "Useful fraction between barriers: one of 32 threads does 10 units, the rest 1.",
         lambda: parallel.barrier_efficiency([10] + [1] * 31), unit="fraction",
         hint="Everyone waits for the slowest: work done over 32 x 10.")

register("parallelism-12", CH,
         "Largest serial fraction that keeps 80% efficiency on 64 units (strong scaling).",
         lambda: parallel.karp_flatt(0.8 * 64, 64), unit="fraction", rel_tol=0.03,
         hint="E = 0.8 means S = 51.2; solve Amdahl for f.")

register("parallelism-13", CH,
         "Fraction of lane-cycles doing useful work when a warp's lanes take 4 paths in turn.",
         lambda: 1 / simt.divergence_passes(4, "within"), unit="fraction",
         hint="The warp walks every path with only that path's lanes active.")
