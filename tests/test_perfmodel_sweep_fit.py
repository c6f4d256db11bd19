"""Reading a bandwidth sweep: the fitted latency of its linear part and its plateau test,
on synthetic sweeps whose latency and ceiling are chosen here."""
import math

import pytest

from perfmodel import little


def _sweep(latency, ceiling, xs):
    return [min(x / latency, ceiling) for x in xs]


def test_fit_recovers_the_latency_of_a_pure_law():
    xs = [2 ** k * 1024 for k in range(10, 24)]
    ys = _sweep(700e-9, 4.4e12, xs)
    assert little.fit_latency(xs, ys) == pytest.approx(700e-9)


def test_fit_ignores_the_saturated_points_and_tolerates_noise():
    xs = [2 ** k for k in range(14, 26)]
    ys = [y * (1 + 0.03 * (-1) ** i) for i, y in enumerate(_sweep(900e-9, 4.0e12, xs))]
    assert little.fit_latency(xs, ys) == pytest.approx(900e-9, rel=0.05)


def test_a_bent_curve_fits_a_longer_latency_than_its_first_point():
    # bandwidth = x / (L0 + x / B): latency grows with load (queueing)
    xs = [2 ** k for k in range(14, 26)]
    ys = [x / (600e-9 + x / 5e12) for x in xs]
    assert little.fit_latency(xs, ys) > 600e-9


def test_growth_and_plateau():
    xs = [2 ** k for k in range(10, 18)]
    assert little.growth_exponent(xs, _sweep(1e-6, 1e15, xs)) == pytest.approx(1.0)
    assert not little.levelled_off(xs, _sweep(1e-6, 1e15, xs))
    flat = _sweep(1e-6, xs[3] / 1e-6, xs)
    assert little.growth_exponent(xs, flat) == pytest.approx(0.0)
    assert little.levelled_off(xs, flat)
    # the recorded H200 one-SM sweep's last doubling: 103 -> 191 GB/s, exponent 0.89
    assert little.growth_exponent([65536, 131072], [102.8e9, 190.6e9]) == pytest.approx(
        math.log(190.6 / 102.8) / math.log(2))


@pytest.mark.parametrize("call, name", [
    (lambda: little.fit_latency([], []), "one length"),
    (lambda: little.fit_latency([1, 2], [1]), "one length"),
    (lambda: little.fit_latency([1, 2], [1, -1]), "bandwidth"),
    (lambda: little.fit_latency([1, 2], [5, 5]), "below"),
    (lambda: little.growth_exponent([1], [1]), "two points"),
])
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()
