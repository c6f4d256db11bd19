"""Numeric exercises of the chapter "Why GPUs exist" (chapters/01_why_gpus.md).

Every answer is computed by perfmodel when asked for; the ids match the exercise labels
in the chapter. tests/test_exercises_why_gpus.py checks each answer against plain
arithmetic from the source notes' numbers.
"""
from __future__ import annotations

from perfmodel import clocks, machines, ops, parallel, roofline

from .registry import register

CH = "why-gpus"
#: The paradox's sizes: the large add, the tiny add, the large multiplication.
BIG_ADD, TINY_ADD, BIG_MM = 2 ** 28, 1000, 4096
#: The notes' per-kernel launch costs on the T4 (seconds): queued, from a CUDA graph.
QUEUED_LAUNCH, GRAPH_LAUNCH = 9e-6, 1.4e-6
#: The kernels of exercise 9: 300 kernels of 3 us each.
STEP_KERNELS, STEP_KERNEL_TIME = 300, 3e-6


def _t4m():
    return machines.notes_t4()


def _cpu():
    return machines.get("CPU")


def speedup(op, gpu_toll=0.0, cpu_toll=0.0, pcie_bytes=0.0) -> float:
    """CPU time over measured-T4 time for one op (t0 + max(F/P, D/B) on each), with the
    given tolls (seconds) and bytes over PCIe; the chapter's four jobs use it too."""
    return (roofline.time(_cpu(), op, overhead=cpu_toll)
            / roofline.time(_t4m(), op, overhead=gpu_toll, pcie_bytes=pcie_bytes))


def step_time(launch: float) -> float:
    """Seconds for exercise 9's step: issue (launch) and execution overlap as two stages."""
    return parallel.pipeline_time(STEP_KERNELS, [launch, STEP_KERNEL_TIME])


def _t4_peak() -> float:
    t4 = machines.get("T4")
    return clocks.peak(t4.sms, t4.fp32_lanes_per_sm, t4.clock_hz)


register("why-gpus-1", CH, "The T4's FP32 peak from 40 SMs x 64 lanes x 2 x 1.59 GHz.",
         _t4_peak, unit="FLOP/s", rel_tol=0.01,
         hint="Every lane finishes one FMA (2 FLOPs) per clock.")

register("why-gpus-2", CH, "H200 DRAM bandwidth over the T4's.",
         lambda: machines.get("H200").bandwidth("dram") / machines.get("T4").bandwidth("dram"),
         unit="x", hint="4.8 TB/s over 320 GB/s.")

register("why-gpus-3", CH,
         "Predicted GPU speed-up for a 2^28-element FP32 add, measured bandwidths, no tolls.",
         lambda: speedup(ops.vector_add(BIG_ADD)), unit="x",
         hint="Both machines are memory-bound: the ratio of the bandwidths.")

register("why-gpus-4", CH,
         "Largest GPU speed-up for a 4096^3 FP32 matmul from the measured arithmetic rates.",
         lambda: speedup(ops.matmul(BIG_MM)), unit="x",
         hint="Both machines are compute-bound: the ratio of the FLOP rates.")

register("why-gpus-5", CH,
         "FP32 add size whose T4 memory time (230 GB/s) covers the 9 us of issuing a queued "
         "launch.",
         lambda: QUEUED_LAUNCH / roofline.memory_time(_t4m(), ops.vector_add(1)),
         unit="elements", hint="12 bytes per element; n = issue time x bandwidth / 12.")

register("why-gpus-6", CH,
         "Predicted GPU speed-up for a 1,000-element add: T4 20 us toll, CPU 4 us toll.",
         lambda: speedup(ops.vector_add(TINY_ADD), _t4m().launch_overhead.value,
                          _cpu().launch_overhead.value),
         unit="x", rel_tol=0.03, hint="Both times are almost all toll.")

register("why-gpus-7", CH,
         "Best GPU speed-up for the 2^28 add including the copies over pinned PCIe (12.3 GB/s).",
         lambda: speedup(ops.vector_add(BIG_ADD),
                          pcie_bytes=ops.pcie_round_trip_bytes(BIG_ADD)),
         unit="x", hint="Three arrays of 2^28 floats cross the link; add the add itself.")

def _passes_for_tenth() -> float:
    """Passes over 1 GB on an H100 (HBM) for the PCIe Gen4 copy to be a tenth of the total."""
    copy = 1e9 / machines.get("A100").bandwidth("pcie")
    one_pass = roofline.memory_time(machines.get("H100"), ops.Op("read 1 GB", 0.0, 1e9))
    return 9 * copy / one_pass


register("why-gpus-8", CH,
         "Passes over 1 GB on an H100 (3.35 TB/s) before its copy over PCIe Gen4 x16 "
         "(32 GB/s) is at most a tenth of the total time.",
         _passes_for_tenth, unit="passes", rel_tol=0.02,
         hint="Passes x pass time >= 9 x copy time.")

register("why-gpus-9", CH,
         "Speed-up of a 300-kernel step (3 us each) from CUDA graphs (1.4 us launches) over "
         "queued launches (9 us).",
         lambda: step_time(QUEUED_LAUNCH) / step_time(GRAPH_LAUNCH), unit="x",
         hint="The slowest stage of the issue/execute pipeline sets the pace.")
