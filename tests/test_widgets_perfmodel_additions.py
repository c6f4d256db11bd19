"""The perfmodel functions added for the widgets, against the source notes' numbers or an
independent computation."""
from __future__ import annotations

import math

import numpy as np
import pytest

from perfmodel import machines, ops, roofline, simt, triage, waves


def test_unit_dtype_and_unit_for():
    assert roofline.unit_dtype("fp16_tensor") == "fp16"
    assert roofline.unit_dtype("FP4_TENSOR") == "nvfp4"
    assert roofline.unit_for("H100", "fp8") == "fp8_tensor"
    assert roofline.unit_for("T4", "bf16") == "fp32"            # no BF16 tensor cores on a T4
    assert roofline.unit_for("T4", "fp16", tensor=False) == "fp32"
    assert roofline.unit_for("B200", "nvfp4") == "fp4_tensor"
    assert roofline.unit_for("CPU", "fp64") == "fp32"
    with pytest.raises(ValueError, match="unit"):
        roofline.unit_dtype("int8")
    with pytest.raises(ValueError, match="dtype"):
        roofline.unit_for("T4", "int4")


def test_achieved_and_pcie_time():
    t4 = machines.get("T4")
    add = ops.vector_add(2 ** 28)
    # The source notes: 3.2 GB over 12.3 GB/s pinned PCIe is 0.26 s.
    assert roofline.pcie_time(t4, 12 * 2 ** 28) == pytest.approx(3.22e9 / 12.3e9, rel=1e-2)
    # With no toll the achieved rate is the attainable one: I x B for a memory-bound add.
    assert roofline.achieved(t4, add) == pytest.approx(320e9 / 12)
    # A 1,024-element add is all toll: 1,024 FLOP in about 20 us.
    small = ops.vector_add(1024)
    assert roofline.achieved(t4, small, overhead=20e-6) == pytest.approx(1024 / (20e-6 + 12288 / 320e9))
    with pytest.raises(ValueError, match="nbytes"):
        roofline.pcie_time(t4, -1)


def test_wave_assignment_1792_vs_1793():
    assert waves.tile_edges(1793, 256) == [0, 256, 512, 768, 1024, 1280, 1536, 1792, 1793]
    grid = waves.assignment(1793, 1793, 256, 128, 108)
    assert len(grid) == 8 and len(grid[0]) == 15                   # 8 x 15 = 120 tiles
    assert sum(v == 2 for row in grid for v in row) == 12          # 12 tiles in wave 2
    assert waves.busy_per_wave(120, 108) == [108, 12]
    assert waves.busy_per_wave(98, 108) == [98]
    with pytest.raises(ValueError, match="sms"):
        waves.assignment(10, 10, 2, 2, 0)


def test_busy_lanes_and_touched_sectors():
    busy = simt.busy_lanes(64, 4)
    assert busy.shape == (4, 32) and busy.sum() == 2               # threads 0 and 64
    assert busy.any(axis=1).tolist() == [True, False, True, False]  # half the warps run
    assert simt.touched_sectors(1).tolist() == [0, 1, 2, 3]         # 128 B in four 32 B sectors
    assert len(simt.touched_sectors(8)) == 32
    assert len(simt.touched_sectors(2, sector=64)) == 4
    with pytest.raises(ValueError, match="k"):
        simt.busy_lanes(0, 4)


def test_triage_of_the_gelu_example():
    # The source notes' worked example: GELU on 100M FP32 on a T4.
    t = triage.triage("T4", ops.gelu(100_000_000))
    assert t.parallelism == "plenty"
    assert t.intensity == pytest.approx(15 / 8)
    assert t.bound == "memory" and t.factor == pytest.approx((8.1e12 / 320e9) / (15 / 8))
    assert t.min_bytes == 800e6 and t.speed_of_light == pytest.approx(2.5e-3)
    assert triage.parallelism(9_999) == "too few"
    assert triage.parallelism(50_000) == "not enough to saturate"
    assert not triage.triage("T4", ops.vector_add(10), regular=False).regular
    assert math.isclose(triage.triage("H100", ops.matmul(4096, dtype="fp16"), "fp16_tensor").factor,
                        (4096 / 3) / (989e12 / 3.35e12))
    assert np.isfinite(t.factor)
