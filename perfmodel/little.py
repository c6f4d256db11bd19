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
    return _check.whole("bandwidth, latency and bytes_per_load",
                        threads_needed(bandwidth, latency, per_thread) / WARP)


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
    if not math.isfinite(in_flight):
        raise ValueError(f"warps x loads_per_thread x bytes_per_load overflows ({in_flight})")
    return achieved_bandwidth(in_flight, latency, peak)


# --- Registers as the budget for bytes in flight (occupancy), and the loaded system. ---

REGISTER_BYTES = 4          # one 32-bit register
from .simt import MAX_REGISTERS_PER_THREAD  # noqa: E402  (the per-thread register limit)


def in_flight(warps: float, loads_per_thread: int = 1, bytes_per_load: float = 4.0) -> float:
    """Bytes on order when ``warps`` warps each keep ``loads_per_thread`` independent loads
    of ``bytes_per_load`` bytes open per thread: warps x 32 x loads x bytes."""
    return (_check.non_negative("warps", warps) * WARP
            * _check.count("loads_per_thread", loads_per_thread)
            * _check.positive("bytes_per_load", bytes_per_load))


def registers_per_sm(machine) -> int:
    """32-bit registers in one SM's register file (65,536 on a T4 and on Hopper)."""
    from . import machines

    return int(machines.get(machine).hardware("registers_per_sm_bytes") // REGISTER_BYTES)


def resident_warps(machine, registers_per_thread: int) -> int:
    """Warps one SM holds when every thread needs ``registers_per_thread`` registers:
    min(the SM's warp limit, the warps its register file holds with the hardware's
    allocation granularity, :func:`perfmodel.simt.register_limited_warps`).

    Blocks are ignored: a kernel's block size can only lower this (whole blocks fit;
    see :func:`perfmodel.simt.resident_threads`)."""
    from . import machines, simt

    m = machines.get(machine)
    r = _check.count("registers_per_thread", registers_per_thread)
    if r > MAX_REGISTERS_PER_THREAD:
        raise ValueError(f"registers_per_thread must be at most {MAX_REGISTERS_PER_THREAD}, "
                         f"got {registers_per_thread!r}")
    limit = int(m.hardware("max_threads_per_sm") // WARP)
    return min(limit, simt.register_limited_warps(m, r))


def occupancy(machine, registers_per_thread: int) -> float:
    """Resident warps over the most the SM can hold, in [0, 1]."""
    from . import machines

    m = machines.get(machine)
    return resident_warps(m, registers_per_thread) / (m.hardware("max_threads_per_sm") / WARP)


def bandwidth_with_registers(machine, registers_per_thread: int, latency: float,
                             loads_per_thread: int = 1, bytes_per_load: float = 4.0) -> float:
    """byte/s the whole chip can sustain when register use caps the resident warps on every
    SM and each thread keeps ``loads_per_thread`` loads of ``bytes_per_load`` open:
    min(DRAM bandwidth, SMs x resident warps x 32 x loads x bytes / latency)."""
    from . import machines

    m = machines.get(machine)
    warps = m.sms * resident_warps(m, registers_per_thread)
    held = in_flight(warps, loads_per_thread, bytes_per_load)
    if not math.isfinite(held):
        raise ValueError(f"loads_per_thread x bytes_per_load overflows ({held})")
    return achieved_bandwidth(held, latency, m.bandwidth("dram"))


def sms_needed(bandwidth: float, per_sm_bandwidth: float) -> int:
    """Fewest SMs that can pull ``bandwidth`` when one SM alone tops out at
    ``per_sm_bandwidth``: ceil(bandwidth / per-SM cap)."""
    return _check.whole("bandwidth and per_sm_bandwidth", _check.positive("bandwidth", bandwidth)
                     / _check.positive("per_sm_bandwidth", per_sm_bandwidth))


def implied_latency(in_flight_bytes: float, bandwidth: float) -> float:
    """Little's law read backwards: the time each byte spends on order, in seconds, when
    ``in_flight_bytes`` are outstanding and ``bandwidth`` byte/s come back."""
    return _check.positive("in_flight_bytes", in_flight_bytes) / _check.positive("bandwidth", bandwidth)


# --- Latency hiding, cycle by cycle: one scheduler, warps that load and then use. ---

#: States of a warp in one cycle of :func:`issue_timeline`.
ISSUE_LOAD, WAITING, ISSUE_USE, READY = "load", "wait", "use", "ready"


def issue_timeline(warps: int, latency_cycles: int, cycles: int) -> list[list[str]]:
    """What each of ``warps`` warps does in each of ``cycles`` cycles when one scheduler
    issues one instruction per cycle and every warp loops over "issue a load, wait
    ``latency_cycles`` cycles for it, issue one instruction that uses it". Each cycle the
    lowest-numbered ready warp issues; the others that are ready wait their turn.
    Returns rows (one per warp) of states: ISSUE_LOAD, WAITING, ISSUE_USE, READY."""
    w = _check.count("warps", warps, maximum=64)
    lat = _check.count("latency_cycles", latency_cycles, maximum=4096)
    n = _check.count("cycles", cycles, maximum=4096)
    rows = [[READY] * n for _ in range(w)]
    next_op = [ISSUE_LOAD] * w        # what each warp issues next
    free_at = [0] * w                 # first cycle the warp may issue again
    for t in range(n):
        issued = False
        for k in range(w):
            if t < free_at[k]:
                rows[k][t] = WAITING
            elif not issued:
                rows[k][t] = next_op[k]
                issued = True
                if next_op[k] == ISSUE_LOAD:
                    free_at[k], next_op[k] = t + 1 + lat, ISSUE_USE
                else:
                    free_at[k], next_op[k] = t + 1, ISSUE_LOAD
    return rows
# --- Reading a sweep: the effective latency of its linear part, and whether it levelled off. ---

def _sweep(in_flight_bytes, bandwidth) -> tuple[list[float], list[float]]:
    xs = [_check.positive(f"in_flight_bytes[{i}]", x)
          for i, x in enumerate(_check.items("in_flight_bytes", in_flight_bytes))]
    ys = [_check.positive(f"bandwidth[{i}]", y)
          for i, y in enumerate(_check.items("bandwidth", bandwidth))]
    if len(xs) != len(ys) or not xs:
        raise ValueError(f"in_flight_bytes and bandwidth must be non-empty and of one length, "
                         f"got {len(xs)} and {len(ys)}")
    return xs, ys


def fit_latency(in_flight_bytes, bandwidth, below: float = 0.5) -> float:
    """The effective latency (s) of a bandwidth sweep's linear part: Little's law
    bandwidth = bytes in flight / latency fitted by least squares through the origin to the
    points whose bandwidth is under ``below`` x the sweep's best (the slope k = sum(x y) /
    sum(x^2), latency 1 / k). Read off the points that are not yet saturated, it says how long
    a request really spent on order there, rather than where a coarse grid first crossed a
    threshold."""
    xs, ys = _sweep(in_flight_bytes, bandwidth)
    cut = _check.fraction("below", below) * max(ys)
    pts = [(x, y) for x, y in zip(xs, ys) if y < cut]
    if not pts:
        raise ValueError(f"no point of the sweep lies below {below} of its best bandwidth")
    return sum(x * x for x, _ in pts) / sum(x * y for x, y in pts)


def growth_exponent(in_flight_bytes, bandwidth) -> float:
    """How the last step of a sweep scaled: log(bw_last / bw_prev) / log(x_last / x_prev),
    after sorting by bytes in flight. 1 while bandwidth still grows in proportion to the bytes
    in flight (the linear part), near 0 once it has levelled off."""
    xs, ys = _sweep(in_flight_bytes, bandwidth)
    pts = sorted(zip(xs, ys))
    if len(pts) < 2 or pts[-1][0] == pts[-2][0]:
        raise ValueError("the sweep needs two points with different bytes in flight at its end")
    (x0, y0), (x1, y1) = pts[-2], pts[-1]
    return math.log(y1 / y0) / math.log(x1 / x0)


def levelled_off(in_flight_bytes, bandwidth, exponent: float = 0.25) -> bool:
    """True when the sweep's last step grew the bandwidth by less than ``exponent`` of the
    growth in bytes in flight (on a log scale; see :func:`growth_exponent`)."""
    return growth_exponent(in_flight_bytes, bandwidth) < _check.positive("exponent", exponent)
