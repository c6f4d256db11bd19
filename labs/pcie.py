"""PCIe: when the trip to the GPU is the work.

What it isolates: the host link. z = x + y on n FP32 elements done the naive way, stage by
stage: copy x in and y in from ordinary (pageable) host memory, add, copy the result back
into a brand-new host tensor (``.cpu()``). Then the best case the link allows: inputs and
output in pinned host memory, device buffers allocated once, asynchronous copies; and the
CPU doing the add itself, into an output allocated once (:func:`labs.paradox.into`; runs
before 2026-12-07, the H200's of 2026-11-30 among them, timed ``x + y`` with a fresh 1 GB
result each call, page faults included: their params have no ``cpu_add``, and the plot
labels their bar "CPU add (fresh result)").

What the model predicts: the best case takes 12n bytes / B_pcie (B_pcie the pinned
host-to-device bandwidth measured here) plus the add, which is negligible; the naive trip
is slower still (pageable memory is staged through a bounce buffer, and ``.cpu()`` must
allocate fresh pages). For an op with one FLOP per 12 bytes, the trip costs more than the
CPU doing the work itself whenever B_pcie is below the CPU's own memory bandwidth.

Quick mode uses 2^26 elements (768 MiB crossing the link). On a T4 (quick): about 8 s
(:func:`labs.budget.estimate`, from the source notes' T4 round trips scaled to 2^26: the
naive trip about 0.36 s and the best case 0.07 s, each stage repeated 3-10 times, 4.3 s;
the CPU's add 0.4 s; start-up 3 s. On the H200, 4.6 s).
"""
from __future__ import annotations

from perfmodel import ops

from . import common
from .gpu import cuda_time
from .paradox import into

SUMMARY_KEYS = ("pinned_bandwidth", "pageable_bandwidth", "naive_round_trip_s",
                "best_round_trip_s", "model_round_trip_s", "cpu_add_s")


def _sync_call(fn):
    import torch

    def call():
        out = fn()
        torch.cuda.synchronize()
        return out
    return call


def naive_stages(xc, yc) -> dict:
    """Host seconds of each naive stage and of the whole naive trip."""
    xg, yg = xc.cuda(), yc.cuda()
    zg = xg + yg
    stages = {"copy x in (pageable)": lambda: xc.cuda(), "copy y in (pageable)": lambda: yc.cuda(),
              "add on the GPU": lambda: xg + yg, "copy back (new tensor)": lambda: zg.cpu(),
              "naive round trip": lambda: (xc.cuda() + yc.cuda()).cpu()}
    return {name: common.host_time(_sync_call(fn), 0.5, lo=3, hi=10) for name, fn in stages.items()}


def best_case(xc, yc) -> dict:
    """Pinned buffers, preallocated device tensors: the trip's seconds and link bandwidths."""
    import torch

    xp, yp = xc.pin_memory(), yc.pin_memory()
    zp = torch.empty_like(xp).pin_memory()
    xg, yg = torch.empty_like(xc, device="cuda"), torch.empty_like(yc, device="cuda")
    zg = torch.empty_like(xg)

    def trip():
        xg.copy_(xp, non_blocking=True)
        yg.copy_(yp, non_blocking=True)
        torch.add(xg, yg, out=zg)
        zp.copy_(zg, non_blocking=True)
    nbytes = xc.numel() * xc.element_size()
    return {"best round trip": common.host_time(_sync_call(trip), 0.5, lo=3, hi=10),
            "pinned_h2d_bandwidth": nbytes / cuda_time(lambda: xg.copy_(xp, non_blocking=True),
                                                       warmup=2, repeats=5),
            "pinned_d2h_bandwidth": nbytes / cuda_time(lambda: zp.copy_(zg, non_blocking=True),
                                                       warmup=2, repeats=5)}


def run(quick: bool = False, n: int | None = None) -> dict:
    """The naive trip stage by stage, the best case and the CPU; n elements (default
    2^28, quick 2^26, capped by free GPU memory)."""
    import torch

    common.require_cuda("pcie")
    n = common.elements_for(4 * (n or (2 ** 26 if quick else 2 ** 28)), 4, share=0.1)
    xc, yc = torch.rand(n), torch.rand(n)
    naive = naive_stages(xc, yc)
    best = best_case(xc, yc)
    cpu = common.host_time(into("add", xc, yc), 0.5, lo=3, hi=10)
    nbytes = 4.0 * n
    pinned = best["pinned_h2d_bandwidth"]
    model = ops.pcie_round_trip_bytes(n) / pinned + naive["add on the GPU"]
    rows = [{"kind": "stage", "trip": "naive", "stage": k, "seconds": v} for k, v in naive.items()]
    rows += [{"kind": "stage", "trip": "best", "stage": "best round trip",
              "seconds": best["best round trip"]},
             {"kind": "stage", "trip": "model", "stage": "model: 12n bytes / pinned bandwidth",
              "seconds": model},
             {"kind": "stage", "trip": "cpu", "stage": "CPU add (preallocated output)",
              "seconds": cpu},
             {"kind": "link", "how": "pinned host to device", "bandwidth": pinned},
             {"kind": "link", "how": "pinned device to host", "bandwidth": best["pinned_d2h_bandwidth"]},
             {"kind": "link", "how": "pageable host to device",
              "bandwidth": nbytes / naive["copy x in (pageable)"]}]
    summary = {"pinned_bandwidth": pinned,
               "pageable_bandwidth": nbytes / naive["copy x in (pageable)"],
               "naive_round_trip_s": naive["naive round trip"],
               "best_round_trip_s": best["best round trip"], "model_round_trip_s": model,
               "cpu_add_s": cpu}
    params = {"quick": quick, "n": n, "dtype": "fp32", "bytes_crossing": 3 * nbytes,
              "cpu_add": "preallocated output"}
    return common.record("pcie", params, rows, summary)


def plot(results: list[dict]):
    """Seconds of each stage and trip, per run (log scale)."""
    import plotly.graph_objects as go

    from . import plotting as p

    fig = p.figure("Vector add across PCIe, stage by stage")
    for i, r, name in p.each(results):
        rs = p.rows(r, kind="stage")
        fresh = not r["context"].get("reference") and "cpu_add" not in r.get("params", {})
        stages = ["CPU add (fresh result)" if fresh and st == "CPU add" else st
                  for st in p.column(rs, "stage")]
        fig.add_trace(go.Bar(y=stages, x=p.column(rs, "seconds"), name=name,
                             orientation="h", marker_color=p.COLORS[i % len(p.COLORS)]))
    fig.update_layout(barmode="group", height=560, margin=dict(l=230))
    p.axes(fig, "seconds", "", xlog=True, ylog=None)
    fig.update_yaxes(autorange="reversed")
    return p.finish(fig)
