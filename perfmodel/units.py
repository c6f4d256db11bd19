"""Display formatting of SI quantities (the model itself never formats)."""
from __future__ import annotations

import math

_PREFIXES = [(1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")]
_SMALL = [(1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n")]


def si(value: float, unit: str, digits: int = 3) -> str:
    """value with an SI prefix: si(8.1e12, 'FLOP/s') -> '8.1 TFLOP/s'."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
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
    return si(x, "FLOP/s")


def bandwidth(x: float) -> str:
    return si(x, "B/s")


def seconds(x: float) -> str:
    return si(x, "s")


def nbytes(x: float) -> str:
    return si(x, "B")
