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


def karp_flatt(speedup: float, p: float) -> float:
    """The serial fraction a measured speedup implies (Karp-Flatt metric), for p > 1 units:
    (1/S - 1/p) / (1 - 1/p). Inverts Amdahl: karp_flatt(amdahl(f, p), p) == f."""
    s = _check.positive("speedup", speedup)
    p = _check.positive("p", p)
    if p <= 1:
        raise ValueError(f"p must be in (1, inf) for the Karp-Flatt metric, got {p!r}")
    return (1.0 / s - 1.0 / p) / (1.0 - 1.0 / p)


def pipeline_time(items: int, stage_times) -> float:
    """Seconds for ``items`` to pass through stages that overlap (each stage works on a
    different item at once): the first item takes the sum of the stage times, each later
    one leaves after the slowest stage, sum + (items - 1) x max. stage_times in seconds."""
    n = _check.count("items", items)
    stages = [_check.non_negative(f"stage_times[{i}]", t)
              for i, t in enumerate(_check.items("stage_times", stage_times))]
    if not stages:
        raise ValueError("stage_times must list at least one stage time (seconds)")
    return sum(stages) + (n - 1) * max(stages)


def barrier_efficiency(work) -> float:
    """Useful fraction of p units' time between two barriers, when unit i has work[i]
    (seconds): everyone waits for the slowest, so sum(work) / (p x max(work))."""
    w = [_check.non_negative(f"work[{i}]", x) for i, x in enumerate(_check.items("work", work))]
    if not w or max(w) == 0:
        raise ValueError("work must list at least one unit with work > 0")
    return sum(w) / (len(w) * max(w))


def in_flight(throughput: float, latency: float) -> float:
    """Little's law in general: the items that must be in progress at once to sustain
    ``throughput`` (items/s) when each takes ``latency`` (s) to complete."""
    return _check.positive("throughput", throughput) * _check.positive("latency", latency)
