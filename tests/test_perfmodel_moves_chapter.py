"""perfmodel additions for chapter 9: clocks.power_at_clock, clocks.fraction_of_peak and
waves.attainable_fraction, against the source notes' numbers worked by hand."""
import pytest
from pytest import approx

from perfmodel import clocks, waves


def test_power_at_clock_inverts_sustained_clock():
    k = (67 - 10) / 1365e6
    assert clocks.power_at_clock(k, 1365e6) == approx(67)
    limit = clocks.power_at_clock(k, 1200e6)
    assert clocks.sustained_clock(limit, k, 1590e6) == approx(1200e6)


def test_fraction_of_peak_closes_the_t4_gap():
    # The notes: cuBLAS FP32 3.52 TFLOP/s at 705 MHz is 97% of 40 x 64 x 2 x 0.705 GHz.
    assert clocks.fraction_of_peak(3.52e12, 8.1408e12, 705e6, 1590e6) == approx(0.975, abs=5e-3)
    # The FMA kernel: 6.8 at 1365 MHz is 97% of the peak at that clock.
    assert clocks.fraction_of_peak(6.8e12, 8.1408e12, 1365e6, 1590e6) == approx(0.973, abs=5e-3)


def test_attainable_fraction_1792_vs_1793():
    # 1792: 98 full tiles in one wave of 108: 98/108 of the slots, no waste in the tiles.
    assert waves.attainable_fraction(1792, 1792, 256, 128, 108) == approx(98 / 108)
    # 1793: 120 tiles (most partial) in two waves.
    assert waves.attainable_fraction(1793, 1793, 256, 128, 108) == approx(
        1793 ** 2 / (120 * 256 * 128) * 120 / 216)


@pytest.mark.parametrize("bad", [
    lambda: clocks.power_at_clock(0, 1e9),
    lambda: clocks.power_at_clock(1e-8, -1),
    lambda: clocks.fraction_of_peak(1e12, 0, 1e9, 1e9),
    lambda: waves.attainable_fraction(0, 10, 256, 128, 108),
    lambda: waves.attainable_fraction(10, 10, 256, 128, 0),
])
def test_bad_input_raises_value_error(bad):
    with pytest.raises(ValueError):
        bad()
