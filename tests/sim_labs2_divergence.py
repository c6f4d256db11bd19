"""Simulator checks of the divergence lab's kernels (run by test_labs2_sim_divergence.py):
what each thread computes, since the simulator cannot time divergence."""
from __future__ import annotations

import os

import numpy as np
import pytest

from labs import divergence as d
from perfmodel import simt

pytestmark = pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") != "1",
                                reason="needs NUMBA_ENABLE_CUDASIM=1 (see tests/labs2_sim.py)")
WARPS = 4
N = WARPS * simt.WARP


@pytest.mark.parametrize("paths", d.PATHS)
@pytest.mark.parametrize("split", d.SPLITS)
def test_path_assignment_is_the_models(paths, split):
    got = np.array([d.path_of(t, paths, split == "between") for t in range(N)]).reshape(WARPS, -1)
    assert (got == simt.warp_paths(paths, split, WARPS)).all()


@pytest.mark.parametrize("paths", d.PATHS)
@pytest.mark.parametrize("between", (True, False))
def test_every_thread_runs_its_paths_loop(paths, between):
    iters = 2 * d.UNROLL
    out = np.full(N, np.nan, dtype=np.float32)
    d.kernels().diverge[2, N // 2](out, paths, between, iters)
    want = [d.loop_reference(d.start_value(t), d.path_of(t, paths, between), iters) for t in range(N)]
    np.testing.assert_array_equal(out, np.array(want, dtype=np.float32))


def test_paths_are_different_loops():
    iters = 2 * d.UNROLL
    ends = {float(d.loop_reference(1.0, p, iters)) for p in range(len(d.PATH_CONSTANTS))}
    assert len(ends) == len(d.PATH_CONSTANTS)


@pytest.mark.parametrize("k", (1, 3, 32, 64, 1024))
def test_one_in_k_busy_threads(k):
    iters = d.UNROLL
    out = np.full(N, np.nan, dtype=np.float32)
    d.kernels().one_in_k[2, N // 2](out, k, iters)
    for t in range(N):
        start = d.start_value(t)
        want = d.loop_reference(start, 0, iters) if t % k == 0 else start
        assert out[t] == want, (k, t)
    busy_warps = {t // simt.WARP for t in range(0, N, k)}
    assert len(busy_warps) / WARPS == pytest.approx(max(simt.busy_warp_fraction(k), 1 / WARPS))


def test_out_of_range_threads_write_nothing():
    out = np.full(40, np.nan, dtype=np.float32)
    d.kernels().diverge[1, 64](out, 2, False, d.UNROLL)
    assert np.isfinite(out).all()
