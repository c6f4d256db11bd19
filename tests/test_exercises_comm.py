"""Chapter 11's numeric answers against plain arithmetic from the datasheets' link rates
(per direction: half the bidirectional figure), NCCL-tests' bus-bandwidth factors and the
alpha-beta model with alpha = 5 us (nothing here calls perfmodel: each value is worked by
hand)."""
from exercise_checks import chapter_checks

A = 5e-6                      # alpha, seconds a step
MIB, GIB = 2 ** 20, 2 ** 30
H200_BF16 = 989e12            # H200 datasheet, dense BF16 FLOP/s
B200_BF16 = 2.25e15           # HGX B200 datasheet, dense BF16 FLOP/s per GPU

EXPECTED = {
    # NVLink 3: 600 GB/s total -> 300 GB/s each way. 14 steps; 14/8 x 2 GiB / 300 GB/s.
    "comm-1": 14 * A + 1.75 * 2 * GIB / 300e9,
    # algbw = 536,870,912 B / 3.2 ms = 167.77 GB/s; x 15/16 = 157.29 GB/s.
    "comm-2": 536_870_912 / 3.2e-3 * 15 / 16,
    # Inside each server (n = 8, NVLink 4 at 450 GB/s each way), reduce-scatter then
    # all-gather of 1 GiB: 7 steps and 7/8 of the buffer each, 2 x (35 us + 2.0879 ms);
    # across the eight servers, a ring all-reduce of each GPU's eighth (128 MiB) over its
    # 50 GB/s port: 14 steps + 1.75 x 134,217,728 B / 50e9 = 4.7676 ms. Total 9.013 ms.
    "comm-3": 2 * (7 * A + 7 / 8 * GIB / 450e9) + 14 * A + 1.75 * (GIB / 8) / 50e9,
    # 2.25e15 x 7 x 2 / (2 x 8 x 900e9) = 3.15e16 / 1.44e13 = 2187.5.
    "comm-4": 2.25e15 * 7 * 2 / (2 * 8 * 900e9),
    # d = 6: 12 (a + S/b) = 126 a + (126/64) S/b  ->  S = 114 a b / (12 - 1.96875).
    "comm-5": 114 * 5e-6 * 50e9 / (12 - 126 / 64),
    # backward 4 x 1.3e9 x 2048 / 989e12 = 10.8 ms; all-reduce 6 x 5 us + 1.5 x 2.6e9 B / 64e9
    # = 60.97 ms: the all-reduce is the step.
    "comm-6": max(4 * 1.3e9 * 2048 / H200_BF16, 6 * A + 1.5 * 2.6e9 / 64e9),
    # T* = 2.25e15 x 7 x 2 / (2 x 8 x 64e9) = 30,762 tokens; / 4,096 = 7.51 -> 8.
    "comm-7": 8,
    # 6 steps; 1.5 x 268,435,456 B / 450e9.
    "comm-8": 6 * A + 1.5 * 268_435_456 / 450e9,
    # Each way the link moved 17,179,869,184 B in 62.0 ms = 277.10 GB/s, / 450 GB/s = 61.58%
    # (NCCL-tests would print a bus bandwidth of 277.10 x 1.75 = 484.9 GB/s).
    "comm-9": 100 * 17_179_869_184 / 62.0e-3 / 450e9,
    # 4 T / (2 x 7/8 x 4) = 4 x 6144 / 7.
    "comm-10": 4 * 6144 / 7,
}

ROUNDED = [  # answers rounded as a reader would give them: right
    ("comm-1", 12.6e-3),
    ("comm-2", 157e9),
    ("comm-3", 9.0e-3),
    ("comm-4", 2190),
    ("comm-7", 8),
    ("comm-8", 0.92e-3),
    ("comm-9", 61.6),
]
OFF = [  # wrong answers: not yet
    ("comm-2", 314.6e9),        # the all-reduce factor 2(n-1)/n
    ("comm-8", 0.477e-3),       # the bidirectional 900 GB/s
    ("comm-6", 71.8e-3),        # the sum: no overlap
    ("comm-3", 42.9e-3),        # one flat ring of 64 over InfiniBand
    ("comm-7", 7),              # T* / 4096 rounded down: the all-reduce still shows
    ("comm-9", 107.8),          # the bus bandwidth over the link: a ring's traffic
]

(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks("comm", EXPECTED, rounded=ROUNDED, off=OFF)
