"""Chapter 9's numeric answers against plain arithmetic from the source notes' numbers and
the datasheets (nothing here calls perfmodel: each expected value is worked by hand)."""
from pytest import approx

from exercise_checks import chapter_checks

EXPECTED = {
    # A100: 108 SMs x 64 lanes x 2 FLOPs x 1.41 GHz = 19.49 TFLOP/s (datasheet: 19.5).
    "moves-1": 108 * 64 * 2 * 1.41e9,
    # 3.5 TFLOP/s over 40 x 64 x 2 x 0.705 GHz = 3.61 TFLOP/s (the notes: 97%), in percent.
    "moves-2": 100 * 3.5e12 / (40 * 64 * 2 * 0.705e9),
    # A100: 312 TFLOP/s x 1095/1410.
    # 220 / 0.95 TFLOP/s is the peak at the held clock; 312 TFLOP/s at 1,410 MHz scales to it
    "moves-3": 220e12 / 0.95 / 312e12 * 1410e6,
    # k = (67 - 10) / 1365e6 W/Hz; 10 + k x 1590e6.
    "moves-4": 10 + (67 - 10) / 1365e6 * 1590e6,
    # H200 FP8: 1979 TFLOP/s x 1455/1980.
    # the recorded H200 holds: 289.407 W at 62.728 TFLOP/s against 690.741 W at 637.129 TFLOP/s
    "moves-5": (298.427 / 64.298e12) / (688.642 / 643.567e12),
    # 50 ms / (2 x 2048^3 / 41 TFLOP/s).
    "moves-6": 50e-3 / (2 * 2048 ** 3 / 41e12),
    # 8192^2 weights x (0.5 + 1/16) bytes at 8 TB/s.
    "moves-7": 8192 ** 2 * (0.5 + 1 / 16) / 8e12,
    # B200: 2b / 1 byte = 4.5e15 / 8e12  ->  b = 4500 / 8 / 2.
    # 2:4 sparse FP8: 2 b d^2 FLOPs over d^2 / 2 bytes = 4b, against 9e15 / 8e12
    "moves-8": 9e15 / 8e12 / 4,
    # 1793: 8 x 15 = 120 tiles, 2 waves of 108 slots.
    "moves-9": 100 * 120 / (2 * 108),
    # 2049: 9 x 17 = 153 tiles of 256 x 128; 2 waves of 132 slots.
    "moves-10": 100 * 2049 ** 2 / (153 * 256 * 128) * 153 / (2 * 132),
    # 10^21 FLOPs at the H200's 989 TFLOP/s BF16 datasheet peak, in hours.
    "moves-11": 1e21 / 989e12 / 3600,
}


ROUNDED = [  # answers rounded as a reader would give them: right
    ("moves-1", 19.5e12),
    ("moves-2", 97),
    ("moves-4", 76.4),
    ("moves-8", 281),
    ("moves-9", 55.6),
    ("moves-11", 281),
]
OFF = [  # wrong answers: not yet
    ("moves-9", 100),
    ("moves-9", 0.556),               # a fraction where the question asks for percent
    ("moves-1", 8.14e12),             # the T4's peak, which the chapter worked
    ("moves-8", 206),                 # the H200's batch, which the chapter worked
    ("moves-8", 562),                 # the sparse peak with all the weights still stored
    ("moves-3", 1095e6 * 1.1),        # the peak taken at 220 TFLOP/s, the 95% forgotten
]

(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "moves", EXPECTED, rounded=ROUNDED, off=OFF)


def test_worked_numbers_of_the_chapter():
    # Seed 003: 40 x 64 x 2 x 0.705 GHz = 3.61 TFLOP/s, and cuBLAS's 3.52 is 97% of it.
    assert 40 * 64 * 2 * 0.705e9 == approx(3.61e12, rel=1e-3)
    # Seed 002: 1792 -> 7 x 14 = 98 tiles, 1793 -> 8 x 15 = 120 on 108 SMs: 12 in wave two.
    assert 120 - 108 == 12


def test_moves_5_reads_the_recorded_h200_run():
    # the constants of moves-5 are the clocks lab's recorded H200 holds, read from the JSON
    import json
    import pathlib
    from exercises import moves
    summary = json.loads((pathlib.Path(__file__).resolve().parents[1] / "labs" / "results"
                          / "H200" / "clocks.json").read_text())["summary"]
    assert moves.H200_TENSOR_HOLD == approx(
        (summary["tensor_fp16_flops"], summary["tensor_power_w"]), rel=1e-4)
    assert moves.H200_FMA_HOLD == approx(
        (summary["fma_sustained_flops"], summary["fma_power_w"]), rel=1e-4)
