"""Real operations on the roofline: where a network's ops land, and how near their roof each gets.

What it isolates: the operation's compulsory traffic (every input read once, every output
written once) as the x-coordinate, against the FLOP/s it reaches through torch. Elementwise
ops (add, ReLU, a multiply-add), reductions and normalisations (sum, softmax, layer norm),
matmul at several sizes in FP32 (TF32 off) and FP16, a 3x3 convolution, SDPA attention
and a linear layer.

Each op is timed as three calls captured in a CUDA graph and replayed, so a small op's
figure is its GPU time, not the host's launch cost.

What the model predicts: min(P, I x B) for each op at its intensity, with B the copy
bandwidth and P the FP32 FMA peak measured in this run, and for FP16 matmuls, convolution,
attention and the linear layer the FP16 tensor rate of the largest FP16 matmul here.
Elementwise ops should reach most of the memory roof; a small matmul does too little work
to fill the GPU and sits far below its roof.

Quick mode: 2^26-element elementwise ops and matmuls up to 4096. On a T4 (quick): about
9 s (:func:`labs.budget.estimate`, at 230 GB/s and 6.8 / 21 TFLOP/s: 17 ops of 1-40 ms,
42 calls each, 3 s; the half-second FMA hold, its compile and start-up; on the H200, 2.1 s).
"""
from __future__ import annotations

from perfmodel import ops

from . import ceilings, common
from .gpu import cuda_time

SUMMARY_KEYS = ("copy_bandwidth", "fma_flops", "tensor_fp16_flops",
                "elementwise_roof_fraction", "matmul_fp16_flops")


def catalogue(n: int, mm_sizes, quick: bool):
    """(name, op, unit, make) for every op; make() returns a zero-argument torch call."""
    import torch
    import torch.nn.functional as F

    def vec(dtype=torch.float32, k=1):
        return [torch.randn(n, device="cuda", dtype=dtype) for _ in range(k)]

    def elementwise():
        (a, b, c) = vec(k=3)
        return [("add", ops.vector_add(n), "fp32", lambda: a + b),
                ("ReLU", ops.relu(n), "fp32", lambda: torch.relu(a)),
                ("multiply-add", ops.elementwise(n, 2, 3, 1, name="a*b+c"), "fp32",
                 lambda: torch.addcmul(c, a, b)),
                ("sum", ops.reduction(n), "fp32", lambda: a.sum())]

    def rowwise():
        rows, cols = n // 4096, 4096
        x = torch.randn(rows, cols, device="cuda")
        ln = torch.nn.LayerNorm(cols, device="cuda")
        return [("softmax", ops.softmax(rows, cols), "fp32", lambda: torch.softmax(x, -1)),
                ("layer norm", ops.layernorm(rows, cols, passes=1), "fp32", lambda: ln(x))]

    def matmuls():
        out = []
        for dt, unit, name in ((torch.float32, "fp32", "fp32"), (torch.float16, "fp16_tensor", "fp16")):
            for m in mm_sizes:
                a = torch.randn(m, m, device="cuda", dtype=dt)
                out.append((f"matmul {m} {name}", ops.matmul(m, dtype=name), unit,
                            (lambda a=a: a @ a)))
        return out

    def others():
        h = torch.float16
        img = torch.randn(32, 64, 128 if quick else 256, 128 if quick else 256, device="cuda", dtype=h)
        w = torch.randn(64, 64, 3, 3, device="cuda", dtype=h)
        b_, c_ = img.shape[0], img.shape[1]
        hw = img.shape[2] * img.shape[3]
        conv = ops.Op("conv 3x3, 64->64 ch", 2 * b_ * hw * c_ * 64 * 9,
                      2 * (img.numel() * 2 + w.numel()), "fp16", b_ * hw)
        q, k_, v = (torch.randn(8, 16, 4096, 64, device="cuda", dtype=h) for _ in range(3))
        att = ops.attention(4096, 64, flash=True, dtype="fp16", heads=8 * 16)
        x = torch.randn(256, 4096, device="cuda", dtype=h)
        lin = torch.nn.Linear(4096, 4096, bias=False, device="cuda", dtype=h)
        return [("conv 3x3", conv, "fp16_tensor", lambda: F.conv2d(img, w, padding=1)),
                ("attention (SDPA)", att, "fp16_tensor",
                 lambda: F.scaled_dot_product_attention(q, k_, v)),
                ("linear 4096, batch 256", ops.linear(256, 4096, 4096), "fp16_tensor",
                 lambda: lin(x))]

    for group in (elementwise, rowwise, matmuls, others):
        yield from group()


def op_seconds(fn) -> float:
    """GPU seconds of one call: three calls in a CUDA graph, replayed (CUDA events around a
    single call where an op cannot be captured)."""
    try:
        return ceilings.graph_seconds([fn] * 3)
    except Exception:  # an op whose library call cannot be captured: time it plainly
        return cuda_time(fn, warmup=3, repeats=10)


def run(quick: bool = False) -> dict:
    """Every op of the catalogue timed (CUDA events, median) and placed on the measured roof."""
    import torch

    common.require_cuda("ops_on_roof")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    n = common.elements_for(2 ** 28 if quick else 2 ** 30, 4, share=0.05)
    mm_sizes = (256, 1024, 4096) if quick else (256, 1024, 4096, 8192)
    copy = ceilings.copy_bandwidth(n)
    fma = ceilings.fma_peak(hold_s=0.5 if quick else 1.0)["fma_flops"]
    measured = []
    with torch.no_grad():
        for name, op, unit, fn in catalogue(n, mm_sizes, quick):
            t = op_seconds(fn)
            measured.append({"kind": "op", "op": name, "unit": unit, "dtype": op.dtype,
                             "flops_count": op.flops, "bytes": op.bytes,
                             "intensity": op.intensity, "seconds": t, "flops": op.flops / t})
    tensor = max(r["flops"] for r in measured if r["op"].startswith("matmul") and r["dtype"] == "fp16")
    peaks = {"fp32": fma, "fp16_tensor": tensor}
    for r in measured:
        roof = min(peaks[r["unit"]], r["intensity"] * copy)
        r.update(roof_flops=roof, fraction_of_roof=r["flops"] / roof,
                 bound="memory" if r["intensity"] * copy < peaks[r["unit"]] else "compute")
    elementwise = [r["fraction_of_roof"] for r in measured
                   if r["op"] in ("add", "ReLU", "multiply-add")]
    summary = {"copy_bandwidth": copy, "fma_flops": fma, "tensor_fp16_flops": tensor,
               "elementwise_roof_fraction": sum(elementwise) / len(elementwise),
               "matmul_fp16_flops": tensor}
    params = {"quick": quick, "elementwise_n": n, "matmul_sizes": list(mm_sizes), "tf32": False,
              "timing": "CUDA graph replay of 3 calls"}
    return common.record("ops_on_roof", params, measured, summary)


def plot(results: list[dict]):
    """Left: each op at its intensity against the measured FP32 and FP16 roofs.
    Right: the percent of its roof each op reached, per run."""
    import plotly.graph_objects as go

    from . import plotting as p

    fig = p.figure("Real operations on the roofline", cols=2,
                   subtitles=("FLOP/s at compulsory-traffic intensity", "percent of roof"),
                   height=600)
    for i, r, name in p.each(results):
        s, rs = r["summary"], p.rows(r, kind="op")
        p.points(fig, i, p.column(rs, "intensity"), p.column(rs, "flops"), name, col=1,
                 mode="markers", text=p.column(rs, "op"))
        if i == 0 and s.get("copy_bandwidth"):
            for unit, key in (("FP32", "fma_flops"), ("FP16 tensor", "tensor_fp16_flops")):
                p.roof(fig, s[key], s["copy_bandwidth"], f"{unit} roof ({name})", col=1)
        pct = [100 * f if f is not None else None for f in p.column(rs, "fraction_of_roof")]
        fig.add_trace(go.Bar(x=p.column(rs, "op"), y=pct, name=f"{name}: % of roof",
                             marker_color=p.COLORS[i % len(p.COLORS)]), row=1, col=2)
    p.axes(fig, "intensity (FLOP/byte)", "FLOP/s", col=1)
    p.axes(fig, "", "% of roof", xlog=None, ylog=False, col=2)
    fig.update_layout(barmode="group")
    return fig
