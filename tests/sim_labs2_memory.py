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


def _launch(kern, x, idx, limit, base, iters, stride, blocks=2, tpb=16):
    out = np.full(blocks * tpb, np.nan)
    kern[blocks, tpb](x, idx, limit, base, iters, stride, out)
    return out


@pytest.mark.parametrize("ilp", (1, 2, 8))
def test_wide_read_sums_every_position_once(ilp):
    threads, iters = 32, 3
    x = RNG.random(4 * threads * ilp * iters + 64, dtype=np.float32)
    limit = threads * ilp * iters - 5            # a partial last turn: the guard must hold
    base = 16
    out = _launch(mk.read_kernel(ilp, mk.wide_load()), x, x, limit + base, base, iters, 1)
    want = x[4 * base:4 * (base + limit)].astype(np.float64).sum()
    assert out.sum() == pytest.approx(want, rel=1e-6)


@pytest.mark.parametrize("stride", (1, 2, 8, 32))
def test_strided_read_wraps_round_a_power_of_two_buffer(stride):
    threads, ilp = 32, 2
    x = RNG.random(256, dtype=np.float32)
    positions = 3 * x.size // stride + 7        # three passes and a bit
    iters = -(-positions // (threads * ilp))
    out = _launch(mk.read_kernel(ilp, mk.scalar_load()), x, x, positions, 0, iters, stride)
    want = sum(float(x[(p * stride) % x.size]) for p in range(positions))
    assert out.sum() == pytest.approx(want, rel=1e-6)


def test_gather_reads_the_indexed_values():
    threads, ilp = 32, 4
    x = RNG.random(1000, dtype=np.float32)
    idx = RNG.integers(0, x.size, 300).astype(np.int32)
    iters = -(-idx.size // (threads * ilp))
    out = _launch(mk.read_kernel(ilp, mk.gather_load()), x, idx, idx.size, 0, iters, 1)
    assert out.sum() == pytest.approx(x[idx].astype(np.float64).sum(), rel=1e-6)


def test_loaded_chase_chases_and_streams():
    chain = mk.cyclic_chain(32, 128, seed=3)
    x = RNG.random(4 * 256, dtype=np.float32)
    positions, blocks, tpb, max_passes = 256, 3, 8, 2
    iters = -(-positions // (blocks * tpb * 4))
    flag = np.zeros(1, dtype=np.int32)
    out = np.zeros(4, dtype=np.int64)
    sums = np.full(blocks * tpb, np.nan)
    mk.loaded_chase_kernel(4)[blocks + 1, tpb](chain, 0, 25, x, positions, iters, max_passes,
                                               flag, out, sums)
    assert out[0] == mk.follow(chain, 0, 25) and flag[0] == 1
    assert 0 <= out[3] <= blocks * max_passes
    per_pass = x.astype(np.float64).sum()
    passes = np.round(sums.sum() / per_pass) if out[3] else 0
    assert sums.sum() == pytest.approx(passes * per_pass, rel=1e-6)


@pytest.mark.parametrize("order", ("C", "F"))
def test_walk_rows_sums_every_element(order):
    a = RNG.random((40, 72), dtype=np.float32)
    a = np.asfortranarray(a) if order == "F" else a
    out = np.zeros(2 * 2 * 32 * 4)
    coalescing.walk_kernel()[(2, 2), (32, 4)](a, out)
    assert out.sum() == pytest.approx(a.astype(np.float64).sum(), rel=1e-6)
