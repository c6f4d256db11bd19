"""Little's law: bandwidth = bytes in flight / latency, until the memory saturates.

What it isolates: how many bytes are on order at once. A streaming read of 16-byte
elements (:func:`labs.memkernels.pipeline_read_kernel`, or where the GPU lacks
``cp.async`` :func:`labs.memkernels.read_kernel`) runs with W warps, each thread keeping
L requests open (L = 1, 2, 4, 8), over a buffer several times the L2. Bytes in flight =
W x 32 x L x 16. Then: every warp packed onto ONE SM (a single block), and the latency
one pointer-chasing thread sees while the rest of the GPU streams
(:func:`labs.memkernels.loaded_chase_kernel`), beside its latency on an idle GPU.

What the model predicts (:func:`perfmodel.little.achieved_bandwidth`): bandwidth =
min(peak, in_flight / latency). Plotted against warps the four L give four curves;
plotted against bytes in flight they fall onto one, since only the bytes on order count,
not whether warps or loads per thread put them there. Saturation comes at about
latency x bandwidth (a little more: queueing), and past it more orders only wait longer,
so the loaded latency climbs while the bandwidth stays flat. One SM has a cap of its own.

How the kernel keeps exactly L requests open (compute capability 8.0 and later): each
thread has L slots in shared memory filled by asynchronous copies (``cp.async``), each
copy its own group. A step waits for the OLDEST group (``cp.async.wait_group L-1``),
reads its slot and at once starts the slot's next copy, so L requests are on order all
the time, counted by the hardware. On the H200 (2026-11-30), below saturation, a slot
comes round in 410-435 ns with L = 1 and 445-530 ns with L = 8 (``seconds / iters`` in
the rows), so at equal bytes in flight the four curves lie within 6-15% of one another
(the ``collapse`` rows; the spread grows a little with the load). Two ways that do NOT
keep L open, both measured the same day: L loads into registers a turn, the next turn's
addresses waiting on this turn's sum (:func:`labs.memkernels.read_kernel`, the kernel
recorded before): a turn lasts as long as its slowest load, 520-750 ns at L = 8 against
420-440 ns at L = 1, so L = 8 delivered up to 1.5x less than L = 1 at equal bytes in
flight; and a register pipeline, which ptxas turns back into that batch (it waits for
every load of a loop on one scoreboard). The copies' own order also needs no help from
the data: letting each refill wait on the running sum (``chained=True``) put about 65 ns
of dependent instructions on every step, and L = 8 (eight steps a turn) fell 20% behind.
``params["pipelined"]`` says which kernel ran.

One SM with ``cp.async`` tops out near 49 GB/s, a quarter of what the same SM pulls
with plain 16-byte loads into registers (188-192 GB/s with
:func:`labs.memkernels.read_kernel`): the asynchronous copy path has a lower per-SM
ceiling. So the one-SM rows are measured with both kernels (``kernel`` in each row) and
``one_sm_bandwidth`` is the SM's own cap, the better of the two. Across the whole GPU it does not bind (132 SMs x
49 GB/s is well above the DRAM), and the full grid still saturates the memory. With
L = 8 the pipeline takes 72 registers a thread, so fewer of its warps fit on an SM: its
rows stop a step earlier than the others (one SM: 16 warps, not 32).

``saturation_bandwidth`` is the best bandwidth of the sweep (bytes read per second);
``bytes_in_flight_at_saturation`` the fewest bytes in flight reaching 90% of it;
``one_sm_bandwidth`` the best with every warp on one SM. A torch device-to-device copy
(bytes read + written per second) is measured in the same run for comparison.

Sized by the device: the grid sweep goes up to every warp the SMs hold (SMs x warps an
SM: an H200 8448, a T4 40 x 32 = 1280), the loaded latency up to half an SM's warps
(:func:`loaded_points`: an H200 1..32, a T4 1..16), so that the streaming blocks and the
chaser's are resident together (on a T4, 32 streaming warps an SM would be 160 blocks of
256 threads plus the chaser's: one more than the 160 it holds). A point that still cannot
be resident (registers, shared memory) is not dropped: it gets a ``skipped`` row with the
reason, and ``params["skipped"]`` counts them. A T4 (7.5) has no ``cp.async``, so it runs
the batched read; ``pipelined=True`` there is a ValueError.

On a T4 (quick): about 16 s (:func:`labs.budget.estimate`: the sweeps' launches, the copy
and the chases about 0.3 s at the notes' 230 GB/s and 314 ns; compiling six kernels 12 s;
start-up 3 s).
"""
from __future__ import annotations

import itertools
import statistics

import numpy as np

from perfmodel import little

from . import common, latency
from .ceilings import copy_bandwidth
from .gpu import device_limits, numba_cuda
from .memkernels import (allow_shared, loaded_chase_kernel, pipeline_read_kernel,
                         pipeline_shared_bytes, read_kernel, resident_blocks, wide_load)
from .timing import queued_time

SUMMARY_KEYS = ("saturation_bandwidth", "bytes_in_flight_at_saturation", "one_sm_bandwidth")
ILPS = (1, 2, 4, 8)
LOAD_BYTES = 16
WARP = 32
#: Share of the saturation bandwidth that counts as saturated.
SATURATED = 0.9
#: Below this share of saturation, the four L curves are compared at equal bytes in flight.
BELOW = 0.8


def block_shape(warps: int, sms: int, max_warps_per_block: int = 8) -> tuple[int, int]:
    """(blocks, threads per block) for ``warps`` warps spread over ``sms`` SMs: one warp a
    block while there are fewer warps than SMs, then a power of two up to 8 warps a block."""
    if warps < 1 or sms < 1:
        raise ValueError(f"warps and sms must be >= 1; got {warps}, {sms}")
    per_block = 1
    while per_block * 2 <= min(max_warps_per_block, warps // sms) and warps % (per_block * 2) == 0:
        per_block *= 2
    return warps // per_block, per_block * WARP


def pipelined_here(compute_capability: str | None) -> bool:
    """True where the pipelined read runs: ``cp.async`` needs compute capability 8.0 or
    later (a T4, 7.5, gets the batched read)."""
    try:
        return int(str(compute_capability).split(".")[0]) >= 8
    except ValueError:
        return False


def choose_pipelined(requested: bool | None, compute_capability: str | None) -> bool:
    """Which streaming read runs: ``requested`` (None: :func:`pipelined_here`). Asking for
    the pipelined read on a GPU without ``cp.async`` is a ValueError, not a failed link."""
    if requested is None:
        return pipelined_here(compute_capability)
    if requested and not pipelined_here(compute_capability):
        raise ValueError(f"pipelined=True needs cp.async (compute capability 8.0 or later); "
                         f"this GPU is {compute_capability}")
    return bool(requested)


def read_kernel_for(ilp: int, pipelined: bool, chained: bool = False):
    """(kernel, dynamic shared bytes per thread) of the streaming read with ``ilp``
    requests per thread: :func:`labs.memkernels.pipeline_read_kernel` when ``pipelined``
    (``cp.async``: only where :func:`pipelined_here`), else
    :func:`labs.memkernels.read_kernel` with 16-byte loads (no shared memory)."""
    if pipelined:
        return pipeline_read_kernel(ilp, chained), pipeline_shared_bytes(ilp, 1)
    return read_kernel(ilp, wide_load()), 0


def loaded_points(warps_per_sm: int, quick: bool) -> tuple[int, ...]:
    """Streaming warps per SM beside the loaded chase: powers of two up to half of what an
    SM holds (an H200, 64 warps an SM: 1..32, quick 2, 8, 32; a T4, 32: 1..16, quick 2, 8,
    16), so every streaming block and the chaser's fit at once."""
    if warps_per_sm < 2:
        raise ValueError(f"warps_per_sm must be >= 2; got {warps_per_sm}")
    top = warps_per_sm // 2
    full = tuple(common.powers_of_two(1, top))
    return tuple(w for w in full if w in (2, 8) or w == top) if quick else full


def _skipped(what: str, reason: str, **where) -> dict:
    """A row saying that a point of the sweep was not measured, and why."""
    return {"experiment": "skipped", "what": what, **where, "reason": reason}


class Streamer:
    """Launches the streaming read over one buffer, each launch on a fresh region.
    ``pipelined``: :func:`labs.memkernels.pipeline_read_kernel` (exactly L requests per
    thread in flight all the time), else :func:`labs.memkernels.read_kernel` (L loads a
    turn, waited for together)."""

    def __init__(self, x, positions: int, max_iters: int, pipelined: bool = True,
                 chained: bool = False):
        self.x, self.positions, self.max_iters = x, positions, max_iters
        self.pipelined, self.chained = bool(pipelined), bool(chained)
        self.cuda = numba_cuda()
        self.base = 0

    def time(self, ilp: int, blocks: int, tpb: int, repeats: int) -> dict:
        """One grid's bandwidth, or ``{"skipped": reason}`` when more blocks than fit at
        once, or the grid's one turn is more than the buffer."""
        kern, shared_per_thread = read_kernel_for(ilp, self.pipelined, self.chained)
        shared = shared_per_thread * tpb
        threads = blocks * tpb
        iters = int(max(1, min(self.max_iters, self.positions // (threads * ilp))))
        region = threads * ilp * iters
        if region > self.positions:
            return {"skipped": f"one turn of {threads} threads x {ilp} loads is more than "
                               f"the buffer's {self.positions} 16-byte elements"}
        out = self.cuda.device_array(threads, dtype=np.float64)

        def launch():
            if self.base + region > self.positions:
                self.base = 0
            kern[blocks, tpb, 0, shared](self.x, self.x, self.base, iters, 1, out)
            self.base += region

        if not kern.overloads:           # compile with one small block first: the occupancy
            small = pipeline_shared_bytes(ilp, WARP) if self.pipelined else 0  # check needs it
            kern[1, WARP, 0, small](self.x, self.x, 0, 1, 1, out)
        if not allow_shared(kern, shared):
            return {"skipped": f"{shared} bytes of shared memory a block cannot be granted"}
        fit = resident_blocks(kern, tpb, shared)
        if blocks > fit:                 # (asked before launching: too many registers fail)
            return {"skipped": f"{blocks} blocks of {tpb} threads do not fit at once "
                               f"({fit} resident)"}
        launch()
        t = queued_time(launch, warmup=1, repeats=repeats)
        nbytes = region * LOAD_BYTES
        return {"seconds": t, "bytes": nbytes, "bandwidth": nbytes / t, "iters": iters}


def _collapse(grid_rows: list[dict], saturation: float) -> list[dict]:
    """Rows comparing the four L at each bytes-in-flight value all of them reach below
    saturation: the spread is max / min bandwidth (1 = one curve)."""
    out = []
    for flight, group in itertools.groupby(sorted(grid_rows, key=lambda r: r["bytes_in_flight"]),
                                           key=lambda r: r["bytes_in_flight"]):
        g = {r["loads_per_thread"]: r["bandwidth"] for r in group}
        if set(g) == set(ILPS) and max(g.values()) < BELOW * saturation:
            out.append({"experiment": "collapse", "bytes_in_flight": flight,
                        "bandwidth_by_loads": {str(k): v for k, v in sorted(g.items())},
                        "spread": max(g.values()) / min(g.values())})
    return out


def _loaded(x, positions: int, chain, sms: int, warps_per_sm, steps: int, chaser) -> list[dict]:
    """The chase's latency with streaming blocks beside it, for each streamers-per-SM count
    (a count whose blocks and the chaser's cannot all be resident gets a ``skipped`` row)."""
    cuda = numba_cuda()
    ilp = 4
    kern = loaded_chase_kernel(ilp)
    arr = cuda.as_cuda_array(chain).view(np.uint32)
    flag = cuda.device_array(1, dtype=np.int32)
    out = cuda.device_array(4, dtype=np.int64)
    rows = []
    for wps in warps_per_sm:
        tpb = WARP * min(wps, 8)
        blocks = sms * wps * WARP // tpb

        def too_many():
            fit = resident_blocks(kern, tpb)
            return (f"{blocks} streaming blocks of {tpb} threads and the chaser's do not "
                    f"fit at once ({fit} resident)") if blocks + 1 > fit else None

        why = too_many() if kern.overloads else None
        if why:
            rows.append(_skipped("loaded_latency", why, stream_warps_per_sm=wps))
            continue
        sums = cuda.device_array(blocks * tpb, dtype=np.float64)
        iters = max(1, positions // (blocks * tpb * ilp))
        per_pass = blocks * tpb * ilp * iters * LOAD_BYTES
        lat_ns, lat_cyc, bws = [], [], []
        for rep in range(3):
            flag.copy_to_device(np.zeros(1, np.int32))
            out.copy_to_device(np.zeros(4, np.int64))
            chaser.flush()

            def launch():
                kern[blocks + 1, tpb](arr, chaser.node, steps, x, iters, 50, flag, out, sums)

            if rep == 0:  # compile, then check every block fits at once
                launch()
                why = too_many()
                if why:
                    rows.append(_skipped("loaded_latency", why, stream_warps_per_sm=wps))
                    break
                continue
            t = queued_time(launch, warmup=0, repeats=1, sleep_cycles=0)
            res = out.copy_to_host()
            chaser.node = int(res[0])
            lat_cyc.append(res[1] / steps)
            lat_ns.append(res[2] / steps)
            bws.append(res[3] / blocks * per_pass / t)
        if lat_ns:
            rows.append({"experiment": "loaded_latency", "stream_warps_per_sm": wps,
                         "stream_bytes_in_flight": sms * wps * WARP * ilp * LOAD_BYTES,
                         "latency_ns": statistics.median(lat_ns),
                         "latency_cycles": statistics.median(lat_cyc),
                         "stream_bandwidth": statistics.median(bws)})
    return rows


#: Loads per thread of the one-SM sweep: the pipelined (cp.async) kernel 4 and 8; plain loads
#: into registers also 16, which carries the sweep past 128 KiB in flight (the run of
#: 2026-12-01 stopped there, still doubling: 103 GB/s at 64 KiB, 191 at 128).
ONE_SM_ILPS = {"pipelined": (4, 8), "batch": (4, 8, 16)}
#: Warps of the one block: powers of two and, for the biggest turns, 20 and 24 (what fits
#: when registers, not the 1,024-thread block, run out first).
ONE_SM_WARPS = (1, 2, 4, 8, 16, 20, 24, 32)


def one_sm_rows(streamers, warps_per_sm: int, repeats: int) -> list[dict]:
    """The one-SM sweep: every warp in one block (so on one SM), for each streamer's kernel
    and loads per thread (:data:`ONE_SM_ILPS`), up to the SM's warps or the first point that
    does not fit (a ``skipped`` row says which and why)."""
    rows: list[dict] = []
    for one in streamers:
        kind = "pipelined" if one.pipelined else "batch"
        for ilp in ONE_SM_ILPS[kind]:
            for warps in (w for w in ONE_SM_WARPS if w <= min(32, warps_per_sm)):
                r = one.time(ilp, 1, warps * WARP, repeats)
                if "skipped" in r:
                    rows.append(_skipped("one_sm", r["skipped"], loads_per_thread=ilp,
                                         warps=warps, kernel=kind))
                    break
                rows.append({"experiment": "one_sm", "loads_per_thread": ilp, "warps": warps,
                             "kernel": kind,
                             "bytes_in_flight": warps * WARP * ilp * LOAD_BYTES, **r})
    return rows


def rerun_one_sm(path: str | None = None, repeats: int = 7) -> str:
    """Re-measure only the one-SM sweep and write it into a recorded littles_law result
    (default: this GPU's under labs/results/): its one_sm rows (and their skipped rows) are
    replaced, ``summary["one_sm_bandwidth"]`` recomputed, ``params["one_sm_rerun"]`` set to
    this run's context. The rest of the record is left as it was. On an H200 about 30 s
    (a 1 GiB buffer, five kernels compiled, 40-odd launches of 7 repeats). Returns the path."""
    import json
    import os

    import torch

    from . import results

    common.require_cuda("littles_law")
    ctx = common.context()
    path = path or os.path.join(results.RESULTS_DIR, ctx["gpu_slug"], "littles_law.json")
    with open(path) as f:
        rec = json.load(f)
    if rec.get("context", {}).get("gpu_name") != ctx["gpu_name"]:
        raise ValueError(f"path must hold a result of this GPU ({ctx['gpu_name']}); "
                         f"{path} is of {rec.get('context', {}).get('gpu_name')!r}")
    n = common.elements_for(2 ** 30, 4, share=0.25, multiple=4 * 1024)
    x = numba_cuda().as_cuda_array(torch.rand(n, device="cuda"))
    pipelined = choose_pipelined(None, ctx.get("compute_capability"))
    streamers = [Streamer(x, n // 4, 256, pipelined=pipelined)]
    if pipelined:
        streamers.append(Streamer(x, n // 4, 256, pipelined=False))
    warps_per_sm = int(ctx.get("warps_per_sm") or device_limits()["warps_per_sm"])
    new = one_sm_rows(streamers, warps_per_sm, repeats)
    keep = [r for r in rec["rows"] if r.get("experiment") != "one_sm"
            and not (r.get("experiment") == "skipped" and r.get("what") == "one_sm")]
    rec["rows"] = keep + new
    rec["summary"]["one_sm_bandwidth"] = max(r["bandwidth"] for r in new
                                             if r["experiment"] == "one_sm")
    rec["params"]["skipped"] = sum(r.get("experiment") == "skipped" for r in rec["rows"])
    rec["params"]["one_sm_rerun"] = {"date": ctx.get("date"), "repeats": repeats,
                                     "loads_per_thread": {k: list(v)
                                                          for k, v in ONE_SM_ILPS.items()}}
    with open(path, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")
    return path


def run(quick: bool = False, buffer_bytes: float | None = None, repeats: int | None = None,
        pipelined: bool | None = None, chained: bool = False) -> dict:
    """The W x L sweep, the one-SM sweep, the idle and loaded latencies and the copy; see
    the module docstring. buffer_bytes: the streamed buffer (default 2 GiB, quick 1 GiB);
    pipelined: the streaming read that keeps exactly L requests in flight (default: where
    the GPU has ``cp.async``, compute capability 8.0 and later), else L loads a turn;
    chained: the pipeline's refills wait on the running sum (see
    :func:`labs.memkernels.pipeline_read_kernel`)."""
    import torch

    common.require_cuda("littles_law")
    repeats = int(repeats or (3 if quick else 7))
    ctx = common.context()
    sms, l2 = int(ctx["sms"]), int(ctx.get("l2_bytes") or 4 * 2 ** 20)
    n = common.elements_for(buffer_bytes or (2 ** 30 if quick else 2 ** 31), 4, share=0.25,
                            multiple=4 * 1024)
    cuda = numba_cuda()
    xt = torch.rand(n, device="cuda")
    x = cuda.as_cuda_array(xt)
    pipelined = choose_pipelined(pipelined, ctx.get("compute_capability"))
    warps_per_sm = int(ctx.get("warps_per_sm") or device_limits()["warps_per_sm"])
    stream = Streamer(x, n // 4, max_iters=128 if quick else 256, pipelined=pipelined,
                      chained=chained)
    copy = copy_bandwidth(min(n, 2 ** 28), repeats=10)

    rows: list[dict] = [{"experiment": "copy", "bandwidth": copy}]
    max_warps = sms * warps_per_sm
    for ilp in ILPS:
        for warps in common.powers_of_two(1, max_warps):
            blocks, tpb = block_shape(warps, sms)
            r = stream.time(ilp, blocks, tpb, repeats)
            if "skipped" in r:           # the GPU is full: the sweep ends here, and says so
                rows.append(_skipped("grid", r["skipped"], loads_per_thread=ilp, warps=warps))
                break
            rows.append({"experiment": "grid", "loads_per_thread": ilp, "warps": warps,
                         "warps_per_sm": warps / sms, "blocks": blocks, "threads_per_block": tpb,
                         "bytes_in_flight": warps * WARP * ilp * LOAD_BYTES, **r})
    # One SM's own cap: every warp on one SM, with each read kernel this GPU runs (the
    # asynchronous-copy path has a lower per-SM ceiling than plain loads into registers).
    streamers = [stream] + ([Streamer(x, n // 4, stream.max_iters, pipelined=False)]
                            if pipelined else [])
    rows += one_sm_rows(streamers, warps_per_sm, repeats)

    grid = [r for r in rows if r["experiment"] == "grid"]
    sat = max(r["bandwidth"] for r in grid)
    at_sat = min(r["bytes_in_flight"] for r in grid if r["bandwidth"] >= SATURATED * sat)
    chain = latency.device_chain(int(min(2 ** 30, max(16 * l2, 2 ** 26))), seed=7)
    chaser = latency.Chaser(l2)
    steps = 512 if quick else 2048
    idle_cycles, idle_ns = chaser.measure(chain, steps)
    rows.append({"experiment": "idle_latency", "latency_ns": idle_ns, "latency_cycles": idle_cycles,
                 "working_set_bytes": chain.numel() * 4})
    rows.append({"experiment": "model", "latency_s": idle_ns * 1e-9, "saturation_bandwidth": sat,
                 "bytes_in_flight_needed": little.bytes_in_flight(sat, idle_ns * 1e-9)})
    rows += _loaded(x, n // 4, chain, sms, loaded_points(warps_per_sm, quick), steps // 4,
                    chaser)
    rows += _collapse(grid, sat)
    one_sm = max(r["bandwidth"] for r in rows if r["experiment"] == "one_sm")
    summary = {"saturation_bandwidth": sat, "bytes_in_flight_at_saturation": at_sat,
               "one_sm_bandwidth": one_sm}
    params = {"quick": quick, "buffer_bytes": 4 * n, "load_bytes": LOAD_BYTES,
              "loads_per_thread": list(ILPS), "repeats": repeats, "copy_bandwidth": copy,
              "saturation_vs_copy": sat / copy, "chase_steps": steps,
              "pipelined": bool(pipelined), "chained": bool(chained) and bool(pipelined),
              "warps_per_sm": warps_per_sm,
              "skipped": sum(r["experiment"] == "skipped" for r in rows)}
    return common.record("littles_law", params, rows, summary, ctx)


def plot(results: list[dict]):
    """Left: bandwidth against warps, one curve per L. Middle: the same against bytes in
    flight, where they collapse onto one, with min(peak, in_flight / latency) from the
    run's idle latency and saturation. Right: the loaded latency against the streaming
    bandwidth beside it."""
    from . import plotting as p

    fig = p.figure("Little's law: bytes in flight = bandwidth x latency", cols=3,
                   subtitles=("vs warps", "vs bytes in flight", "loaded latency"))
    for i, r, name in p.each(results):
        for k, ilp in enumerate(ILPS):
            rs = p.rows(r, experiment="grid", loads_per_thread=ilp)
            p.points(fig, i, p.column(rs, "warps"), p.column(rs, "bandwidth"),
                     f"{name}: L = {ilp}", col=1, series=k)
            p.points(fig, i, p.column(rs, "bytes_in_flight"), p.column(rs, "bandwidth"),
                     f"{name}: L = {ilp}", col=2, showlegend=False, series=k,
                     text=[f"{row['seconds'] / row['iters'] * 1e9:.0f} ns a turn" for row in rs])
        ref = [row for row in r["rows"] if row.get("experiment") == "reference"]
        if ref:
            p.points(fig, i, p.column(ref, "bytes_in_flight"), p.column(ref, "bandwidth"),
                     name, col=2, mode="markers", text=p.column(ref, "note"))
        sm = p.rows(r, experiment="one_sm", loads_per_thread=8)
        best = max(sm, key=lambda row: row["bandwidth"], default=None)
        if best is not None and "kernel" in best:   # the kernel that reached the SM's cap
            sm = [row for row in sm if row.get("kernel") == best["kernel"]]
        p.points(fig, i, p.column(sm, "bytes_in_flight"), p.column(sm, "bandwidth"),
                 f"{name}: all warps on one SM", col=2, mode="markers+lines", series=len(ILPS))
        model = p.rows(r, experiment="model")
        if i == 0 and model:
            m = model[0]
            xs = np.geomspace(512, 64 * m["bytes_in_flight_needed"], 60)
            p.model(fig, xs, [little.achieved_bandwidth(x, m["latency_s"], m["saturation_bandwidth"])
                              for x in xs], "model: min(peak, in flight / idle latency)", col=2)
        loaded = p.rows(r, experiment="loaded_latency")
        p.points(fig, i, p.column(loaded, "stream_bandwidth"), p.column(loaded, "latency_ns"),
                 f"{name}: loaded latency", col=3, series=len(ILPS) + 1)
    p.axes(fig, "warps", "bandwidth (B/s)", col=1)
    p.axes(fig, "bytes in flight", "", col=2, yunit="B/s")
    p.axes(fig, "stream beside it", "ns per load", xlog=False, col=3, xunit="B/s")
    return p.finish(fig)


if __name__ == "__main__":   # python -m labs.littles_law one_sm: re-measure the one-SM sweep
    import sys

    if sys.argv[1:] != ["one_sm"]:
        raise SystemExit("usage: python -m labs.littles_law one_sm")
    print(rerun_one_sm())
