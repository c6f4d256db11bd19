"""Numeric exercises of the chapter "Why GPUs exist" (chapters/01_why_gpus.md).

Every answer is computed by perfmodel when asked for; the ids match the exercise labels
in the chapter. tests/test_exercises_why_gpus.py checks each answer against plain
arithmetic from the source documents' figures (the T4 note's measurements, the
CPU of the same note).
"""
from __future__ import annotations

import math

from perfmodel import _check, clocks, machines, ops, parallel, roofline

from .registry import register

CH = "why-gpus"
#: The paradox's sizes: the large add, the tiny add, the large multiplication.
BIG_ADD, TINY_ADD, BIG_MM = 2 ** 28, 1000, 4096
#: The notes' per-kernel launch costs on the T4 (seconds): queued, from a CUDA graph.
QUEUED_LAUNCH, GRAPH_LAUNCH = 9e-6, 1.4e-6
#: The kernels of exercise 9: 300 kernels of 3 us each.
STEP_KERNELS, STEP_KERNEL_TIME = 300, 3e-6


#: Exercises 3, 4, 6 and 7: a server CPU beside an H100 (the H100 from its datasheet, with
#: its 10 us toll and 64 GB/s PCIe Gen5 link).
SERVER_CPU_FLOPS, SERVER_CPU_BW, SERVER_CPU_TOLL = 4e12, 400e9, 5e-6


def _t4m():
    return machines.notes_t4()


def server_cpu():
    """The exercises' server CPU: 4 TFLOP/s FP32, 400 GB/s, 5 us per call."""
    return machines.measured("server CPU", {"fp32": SERVER_CPU_FLOPS}, {"dram": SERVER_CPU_BW},
                             source="an exercise's server CPU", launch_overhead=SERVER_CPU_TOLL)


def server_speedup(op, pcie_bytes: float = 0.0, gpu: str = "H100") -> float:
    """Server-CPU time over the GPU's time (H100 unless named) for one op, each paying its
    own toll."""
    try:
        machine = machines.get(gpu)
    except ValueError as e:
        raise ValueError(f"gpu: {e}") from None
    cpu, gpu = server_cpu(), machine
    return (roofline.time(cpu, op, overhead=cpu.launch_overhead.value)
            / roofline.time(gpu, op, overhead=gpu.launch_overhead.value, pcie_bytes=pcie_bytes))


def _cpu():
    return machines.get("CPU")


def speedup(op, gpu_toll=0.0, cpu_toll=0.0, pcie_bytes=0.0) -> float:
    """CPU time over measured-T4 time for one op (t0 + max(F/P, D/B) on each), with the
    given tolls (seconds) and bytes over PCIe; the chapter's four jobs use it too."""
    if not isinstance(op, ops.Op):
        raise TypeError(f"op must be a perfmodel.ops.Op, got {type(op).__name__}")
    gpu_toll, cpu_toll = (_check.non_negative("gpu_toll", gpu_toll),
                          _check.non_negative("cpu_toll", cpu_toll))
    pcie_bytes = _check.non_negative("pcie_bytes", pcie_bytes)
    return (roofline.time(_cpu(), op, overhead=cpu_toll)
            / roofline.time(_t4m(), op, overhead=gpu_toll, pcie_bytes=pcie_bytes))


def step_time(launch: float) -> float:
    """Seconds for exercise 9's step: issue (launch) and execution overlap as two stages."""
    return parallel.pipeline_time(STEP_KERNELS, [_check.non_negative("launch", launch),
                                                 STEP_KERNEL_TIME])


def _a100_peak() -> float:
    a100 = machines.get("A100")
    return clocks.peak(a100.sms, a100.fp32_lanes_per_sm, a100.clock_hz)


register("why-gpus-1", CH, "The A100's FP32 peak from 108 SMs x 64 lanes x 2 x 1.41 GHz.",
         _a100_peak, unit="FLOP/s", rel_tol=0.01,
         hint="Every lane finishes one FMA (2 FLOPs) per clock.")

register("why-gpus-2", CH, "B200 DRAM bandwidth over the H200's.",
         lambda: machines.get("B200").bandwidth("dram") / machines.get("H200").bandwidth("dram"),
         unit="x", hint="8 TB/s over 4.8 TB/s.")

register("why-gpus-3", CH,
         "Predicted B200 (8 TB/s, 10 us) speed-up over a server CPU (400 GB/s, 5 us) for a "
         "2^28-element FP32 add, data in place.",
         lambda: server_speedup(ops.vector_add(BIG_ADD), gpu="B200"), unit="x",
         hint="Both machines are memory-bound: nearly the ratio of the bandwidths.")

register("why-gpus-4", CH,
         "Predicted H100 speed-up over a server CPU (4 TFLOP/s FP32) for a 4096^3 FP32 matmul.",
         lambda: server_speedup(ops.matmul(BIG_MM)), unit="x",
         hint="Both machines are compute-bound: nearly the ratio of the FLOP rates.")

register("why-gpus-5", CH,
         "FP32 add size whose T4 memory time (230 GB/s) covers the 9 us of issuing a queued "
         "launch.",
         lambda: QUEUED_LAUNCH / roofline.memory_time(_t4m(), ops.vector_add(1)),
         unit="elements", hint="12 bytes per element; n = issue time x bandwidth / 12.")

register("why-gpus-6", CH,
         "Predicted H100 speed-up over a server CPU for a 1,000-element add: H100 10 us toll, "
         "CPU 5 us.",
         lambda: server_speedup(ops.vector_add(TINY_ADD)),
         unit="x", rel_tol=0.03, hint="Both times are almost all toll.")

register("why-gpus-7", CH,
         "Best H100 speed-up over a server CPU for the 2^28 add with its copies over PCIe Gen5 "
         "x16 (64 GB/s).",
         lambda: server_speedup(ops.vector_add(BIG_ADD),
                                ops.pcie_round_trip_bytes(BIG_ADD)),
         unit="x", hint="Three arrays of 2^28 floats cross the link; add the add itself.")

def _passes_for_tenth() -> float:
    """Passes over 1 GB on an H100 (HBM) for the PCIe Gen4 copy to be a tenth of the total:
    the smallest whole number of passes (942.2 passes is not enough, 943 is)."""
    copy = 1e9 / machines.get("A100").bandwidth("pcie")
    one_pass = roofline.memory_time(machines.get("H100"), ops.Op("read 1 GB", 0.0, 1e9))
    return float(math.ceil(9 * copy / one_pass))


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
