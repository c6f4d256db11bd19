"""perfmodel.units' plain numbers, ratios, percentages and counts: 2-3 significant figures,
thousands separators, never e-notation (house style). Expected strings written by hand."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, strategies as st

from perfmodel import units


@pytest.mark.parametrize("x, text", [
    (1234.5, "1,230"), (0.0001234, "0.000123"), (2.0, "2"), (5.034, "5.03"),
    (999.96, "1,000"), (12_345_678.9, "12,300,000"), (-3.14159, "-3.14"), (0.5, "0.5"),
    (0, "0"), (14.72777, "14.7"), (188.867, "189"),
])
def test_number(x, text):
    assert units.number(x) == text


def test_number_digits_and_specials():
    assert units.number(3.14159, digits=2) == "3.1"
    assert units.number(float("nan")) == "n/a"
    assert units.number(float("inf")) == "∞"


@pytest.mark.parametrize("call, text", [
    (lambda: units.ratio(2.3388), "2.34x"), (lambda: units.ratio(5.5), "5.5x"),
    (lambda: units.ratio(3.0), "3x"), (lambda: units.percent(0.9815), "98.2%"),
    (lambda: units.percent(1.0308), "103%"), (lambda: units.percent(0.0625), "6.25%"),
    (lambda: units.count(65536), "65,536"), (lambda: units.count(262144.0), "262,144"),
])
def test_ratio_percent_count(call, text):
    assert call() == text


def test_bad_input_names_the_argument():
    with pytest.raises(TypeError, match="x must be a number"):
        units.number("3")
    with pytest.raises(ValueError, match="digits"):
        units.number(3.0, digits=0)
    with pytest.raises(ValueError, match="n must be a whole number"):
        units.count(2.5)
    with pytest.raises(TypeError, match="n must be a finite number"):
        units.count(float("nan"))


@given(st.floats(min_value=-1e15, max_value=1e15, allow_nan=False).filter(lambda v: v != 0))
def test_never_e_notation_and_three_figures(x):
    text = units.number(x)
    assert "e" not in text.lower()
    digits = text.replace(",", "").replace("-", "").replace(".", "").lstrip("0")
    assert 1 <= len(digits.rstrip("0") or "0") <= 3
    assert math.isclose(float(text.replace(",", "")), x, rel_tol=5e-3)
