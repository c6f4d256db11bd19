"""Display formatting of SI quantities (the model itself never formats)."""
from __future__ import annotations

import math
from numbers import Real

_PREFIXES = [(1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")]
_SMALL = [(1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n")]


def _real(name: str, x: object) -> float:
    """x as a float, or TypeError/ValueError naming the argument."""
    if isinstance(x, bool) or not isinstance(x, Real):
        raise TypeError(f"{name} must be a number; got {type(x).__name__}")
    try:
        return float(x)
    except OverflowError:
        raise ValueError(f"{name} must be a number a float can hold; got an integer of "
                         f"{x.bit_length()} bits") from None


def si(value: float, unit: str, digits: int = 3) -> str:
    """value with an SI prefix: si(8.1e12, 'FLOP/s') -> '8.1 TFLOP/s'."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    value = _real("value", value)
    if not isinstance(unit, str):
        raise TypeError(f"unit must be text like 'FLOP/s'; got {type(unit).__name__}")
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 17:
        raise ValueError(f"digits must be an integer from 1 to 17; got {digits!r}")
    if math.isnan(value):
        return "n/a"
    if value == 0:
        return f"0 {unit}"
    if math.isinf(value):
        return f"∞ {unit}"
    table = _PREFIXES if abs(value) >= 1 else _SMALL
    for scale, prefix in table:
        if abs(value) >= scale * 0.9995:
            break
    return f"{value / scale:.{digits}g} {prefix}{unit}"


def flops(x: float) -> str:
    return si(x if x is None else _real("x", x), "FLOP/s")


def bandwidth(x: float) -> str:
    return si(x if x is None else _real("x", x), "B/s")


def seconds(x: float) -> str:
    return si(x if x is None else _real("x", x), "s")


def nbytes(x: float) -> str:
    return si(x if x is None else _real("x", x), "B")


def number(x: float, digits: int = 3) -> str:
    """A plain number for people: ``digits`` significant figures, thousands separators,
    trailing zeros dropped, never e-notation: 1234.5 -> '1,230', 0.0001234 -> '0.000123'."""
    x = _real("x", x)
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 17:
        raise ValueError(f"digits must be an integer from 1 to 17; got {digits!r}")
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if x == 0:
        return "0"
    decimals = digits - 1 - math.floor(math.log10(abs(x)))
    text = f"{round(x, decimals):,.{max(decimals, 0)}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def ratio(x: float, digits: int = 3) -> str:
    """A ratio as people write it: ratio(2.34) -> '2.34x', ratio(5.5) -> '5.5x'."""
    return f"{number(x, digits)}x"


def percent(fraction: float, digits: int = 3) -> str:
    """A fraction as a percentage: percent(0.9815) -> '98.2%', percent(1.03) -> '103%'."""
    return f"{number(100 * _real('fraction', fraction), digits)}%"


def count(n: float) -> str:
    """A whole number with thousands separators: count(65536) -> '65,536'."""
    if isinstance(n, bool) or not isinstance(n, Real) or not math.isfinite(_real("n", n)):
        raise TypeError(f"n must be a finite number; got {n!r}")
    if n != int(n):
        raise ValueError(f"n must be a whole number; got {n!r}")
    return f"{int(n):,}"
