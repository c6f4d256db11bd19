"""How long ``python -m labs challenge time NAME --quick`` takes on a T4, from the model.

The same T4 as :mod:`labs.budget` (the source notes' measured roofs) and its assumed fixed
costs (start-up, a numba compile), plus: making the inputs and the numpy reference on the
host (``HOST_PASSES`` passes over the data at the notes' CPU bandwidth), the copies over
PCIe, and the launches: one checked run, two warm-ups and ten timed repeats, each taken
as ``SLOWDOWN`` times the bound (a starter far from its bound; the reference is faster),
each behind the timing's queued spin. The host's share (numpy's random numbers and the
reference, ``HOST_PASSES`` passes over the data) is priced at ``HOST_BYTES_PER_S``, an
assumption: a notebook CPU making random float32 and running numpy over them. Pure
arithmetic; a test holds every challenge's stated figure to it and under a minute.
"""
from __future__ import annotations

import math
import pathlib
from types import ModuleType

from perfmodel import roofline

from ..budget import NUMBA_COMPILE_S, SPIN_S, START_S, t4

#: Launches of one quick timing: the check run, 2 warm-ups, 10 repeats.
LAUNCHES = 13
#: The starter's time over the bound, assumed (the worst starter here, one atomic per
#: element, is about this far off on a T4).
SLOWDOWN = 20.0
#: Bytes a second the host gets through making the inputs and the numpy reference:
#: assumed (numpy's generator fills about 1 GB/s of float32 on one core).
HOST_BYTES_PER_S = 1e9


def quick_seconds(ch: ModuleType) -> dict:
    """``{"seconds": total, "parts": {what: seconds}}`` for one challenge's quick timing."""
    m = t4()
    size = ch.sizes("quick")
    op = ch.op(**size)
    data = ch.data_bytes(**size)
    parts = {"start-up": START_S,
             "compile": ch.COMPILES * NUMBA_COMPILE_S,
             "host data and numpy reference": ch.HOST_PASSES * data / HOST_BYTES_PER_S,
             "PCIe copies": 3 * data / m.bandwidth("pcie"),
             "launches": LAUNCHES * (SLOWDOWN * roofline.time(m, op, ch.UNIT) + SPIN_S)}
    return {"seconds": sum(parts.values()), "parts": parts}


def stated(seconds: float) -> int:
    """The whole seconds a docstring states (rounded up)."""
    return int(math.ceil(seconds))



# ------------------------------------------------- the time a kernel's counts imply

#: Bytes one shared-memory pass moves: 32 banks of 4 bytes.
SHARED_PASS_BYTES = 32 * 4
#: Threads the simulator counts as one SM's worth when a grid does not grow with the size
#: (``resident_grid`` and ``ilp.sms`` size a one-wave grid for 2 SMs under the simulator).
SIM_SMS = 2
LIMITS = ("dram", "l2", "shared", "compute")


def shared_bandwidth(machine) -> float:
    """Shared memory's bandwidth, bytes/s: every SM's 32 banks deliver 4 bytes a clock
    (sms x 128 B x clock)."""
    return machine.sms * SHARED_PASS_BYTES * machine.clock_hz


def estimate_time(machine, *, dram_bytes: float, l2_bytes: float = 0.0,
                  shared_passes: float = 0.0, flops: float = 0.0, paths: float = 1.0,
                  unit: str = "fp32", bytes_in_flight: float | None = None,
                  threads: float | None = None, latency_s: float | None = None) -> dict:
    """The time a kernel's counts imply on ``machine`` (a perfmodel Machine), as the
    slowest of four roofs: DRAM (``dram_bytes`` over the DRAM bandwidth, or over what
    ``threads`` each with ``bytes_in_flight`` outstanding sustain at ``latency_s`` by
    Little's law, if less), L2 (``l2_bytes`` of 32-byte sectors over the L2 bandwidth;
    where the machine has no L2 figure, the sector traffic is priced at the DRAM
    bandwidth, as part of the DRAM roof), shared memory (``shared_passes`` 128-byte passes over
    :func:`shared_bandwidth`) and compute (``flops`` x ``paths``, the divergent paths a
    warp runs one after another, over the peak of ``unit``). Seconds, bytes, FLOPs.
    Returns ``{"seconds", "limit", "terms": {limit: seconds}, "label": "estimate",
    "assumptions": [...]}``."""
    for arg, v in (("dram_bytes", dram_bytes), ("l2_bytes", l2_bytes),
                   ("shared_passes", shared_passes), ("flops", flops)):
        if not (v >= 0):
            raise ValueError(f"{arg} must be >= 0; got {v!r}")
    if not paths >= 1:
        raise ValueError(f"paths must be >= 1; got {paths!r}")
    notes = []
    bandwidth = machine.bandwidth("dram")
    if bytes_in_flight and threads and latency_s:
        little = threads * bytes_in_flight / latency_s
        if little < bandwidth:
            notes.append(f"Little's law: {threads:.3g} threads x {bytes_in_flight:.3g} B in "
                         f"flight / {latency_s * 1e9:.0f} ns sustain {little / 1e9:.0f} GB/s")
            bandwidth = little
    if "l2" in machine.levels():
        terms = {"dram": dram_bytes / bandwidth, "l2": l2_bytes / machine.bandwidth("l2")}
    else:
        terms = {"dram": max(dram_bytes, l2_bytes) / bandwidth}
        if l2_bytes > dram_bytes:
            notes.append(f"no L2 bandwidth for the {machine.name}: its 32-byte sector "
                         f"traffic is priced at the DRAM bandwidth")
    if shared_passes:
        terms["shared"] = shared_passes * SHARED_PASS_BYTES / shared_bandwidth(machine)
    terms["compute"] = flops * paths / machine.peak_flops(unit)
    limit = max(terms, key=terms.get)
    return {"machine": machine.name, "seconds": terms[limit], "limit": limit,
            "terms": terms, "label": "estimate", "assumptions": notes}


def dram_latency(gpu: str, results_dir=None) -> float | None:
    """The loaded DRAM latency (s) the latency lab recorded for ``gpu`` ('H200'; the T4's
    from its reference set), None where none is recorded."""
    import json

    from ..results import RESULTS_DIR

    base = RESULTS_DIR if results_dir is None else pathlib.Path(results_dir)
    for folder in (gpu, f"{gpu}-reference"):
        path = base / folder / "latency.json"
        if path.exists():
            ns = json.loads(path.read_text())["summary"].get("latency_ns", {}).get("dram")
            return ns * 1e-9 if ns else None
    return None


def scaled_counts(ch: ModuleType, counters: dict, machine) -> dict:
    """The keyword counts of :func:`estimate_time` at the challenge's full (timed) size,
    from ``counters`` measured at the check's largest simulator size (``counters["size"]``,
    the keyword sizes): bytes scaled by the
    ratio of the model's bytes at the two sizes, FLOPs by that of its FLOPs; threads in
    flight: the machine full (a grid that grows with the size) or the simulator's grid
    per SM times the machine's SMs (a fixed grid)."""
    small, full = ch.op(**counters["size"]), ch.op(**ch.sizes("full"))
    rb = full.bytes / small.bytes if small.bytes else 1.0
    foot = sum(v for k, v in counters.items() if k.startswith("bytes."))
    per_sm = machine.hardware("max_threads_per_sm")
    threads = counters.get("threads") or 0
    if not counters.get("grid_scales", 1) and threads:
        per_sm = min(per_sm, threads / SIM_SMS)
    return {"dram_bytes": max(foot * rb, 0.0), "l2_bytes": counters.get("l2_bytes", 0) * rb,
            "shared_passes": counters.get("shared_wavefronts", 0) * rb,
            "flops": full.flops, "paths": max(1.0, counters.get("paths_per_warp", 1.0)),
            "bytes_in_flight": counters.get("bytes_in_flight") or None,
            "threads": machine.sms * per_sm, "unit": ch.UNIT}


def estimate_challenge(ch: ModuleType, counters: dict, machine: str = "T4") -> dict:
    """The estimate the judge prints: :func:`estimate_time` on the perfmodel machine named
    ``machine`` (the T4 by default) for the challenge at its full size, from the counters
    the simulator measured; ``text`` says it in a line, labelled as an estimate."""
    from perfmodel import machines, units

    m = machines.get(machine)
    counts = scaled_counts(ch, counters, m)
    est = estimate_time(m, latency_s=dram_latency(m.name), **counts)
    size = ", ".join(f"{k} = {units.count(v)}" for k, v in ch.sizes("full").items())
    words = {"dram": "DRAM", "l2": "L2", "shared": "shared memory", "compute": "compute"}
    est["text"] = (f"estimate on the {m.name} at {size}: {units.seconds(est['seconds'])}, "
                   f"limited by {words[est['limit']]} (an estimate from the simulator's counts "
                   f"and the model, not a measurement)")
    return est


def record(name: str, label: str, counters: dict, measured_s: float,
           machine: str = "H200") -> dict:
    """One row for the GPU script that validates the estimate: the estimate from
    ``counters`` (measured under the simulator) for ``machine`` beside ``measured_s``
    timed there, and their ratio."""
    from .catalog import challenge

    if not measured_s > 0:
        raise ValueError(f"measured_s must be a positive time; got {measured_s!r}")
    est = estimate_challenge(challenge(name), counters, machine)
    return {"challenge": name, "kernel": label, "machine": machine,
            "estimate_s": est["seconds"], "limit": est["limit"], "measured_s": measured_s,
            "estimate_over_measured": est["seconds"] / measured_s}
