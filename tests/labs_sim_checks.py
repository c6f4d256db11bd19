"""Correctness checks of every numba kernel in labs.kernels, run under numba's CUDA simulator.

Run as a script (``NUMBA_ENABLE_CUDASIM=1 python tests/labs_sim_checks.py``): it prints one
JSON object {check name: "ok" or the failure}. tests/test_labs_sim_kernels.py starts it in a
subprocess, so the simulator is enabled before numba.cuda is first imported whatever else
the test session has imported. Sizes are tiny: the simulator runs each thread in Python.
"""
from __future__ import annotations

import json
import os
import sys
import traceback

import numpy as np

CHECKS = {}


def check(fn):
    CHECKS[fn.__name__] = fn
    return fn


def _k():
    from labs.kernels import kernels

    return kernels()


def _knob_check(knob, kks, shapes):
    from labs.kernels import fma_reference

    cuda = _k().cuda
    rng = np.random.default_rng()
    for kk in kks:
        for n, blocks, threads in shapes:
            x = rng.random(n, dtype=np.float32)
            d = cuda.to_device(x.copy())
            knob[blocks, threads](d, kk)
            np.testing.assert_allclose(d.copy_to_host(), fma_reference(x, kk), rtol=1e-5,
                                       atol=1e-6)


@check
def knob():
    """The shipped knob: every float gets exactly k FMAs, whatever the launch."""
    from labs.kernels import BLOCK, VEC, grid

    _knob_check(_k().knob, (0, 1, 3, 33, 64, 70, 130),  # below, at and above the blocks
                ((VEC * 70, grid(70), BLOCK),              # a thread per 16 bytes
                 (VEC * 301, 1, 64), (VEC * 64, 1, 64),    # strides, loads ahead
                 (VEC * 130, 1, 128)))                     # four warps, a block


@check
def knob_variants():
    """make_knob with 1 or 2 groups a turn computes the same thing, whatever the launch
    (groups past the end of the buffer in a turn, a single thread, several blocks)."""
    from labs.kernels import VEC, make_knob

    for groups in (1, 2):
        _knob_check(make_knob(groups), (0, 1, 9, 40, 130),
                    ((VEC * 301, 1, 64), (VEC * 200, 2, 96), (VEC * 3, 1, 64),
                     (VEC * 517, 1, 256), (VEC * 7, 1, 1)))


@check
def fma_peak():
    """The shipped kernel, as its docstring states it: 16 chains starting at
    s + c x 0.05, 64 FMAs each a turn."""
    from labs.kernels import FMA_A, FMA_B

    k = _k()
    threads, turns = 40, 2
    out = k.cuda.to_device(np.full(threads, np.nan, dtype=np.float32))
    k.fma_peak[1, 64](out, turns)  # 64 threads, 40 outputs: the guard must hold
    got = out.copy_to_host()
    for i in range(threads):
        s = np.float32(i % 1024) * np.float32(1e-3)
        total = np.float32(0)
        vals = [s + np.float32(c) * np.float32(0.05) for c in range(16)]
        for v in vals:
            for _ in range(turns * 64):
                v = v * FMA_A + FMA_B
            total += v
        assert abs(got[i] - total) < 1e-4 * abs(total), (i, got[i], total)


@check
def scale_shift_relu():
    from labs.kernels import BLOCK, grid

    k = _k()
    x = np.random.default_rng().standard_normal(300).astype(np.float16)
    y = np.full_like(x, np.nan)
    k.scale_shift_relu[grid(x.size), BLOCK](x, y)
    ref = np.maximum(x.astype(np.float32) * 1.5 + 0.5, 0).astype(np.float16)
    np.testing.assert_allclose(y.astype(np.float32), ref.astype(np.float32), rtol=2e-3, atol=2e-3)


@check
def sin2_cos2():
    from labs.kernels import BLOCK, grid

    k = _k()
    x = (np.random.default_rng().standard_normal(300) * 10).astype(np.float32)
    y = np.full_like(x, np.nan)
    k.sin2_cos2[grid(x.size), BLOCK](x, y)
    np.testing.assert_allclose(y, 1.0, atol=1e-5)


@check
def spin():
    k = _k()
    out = np.zeros((3, 3), dtype=np.uint64)
    k.spin[1, 1](out, 1, np.uint64(20_000))
    assert out[0].sum() == 0 and out[2].sum() == 0, "only row j may be written"
    assert out[1, 1] >= 20_000 and out[1, 2] > 0 and out[1, 0] > 0, out[1]


@check
def fma_peak_variants():
    """Every variant of labs/fma_variants.py: thread i's chains start at s = (i % 1024) / 1000
    plus c x d (d = 0.05 for 16 chains, 0.1 for 8; within float32 rounding), each runs turns
    x its FMAs per chain per turn, and out[i] is their sum; 64 threads on 40 outputs (the
    guard must hold)."""
    from labs import fma_variants
    from labs.kernels import FMA_A, FMA_B

    shape = {"chains8": (8, 0.1, 32), "chains16": (16, 0.05, 32), "unroll64": (8, 0.1, 64),
             "interleaved": (8, 0.1, 32), "wide": (16, 0.05, 64)}
    threads, turns = 40, 2
    for name, (chains, d, per_chain) in shape.items():
        kern = fma_variants.variant(name)
        assert fma_variants.fmas_per_turn(kern) == chains * per_chain, name
        out = _k().cuda.to_device(np.full(threads, np.nan, dtype=np.float32))
        kern[1, 64](out, turns)
        got = out.copy_to_host()
        for i in range(threads):
            s = np.float32(i % 1024) * np.float32(1e-3)
            total = 0.0
            for c in range(chains):
                v = s + np.float32(c) * np.float32(d)
                for _ in range(turns * per_chain):
                    v = v * FMA_A + FMA_B
                total += float(v)
            assert abs(got[i] - total) < 1e-4 * abs(total), (name, i, got[i], total)


@check
def empty():
    _k().empty[1, 32]()


def main() -> int:
    if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        print("set NUMBA_ENABLE_CUDASIM=1", file=sys.stderr)
        return 2
    names = sys.argv[1:] or list(CHECKS)
    res = {}
    for name in names:
        try:
            CHECKS[name]()
            res[name] = "ok"
        except Exception:
            res[name] = traceback.format_exc()
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
