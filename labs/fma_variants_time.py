"""Time every FMA-peak variant (labs/fma_variants.py) on a real GPU, as the labs do.

Run on the device machine from the repository root (torch, numba-cuda, NVML; no plotly):

    python3 -m labs.fma_variants_time --out OUT [--hold 1.5] [--repeat 2]

(or the device runner's step: ``python3 -m labs.device --out OUT fma_variants``)

For each variant, in ``--repeat`` rounds (variants interleaved, so a slow drift of the
clock or the temperature does not favour one), :func:`labs.ceilings.fma_peak` holds the
kernel for ``--hold`` seconds under NVML sampling: launches of about 10 ms on one full wave
of resident threads (labs.ceilings.fma_grid), CUDA events, median. The share printed is
the FMA rate over the clock peak, SMs x 128 FP32 lanes x 2 FLOPs x the median SM clock
NVML read during that hold (the clocks and intensity labs' measure, lanes an SM from
labs.common.fp32_lanes_per_sm). Also printed per variant: registers a thread and blocks
of 256 resident an SM (the occupancy API), since a variant that needs more than 32 registers no longer fits 2048
threads an SM and its one-wave grid would run in two.

Budget: about 4 variants x repeats x (hold + 0.2 s) plus compiling (a few seconds each):
about 25 s at the defaults, under 90 s with --repeat 3 --hold 3. Writes OUT/fma_variants.json
(context, one row per hold, a summary per variant: the median share over the rounds).
Shipping another variant means copying it into labs/kernels.py (labs.kernels.FMA_PEAK_VARIANT).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import time


def occupancy(kernel) -> dict:
    """Registers a thread and resident blocks of BLOCK an SM of a compiled kernel."""
    from labs.ceilings import resident_blocks
    from labs.kernels import kernels

    dev = kernels().cuda.get_current_device()
    out = {"blocks_per_sm": resident_blocks(kernel) / int(dev.MULTIPROCESSOR_COUNT)}
    try:
        regs = kernel.get_regs_per_thread()
        out["registers"] = int(max(regs.values()) if isinstance(regs, dict) else regs)
    except Exception as e:  # an older numba-cuda: say so, time it anyway
        out["registers"] = f"n/a ({type(e).__name__})"
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="folder for fma_variants.json")
    ap.add_argument("--hold", type=float, default=1.5, help="seconds each variant is held")
    ap.add_argument("--repeat", type=int, default=2, help="rounds over all variants")
    ap.add_argument("--variants", default=None, help="comma-separated names (default: all)")
    ap.add_argument("--blocks-per-sm", default="",
                    help="comma-separated blocks of 256 an SM to try (default: all that fit)")
    a = ap.parse_args(argv)
    if a.hold <= 0 or a.repeat < 1:
        raise ValueError("--hold must be > 0 and --repeat >= 1")

    from labs import common
    from labs.ceilings import fma_peak
    from labs.fma_variants import VARIANTS, variant

    common.require_cuda("fma_variants")
    names = tuple(a.variants.split(",")) if a.variants else VARIANTS
    for n in names:
        variant(n)  # unknown name -> ValueError listing them
    ctx = common.context()
    lanes = common.fp32_lanes_per_sm(ctx["compute_capability"])
    sms = int(ctx["sms"])
    t0 = time.perf_counter()
    rows = []
    grids = [int(b) for b in a.blocks_per_sm.split(",") if b] or [None]
    for r in range(a.repeat):
        for n, bps in ((n, b) for n in names for b in grids):
            res = fma_peak(hold_s=a.hold, variant=n, blocks_per_sm=bps)
            clock = res["sm_clock_hz"]
            peak = sms * lanes * 2 * clock if clock else None
            row = {"variant": n, "blocks_per_sm": bps, "round": r, "fma_flops": res["fma_flops"],
                   "sm_clock_hz": clock, "power_w": res["power_w"], "turns": res["turns"],
                   "threads": res["threads"], "launches": res["launches"],
                   "clock_peak_flops": peak,
                   "share_of_clock_peak": res["fma_flops"] / peak if peak else None}
            rows.append(row)
            share = f"{row['share_of_clock_peak']:.4f}" if peak else "n/a (no NVML clock)"
            print(f"round {r} {n:12s} {bps or 'all'} blocks/SM {res['fma_flops'] / 1e12:7.2f} TFLOP/s at "
                  f"{(clock or 0) / 1e6:6.0f} MHz: {share} of the clock peak", flush=True)
    summary = {}
    for n, bps in ((n, b) for n in names for b in grids):
        mine = [x for x in rows if x["variant"] == n and x["blocks_per_sm"] == bps]
        shares = [x["share_of_clock_peak"] for x in mine if x["share_of_clock_peak"] is not None]
        key = n if bps is None else f"{n}@{bps}"
        summary[key] = {"median_share_of_clock_peak": statistics.median(shares) if shares else None,
                        "median_fma_flops": statistics.median(x["fma_flops"] for x in mine),
                        **occupancy(variant(n))}
        if bps is not None:
            summary[key]["blocks_per_sm"] = bps
        print(f"{key:14s} median share {summary[key]['median_share_of_clock_peak']}, "
              f"registers {summary[key]['registers']}, "
              f"blocks/SM {summary[key]['blocks_per_sm']:.1f}")
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    doc = {"what": "FMA-peak variants, labs/fma_variants.py, timed by labs.ceilings.fma_peak",
           "context": ctx, "lanes_per_sm": lanes, "hold_s": a.hold, "rows": rows,
           "summary": summary, "wall_s": time.perf_counter() - t0}
    (out / "fma_variants.json").write_text(json.dumps(doc, indent=1, default=str))
    print(f"wrote {out / 'fma_variants.json'} in {doc['wall_s']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
