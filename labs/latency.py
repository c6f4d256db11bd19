"""Latency: one thread chases pointers through working sets from kilobytes to gigabytes.

What it isolates: the time of ONE load, with nothing to overlap it. The chain is a random
cyclic permutation of 128-byte lines (one node per line, so no two steps share a line and
no prefetcher can guess the next), and every load needs the address the previous one
returned. One thread walks it; ``%clock64`` counts SM cycles and ``%globaltimer``
nanoseconds around the walk (:func:`labs.memkernels.chase_kernel`). Small sets are walked
once untimed first (to load the L1), sets up to twice the L2 are read once by a copy
(to load the L2), larger ones are timed cold after the L2 was flushed.

What the model predicts (:func:`perfmodel.hierarchy.chase_latency`): a staircase. While the
set fits the L1 every load is an L1 hit, up to the L2's capacity an L2 hit, beyond it a
DRAM access, each level a flat plateau. Published figures for the H100 (gpu-benches):
about 34, 265 and 650 cycles. Stretched to human time with one L1 load as one second, the
L2 is several seconds and DRAM over ten. Past a GB or so, address-translation misses can
add to the DRAM figure; the plateau below is read before that.

Plateaus (the summary): L1 = median of sets up to 32 KB; L2 = median of sets from 1 MB to
a quarter of the L2; DRAM = median of sets from 4x to 16x the L2.

Sizes: sets up to a third of the free memory (a T4, about 14.5 GiB free: up to 4 GiB, so
the full sweep stops there where the H200's reaches 8 GiB; ``params["skipped_sizes"]``
lists the sets left out and why). On a T4 (quick): about 6 s (:func:`labs.budget.estimate`:
the chains are built and walked in well under a second; one compile 2 s, start-up 3 s).
"""
from __future__ import annotations

import statistics

import numpy as np

from perfmodel import hierarchy

from . import common
from .gpu import numba_cuda
from .memkernels import CHAIN_ITEM_BYTES, chase_kernel

SUMMARY_KEYS = ("latency_cycles", "latency_ns")
LINE_BYTES = 128
KB, MB, GB = 2 ** 10, 2 ** 20, 2 ** 30
SIZES = tuple(2 ** j for j in range(12, 34))      # 4 KiB .. 8 GiB
SIZES_QUICK = (8 * KB, 32 * KB, 1 * MB, 4 * MB, 16 * MB, 256 * MB, 1 * GB, 4 * GB)
#: Largest chain: int32 element indices (torch builds it as int32, the kernel reads uint32).
MAX_CHAIN_BYTES = 8 * GB
#: Sets up to this size get one untimed lap inside the kernel (it loads the L1).
IN_KERNEL_WARM_BYTES = 1 * MB


def plateau_ranges(l2_bytes: float) -> dict[str, tuple[float, float]]:
    """Working-set ranges (bytes, inclusive) whose median latency is each plateau."""
    if l2_bytes <= 0:
        raise ValueError(f"l2_bytes must be > 0; got {l2_bytes}")
    return {"l1": (0.0, 32 * KB), "l2": (1 * MB, max(1 * MB, l2_bytes / 4)),
            "dram": (4 * l2_bytes, 16 * l2_bytes)}


def level_of(working_set: float, l2_bytes: float) -> str | None:
    """The plateau a working set counts towards (None between plateaus)."""
    for name, (lo, hi) in plateau_ranges(l2_bytes).items():
        if lo <= working_set <= hi:
            return name
    return None


def device_chain(nbytes: int, line_bytes: int = LINE_BYTES, seed: int = 0):
    """A random cyclic chain of ``nbytes`` on the GPU (torch int32), built like
    :func:`labs.memkernels.cyclic_chain`: node k at element k x line/4 holds the next node."""
    import torch

    if nbytes > MAX_CHAIN_BYTES or nbytes < 2 * line_bytes:
        raise ValueError(f"nbytes must be in [{2 * line_bytes}, {MAX_CHAIN_BYTES}]; got {nbytes}")
    lines, stride = int(nbytes // line_bytes), line_bytes // CHAIN_ITEM_BYTES
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    order = torch.randperm(lines, device="cuda", generator=gen)
    chain = torch.zeros(lines * stride, dtype=torch.int32, device="cuda")
    chain[order * stride] = (torch.roll(order, -1) * stride).to(torch.int32)
    return chain


class Chaser:
    """Times chases on this GPU: ``measure(chain, steps)`` -> (cycles, ns) per step.

    Keeps the kernel, its output array and an L2-sized flush buffer; each run continues
    from where the last one stopped, so repeated runs over a big set stay cold.
    """

    def __init__(self, l2_bytes: int):
        import torch

        self.kernel = chase_kernel()
        self.cuda = numba_cuda()
        self.out = self.cuda.device_array(4, dtype=np.int64)
        self.flush_buf = torch.empty(int(max(4 * l2_bytes, 8 * MB)) // 4, dtype=torch.float32,
                                     device="cuda")
        self.l2_bytes = l2_bytes
        self.node = 0

    def flush(self) -> None:
        """Evict the L2 by writing a buffer four times its size."""
        self.flush_buf.fill_(1.0)

    def measure(self, chain, steps: int, runs: int = 3) -> tuple[float, float]:
        """Median (cycles, ns) per step over ``runs`` runs (after one untimed run)."""
        import torch

        nbytes = chain.numel() * CHAIN_ITEM_BYTES
        arr = self.cuda.as_cuda_array(chain).view(np.uint32)
        warm = chain.numel() * CHAIN_ITEM_BYTES // LINE_BYTES if nbytes <= IN_KERNEL_WARM_BYTES else 0
        cyc, ns = [], []
        self.node = 0
        for r in range(runs + 1):
            if nbytes <= 2 * self.l2_bytes:
                torch.cuda.synchronize()
                chain.sum()          # one coalesced read: the set lands in the L2
            else:
                self.flush()
            torch.cuda.synchronize()
            self.kernel[1, 1](arr, self.node, warm, steps, self.out)  # listing: latency
            res = self.out.copy_to_host()
            self.node = int(res[0])
            if r:
                cyc.append(res[1] / steps)
                ns.append(res[2] / steps)
        return statistics.median(cyc), statistics.median(ns)


def _summary(rows: list[dict], l2_bytes: float) -> dict:
    out: dict = {"latency_cycles": {}, "latency_ns": {}}
    for name, (lo, hi) in plateau_ranges(l2_bytes).items():
        sel = [r for r in rows if lo <= r["working_set_bytes"] <= hi]
        if sel:
            out["latency_cycles"][name] = statistics.median(r["cycles"] for r in sel)
            out["latency_ns"][name] = statistics.median(r["ns"] for r in sel)
    return out


def run(quick: bool = False, sizes=None, steps: int | None = None) -> dict:
    """Chase every working set in ``sizes`` (bytes; default 4 KiB .. 8 GiB, quick 8 sets)
    for ``steps`` timed steps (default 8192, quick 2048); see the module docstring."""
    import torch

    common.require_cuda("latency")
    steps = int(steps or (2048 if quick else 8192))
    sizes = tuple(sizes or (SIZES_QUICK if quick else SIZES))
    if steps < 1 or any(s < 2 * LINE_BYTES for s in sizes):
        raise ValueError(f"steps must be >= 1 and sizes >= {2 * LINE_BYTES} bytes")
    ctx = common.context()
    l2 = int(ctx.get("l2_bytes") or 4 * MB)
    props = torch.cuda.get_device_properties(0)
    l1 = int(getattr(props, "shared_memory_per_multiprocessor", 0) or 128 * KB)
    chaser = Chaser(l2)
    limit = min(MAX_CHAIN_BYTES, common.free_memory_bytes() // 3)
    skipped = [s for s in sorted(sizes) if s > limit]
    rows = []
    for nbytes in sorted(s for s in sizes if s <= limit):
        chain = device_chain(nbytes, seed=len(rows))
        cycles, ns = chaser.measure(chain, steps)
        del chain
        rows.append({"working_set_bytes": nbytes, "lines": nbytes // LINE_BYTES, "steps": steps,
                     "cycles": cycles, "ns": ns, "level": level_of(nbytes, l2),
                     "clock_hz_implied": cycles / ns * 1e9})
    summary = _summary(rows, l2)
    l1_ns = summary["latency_ns"].get("l1")
    for name, ns in summary["latency_ns"].items():
        rows.append({"kind": "human_scale", "level": name, "ns": ns,
                     "human_seconds": ns / l1_ns if l1_ns else None})
    params = {"quick": quick, "steps": steps, "line_bytes": LINE_BYTES, "l2_bytes": l2,
              "l1_bytes": l1, "sizes": [r["working_set_bytes"] for r in rows if "cycles" in r],
              "plateau_ranges": {k: list(v) for k, v in plateau_ranges(l2).items()},
              "skipped_sizes": {"sizes": skipped,
                                "reason": f"over {limit} B (a third of the free memory, "
                                          f"at most {MAX_CHAIN_BYTES} B)"}
              if skipped else {}}
    return common.record("latency", params, rows, summary, ctx)


def model_levels(result: dict, unit: str = "cycles") -> list[tuple[float, float]] | None:
    """(capacity, latency) levels for :func:`perfmodel.hierarchy.chase_latency` from a
    result's own plateaus and capacities (L1 per SM and L2 as the device reports them)."""
    key = {"cycles": "latency_cycles", "ns": "latency_ns"}[unit]
    lat, par = result["summary"].get(key, {}), result.get("params", {})
    if not all(k in lat for k in ("l1", "l2", "dram")) or not par.get("l2_bytes"):
        return None
    return [(par.get("l1_bytes", 128 * KB), lat["l1"]), (par["l2_bytes"], lat["l2"]),
            (float("inf"), lat["dram"])]


def plot(results: list[dict]):
    """Left: cycles per dependent load against working set, with the staircase model built
    from the run's plateaus. Right: the same latencies in human time (one L1 load = 1 s)."""
    import plotly.graph_objects as go

    from . import plotting as p

    fig = p.figure("Latency: one thread chasing pointers", cols=2,
                   subtitles=("cycles per load vs working set", "one L1 load = one second"))
    for i, r, name in p.each(results):
        rs = [row for row in r["rows"] if "working_set_bytes" in row]
        if rs:
            p.points(fig, i, p.column(rs, "working_set_bytes"), p.column(rs, "cycles"), name, col=1,
                     text=[f"{row['ns']:.0f} ns" for row in rs])
        levels = model_levels(r)
        if i == 0 and levels and rs:
            xs = sorted({x for row in rs for x in (row["working_set_bytes"],)})
            p.model(fig, xs, [hierarchy.chase_latency(x, levels) for x in xs],
                    "model: plateau of the level that holds the set", col=1)
        for lvl, cyc in r["summary"].get("latency_cycles", {}).items():
            if not rs:
                p.points(fig, i, [4 * 2 ** 10, 8 * 2 ** 30], [cyc, cyc], f"{name}: {lvl}", col=1,
                         mode="lines")
        human = p.rows(r, kind="human_scale")
        if human:
            fig.add_trace(go.Bar(x=p.column(human, "level"), y=p.column(human, "human_seconds"),
                                 name=f"{name}: human seconds", marker=dict(color=p.style(i)["marker"]["color"])),
                          row=1, col=2)
    p.axes(fig, "working set (bytes)", "cycles per load", col=1)
    p.axes(fig, "level", "seconds, if one L1 load took 1 s", xlog=None, col=2, yunit="")
    return p.finish(fig)
