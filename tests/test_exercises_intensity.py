"""Each numeric answer of the intensity chapter against plain arithmetic from the source
notes' numbers (never perfmodel's output copied)."""
import math

from exercise_checks import chapter_checks

D = 4096

EXPECTED = {
    # drill: x*x is 1 FLOP over 4 B read + 4 B written
    # Horner's cubic: 3 FMAs = 6 FLOPs over 4 B read + 4 B written
    "intensity-1": 6 / 8,
    # softplus: exp (about 10) + log (about 10) + one add = 21 operations over 8 bytes
    "intensity-2": 21 / 8,
    # 5x5 conv with tiling: 25 FMAs = 50 FLOPs over one 4 B load + one 4 B store
    "intensity-3": 50 / 8,
    # skinny GEMM, batch 32, BF16: 2*32*4096^2 FLOPs over 2*(32*4096 + 4096^2 + 32*4096) bytes
    "intensity-4": 2 * 48 * D * D / (2 * (48 * D + D * D + 48 * D)),
    # 7-point stencil swept along z: three 1024 x 1024 FP32 planes on chip
    "intensity-5": 3 * 1536 * 1536 * 4,
    # FP64 scale: 1 FLOP over 8 B read + 8 B written
    "intensity-6": 1 / 16,
    # T / 4 = 66.9e12 / 3.35e12 (the H100's datasheet)
    "intensity-7": 4 * 66.9e12 / 3.35e12,
    # FP16 weights 2 B each vs NVFP4 0.5 B + 1 B scale per 16 values; x and y in the same dtype
    "intensity-8": (2 * (D * D + 2 * D)) / ((0.5 + 1 / 16) * (D * D + 2 * D)),
    # flash attention in FP8: 4 S^2 d / (4 S d * 1 B) = S >= 1979e12 / 3.35e12
    "intensity-9": math.ceil(1979e12 / 3.35e12),
    # knob kernel: I = 2k / 8 = k / 4 reaches the B200's 75e12 / 8e12
    "intensity-10": 4 * 75e12 / 8e12,
    # ReLU in MXFP8: 2 arrays x 2^30 values x (1 + 1/32) bytes
    "intensity-11": 2 * 2 ** 30 * (1 + 1 / 32),
}


# the notes' own rounded answers count as right
ROUNDED = [  # answers rounded as a reader would give them: right
    ("intensity-5", 28.3e6),
    ("intensity-4", 46.9),
    ("intensity-2", 2.6),
    ("intensity-6", 0.0625),
    ("intensity-7", 80),
]

(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "intensity", EXPECTED, rel=1e-3, rounded=ROUNDED)
