"""Argument checks shared by the model: each raises ValueError naming the argument."""
from __future__ import annotations

import math
from numbers import Real


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{name} must be a number, got NaN")
    return value


def positive(name: str, value: object, *, allow_inf: bool = False) -> float:
    """Return value as float; raise ValueError unless 0 < value (< inf unless allowed)."""
    v = _number(name, value)
    if v <= 0 or (math.isinf(v) and not allow_inf):
        rng = "(0, inf]" if allow_inf else "(0, inf)"
        raise ValueError(f"{name} must be in {rng}, got {value!r}")
    return v


def non_negative(name: str, value: object) -> float:
    """Return value as float; raise ValueError unless 0 <= value < inf."""
    v = _number(name, value)
    if v < 0 or math.isinf(v):
        raise ValueError(f"{name} must be in [0, inf), got {value!r}")
    return v


def fraction(name: str, value: object) -> float:
    """Return value as float; raise ValueError unless 0 <= value <= 1."""
    v = _number(name, value)
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return v


def count(name: str, value: object, minimum: int = 1) -> int:
    """Return value as int; raise ValueError unless it is an integer >= minimum."""
    if isinstance(value, bool) or not isinstance(value, Real) or not (
            isinstance(value, int) or math.isfinite(value) and float(value) == int(value)):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    v = int(value)
    if v < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return v


def choice(name: str, value: object, options) -> str:
    """Return the lower-cased option; raise ValueError listing the accepted names."""
    options = list(options)
    if isinstance(value, str) and value.lower() in options:
        return value.lower()
    raise ValueError(f"{name} must be one of {', '.join(options)}; got {value!r}")
