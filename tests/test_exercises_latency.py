"""Chapter 7's numeric answers against plain arithmetic from the T4 note's numbers and
the recorded H200 run as the questions round it (nothing here calls perfmodel: each
expected value is worked by hand)."""
from pytest import approx

from exercises import answer

from exercise_checks import chapter_checks

EXPECTED = {
    # A100 datasheet 2.039 TB/s x the H200's recorded idle DRAM latency, 337 ns
    # (labs/results/H200/latency.json: 337.11 ns), as the question supposes.
    "latency-1": 2.039e12 * 337e-9,
    # 32 threads x 4 loads x 16 B = 2,048 B on order over 314 ns.
    "latency-2": 32 * 4 * 16 / 314e-9,
    # 275 GB/s x 314 ns = 86,350 B; / 512 B per warp = 168.65 -> 169 warps ("about 170").
    "latency-3": 169,
    # 132 SMs x 16 warps x 32 threads x 16 B in flight, over 337 ns, against 4.8 TB/s
    "latency-4": 100 * (132 * 16 * 32 * 16 / 337e-9) / 4.8e12,
    # 65,536 / (72 x 32) = 28.4 -> 28 warps (the SM's limit, 64, does not bind);
    # 28 warps x 32 threads x 8 loads x 16 B = 114,688 B.
    "latency-5": 28 * 32 * 8 * 16,
    # T4 at 80 registers: a warp takes 80 x 32 = 2,560 registers; a quarter of the file,
    # 65,536 / 4 = 16,384, holds 6 of them (15,360), so 4 x 6 = 24 warps per SM (plain
    # division would say 65,536 / 2,560 = 25.6); 40 x 24 x 32 x 4 B = 122,880 B;
    # / 400 ns = 307.2 GB/s, 96% of the 320 GB/s roof.
    "latency-6": 40 * 24 * 32 * 4 / 400e-9,
    # 10,000 x 4 B = 40,000 B, all on order at once, / 400 ns = 100 GB/s.
    "latency-7": 10_000 * 4 / 400e-9,
    # 16 blocks x 220 GB/s (the re-run one-SM sweep's best) = 3.52 TB/s of 4.42 TB/s = 79.6%.
    "latency-8": 100 * 16 * 220e9 / 4.42e12,
    # 3.84 TB/s x 1,063 ns = 4,081,920 B.
    "latency-9": 3.84e12 * 1063e-9,
    # One warp's round: 1 cycle to issue the load, 667 waiting, 4 issuing its uses = 672
    # cycles, 5 of them issuing; 672 / 5 = 134.4 warps, rounded up to 135.
    "latency-10": 135,
}


ROUNDED = [  # answers rounded as a reader would give them: right
    ("latency-1", 687e3),
    ("latency-2", 6.52e9),
    ("latency-3", 169),
    ("latency-4", 67),
    ("latency-5", 115e3),
    ("latency-6", 307e9),
    ("latency-8", 80),
    ("latency-10", 134),               # 134.4 rounded down is within 2%
]
OFF = [  # wrong answers: not yet
    ("latency-1", 1.62e6),            # the H200's own bytes in flight (4.8 TB/s), not the A100's
    ("latency-8", 20),                # the SMs that 220 GB/s apiece would need, not the share
    ("latency-5", 64 * 32 * 8 * 16),  # the SM's limit, not the register budget
    ("latency-5", 28),                # warps, not bytes
    ("latency-4", 17),                # one 4-byte load a thread instead of 16 bytes
    ("latency-6", 7.68e9),            # one SM only: 24 warps x 32 x 4 B over 400 ns
    ("latency-10", 667),              # the instructions to cover, not the warps
    ("latency-10", 16),               # the warps one H200 scheduler can hold
]

(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "latency", EXPECTED, rounded=ROUNDED, off=OFF)


def test_worked_numbers_of_the_chapter():
    # Seed 003: 314 ns x 275 GB/s is about 85 KB.
    assert 314e-9 * 275e9 == approx(85e3, rel=0.02)
    # The H200's bill: datasheet 4.8 TB/s x its chase's 337 ns = 1,617,600 B, about 1.62 MB.
    assert 4.8e12 * 337e-9 == approx(1.62e6, rel=0.01)
    # A full H200 SM of scalar loads: 64 warps x 32 x 4 B = 8,192 B, short of the
    # 1,617,600 / 132 = 12,254 B each SM's share of the bill asks; the whole chip so,
    # 132 x 8,192 = 1,081,344 B, over 337 ns is 3.21 TB/s, 67% of 4.8 TB/s: exercise 4's
    # answer, since 16 warps x 16 B = 64 warps x 4 B.
    assert 64 * 32 * 4 < 4.8e12 * 337e-9 / 132
    assert 132 * 64 * 32 * 4 / 337e-9 == approx(3.21e12, rel=0.01)
    assert 16 * 16 == 64 * 4
    # The scheduler diagram: 8-cycle loads, a round of 1 + 8 + 1 = 10 cycles with 2 issued,
    # so 10 / 2 = 5 warps keep one scheduler busy.
    assert (1 + 8 + 1) / 2 == 5
    # Exercise 9 against the law's idle figure: 4,081,920 B / 1,508,437 B = 2.7.
    assert 3.84e12 * 1063e-9 / (4.417e12 * 341.5e-9) == approx(2.7, rel=0.01)
    # 128 KB on a T4 (320 GB/s x 400 ns) is 32,000 four-byte loads.
    assert 320e9 * 400e-9 / 4 == approx(32_000)
    # Exercise 11 (qualitative, no registered answer): 25% occupancy of an H200 SM is 16 warps;
    # 132 SMs x 16 warps x 32 threads x 4 B over the recorded idle 341.5 ns is about 0.8 TB/s.
    assert 132 * 16 * 32 * 4 / 341.5e-9 == approx(0.8e12, rel=0.02)


def test_latency_8_reads_the_recorded_one_sm_sweep():
    # the constants of latency-8 are the re-run H200 sweep's, read from its JSON
    import json
    import pathlib
    from exercises import latency
    summary = json.loads((pathlib.Path(__file__).resolve().parents[1] / "labs" / "results"
                          / "H200" / "littles_law.json").read_text())["summary"]
    assert latency.H200_ONE_SM == approx(summary["one_sm_bandwidth"], rel=0.01)
    assert latency.H200_SATURATION == approx(summary["saturation_bandwidth"], rel=0.01)
