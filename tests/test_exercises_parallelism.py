"""Each numeric answer of "The mathematics of parallelism" against plain arithmetic from the
source notes' numbers (never perfmodel's output copied)."""
import pytest

from exercise_checks import chapter_checks

EXPECTED = {
    # Amdahl's offload form: 80% of the time 20x faster, 20% unchanged
    "parallelism-1": 1 / (0.2 + 0.8 / 20),
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
    # a tree sum of 2^26 on 2^14 lanes: W/p + D = (2^26 - 1) / 2^14 + 26
    "parallelism-15": (2 ** 26 - 1) / 2 ** 14 + 26,
}


(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "parallelism", EXPECTED)


def test_toll_serial_fraction_waited_for_queued_and_graph():
    """Waited for: t0 / (t0 + tk). Queued or graph launches overlap the kernel before: only
    max(0, t0 - tk) of each max(t0, tk) is serial (the pipeline's steady state)."""
    from exercises.parallelism import toll_serial_fraction

    assert toll_serial_fraction(10e-6, 100e-6, False) == pytest.approx(10 / 110)
    assert toll_serial_fraction(10.6e-6, 100e-6, True) == 0.0       # hidden by the kernel
    assert toll_serial_fraction(10.6e-6, 10e-6, True) == pytest.approx(0.6 / 10.6)
    assert toll_serial_fraction(1e-6, 10e-6, True) == 0.0
    with pytest.raises(ValueError, match="kernel"):
        toll_serial_fraction(1e-6, 0.0, True)
    with pytest.raises(ValueError, match="toll"):
        toll_serial_fraction(-1e-6, 1e-6, False)


def test_offload_speedup_and_its_bad_input():
    from exercises.parallelism import offload_speedup

    assert offload_speedup(0.6, 19) == pytest.approx(1 / (0.4 + 0.6 / 19))
    assert offload_speedup(0.0, 100) == 1.0
    with pytest.raises(ValueError, match="share"):
        offload_speedup(1.2, 2)
    with pytest.raises(ValueError, match="gain"):
        offload_speedup(0.5, 0)
