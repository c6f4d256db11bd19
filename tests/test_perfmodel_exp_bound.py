"""The exponential bound on attention (FlashAttention-3's argument), by hand.

Shah et al. 2024 put it for the H100 SXM5: 989 TFLOP/s of FP16 matmul against 3.9 TFLOP/s
of special functions, 256 times fewer, so at d = 128 (512 matmul FLOPs per exponential) the
exponentials take half as long as the matmuls. Here: 132 SMs x 16 exponentials a clock (CUDA
guide's throughput table) at the 1.83 GHz the tensor peak is quoted at (H100 whitepaper:
4,096 dense FP16 FLOPs a clock per SM, 132 x 4,096 x 1.83 GHz = 989 TFLOP/s), typed in, not
read from the model. Both units run on the SM's clock, so the ratio is 4,096 / 16 = 256."""
import pytest

from perfmodel import softmax

SFU_BOOST = 132 * 16 * 1.98e9    # H200 (the H100's SM) at its 1.98 GHz boost clock
SFU = 132 * 16 * 1.83e9          # at the clock the tensor peak is quoted at
TC = 989e12                      # FP16 dense tensor peak, datasheet


def test_the_sfu_rate_is_the_papers_order():
    assert softmax.exp_rate("H200") == pytest.approx(SFU_BOOST)
    assert softmax.exp_rate("H200", 1.83e9) == pytest.approx(SFU)
    assert SFU == pytest.approx(3.9e12, rel=0.01)     # the paper's 3.9 TFLOP/s
    assert TC / SFU == pytest.approx(256, rel=0.001)  # the paper's 256x


@pytest.mark.parametrize("d", [64, 128, 256])
def test_without_and_with_overlap(d):
    t_mm, t_exp = 4 * d / TC, 1 / SFU
    assert softmax.exp_bound_fraction("H200", d) == pytest.approx(t_mm / (t_mm + t_exp), rel=1e-3)
    assert softmax.exp_bound_fraction("H200", d, overlap=True) == pytest.approx(
        t_mm / max(t_mm, t_exp), rel=1e-3)


def test_half_at_d64_two_thirds_at_d128():
    # 4d FLOPs a score against 256 a exponential: 256 / (256 + 256), 512 / (512 + 256)
    assert softmax.exp_bound_fraction("H200", 64) == pytest.approx(0.5, rel=1e-3)
    assert softmax.exp_bound_fraction("H200", 128) == pytest.approx(2 / 3, rel=1e-3)


def test_the_t4_ratio_is_its_own_clock():
    # T4: 65 TFLOP/s FP16 tensor at its 1.59 GHz boost over 40 SMs x 16 exponentials a clock
    t_mm, t_exp = 4 * 64 / 65e12, 1 / (40 * 16 * 1.59e9)
    assert softmax.exp_bound_fraction("T4", 64) == pytest.approx(t_mm / (t_mm + t_exp), rel=1e-3)


def test_bad_input():
    with pytest.raises(ValueError, match="overlap"):
        softmax.exp_bound_fraction("H200", 64, overlap="yes")
    with pytest.raises(ValueError, match="SMs"):
        softmax.exp_rate("CPU")
    with pytest.raises(ValueError, match="head_dim"):
        softmax.exp_bound_fraction("H200", 0)
    with pytest.raises(ValueError, match="clock_hz"):
        softmax.exp_rate("H200", 0)


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
