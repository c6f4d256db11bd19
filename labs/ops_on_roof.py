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
Elementwise ops should reach about the copy's rate; a small matmul does too little work
to fill the GPU and sits far below its roof. The copy, the FMA kernel and the fastest FP16
matmul are single kernels' rates, references another op may pass (and the fastest matmul
is a point of the sweep itself): the plot draws them as reference lines and judges each
op against the datasheet bound instead (:func:`datasheet_share`).

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

    # listing-begin: ops_on_roof
    def elementwise():
        (a, b, c) = vec(k=3)
        return [("add", ops.vector_add(n), "fp32", lambda: a + b),
                ("ReLU", ops.relu(n), "fp32", lambda: torch.relu(a)),
                ("multiply-add", ops.elementwise(n, 2, 3, 1, name="a*b+c"), "fp32",
                 lambda: torch.addcmul(c, a, b)),
                ("sum", ops.reduction(n), "fp32", lambda: a.sum())]
    # listing-end: ops_on_roof

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


#: The families the chapter names, in its order: (legend label, test on an op's name).
FAMILIES = (("element-wise: add, ReLU, multiply-add", lambda n: n in ("add", "ReLU", "multiply-add")),
            ("reductions and norms: sum, softmax, layer norm",
             lambda n: n in ("sum", "softmax", "layer norm")),
            ("matmul n³ FP32 (n beside each dot)", lambda n: n.startswith("matmul") and "fp32" in n),
            ("matmul n³ FP16, tensor cores", lambda n: n.startswith("matmul") and "fp16" in n),
            ("convolution 3×3, 64 channels", lambda n: n.startswith("conv")),
            ("attention (SDPA)", lambda n: n.startswith("attention")),
            ("linear 4096 × 4096, batch 256", lambda n: n.startswith("linear")))
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "star", "x", "cross")


def _dot_text(name: str) -> str:
    """The matmul's size beside its dot (the legend names the other families)."""
    return name.split()[1] if name.startswith("matmul") else ""


def datasheet_share(row: dict, machine) -> float | None:
    """An op's measured FLOP/s over its datasheet bound min(P, I x B) on ``machine`` (P of
    the row's unit, B the DRAM's): a fraction no correct timing exceeds. None where the row
    lacks its intensity, rate or unit, or the machine lacks that unit."""
    unit, intensity, flops = row.get("unit"), row.get("intensity"), row.get("flops")
    if machine is None or not unit or not intensity or not flops or unit not in machine.units():
        return None
    return flops / min(machine.peak_flops(unit), intensity * machine.bandwidth("dram"))


def _held_tensor_rate(result: dict) -> float | None:
    """The FP16 tensor rate the clocks lab held for seconds on the same GPU, if recorded: a
    measured reference independent of the sweep it is drawn over."""
    from .results import load

    slug = result.get("context", {}).get("gpu_slug")
    try:
        return load("clocks", slug)["summary"].get("tensor_fp16_flops") if slug else None
    except ValueError:
        return None


def plot(results: list[dict]):
    """Top: each op of the run at its intensity, under the datasheet roofs (the bounds,
    dashed) and beside measured reference lines (dotted: the copy bandwidth and FMA rate of
    the book's one measured profile of that GPU, ``labs.machine_profile``, or the run's own where the
    book has none; dash-dot: the FP16 tensor rate the clocks lab held
    for seconds on the same GPU). A measured line is one kernel's rate, so another kernel
    may pass it; none is computed from the ops it is drawn over. Bottom: the percent of its
    datasheet bound each op reached, per run (a run that gives only shares of its own
    measured roofs, like the T4 reference, says so in the legend)."""
    import plotly.graph_objects as go

    from . import plotting as p
    from .references import datasheet, measured_profile

    fig = p.figure("Real operations on the roofline", rows=2, cols=1, height=900,
                   row_heights=[0.5, 0.5],
                   subtitles=("FLOP/s at compulsory-traffic intensity",
                              "percent of the datasheet bound"))
    i, r, name = next(p.each(results))
    ops_rows = p.rows(r, kind="op")
    s, m = r["summary"], datasheet(r)
    if m is not None:
        for k, unit in enumerate(u for u in ("fp32", "fp16_tensor") if u in m.units()):
            p.roof(fig, m.peak_flops(unit), m.bandwidth("dram"),
                   "bounds: datasheet roofs (FP32, FP16 tensor)", col=1, showlegend=k == 0)
    prof = measured_profile(r)
    if prof is not None:    # the book's one measured GPU: the copy and FMA the text quotes
        copy, fma = prof.bandwidth("dram"), prof.peak_flops("fp32")
        what = f"reference lines: the measured {r['context']['gpu_slug']}'s copy and FMA (labs.machine_profile)"
    else:
        copy, fma = s.get("copy_bandwidth"), s.get("fma_flops")
        what = "reference lines: this run's copy and FMA kernel"
    if copy and fma:
        p.roof(fig, fma, copy, what, col=1, dash="dot")
        held = _held_tensor_rate(r)
        if held:
            p.model(fig, [held / copy, 4096], [held, held],
                    "reference line: FP16 tensor rate held (clocks lab)",
                    col=1, dash="dashdot")
    taken = set()
    for k, (family, test) in enumerate(FAMILIES):
        rs = [x for x in ops_rows if x["op"] not in taken and test(x["op"]) and x.get("intensity")]
        taken |= {x["op"] for x in rs}
        if not rs:
            continue
        rs.sort(key=lambda x: x["intensity"])
        pos = ["bottom center" if j % 2 and k == 2 else "top center" for j in range(len(rs))]
        c = p.COLORS[(k + 2) % len(p.COLORS)]
        fig.add_trace(go.Scatter(
            x=p.column(rs, "intensity"), y=p.column(rs, "flops"), name=family,
            mode="markers+text", text=[_dot_text(x["op"]) for x in rs], textposition=pos,
            textfont=dict(size=10, color=c), cliponaxis=False,
            customdata=p.column(rs, "op"), hovertemplate="%{customdata}: %{y:.3s}FLOP/s<extra></extra>",
            marker=dict(color=c, size=9 if k < 4 else 11, symbol=SYMBOLS[k])), row=1, col=1)
    for i, r, name in p.each(results):
        m = datasheet(r)
        rs = [(x["op"], datasheet_share(x, m)) for x in p.rows(r, kind="op")]
        what = "% of the datasheet bound"
        if not any(v is not None for _, v in rs):   # only shares of the run's own roofs
            rs = [(x["op"], x.get("fraction_of_roof")) for x in p.rows(r, kind="op")]
            what = "% of its measured roofs"
        rs = [(op, v) for op, v in rs if v is not None]
        fig.add_trace(go.Bar(y=[op for op, _ in rs], x=[100 * v for _, v in rs],
                             orientation="h", name=f"{name}: {what}",
                             marker_color=p.COLORS[i % len(p.COLORS)],
                             hovertemplate="%{y}: %{x:.0f}%<extra></extra>"), row=2, col=1)
    fig.add_vline(x=100, line=dict(color="#7f7f7f", dash="dot", width=1), row=2, col=1)
    p.axes(fig, "intensity (FLOP/byte)", "FLOP/s", row=1, col=1)
    p.axes(fig, "% of the roof the legend names (100% = that roof)", "", xlog=False,
           ylog=False, row=2, col=1, xunit="")
    fig.update_yaxes(type="category", autorange="reversed", tickfont=dict(size=11), row=2, col=1)
    fig.update_layout(barmode="group", bargap=0.25, margin=dict(l=150))
    return p.finish(fig)
