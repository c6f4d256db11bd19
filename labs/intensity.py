"""The roofline, measured: an intensity knob walks one kernel from memory-bound to compute-bound.

What it isolates: the ratio of arithmetic to bytes, with nothing else changing. The knob
kernel (``kernels.knob``, :func:`labs.kernels.make_knob`) reads floats with 16-byte loads,
does k fused multiply-adds on each, and writes them back: 8 bytes and 2k FLOPs per float,
so the intensity is k/4 FLOP/byte and the bytes are the same for every k. Beside it: a
torch device-to-device copy (the bandwidth ceiling, bytes read + written per second) and a
registers-only FMA kernel (the FP32 ceiling), held for a second with the SM clock read
through NVML, so the peak can be checked against SMs x lanes x 2 x that clock.

What the model predicts: t(k) = max(2kN / P, 8N / B) with P the measured FMA rate and B
the measured copy bandwidth; flat while k/4 < P/B (the ridge), then rising linearly. Real
kernels overlap loads and arithmetic imperfectly, so the measured curve turns a little
earlier and rounder than the sharp corner; away from the ridge (k/4 outside
[ridge/2, 2 x ridge]) it follows the model closely.

Two launch shapes, timed at every k (LAUNCHES), the faster kept: no single shape is best
on both sides of the ridge. Fresh threads (one per 16 bytes, gone once stored) stream
best, because the hardware hands blocks to whichever SM frees up first; one persistent
wave with the next turn's loads in flight overlaps loads with arithmetic best, so it wins
from the ridge on. Recorded on the H200 (2026-11-30, 4 GiB, ridge 14.7 FLOP/byte, the
first of three full runs in one device call): fresh threads stream at 0.977 of the same
run's copy (4.14 of 4.24 TB/s; the persistent wave at 0.91); every k outside the ridge
band within 10% of the model, the worst k = 128 (intensity 32) at 1.09x, where fresh
threads are 1.23x. The other two runs: 0.981 and 1.001 of the copy, worst 1.11x and
1.08x. With 1 GiB launches (0.5 ms) the same kernels gave 0.89-0.99 and 1.11-1.15x:
start and end transients of a few tens of microseconds weigh too much in so short a
launch. labs/NOTES.md has every variant tried.

Sizes: one buffer of 4 GiB (quick: 1 GiB), the copy's two of the same size, each at most
a fifth of the free memory: many times any L2. On a T4 (quick): about 21 s
(:func:`labs.budget.estimate`: with its measured roofs, 230 GB/s and 6.8 TFLOP/s, and a
fifth of its ~14.5 GiB free, so 1 GiB, each k=1..64 launch moves 2 GiB in 9.3 ms and the
k=1024 launch computes for 80 ms; 7 launches of each k in each of the two shapes take
about 2 s, the copy 0.2 s, the FMA hold 1 s; compiling the FMA kernel and the two knobs
about 15 s, start-up 3 s). The H200's quick run took 15.7 s in all, mostly compiling.
"""
from __future__ import annotations

from . import ceilings, common
from .gpu import cuda_time
from .kernels import BLOCK, VEC, kernels, make_knob

SUMMARY_KEYS = ("copy_bandwidth", "stream_bandwidth", "fma_flops", "fma_clock_hz",
                "fp32_lanes_per_sm", "fma_clock_peak", "ridge_measured")
K_FULL = tuple(2 ** j for j in range(12))          # 1 .. 2048
K_QUICK = (1, 4, 16, 64, 256, 1024)


def model_seconds(k: int, n: int, flops: float, bandwidth: float) -> float:
    """The roofline time of one knob launch: max(2kn / P, 8n / B) seconds."""
    if n < 1 or flops <= 0 or bandwidth <= 0 or k < 0:
        raise ValueError("need n >= 1, k >= 0 and positive flops and bandwidth")
    return max(2.0 * k * n / flops, 8.0 * n / bandwidth)


#: The knob's launch shapes, as (16-byte groups per thread per turn, waves of resident
#: blocks; 0 = a thread per turn's groups). Both are timed at every k; the knob's time at
#: k is the faster of the two, and each row records both.
LAUNCHES = {
    # a thread per 16 bytes: load, k FMAs, store, exit; the hardware hands out blocks as
    # SMs free up, so an SM that memory serves faster simply takes more of them
    "fresh": (1, 0),
    # one wave of resident threads striding over the buffer, the next turn's two groups
    # already on their way while this turn's FMAs run: loads and arithmetic overlap
    "persistent": (2, 1),
}


def knob_launch(x, n: int, groups: int, waves: int):
    """(launch(k), blocks): the knob (:func:`labs.kernels.make_knob` with ``groups``) over
    the cuda array x of n floats, in ``waves`` waves of resident blocks of BLOCK threads
    (0: a thread per ``groups`` 16-byte groups)."""
    knob = make_knob(groups)
    blocks = (n // (VEC * groups) + BLOCK - 1) // BLOCK
    knob[1, BLOCK](x, 0)  # compile, so the occupancy API can size one wave
    if waves:
        blocks = min(blocks, waves * ceilings.resident_blocks(knob))
    return (lambda k: knob[blocks, BLOCK](x, k)), blocks  # listing: intensity


def knob_rows(n: int, ks, flops: float, bandwidth: float, repeats: int,
              launches=tuple(LAUNCHES)) -> list[dict]:
    """Time the knob at each k over one buffer of n floats in each of ``launches`` (names
    in LAUNCHES); one row per k with the faster launch's time (``seconds``, ``launch``),
    every launch's time (``seconds_<name>``) and the model."""
    import torch

    cuda = kernels().cuda
    data = torch.rand(n, device="cuda")
    x = cuda.as_cuda_array(data)
    shapes = {name: knob_launch(x, n, *LAUNCHES[name]) for name in launches}
    ridge = flops / bandwidth
    out = []
    for k in ks:
        times = {name: cuda_time(lambda: launch(k), warmup=2, repeats=repeats)
                 for name, (launch, _blocks) in shapes.items()}
        best = min(times, key=times.get)
        t = times[best]
        m = model_seconds(k, n, flops, bandwidth)
        intensity = k / 4.0
        out.append({"kind": "knob", "k": k, "intensity": intensity, "seconds": t,
                    "launch": best, **{f"seconds_{name}": v for name, v in times.items()},
                    "flops": 2.0 * k * n / t, "bandwidth": 8.0 * n / t, "model_seconds": m,
                    "model_ratio": t / m, "near_ridge": ridge / 2 <= intensity <= 2 * ridge})
    return out


def run(quick: bool = False, ks=None, buffer_bytes: float | None = None,
        launches=tuple(LAUNCHES)) -> dict:
    """Copy, FMA peak and the knob sweep; see the module docstring. ks: knob values
    (default 1..2048, quick 1..1024); buffer_bytes: the knob's buffer and each of the
    copy's two (default 4 GiB, quick 1 GiB; at most a fifth of the free memory each); launches: names in LAUNCHES to time at every k (a name, or several
    joined by "+", or a sequence of names)."""
    if isinstance(launches, str):
        launches = tuple(launches.split("+"))
    launches = tuple(launches)
    unknown = [name for name in launches if name not in LAUNCHES]
    if not launches or unknown:
        raise ValueError(f"launches must name some of {tuple(LAUNCHES)}; got {launches!r}")
    common.require_cuda("intensity")
    ks = tuple(ks or (K_QUICK if quick else K_FULL))
    if any(int(k) != k or k < 0 for k in ks):
        raise ValueError(f"ks must be non-negative integers; got {ks}")
    n = common.elements_for(buffer_bytes or (2 ** 30 if quick else 2 ** 32), 4,
                            multiple=VEC * BLOCK)
    ctx = common.context()
    copy = ceilings.copy_bandwidth(n)
    peak = ceilings.fma_peak(hold_s=1.0 if quick else 2.0)
    clock = peak["sm_clock_hz"] or ctx.get("sm_clock_hz") or 0.0
    lanes = common.fp32_lanes_per_sm(ctx["compute_capability"])
    clock_peak = ctx["sms"] * lanes * 2.0 * clock
    rows = knob_rows(n, ks, peak["fma_flops"], copy, repeats=5 if quick else 10,
                     launches=launches)
    rows += [{"kind": "copy", "bytes": 8.0 * n, "bandwidth": copy},
             {"kind": "fma_peak", "flops": peak["fma_flops"], "sm_clock_hz": clock,
              "power_w": peak["power_w"], "launches": peak["launches"],
              "threads": peak["threads"], "turns": peak["turns"]}]
    smallest = min((r for r in rows if r["kind"] == "knob"), key=lambda r: r["k"])
    summary = {"copy_bandwidth": copy, "stream_bandwidth": smallest["bandwidth"],
               "fma_flops": peak["fma_flops"], "fma_clock_hz": clock,
               "fp32_lanes_per_sm": lanes, "fma_clock_peak": clock_peak,
               "ridge_measured": peak["fma_flops"] / copy}
    params = {"quick": quick, "n_floats": n, "bytes_per_launch": 8.0 * n, "ks": list(ks),
              "block": BLOCK, "launches": {name: {"groups": LAUNCHES[name][0],
                                                  "waves": LAUNCHES[name][1]}
                                           for name in launches}}
    return common.record("intensity", params, rows, summary, ctx)


def plot(results: list[dict]):
    """Left: attained FLOP/s against intensity on each run's measured roofline.
    Right: time per launch against k, measured and the model from the two roofs."""
    from . import plotting as p

    fig = p.figure("The intensity knob on the roofline", cols=2,
                   subtitles=("attained FLOP/s vs intensity", "time per launch vs k"))
    for i, r, name in p.each(results):
        s, knob = r["summary"], p.rows(r, kind="knob")
        nbytes = r["params"].get("bytes_per_launch")
        x = p.column(knob, "intensity")
        y = [xi * nbytes / t if t else None for xi, t in zip(x, p.column(knob, "seconds"))]
        p.points(fig, i, x, y, name, col=1)
        p.points(fig, i, p.column(knob, "k"), p.column(knob, "seconds"), name, col=2,
                 showlegend=False)
        bw = s.get("copy_bandwidth") or s.get("stream_bandwidth")
        if s.get("fma_flops") and bw:
            p.roof(fig, s["fma_flops"], bw, f"roofline from {name}'s measured roofs", col=1)
        for name in (LAUNCHES if i == 0 else ()):
            if any(f"seconds_{name}" in x for x in knob):
                p.points(fig, 1, p.column(knob, "k"), p.column(knob, f"seconds_{name}"),
                         f"{name} launch", col=2, mode="lines",
                         series=2 + list(LAUNCHES).index(name))
        if i == 0 and knob and bw:
            ks = p.column(knob, "k")
            p.model(fig, ks, [model_seconds(k, nbytes / 8, s["fma_flops"], bw) for k in ks],
                    "model: max(F/P, D/B)", col=2)
    p.axes(fig, "intensity (FLOP/byte)", "FLOP/s", col=1)
    p.axes(fig, "k (FMAs per float)", "seconds", col=2)
    return p.finish(fig)
