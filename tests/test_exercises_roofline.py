"""Each numeric answer of the roofline chapter against plain arithmetic from the source
notes' numbers (never perfmodel's output copied)."""
import math

from exercises import answer

from exercise_checks import chapter_checks

D = 4096

def _crossover(ridge, d=D):
    # linear layer in FP16: I(b) = 2 b d^2 / (2 (d^2 + 2 b d)) = b d / (d + 2 b) >= ridge
    return math.ceil(ridge * d / (d - 2 * ridge))


EXPECTED = {
    # exercise 2.2: ceiling min(19.5e12, 4 x 900e9) = 3.6e12
    "roofline-1": 2.1e12 / 3.6e12,
    # reduction: 0.25 FLOP/byte x 320 GB/s over 8.1 TFLOP/s
    "roofline-2": 0.25 * 320e9 / 8.1e12,
    # vector add on the ridge-40 machine: (1/12) / 40
    "roofline-3": (1 / 12) / 40,
    # 2e9 FLOP / 19.5e12 vs 1e9 B / 2.039e12: memory wins
    "roofline-4": 1e9 / 2.039e12,
    # max(1e12 / 100e12, 5e9 / 1e12) = 10 ms
    "roofline-5": 0.010,
    # 4096^2 weights + 2 x 4096 vectors, 2 bytes each, at 4.8 TB/s
    "roofline-6": 2 * (D * D + 2 * D) / 4.8e12,
    "roofline-7": _crossover(989e12 / 3.35e12),
    # memory-bound on both: bandwidth ratio
    "roofline-8": 4.8 / 3.35,
    # adds only: half the FMA peak
    "roofline-9": 8.1e12 / 2,
    # 2^28 x 12 bytes / 230 GB/s
    "roofline-10": 2 ** 28 * 12 / 230e9,
    "roofline-11": _crossover(989e12 / 4.8e12),
}


ROUNDED = [  # answers rounded as a reader would give them: right
    ("roofline-1", 0.58),
    ("roofline-8", 1.43),
]

(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "roofline", EXPECTED, rel=1e-3, rounded=ROUNDED)


def test_crossovers_straddle_the_batch_256_layer():
    # the source notes' point: batch 256 is compute-bound on one machine, not on another
    assert answer("roofline-11") <= 256 < answer("roofline-7")
