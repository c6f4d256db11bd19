"""Numeric exercises of the chapter "The mathematics of parallelism"
(chapters/02_parallelism.md).

Every answer is computed by perfmodel when asked for; the ids match the exercise labels
in the chapter. tests/test_exercises_parallelism.py checks each answer against plain
arithmetic from the numbers of the parallelism chapter the book follows and the
T4 note.
"""
from __future__ import annotations

import math

from perfmodel import _check, machines, parallel, simt

from .registry import register

CH = "parallelism"
#: The notes' launch example: 10 us of host overhead, a 100 us kernel.
HOST_S, KERNEL_S = 10e-6, 100e-6
#: Exercise 2's dependent-FMA latency on an H200, in clock cycles, and its kernel: warps
#: resident on each SM, and independent FMA chains in each thread.
FMA_CYCLES, WARPS_PER_SM, FMA_CHAINS = 4, 5, 2
#: Exercise 3's sort: seconds on 16 cores, and for the best serial program on one.
SORT_P, SORT_PARALLEL_S, SORT_SERIAL_S = 16, 2.0, 12.0
#: Exercise 10's pipeline: load, compute and store seconds per tile, and the tile count.
STAGES, TILES = (5e-6, 1e-6, 2e-6), 500


#: Exercise 1's offload: the share of the time moved to the GPU, and how much faster it runs.
OFFLOAD_SHARE, OFFLOAD_GAIN = 0.8, 20.0
#: Exercise 15's tree sum: elements and lanes (powers of two).
SUM_N, SUM_LANES = 2 ** 26, 2 ** 14


def offload_speedup(share: float, gain: float) -> float:
    """Amdahl's law in its offload form: the overall speed-up when a fraction ``share``
    (0..1) of the time runs ``gain`` times faster and the rest is unchanged."""
    share = _check.fraction("share", share)
    gain = _check.positive("gain", gain)
    return 1 / ((1 - share) + share / gain)


def toll_serial_fraction(toll: float, kernel: float, overlapped: bool) -> float:
    """The share of a kernel's time (seconds in, a fraction 0..1 out) that its launch toll
    makes serial. Launched and waited for (``overlapped`` false): toll / (toll + kernel).
    Queued or replayed from a graph, in a long stream of kernels, the CPU issues the next
    launch while the GPU runs this kernel, so each kernel costs max(toll, kernel) and only
    the part of the launch the kernel does not cover, max(0, toll - kernel), is serial."""
    toll = _check.non_negative("toll", toll)
    kernel = _check.positive("kernel", kernel)
    if not overlapped:
        return parallel.serial_fraction(toll, kernel)
    return max(0.0, toll - kernel) / max(toll, kernel)


def brent_steps(n: int, lanes: int) -> float:
    """Brent's upper bound W/p + D, in steps, for a tree sum of ``n`` numbers on ``lanes``
    lanes: work n - 1 additions, span ceil(log2 n) levels."""
    n, lanes = _check.count("n", n), _check.count("lanes", lanes)
    return (n - 1) / lanes + math.ceil(math.log2(n))


register("parallelism-1", CH,
         "Overall speed-up when 80% of a pipeline's time moves to a GPU that runs it 20x faster.",
         lambda: offload_speedup(OFFLOAD_SHARE, OFFLOAD_GAIN), unit="x",
         hint="S = 1 / ((1 - q) + q / k).")

register("parallelism-15", CH,
         "Brent's upper bound, in steps, for a tree sum of 2^26 floats on 2^14 lanes.",
         lambda: brent_steps(SUM_N, SUM_LANES), unit="steps", rel_tol=0.005,
         hint="W / p + D with W = n - 1 additions and D = log2 n levels.")


def fma_peak_share(warps_per_sm: int = WARPS_PER_SM, chains: int = FMA_CHAINS,
                   machine: str = "H200") -> float:
    """Share (0..1) of the FP32 peak a kernel reaches when each SM holds ``warps_per_sm``
    warps whose threads each run ``chains`` independent chains of dependent FMAs, one FMA
    taking FMA_CYCLES clock cycles: Little's law solved for throughput (FMAs finished per
    cycle = FMAs in flight / cycles each), capped at one FMA per lane per cycle."""
    warps_per_sm = _check.count("warps_per_sm", warps_per_sm)
    chains = _check.count("chains", chains)
    lanes = machines.get(machine).fp32_lanes_per_sm
    in_flight = warps_per_sm * simt.WARP * chains
    return min(1.0, in_flight / FMA_CYCLES / lanes)


def time_after(host_s: float, kernel_s: float, gpus: int) -> float:
    """Seconds for serial host work plus a kernel that scales perfectly over ``gpus``."""
    host_s = _check.non_negative("host_s", host_s)
    kernel_s = _check.non_negative("kernel_s", kernel_s)
    gpus = _check.count("gpus", gpus)
    f = parallel.serial_fraction(host_s, kernel_s)
    return (host_s + kernel_s) / parallel.amdahl(f, gpus)


register("parallelism-2", CH,
         "Share of an H200's FP32 peak reached by a kernel with 5 warps on each SM (128 FP32 "
         "lanes), each thread running 2 independent FMA chains, one FMA taking 4 cycles.",
         fma_peak_share, unit="fraction", rel_tol=0.02,
         hint="FMAs in flight per SM over 4 cycles is the FMAs finished per cycle; the SM's "
              "lanes finish at most 128.")

register("parallelism-3", CH,
         "Honest efficiency of a sort taking 2 s on 16 cores when the best serial sort takes 12 s.",
         lambda: parallel.efficiency(SORT_SERIAL_S / SORT_PARALLEL_S, SORT_P), unit="fraction",
         hint="T1 is the best serial program's time, not the parallel program's on one core.")

register("parallelism-5", CH, "Efficiency of a 24x speed-up on 32 cores.",
         lambda: parallel.efficiency(24, 32), unit="fraction", hint="E = S / p.")

register("parallelism-6", CH,
         "Speed-up over the 110 us one-GPU program of the better change on 16 GPUs: host "
         "overhead cut from 10 us to 5 us, or 32 GPUs instead of 16.",
         lambda: (HOST_S + KERNEL_S) / min(time_after(HOST_S / 2, KERNEL_S, 16),
                                           time_after(HOST_S, KERNEL_S, 32)),
         unit="x", hint="Time each option: serial part + 100 us / p.")

register("parallelism-7", CH, "Gustafson's scaled speed-up with s = 0.02 on 4,096 units.",
         lambda: parallel.gustafson(0.02, 4096), unit="x", hint="S = s + (1 - s) p.")

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
         "Speed-up of a 3-stage pipeline (5, 1, 2 us per chunk, 500 chunks) over no overlap.",
         lambda: TILES * sum(STAGES) / parallel.pipeline_time(TILES, STAGES), unit="x",
         hint="Overlapped: sum of stages + (n - 1) x slowest stage.")

register("parallelism-11", CH,
         "Useful fraction between barriers once the 10-unit item is split in four: the heavy "
         "thread keeps 2.5 units, three light threads add 2.5 to their own 1, 28 do 1.",
         lambda: parallel.barrier_efficiency([2.5] + [3.5] * 3 + [1] * 28), unit="fraction",
         hint="The work is still 41 units; everyone waits for the slowest (3.5 units).")

register("parallelism-12", CH,
         "Largest serial fraction that keeps 80% efficiency on 64 units (strong scaling).",
         lambda: parallel.karp_flatt(0.8 * 64, 64), unit="fraction", rel_tol=0.03,
         hint="E = 0.8 means S = 51.2; solve Amdahl for f.")

register("parallelism-13", CH,
         "Fraction of lane-cycles doing useful work when groups of 4 lanes of a warp take 8 "
         "equally long paths.",
         lambda: 1 / simt.divergence_passes(8, "within"), unit="fraction",
         hint="The warp walks every path with only that path's lanes active.")
