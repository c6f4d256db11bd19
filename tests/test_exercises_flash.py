"""Chapter 10's numeric answers against plain arithmetic from the source documents' numbers
(nothing here calls perfmodel: each expected value is worked by hand)."""
from exercise_checks import chapter_checks

H200_BW, H200_FP16 = 4.8e12, 989e12     # H200 datasheet: DRAM byte/s, dense FP16 FLOP/s
H, D = 16, 64                           # the attention lab's heads and head dimension

EXPECTED = {
    # weights 4 : 1 : 3 over 8; output (4*2 + 1*6 + 3*1) / 8 = 17/8.
    # (Tile A: l = 1.25, u = 3.5; tile B: l = 1, u = 1; alpha = 1, beta = 3/4; 4.25 / 2.)
    "flash-1": 17 / 8,
    # beta = exp(ln 3 - ln 4) = 3/4.
    # maxima 1, 3, 2: e^(1-3) at the second merge, e^0 at the third
    "flash-2": 2.718281828459045 ** -2,
    # 16 heads x (2 x 16384^2 x 2 bytes + 16384 x 64 x 2 bytes).
    "flash-3": 32 * (2 * 32768 ** 2 * 2 + 32768 * 128 * 2),
    # 32 heads x (32768 x 128 x 2 bytes + 4 bytes x 32768 rows).
    "flash-4": 32 * (32768 * 128 * 2 + 4 * 32768),
    # memory-bound: 16 x (4 x 8192 x 64 + 5 x 8192^2) x 2 bytes at 4.8 TB/s
    # (the FLOP time, 16 x 4 x 8192^2 x 64 / 989e12 = 0.28 ms, is smaller).
    "flash-5": 16 * (4 * 8192 * 64 + 5 * 8192 ** 2) * 2 / H200_BW,
    # compute-bound: 16 x 4 x 8192^2 x 64 FLOPs at 989 TFLOP/s
    # (the bytes, 16 x 4 x 8192 x 64 x 2 = 67 MB, take 14 us).
    "flash-6": 16 * 4 * 8192 ** 2 * 64 / H200_FP16,
    # B200: S / 2 = 2.25e15 / 8e12  ->  S = 2 x 281.25 = 562.5.
    "flash-7": 2 * 2.25e15 / 8e12,
    # Per score: storing writes and reads 2 + 2 bytes at 4.8 TB/s; recomputing is 2d = 256
    # tensor FLOPs at 989 TFLOP/s, then one exponential on the SFUs: 132 SMs x 16 a clock at
    # the 1.83 GHz the tensor peak is quoted at (H100 whitepaper), one after the other.
    "flash-8": (4 / 4.8e12) / (256 / 989e12 + 1 / (132 * 16 * 1.83e9)),
    # (8192 + 8192) x 2 + (8192 + 8192 + 256) x 4 = 32768 + 66560 = 99328 bytes = 97 KiB.
    "flash-9": ((128 * 64 + 2 * 64 * 64) * 2 + (128 * 64 + 128 * 64 + 2 * 128) * 4) / 1024,
    # 4 S^2 d / ((2 S d + 128 x 2 S d) x 2) with S / 128 = 128 blocks
    # = 4 S^2 d / (2 S d x 129 x 2) = 4 S / (2 x 2 x 129) = 65536 / 516 = 127.0.
    # 4 S^2 d / ((2 S d + (S / 64) 2 S d) x 2) = S / (1 + S / 64), whatever d.
    "flash-10": 16384 / (1 + 16384 / 64),
    # 32 x 31 / 2 = 496 of 32 x 32 = 1024 pairs.
    "flash-11": 496 / 1024,
    # 32 heads x 2 (K and V) x 32,768 x 128 x 2 bytes = 536,870,912 B, at 4.8 TB/s.
    "flash-13": 32 * 2 * 32768 * 128 * 2 / H200_BW,
    # M = 163 x 1024 / 2 = 83,456 elements; 83,456 / 512 = 163 exactly.
    "flash-14": 163,
    # Per score at d = 64: a product costs 2d = 128 FLOPs at 989 TFLOP/s (0.129 ps), an
    # exponential 1 / (132 x 16 x 1.83 GHz) (0.259 ps). Backward: 5 products + 1 exponential;
    # forward: 2 products + 1 exponential. (5 x 0.1294 + 0.2587) / (2 x 0.1294 + 0.2587) = 1.75.
    "flash-15": (5 * 128 / H200_FP16 + 1 / (132 * 16 * 1.83e9))
                / (2 * 128 / H200_FP16 + 1 / (132 * 16 * 1.83e9)),
}


ROUNDED = [  # answers rounded as a reader would give them: right
    ("flash-1", 2.125),
    ("flash-2", 0.135),
    ("flash-3", 137.7e9),
    ("flash-5", 2.25e-3),
    ("flash-7", 562),
    ("flash-9", 97),
    ("flash-11", 0.48),
    ("flash-13", 112e-6),
    ("flash-8", 1.6),
    ("flash-15", 1.75),
]
OFF = [  # wrong answers: not yet
    ("flash-2", 0.368),       # e^(2-3): the third tile's own factor
    ("flash-7", 412),         # the H200's crossing
    ("flash-13", 56e-6),      # K or V only
    ("flash-8", 3.2),         # the exponentials left out (or hidden behind the product)
    ("flash-15", 2.5),        # the products alone: the exponentials left out
    ("flash-14", 128),        # that is B_r = min(B_c, d)
]

(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "flash", EXPECTED, rounded=ROUNDED, off=OFF)
