"""Each numeric answer of "Why GPUs exist" against plain arithmetic from the source notes'
numbers (never perfmodel's output copied)."""
from exercises import answer

from exercise_checks import chapter_checks

ADD = 2 ** 28
EXPECTED = {
    # 003's T4 table: 40 SMs x 64 lanes x 2 FLOPs per FMA x 1.59 GHz
    "why-gpus-1": 40 * 64 * 2 * 1.59e9,
    # datasheets: 4.8 TB/s over 320 GB/s
    "why-gpus-2": 4.8e12 / 320e9,
    # 003: the add is memory-bound on both: 230 GB/s over 23 GB/s
    "why-gpus-3": 230e9 / 23e9,
    # 003: matmul is compute-bound on both: 6.8 TFLOP/s over 215 GFLOP/s
    "why-gpus-4": 6.8e12 / 215e9,
    # 003: 9 us to issue a queued launch; 9 us x 230 GB/s / 12 bytes per element
    "why-gpus-5": 9e-6 * 230e9 / 12,
    # (4 us + 12 kB / 23 GB/s) / (20 us + 12 kB / 230 GB/s)
    "why-gpus-6": (4e-6 + 12e3 / 23e9) / (20e-6 + 12e3 / 230e9),
    # CPU 12 x 2^28 B at 23 GB/s over (same at 230 GB/s + 12 x 2^28 B at 12.3 GB/s)
    "why-gpus-7": (12 * ADD / 23e9) / (12 * ADD / 230e9 + 12 * ADD / 12.3e9),
    # 9 x (1 GB at 32 GB/s) over (1 GB at 3.35 TB/s) passes
    "why-gpus-8": 9 * (1e9 / 32e9) / (1e9 / 3.35e12),
    # (9 + 3 + 299 x 9) us over (1.4 + 3 + 299 x 3) us
    "why-gpus-9": (12 + 299 * 9) / (4.4 + 299 * 3),
}


(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "why-gpus", EXPECTED)


def test_the_model_reproduces_the_notes_regimes():
    # 003: the GPU wins big jobs (11x, 19x measured), loses the tiny add and the round trip
    assert answer("why-gpus-3") > 5 and answer("why-gpus-4") > 19
    assert answer("why-gpus-6") < 1 and answer("why-gpus-7") < 1
