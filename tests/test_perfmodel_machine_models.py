"""Warps, sectors, clocks and measured machines, against the notes and hand arithmetic."""
import pytest

from perfmodel import clocks, machines, simt

approx = pytest.approx


def test_coalesced_warp_uses_four_sectors():
    # 002 (CUDA Best Practices): 32 aligned consecutive 4-byte loads -> four 32-byte transactions
    assert simt.sectors(1) == 4
    assert simt.useful_fraction(1) == 1.0


def test_sector_waste_stops_growing_at_stride_8_in_l2_and_16_from_dram():
    # 003: 32-byte sectors in L2 (waste stops at stride 8), 64-byte bursts from DRAM (stride 16)
    l2 = [simt.sectors(s) for s in (1, 2, 4, 8, 16, 32)]
    assert l2 == [4, 8, 16, 32, 32, 32]
    dram = [simt.sectors(s, sector=64) for s in (1, 2, 4, 8, 16, 32)]
    assert dram == [2, 4, 8, 16, 32, 32]
    assert simt.useful_fraction(8) == approx(4 / 32)
    assert simt.useful_fraction(16, sector=64) == approx(4 / 64)


def test_random_gather_touches_a_sector_per_lane():
    assert simt.sectors("random") == 32


def test_divergence_passes():
    # 003's table: split through every warp costs P passes, between warps 1
    assert [simt.divergence_passes(p, "within") for p in (1, 2, 4, 8)] == [1, 2, 4, 8]
    assert [simt.divergence_passes(p, "between") for p in (1, 2, 4, 8)] == [1, 1, 1, 1]
    grid = simt.warp_paths(4, "within", warps=2)
    assert grid.shape == (2, 32) and set(grid[0]) == {0, 1, 2, 3}


def test_one_busy_thread_in_k():
    # 003: one in 32 costs as much as all busy; one in 64 leaves half the warps empty
    assert simt.busy_warp_fraction(32) == 1.0
    assert simt.busy_warp_fraction(64) == 0.5
    assert simt.one_in_k_time(1024, t_all=1.0, t_floor=0.07) == approx(0.07)


def test_clock_model_reproduces_the_t4_points():
    # 003: FMA at 1365 MHz; FP32 matmul at 705 MHz; tensor matmul at 570 MHz under 70 W
    for workload, (_, clock, watts) in clocks.T4_MEASURED.items():
        # at the measured power draw the model returns the measured clock
        assert clocks.t4_workload_clock(workload, power_limit_w=watts) == approx(clock)
        # more power headroom never lowers the clock; the max clock caps it
        assert clocks.t4_workload_clock(workload, 1000.0) == clocks.T4_MAX_CLOCK_HZ
    # 003: 40 x 64 x 2 x 0.705 GHz = 3.61 TFLOP/s
    assert clocks.peak(40, 64, 705e6) == approx(3.61e12, rel=1e-3)


def test_from_results_builds_a_measured_machine():
    intensity = {"lab": "intensity", "context": {"gpu_name": "NVIDIA H200", "sms": 132,
                                                 "date": "2026-11-30T05:00:00+00:00"},
                 "params": {}, "rows": [],
                 "summary": {"fma_flops": 60e12, "copy_bandwidth": 4.2e12}}
    paradox = {"lab": "paradox", "context": {"gpu_name": "NVIDIA H200"}, "params": {}, "rows": [],
               "summary": {"launch_sync_s": 25e-6}}
    m = machines.from_results(intensity, paradox)
    assert m.measured and m.peak_flops("fp32") == 60e12 and m.bandwidth("dram") == 4.2e12
    assert m.ridge("fp32") == approx(60e12 / 4.2e12)
    assert m.launch_overhead.value == 25e-6
    # units it did not measure keep the H200 datasheet figure, with their provenance
    assert m.peak_flops("bf16_tensor") == 989e12
    assert "datasheet" in m.source("bf16_tensor") and "measured" in m.source("fp32")
    with pytest.raises(ValueError, match="intensity"):
        machines.from_results(paradox)
