"""Simulator checks of the memory kernels (labs.memkernels) and the coalescing walk, run by
test_labs2_sim_memory.py: where chases end, what streaming reads and gathers sum."""
from __future__ import annotations

import os

import numpy as np
import pytest

from labs import coalescing
from labs import memkernels as mk

pytestmark = pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") != "1",
                                reason="needs NUMBA_ENABLE_CUDASIM=1 (see tests/labs2_sim.py)")
RNG = np.random.default_rng()


@pytest.mark.parametrize("lines", (2, 17, 64))
def test_chain_is_one_cycle_through_every_line(lines):
    chain = mk.cyclic_chain(lines, 128, seed=int(RNG.integers(1 << 30)))
    stride = 128 // mk.CHAIN_ITEM_BYTES
    seen, j = set(), 0
    for _ in range(lines):
        seen.add(j)
        j = int(chain[j])
    assert j == 0 and seen == set(range(0, lines * stride, stride))


@pytest.mark.parametrize("warm, steps", ((0, 1), (5, 20), (40, 3)))
def test_chase_kernel_ends_where_the_chain_says(warm, steps):
    chain = mk.cyclic_chain(16, 128, seed=int(RNG.integers(1 << 30)))
    start = 8 * 32
    out = np.full(4, -1, dtype=np.int64)
    mk.chase_kernel()[1, 4](chain, start, warm, steps, out)
    assert out[0] == mk.follow(chain, start, warm + steps)
    assert out[1] >= 0 and out[2] >= 0 and out[3] == -1


def _launch(kern, x, idx, base, iters, stride, blocks=2, tpb=16):
    out = np.full(blocks * tpb, np.nan)
    kern[blocks, tpb](x, idx, base, iters, stride, out)
    return out


@pytest.mark.parametrize("ilp", (1, 2, 8))
def test_wide_read_sums_every_position_once(ilp):
    threads, iters, base = 32, 3, 16
    x = RNG.random(4 * (base + threads * ilp * iters + 8), dtype=np.float32)
    out = _launch(mk.read_kernel(ilp, mk.wide_load()), x, x, base, iters, 1)
    want = x[4 * base:4 * (base + threads * ilp * iters)].astype(np.float64).sum()
    assert out.sum() == pytest.approx(want, rel=1e-5)


@pytest.mark.parametrize("ilp", (1, 2, 8))
@pytest.mark.parametrize("iters", (1, 3))
@pytest.mark.parametrize("chained", (False, True))
def test_pipelined_read_sums_every_position_once(ilp, iters, chained):
    """The cp.async pipeline reads read_kernel's positions: each once, per thread the same."""
    blocks, tpb, base = 2, 16, 16
    threads = blocks * tpb
    x = RNG.random(4 * (base + threads * ilp * iters + 8), dtype=np.float32)
    out = np.full(threads, np.nan)
    mk.pipeline_read_kernel(ilp, chained)[blocks, tpb, 0, mk.pipeline_shared_bytes(ilp, tpb)](
        x, x, base, iters, 1, out)
    ref = _launch(mk.read_kernel(ilp, mk.wide_load()), x, x, base, iters, 1, blocks, tpb)
    np.testing.assert_allclose(out, ref, rtol=1e-5)
    want = x[4 * base:4 * (base + threads * ilp * iters)].astype(np.float64).sum()
    assert out.sum() == pytest.approx(want, rel=1e-5)


@pytest.mark.parametrize("stride", (1, 2, 8, 32))
def test_strided_read_wraps_round_a_power_of_two_buffer(stride):
    threads, ilp, iters = 32, 2, 5
    x = RNG.random(64, dtype=np.float32)
    positions = threads * ilp * iters             # 320: passes over the 64-float buffer
    out = _launch(mk.read_kernel(ilp, mk.strided_load()), x, x, 0, iters, stride)
    want = sum(float(x[(p * stride) % x.size]) for p in range(positions))
    assert out.sum() == pytest.approx(want, rel=1e-5)


def test_strided_read_lanes_are_stride_apart():
    """Thread t's first load is element t x stride: consecutive lanes, stride apart."""
    x = np.zeros(1024, dtype=np.float32)
    x[::8] = 1.0
    out = _launch(mk.read_kernel(1, mk.strided_load()), x, x, 0, 1, 8, blocks=1, tpb=32)
    assert (out == 1.0).all()


def test_gather_reads_the_indexed_values():
    threads, ilp, iters = 32, 4, 3
    x = RNG.random(1000, dtype=np.float32)
    idx = RNG.integers(0, x.size, threads * ilp * iters).astype(np.int32)
    out = _launch(mk.read_kernel(ilp, mk.gather_load()), x, idx, 0, iters, 1)
    assert out.sum() == pytest.approx(x[idx].astype(np.float64).sum(), rel=1e-5)


def test_loaded_chase_chases_and_streams():
    chain = mk.cyclic_chain(32, 128, seed=3)
    x = RNG.random(4 * 256, dtype=np.float32)
    blocks, tpb, max_passes, iters = 2, 8, 2, 4      # a pass: 2 x 8 x 4 x 4 = 256 positions
    flag = np.zeros(1, dtype=np.int32)
    out = np.zeros(4, dtype=np.int64)
    sums = np.full(blocks * tpb, np.nan)
    mk.loaded_chase_kernel(4)[blocks + 1, tpb](chain, 0, 25, x, iters, max_passes, flag, out,
                                               sums)
    assert out[0] == mk.follow(chain, 0, 25) and flag[0] == 1
    assert 0 <= out[3] <= blocks * max_passes
    per_pass = x.astype(np.float64).sum()
    passes = np.round(sums.sum() / per_pass) if out[3] else 0
    assert sums.sum() == pytest.approx(passes * per_pass, rel=1e-5)


@pytest.mark.parametrize("order", ("C", "F"))
def test_walk_rows_sums_every_element(order):
    a = RNG.random((40, 72), dtype=np.float32)
    a = np.asfortranarray(a) if order == "F" else a
    out = np.zeros(2 * 2 * 32 * 4)
    coalescing.walk_kernel()[(2, 2), (32, 4)](a, out)
    assert out.sum() == pytest.approx(a.astype(np.float64).sum(), rel=1e-6)
