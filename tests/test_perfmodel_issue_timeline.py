"""perfmodel.little.issue_timeline: one scheduler, warps that load, wait and use, worked
by hand for two warps and a two-cycle latency; bad input names the argument."""
import pytest

from perfmodel import little

L, W, U, R = little.ISSUE_LOAD, little.WAITING, little.ISSUE_USE, little.READY


def test_two_warps_two_cycle_latency_by_hand():
    # t0 warp 0 loads (back after t2), t1 warp 1 loads, t2 both wait, t3 warp 0 uses,
    # t4 warp 0 loads again while warp 1, ready, waits its turn, t5 warp 1 uses, ...
    assert little.issue_timeline(2, 2, 8) == [
        [L, W, W, U, L, W, W, U],
        [R, L, W, W, R, U, L, W],
    ]


def test_one_warp_issues_twice_per_latency_plus_two():
    row = little.issue_timeline(1, 8, 40)[0]
    assert row[:11] == [L] + [W] * 8 + [U, L]
    assert row.count(L) + row.count(U) == 2 * 40 // 10


@pytest.mark.parametrize("kw, name", [({"warps": 0}, "warps"), ({"latency_cycles": -1}, "latency_cycles"),
                                      ({"cycles": 1.5}, "cycles")])
def test_bad_input_names_the_argument(kw, name):
    args = {"warps": 2, "latency_cycles": 4, "cycles": 10, **kw}
    with pytest.raises(ValueError, match=name):
        little.issue_timeline(**args)
