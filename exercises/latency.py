"""Numeric exercises of chapter 7, "Latency and Little's law".

Every answer is computed by perfmodel here; tests/test_exercises_latency.py checks each
one against plain arithmetic from the T4 note's numbers and the recorded H200 run
(rounded as the questions state them).
"""
from __future__ import annotations

import math

from perfmodel import _check, little, machines

from .registry import register

CHAPTER = "latency"

# The T4: datasheet 320 GB/s with ~400 ns (chapter 2 of the GPU book);
# measured 275 GB/s read bandwidth and 314 ns DRAM latency (the T4 lab note).
T4_BW, T4_LAT = 320e9, 400e-9
T4_READ_BW, T4_CHASE = 275e9, 314e-9
# The recorded H200 run (labs/results/H200), rounded as the questions give them.
H200_DRAM_NS = 337e-9           # idle DRAM latency of the pointer chase
H200_CYCLES = {"l1": 43, "l2": 292, "dram": 667}
H200_SATURATION = 4.42e12       # best streaming read of the Little's-law sweep
H200_ONE_SM = 220e9             # one SM's best in the re-run sweep (111 B/clk: near its L1's 128)
H200_LOADED_BW, H200_LOADED_LAT = 3.84e12, 1063e-9   # 32 streaming warps per SM
SMALL_N = 10_000                # FP32 elements of the small kernel (exercise 2.5's note)


ONE_WARP_LOADS = 4              # latency-2: independent 16-byte loads per thread of the lone warp


def a100_bytes_in_flight() -> float:
    """latency-1: bytes an A100 keeps in flight at its datasheet bandwidth if a DRAM load
    took the H200's recorded idle latency (the book has no A100 measurement)."""
    return little.bytes_in_flight(machines.get("A100").bandwidth("dram"), H200_DRAM_NS)


def one_warp_bandwidth(loads: int = ONE_WARP_LOADS) -> float:
    return little.achieved_bandwidth(little.in_flight(1, loads, 16), T4_CHASE, T4_READ_BW)


def t4_warps_float4() -> float:
    return float(little.warps_needed(T4_READ_BW, T4_CHASE, loads_per_thread=1, bytes_per_load=16))


#: latency-4: warps resident on each H200 SM, each thread with one 16-byte load open.
E4_WARPS_PER_SM, E4_LOAD_BYTES = 16, 16


def h200_bandwidth_share_from_warps(warps_per_sm: int = E4_WARPS_PER_SM,
                                    load_bytes: int = E4_LOAD_BYTES) -> float:
    """Share (0..1) of the H200's datasheet DRAM bandwidth that ``warps_per_sm`` warps on
    every SM, each thread keeping one ``load_bytes`` load open, sustain at the measured
    337 ns latency: Little's law solved for throughput (bytes in flight / latency)."""
    warps_per_sm = _check.count("warps_per_sm", warps_per_sm)
    load_bytes = _check.count("load_bytes", load_bytes)
    h200 = machines.get("H200")
    in_flight = h200.sms * warps_per_sm * 32 * load_bytes
    return min(1.0, in_flight / H200_DRAM_NS / h200.bandwidth("dram"))


LAB_L8_REGS, LAB_L8_LOADS = 72, 8   # the lab's pipelined kernel at L = 8: registers, loads


def h200_sm_bytes_at_72_registers() -> float:
    """Bytes one H200 SM keeps in flight with as many warps as 72 registers a thread allow,
    each thread holding eight 16-byte loads."""
    return little.in_flight(little.resident_warps("H200", LAB_L8_REGS), LAB_L8_LOADS, 16)


T4_E6_REGS = 80                 # latency-6: registers per thread of the T4 kernel


def t4_bandwidth_at_e6_registers() -> float:
    """latency-6: the whole T4's bandwidth when 80 registers a thread cap every SM's warps
    (24 with the allocation by quarters; plain division would say 25.6) and each thread keeps
    one 4-byte load open, at the round 400 ns."""
    return little.bandwidth_with_registers("T4", T4_E6_REGS, T4_LAT, loads_per_thread=1,
                                           bytes_per_load=4)


def small_kernel_bandwidth() -> float:
    return little.achieved_bandwidth(SMALL_N * 4, T4_LAT, T4_BW)


DECODE_BLOCKS = 16              # latency-8: a decode kernel's blocks, one per head (chapter 10)


def decode_share_of_saturation() -> float:
    """latency-8: 16 blocks, one SM each, at the 220 GB/s one fully loaded SM reached, as a
    share (%) of the 4.42 TB/s the whole card read: an optimistic estimate, since one decode
    block keeps far fewer bytes in flight than the sweep's full SM did."""
    return 100 * DECODE_BLOCKS * H200_ONE_SM / H200_SATURATION


def h200_loaded_in_flight() -> float:
    return little.bytes_in_flight(H200_LOADED_BW, H200_LOADED_LAT)


#: latency-10: instructions a warp issues per DRAM load (the load and four that use it).
E10_INSTRUCTIONS = 5


def warps_to_hide(latency_cycles: float, instructions_per_load: int) -> int:
    """Warps one scheduler needs to issue every cycle when each warp loops over: issue a
    load, wait ``latency_cycles`` for it, issue the ``instructions_per_load - 1`` that use it
    (one a cycle, nothing else waited for). A warp's round is latency + instructions cycles
    and fills ``instructions_per_load`` of them: the warps needed are the round over that,
    rounded up (chapter 7's scheduler diagram: 1 + 8 + 1 = 10 cycles, 2 issued, 5 warps)."""
    lat = _check.positive("latency_cycles", latency_cycles)
    k = _check.count("instructions_per_load", instructions_per_load)
    return math.ceil(round((lat + k) / k, 9))


def h200_warps_to_hide_dram() -> float:
    """latency-10: warps one H200 scheduler needs to cover the recorded 667-cycle DRAM load
    when each warp issues five instructions per load."""
    return float(warps_to_hide(H200_CYCLES["dram"], E10_INSTRUCTIONS))


register("latency-1", CHAPTER,
         "Bytes an A100 must keep in flight to sustain 2.039 TB/s if a DRAM load took the "
         "H200's measured 337 ns.",
         a100_bytes_in_flight, unit="B",
         hint="Little's law: bytes in flight = bandwidth x latency.")
register("latency-2", CHAPTER,
         "Bandwidth one warp gets on a T4 when each of its 32 threads keeps four independent "
         "16-byte loads open and a load takes 314 ns, in byte/s.",
         one_warp_bandwidth, unit="B/s",
         hint="32 x 4 x 16 bytes in flight, divided by the latency.")
register("latency-3", CHAPTER,
         "Warps a T4 needs to sustain its measured 275 GB/s at 314 ns when each thread keeps "
         "one 16-byte load open (round up).",
         t4_warps_float4, unit="warps",
         hint="Bytes in flight over 32 x 16 bytes per warp.")
register("latency-4", CHAPTER,
         "Share of an H200's 4.8 TB/s, in percent, that 16 warps on each of its 132 SMs "
         "sustain when every thread keeps one 16-byte load open and a load takes 337 ns.",
         lambda: 100 * h200_bandwidth_share_from_warps(), unit="%",
         hint="Bytes in flight over the latency is the bandwidth (Little's law, turned round).")
register("latency-5", CHAPTER,
         "Bytes one H200 SM (65,536 registers, at most 64 warps) keeps in flight when every "
         "thread needs 72 registers and holds eight 16-byte loads, with as many warps as fit.",
         h200_sm_bytes_at_72_registers, unit="B",
         hint="65,536 / (72 x 32) warps fit, rounded down; each warp holds 32 x 8 x 16 bytes.")
register("latency-6", CHAPTER,
         "Bandwidth a T4 (40 SMs, 320 GB/s, 400 ns) can sustain when a kernel needs 80 "
         "registers per thread and each thread keeps one 4-byte load open, in byte/s.",
         t4_bandwidth_at_e6_registers, unit="B/s",
         hint="A warp takes 80 x 32 registers, and each quarter of the 65,536 holds whole "
              "warps: count the warps per SM, then 40 SMs x warps x 32 threads x 4 bytes, "
              "over 400 ns.")
register("latency-7", CHAPTER,
         "Best bandwidth a kernel that reads 10,000 FP32 elements can reach on a T4 (320 GB/s, "
         "400 ns), in byte/s.",
         small_kernel_bandwidth, unit="B/s",
         hint="All 40 KB can be on order at once, but never more.")
register("latency-8", CHAPTER,
         "A kernel runs 16 blocks on an H200, one per SM, each pulling the 220 GB/s one SM "
         "reached in the recorded one-SM sweep. Share of the 4.42 TB/s the whole card read "
         "that they deliver, in percent.",
         decode_share_of_saturation, unit="%",
         hint="16 x 220 GB/s against 4.42 TB/s.")
register("latency-9", CHAPTER,
         "Bytes Little's law puts in flight on the recorded H200 when the GPU streams at "
         "3.84 TB/s and a load takes 1,063 ns.",
         h200_loaded_in_flight, unit="B",
         hint="Little's law with the loaded latency, not the idle one.")
register("latency-10", CHAPTER,
         "Warps one H200 warp scheduler needs to issue every cycle when a DRAM load takes 667 "
         "cycles and each warp issues a load, waits for it, then issues four instructions "
         "that use it, and loops (round up).",
         h200_warps_to_hide_dram, unit="warps",
         hint="A warp's round is 667 + 5 cycles and it issues in 5 of them.")
