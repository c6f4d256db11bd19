"""perfmodel.softmax's I/O helpers against FlashAttention's Algorithm 1 worked by hand."""
import math

import pytest
from pytest import approx

from perfmodel import softmax


def test_block_sizes_follow_algorithm_1():
    # M = 227 KiB of FP16 = 116,224 elements; d = 64: B_c = ceil(116,224 / 256) = 454,
    # B_r = min(454, 64) = 64.
    assert softmax.fa_block_sizes(227 * 1024, 64) == (64, 454)
    # d = 128: B_c = ceil(116,224 / 512) = 227.
    assert softmax.fa_block_sizes(227 * 1024, 128) == (128, 227)
    # a small SRAM: M = 4,096 elements, d = 64 -> B_c = 16 = B_r.
    assert softmax.fa_block_sizes(8192, 64) == (16, 16)


def test_io_advantage():
    # M / d^2: 116,224 / 4,096 = 28.375 at d = 64.
    assert softmax.io_advantage(227 * 1024, 64) == approx(116224 / 4096)
    assert softmax.io_advantage(227 * 1024, 128) == approx(116224 / 16384)


def test_decode_intensity():
    # one query: 4 S d FLOPs for 2 S d FP16 elements = 4 S d bytes.
    s, d = 4096, 128
    assert softmax.decode_intensity(2) == approx(4 * s * d / (2 * s * d * 2))
    assert softmax.decode_intensity(1) == approx(2.0)


@pytest.mark.parametrize("call", [
    lambda: softmax.fa_block_sizes(100, 64),
    lambda: softmax.fa_block_sizes(0, 64),
    lambda: softmax.io_advantage(1024, 0),
    lambda: softmax.decode_intensity(0),
])
def test_bad_input(call):
    with pytest.raises(ValueError):
        call()
