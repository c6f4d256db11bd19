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
    # 32 x 32 FP32 products, perfect reuse: 2 x 32^3 FLOPs over 3 x 32^2 x 4 bytes = 16/3
    # FLOP/byte, left of the A100's ridge 19.5 / 2.039: the slope 16/3 x 2.039 TB/s
    "roofline-8": (2 * 32 ** 3 / (3 * 32 ** 2 * 4)) * 2.039e12,
    # multiplies only on an H200: min(66.9e12 / 2, 10 FLOP/B x 4.8 TB/s)
    "roofline-9": min(66.9e12 / 2, 10 * 4.8e12),
    # 2^28 x 12 bytes / 230 GB/s
    "roofline-10": 2 ** 28 * 12 / 230e9,
    # a 70e9-parameter FP8 model at batch 1: 70e9 bytes a token at 4.8e12 byte/s
    "roofline-11": 4.8e12 / 70e9,
    # the T4's L2 as measured (1.1 TB/s), an FP32 add (1 FLOP per 12 bytes): 1.1e12 / 12
    "roofline-13": 1.1e12 / 12,
}


ROUNDED = [  # answers rounded as a reader would give them: right
    ("roofline-1", 0.58),
    ("roofline-8", 10.9e12),
    ("roofline-11", 68.6),
]

(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "roofline", EXPECTED, rel=1e-3, rounded=ROUNDED)


def test_a_batch_of_256_is_memory_bound_in_both_crossovers():
    # a wider layer on an H100 (exercise 7 a) and an NVFP4 layer on a B200 (7 c) both need
    # more than 256 inputs; the B200's NVFP4 crossing from the ridge 0.5625 x 9e15 / 8e12
    from exercises.roofline import crossover_batch
    r = 0.5625 * 9e15 / 8e12
    b200 = math.ceil(r * D / (2 * D - 2 * r))
    assert crossover_batch("B200", unit="fp4_tensor", dtype="nvfp4") == b200
    assert 256 < answer("roofline-7") and 256 < b200


def test_a_64_wide_product_crosses_the_a100_ridge():
    # exercise 8's second part: 64/6 FLOP/byte is right of 19.5 / 2.039
    assert 32 / 6 < 19.5e12 / 2.039e12 < 64 / 6
