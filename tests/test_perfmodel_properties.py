"""Properties of the model that hold for any input (hypothesis)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfmodel import machines, ops, roofline, softmax

GPUS = [m.name for m in machines.all_machines()]
pos = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False)
big = st.floats(min_value=1.0, max_value=1e18, allow_nan=False)


def _unit_of(machine, data):
    return data.draw(st.sampled_from(machines.get(machine).units()))


@given(st.sampled_from(GPUS), pos, st.data())
def test_attainable_never_exceeds_either_roof(name, intensity, data):
    m = machines.get(name)
    unit = _unit_of(name, data)
    a = roofline.attainable(m, intensity, unit)
    assert a <= m.peak_flops(unit) * (1 + 1e-12)
    assert a <= intensity * m.bandwidth("dram") * (1 + 1e-12)
    assert math.isclose(a, min(m.peak_flops(unit), intensity * m.bandwidth("dram")))


@given(st.sampled_from(GPUS), st.floats(min_value=0.01, max_value=0.99), st.data())
def test_bound_flips_at_the_ridge(name, frac, data):
    m = machines.get(name)
    unit = _unit_of(name, data)
    r = m.ridge(unit)
    below = ops.Op("below", flops=r * frac * 1e6, bytes=1e6)
    above = ops.Op("above", flops=r / frac * 1e6, bytes=1e6)
    assert roofline.bound(m, below, unit) == "memory"
    assert roofline.bound(m, above, unit) == "compute"


@given(st.sampled_from(GPUS), big, big, st.floats(min_value=1.0, max_value=10.0))
def test_time_is_monotone_in_flops_and_bytes(name, f, d, k):
    m = machines.get(name)
    t = roofline.time(m, ops.Op("x", f, d))
    assert roofline.time(m, ops.Op("x", f * k, d)) >= t
    assert roofline.time(m, ops.Op("x", f, d * k)) >= t
    assert t == max(f / m.peak_flops("fp32"), d / m.bandwidth("dram"))


@settings(max_examples=200)
@given(st.lists(st.floats(min_value=-30, max_value=30), min_size=1, max_size=40),
       st.integers(min_value=1, max_value=8), st.integers(min_value=0, max_value=2**31 - 1),
       st.integers(min_value=1, max_value=3))
def test_online_softmax_in_any_split_equals_direct(scores, tile, seed, dim):
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(len(scores), dim))
    s = np.array(scores)
    w = np.exp(s - s.max())
    direct = (w[:, None] * values).sum(0) / w.sum()
    assert np.allclose(softmax.online(scores, values, tile), direct, rtol=1e-9, atol=1e-12)
    # and any binary split merged in either order
    cut = seed % len(scores)
    a, b = softmax.state(s[:cut], values[:cut]), softmax.state(s[cut:], values[cut:])
    assert np.allclose(softmax.output(softmax.merge(a, b)), direct)
    assert np.allclose(softmax.output(softmax.merge(b, a)), direct)


def test_masked_tiles_do_not_make_nan():
    # 002's causal pitfall: a tile with every score masked must not produce NaN
    s = [-math.inf, -math.inf, 1.0, 2.0]
    v = [5.0, 7.0, 1.0, 3.0]
    w = np.exp(np.array([1.0, 2.0]) - 2.0)
    expected = (w * np.array([1.0, 3.0])).sum() / w.sum()
    assert softmax.online(s, v, tile=2) == pytest.approx(expected)
    assert not math.isnan(softmax.online(s, v, tile=1))
