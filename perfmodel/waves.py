"""Tiles and waves: how an output split into tiles lands on the SMs.

The simplified model: each tile is one thread block, ``blocks_per_sm`` blocks fit on
an SM at once, and every tile takes the same time, so time grows with the waves.
"""
from __future__ import annotations

import math

from . import _check


def tiles(m: int, n: int, tile_m: int, tile_n: int) -> int:
    """Tiles covering an m x n output: ceil(m / tile_m) x ceil(n / tile_n)."""
    m, n = _check.count("m", m), _check.count("n", n)
    tm, tn = _check.count("tile_m", tile_m), _check.count("tile_n", tile_n)
    return math.ceil(m / tm) * math.ceil(n / tn)


def waves(tiles: int, sms: int, blocks_per_sm: int = 1) -> int:
    """Waves needed: ceil(tiles / (sms x blocks_per_sm))."""
    t = _check.count("tiles", tiles)
    slots = _check.count("sms", sms) * _check.count("blocks_per_sm", blocks_per_sm)
    return math.ceil(t / slots)


def utilization(tiles: int, sms: int, blocks_per_sm: int = 1) -> float:
    """Fraction of the SM slots busy over all waves: tiles / (waves x slots)."""
    w = waves(tiles, sms, blocks_per_sm)
    return tiles / (w * sms * blocks_per_sm)


def last_wave_utilization(tiles: int, sms: int, blocks_per_sm: int = 1) -> float:
    """Fraction of the slots busy in the last wave."""
    slots = _check.count("sms", sms) * _check.count("blocks_per_sm", blocks_per_sm)
    rem = _check.count("tiles", tiles) % slots
    return 1.0 if rem == 0 else rem / slots


def useful_fraction(m: int, n: int, tile_m: int, tile_n: int) -> float:
    """Fraction of the tiled area that is real output: m n / (tiles x tile_m x tile_n)."""
    return m * n / (tiles(m, n, tile_m, tile_n) * tile_m * tile_n)


def tile_edges(n: int, tile: int) -> list[int]:
    """Boundaries of the tiles along one dimension of length n: 0, tile, 2 tile, ..., n
    (the last tile is partial when tile does not divide n)."""
    n, t = _check.count("n", n), _check.count("tile", tile)
    if n // t > _check.MAX_ITEMS:
        raise ValueError(f"n / tile must be at most {_check.MAX_ITEMS:,} tiles, got {n // t:,}")
    return list(range(0, n, t)) + [n]


def assignment(m: int, n: int, tile_m: int, tile_n: int, sms: int,
               blocks_per_sm: int = 1) -> list[list[int]]:
    """The wave (1, 2, ...) each output tile runs in, as rows x columns of tiles, when the
    tiles are launched in row-major order and each wave fills every SM slot."""
    rows = math.ceil(_check.count("m", m) / _check.count("tile_m", tile_m))
    cols = math.ceil(_check.count("n", n) / _check.count("tile_n", tile_n))
    slots = _check.count("sms", sms) * _check.count("blocks_per_sm", blocks_per_sm)
    if rows * cols > _check.MAX_ITEMS:
        raise ValueError(f"m, n, tile_m and tile_n give {rows * cols:,} tiles; at most "
                         f"{_check.MAX_ITEMS:,} can be laid out")
    return [[(r * cols + c) // slots + 1 for c in range(cols)] for r in range(rows)]


def busy_per_wave(tiles: int, sms: int, blocks_per_sm: int = 1) -> list[int]:
    """Tiles running in each wave: every wave full (sms x blocks_per_sm) except the last."""
    w = waves(tiles, sms, blocks_per_sm)
    if w > _check.MAX_ITEMS:
        raise ValueError(f"tiles, sms and blocks_per_sm give {w:,} waves; at most "
                         f"{_check.MAX_ITEMS:,} can be listed")
    slots = sms * blocks_per_sm
    return [slots] * (w - 1) + [tiles - slots * (w - 1)]


def attainable_fraction(m: int, n: int, tile_m: int, tile_n: int, sms: int,
                        blocks_per_sm: int = 1) -> float:
    """Share of the compute roof the simplified tile model allows an m x n output:
    (useful share of the tiled area) x (share of SM slots busy over all waves)."""
    t = tiles(m, n, tile_m, tile_n)
    return useful_fraction(m, n, tile_m, tile_n) * utilization(t, sms, blocks_per_sm)
