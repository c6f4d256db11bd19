"""Each numeric answer of "The mathematics of parallelism" against plain arithmetic from the
source notes' numbers (never perfmodel's output copied)."""
from exercise_checks import chapter_checks

EXPECTED = {
    # 004 exercise 1: 1 / 0.02
    "parallelism-1": 50.0,
    # 5 warps x 32 threads x 2 chains = 320 FMAs in flight per SM; Little's law: 320 / 4
    # cycles = 80 FMAs a cycle, against the SM's 128 lanes
    "parallelism-2": (5 * 32 * 2 / 4) / 128,
    # the best serial sort's 12 s over 2 s on 16 cores, over 16
    "parallelism-3": 12 / 2 / 16,
    # 24x on 32 cores
    "parallelism-5": 24 / 32,
    # 004 1.3's example: 110 us; 5 + 100/16 = 11.25 us beats 10 + 100/32 = 13.125 us
    "parallelism-6": 110 / 11.25,
    # 0.02 + 0.98 x 4096
    "parallelism-7": 0.02 + 0.98 * 4096,
    # f = 1/21 from 6x on 8; 1 / (1/21 + (20/21)/64)
    "parallelism-8": 1 / (1 / 21 + (20 / 21) / 64),
    # (20 + 50) / 20
    "parallelism-9": 70 / 20,
    # 500 x 8 us against 8 + 499 x 4 us
    "parallelism-10": 4000 / (8 + 499 * 5),  # load 5, compute 1, store 2 us; 500 chunks
    # (4 x 2.5 + 28) / (32 x 2.5)
    "parallelism-11": 41 / (32 * 3.5),  # the same 41 units of work, the slowest thread 3.5
    # f with 1/(f + (1-f)/64) = 51.2: f = (1/51.2 - 1/64) / (63/64)
    "parallelism-12": (1 / 51.2 - 1 / 64) * 64 / 63,
    # eight paths inside every warp: eight passes, an eighth of the lanes in each
    "parallelism-13": 1 / 8,
}


(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "parallelism", EXPECTED)
