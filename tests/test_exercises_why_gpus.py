"""Each numeric answer of "Why GPUs exist" against plain arithmetic from the source notes'
numbers (never perfmodel's output copied)."""
from exercises import answer

from exercise_checks import chapter_checks

ADD = 2 ** 28
EXPECTED = {
    # 003's T4 table: 40 SMs x 64 lanes x 2 FLOPs per FMA x 1.59 GHz
    "why-gpus-1": 108 * 64 * 2 * 1.41e9,  # the A100: SMs x lanes x 2 FLOPs per FMA x clock
    # datasheets: B200 8 TB/s over H200 4.8 TB/s
    "why-gpus-2": 8e12 / 4.8e12,
    # server CPU (400 GB/s, 5 us) against an H100 (3.35 TB/s datasheet, 10 us toll)
    "why-gpus-3": (5e-6 + 12 * ADD / 400e9) / (10e-6 + 12 * ADD / 8e12),  # the B200
    # 2 x 4096^3 FLOPs: server CPU 4 TFLOP/s against the H100's 66.9 TFLOP/s FP32
    "why-gpus-4": (5e-6 + 2 * 4096 ** 3 / 4e12) / (10e-6 + 2 * 4096 ** 3 / 66.9e12),
    # 003: 9 us to issue a queued launch; 9 us x 230 GB/s / 12 bytes per element
    "why-gpus-5": 9e-6 * 230e9 / 12,
    # (5 us + 12 kB / 400 GB/s) / (10 us + 12 kB / 3.35 TB/s)
    "why-gpus-6": (5e-6 + 12e3 / 400e9) / (10e-6 + 12e3 / 3.35e12),
    # CPU 5 us + 12 x 2^28 B at 400 GB/s over (10 us + same at 3.35 TB/s + over 64 GB/s)
    "why-gpus-7": (5e-6 + 12 * ADD / 400e9)
                  / (10e-6 + 12 * ADD / 3.35e12 + 12 * ADD / 64e9),
    # 9 x (1 GB at 32 GB/s) over (1 GB at 3.35 TB/s) passes
    "why-gpus-8": 943,  # 9 x (1e9 / 32e9) / (1e9 / 3.35e12) = 942.2: a whole pass more
    # (9 + 3 + 299 x 9) us over (1.4 + 3 + 299 x 3) us
    "why-gpus-9": (12 + 299 * 9) / (4.4 + 299 * 3),
}


(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "why-gpus", EXPECTED)


def test_the_server_pair_has_the_notes_four_regimes():
    # 003's four regimes on another pair: big jobs win, the tiny add and the round trip lose
    assert answer("why-gpus-3") > 5 and answer("why-gpus-4") > 10
    assert answer("why-gpus-6") < 1 and answer("why-gpus-7") < 1
