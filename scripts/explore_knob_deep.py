"""Scratch: knob variants for the compute side of the sweep (k >= 128), on the H200.

    python3 scripts/explore_knob_deep.py OUTDIR

Variants (each a full sweep k = 1 .. 2048 on 1 GiB, ratio to max(2kN/P, 8N/B) with P, B
measured in this process):
- fresh1: make_knob(1), one thread per 16 bytes (the streaming side);
- persist2[_tT]: make_knob(2), one wave, T threads a block;
- deep2: three register sets, loads two turns ahead, loop unrolled by two so the two
  load sites can sit on different scoreboards;
- sync2: make_knob(2)'s turn with a block barrier after the store (block-uniform loop).
SASS of persist2 and deep2 is written to OUTDIR (when nvdisasm is there).
"""
from __future__ import annotations

import json
import pathlib
import sys
import traceback

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from labs import ceilings, kernels as K  # noqa: E402
from labs.intensity import K_FULL, model_seconds  # noqa: E402

cuda = None  # numba.cuda, bound by the makers (the simulator swaps this global)


def deep2():
    global cuda
    K._bind()
    cuda = K.cuda
    f1 = K._fixed(1)
    _, fma8 = K._fma_chains()
    load4, store4 = K._vec4_sim() if K.simulated() else K._vec4_gpu()

    @cuda.jit(fastmath=True)
    def knob(x, k):
        nvec = x.size // K.VEC
        stride = cuda.gridsize(1)
        turn = 2 * stride
        i = cuda.grid(1)
        if k < 1:
            return
        z = np.float32(0.0)
        a0, a1, a2, a3, a4, a5, a6, a7 = z, z, z, z, z, z, z, z
        b0, b1, b2, b3, b4, b5, b6, b7 = z, z, z, z, z, z, z, z
        c0, c1, c2, c3, c4, c5, c6, c7 = z, z, z, z, z, z, z, z
        if i < nvec:
            a0, a1, a2, a3 = load4(x, i)
            if i + stride < nvec:
                a4, a5, a6, a7 = load4(x, i + stride)
            (a0, a1, a2, a3, a4, a5, a6, a7) = (
                f1(a0), f1(a1), f1(a2), f1(a3), f1(a4), f1(a5), f1(a6), f1(a7))
        j = i + turn
        if j < nvec:
            b0, b1, b2, b3 = load4(x, j)
        if j + stride < nvec:
            b4, b5, b6, b7 = load4(x, j + stride)
        while i < nvec:
            j = i + 2 * turn
            if j < nvec:
                c0, c1, c2, c3 = load4(x, j)
            if j + stride < nvec:
                c4, c5, c6, c7 = load4(x, j + stride)
            a0, a1, a2, a3, a4, a5, a6, a7 = fma8(a0, a1, a2, a3, a4, a5, a6, a7, k - 1)
            store4(x, i, a0, a1, a2, a3)
            if i + stride < nvec:
                store4(x, i + stride, a4, a5, a6, a7)
            a0, a1, a2, a3, a4, a5, a6, a7 = b0, b1, b2, b3, b4, b5, b6, b7
            (a0, a1, a2, a3, a4, a5, a6, a7) = (
                f1(a0), f1(a1), f1(a2), f1(a3), f1(a4), f1(a5), f1(a6), f1(a7))
            i += turn
            if i >= nvec:
                break
            j = i + 2 * turn
            if j < nvec:
                b0, b1, b2, b3 = load4(x, j)
            if j + stride < nvec:
                b4, b5, b6, b7 = load4(x, j + stride)
            a0, a1, a2, a3, a4, a5, a6, a7 = fma8(a0, a1, a2, a3, a4, a5, a6, a7, k - 1)
            store4(x, i, a0, a1, a2, a3)
            if i + stride < nvec:
                store4(x, i + stride, a4, a5, a6, a7)
            a0, a1, a2, a3, a4, a5, a6, a7 = c0, c1, c2, c3, c4, c5, c6, c7
            (a0, a1, a2, a3, a4, a5, a6, a7) = (
                f1(a0), f1(a1), f1(a2), f1(a3), f1(a4), f1(a5), f1(a6), f1(a7))
            i += turn

    return knob


def sync2():
    global cuda
    K._bind()
    cuda = K.cuda
    f1 = K._fixed(1)
    _, fma8 = K._fma_chains()
    load4, store4 = K._vec4_sim() if K.simulated() else K._vec4_gpu()

    @cuda.jit(fastmath=True)
    def knob(x, k):
        nvec = x.size // K.VEC
        stride = cuda.gridsize(1)
        turn = 2 * stride
        i = cuda.grid(1)
        base = i - cuda.threadIdx.x  # block-uniform: the loop's trip count is the block's
        if k < 1:
            return
        z = np.float32(0.0)
        v0, v1, v2, v3, v4, v5, v6, v7 = z, z, z, z, z, z, z, z
        w0, w1, w2, w3, w4, w5, w6, w7 = z, z, z, z, z, z, z, z
        if i < nvec:
            v0, v1, v2, v3 = load4(x, i)
        if i + stride < nvec:
            v4, v5, v6, v7 = load4(x, i + stride)
        (v0, v1, v2, v3, v4, v5, v6, v7) = (
            f1(v0), f1(v1), f1(v2), f1(v3), f1(v4), f1(v5), f1(v6), f1(v7))
        while base < nvec:
            j = i + turn
            if j < nvec:
                w0, w1, w2, w3 = load4(x, j)
            if j + stride < nvec:
                w4, w5, w6, w7 = load4(x, j + stride)
            v0, v1, v2, v3, v4, v5, v6, v7 = fma8(v0, v1, v2, v3, v4, v5, v6, v7, k - 1)
            if i < nvec:
                store4(x, i, v0, v1, v2, v3)
            if i + stride < nvec:
                store4(x, i + stride, v4, v5, v6, v7)
            cuda.syncthreads()
            v0, v1, v2, v3, v4, v5, v6, v7 = w0, w1, w2, w3, w4, w5, w6, w7
            (v0, v1, v2, v3, v4, v5, v6, v7) = (
                f1(v0), f1(v1), f1(v2), f1(v3), f1(v4), f1(v5), f1(v6), f1(v7))
            i = j
            base += turn

    return knob


def check_sim() -> None:
    """Correctness under NUMBA_ENABLE_CUDASIM=1 (tiny sizes)."""
    rng = np.random.default_rng(0)
    cuda = K.kernels().cuda
    for make in (deep2, sync2):
        knob = make()
        for kk in (0, 1, 9, 40):
            for nv, blocks, threads in ((301, 1, 64), (200, 2, 32), (3, 1, 32), (517, 1, 64)):
                x = rng.random(4 * nv, dtype=np.float32)
                d = cuda.to_device(x.copy())
                knob[blocks, threads](d, kk)
                np.testing.assert_allclose(d.copy_to_host(), K.fma_reference(x, kk),
                                           rtol=1e-5, atol=1e-6)
        print(make.__name__, "ok")


def sweep(launch, n, P, B, repeats=10):
    from labs.gpu import cuda_time

    rows = []
    for k in K_FULL:
        t = cuda_time(lambda: launch(k), warmup=2, repeats=repeats)
        rows.append({"k": k, "seconds": t, "ratio": t / model_seconds(k, n, P, B)})
    return rows


def main() -> int:
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    import torch

    cuda = K.kernels().cuda
    n = 2 ** 28
    B = ceilings.copy_bandwidth(n)
    P = ceilings.fma_peak(hold_s=2.0)["fma_flops"]
    data = torch.rand(n, device="cuda")
    x = cuda.as_cuda_array(data)
    variants = {}
    g1, g2 = K.make_knob(1), K.make_knob(2)
    g1[1, 256](x, 0)
    g2[1, 256](x, 0)
    variants["fresh1"] = lambda k: g1[n // 4 // 256, 256](x, k)
    for t in (256, 128, 512):
        g2[1, t](x, 0)
        blocks = g2.overloads[next(iter(g2.overloads))].max_cooperative_grid_blocks(t)
        variants[f"persist2_t{t}"] = (lambda b, tt: lambda k: g2[b, tt](x, k))(blocks, t)
    for name, make in (("deep2", deep2), ("sync2", sync2)):
        try:
            kern = make()
            kern[1, 256](x, 0)
            blocks = ceilings.resident_blocks(kern)
            variants[name] = (lambda kk, b: lambda k: kk[b, 256](x, k))(kern, blocks)
            ov = next(iter(kern.overloads.values()))
            print(name, "regs", ov.get_regs_per_thread() if hasattr(ov, "get_regs_per_thread")
                  else "?", "blocks", blocks, flush=True)
            try:
                (out / f"sass_{name}.txt").write_text(kern.inspect_sass())
            except Exception as e:  # no nvdisasm
                print("no sass:", e)
        except Exception:
            traceback.print_exc()
    try:
        (out / "sass_persist2.txt").write_text(g2.inspect_sass())
    except Exception as e:
        print("no sass:", e)
    results = {"copy": B, "fma": P, "ridge": P / B, "variants": {}}
    order = list(variants) + ["persist2_t256", "deep2", "fresh1"]
    for i, name in enumerate(order):
        if name not in variants:
            continue
        rows = sweep(variants[name], n, P, B)
        tag = name if name not in results["variants"] else f"{name}_again"
        results["variants"][tag] = rows
        ratios = " ".join(f"{r['k']}:{r['ratio']:.3f}" for r in rows)
        print(f"{tag:16s} stream/copy {8 * n / rows[0]['seconds'] / B:.3f}  {ratios}", flush=True)
    (out / "deep.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--sim"]:
        check_sim()
        sys.exit(0)
    sys.exit(main())
