"""Each numeric answer of "The mathematics of parallelism" against plain arithmetic from the
source notes' numbers (never perfmodel's output copied)."""
from exercise_checks import chapter_checks

EXPECTED = {
    # 004 exercise 1: 1 / 0.02
    "parallelism-1": 50.0,
    # 004 exercise 2: 1 FLOP over 4 + 4 + 4 bytes
    "parallelism-2": 1 / 12,
    # 004 exercise 3: (1/12) / 40 of peak
    "parallelism-3": 1 / 12 / 40,
    # 004 1.2: 10x on 64 cores
    "parallelism-5": 10 / 64,
    # 004 1.3: 110 us on one GPU, 10 + 100/4 = 35 us on four
    "parallelism-6": 110 / 35,
    # 0.05 + 0.95 x 1024
    "parallelism-7": 0.05 + 0.95 * 1024,
    # f = 1/21 from 6x on 8; 1 / (1/21 + (20/21)/64)
    "parallelism-8": 1 / (1 / 21 + (20 / 21) / 64),
    # (20 + 50) / 20
    "parallelism-9": 70 / 20,
    # 1000 x 6 us against 6 + 999 x 3 us
    "parallelism-10": 6000 / (6 + 999 * 3),
    # (10 + 31) / (32 x 10)
    "parallelism-11": 41 / 320,
    # f with 1/(f + (1-f)/64) = 51.2: f = (1/51.2 - 1/64) / (63/64)
    "parallelism-12": (1 / 51.2 - 1 / 64) * 64 / 63,
    # four passes, a quarter of the lanes in each
    "parallelism-13": 0.25,
}


(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "parallelism", EXPECTED)
