"""Chapter 8's numeric answers against plain arithmetic from the source notes' numbers
(nothing here calls perfmodel: each expected value is worked by hand)."""
import math

from pytest import approx

from exercise_checks import chapter_checks

KB, MB = 1024, 1024 ** 2
H200_BW = 4.8e12              # H200 datasheet HBM3e, byte/s
H200_BF16 = 989e12            # H200 dense BF16 tensor cores, FLOP/s

EXPECTED = {
    # T4 (seed 003's table): 40 SMs x 256 KiB of registers = 10 MiB, over a 4 MiB L2.
    "memory-1": 40 * 256 * KB / (4 * MB),
    # H200: 132 SMs x 256 KiB = 33 MiB of registers (Hopper whitepaper), over the 60 MiB L2
    # the card reports (labs/results/H200/*.json, context.l2_bytes = 62,914,560).
    "memory-2": 132 * 256 * KB / (60 * MB),
    # 2 x T^2 x 4 <= 49,152 -> T^2 <= 6,144 -> T = 78 (78^2 = 6,084; 79^2 = 6,241).
    "memory-3": 78,
    # ridge 989e12 / 4.8e12 = 206.04 FLOP/B; T/2 >= 206.04 -> T >= 412.08 -> 413.
    "memory-4": 413,
    # stride 4: 32 lanes x 16 B = 512 B = 8 bursts of 64 B for 128 useful B -> 1/4 of 4.8 TB/s.
    "memory-5": H200_BW * 128 / 512,
    # one 32-byte sector per particle: 2^26 x 32 B at 4.8 TB/s.
    "memory-6": 2 ** 26 * 32 / H200_BW,
    # naive (4 + 32) B per element, tiled (4 + 4) B: 36 / 8.
    "memory-7": 36 / 8,
    # moved 4 + 64 = 68 B for 4 + 4 = 8 useful B: 68 / 8.
    "memory-8": 68 / 8,
    # 50 x 2 MB at 1.1 TB/s (the source notes' measured T4 L2).
    "memory-9": 50 * 2e6 / 1.1e12,
    # AoS: the whole 32-byte record (one sector); SoA: four 4-byte fields = 16 B.
    "memory-10": 32 / 16,
}


ROUNDED = [  # answers rounded as a reader would give them: right
    ("memory-1", 2.5),
    ("memory-3", 78),
    ("memory-5", 1.2e12),
    ("memory-6", 447e-6),
    ("memory-8", 8.5),
]
OFF = [  # wrong answers: not yet
    ("memory-7", 9),
]

(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "memory", EXPECTED, rounded=ROUNDED, off=OFF)


def test_worked_numbers_of_the_chapter():
    # Seed 003: in order 240 GB/s, gathered 14 GB/s on the T4: about 17 times slower.
    assert 240 / 14 == approx(17, rel=0.01)
    # Seed 003's staircase: L1 about 14x DRAM (3.9 / 0.27), L2 about 4x (1.1 / 0.27).
    assert round(3.9 / 0.27) == 14 and round(1.1 / 0.27) == 4
    # Seed 002: a 32 x 32 FP32 tile reaches T/s = 8 FLOP/byte.
    assert 32 / 4 == 8
    assert math.isqrt(49152 // 8) == 78
    # Exercise 1(c): a T4 SM's 65,536 registers (seed 003) at 128 per thread: 512 threads.
    assert 65536 // 128 == 512
    # Exercise 8: counting only the values halves both kernels' useful bytes; the ratio of
    # their times stays 68 / 8.
    assert (68 / 4) / (8 / 4) == 68 / 8
