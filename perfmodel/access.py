"""What one warp's memory request costs, below the level of strides: where a contiguous
request starts (alignment to sectors and cache lines) and how a shared-memory request falls
on the 32 banks.

Global memory is cached in 128-byte lines of four 32-byte sectors, each aligned to its own
size (sector k holds bytes 32k .. 32k + 31), and data moves a sector at a time (DRAM: 64-byte
bursts). Shared memory is 32 banks of 4-byte words, word w in bank w mod 32; a request is
served in one pass when its lanes hit distinct banks (or the very same word), and in n
passes when some bank is asked for n different words (an n-way bank conflict). Sizes in
bytes, or in 4-byte words where the name says so.
"""
from __future__ import annotations

import math

from . import _check

SECTOR = 32        # bytes the L1 and L2 move at a time
LINE = 128         # bytes of a cache line (four sectors)
BANKS = 32         # shared-memory banks, each 4 bytes wide


def contiguous_pieces(offset_bytes: int, elem_bytes: int = 4, lanes: int = 32,
                      piece: int = SECTOR) -> int:
    """Aligned ``piece``-byte pieces (sectors, lines or bursts) touched when ``lanes``
    threads read consecutive ``elem_bytes`` values starting ``offset_bytes`` past a piece
    boundary: from piece floor(o / p) to piece floor((o + lanes x elem - 1) / p)."""
    o = _check.count("offset_bytes", offset_bytes, minimum=0)
    e = _check.count("elem_bytes", elem_bytes)
    n = _check.count("lanes", lanes, maximum=_check.MAX_LANES)
    p = _check.count("piece", piece)
    return (o + n * e - 1) // p - o // p + 1


def contiguous_useful_fraction(offset_bytes: int, elem_bytes: int = 4, lanes: int = 32,
                               piece: int = SECTOR) -> float:
    """Bytes asked for over bytes moved for :func:`contiguous_pieces`'s request."""
    n, e = _check.count("lanes", lanes, maximum=_check.MAX_LANES), _check.count("elem_bytes", elem_bytes)
    return n * e / (contiguous_pieces(offset_bytes, e, n, piece) * piece)


def bank_conflict_ways(stride_words: int, lanes: int = 32, banks: int = BANKS) -> int:
    """Passes one shared-memory request takes when lane k reads 4-byte word k x stride:
    the most distinct words any one bank is asked for. Stride 0 (every lane the same word)
    is a broadcast, one pass; otherwise gcd(stride, banks) for a full warp (32 lanes on 32
    banks): stride 1 or any odd stride, one pass; stride 32, every lane in one bank."""
    s = _check.count("stride_words", stride_words, minimum=0)
    n, b = _check.count("lanes", lanes, maximum=_check.MAX_LANES), _check.count("banks", banks)
    if s == 0:
        return 1
    words_per_bank: dict[int, set[int]] = {}
    for k in range(n):
        w = k * s
        words_per_bank.setdefault(w % b, set()).add(w)
    return max(len(ws) for ws in words_per_bank.values())


def padded_column_ways(row_words: int, lanes: int = 32, banks: int = BANKS) -> int:
    """Passes to read one column of a tile stored row by row with ``row_words`` 4-byte words
    per row (lane k reads row k): :func:`bank_conflict_ways` at that stride. A 32-wide
    float tile gives 32 ways; padding each row to 33 words gives one pass."""
    return bank_conflict_ways(_check.count("row_words", row_words), lanes, banks)


def vector_load_requests(n_elems: int, elem_bytes: int = 4, vector_bytes: int = 4,
                         lanes: int = 32) -> int:
    """Warp-wide load instructions to read ``n_elems`` contiguous values when each thread
    loads ``vector_bytes`` at a time (4: plain float; 8: float2; 16: float4):
    ceil(n x elem / (lanes x vector_bytes))."""
    n = _check.count("n_elems", n_elems)
    e = _check.count("elem_bytes", elem_bytes)
    v = _check.count("vector_bytes", vector_bytes)
    if v % e or v > 16:
        raise ValueError(f"vector_bytes={v} must be a multiple of elem_bytes={e} and at most 16")
    return math.ceil(n * e / (_check.count("lanes", lanes, maximum=_check.MAX_LANES) * v))
