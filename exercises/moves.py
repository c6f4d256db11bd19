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
MOVES4_IDLE_W = 15.0              # moves-4's idle floor (the chapter's table assumes 10 W)
BURST_N = 2048                    # the T4 note's short FP16 product
BURST_FLOPS = 41e12               # its rate at the start of a burst after streaming
BURST_WINDOW_S = 50e-3            # the T4 note: the clock is down to its sustained level by then
BURST_SETTLED_FLOPS = 18e12       # the T4 note: the rate those products settled to
BENCH_EXCESS = 0.05               # moves-6: the overstatement a benchmark may allow
TRAINING_FLOPS = 1e21             # exercise 11's training job, all BF16 matrix products
GEMV_D = 8192                     # a batch-1 linear layer, d x d weights, on a B200
TILE = (256, 128)                 # the lecture notes' tile shape
SMALL_TILE = (128, 128)           # moves-9's smaller tile
B200_HELD_CLOCK_HZ = 1650e6       # moves-1: a clock a B200 might hold at its power limit
#: Dense FP16 FMAs an SM's tensor cores finish a clock on Hopper (H100 whitepaper: 1,024 on
#: the A100, twice that on Hopper), 4,096 FLOPs: 132 SMs x 4,096 x 1.83 GHz is the 989 TFLOP/s
#: of the datasheet.
HOPPER_TENSOR_FMAS_PER_SM_CLOCK = 2048
#: moves-2: the recorded H200 clocks lab (labs/results/H200/clocks.json), the burst after the
#: streaming prelude: the median (FLOP/s, SM clock Hz) of its 8192^3 FP16 products on the
#: step between 1.5 and 1.6 GHz where the clock paused on its way down.
H200_STREAM_STEP = (692.765e12, 1529.35e6)
#: moves-8: the index a 2:4-sparse matrix stores for each kept value, in bits.
SPARSE_INDEX_BITS = 2


def b200_peak_from_parts(clock_hz: float = B200_HELD_CLOCK_HZ) -> float:
    """moves-1: the B200's FP32 peak from its floor plan at a clock (148 SMs x 128 lanes x 2
    x the clock; the split of the datasheet's 75 TFLOP/s at 1.98 GHz the model assumes)."""
    b200 = machines.get("B200")
    return clocks.peak(b200.sms, b200.fp32_lanes_per_sm, clock_hz)


def h200_tensor_peak_at_clock(clock_hz: float) -> float:
    """The H200's dense FP16 tensor peak (FLOP/s) at an SM clock (Hz): 132 SMs x 2,048 FMAs
    x 2 FLOPs x the clock."""
    return clocks.peak(machines.get("H200").sms, HOPPER_TENSOR_FMAS_PER_SM_CLOCK, clock_hz)


def h200_stream_step_share() -> float:
    """moves-2: the burst's rate on its step after streaming over the tensor peak at the
    clock of that step."""
    flops, clock = H200_STREAM_STEP
    return flops / h200_tensor_peak_at_clock(clock)


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


def t4_fma_power_for_full_clock(idle_w: float = MOVES4_IDLE_W) -> float:
    """moves-4: the power limit (W) at which the T4's FMA loop would hold its top clock, with
    k fixed by its measured hold over an idle floor of ``idle_w`` watts."""
    flops, clock, watts = T4_FMA_HOLD
    k = clocks.watts_per_hz(watts, clock, idle_w)
    return clocks.power_at_clock(k, clocks.T4_MAX_CLOCK_HZ, idle_w)


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


def benchmark_seconds(excess: float = BENCH_EXCESS, burst_flops: float = BURST_FLOPS,
                      sustained_flops: float = BURST_SETTLED_FLOPS,
                      window_s: float = BURST_WINDOW_S) -> float:
    """Seconds a benchmark must run so that its average rate overstates the sustained rate by
    at most ``excess`` (a fraction), when the first ``window_s`` seconds run at the burst rate
    (an upper bound: the clock falls during the window) and the rest at the sustained rate:
    (B w + S (D - w)) / D <= (1 + e) S  gives  D >= w (B - S) / (e S)."""
    e = _check.positive("excess", excess)
    b, s = _check.positive("burst_flops", burst_flops), _check.positive("sustained_flops",
                                                                          sustained_flops)
    if b < s:
        raise ValueError(f"burst_flops must be >= sustained_flops; got {b!r} < {s!r}")
    return max(_check.positive("window_s", window_s), window_s * (b - s) / (e * s))


def b200_gemv_nvfp4_time() -> float:
    b200 = machines.get("B200")
    return GEMV_D * GEMV_D * ops.dtype_bytes("nvfp4") / b200.bandwidth("dram")


def sparse_fp8_bytes_per_weight() -> float:
    """Bytes a 2:4-pruned FP8 weight matrix stores per weight of the dense matrix: half the
    values, one byte each, and a SPARSE_INDEX_BITS index for each kept value."""
    return 0.5 * (ops.dtype_bytes("fp8") + SPARSE_INDEX_BITS / 8)


def b200_sparse_fp8_batch_at_ridge() -> float:
    """Batch at which an FP8 linear layer pruned 2:4 reaches the B200's sparse FP8 ridge,
    counting only its weights with their index: the same 2 b d^2 FLOPs the dense layer
    counts over d^2 s' bytes (s' from sparse_fp8_bytes_per_weight), so 2b/s' FLOP/byte,
    against a ridge twice the dense one (sparse tensor cores run at twice the dense rate)."""
    sparse_ridge = 2 * machines.get("B200").ridge("fp8_tensor")
    return sparse_ridge * sparse_fp8_bytes_per_weight() / 2


def h200_training_hours_at_datasheet() -> float:
    return TRAINING_FLOPS / machines.get("H200").peak_flops("bf16_tensor") / 3600


def a100_busy_share(n: int, tile: tuple[int, int] = SMALL_TILE) -> float:
    """Share of an A100's SM slots busy over all the waves of an n x n output (one tile per
    SM at a time)."""
    return waves.utilization(waves.tiles(n, n, *tile), machines.get("A100").sms)


def h200_2049_attainable() -> float:
    return waves.attainable_fraction(2049, 2049, *TILE, machines.get("H200").sms)


register("moves-1", CHAPTER,
         "Peak FP32 rate of a B200 from its floor plan: 148 SMs x 128 FP32 lanes, one FMA per "
         "lane per cycle, at a held clock of 1,650 MHz, in FLOP/s.",
         b200_peak_from_parts, unit="FLOP/s",
         hint="SMs x lanes x 2 FLOPs x clock.")
register("moves-2", CHAPTER,
         "In the recorded H200 clocks lab, the share of the tensor cores' FP16 peak at the "
         "clock of the burst's step after streaming that its products reached, in percent "
         "(132 SMs x 4,096 dense FP16 FLOPs a clock).",
         lambda: 100 * h200_stream_step_share(), unit="%",
         hint="The peak at the step's clock is 132 x 4,096 x that clock; divide the rate by it.")
register("moves-3", CHAPTER,
         "The clock an A100 held, in Hz, when a library sustained 220 TFLOP/s of FP16 and a "
         "profiler put that at 95% of the tensor cores' peak at that clock (312 TFLOP/s at "
         "1,410 MHz, datasheet).",
         a100_held_clock_from_rate, unit="Hz",
         hint="The peak at the held clock is 220 / 0.95 TFLOP/s; peaks scale with the clock.")
register("moves-4", CHAPTER,
         "With board power = 15 W + k x clock, and the FMA kernel's 67 W at 1,365 MHz fixing k, "
         "the power limit (W) that would let it hold the full 1,590 MHz.",
         t4_fma_power_for_full_clock, unit="W",
         hint="k = (67 - 15) W / 1365 MHz; then 15 W + k x 1590 MHz.")
register("moves-5", CHAPTER,
         "In the recorded H200 clocks lab, the energy per FLOP of the FMA loop on the FP32 "
         "lanes over that of the FP16 tensor cores, each at the board power and rate the "
         "recorded run held.",
         h200_lane_over_tensor_energy, unit="x",
         hint="Energy per FLOP is watts over FLOP/s; divide the lanes' by the tensor cores'.")
register("moves-6", CHAPTER,
         "How long a T4 benchmark of back-to-back FP16 products must run, after light work, so "
         "that its average rate overstates the sustained 18 TFLOP/s by at most 5%, if the first "
         "50 ms run at the burst rate of 41 TFLOP/s; in seconds.",
         benchmark_seconds, unit="s",
         hint="Average = (41 x 0.05 + 18 x (D - 0.05)) / D; set it to 1.05 x 18 and solve for D.")
register("moves-7", CHAPTER,
         "Time for a B200 (8 TB/s) to read the 8192 x 8192 weights of a linear layer stored in "
         "NVFP4 (4-bit values plus one 8-bit scale per 16), in seconds.",
         b200_gemv_nvfp4_time, unit="s",
         hint="0.5 + 1/16 bytes per weight; give seconds (1 µs is 1e-6 s).")
register("moves-8", CHAPTER,
         "Batch size at which an FP8 linear layer pruned 2:4 reaches a B200's sparse FP8 ridge "
         "(9,000 TFLOP/s sparse, 8 TB/s), counting the stored weight bytes and their 2-bit "
         "index per kept value.",
         b200_sparse_fp8_batch_at_ridge, unit="rows",
         hint="Half the weights are stored, each with 2 bits of index: 0.5 x (1 + 1/4) bytes "
              "a weight; the sparse peak is twice the dense 4,500.")
register("moves-9", CHAPTER,
         "Share of SM slots busy over all waves for a 1793 x 1793 output in 128 x 128 tiles on "
         "an A100's 108 SMs (one tile per SM at a time), in percent.",
         lambda: 100 * a100_busy_share(1793), unit="%",
         hint="Tiles = ceil(1793/128)^2; waves = ceil(tiles/108); busy = tiles/(waves x 108).")
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
