"""The functions chapter 6 added to perfmodel.simt: worked numbers by hand, properties and
bad input."""
import pytest
from hypothesis import given, strategies as st
from pytest import approx

from perfmodel import simt


def test_blocks_and_warps():
    assert simt.warps_per_block(256) == 8
    assert simt.warps_per_block(48) == 2
    assert simt.launch_warps(1_000_000, 256) == 3907 * 8
    assert simt.block_lane_use(48) == approx(0.75)
    assert simt.block_lane_use(256) == 1.0


def test_branch_costs():
    assert simt.warp_issue([100, 40], [0, 1, 1]) == 140
    assert simt.warp_issue([100, 40], [1]) == 40
    assert simt.sorted_issue([0.25, 0.75], [100, 40]) == approx(55)
    assert simt.mixed_over_sorted([0.25, 0.75], [100, 40]) == approx(140 / 55)
    assert simt.lane_efficiency([0.5, 0.5], [10, 10]) == approx(0.5)


def test_random_branch():
    assert simt.rare_path_warps(0.01) == approx(1 - 0.99 ** 32)
    assert simt.rare_path_warps(0.0) == 0.0
    assert simt.random_branch_issue(0.01, 200, 20) == approx(
        200 * (1 - 0.99 ** 32) + 20 * (1 - 0.01 ** 32))
    assert simt.random_branch_slowdown(0.0, 200, 20) == approx(1.0)


@given(st.floats(0, 1), st.floats(0.1, 1e3), st.floats(0.1, 1e3))
def test_random_branch_between_sorted_and_both(p, a, b):
    cost = simt.random_branch_issue(p, a, b)
    assert simt.sorted_issue([p, 1 - p], [a, b]) - 1e-9 <= cost <= a + b + 1e-9


def test_loops_chains_and_occupancy():
    assert simt.loop_efficiency([100] * 31 + [1000]) == approx(4100 / 32000)
    assert simt.loop_efficiency([7] * 32) == 1.0
    assert simt.dependent_chain_time(20_000, 3.5e-9) == approx(70e-6)
    assert simt.resident_threads("T4", 64) == 1024
    assert simt.resident_threads("T4", 96) == 512
    assert simt.occupancy("T4", 96) == approx(0.5)
    assert simt.occupancy("H200", 32) == 1.0
    assert simt.occupancy("H200", 64) == approx(0.5)
    assert simt.registers_for_full_occupancy("T4") == 64
    assert simt.registers_for_full_occupancy("H200") == 32


@pytest.mark.parametrize("call, name", [
    (lambda: simt.warps_per_block(0), "threads"),
    (lambda: simt.warp_issue([1, 2], [2]), "present"),
    (lambda: simt.sorted_issue([0.5, 0.6], [1, 2]), "fractions"),
    (lambda: simt.rare_path_warps(1.5), "p"),
    (lambda: simt.loop_efficiency([]), "trips"),
    (lambda: simt.dependent_chain_time(10, 0), "latency"),
    (lambda: simt.resident_threads("T4", 0), "registers_per_thread"),
    (lambda: simt.resident_threads("T4", 32, block=2048), "block"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
