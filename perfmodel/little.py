"""Little's law for memory: bytes in flight = bandwidth x latency.

Bandwidth in byte/s, latency in seconds, bytes in bytes.
"""
from __future__ import annotations

import math

from . import _check

WARP = 32


def bytes_in_flight(bandwidth: float, latency: float) -> float:
    """Bytes that must be outstanding to sustain ``bandwidth`` when a load takes ``latency``."""
    return _check.positive("bandwidth", bandwidth) * _check.positive("latency", latency)


def threads_needed(bandwidth: float, latency: float, bytes_per_thread: float) -> float:
    """Threads, each with ``bytes_per_thread`` outstanding, to keep the pipe full."""
    return bytes_in_flight(bandwidth, latency) / _check.positive("bytes_per_thread", bytes_per_thread)


def warps_needed(bandwidth: float, latency: float, loads_per_thread: int = 1,
                 bytes_per_load: float = 4.0) -> float:
    """Warps needed when each thread keeps ``loads_per_thread`` loads of ``bytes_per_load`` open."""
    per_thread = _check.count("loads_per_thread", loads_per_thread) * \
        _check.positive("bytes_per_load", bytes_per_load)
    return math.ceil(threads_needed(bandwidth, latency, per_thread) / WARP)


def achieved_bandwidth(in_flight: float, latency: float, peak: float) -> float:
    """byte/s delivered with ``in_flight`` bytes outstanding: min(peak, in_flight / latency)."""
    return min(_check.positive("peak", peak),
               _check.non_negative("in_flight", in_flight) / _check.positive("latency", latency))


def bandwidth_vs_warps(warps: int, loads_per_thread: int, bytes_per_load: float,
                       latency: float, peak: float) -> float:
    """byte/s with ``warps`` warps, each thread keeping ``loads_per_thread`` loads open."""
    w = _check.count("warps", warps, 0)
    in_flight = w * WARP * _check.count("loads_per_thread", loads_per_thread) * \
        _check.positive("bytes_per_load", bytes_per_load)
    return achieved_bandwidth(in_flight, latency, peak)
