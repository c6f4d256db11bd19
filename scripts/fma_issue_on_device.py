"""Where the FMA-peak kernel's last few percent go: its own cycle counter against NVML.

Run on the device machine from the repository root (torch, numba-cuda, NVML; no plotly):

    python3 scripts/fma_issue_on_device.py --out OUT [--variant chains16] [--launches 40]

A copy of an FMA-peak variant's loop (labs/fma_variants.py) whose thread 0 of each block
reads ``%clock64`` and ``%globaltimer`` before and after the loop. From one full wave of
resident blocks (labs.ceilings.fma_grid), launches of about 10 ms:

- the SM clock inside the kernel, cycles / nanoseconds summed over blocks (Hz), beside the
  median clock NVML reported during the same launches;
- the issue share: FMAs an SM did over (FP32 lanes x the SM's busy cycles, the longest of
  its blocks' loop spans), i.e. the fraction of lane-cycles that did a useful FMA,
  independent of the clock;
- the usual share of the clock peak: FLOP/s (CUDA events over the whole launch) over
  SMs x lanes x 2 x the NVML clock, and the same over the in-kernel clock.

If the issue share is near 1 and the in-kernel clock is below NVML's, the shortfall is the
clock; if the issue share itself is short, it is issue (loop overhead, stalls). Budget:
compile a few seconds, --launches x 10 ms. Writes OUT/fma_issue.json.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import time

import numpy as np

F = np.float32

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def build(chains16: bool):
    """The instrumented kernel: chains16's loop (or chains8's) between two timer reads."""
    from labs import kernels as K
    from labs.gpu import clock64, globaltimer

    K._bind()
    cuda = K.cuda
    blk = K._fixed(K.UNROLL)
    cyc, now = clock64(), globaltimer()

    @cuda.jit(fastmath=True)
    def timed(out, stamps, turns):
        i = cuda.grid(1)
        s = np.float32(i % 1024) * np.float32(1e-3)
        d = np.float32(0.05)
        v0, v1, v2, v3 = s, s + d, s + F(2) * d, s + F(3) * d
        v4, v5, v6, v7 = s + F(4) * d, s + F(5) * d, s + F(6) * d, s + F(7) * d
        v8, v9, va, vb = s + F(8) * d, s + F(9) * d, s + F(10) * d, s + F(11) * d
        vc, vd, ve, vf = s + F(12) * d, s + F(13) * d, s + F(14) * d, s + F(15) * d
        cuda.syncthreads()
        c0, t0 = cyc(), now()
        for _ in range(turns):
            v0, v1, v2, v3 = blk(v0), blk(v1), blk(v2), blk(v3)
            v4, v5, v6, v7 = blk(v4), blk(v5), blk(v6), blk(v7)
            if chains16:
                v8, v9, va, vb = blk(v8), blk(v9), blk(va), blk(vb)
                vc, vd, ve, vf = blk(vc), blk(vd), blk(ve), blk(vf)
        cuda.syncthreads()
        c1, t1 = cyc(), now()
        if cuda.threadIdx.x == 0:
            b = cuda.blockIdx.x
            stamps[b, 0], stamps[b, 1], stamps[b, 2], stamps[b, 3] = c0, c1, t0, t1
            stamps[b, 4] = np.uint64(smid())
        if i < out.size:
            out[i] = ((((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7)))
                      + (((v8 + v9) + (va + vb)) + ((vc + vd) + (ve + vf))))

    return timed, (16 if chains16 else 8) * K.UNROLL


def _smid():
    """Device function: the SM this thread runs on (%smid)."""
    from llvmlite import ir
    from numba import types
    from numba.core.extending import intrinsic

    @intrinsic
    def read(typingctx):
        def codegen(context, builder, signature, args):
            fty = ir.FunctionType(ir.IntType(32), [])
            return builder.call(ir.InlineAsm(fty, "mov.u32 $0, %smid;", "=r",
                                             side_effect=True), [])
        return types.uint32(), codegen

    return read


smid = None


def main(argv=None) -> int:
    global smid
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--variant", choices=("chains8", "chains16"), default="chains16")
    ap.add_argument("--launches", type=int, default=40)
    a = ap.parse_args(argv)
    from labs import common
    from labs.ceilings import BLOCK, fma_grid
    from labs.gpu import NvmlSampler, context, cuda_time

    common.require_cuda("fma_issue")
    smid = _smid()
    kern, per_turn = build(a.variant == "chains16")
    from labs.kernels import kernels

    cuda = kernels().cuda
    ctx = context()
    lanes = common.fp32_lanes_per_sm(ctx["compute_capability"])
    sms = int(ctx["sms"])
    blocks, threads = fma_grid()
    out = cuda.device_array(threads, dtype=np.float32)
    stamps = cuda.device_array((blocks, 5), dtype=np.uint64)
    t = cuda_time(lambda: kern[blocks, BLOCK](out, stamps, 16), warmup=2, repeats=3)
    turns = max(16, int(16 * 0.01 / t))
    rows = []
    with NvmlSampler(0.02) as s:
        for _ in range(a.launches):
            sec = cuda_time(lambda: kern[blocks, BLOCK](out, stamps, turns), warmup=0, repeats=1)
            st = stamps.copy_to_host().astype(np.int64)
            cycles, ns = st[:, 1] - st[:, 0], st[:, 3] - st[:, 2]
            span = {}
            for b in range(blocks):
                sm = int(st[b, 4])
                lo, hi = span.get(sm, (st[b, 0], st[b, 1]))
                span[sm] = (min(lo, st[b, 0]), max(hi, st[b, 1]))
            sm_cycles = np.array([hi - lo for lo, hi in span.values()], dtype=float)
            fmas_per_sm = threads * turns * per_turn / len(span)
            rows.append({"seconds": sec, "kernel_clock_hz": float(cycles.sum() / ns.sum() * 1e9),
                         "issue_share": float(fmas_per_sm / (lanes * sm_cycles.mean())),
                         "issue_share_worst_sm": float(fmas_per_sm / (lanes * sm_cycles.max())),
                         "sms_seen": len(span),
                         "blocks_per_sm_max": int(np.bincount(st[:, 4]).max()),
                         "blocks_per_sm_min": int(np.bincount(st[:, 4])[np.unique(st[:, 4])].min()),
                         "kernel_span_seconds": float((st[:, 3].max() - st[:, 2].min()) * 1e-9),
                         "start_spread_seconds": float((st[:, 2].max() - st[:, 2].min()) * 1e-9),
                         "end_spread_seconds": float((st[:, 3].max() - st[:, 3].min()) * 1e-9),
                         "loop_seconds_mean": float(ns.mean() * 1e-9)})
    nvml_clock = s.median("sm_clock_hz")
    flops = threads * turns * per_turn * 2 / statistics.median(r["seconds"] for r in rows)
    kclock = statistics.median(r["kernel_clock_hz"] for r in rows)
    res = {"variant": a.variant, "turns": turns, "blocks": blocks, "threads": threads,
           "fma_flops": flops, "nvml_sm_clock_hz": nvml_clock, "kernel_sm_clock_hz": kclock,
           "issue_share_median": statistics.median(r["issue_share"] for r in rows),
           "share_of_nvml_clock_peak": flops / (sms * lanes * 2 * nvml_clock) if nvml_clock else None,
           "share_of_kernel_clock_peak": flops / (sms * lanes * 2 * kclock),
           "power_w": s.median("power_w"),
           "registers": {str(k): v for k, v in kern.get_regs_per_thread().items()},
           **{k: statistics.median(r[k] for r in rows) for k in (
               "kernel_span_seconds", "start_spread_seconds", "end_spread_seconds",
               "loop_seconds_mean", "blocks_per_sm_max", "blocks_per_sm_min")}}
    print(json.dumps(res, indent=1))
    o = pathlib.Path(a.out)
    o.mkdir(parents=True, exist_ok=True)
    (o / "fma_issue.json").write_text(json.dumps({"context": ctx, "summary": res, "rows": rows},
                                                 indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
