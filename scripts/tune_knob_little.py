"""Kernel variants for the two failing bars (issues 4 and 5), measured on the lent H200.

    python3 scripts/tune_knob_little.py OUTDIR [knob] [little]     # first call: explore
    python3 scripts/tune_knob_little.py OUTDIR record              # second call: record

record: the full intensity lab with the knob at 1 and at 2 groups a turn, the full
Little's-law lab with the cp.async pipeline's refills free and chained, and quick runs of
both for their wall time, each in its own process; results under
OUTDIR/<tag>/H200/<lab>.json, packed into OUTDIR/record.tgz, bars printed last.

knob: the intensity knob's variants on one 1 GiB buffer, k = 1 .. 2048 (the full lab's
sweep), each against max(2kN/P, 8N/B) with P and B measured in the same run, plus the SM
clock and board power (NVML) while k = 128 is held. ``old`` is the kernel of the recorded
run (next group loaded at the top of the turn; its first FMA waits for that load too, see
labs.kernels.make_knob); ``groupsG`` is labs.kernels.make_knob(G). (The first call, on
2026-11-30, measured an earlier make_knob that staggered the warps' stores over P points
of a turn, P = 1, 4, 8; labs/NOTES.md has its numbers.)
little: labs.littles_law.run(quick=False) with the cp.async pipeline and with the batched
read, and the spread of the L = 1, 2, 4, 8 curves at equal bytes in flight.

Writes OUTDIR/knob.json, OUTDIR/little_{pipelined,batch}/H200/littles_law.json and prints
a short table last.
"""
from __future__ import annotations

import json
import pathlib
import sys
import time
import traceback

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))


def old_knob():
    """The knob as recorded on 2026-11-30 (labs/kernels.py before make_knob)."""
    from labs import kernels as K

    K._bind()
    cuda = K.cuda
    UNROLL, VEC = K.UNROLL, K.VEC
    fma_block, f16, f8, f4, f2, f1 = (K._fixed(c) for c in (UNROLL, 16, 8, 4, 2, 1))
    load4, store4 = K._vec4_gpu()

    @cuda.jit(device=True, inline=True, fastmath=True)
    def fma_tail(v, r):
        if r & 16:
            v = f16(v)
        if r & 8:
            v = f8(v)
        if r & 4:
            v = f4(v)
        if r & 2:
            v = f2(v)
        if r & 1:
            v = f1(v)
        return v

    @cuda.jit(fastmath=True)
    def knob(x, k):
        nvec = x.size // VEC
        stride = cuda.gridsize(1)
        i = cuda.grid(1)
        if i < nvec:
            v0, v1, v2, v3 = load4(x, i)
        while i < nvec:
            j = i + stride
            if j < nvec:
                w0, w1, w2, w3 = load4(x, j)
            for _ in range(k // UNROLL):
                v0 = fma_block(v0)
                v1 = fma_block(v1)
                v2 = fma_block(v2)
                v3 = fma_block(v3)
            r = k % UNROLL
            store4(x, i, fma_tail(v0, r), fma_tail(v1, r), fma_tail(v2, r), fma_tail(v3, r))
            if j < nvec:
                v0, v1, v2, v3 = w0, w1, w2, w3
            i = j

    return knob


def knob_part(out: pathlib.Path) -> list[str]:
    import torch

    from labs import ceilings, intensity
    from labs.gpu import NvmlSampler, cuda_time
    from labs.kernels import BLOCK, VEC, fma_reference, kernels, make_knob

    k_ = kernels()
    n = 2 ** 28
    copy = ceilings.copy_bandwidth(n)
    peak = ceilings.fma_peak(hold_s=1.0)
    P = peak["fma_flops"]
    ridge = P / copy
    data = torch.rand(n, device="cuda")
    x = k_.cuda.as_cuda_array(data)
    ks = intensity.K_FULL
    variants = [("old", old_knob), ("groups1", lambda: make_knob(1)),
                ("groups2", lambda: make_knob(2)), ("old", old_knob),
                ("groups1", lambda: make_knob(1)), ("groups2", lambda: make_knob(2))]
    res = {"copy_bandwidth": copy, "fma_flops": P, "fma_clock_hz": peak["sm_clock_hz"],
           "ridge": ridge, "n_floats": n, "variants": []}
    lines = []
    for name, build in variants:
        t0 = time.perf_counter()
        try:
            kern = build()
            # correctness on a small buffer with fresh data, one wave
            small = torch.rand(VEC * 100003, device="cuda")
            ref = fma_reference(small.cpu().numpy(), 37)
            kern[64, BLOCK](k_.cuda.as_cuda_array(small), 37)
            torch.cuda.synchronize()
            err = float(abs(small.cpu().numpy() - ref).max())
            blocks = min((n // VEC + BLOCK - 1) // BLOCK, ceilings.resident_blocks(kern))
            rows = []
            for k in ks:
                t = cuda_time(lambda: kern[blocks, BLOCK](x, k), warmup=2, repeats=10)
                m = intensity.model_seconds(k, n, P, copy)
                rows.append({"k": k, "seconds": t, "model_seconds": m, "ratio": t / m,
                             "near_ridge": ridge / 2 <= k / 4 <= 2 * ridge})
            with NvmlSampler(0.02) as s:
                t_end = time.perf_counter() + 0.4
                while time.perf_counter() < t_end:
                    kern[blocks, BLOCK](x, 128)
                    torch.cuda.synchronize()
            v = {"name": name, "blocks": blocks, "max_abs_err_k37": err, "rows": rows,
                 "k128_clock_hz": s.median("sm_clock_hz"), "k128_power_w": s.median("power_w"),
                 "wall_s": time.perf_counter() - t0}
            res["variants"].append(v)
            off = [r["ratio"] for r in rows if not r["near_ridge"]]
            lines.append(f"{name:9s} stream/copy={8 * n / rows[0]['seconds'] / copy:.3f} "
                         f"worst_off_ridge={max(off):.3f} k128={rows[7]['ratio']:.3f} "
                         f"k64={rows[6]['ratio']:.3f} k256={rows[8]['ratio']:.3f} "
                         f"k512={rows[9]['ratio']:.3f} k2048={rows[11]['ratio']:.3f} "
                         f"clk={(v['k128_clock_hz'] or 0) / 1e6:.0f}MHz "
                         f"P={v['k128_power_w'] or 0:.0f}W err={err:.1e} blocks={blocks}")
            print(lines[-1], flush=True)
        except Exception:
            traceback.print_exc()
            lines.append(f"{name}: FAILED")
        (out / "knob.json").write_text(json.dumps(res, indent=1))
    lines.insert(0, f"copy {copy / 1e12:.3f} TB/s, fma {P / 1e12:.2f} TFLOP/s "
                    f"({(peak['sm_clock_hz'] or 0) / 1e6:.0f} MHz), ridge {ridge:.2f}")
    return lines


def little_part(out: pathlib.Path) -> list[str]:
    from labs import littles_law, results

    lines = []
    for pipelined in (True, False):
        tag = "pipelined" if pipelined else "batch"
        t0 = time.perf_counter()
        try:
            r = littles_law.run(quick=False, pipelined=pipelined)
            results.save(r, out / f"little_{tag}")
            col = [x for x in r["rows"] if x["experiment"] == "collapse"]
            spreads = [round(x["spread"], 3) for x in col]
            s, p = r["summary"], r["params"]
            grid = [x for x in r["rows"] if x["experiment"] == "grid"]
            one = [x for x in r["rows"] if x["experiment"] == "one_sm"]
            lines.append(f"{tag}: {time.perf_counter() - t0:.1f}s worst spread "
                         f"{max(spreads) if spreads else None} over {len(spreads)} points {spreads}; "
                         f"sat {s['saturation_bandwidth'] / 1e12:.3f} TB/s = "
                         f"{p['saturation_vs_copy']:.3f} copy; at {s['bytes_in_flight_at_saturation']}"
                         f" B; one_sm {s['one_sm_bandwidth'] / 1e9:.0f} GB/s "
                         f"(max warps {max((x['warps'] for x in one), default=0)}); grid points "
                         + ", ".join(f"L{L}:{sum(1 for x in grid if x['loads_per_thread'] == L)}"
                                     for L in (1, 2, 4, 8)))
            for L in (1, 8):
                lines.append(f"   L={L} ns/turn: " + " ".join(
                    f"{x['warps']}:{x['seconds'] / x['iters'] * 1e9:.0f}"
                    for x in grid if x["loads_per_thread"] == L))
        except Exception:
            traceback.print_exc()
            lines.append(f"{tag}: FAILED after {time.perf_counter() - t0:.1f}s")
        print(lines[-1], flush=True)
    return lines


RECORD = (  # tag, lab, quick, keyword arguments (the third call's list; the second call
    # ran g1/g2 of the three-set knob and free/chained Little's law, see labs/NOTES.md)
    ("g2", "intensity", False, {"groups": 2}),
    ("g4", "intensity", False, {"groups": 4}),
    ("free2", "littles_law", False, {"chained": False}),
    ("quick_g2", "intensity", True, {"groups": 2}),
    ("quick_g4", "intensity", True, {"groups": 4}),
)


def record_one(out: pathlib.Path, i: int) -> None:
    from labs import module, results

    tag, lab, quick, kw = RECORD[i]
    t0 = time.perf_counter()
    r = module(lab).run(quick=quick, **kw)
    r["params"]["wall_s"] = time.perf_counter() - t0
    results.save(r, out / tag)
    print(f"[{tag}] {lab} quick={quick} {kw}: {r['params']['wall_s']:.1f} s", flush=True)


def bars(out: pathlib.Path) -> list[str]:
    lines = []
    for tag, lab, quick, kw in RECORD:
        f = out / tag / "H200" / f"{lab}.json"
        if not f.exists():
            lines.append(f"{tag}: missing")
            continue
        r = json.loads(f.read_text())
        s, p = r["summary"], r["params"]
        head = f"{tag:10s} {lab} {'quick' if quick else 'full '} {p.get('wall_s', 0):5.1f}s"
        if lab == "intensity":
            knob = [x for x in r["rows"] if x.get("kind") == "knob"]
            off = [x for x in knob if not x["near_ridge"]]
            worst = max(off, key=lambda x: abs(x["model_ratio"] - 1))
            lines.append(f"{head} stream/copy {s['stream_bandwidth'] / s['copy_bandwidth']:.3f} "
                         f"fma/peak {s['fma_flops'] / s['fma_clock_peak']:.3f} ridge "
                         f"{s['ridge_measured']:.2f}; worst off-ridge k={worst['k']} "
                         f"{worst['model_ratio']:.3f}; " + " ".join(
                             f"{x['k']}:{x['model_ratio']:.3f}{'*' if x['near_ridge'] else ''}"
                             for x in knob))
        else:
            col = [x["spread"] for x in r["rows"] if x.get("experiment") == "collapse"]
            lines.append(f"{head} worst spread {max(col) if col else float('nan'):.3f} over "
                         f"{len(col)} [{', '.join(f'{c:.3f}' for c in col)}]; sat/copy "
                         f"{p['saturation_vs_copy']:.3f}; one_sm "
                         f"{s['one_sm_bandwidth'] / 1e9:.0f} GB/s; at sat "
                         f"{s['bytes_in_flight_at_saturation'] / 1e6:.2f} MB")
    return lines


def record(out: pathlib.Path) -> None:
    import subprocess
    import tarfile

    for i in range(len(RECORD)):
        subprocess.run([sys.executable, __file__, str(out), "--record-one", str(i)])
        with tarfile.open(out / "record.tgz", "w:gz") as tar:
            for d in sorted(out.iterdir()):
                if d.is_dir():
                    tar.add(d, arcname=d.name)
    table = bars(out)
    print("\n== bars ==")
    print("\n".join(table))
    (out / "bars.txt").write_text("\n".join(table) + "\n")


def main() -> int:
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    if sys.argv[2:3] == ["--record-one"]:
        record_one(out, int(sys.argv[3]))
        return 0
    if sys.argv[2:3] == ["record"]:
        record(out)
        return 0
    parts = sys.argv[2:] or ["knob", "little"]
    table = []
    if "little" in parts:
        table += little_part(out)
    if "knob" in parts:
        table += knob_part(out)
    print("\n== summary ==")
    print("\n".join(table))
    (out / "summary.txt").write_text("\n".join(table) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
