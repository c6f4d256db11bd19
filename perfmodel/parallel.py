"""Amdahl, Gustafson and efficiency. f is the serial fraction in [0, 1], p the number of
processing units (p may be math.inf for Amdahl's limit)."""
from __future__ import annotations

import math

from . import _check


def amdahl(serial_fraction: float, p: float) -> float:
    """Speedup of a fixed workload on p units: 1 / (f + (1 - f) / p). At p = inf, 1/f."""
    f = _check.fraction("serial_fraction", serial_fraction)
    p = _check.positive("p", p, allow_inf=True)
    if math.isinf(p):
        return math.inf if f == 0 else 1.0 / f
    return 1.0 / (f + (1.0 - f) / p)


def gustafson(serial_fraction: float, p: float) -> float:
    """Scaled speedup when the work grows with p: f + (1 - f) p (f measured on p units)."""
    f = _check.fraction("serial_fraction", serial_fraction)
    p = _check.positive("p", p)
    return f + (1.0 - f) * p


def efficiency(speedup: float, p: float) -> float:
    """Speedup per unit: speedup / p (1.0 is perfect use of every unit)."""
    return _check.positive("speedup", speedup) / _check.positive("p", p)


def speedup(t_serial: float, t_parallel: float) -> float:
    """T1 / Tp."""
    return _check.positive("t_serial", t_serial) / _check.positive("t_parallel", t_parallel)


def serial_fraction(serial_time: float, parallel_time: float) -> float:
    """f = serial / (serial + parallelisable), both timed on one unit (seconds)."""
    s = _check.non_negative("serial_time", serial_time)
    par = _check.non_negative("parallel_time", parallel_time)
    if s + par == 0:
        raise ValueError("serial_time + parallel_time must be > 0")
    return s / (s + par)
