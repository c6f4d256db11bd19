"""Waves: a matmul's speed steps where its output crosses a tile boundary.

What it isolates: how an output split into tiles lands on the SMs. torch matmuls
(n x n x n, random data) over a fine sweep of n across a tile boundary (1784 to 1800, the
source notes' 1792 vs 1793) and a coarse sweep (multiples of 512 and one past each),
timed with CUDA events after warm-up; TFLOP/s = 2 n^3 / time. Each n twice: packed, and
padded (the inner dimension K zero-padded and every row pitch rounded up to 64 elements;
the n x n output keeps its size). On the H200 an n that is not a multiple of 8 runs about
5x slower (the even ones about 3x) in BOTH layouts: the output's own odd dimensions keep
cuBLAS off its fastest kernels, a step far larger than any wave, so the wave steps show
only among multiples of 8 (1784, 1792, 1800 in the fine sweep).

What the model predicts (:mod:`perfmodel.waves`): with tiles of tile_m x tile_n (here the
notes' 256 x 128), one block per SM and every tile taking the same time, the attainable
fraction of the peak is (useful share of the tiled area) x (share of SM slots busy over
all waves): n = 1792 makes 7 x 14 = 98 full tiles, n = 1793 makes 8 x 15 = 120, most of
them partial. Drawn beside the measurement for this GPU's SM count, scaled to the best
rate measured.

Plainly: the library (cuBLAS / cuBLASLt behind torch) chooses its own tile shapes, split-K
and kernels for every n, and pads or handles partial tiles its own way, so its steps need
not fall where this one fixed tile puts them; odd n also lose the aligned (16-byte) loads
the fastest kernels need. The model shows the mechanism, not cuBLAS's choices.

The dtype follows the GPU (:func:`dtype_for`): BF16 where it has BF16 tensor cores
(compute capability 8.0 and later: the H200's recorded run), FP16 before that (a T4, 7.5,
has FP16 tensor cores but none for BF16, so a BF16 matmul there would time cuBLAS's
fallback, not the tiles). Both are 2 bytes, so the padded pitch and the sizes are the same.
``params["dtype"]`` and ``summary["dtype"]`` say which ran.

On a T4 (quick): about 10 s (:func:`labs.budget.estimate`: FP16 matmuls at the notes'
sustained 21 TFLOP/s, sizes off a multiple of 8 taken as 3-5x slower as on the H200, 8
calls of each size in each layout: 6 s, 4.2 s of it n = 8193; start-up 3 s). The largest
operands (n = 8193, padded) take 0.4 GB.
"""
from __future__ import annotations

from perfmodel import waves

from . import common
from .gpu import compute_capability as compute_capability_of
from .timing import queued_time

SUMMARY_KEYS = ("best_flops", "fine_sweep_max_over_min", "dtype")
FINE = tuple(range(1784, 1801))
FINE_QUICK = (1788, 1790, 1791, 1792, 1793, 1794, 1796)
COARSE = tuple(n + d for n in range(512, 8193, 512) for d in (0, 1))
COARSE_QUICK = tuple(n + d for n in (1024, 2048, 4096, 8192) for d in (0, 1))
TILE = (256, 128)
#: Row pitch (elements) of the padded layout: 128 bytes in BF16 and in FP16.
PAD_TO = 64
LAYOUTS = ("packed", "padded")


def dtype_for(compute_capability) -> str:
    """The matmul dtype (a torch dtype name) for a GPU: "bfloat16" from compute capability
    8.0 on (BF16 tensor cores), "float16" before (a T4, 7.5, has FP16 tensor cores only:
    a BF16 matmul there would time cuBLAS's fallback, not the tensor-core tiles)."""
    major, _minor = compute_capability_of(compute_capability)
    return "bfloat16" if major >= 8 else "float16"


def model_fraction(n: int, sms: int, tile: tuple[int, int] = TILE, blocks_per_sm: int = 1) -> float:
    """Attainable share of the peak for an n x n output: useful tiled area x busy slots."""
    tiles = waves.tiles(n, n, *tile)
    return waves.useful_fraction(n, n, *tile) * waves.utilization(tiles, sms, blocks_per_sm)


def operands(n: int, pad: bool, dtype: str = "bfloat16"):
    """(a, b, c) for c = a @ b with n x n x n useful work, random a and b.

    pad=False: packed n x n tensors. pad=True: the inner dimension K zero-padded to a
    multiple of PAD_TO and every row pitch too, so each row starts 16-byte aligned and K
    splits into whole 16-byte pieces whatever n is; the zeros add nothing to c, so the
    output is the same n x n product (2 n^3 useful FLOPs, 2 n^2 K computed)."""
    import torch

    if n < 1:
        raise ValueError(f"n must be >= 1; got {n}")
    dt = getattr(torch, dtype)
    if not pad:
        return (torch.randn(n, n, device="cuda", dtype=dt), torch.randn(n, n, device="cuda", dtype=dt),
                torch.empty(n, n, device="cuda", dtype=dt))
    kp = -(-n // PAD_TO) * PAD_TO
    a = torch.zeros(n, kp, device="cuda", dtype=dt)
    a[:, :n] = torch.randn(n, n, device="cuda", dtype=dt)
    b = torch.zeros(kp, kp, device="cuda", dtype=dt)
    b[:n, :n] = torch.randn(n, n, device="cuda", dtype=dt)
    c = torch.empty(n, kp, device="cuda", dtype=dt)
    return a, b[:, :n], c[:, :n]


def time_matmul(n: int, repeats: int, pad: bool = False, dtype: str = "bfloat16") -> float:
    """Median seconds of ``torch.mm(a, b, out=c)`` on :func:`operands` (CUDA events)."""
    import torch

    a, b, c = operands(n, pad, dtype)
    return queued_time(lambda: torch.mm(a, b, out=c), warmup=3, repeats=repeats)


def run(quick: bool = False, fine=None, coarse=None, repeats: int | None = None) -> dict:
    """Time the fine and coarse sweeps; see the module docstring."""
    common.require_cuda("waves")
    fine = tuple(fine or (FINE_QUICK if quick else FINE))
    coarse = tuple(coarse or (COARSE_QUICK if quick else COARSE))
    if any(int(n) != n or n < 1 for n in fine + coarse):
        raise ValueError("every n must be an integer >= 1")
    repeats = int(repeats or (5 if quick else 15))
    ctx = common.context()
    sms = int(ctx["sms"])
    dtype = dtype_for(ctx["compute_capability"])
    rows = []
    for sweep, ns in (("fine", fine), ("coarse", coarse)):
        for n in ns:
            tiles = waves.tiles(n, n, *TILE)
            for layout in LAYOUTS:
                t = time_matmul(n, repeats, pad=layout == "padded", dtype=dtype)
                rows.append({"sweep": sweep, "layout": layout, "n": n, "seconds": t,
                             "flops": 2.0 * n ** 3 / t, "tiles": tiles,
                             "waves": waves.waves(tiles, sms), "model_fraction": model_fraction(n, sms)})
    best = max(r["flops"] for r in rows)
    for r in rows:
        r["model_flops"] = best * r["model_fraction"]
    fine_rates = [r["flops"] for r in rows if r["sweep"] == "fine" and r["layout"] == "packed"]
    summary = {"best_flops": best, "fine_sweep_max_over_min": max(fine_rates) / min(fine_rates),
               "dtype": dtype}
    params = {"quick": quick, "dtype": dtype, "tile": list(TILE), "sms": sms,
              "fine": list(fine), "coarse": list(coarse), "repeats": repeats,
              "pad_to": PAD_TO,
              "note": "the library chooses its own tiles; the model uses one fixed 256 x 128 tile"}
    return common.record("waves", params, rows, summary, ctx)


def plot(results: list[dict]):
    """TFLOP/s against n, fine sweep (left) and coarse (right), with the waves model for
    the run's SM count (one fixed 256 x 128 tile, scaled to the best rate)."""
    from . import plotting as p

    fig = p.figure("Waves: matmul speed across tile boundaries (the library picks its own tiles)",
                   cols=2, subtitles=("fine sweep", "coarse sweep"))
    for i, r, name in p.each(results):
        dt = {"bfloat16": " (BF16)", "float16": " (FP16)"}.get(r["params"].get("dtype"), "")
        for col, sweep in ((1, "fine"), (2, "coarse")):
            rs = []
            for layout in LAYOUTS:
                rs = sorted(p.rows(r, sweep=sweep, layout=layout), key=lambda row: row["n"])
                # points, not a line: a line would join n and n + 1 into a sawtooth
                p.points(fig, i, p.column(rs, "n"), p.column(rs, "flops"),
                         f"{name}{dt}: {layout} rows", col=col, showlegend=col == 1,
                         mode="markers", series=LAYOUTS.index(layout),
                         text=[f"{row['tiles']} tiles, {row['waves']} wave(s)" for row in rs])
            if i == 0 and rs:
                import plotly.graph_objects as go

                sms = r["params"].get("sms", r["context"].get("sms"))
                fig.add_trace(go.Scatter(
                    x=p.column(rs, "n"), y=p.column(rs, "model_flops"), mode="markers",
                    name=f"waves model, 256 x 128 tiles on {sms} SMs", showlegend=col == 1,
                    marker=dict(symbol="line-ew", size=14, line=dict(width=2, color="#7f7f7f"))),
                    row=1, col=col)
    p.axes(fig, "n", "FLOP/s", xlog=False, ylog=False, col=1)
    p.axes(fig, "n", "FLOP/s", xlog=False, ylog=False, col=2)
    return p.finish(fig)
