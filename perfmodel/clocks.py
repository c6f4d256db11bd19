"""Why the roof moves: peak = SMs x lanes x 2 x clock, and a power cap that sets the clock.

The power model is the simplest one that fits the T4 note's measurements:
board power = idle + k x clock, where k (W/Hz) depends on the work. Under a power
limit the card runs at min(max_clock, (limit - idle) / k).
"""
from __future__ import annotations

from . import _check

#: Watts drawn by an idle T4 (an estimate; the T4 note gives the loaded points only).
T4_IDLE_W = 10.0
#: The T4 note's sustained measurements: (TFLOP/s, clock Hz, watts) per workload.
T4_MEASURED = {
    "fma_fp32": (6.8e12, 1365e6, 67.0),
    "matmul_fp32": (3.5e12, 705e6, 66.0),
    "matmul_fp16_tensor": (21e12, 570e6, 67.0),
}
T4_MAX_CLOCK_HZ = 1590e6
T4_POWER_LIMIT_W = 70.0
#: The T4 note's burst after streaming memory (2048^3 FP16 products): the clock started at
#: 1,409 MHz, was halfway down to the sustained level within 37 ms and there within about 50.
T4_BURST_START_HZ, T4_BURST_SETTLED_HZ = 1409e6, 580e6
T4_BURST_HALFWAY_S, T4_BURST_SETTLED_S = 37e-3, 50e-3
#: The T4 note's four runs of the opening sweep: the 4096^3 FP32 product took 32.6 ms on the
#: coolest card (58 C) and 35.4 ms on the warmest (68 C), in the order of temperature.
T4_TEMPERATURE_RUNS = {58.0: 32.6e-3, 68.0: 35.4e-3}
T4_TEMPERATURE_N = 4096


def peak(sms: int, lanes_per_sm: int, clock_hz: float, flops_per_lane_cycle: float = 2.0) -> float:
    """Peak FLOP/s: sms x lanes x flops per lane per cycle (2 for an FMA) x clock."""
    return (_check.count("sms", sms) * _check.count("lanes_per_sm", lanes_per_sm) *
            _check.positive("flops_per_lane_cycle", flops_per_lane_cycle) *
            _check.positive("clock_hz", clock_hz))


def watts_per_hz(watts: float, clock_hz: float, idle_w: float = T4_IDLE_W) -> float:
    """The workload's k in W/Hz from one measured (power, clock) point."""
    w = _check.positive("watts", watts)
    idle = _check.non_negative("idle_w", idle_w)
    if w <= idle:
        raise ValueError(f"watts must exceed idle_w ({idle} W); got {watts!r}")
    return (w - idle) / _check.positive("clock_hz", clock_hz)


def sustained_clock(power_limit_w: float, k_w_per_hz: float, max_clock_hz: float,
                    idle_w: float = T4_IDLE_W) -> float:
    """Clock (Hz) the card holds under a power limit: min(max, (limit - idle) / k)."""
    limit = _check.positive("power_limit_w", power_limit_w)
    idle = _check.non_negative("idle_w", idle_w)
    k = _check.positive("k_w_per_hz", k_w_per_hz)
    top = _check.positive("max_clock_hz", max_clock_hz)
    return max(0.0, min(top, (limit - idle) / k))


def t4_workload_clock(workload: str, power_limit_w: float = T4_POWER_LIMIT_W,
                      max_clock_hz: float = T4_MAX_CLOCK_HZ) -> float:
    """The model's T4 clock for one of T4_MEASURED's workloads under a power limit."""
    w = _check.choice("workload", workload, T4_MEASURED)
    _, clock, watts = T4_MEASURED[w]
    return sustained_clock(power_limit_w, watts_per_hz(watts, clock), max_clock_hz)


def power_at_clock(k_w_per_hz: float, clock_hz: float, idle_w: float = T4_IDLE_W) -> float:
    """Board power (W) the linear model gives a workload of k W/Hz at a clock: idle + k x clock.

    The inverse of :func:`sustained_clock`: the power limit a workload would need to hold
    ``clock_hz``.
    """
    idle = _check.non_negative("idle_w", idle_w)
    return idle + _check.positive("k_w_per_hz", k_w_per_hz) * _check.positive("clock_hz", clock_hz)


def fraction_of_peak(measured_flops: float, peak_flops: float, clock_hz: float,
                     peak_clock_hz: float) -> float:
    """A measured rate over the peak scaled to the clock it actually ran at:
    measured / (peak x clock / peak_clock). Near 1: the gap to the datasheet is the clock."""
    m = _check.positive("measured_flops", measured_flops)
    p = _check.positive("peak_flops", peak_flops)
    return m / (p * _check.positive("clock_hz", clock_hz)
                / _check.positive("peak_clock_hz", peak_clock_hz))
