"""perfmodel.softmax's chapter-10 additions: the unguarded merge (the causal-mask NaN),
the on-chip bytes of one block, tiled traffic and the causal skip fraction. Expected
values are worked by hand."""
import math

import numpy as np
import pytest
from pytest import approx

from perfmodel import softmax

EMPTY = softmax.State(-math.inf, 0.0, 0.0)


def test_unguarded_merge_of_two_empty_states_is_nan_and_the_guarded_one_is_not():
    m, alpha, beta = softmax.unguarded_factors(EMPTY, EMPTY)
    assert m == -math.inf and math.isnan(alpha) and math.isnan(beta)
    bad = softmax.unguarded_merge(EMPTY, EMPTY)
    assert math.isnan(bad.l) and math.isnan(bad.u)
    good = softmax.merge(EMPTY, EMPTY)
    assert good.l == 0 and good.u == 0
    # The NaN survives every later merge: the whole row is lost.
    later = softmax.unguarded_merge(bad, softmax.state([0.0], [1.0]))
    assert math.isnan(later.l)


def test_unguarded_merge_agrees_when_a_state_is_non_empty():
    # The source notes' example: (0, ln 2) then (ln 3), values (1, 4) then (2) -> 2.5.
    a = softmax.state([0.0, math.log(2)], [1.0, 4.0])
    b = softmax.state([math.log(3)], [2.0])
    assert softmax.unguarded_factors(a, b) == approx((math.log(3), 2 / 3, 1.0))
    st = softmax.unguarded_merge(a, b)
    assert (st.l, st.u) == approx((2.0, 5.0))
    assert softmax.unguarded_merge(EMPTY, b).u == approx(2.0)


def test_tile_bytes_by_hand():
    # Q 128x64 + K, V 64x64 in FP16; S 128x64, O 128x64, m and l 2x128 in FP32.
    expected = (128 * 64 + 2 * 64 * 64) * 2 + (128 * 64 + 128 * 64 + 2 * 128) * 4
    assert softmax.tile_bytes(128, 64, 64) == expected == 99328


def test_flash_tiled_traffic_and_intensity():
    # One block covering the sequence: K and V read once, 4 S d elements -> S / s.
    assert softmax.flash_tiled_bytes(1024, 64, 1024) == 4 * 1024 * 64 * 2
    assert softmax.flash_tiled_intensity(1024, 64, 1024) == approx(1024 / 2)
    # Many blocks: the intensity tends to 2 block_q / s.
    assert softmax.flash_tiled_intensity(16384, 64, 128) == approx(16384 / 129)
    assert softmax.flash_tiled_intensity(2 ** 22, 64, 128) == approx(128, rel=1e-3)
    assert softmax.flash_tiled_bytes(100, 8, 32, heads=3) == 3 * (2 * 100 * 8 + 4 * 2 * 100 * 8) * 2


def test_causal_skipped_fraction():
    assert softmax.causal_skipped_fraction(4096, 128) == approx(496 / 1024)
    assert softmax.causal_skipped_fraction(128, 128) == 0
    assert softmax.causal_skipped_fraction(10 ** 6, 1) == approx(0.5, rel=1e-5)


@pytest.mark.parametrize("call, name", [
    (lambda: softmax.tile_bytes(0, 64, 64), "block_q"),
    (lambda: softmax.tile_bytes(64, 64, 64, dtype_bytes=0), "dtype_bytes"),
    (lambda: softmax.flash_tiled_bytes(1024, 64, -1), "block_q"),
    (lambda: softmax.flash_tiled_intensity(0, 64, 128), "seq"),
    (lambda: softmax.causal_skipped_fraction(4096, 0), "block"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_existing_behaviour_unchanged():
    assert softmax.online([0.0, math.log(2), math.log(3)], [1.0, 4.0, 2.0], 2) == approx(2.5)
    assert np.isfinite(softmax.online([-math.inf, 0.0], [1.0, 2.0], 1))
