"""Chapter 9's numeric answers against plain arithmetic from the source notes' numbers and
the datasheets (nothing here calls perfmodel: each expected value is worked by hand)."""
from pytest import approx

from exercise_checks import chapter_checks

EXPECTED = {
    # B200 at a held 1,650 MHz: 148 SMs x 128 lanes x 2 FLOPs x 1.65 GHz = 62.5 TFLOP/s.
    "moves-1": 148 * 128 * 2 * 1.65e9,
    # The H200's burst after streaming, on its step at 1,529.35 MHz: 692.765 TFLOP/s over
    # 132 SMs x 4,096 FLOPs x 1.52935 GHz = 826.9 TFLOP/s, in percent (83.8).
    "moves-2": 100 * 692.765e12 / (132 * 4096 * 1.52935e9),
    # 220 / 0.95 TFLOP/s is the peak at the held clock; 312 TFLOP/s at 1,410 MHz scales to it
    "moves-3": 220e12 / 0.95 / 312e12 * 1410e6,
    # k = (67 - 10) / 1365e6 W/Hz; 10 + k x 1590e6.
    # 15 + 52 W / 1365 MHz x 1590 MHz = 15 + 60.57 = 75.57 W.
    "moves-4": 15 + (67 - 15) / 1365e6 * 1590e6,
    # the recorded H200 holds: 298.427 W at 64.298 TFLOP/s against 688.642 W at 643.567
    "moves-5": (298.427 / 64.298e12) / (688.642 / 643.567e12),
    # (41 x 0.05 + 18 x (D - 0.05)) / D = 1.05 x 18  ->  D = 0.05 x 23 / 0.9 = 1.278 s.
    "moves-6": 0.05 * (41 - 18) / (0.05 * 18),
    # 8192^2 weights x (0.5 + 1/16) bytes at 8 TB/s.
    "moves-7": 8192 ** 2 * (0.5 + 1 / 16) / 8e12,
    # 2:4 sparse FP8: half the weights kept, 1 byte + 2 bits each: 0.5 + 0.125 = 0.625 bytes a
    # weight; 2 b d^2 FLOPs over 0.625 d^2 bytes = 3.2 b, against 9e15 / 8e12 = 1125 -> 351.6
    "moves-8": 9e15 / 8e12 / (2 / (0.5 * 1 + 0.5 * 2 / 8)),
    # 1793 in 128 x 128 tiles: 15 x 15 = 225 tiles, 3 waves of 108 slots = 324.
    "moves-9": 100 * 225 / (3 * 108),
    # 2049: 9 x 17 = 153 tiles of 256 x 128; 2 waves of 132 slots.
    "moves-10": 100 * 2049 ** 2 / (153 * 256 * 128) * 153 / (2 * 132),
    # 10^21 FLOPs at the H200's 989 TFLOP/s BF16 datasheet peak, in hours.
    "moves-11": 1e21 / 989e12 / 3600,
}


ROUNDED = [  # answers rounded as a reader would give them: right
    ("moves-1", 62.5e12),
    ("moves-2", 84),
    ("moves-4", 75.6),
    ("moves-8", 352),
    ("moves-9", 69.4),
    ("moves-11", 281),
]
OFF = [  # wrong answers: not yet
    ("moves-9", 100),
    ("moves-9", 0.694),               # a fraction where the question asks for percent
    ("moves-9", 55.6),                # the 256 x 128 tiles' share, which the chapter worked
    ("moves-9", 90.7),                # 1792's share, not 1793's
    ("moves-1", 19.5e12),             # the A100's peak, which chapter 1 worked
    ("moves-1", 75e12),               # the datasheet's, at 1.98 GHz, not the held clock
    ("moves-2", 70.0),                # against the datasheet's 989 at 1.83 GHz, not the clock
    ("moves-2", 64.8),                # against the peak at the 1.98 GHz top clock
    ("moves-8", 281),                 # the index left out (also the dense layer's crossing)
    ("moves-8", 206),                 # the H200's batch, which the chapter worked
    ("moves-8", 562),                 # the sparse peak with all the weights still stored
    ("moves-3", 1095e6 * 1.1),        # the peak taken at 220 TFLOP/s, the 95% forgotten
]

(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "moves", EXPECTED, rounded=ROUNDED, off=OFF)


def test_worked_numbers_of_the_chapter():
    # Seed 002: 1792 -> 7 x 14 = 98 tiles, 1793 -> 8 x 15 = 120 on 108 SMs: 12 in wave two.
    assert 120 - 108 == 12
    # Hopper's tensor cores: 132 SMs x 4,096 FLOPs a clock x 1.83 GHz is the datasheet's 989.
    assert 132 * 4096 * 1.83e9 == approx(989e12, rel=1e-3)
    # 4,096 tensor FLOPs against 128 lanes x 2 a clock per SM: 16 times.
    assert 4096 / (128 * 2) == 16
    # NVFP4 on a B200, weights only: b = 0.5625 x 9e15 / 8e12 / 2 = 316, against BF16's 281.
    assert 0.5625 * 9e15 / 8e12 / 2 == approx(316.4, abs=0.1)
    assert 2 * 2.25e15 / 8e12 / 2 == approx(281.25)


def test_moves_2_reads_the_recorded_h200_run():
    # the constants of moves-2 are the median rate and clock of the burst after streaming,
    # over its products on the step between 1.5 and 1.6 GHz, read from the JSON
    import json
    import pathlib
    import statistics
    from exercises import moves
    rows = json.loads((pathlib.Path(__file__).resolve().parents[1] / "labs" / "results"
                       / "H200" / "clocks.json").read_text())["rows"]
    step = [r for r in rows if r["kind"] == "burst" and r["prelude"] == "stream"
            and 1.5e9 < r["clock_hz"] < 1.6e9]
    assert len(step) > 20
    assert moves.H200_STREAM_STEP == approx(
        (statistics.median(r["flops"] for r in step),
         statistics.median(r["clock_hz"] for r in step)), rel=1e-5)


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
