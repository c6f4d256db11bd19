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
    "roofline-5": 2e12 / 100e12,  # recomputation: 2 TFLOP at 100 TFLOP/s beats 5 GB at 1 TB/s
    # 4096^2 weights + 2 x 4096 vectors, 2 bytes each, at 4.8 TB/s
    "roofline-6": 2 * (D * D + 2 * D) / 4.8e12,
    # an 8192 x 8192 FP16 layer on an H100 (dense FP16 989 TFLOP/s, 3.35 TB/s)
    "roofline-7": _crossover(989e12 / 3.35e12, d=8192),
    # batch 256: H100 memory-bound (bytes 2 (d^2 + 2 x 256 d) at 3.35 TB/s), H200
    # compute-bound (2 x 256 d^2 FLOPs at 989 TFLOP/s)
    "roofline-8": (2 * (D * D + 2 * 256 * D) / 3.35e12) / (2 * 256 * D * D / 989e12),
    # multiplies only on an H200: min(66.9e12 / 2, 10 FLOP/B x 4.8 TB/s)
    "roofline-9": min(66.9e12 / 2, 10 * 4.8e12),
    # 2^28 x 12 bytes / 230 GB/s
    "roofline-10": 2 ** 28 * 12 / 230e9,
    # NVFP4 layer on a B200 (dense FP4 9 PFLOP/s, 8 TB/s): 0.5625 B a value, so
    # I(b) = 2 b d^2 / (0.5625 (d^2 + 2 b d)) >= ridge  <=>  b >= r d / (2 d - 2 r), r = 0.5625 ridge
    "roofline-11": math.ceil(0.5625 * 9e15 / 8e12 * D / (2 * D - 2 * 0.5625 * 9e15 / 8e12)),
}


ROUNDED = [  # answers rounded as a reader would give them: right
    ("roofline-1", 0.58),
    ("roofline-8", 1.29),
]

(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "roofline", EXPECTED, rel=1e-3, rounded=ROUNDED)


def test_a_batch_of_256_is_memory_bound_in_both_new_crossovers():
    # a wider layer on an H100 and an NVFP4 layer on a B200 both need more than 256 inputs
    assert 256 < answer("roofline-7") and 256 < answer("roofline-11")
