"""The exponential bound on attention (FlashAttention-3's argument), by hand.

Shah et al. 2024 put it for the H100 SXM5: 989 TFLOP/s of FP16 matmul against 3.9 TFLOP/s
of special functions, and at d = 128 512 matmul FLOPs per exponential, so the exponentials
take half as long as the matmuls. Here: 132 SMs x 16 exponentials a clock (CUDA guide's
throughput table) x 1.98 GHz, typed in, not read from the model."""
import pytest

from perfmodel import softmax

SFU = 132 * 16 * 1.98e9          # H200 (the H100's SM), exponentials per second
TC = 989e12                      # FP16 dense tensor peak, datasheet


def test_the_sfu_rate_is_the_papers_order():
    assert softmax.exp_rate("H200") == pytest.approx(SFU)
    assert SFU == pytest.approx(3.9e12, rel=0.1)      # the paper's 3.9 TFLOP/s


@pytest.mark.parametrize("d", [64, 128, 256])
def test_without_and_with_overlap(d):
    t_mm, t_exp = 4 * d / TC, 1 / SFU
    assert softmax.exp_bound_fraction("H200", d) == pytest.approx(t_mm / (t_mm + t_exp))
    assert softmax.exp_bound_fraction("H200", d, overlap=True) == pytest.approx(
        t_mm / max(t_mm, t_exp))


def test_about_half_at_d64():
    f = softmax.exp_bound_fraction("H200", 64)
    assert 0.45 < f < 0.55                       # 256 FLOPs against ~236 per exponential
    assert softmax.exp_bound_fraction("H200", 128) == pytest.approx(512 / (512 + TC / SFU))


def test_bad_input():
    with pytest.raises(ValueError, match="overlap"):
        softmax.exp_bound_fraction("H200", 64, overlap="yes")
    with pytest.raises(ValueError, match="SMs"):
        softmax.exp_rate("CPU")
    with pytest.raises(ValueError, match="head_dim"):
        softmax.exp_bound_fraction("H200", 0)


def test_a_fully_masked_tile_is_nan_on_its_own():
    import math
    ninf = -math.inf
    bare = softmax.unguarded_state([ninf, ninf], [1.0, 2.0])
    assert bare.m == ninf and math.isnan(bare.l) and math.isnan(bare.u)
    # even after a valid running state, the bare merge takes the NaN in
    run = softmax.state([0.0, 1.0], [1.0, 2.0])
    merged = softmax.unguarded_merge(run, bare)
    assert math.isnan(merged.l)
    # a tile with a valid score is the guarded state exactly
    ok = softmax.unguarded_state([0.0, ninf], [1.0, 2.0])
    assert ok == softmax.state([0.0, ninf], [1.0, 2.0])
    # the guarded state of the masked tile is empty and merging it changes nothing
    assert softmax.merge(run, softmax.state([ninf, ninf], [1.0, 2.0])) == run
