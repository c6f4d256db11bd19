"""A linear layer from batch 1 up past the ridge: sixty-four inputs cost what one does.

What it isolates: weight reuse. One 4096 x 4096 FP16 weight matrix (32 MiB) applied to a
batch of b input vectors: 2 b 4096^2 FLOPs over 2 (4096^2 + 2 b 4096) bytes, an intensity
of about b (b 4096 / (4096 + 2b)). At batch 1 nearly all the time is reading the weights;
each extra input reuses them and rides along almost free until the layer turns
compute-bound.

Each batch size is timed as a CUDA graph replaying the layer over several weight matrices,
together three times the L2 (so the weights come from DRAM each time and the host's launch
cost stays out of the figure).

What the model predicts: t(b) = max(F(b)/P, D(b)/B), flat while memory-bound and rising
linearly past the batch where the intensity equals the FP16 ridge P/B. With the
datasheet's P and B that is a bound no layer beats; with B the copy bandwidth and P the
rate of a large FP16 matmul, both measured here, it is a reference another kernel may
pass (a short burst can outrun the long matmul that set P). The measured bend is
where the two measured asymptotes cross: b* = b_max x t(1) / t(b_max).

Quick mode sweeps b = 1..1024 with 10 timed launches each. On a T4 (quick): about 4 s
(:func:`labs.budget.estimate`, at 230 GB/s and 21 TFLOP/s sustained FP16: 0.15 ms at batch
1 to 1.7 ms at 1024, 0.2 s for the sweep, 0.1 s for the FP16 reference matmul; the rest is
start-up. On the H200, 0.1 s).
"""
from __future__ import annotations

from perfmodel import ops

from . import ceilings, common

SUMMARY_KEYS = ("weight_bandwidth", "fp16_matmul_flops", "copy_bandwidth",
                "bend_batch_measured", "bend_batch_model")
D = 4096


def model_seconds(batch: int, flops: float, bandwidth: float, d: int = D) -> float:
    """Roofline seconds of a d x d FP16 linear layer on a batch: max(F/P, D/B)."""
    op = ops.linear(batch, d, d, "fp16")
    return max(op.flops / flops, op.bytes / bandwidth)


def model_bend(flops: float, bandwidth: float, d: int = D) -> float | None:
    """The batch at which the layer's intensity b d / (d + 2b) equals the ridge P/B
    (None when the ridge is beyond the intensity any batch reaches, d/2)."""
    ridge = flops / bandwidth
    if ridge * 2 >= d:
        return None
    return ridge * d / (d - 2 * ridge)


def run(quick: bool = False, max_batch: int | None = None) -> dict:
    """Time the layer at batch 1, 2, 4, ... max_batch (default 2048, quick 1024)."""
    import torch

    common.require_cuda("linear_batch")
    top = int(max_batch or (1024 if quick else 2048))
    batches = common.powers_of_two(1, top)
    copy = ceilings.copy_bandwidth(common.elements_for(2 ** 28 if quick else 2 ** 30, 4))
    p16 = ceilings.matmul_rate(4096 if quick else 8192, "float16")["flops"]
    l2 = common.context().get("l2_bytes") or 2 ** 26
    ws = [torch.randn(D, D, device="cuda", dtype=torch.float16)
          for _ in range(max(2, -(-3 * l2 // (2 * D * D))))]  # 3x the L2: no weight stays cached
    rows = []
    with torch.no_grad():
        for b in batches:
            x = torch.randn(b, D, device="cuda", dtype=torch.float16)
            t = ceilings.graph_seconds([lambda w=w: torch.nn.functional.linear(x, w)
                                        for w in ws * 2], repeats=10)
            op = ops.linear(b, D, D, "fp16")
            m = model_seconds(b, p16, copy)
            rows.append({"kind": "linear", "batch": b, "seconds": t, "flops": op.flops / t,
                         "intensity": op.intensity, "model_seconds": m,
                         "bound": "memory" if op.bytes / copy >= op.flops / p16 else "compute"})
    t1, tn = rows[0]["seconds"], rows[-1]["seconds"]
    summary = {"weight_bandwidth": ops.linear(1, D, D, "fp16").bytes / t1,
               "fp16_matmul_flops": p16, "copy_bandwidth": copy,
               "bend_batch_measured": batches[-1] * t1 / tn,
               "bend_batch_model": model_bend(p16, copy)}
    params = {"quick": quick, "d": D, "dtype": "fp16", "batches": batches, "weights": len(ws),
              "timing": "CUDA graph replay"}
    return common.record("linear_batch", params, rows, summary)


def plot(results: list[dict]):
    """Time per layer against batch for each run; the bound from the datasheet roofs
    (dashed: no layer can beat it); the same model from measured reference rates (dotted:
    the copy of the book's measured profile of that GPU, or the run's own where there is
    none, and the run's one large FP16 matmul, rates another kernel may pass, so a point may
    sit under this line); and each run's measured bend as a vertical line."""
    from . import plotting as p
    from .references import datasheet, reference_copy

    fig = p.figure("A 4096 x 4096 FP16 linear layer: time against batch")
    times = [t for r in results for t in p.column(p.rows(r, kind="linear"), "seconds") if t]
    span = [min(times), max(times)] if times else [1e-6, 1e-3]
    for i, r, name in p.each(results):
        rs = p.rows(r, kind="linear")
        p.points(fig, i, p.column(rs, "batch"), p.column(rs, "seconds"), name,
                 text=p.column(rs, "bound"))
        s, m = r["summary"], datasheet(r)
        if i == 0 and rs:
            b = p.column(rs, "batch")
            if m is not None and "fp16_tensor" in m.units():
                p.model(fig, b, [model_seconds(x, m.peak_flops("fp16_tensor"),
                                               m.bandwidth("dram")) for x in b],
                        "bound: max(F/P, D/B), datasheet roofs")
            copy, p16 = reference_copy(r), s.get("fp16_matmul_flops")
            if p16 and copy:
                p.model(fig, b, [model_seconds(x, p16, copy) for x in b],
                        "reference: the same, at the measured copy and this run's matmul rate",
                        dash="dot")
                bend = model_bend(p16, copy)
                if bend:
                    p.model(fig, [bend] * 2, span, "reference's bend", dash="dot")
        if s.get("bend_batch_measured"):
            p.points(fig, i, [s["bend_batch_measured"]] * 2, span, f"{name}: measured bend",
                     mode="lines")
            fig.data[-1].line.dash = "dashdot"
    return p.finish(p.axes(fig, "batch", "seconds per layer"))
