"""perfmodel.access (alignment, vector loads, shared-memory banks) and the store term of
hierarchy.gather_fraction, against counts worked by hand."""
import pytest
from pytest import approx

from perfmodel import access, hierarchy


@pytest.mark.parametrize("offset, piece, expected", [
    (0, 32, 4),      # 128 aligned bytes: sectors 0..3
    (4, 32, 5),      # bytes 4..131: sectors 0..4
    (28, 32, 5),     # bytes 28..155: sectors 0..4
    (32, 32, 4),     # a whole sector off is aligned again
    (0, 128, 1),     # one cache line
    (4, 128, 2),     # bytes 4..131 straddle lines 0 and 1
    (0, 64, 2),      # two DRAM bursts
    (4, 64, 3),
])
def test_contiguous_pieces(offset, piece, expected):
    assert access.contiguous_pieces(offset, 4, 32, piece) == expected


def test_misaligned_warp_is_80_percent_useful():
    assert access.contiguous_useful_fraction(4) == approx(128 / 160)
    assert access.contiguous_useful_fraction(0) == 1.0


@pytest.mark.parametrize("stride, ways", [
    (0, 1), (1, 1), (3, 1), (33, 1), (2, 2), (34, 2), (4, 4), (8, 8), (16, 16), (32, 32), (64, 32),
])
def test_bank_conflict_ways(stride, ways):
    # lane k reads word k*s, bank (k*s) mod 32: for s > 0, gcd(s, 32) lanes share each bank
    # touched, each with its own word; s = 0 is one word for everyone (broadcast).
    assert access.bank_conflict_ways(stride) == ways


def test_padded_column():
    assert access.padded_column_ways(32) == 32
    assert access.padded_column_ways(33) == 1


def test_vector_load_requests():
    n = 2 ** 20
    assert access.vector_load_requests(n) == n // 32              # one float per lane
    assert access.vector_load_requests(n, vector_bytes=16) == n // 128   # four per lane
    with pytest.raises(ValueError, match="vector_bytes"):
        access.vector_load_requests(n, vector_bytes=32)


def test_gather_with_store():
    # index 4 + value 4 + store 4 useful; index 4 + burst 64 + store 4 moved.
    assert hierarchy.gather_fraction(4, 4, 64, store_bytes=4) == approx(12 / 72)
    assert hierarchy.gather_fraction(4, 4, 64) == approx(8 / 68)


@pytest.mark.parametrize("call", [
    lambda: access.contiguous_pieces(-1),
    lambda: access.contiguous_pieces(0, piece=0),
    lambda: access.bank_conflict_ways(-2),
    lambda: hierarchy.gather_fraction(store_bytes=-1),
])
def test_bad_input(call):
    with pytest.raises(ValueError):
        call()
