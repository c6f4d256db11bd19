"""perfmodel.hierarchy's chapter-8 additions: level sizes, tiles that fit, access costs.
Expected values are the source notes' figures worked by hand."""
import math

import pytest
from hypothesis import given, strategies as st
from pytest import approx

from perfmodel import hierarchy


def test_t4_staircase_sizes_are_the_notes_table():
    rows = {r["level"]: r for r in hierarchy.staircase("T4")}
    assert [r["level"] for r in hierarchy.staircase("T4")] == ["registers", "l1", "l2", "dram"]
    assert rows["registers"]["capacity"] == 40 * 256 * 1024       # 10 MB on the chip
    assert rows["registers"]["per_sm"] == 256 * 1024
    assert rows["l1"]["per_sm"] == 96 * 1024
    assert rows["l2"]["capacity"] == 4 * 1024 ** 2
    assert rows["l1"]["bandwidth"] == approx(3.9e12)
    assert rows["l2"]["bandwidth"] == approx(1.1e12)
    assert rows["registers"]["bandwidth"] is None


def test_h200_levels_and_missing_figures():
    assert hierarchy.level_capacity("H200", "l2") == 60 * 1024 ** 2
    assert hierarchy.level_capacity("H200", "registers") == 132 * 256 * 1024
    rows = {r["level"]: r for r in hierarchy.staircase("H200")}
    assert rows["l2"]["bandwidth"] is None and rows["dram"]["bandwidth"] == approx(4.8e12)
    # B200: its register file is on record (CUDA guide, cc 10.0: 65,536 registers an SM, and
    # the model's 148 SMs); its L1 and L2 sizes are not: capacity None, no exception.
    b200 = {r["level"]: r for r in hierarchy.staircase("B200")}
    assert b200["registers"]["capacity"] == 148 * 65536 * 4
    assert b200["l1"]["capacity"] is None and b200["l2"]["capacity"] is None
    with pytest.raises(ValueError, match="level"):
        hierarchy.level_capacity("T4", "l3")


def test_tiles():
    assert hierarchy.tile_bytes(32, 4) == 8 * 1024             # 2 x 32^2 x 4
    assert hierarchy.largest_tile(48 * 1024, 4) == 78
    assert hierarchy.largest_tile(8 * 1024, 4) == 32
    assert hierarchy.tile_for_intensity(25, 4) == 100           # T/4 = 25
    assert hierarchy.tile_for_intensity(8, 4) == 32
    with pytest.raises(ValueError, match="capacity_bytes"):
        hierarchy.largest_tile(4, 4)
    with pytest.raises(ValueError, match="tile"):
        hierarchy.tile_bytes(0)


def test_access_costs():
    assert hierarchy.strided_bandwidth(1e12, 1) == approx(1e12)
    assert hierarchy.strided_bandwidth(1e12, 8, piece=32) == approx(1e12 / 8)
    assert hierarchy.strided_bandwidth(1e12, 32, piece=32) == approx(1e12 / 8)
    assert hierarchy.strided_bandwidth(1e12, 16, piece=64) == approx(1e12 / 16)
    assert hierarchy.gather_fraction() == approx(8 / 68)
    assert hierarchy.gather_fraction(4, 0, 32) == approx(1 / 8)
    assert hierarchy.transpose_bytes(10, tiled=True) == 800
    assert hierarchy.transpose_bytes(10) == 100 * 36
    with pytest.raises(ValueError, match="value_bytes"):
        hierarchy.gather_fraction(128, 4, 64)


def test_structures():
    n = 1024
    # one FP32 field of a 32-byte record: a sector each in AoS, 4 bytes in SoA
    assert hierarchy.struct_bytes_moved(n, 32, [0]) == 32 * n
    assert hierarchy.struct_bytes_moved(n, 32, [0], layout="soa") == 4 * n
    # 12-byte xyz records, x only: the warp's 384 bytes are all touched
    assert hierarchy.struct_bytes_moved(n, 12, [0]) == 12 * n
    # every field of a record: no waste either way
    assert hierarchy.struct_bytes_moved(n, 16, [0, 4, 8, 12]) == 16 * n
    assert hierarchy.struct_bytes_moved(n, 16, [0, 4, 8, 12], layout="soa") == 16 * n
    with pytest.raises(ValueError, match="offsets"):
        hierarchy.struct_bytes_moved(n, 8, [8])
    with pytest.raises(ValueError, match="layout"):
        hierarchy.struct_bytes_moved(n, 8, [0], layout="columns")


@given(st.integers(1, 64), st.sampled_from([1, 2, 4, 8]), st.sampled_from([32, 64]))
def test_strided_never_exceeds_the_stream(stride, elem, piece):
    bw = hierarchy.strided_bandwidth(1.0, stride, elem, piece)
    assert 0 < bw <= 1.0 + 1e-12
    assert bw >= elem / piece - 1e-12


@given(st.integers(1, 1 << 20), st.sampled_from([1, 2, 4, 8]))
def test_largest_tile_is_largest(cap, elem):
    if cap < 2 * elem:
        return
    t = hierarchy.largest_tile(cap, elem)
    assert hierarchy.tile_bytes(t, elem) <= cap < hierarchy.tile_bytes(t + 1, elem)
    assert t == math.isqrt(cap // (2 * elem))
