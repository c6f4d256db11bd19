"""Numeric exercises of chapter 9, "Why the roof moves".

Every answer is computed by perfmodel here; tests/test_exercises_moves.py checks each one
against plain arithmetic from the T4 note's numbers and the datasheets.
"""
from __future__ import annotations

from perfmodel import _check, clocks, machines, ops, waves

from .registry import register

CHAPTER = "moves"

T4_FP32_HOLD = clocks.T4_MEASURED["matmul_fp32"]          # (FLOP/s, Hz, W): cuBLAS FP32
T4_TENSOR_HOLD = clocks.T4_MEASURED["matmul_fp16_tensor"]  # the tensor cores held for seconds
T4_FMA_HOLD = clocks.T4_MEASURED["fma_fp32"]               # the FMA kernel held for seconds
BURST_N = 2048                    # the T4 note's short FP16 product
BURST_FLOPS = 41e12               # its rate at the start of a burst after streaming
BURST_WINDOW_S = 50e-3            # the T4 note: the clock is down to its sustained level by then
TRAINING_FLOPS = 1e21             # exercise 11's training job, all BF16 matrix products
GEMV_D = 8192                     # a batch-1 linear layer, d x d weights, on a B200
TILE = (256, 128)                 # the lecture notes' tile shape


def a100_peak_from_parts() -> float:
    """moves-1: the A100's FP32 peak from its floor plan (108 SMs x 64 lanes x 2 x 1.41 GHz)."""
    a100 = machines.get("A100")
    return clocks.peak(a100.sms, a100.fp32_lanes_per_sm, a100.clock_hz)


def t4_cublas_fraction_at_clock() -> float:
    """cuBLAS's sustained FP32 rate over the lanes' peak at the clock it held
    (40 x 64 x 2 x 705 MHz, as the T4 note works it)."""
    t4 = machines.get("T4")
    flops, clock, _ = T4_FP32_HOLD
    return flops / clocks.peak(t4.sms, t4.fp32_lanes_per_sm, clock)


#: moves-3: a library's sustained FP16 rate on an A100, and the share of the tensor cores'
#: peak at whatever clock the card held that a profiler reports for it.
A100_SUSTAINED_FLOPS, A100_SHARE_AT_CLOCK = 220e12, 0.95


def a100_held_clock_from_rate(sustained: float = A100_SUSTAINED_FLOPS,
                              share: float = A100_SHARE_AT_CLOCK) -> float:
    """The clock (Hz) an A100 held, inferred from a sustained FP16 tensor rate (FLOP/s) and
    the share of the peak at that clock it reached: the peak scales with the clock."""
    a100 = machines.get("A100")
    rate = _check.positive("sustained", sustained)
    share = _check.fraction("share", share)
    if share == 0:
        raise ValueError("share must be in (0, 1]: no clock reaches none of its peak")
    return rate / share / a100.peak_flops("fp16_tensor") * a100.clock_hz


def t4_fma_power_for_full_clock() -> float:
    flops, clock, watts = T4_FMA_HOLD
    return clocks.power_at_clock(clocks.watts_per_hz(watts, clock), clocks.T4_MAX_CLOCK_HZ)


#: moves-5: the recorded H200 clocks lab (labs/results/H200/clocks.json), as (FLOP/s, W):
#: the FP16 tensor cores' hold and the FMA loop's on the FP32 lanes.
H200_TENSOR_HOLD = (643.567e12, 688.642)
H200_FMA_HOLD = (64.298e12, 298.427)


def joules_per_flop(flops: float, watts: float) -> float:
    """Energy of one FLOP (J) at a held rate (FLOP/s) and board power (W)."""
    return _check.positive("watts", watts) / _check.positive("flops", flops)


def h200_lane_over_tensor_energy() -> float:
    """How many times more energy the H200's FP32 lanes spend per FLOP than its FP16 tensor
    cores, in the recorded clocks lab (board power over rate, idle power included)."""
    return joules_per_flop(*H200_FMA_HOLD) / joules_per_flop(*H200_TENSOR_HOLD)


def burst_products_in_window() -> float:
    return BURST_WINDOW_S / (ops.matmul(BURST_N).flops / BURST_FLOPS)


def b200_gemv_nvfp4_time() -> float:
    b200 = machines.get("B200")
    return GEMV_D * GEMV_D * ops.dtype_bytes("nvfp4") / b200.bandwidth("dram")


def b200_sparse_fp8_batch_at_ridge() -> float:
    """Batch at which an FP8 linear layer pruned 2:4 reaches the B200's sparse FP8 ridge,
    counting only its weights: half the weights stored (d^2 s / 2 bytes, metadata left
    out) for the same 2 b d^2 FLOPs the dense layer counts, so 4b/s FLOP/byte, against a
    ridge twice the dense one (sparse tensor cores run at twice the dense rate)."""
    dense_ridge = machines.get("B200").ridge("fp8_tensor")
    return 2 * dense_ridge * ops.dtype_bytes("fp8") / 4


def h200_training_hours_at_datasheet() -> float:
    return TRAINING_FLOPS / machines.get("H200").peak_flops("bf16_tensor") / 3600


def a100_1793_busy_share() -> float:
    t = waves.tiles(1793, 1793, *TILE)
    return waves.utilization(t, machines.get("A100").sms)


def h200_2049_attainable() -> float:
    return waves.attainable_fraction(2049, 2049, *TILE, machines.get("H200").sms)


register("moves-1", CHAPTER,
         "Peak FP32 rate of an A100 from its floor plan: 108 SMs x 64 FP32 lanes, one FMA per "
         "lane per cycle, at its 1,410 MHz boost clock, in FLOP/s.",
         a100_peak_from_parts, unit="FLOP/s",
         hint="SMs x lanes x 2 FLOPs x clock.")
register("moves-2", CHAPTER,
         "Share of the T4's FP32 peak at the clock it actually ran at (705 MHz) that cuBLAS "
         "sustained (3.5 TFLOP/s), in percent; 40 SMs x 64 lanes x 2 FLOPs per FMA.",
         lambda: 100 * t4_cublas_fraction_at_clock(), unit="%",
         hint="The peak at 705 MHz is 40 x 64 x 2 x 705 MHz; divide 3.5 TFLOP/s by it.")
register("moves-3", CHAPTER,
         "The clock an A100 held (in Hz) when a library sustained 220 TFLOP/s of FP16 and a "
         "profiler put that at 95% of the tensor cores' peak at that clock (312 TFLOP/s at "
         "1,410 MHz, datasheet).",
         a100_held_clock_from_rate, unit="Hz",
         hint="The peak at the held clock is 220 / 0.95 TFLOP/s; peaks scale with the clock.")
register("moves-4", CHAPTER,
         "With board power = 10 W + k x clock, and the FMA kernel's 67 W at 1,365 MHz fixing k, "
         "the power limit (W) that would let it hold the full 1,590 MHz.",
         t4_fma_power_for_full_clock, unit="W",
         hint="k = (67 - 10) W / 1365 MHz; then 10 W + k x 1590 MHz.")
register("moves-5", CHAPTER,
         "In the recorded H200 clocks lab, the energy per FLOP of the FMA loop on the FP32 "
         "lanes (62.7 TFLOP/s at 289 W) over that of the FP16 tensor cores (637 TFLOP/s at "
         "691 W).",
         h200_lane_over_tensor_energy, unit="x",
         hint="Energy per FLOP is watts over FLOP/s; divide the lanes' by the tensor cores'.")
register("moves-6", CHAPTER,
         "How many 2048^3 FP16 products fit in the T4's 50 ms burst window if each ran at the "
         "burst rate of 41 TFLOP/s throughout.",
         burst_products_in_window, unit="products",
         hint="One product is 2 x 2048^3 FLOPs.")
register("moves-7", CHAPTER,
         "Time for a B200 (8 TB/s) to read the 8192 x 8192 weights of a linear layer stored in "
         "NVFP4 (4-bit values plus one 8-bit scale per 16), in seconds.",
         b200_gemv_nvfp4_time, unit="s",
         hint="0.5 + 1/16 bytes per weight.")
register("moves-8", CHAPTER,
         "Batch size at which an FP8 linear layer pruned 2:4 reaches a B200's sparse FP8 ridge "
         "(9,000 TFLOP/s sparse, 8 TB/s), counting only the stored weight bytes.",
         b200_sparse_fp8_batch_at_ridge, unit="rows",
         hint="Half the weights are stored, and the sparse peak is twice the dense 4,500.")
register("moves-9", CHAPTER,
         "Share of SM slots busy over all waves for a 1793 x 1793 output in 256 x 128 tiles on "
         "an A100's 108 SMs (one tile per SM at a time), in percent.",
         lambda: 100 * a100_1793_busy_share(), unit="%",
         hint="120 tiles in 2 waves of 108 slots.")
register("moves-10", CHAPTER,
         "The simple tile model's share of the compute roof for a 2049 x 2049 output in "
         "256 x 128 tiles on an H200's 132 SMs, in percent.",
         lambda: 100 * h200_2049_attainable(), unit="%",
         hint="Useful share of the tiled area times the share of slots busy.")
register("moves-11", CHAPTER,
         "Hours for 10^21 FLOPs of BF16 matrix multiplication on one H200 at its BF16 datasheet "
         "peak of 989 TFLOP/s.",
         h200_training_hours_at_datasheet, unit="hours",
         hint="Seconds = FLOPs / (FLOP/s); divide by 3600.")
