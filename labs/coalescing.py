"""Coalescing: a warp's 32 loads are served together, in 32-byte sectors and 64-byte bursts.

What it isolates: the order of the addresses, with the number of useful bytes fixed. A
streaming read of float32 (:func:`labs.memkernels.read_kernel`, 8 independent loads per
thread) where consecutive threads read elements ``stride`` apart, from a buffer a quarter
of the L2 (read many times over, so it stays in the L2) and from one many times the L2
(every element read once, from DRAM); a gather ``x[idx[i]]`` with random and with
in-order indices; and a torch view: ``a.t()`` walked row by row by a small kernel (lanes
on consecutive columns), against ``.contiguous()`` and the same walk over the copy.

What the model predicts (:func:`perfmodel.simt.useful_fraction`): useful bandwidth =
stride-1 bandwidth x (32 x 4 bytes asked) / (distinct pieces touched x piece size).
From the L2 the pieces are 32-byte sectors, so the waste stops growing at stride 8 (every
lane its own sector, 1/8 useful); from DRAM they are 64-byte bursts, so it grows to
stride 16 (1/16). A random gather touches one burst per 4-byte value (plus its coalesced
4-byte index): 8 useful bytes of 68 moved. Useful bytes of the gather count the index and
the value.

Sizes: a DRAM buffer of 1 GiB (quick; 2 GiB full, at most a quarter of the free memory),
the gather's 2^26 indices (256 MiB) and an 8192 x 8192 float32 view with its copy (256 MiB
each): a few GiB at most, well inside a T4's 15. On a T4 (quick): about 12 s
(:func:`labs.budget.estimate`: the strided reads, gathers and view walks about 0.5 s;
compiling four kernels 8 s; start-up 3 s).
"""
from __future__ import annotations

import functools

import numpy as np

from perfmodel import simt

from . import common
from .ceilings import fma_grid
from .gpu import numba_cuda
from .kernels import BLOCK
from .memkernels import gather_load, read_kernel, resident_blocks, strided_load
from .timing import queued_time

SUMMARY_KEYS = ("useful_bandwidth_by_stride", "gather_bandwidth", "fetch_granularity")
STRIDES = (1, 2, 4, 8, 16, 32, 64, 128)
STRIDES_QUICK = (1, 2, 4, 8, 16, 32)
PLACEMENTS = {"l2": 32, "dram": 64}            # placement -> piece size (bytes) in the model
ILP = 8
#: 4-byte index + 4-byte value useful; index + one 64-byte burst moved.
GATHER_USEFUL, GATHER_MOVED = 8, 4 + 64
#: numba.cuda, bound on first use (a module global: the simulator swaps it while kernels run).
cuda = None


def predicted_fraction(stride: int, placement: str) -> float:
    """Useful over moved bytes for float32 reads at ``stride`` from ``placement``."""
    if placement not in PLACEMENTS:
        raise ValueError(f"placement must be one of {', '.join(PLACEMENTS)}; got {placement!r}")
    return simt.useful_fraction(stride, 4, PLACEMENTS[placement])


def pow2_floor(n: int) -> int:
    """The largest power of two <= n (n >= 1)."""
    if n < 1:
        raise ValueError(f"n must be >= 1; got {n}")
    return 1 << (int(n).bit_length() - 1)


@functools.cache
def walk_kernel():
    """Kernel ``walk_rows(a, out)``: a 2-D grid-stride walk of ``a`` row by row, lanes on
    consecutive columns (x) and warps on rows (y); each thread writes its sum to out."""
    global cuda
    cuda = numba_cuda()

    @cuda.jit
    def walk_rows(a, out):
        j0, i0 = cuda.grid(2)
        sj, si = cuda.gridsize(2)
        acc = 0.0
        for i in range(i0, a.shape[0], si):
            for j in range(j0, a.shape[1], sj):
                acc += a[i, j]
        out[i0 * sj + j0] = acc

    return walk_rows


def _threads(kern, x, idx, threads: int) -> int:
    """Compile ``kern`` (one tiny launch) and return the largest power of two <= threads
    whose blocks of BLOCK all fit on the GPU at once (a grid-stride read in one wave)."""
    c = numba_cuda()
    kern[1, BLOCK](x, idx, 0, 1, 1, c.device_array(BLOCK, dtype=np.float64))
    return pow2_floor(min(threads // BLOCK, resident_blocks(kern, BLOCK))) * BLOCK


def _strided(x, placement: str, strides, threads: int, useful_target: float, repeats: int):
    kern = read_kernel(ILP, strided_load())
    c = numba_cuda()
    threads = _threads(kern, x, x, threads)
    out = c.device_array(threads, dtype=np.float64)
    blocks = threads // BLOCK
    rows, base_bw = [], None
    for s in strides:
        # L2: a fixed traffic per launch, wrapping round the buffer; DRAM: one pass.
        want = int(useful_target // (4 * min(s, 8))) if placement == "l2" else x.size // s
        iters = max(1, want // (threads * ILP))
        positions = iters * threads * ILP
        # listing-begin: coalescing
        t = queued_time(lambda: kern[blocks, BLOCK](x, x, 0, iters, s, out),
                        warmup=2, repeats=repeats)
        # listing-end: coalescing
        bw = positions * 4 / t
        base_bw = base_bw or bw
        frac = predicted_fraction(s, placement)
        rows.append({"experiment": "stride", "placement": placement, "stride": s,
                     "useful_bandwidth": bw, "seconds": t, "useful_bytes": positions * 4,
                     "predicted": base_bw * frac, "predicted_fraction": frac,
                     "ratio_to_model": bw / (base_bw * frac),
                     "pieces_per_request": simt.sectors(s, 4, PLACEMENTS[placement]),
                     "threads": threads})
    return rows


def _gather(x, m: int, threads: int, repeats: int, dram_bw: float):
    import torch

    kern = read_kernel(ILP, gather_load())
    c = numba_cuda()
    dummy = c.as_cuda_array(torch.zeros(BLOCK * ILP, device="cuda", dtype=torch.int32))
    threads = _threads(kern, x, dummy, threads)
    out = c.device_array(threads, dtype=np.float64)
    blocks = threads // BLOCK
    iters = max(1, m // (threads * ILP))
    m = iters * threads * ILP
    rows = []
    for order in ("sequential", "random"):
        idx_t = (torch.arange(m, device="cuda", dtype=torch.int32) if order == "sequential"
                 else torch.randint(0, x.size, (m,), device="cuda", dtype=torch.int32))
        idx = c.as_cuda_array(idx_t)
        t = queued_time(lambda: kern[blocks, BLOCK](x, idx, 0, iters, 1, out),
                        warmup=2, repeats=repeats)
        frac = 1.0 if order == "sequential" else GATHER_USEFUL / GATHER_MOVED
        rows.append({"experiment": "gather", "order": order, "elements": m, "seconds": t,
                     "useful_bandwidth": m * GATHER_USEFUL / t, "predicted": dram_bw * frac,
                     "predicted_fraction": frac})
    return rows


def _torch_view(side: int, repeats: int):
    import torch

    walk = walk_kernel()
    a = torch.rand(side, side, device="cuda")
    view = a.t()                                  # no copy: strides (1, side)
    grid, block = (max(1, side // (32 * 8)), max(1, side // 64)), (32, 8)
    out = cuda.device_array(grid[0] * grid[1] * 256, dtype=np.float64)
    nbytes = side * side * 4
    rows = []

    def add(case, fn):
        t = queued_time(fn, warmup=2, repeats=repeats)
        rows.append({"experiment": "torch_view", "case": case, "seconds": t,
                     "useful_bandwidth": nbytes / t, "side": side})

    v = cuda.as_cuda_array(view)
    add("a.t() walked row by row", lambda: walk[grid, block](v, out))
    add("a.t().contiguous() (the copy)", lambda: view.contiguous())
    cont = view.contiguous()
    cv = cuda.as_cuda_array(cont)
    add("the contiguous copy walked row by row", lambda: walk[grid, block](cv, out))
    return rows


def _fetch_granularity(x, strides, granularities, threads: int, repeats: int):
    """The DRAM strided reads and the random gather again at each L2 fetch granularity
    (bytes), set in this process (:mod:`labs.l2fetch`); the setting found on entry is
    restored at the end. Rows: experiment 'fetch_granularity', with the setting asked
    for, the one read back and the method used."""
    from . import l2fetch

    start = l2fetch.get_granularity()
    rows = []
    try:
        for g in granularities:
            got = l2fetch.set_granularity(g)
            tag = {"experiment": "fetch_granularity", "granularity": g,
                   "readback_bytes": got["readback_bytes"], "method": got["method"]}
            piece = max(32, got["readback_bytes"] or 32)
            for r in _strided(x, "dram", strides, threads, 0, repeats):
                frac = simt.useful_fraction(r["stride"], 4, piece)
                pred = r["predicted"] / r["predicted_fraction"] * frac   # stride-1 x fraction
                rows.append({**r, **tag, "predicted_fraction": frac, "predicted": pred,
                             "ratio_to_model": r["useful_bandwidth"] / pred,
                             "pieces_per_request": simt.sectors(r["stride"], 4, piece)})
            gather = _gather(x, min(2 ** 26, x.size // 4), threads, repeats, 0.0)
            rows += [{**r, **tag, "experiment_part": "gather",
                      "predicted_fraction": GATHER_USEFUL / (4 + piece), "predicted": None}
                     for r in gather if r["order"] == "random"]
    finally:
        try:
            l2fetch.set_granularity(start["readback_bytes"])
        except Exception:                          # noqa: BLE001 - the process ends soon anyway
            pass
    return rows, start


def run(quick: bool = False, strides=None, repeats: int | None = None,
        fetch_granularities=()) -> dict:
    """Strided reads from the L2 and from DRAM, the gather and the torch view; see the
    module docstring. ``fetch_granularities`` (bytes, e.g. (64, 32, 128)): repeat the DRAM
    reads and the random gather at each L2 fetch granularity, set inside this process."""
    import torch

    common.require_cuda("coalescing")
    strides = tuple(strides or (STRIDES_QUICK if quick else STRIDES))
    if any(int(s) != s or s < 1 for s in strides) or strides[0] != 1:
        raise ValueError(f"strides must be integers >= 1 starting at 1; got {strides}")
    repeats = int(repeats or (5 if quick else 10))
    ctx = common.context()
    l2 = int(ctx.get("l2_bytes") or 4 * 2 ** 20)
    threads = pow2_floor(fma_grid()[1])                   # a power of two: exact coverage
    c = numba_cuda()
    n_l2 = pow2_floor(l2 // 4 // 4)                       # floats: a quarter of the L2
    n_dram = pow2_floor(common.elements_for(2 ** 30 if quick else 2 ** 31, 4, share=0.25))
    if n_dram * 4 < 8 * l2:
        raise ValueError(f"too little free memory for a DRAM buffer of 8x the L2 ({8 * l2} B)")
    x_l2 = c.as_cuda_array(torch.rand(n_l2, device="cuda"))
    x_dram_t = torch.rand(n_dram, device="cuda")
    x_dram = c.as_cuda_array(x_dram_t)
    rows = _strided(x_l2, "l2", strides, threads, 2 ** 29 if quick else 2 ** 31, repeats)
    rows += _strided(x_dram, "dram", strides, threads, 0, repeats)
    dram_bw = rows[-len(strides)]["useful_bandwidth"]
    rows += _gather(x_dram, min(2 ** 26, n_dram // 4), threads, repeats, dram_bw)
    fetch = None
    if fetch_granularities:
        try:
            grows, start = _fetch_granularity(x_dram, strides, tuple(fetch_granularities),
                                              threads, repeats)
        except Exception as exc:                  # noqa: BLE001 - the rest of the lab stands
            grows, start = [], None
            fetch = {"error": f"{type(exc).__name__}: {exc}"}
        rows += grows
    if fetch_granularities and start is not None:
        fetch = {"default": start, "asked": list(fetch_granularities),
                 "useful_bandwidth": {
                     str(g): {**{str(r["stride"]): r["useful_bandwidth"] for r in grows
                                 if r["granularity"] == g and "stride" in r
                                 and r.get("experiment_part") != "gather"},
                              "gather": next((r["useful_bandwidth"] for r in grows
                                              if r["granularity"] == g
                                              and r.get("experiment_part") == "gather"), None)}
                     for g in fetch_granularities},
                 "readback_bytes": {str(g): next(r["readback_bytes"] for r in grows
                                                 if r["granularity"] == g)
                                    for g in fetch_granularities}}
    del x_dram, x_dram_t
    rows += _torch_view(8192, repeats)
    summary = {"useful_bandwidth_by_stride": {
        p: {str(r["stride"]): r["useful_bandwidth"] for r in rows
            if r.get("experiment") == "stride" and r["placement"] == p} for p in PLACEMENTS},
        "gather_bandwidth": next(r["useful_bandwidth"] for r in rows
                                 if r.get("experiment") == "gather" and r["order"] == "random")}
    if fetch is not None:
        summary["fetch_granularity"] = fetch
    params = {"quick": quick, "strides": list(strides), "l2_buffer_bytes": 4 * n_l2,
              "dram_buffer_bytes": 4 * n_dram, "l2_bytes": l2, "ilp": ILP, "threads": threads,
              "repeats": repeats, "piece_bytes": dict(PLACEMENTS),
              "fetch_granularities": list(fetch_granularities)}
    return common.record("coalescing", params, rows, summary, ctx)


def plot(results: list[dict]):
    """Left: useful bandwidth against stride from the L2 and from DRAM, with the model
    (stride-1 bandwidth x useful fraction, 32-byte sectors / 64-byte bursts). Right: the
    gather and the torch view, useful bandwidth per case."""
    import plotly.graph_objects as go

    from . import plotting as p

    fig = p.figure("Coalescing: the same bytes, in a different order", rows=2, cols=1,
                   subtitles=("useful bandwidth vs stride", "gather and torch view"), height=760,
                   row_heights=[0.6, 0.4])
    for i, r, name in p.each(results):
        for k, place in enumerate(PLACEMENTS):
            rs = p.rows(r, experiment="stride", placement=place)
            p.points(fig, i, p.column(rs, "stride"), p.column(rs, "useful_bandwidth"),
                     f"{name}: {place.upper()}", col=1, series=k)
            if i == 0 and rs:
                p.model(fig, p.column(rs, "stride"), p.column(rs, "predicted"),
                        f"model ({PLACEMENTS[place]}-byte pieces)", col=1,
                        dash="dash" if place == "dram" else "dot")
        cases = [(f"gather, {row['order']}", row["useful_bandwidth"])
                 for row in p.rows(r, experiment="gather")]
        cases += [(row["case"], row["useful_bandwidth"]) for row in p.rows(r, experiment="torch_view")]
        if cases:
            fig.add_trace(go.Bar(y=[p.wrap(c[0], 22) for c in cases], x=[c[1] for c in cases],
                                 orientation="h", name=f"{name}: useful bandwidth",
                                 marker=dict(color=p.style(i)["marker"]["color"])), row=2, col=1)
    p.axes(fig, "stride (floats between neighbouring lanes)", "useful bandwidth (B/s)", row=1, col=1)
    p.axes(fig, "useful bandwidth (B/s)", "", xlog=True, ylog=None, row=2, col=1)
    fig.update_yaxes(autorange="reversed", tickfont=dict(size=11), row=2, col=1)
    fig.update_layout(margin=dict(l=150))
    return p.finish(fig)
