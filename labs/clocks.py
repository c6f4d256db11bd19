"""Why the roof moves: clocks, power, and a ceiling set by the work.

What it isolates: the SM clock under load. Three workloads are held for several seconds
with NVML sampling the SM clock and board power: the FMA-peak kernel (FP32 lanes), an FP32
matmul (TF32 off) and an FP16 tensor-core matmul. Then a burst of FP16 matmuls, each
followed by a one-thread kernel that spins 20 us on the GPU's nanosecond timer
(``%globaltimer``) counting SM cycles (``%clock64``): the clock inside the burst, matmul
by matmul, after ten seconds of idling and after a few seconds of streaming memory.

What the model predicts: peak = SMs x lanes x 2 x clock, so a rate measured at a lower
clock should match the peak scaled to that clock (perfmodel.clocks.peak); a card that
reaches its power limit lowers its clock, more for work that draws more power per cycle
(tensor cores most), and a burst starts at whatever clock the previous work left.

Without NVML (the ``pynvml`` module of ``nvidia-ml-py``) the lab still runs: it warns
once, says so in ``params["nvml"]``, and the held workloads' clock and power are None.

Quick mode holds each workload 2 s and idles 3 s before the burst. On a T4 (quick): about
19 s (:func:`labs.budget.estimate`: 6 s of holds, 4 s of preludes, two bursts of about
0.3 s, the matmuls timed before their holds 1 s, compiling two kernels 4 s, start-up 3 s;
on the H200, where the holds dominate: 10.8 s).
"""
from __future__ import annotations

import time
import warnings

from perfmodel import machines

from . import ceilings, common
from .gpu import nvml_problem
from .kernels import kernels

SUMMARY_KEYS = ("tensor_fp16_flops", "tensor_clock_hz", "tensor_power_w", "fma_sustained_flops",
                "fma_clock_hz", "fma_power_w", "matmul_fp32_flops", "matmul_fp32_clock_hz",
                "max_sm_clock_hz", "burst_clock_hz_after_idle", "burst_clock_hz_after_stream")
SPIN_NS = 20_000


def burst_size(budget_s: float = 0.3) -> tuple[int, int, float]:
    """(n, count, seconds): the smallest FP16 matmul of 2048/4096/8192 taking >= 0.3 ms,
    and how many of them fill ``budget_s``."""
    for n in (2048, 4096, 8192):
        t = ceilings.matmul_rate(n, "float16", repeats=5)["seconds"]
        if t >= 3e-4:
            break
    return n, int(max(20, min(400, budget_s / t))), t


def burst(n: int, count: int) -> list[dict]:
    """``count`` FP16 matmuls, each followed by the spin kernel: per matmul, its start on the
    GPU's timer (s), its FLOP/s (CUDA events) and the SM clock the spin counted (Hz)."""
    import numpy as np
    import torch

    k = kernels()
    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    out = k.cuda.device_array((count, 3), dtype=np.uint64)
    ns = np.uint64(SPIN_NS)
    k.spin[1, 1](out, 0, ns)  # compile before the burst
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(count)]
    for j, (e0, e1) in enumerate(events):
        e0.record()
        a @ a
        e1.record()
        k.spin[1, 1](out, j, ns)
    torch.cuda.synchronize()
    o = out.copy_to_host().astype(np.float64)
    t0 = o[0, 0]
    return [{"j": j, "t_s": (o[j, 0] - t0) * 1e-9, "clock_hz": o[j, 2] / o[j, 1] * 1e9,
             "flops": 2.0 * n ** 3 / (e0.elapsed_time(e1) * 1e-3)}
            for j, (e0, e1) in enumerate(events)]


def prelude(kind: str, seconds: float) -> None:
    """Leave the GPU idle, or stream memory (1 GiB copies), for ``seconds``."""
    import torch

    torch.cuda.synchronize()
    if kind == "idle":
        time.sleep(seconds)
        return
    src = torch.rand(2 ** 28, device="cuda")
    dst = torch.empty_like(src)
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        for _ in range(10):
            dst.copy_(src)
        torch.cuda.synchronize()


def run(quick: bool = False, hold_s: float | None = None, idle_s: float | None = None) -> dict:
    """Held workloads with NVML, then bursts after idle and after streaming."""
    import torch

    common.require_cuda("clocks")
    nvml = nvml_problem()
    if nvml:  # the lab still runs: rates and the burst's clock (timed in-kernel) need no NVML
        warnings.warn(f"clocks lab: {nvml}; the held workloads' clock and power stay empty "
                      "(None) in this result", RuntimeWarning, stacklevel=2)
    hold = hold_s or (2.0 if quick else 5.0)
    idle = idle_s or (3.0 if quick else 10.0)
    torch.backends.cuda.matmul.allow_tf32 = False
    ctx = common.context()
    lanes = common.fp32_lanes_per_sm(ctx["compute_capability"])
    fma = ceilings.fma_peak(hold_s=hold)
    mm32 = ceilings.matmul_rate(4096 if quick else 8192, "float32", hold_s=hold)
    mm16 = ceilings.matmul_rate(8192, "float16", hold_s=hold)
    rows = []
    for name, r, unit in (("FMA kernel, FP32 lanes", {**fma, "flops": fma["fma_flops"]}, "fp32"),
                          ("matmul FP32", mm32, "fp32"), ("matmul FP16 tensor", mm16, "fp16_tensor")):
        clock = r["sm_clock_hz"] or 0.0
        rows.append({"kind": "hold", "workload": name, "unit": unit, "flops": r["flops"],
                     "sm_clock_hz": r["sm_clock_hz"], "power_w": r["power_w"],
                     "lanes_peak_at_clock": (ctx["sms"] * lanes * 2.0 * clock
                                             if unit == "fp32" and clock else None)})
        rows += [{"kind": "sample", "workload": name, **smp} for smp in r.get("samples", [])[::5]]
    n, count, _ = burst_size()
    first = {}
    for kind in ("idle", "stream"):
        prelude(kind, idle if kind == "idle" else idle / 3)
        b = burst(n, count)
        first[kind] = b[0]["clock_hz"]
        rows += [{"kind": "burst", "prelude": kind, "n": n, **x} for x in b]
    summary = {"tensor_fp16_flops": mm16["flops"], "tensor_clock_hz": mm16["sm_clock_hz"],
               "tensor_power_w": mm16["power_w"], "fma_sustained_flops": fma["fma_flops"],
               "fma_clock_hz": fma["sm_clock_hz"], "fma_power_w": fma["power_w"],
               "matmul_fp32_flops": mm32["flops"], "matmul_fp32_clock_hz": mm32["sm_clock_hz"],
               "max_sm_clock_hz": ctx.get("max_sm_clock_hz"),
               "burst_clock_hz_after_idle": first["idle"],
               "burst_clock_hz_after_stream": first["stream"]}
    params = {"quick": quick, "hold_s": hold, "idle_s": idle, "burst_n": n, "burst_count": count,
              "spin_ns": SPIN_NS, "fp32_lanes_per_sm": lanes,
              "nvml": nvml or "ok: SM clock and board power sampled"}
    return common.record("clocks", params, rows, summary, ctx)


def _datasheet(result: dict):
    gpu = str(result["context"].get("gpu_name", "")).upper()
    return next((m for m in machines.all_machines() if m.kind == "gpu" and m.name in gpu), None)


def plot(results: list[dict]):
    """Left: sustained rate of each held workload over the datasheet peak scaled to the clock
    it ran at (per run). Right: the SM clock through each burst of the run shown."""
    import plotly.graph_objects as go

    from . import plotting as p

    fig = p.figure("Why the roof moves: clock and power", cols=2,
                   subtitles=("held for seconds", "SM clock in a burst of FP16 matmuls"))
    for i, r, name in p.each(results):
        ds = _datasheet(r)
        holds = p.rows(r, kind="hold")
        frac = []
        for h in holds:
            if ds is None or not h.get("sm_clock_hz") or h.get("unit") not in ds.peaks:
                frac.append(None)
                continue
            frac.append(h["flops"] / ds.with_clock(h["sm_clock_hz"]).peak_flops(h["unit"]))
        fig.add_trace(go.Bar(x=[p.wrap(w, 12) for w in p.column(holds, "workload")], y=frac, name=name,
                             marker_color=p.COLORS[i % len(p.COLORS)],
                             text=[f"{c / 1e6:.0f} MHz" if c else "" for c in
                                   p.column(holds, "sm_clock_hz")]), row=1, col=1)
        for k, kind in enumerate(("idle", "stream")):
            b = p.rows(r, kind="burst", prelude=kind)
            p.points(fig, i, [1e3 * t for t in p.column(b, "t_s")],
                     [c / 1e6 for c in p.column(b, "clock_hz")], f"{name}: after {kind}",
                     col=2, mode="lines+markers" if len(b) < 5 else "lines", series=k)
            if b and kind == "stream":
                fig.data[-1].line.dash = "dot"
    p.axes(fig, "", "rate / datasheet peak at that clock", xlog=None, ylog=False, col=1)
    p.axes(fig, "ms into the burst", "SM clock (MHz)", xlog=False, ylog=False, col=2)
    fig.update_xaxes(tickangle=0, tickfont=dict(size=10), row=1, col=1)
    fig.update_layout(barmode="group")
    return p.finish(fig)
