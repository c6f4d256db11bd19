"""Attention: materialising the S x S scores against FlashAttention's tiles.

What it isolates: where the intermediate lives. Three ways to compute the same
softmax(Q K^T / sqrt(d)) V, FP16, batch 1, 16 heads, head dim 64, with and without a
causal mask: naive PyTorch (the scores and the probabilities as S x S tensors in memory);
PyTorch's fused ``scaled_dot_product_attention`` under each backend this GPU offers
(``torch.nn.attention.sdpa_kernel``: flash, memory-efficient, cuDNN, math) and under its
own choice; and :func:`tiled_attention`, the online softmax written in PyTorch ops, one
key/value tile at a time (a reference for the algorithm, not a fast kernel). Each is timed
with CUDA events and its peak memory read with ``torch.cuda.max_memory_allocated`` after
a reset (bytes beyond the inputs).

Correctness: every output is compared on 128 random query rows with a float64 reference
computed from the same FP16 inputs; relative error ||out - ref|| / ||ref|| must stay under
``TOLERANCE`` = 1e-2 (FP16 operands and outputs: typically about 1e-3).

What the model predicts (:func:`perfmodel.hierarchy.attention_extra_bytes`): naive
memory grows as S^2 (2 S^2 elements per head while softmax runs), the fused kernels' as S
(the output and one float per row); the FLOPs are 4 S^2 d per head either way (half of
them with a causal mask), so the fused kernel wins by the bytes it never moves.

Sizes: the S x S implementations (``SQUARE``: naive and the math backend) run only where
their matrices, in float32 at worst, fit in half the free memory (:func:`square_fits`; an
H200 at every S, a T4 with ~14.5 GiB free up to S = 4096); elsewhere their rows say why
(``available`` False, with the sizes). A backend the GPU lacks (PyTorch's FlashAttention
kernel needs sm_80) gets rows with torch's reason. On a T4 (quick): about 5 s
(:func:`labs.budget.estimate`: every call and reference at S = 512 to 4096 about 1.5 s;
start-up 3 s).
"""
from __future__ import annotations

import math

from perfmodel import hierarchy

from . import common
from .timing import queued_time

SUMMARY_KEYS = ("naive_peak_bytes", "sdpa_peak_bytes", "speedup")
SEQS = (512, 1024, 2048, 4096, 8192, 16384)
SEQS_QUICK = (512, 1024, 2048, 4096)
BATCH, HEADS, HEAD_DIM = 1, 16, 64
TOLERANCE = 1e-2
CHECK_ROWS = 128
TILE = 512
BACKENDS = ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH")


def naive_attention(q, k, v, causal: bool = False):
    """softmax(Q K^T / sqrt(d)) V with the S x S scores and probabilities materialised."""
    import torch

    s = (q * q.shape[-1] ** -0.5) @ k.transpose(-2, -1)
    if causal:
        n = q.shape[-2]
        s.masked_fill_(torch.ones(n, n, dtype=torch.bool, device=q.device).triu_(1), -math.inf)
    s = torch.softmax(s, dim=-1)          # the scores are freed once the probabilities exist
    return s @ v


def tiled_attention(q, k, v, causal: bool = False, tile: int = TILE):
    """The online softmax of :mod:`perfmodel.softmax` over key/value tiles, in float32
    PyTorch ops: a running max m, denominator l and weighted sum u per query row, merged
    tile by tile; memory S x tile per head instead of S x S."""
    import torch

    if tile < 1:
        raise ValueError(f"tile must be >= 1; got {tile}")
    n, kv = q.shape[-2], k.shape[-2]
    qf = q.float() * q.shape[-1] ** -0.5
    m = torch.full(q.shape[:-1] + (1,), -math.inf, device=q.device)
    l_ = torch.zeros_like(m)
    u = torch.zeros(q.shape, device=q.device)
    rows = torch.arange(n, device=q.device)[:, None]
    for start in range(0, kv, tile):
        s = qf @ k[..., start:start + tile, :].float().transpose(-2, -1)
        if causal:
            cols = torch.arange(start, min(start + tile, kv), device=q.device)[None, :]
            s = s.masked_fill(cols > rows, -math.inf)
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        ref = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)  # empty rows
        alpha = torch.exp(m - ref)
        p = torch.exp(s - ref)
        l_ = alpha * l_ + p.sum(dim=-1, keepdim=True)
        u = alpha * u + p @ v[..., start:start + tile, :].float()
        m = m_new
    return (u / l_).to(q.dtype)


def reference_rows(q, k, v, rows, causal: bool):
    """Float64 attention for the query ``rows`` only (upcast inputs)."""
    import torch

    q64, k64, v64 = q[..., rows, :].double(), k.double(), v.double()
    s = (q64 @ k64.transpose(-2, -1)) * q.shape[-1] ** -0.5
    if causal:
        s = s.masked_fill(torch.arange(k.shape[-2], device=q.device)[None, :] > rows[:, None],
                          -math.inf)
    return torch.softmax(s, dim=-1) @ v64


def relative_error(out, ref) -> float:
    """||out - ref|| / ||ref|| in float64 (NaN anywhere -> inf)."""
    d = out.double() - ref
    err = float(d.norm() / ref.norm())
    return err if math.isfinite(err) else math.inf


def square_bytes(seq: int) -> int:
    """Bytes of the S x S scores and probabilities of every head, in float32 (the worst
    case: the math backend may upcast): what the naive and math implementations hold."""
    return 2 * BATCH * HEADS * seq * seq * 4


def square_fits(free_bytes: float, seq: int) -> bool:
    """True when :func:`square_bytes` fits in half the free memory (a T4, about 14.5 GiB
    free: up to S = 4096; an H200: up to 16384)."""
    return square_bytes(seq) < free_bytes / 2


#: The implementations that hold the S x S matrices (left out where they do not fit).
SQUARE = ("naive", "sdpa:math")


def implementations(free_bytes: float, seq: int):
    """(name, fn(q, k, v, causal)) pairs for one sequence length; the S^2 ones
    (``SQUARE``) only when :func:`square_fits`."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    fits = square_fits(free_bytes, seq)

    # listing-begin: attention
    def sdpa(backend=None):
        def fn(q, k, v, causal):
            if backend is None:
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            with sdpa_kernel(getattr(SDPBackend, backend)):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        return fn
    # listing-end: attention

    out = [("naive", naive_attention)] if fits else []
    out.append(("sdpa", sdpa()))
    out += [(f"sdpa:{b.lower().replace('_attention', '')}", sdpa(b)) for b in BACKENDS
            if b != "MATH" or fits]
    out.append(("tiled", tiled_attention))
    return out


def measure(fn, q, k, v, causal: bool, rows, repeats: int) -> dict:
    """Time, peak extra memory and error of one implementation (unavailable -> reason)."""
    import torch

    try:
        out = fn(q, k, v, causal)
    except RuntimeError as e:                       # a backend this GPU or shape lacks
        return {"available": False, "reason": str(e).splitlines()[0][:200]}
    torch.cuda.synchronize()
    err = relative_error(out[..., rows, :], reference_rows(q, k, v, rows, causal))
    del out
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    res = fn(q, k, v, causal)
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    del res
    t = queued_time(lambda: fn(q, k, v, causal), warmup=1, repeats=repeats)
    return {"available": True, "seconds": t, "peak_bytes": peak, "rel_error": err,
            "ok": err <= TOLERANCE}


def _growth(rows: list[dict], impl: str) -> dict | None:
    pts = sorted((r["seq"], r["peak_bytes"]) for r in rows
                 if r.get("impl") == impl and not r.get("causal") and r.get("available"))
    if len(pts) < 2 or pts[-2][1] <= 0:
        return None
    (s1, b1), (s2, b2) = pts[-2], pts[-1]
    return {"kind": "growth", "impl": impl, "from_seq": s1, "to_seq": s2,
            "exponent": math.log(b2 / b1) / math.log(s2 / s1)}


def run(quick: bool = False, seqs=None, repeats: int | None = None) -> dict:
    """Every implementation at every sequence length, causal and not; see the docstring."""
    import torch

    common.require_cuda("attention")
    seqs = tuple(seqs or (SEQS_QUICK if quick else SEQS))
    if any(int(s) != s or s < 1 for s in seqs):
        raise ValueError(f"seqs must be integers >= 1; got {seqs}")
    repeats = int(repeats or (3 if quick else 10))
    ctx = common.context()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    rows = []
    for seq in seqs:
        shape = (BATCH, HEADS, seq, HEAD_DIM)
        q, k, v = (torch.randn(shape, device="cuda", dtype=torch.float16, generator=gen)
                   for _ in range(3))
        check = torch.randperm(seq, device="cuda", generator=gen)[:CHECK_ROWS].sort().values
        free = common.free_memory_bytes()
        if not square_fits(free, seq):   # said in the result, not dropped silently
            rows += [{"impl": impl, "causal": causal, "seq": seq, "available": False,
                      "reason": f"the S x S matrices ({square_bytes(seq) / 2 ** 30:.1f} GiB "
                                f"in float32) would not fit in half the free memory "
                                f"({free / 2 ** 30:.1f} GiB free)"}
                     for impl in SQUARE for causal in (False, True)]
        for impl, fn in implementations(free, seq):
            for causal in (False, True):
                r = measure(fn, q, k, v, causal, check, repeats)
                flops = 4.0 * BATCH * HEADS * seq * seq * HEAD_DIM * (0.5 if causal else 1.0)
                if r.get("available"):
                    r["flops_per_s"] = flops / r["seconds"]
                    r["model_peak_bytes"] = hierarchy.attention_extra_bytes(
                        seq, HEAD_DIM, BATCH, HEADS, 2, flash=impl != "naive")
                rows.append({"impl": impl, "causal": causal, "seq": seq, "flops": flops, **r})
        del q, k, v
    rows += [g for g in (_growth(rows, "naive"), _growth(rows, "sdpa")) if g]

    def pick(impl, key):
        return {str(r["seq"]): r[key] for r in rows
                if r.get("impl") == impl and not r.get("causal") and r.get("available")}

    naive_t, sdpa_t = pick("naive", "seconds"), pick("sdpa", "seconds")
    summary = {"naive_peak_bytes": pick("naive", "peak_bytes"),
               "sdpa_peak_bytes": pick("sdpa", "peak_bytes"),
               "speedup": {s: naive_t[s] / sdpa_t[s] for s in naive_t if s in sdpa_t}}
    params = {"quick": quick, "seqs": list(seqs), "batch": BATCH, "heads": HEADS,
              "head_dim": HEAD_DIM, "dtype": "float16", "tolerance": TOLERANCE,
              "check_rows": CHECK_ROWS, "tile": TILE, "repeats": repeats,
              "flops_note": "4 B H S^2 d, halved with the causal mask"}
    return common.record("attention", params, rows, summary, ctx)


def plot(results: list[dict]):
    """Left: peak extra memory against S (log-log), naive vs SDPA vs tiled, with the
    model's S^2 and S footprints. Right: time against S, causal mask off."""
    from . import plotting as p

    fig = p.figure("Attention: naive vs fused (SDPA) vs the tiled online softmax", cols=2,
                   subtitles=("peak memory beside the inputs", "time (no mask)"))
    every_impl = sorted({row["impl"] for r in results for row in r["rows"] if row.get("available")})
    for i, r, name in p.each(results):
        impls = sorted({row["impl"] for row in r["rows"] if row.get("available")})
        for impl in impls:
            rs = sorted(p.rows(r, impl=impl, causal=False, available=True), key=lambda x: x["seq"])
            k = every_impl.index(impl)
            p.points(fig, i, p.column(rs, "seq"), p.column(rs, "peak_bytes"), f"{name}: {impl}",
                     col=1, series=k)
            p.points(fig, i, p.column(rs, "seq"), p.column(rs, "seconds"), f"{name}: {impl}",
                     col=2, showlegend=False, series=k)
        if i == 0:
            seqs = sorted({row["seq"] for row in r["rows"] if "seq" in row})
            par = r["params"]
            for flash, label in ((False, "model: 2 S^2 per head (naive)"),
                                 (True, "model: output + one float per row (fused)")):
                p.model(fig, seqs, [hierarchy.attention_extra_bytes(
                    s, par["head_dim"], par["batch"], par["heads"], 2, flash=flash) for s in seqs],
                    label, col=1, dash="dash" if not flash else "dot")
    p.axes(fig, "sequence length S", "bytes", col=1)
    p.axes(fig, "sequence length S", "seconds", col=2)
    return p.finish(fig)
