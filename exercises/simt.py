"""Numeric exercises of chapter 6, "Warps, SIMT and divergence".

Every answer is computed by perfmodel here; tests/test_exercises_simt.py checks each one
against plain arithmetic from the T4 note's numbers and the numbers the questions give.
"""
from __future__ import annotations

from perfmodel import parallel, simt

from .registry import register

CHAPTER = "simt"

ADD_N, ADD_BLOCK = 1_000_000, 256     # the vector add of the hierarchy section (worked there)
EX_N, EX_BLOCK = 10_000_000, 512      # simt-1: a larger launch, bigger blocks
ODD_BLOCK = 48                        # a block size that is not a multiple of 32
LONG_SHORT = (100, 40)                # instructions on the long and the short path
LONG_SHARE = 0.25                     # share of the elements that take the long path
ONE_IN = 1024                         # simt-5: one busy thread in this many
T4_CHAIN, T4_STEP = 20_000, 3.5e-9    # the T4 note's dependent chain and its step
#: simt-6: a chain of dependent FMAs, the cycles each waits, and the clock (Hz).
FLOOR_CHAIN, FLOOR_CYCLES, FLOOR_CLOCK_HZ = 8192, 4, 1.5e9
RARE_P, RARE_LEN, COMMON_LEN = 0.005, 200, 20   # simt-7/8 (the section works 1%)
RAGGED = [100] * 31 + [1000]          # tokens per sequence, one thread each, one warp
REGS_T4 = 96                          # registers per thread of the occupancy exercise
REGS_H200, BLOCK_H200 = 40, 128       # simt-11: an H200 kernel's registers and block
SMALL_BLOCK_H200 = 64                 # simt-11: the same kernel in smaller blocks
BARRIER_WORK = (100, 300, 8)          # the worked barrier example: short, long, warps a block
BARRIER_EX = (40, 200, 16, 2)         # simt-13: short, long, warps a block, slow warps


def mixed_fractions():
    return [LONG_SHARE, 1 - LONG_SHARE]


#: simt-4: one busy thread in ADJACENT_K, the busy ones side by side (tid < n / k).
ADJACENT_K = 16
#: Threads of the launch simt-4 counts over (a multiple of 32 x ADJACENT_K).
ADJACENT_N = 2 ** 20


def contiguous_busy_warps(k: int, n: int = ADJACENT_N) -> float:
    """Share of the launch's warps that hold a busy lane when the first n / k threads are
    the busy ones (they fill whole warps, so about 1 / k, unlike every k-th thread)."""
    if k < 1 or n < 32 or n % 32:
        raise ValueError(f"k must be >= 1 and n a positive multiple of 32; got {k}, {n}")
    busy = -(-n // k)
    return -(-busy // simt.WARP) / (n // simt.WARP)


register("simt-1", CHAPTER,
         "Warps created by a launch over 10,000,000 elements with 512-thread blocks.",
         lambda: simt.launch_warps(EX_N, EX_BLOCK), unit="warps",
         hint="Round the blocks up first; each 512-thread block is 16 warps.")
register("simt-2", CHAPTER,
         "Share of the issued lanes that hold a thread when blocks have 48 threads, in percent.",
         lambda: 100 * simt.block_lane_use(ODD_BLOCK), unit="%",
         hint="48 threads need two warps of 32 lanes.")
register("simt-3", CHAPTER,
         "A quarter of the elements take a 100-instruction path, the rest a 40-instruction "
         "path; slowdown when every warp holds both kinds, against warps sorted by path.",
         lambda: simt.mixed_over_sorted(mixed_fractions(), LONG_SHORT), unit="x",
         hint="A mixed warp issues both paths; a sorted warp issues one, on average "
              "0.25 x 100 + 0.75 x 40.")
register("simt-4", CHAPTER,
         "One thread in every 16 runs a long loop, but the busy threads are the first "
         "sixteenth of the launch (tid < n/16), not every 16th: predicted time as a percentage "
         "of the time with every thread busy, ignoring the floor of one warp's chain.",
         lambda: 100 * contiguous_busy_warps(ADJACENT_K), unit="%",
         hint="Count the warps that hold a busy lane: the busy threads fill whole warps.")
register("simt-5", CHAPTER,
         "Predicted time with one busy thread in 1,024, as a percentage of the time with every "
         "thread busy, ignoring the floor of one warp's chain.",
         lambda: 100 * simt.one_in_k_time(ONE_IN, 1.0, 0.0), unit="%",
         hint="Count the warps holding a busy lane, not the busy threads.")
register("simt-6", CHAPTER,
         "The least time of a launch in which one thread in 4,096 runs a chain of 8,192 "
         "dependent FP32 multiply-adds, each waiting 4 cycles for the previous result, on a "
         "GPU clocked at 1.5 GHz, in seconds.",
         lambda: simt.dependent_chain_time(FLOOR_CHAIN, FLOOR_CYCLES / FLOOR_CLOCK_HZ),
         unit="s", hint="Each step waits for the previous one's result: steps x cycles / clock.")
register("simt-7", CHAPTER,
         "Each lane independently takes a rare branch with probability 0.5%: the share of "
         "32-lane warps that must run the rare path, in percent.",
         lambda: 100 * simt.rare_path_warps(RARE_P), unit="%",
         hint="A warp avoids the path only if all 32 lanes avoid it: 0.995^32.")
register("simt-8", CHAPTER,
         "The rare path of simt-7 costs 200 instructions and the common one 20: slowdown of "
         "the random branch against the same work sorted by path.",
         lambda: simt.random_branch_slowdown(RARE_P, RARE_LEN, COMMON_LEN), unit="x",
         hint="Random: nearly every warp issues the 20, and 14.8% also the 200. Sorted: "
              "0.005 x 200 + 0.995 x 20 per warp.")
register("simt-9", CHAPTER,
         "One warp loops over 32 sequences, one per thread: 31 of 100 tokens and one of "
         "1,000. Share of its lane slots doing useful work, in percent.",
         lambda: 100 * simt.loop_efficiency(RAGGED), unit="%",
         hint="The warp runs 1,000 iterations; count the useful lane-iterations.")
register("simt-10", CHAPTER,
         "Occupancy of a T4 SM (65,536 registers, at most 1,024 threads) running 256-thread "
         "blocks of a kernel that needs 96 registers per thread, in percent.",
         lambda: 100 * simt.occupancy("T4", REGS_T4, 256), unit="%",
         hint="Only whole blocks fit: how many blocks of 256 x 96 registers?")
register("simt-11", CHAPTER,
         "Occupancy of an H200 SM (65,536 registers, at most 2,048 threads) running 128-thread "
         "blocks of a kernel that needs 40 registers per thread, in percent.",
         lambda: 100 * simt.occupancy("H200", REGS_H200, BLOCK_H200), unit="%",
         hint="Only whole blocks fit: how many blocks of 128 x 40 registers?")
register("simt-13", CHAPTER,
         "A block of 16 warps synchronises every iteration; 14 warps issue 40 instructions "
         "and 2 issue 200 between barriers. Share of the block's warp-time that is work, in "
         "percent.",
         lambda: 100 * parallel.barrier_efficiency(
             [BARRIER_EX[1]] * BARRIER_EX[3] + [BARRIER_EX[0]] * (BARRIER_EX[2] - BARRIER_EX[3])),
         unit="%",
         hint="Every warp waits for the slowest: count the work against 16 x 200 slots.")
