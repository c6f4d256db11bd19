"""Argument checks shared by the model: each raises ValueError naming the argument."""
from __future__ import annotations

import math
from numbers import Real


#: The largest integer a float holds exactly; no size, count or index the model takes is larger.
MAX_COUNT = 2 ** 53


def show(value: object) -> str:
    """repr() for a message, short even for a huge integer or a long text."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an integer of about {int(value.bit_length() * 0.30103)} digits"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 (a repr that fails is still an argument to name)
        text = f"a {type(value).__name__}"
    return text if len(text) <= 80 else text[:77] + "..."


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number, got {show(value)}")
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be a number a float can hold, got {show(value)}") from None
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


def count(name: str, value: object, minimum: int = 1, maximum: int = MAX_COUNT) -> int:
    """Return value as int; raise ValueError unless it is an integer in [minimum, maximum]
    (``maximum`` bounds what a function allocates, e.g. one entry per lane)."""
    if isinstance(value, bool) or not isinstance(value, Real) or not (
            isinstance(value, int) or math.isfinite(value) and float(value) == int(value)):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {show(value)}")
    v = int(value)
    if v < minimum or v > maximum:
        top = "2**53" if maximum == MAX_COUNT else f"{maximum:,}"
        raise ValueError(f"{name} must be an integer in [{minimum}, {top}], got {show(value)}")
    return v


def choice(name: str, value: object, options) -> str:
    """Return the lower-cased option; raise ValueError listing the accepted names."""
    options = list(options)
    if isinstance(value, str) and value.lower() in options:
        return value.lower()
    raise ValueError(f"{name} must be one of {', '.join(options)}; got {value!r}")


#: The longest list the model takes (of path lengths, scores, stage times, ...).
MAX_ITEMS = 10 ** 6


def items(name: str, value: object, *, minimum: int = 0) -> list:
    """Return value as a list; raise TypeError naming the argument unless it is a sequence
    or iterable of items (a list, a tuple, a range, an array, not text or a mapping), and
    ValueError unless it holds from ``minimum`` to MAX_ITEMS items."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a list of values, got {show(value)}")
    try:
        out = []
        for x in value:
            out.append(x)
            if len(out) > MAX_ITEMS:
                raise ValueError(f"{name} must hold at most {MAX_ITEMS:,} values")
    except TypeError:
        raise TypeError(f"{name} must be a list of values, got {show(value)}") from None
    if len(out) < minimum:
        raise ValueError(f"{name} must hold at least {minimum} value(s), got {len(out)}")
    return out


def instance(name: str, value: object, kind: type, what: str) -> object:
    """Return value; raise TypeError naming the argument unless it is a ``kind``."""
    if not isinstance(value, kind):
        raise TypeError(f"{name} must be {what}, got {show(value)}")
    return value


#: Most lanes a modelled warp or request may have (a warp has 32; arrays are per lane).
MAX_LANES = 2 ** 16


def whole(names: str, value: float) -> int:
    """ceil(value) as an int; ValueError naming the arguments ``names`` when the value is
    not finite (an argument so small or large that the count overflows)."""
    if not math.isfinite(value):
        raise ValueError(f"{names} give a count too large to hold ({value})")
    return math.ceil(value)
