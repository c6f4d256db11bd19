"""The functions the profile lab added to perfmodel.simt: what a profiler should count
(lanes per instruction, achieved occupancy), by hand and against the lane-by-lane model."""
import numpy as np
import pytest
from pytest import approx

from perfmodel import machines, simt


@pytest.mark.parametrize("paths, split, lanes", [(1, "within", 32), (2, "within", 16),
                                                 (4, "within", 8), (8, "within", 4),
                                                 (64, "within", 1), (8, "between", 32)])
def test_active_lanes_by_hand(paths, split, lanes):
    assert simt.active_lanes(paths, split) == lanes


@pytest.mark.parametrize("paths", [1, 2, 3, 4, 8])
def test_active_lanes_is_the_lanes_of_each_pass(paths):
    # Independent count: deal the paths lane by lane; a warp runs each present path once
    # with that path's lanes on; average lanes per pass.
    lanes = simt.warp_paths(paths, "within", warps=1)[0]
    per_pass = [np.sum(lanes == p) for p in np.unique(lanes)]
    assert simt.active_lanes(paths, "within") == approx(np.mean(per_pass), rel=0.1)
    if 32 % paths == 0:
        assert simt.active_lanes(paths, "within") == np.mean(per_pass)


@pytest.mark.parametrize("k", [1, 2, 4, 8, 16, 32, 64, 256, 1024])
def test_busy_lanes_per_busy_warp_against_the_lane_mask(k):
    mask = simt.busy_lanes(k, warps=64)
    busy = mask.sum(axis=1)
    assert simt.busy_lanes_per_busy_warp(k) == approx(busy[busy > 0].mean())


def test_launch_occupancy_by_hand():
    h200 = machines.get("H200")                      # 132 SMs, 64 warp slots each
    assert simt.launch_occupancy(h200, 1, 1, 21) == approx(1 / 64)     # one lone thread
    assert simt.launch_occupancy(h200, 132, 64, 18) == approx(2 / 64)  # 2 warps an SM
    assert simt.launch_occupancy("H200", 132 * 4, 256, 32) == approx(0.5)
    assert simt.launch_occupancy("H200", 132 * 8, 256, 32) == approx(1.0)
    assert simt.launch_occupancy("H200", 132 * 100, 256, 32) == approx(1.0)   # waves
    # 128 registers a thread: 65,536 / (128 x 256) = 2 blocks of 8 warps an SM
    assert simt.launch_occupancy("H200", 132 * 8, 256, 128) == approx(16 / 64)
    # T4: 40 SMs, 32 warp slots; 40 blocks of 256 threads = 8 warps an SM
    assert simt.launch_occupancy("T4", 40, 256, 32) == approx(8 / 32)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="paths"):
        simt.active_lanes(0, "within")
    with pytest.raises(ValueError, match="split"):
        simt.active_lanes(2, "sideways")
    with pytest.raises(ValueError, match="k"):
        simt.busy_lanes_per_busy_warp(0)
    with pytest.raises(ValueError, match="blocks"):
        simt.launch_occupancy("H200", 0, 256, 32)
    with pytest.raises(ValueError, match="does not fit"):
        simt.launch_occupancy("H200", 1, 1024, 255)
