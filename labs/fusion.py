"""Fusion: the cheapest byte is the one never moved.

What it isolates: bytes per element with the arithmetic held fixed. relu(x*1.5+0.5) on FP16
data written the obvious way is three kernels (multiply, add, ReLU), each reading and
writing the whole tensor: 12 bytes per element. Fused into one kernel it is 4 bytes. The
same for sin(x)^2 + cos(x)^2 in FP32: five kernels move 44 bytes per element, one kernel 8.
The fused version is ``torch.compile``'s; where compile is unavailable, the numba kernels
``kernels.scale_shift_relu`` and ``kernels.sin2_cos2`` stand in (the result says which).

What the model predicts: all versions are memory-bound, so the speed-up is the ratio of
bytes: 3x and 5.5x (and each version's time is its bytes over the copy bandwidth).

Quick mode uses 2^26 elements. On a T4 (quick): about 34 s (:func:`labs.budget.estimate`:
at 230 GB/s the eager chains take 3.5 ms and 13 ms a call, 15 calls each, 0.3 s in all;
the two torch.compile compilations, assumed 15 s each on a first run and cached after,
dominate; on the H200 the whole quick run took 11.9 s, compilation included).
"""
from __future__ import annotations

from perfmodel import ops

from . import ceilings, common
from .gpu import cuda_time
from .kernels import BLOCK, grid, kernels

SUMMARY_KEYS = ("scale_shift_relu_speedup", "scale_shift_relu_predicted", "sin2_cos2_speedup",
                "sin2_cos2_predicted", "fused_with")


def _eager_ssr(x):
    import torch

    return torch.relu(x * 1.5 + 0.5)


def _eager_sc(x):
    import torch

    return torch.sin(x) ** 2 + torch.cos(x) ** 2


def fused_versions(x16, x32):
    """(how, fused scale_shift_relu, fused sin2_cos2): torch.compile where it works, else numba."""
    import torch

    try:
        ssr, sc = torch.compile(_eager_ssr), torch.compile(_eager_sc)
        ok = (torch.allclose(ssr(x16), _eager_ssr(x16), rtol=1e-2, atol=1e-2)
              and torch.allclose(sc(x32), _eager_sc(x32), atol=1e-5))
        if ok:
            return "torch.compile", (lambda: ssr(x16)), (lambda: sc(x32))
    except Exception:  # no compiler toolchain here: fall back to the hand-fused kernels
        pass
    k = kernels()
    a16, a32 = k.cuda.as_cuda_array(x16), k.cuda.as_cuda_array(x32)
    y16, y32 = k.cuda.device_array_like(a16), k.cuda.device_array_like(a32)
    # listing-begin: fusion
    return ("numba", lambda: k.scale_shift_relu[grid(a16.size), BLOCK](a16, y16),
            lambda: k.sin2_cos2[grid(a32.size), BLOCK](a32, y32))
    # listing-end: fusion


def run(quick: bool = False, n: int | None = None) -> dict:
    """Eager vs fused for both chains; n elements (default 2^28, quick 2^26)."""
    import torch

    common.require_cuda("fusion")
    n = common.elements_for(4 * (n or (2 ** 26 if quick else 2 ** 28)), 4, share=0.05)
    x16 = torch.randn(n, device="cuda", dtype=torch.float16)
    x32 = torch.randn(n, device="cuda", dtype=torch.float32)
    how, ssr, sc = fused_versions(x16, x32)
    copy = ceilings.copy_bandwidth(n)
    cases = (("relu(x*1.5+0.5)", "fp16", ops.scale_shift_relu, lambda: _eager_ssr(x16), ssr),
             ("sin^2+cos^2", "fp32", ops.sin2_cos2, lambda: _eager_sc(x32), sc))
    rows, speed = [], {}
    for name, dtype, make, eager, fused in cases:
        times = {}
        for version, fn in (("eager", eager), ("fused", fused)):
            op = make(n, fused=version == "fused", dtype=dtype)
            t = cuda_time(fn, warmup=3, repeats=10)
            times[version] = (t, op.bytes)
            rows.append({"kind": "chain", "chain": name, "version": version, "dtype": dtype,
                         "bytes": op.bytes, "bytes_per_element": op.bytes / n, "seconds": t,
                         "bandwidth": op.bytes / t, "model_seconds": op.bytes / copy})
        speed[name] = (times["eager"][0] / times["fused"][0], times["eager"][1] / times["fused"][1])
    summary = {"scale_shift_relu_speedup": speed["relu(x*1.5+0.5)"][0],
               "scale_shift_relu_predicted": speed["relu(x*1.5+0.5)"][1],
               "sin2_cos2_speedup": speed["sin^2+cos^2"][0],
               "sin2_cos2_predicted": speed["sin^2+cos^2"][1], "fused_with": how}
    params = {"quick": quick, "n": n, "copy_bandwidth": copy}
    return common.record("fusion", params, rows, summary)


def plot(results: list[dict]):
    """Seconds of each chain, eager and fused, per run, beside the model (bytes / copy
    bandwidth) of the run shown."""
    import plotly.graph_objects as go

    from . import plotting as p

    fig = p.figure("Fusion: the same FLOPs, a fraction of the bytes", cols=2,
                   subtitles=("relu(x*1.5+0.5), FP16", "sin^2 + cos^2, FP32"))
    for col, chain in ((1, "relu(x*1.5+0.5)"), (2, "sin^2+cos^2")):
        for i, r, name in p.each(results):
            rs = p.rows(r, kind="chain", chain=chain)
            if not rs:
                continue
            ms = [1e3 * t for t in p.column(rs, "seconds")]
            fig.add_trace(go.Bar(x=p.column(rs, "version"), y=ms, name=name,
                                 marker_color=p.COLORS[i % len(p.COLORS)], showlegend=col == 1,
                                 text=[f"{v:.3g} ms" for v in ms]), row=1, col=col)
            if i == 0 and "model_seconds" in rs[0]:
                fig.add_trace(go.Bar(x=p.column(rs, "version"),
                                     y=[1e3 * t for t in p.column(rs, "model_seconds")],
                                     name="model: bytes / copy bandwidth", showlegend=col == 1,
                                     marker=dict(color="rgba(127,127,127,0.35)")), row=1, col=col)
        p.axes(fig, "", "ms per call", xlog=None, ylog=False, col=col)
    fig.update_layout(barmode="group")
    return p.finish(fig)
