"""Chapter 5's numeric answers against plain arithmetic from the source notes' numbers
(nothing here calls perfmodel: each expected value is worked by hand)."""
from pytest import approx

from exercises import answer

from exercise_checks import chapter_checks

# The expected values, from the seeds' figures only.
T4_BW = 320e9                 # T4 datasheet DRAM, byte/s
H100_BW, H100_FP16 = 3.35e12, 989e12
H200_BW = 4.8e12
H200_PCIE = 64e9              # PCIe Gen5 x16, nominal
N28 = 2 ** 28

EXPECTED = {
    # 2.1: perfect reuse, 1 load + 1 store of 4 bytes per point, 4096^2 points, 320 GB/s.
    "triage-1": 4096 * 4096 * 8 / T4_BW,  # 3x3 blur, perfect reuse: one load, one store
    # 2.3: Welford = 2 reads + 1 write of 8192 x 4096 x 4 bytes at 900 GB/s.
    "triage-2": 3 * 8192 * 4096 * 4 / 900e9,
    # one thread per row: 512 threads over an H100 SXM's 132 SMs x 2,048 resident threads.
    "triage-3": 100 * 512 / (132 * 2048),
    # 2.6: 30 kernels x (10 GB read + 10 GB written) at 2 TB/s.
    "triage-4": 30 * 20e9 / 2e12,
    # row sums: 32 x 2048 x 8192 BF16 values read (2 bytes each), 32 x 2048 FP32 totals written
    "triage-5": (32 * 2048 * 8192 * 2 + 32 * 2048 * 4) / H200_BW,
    # 400 FLOPs x 1e8 at 8.1 TFLOP/s (4.9 ms) against 8 B x 1e8 at 320 GB/s (2.5 ms): the
    # heavy one is compute-bound, the GELU memory-bound.
    "triage-6": (400 * 1e8 / 8.1e12) / (8 * 1e8 / T4_BW),
    # bias, relu, residual in BF16: unfused x->t, t->u, (u, r)->y is 7 arrays, fused x, r -> y
    # is 3; the 4 arrays saved, 2 bytes each, at 4.8 TB/s
    "triage-7": (7 - 3) * 2 * 24 * 2048 * 4096 / H200_BW,
    # fused relu(x*1.5+0.5) in FP16: 4 bytes per element x 2^28 at 4.8 TB/s.
    "triage-8": 4 * 2 ** 28 / H200_BW,
    # T4: store P, 2 x 2048^2 x 2 bytes at 320 GB/s; recompute, 2 x 2048^2 x 128 FLOPs at
    # 65 TFLOP/s (datasheet FP16 tensor).
    "triage-9": (4 * 2048 ** 2 / T4_BW) / (256 * 2048 ** 2 / 65e12),
    # one pinned round trip (two inputs in, one output out: 12 bytes per element over 64 GB/s)
    # over one add in HBM (the same 12 bytes per element at 4.8 TB/s): 4.8e12 / 64e9 = 75.
    "triage-10": (12 * N28 / H200_PCIE) / (12 * N28 / H200_BW),
}


ROUNDED = [  # answers rounded as a reader would give them: right
    ("triage-4", 0.3),
    ("triage-3", 0.19),
    ("triage-6", 2.0),
    ("triage-10", 75),
]
OFF = [  # wrong answers: not yet
    ("triage-3", 1.25),       # the T4's slots (40 x 1,024), not the H100's
    ("triage-3", 189_394),    # every element counted as independent work
    ("triage-6", 1),          # "arithmetic is always free"
    ("triage-10", 1),         # "one trip, one add": the link taken for the memory
    ("triage-5", 447e-6),     # a write per element too, as if it were GELU
    ("triage-7", 168e-6),     # the intermediates written, forgetting they are read back
]

(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "triage", EXPECTED, rounded=ROUNDED, off=OFF)


def test_worked_numbers_of_the_chapter():
    # The GELU example: 100M x 8 bytes at 320 GB/s is 2.5 ms; BF16 halves it; AI 15/8.
    assert 100e6 * 8 / T4_BW == approx(2.5e-3)
