"""Warps as the unit of cost: divergence passes and coalescing sectors."""
from __future__ import annotations

import numpy as np

from . import _check

WARP = 32


def divergence_passes(paths: int, split: str, warp: int = WARP) -> int:
    """Passes each warp makes when threads take one of ``paths`` equal-length paths.

    split="between": whole warps take one path each (1 pass); "within": the paths are
    dealt lane by lane through every warp (min(paths, warp) passes).
    """
    p = _check.count("paths", paths)
    split = _check.choice("split", split, ("between", "within"))
    return 1 if split == "between" else min(p, _check.count("warp", warp))


def warp_paths(paths: int, split: str, warps: int, warp: int = WARP) -> np.ndarray:
    """The path each lane takes: an array of shape (warps, warp) of path numbers."""
    p = _check.count("paths", paths)
    split = _check.choice("split", split, ("between", "within"))
    w = _check.count("warps", warps)
    lanes = np.arange(_check.count("warp", warp))
    if split == "between":
        return np.repeat((np.arange(w) % p)[:, None], len(lanes), axis=1)
    return np.tile(lanes % p, (w, 1))


def busy_warp_fraction(k: int, warp: int = WARP) -> float:
    """Fraction of warps holding a busy lane when one thread in every k is busy."""
    k = _check.count("k", k)
    return min(1.0, _check.count("warp", warp) / k)


def one_in_k_time(k: int, t_all: float, t_floor: float, warp: int = WARP) -> float:
    """Predicted time with one busy thread in k: max(t_all x busy warps, t_floor) seconds."""
    return max(_check.positive("t_all", t_all) * busy_warp_fraction(k, warp),
               _check.non_negative("t_floor", t_floor))


def lane_addresses(stride: int | str, elem_bytes: int = 4, lanes: int = WARP,
                   seed: int = 0, span: int = 1 << 26) -> np.ndarray:
    """Byte addresses of one warp's loads: lane x stride x elem_bytes, or random in a span."""
    n = _check.count("lanes", lanes)
    e = _check.count("elem_bytes", elem_bytes)
    if stride == "random":
        rng = np.random.default_rng(seed)
        return np.sort(rng.choice(span // e, size=n, replace=False)) * e
    return np.arange(n) * _check.count("stride", stride) * e


def sectors(stride: int | str, elem_bytes: int = 4, sector: int = 32, lanes: int = WARP) -> int:
    """Distinct ``sector``-byte pieces one warp's request touches (32 B in the caches,
    64 B bursts from DRAM)."""
    addr = lane_addresses(stride, elem_bytes, lanes)
    return int(len(np.unique(addr // _check.count("sector", sector))))


def useful_fraction(stride: int | str, elem_bytes: int = 4, sector: int = 32,
                    lanes: int = WARP) -> float:
    """Bytes asked for over bytes moved: lanes x elem_bytes / (sectors x sector)."""
    return lanes * elem_bytes / (sectors(stride, elem_bytes, sector, lanes) * sector)


def busy_lanes(k: int, warps: int, warp: int = WARP) -> np.ndarray:
    """Which threads work when one thread in every k does: bool array (warps, warp),
    thread t = w x warp + lane busy when t % k == 0."""
    k, w, n = _check.count("k", k), _check.count("warps", warps), _check.count("warp", warp)
    return (np.arange(w * n).reshape(w, n) % k) == 0


def touched_sectors(stride: int | str, elem_bytes: int = 4, sector: int = 32,
                    lanes: int = WARP) -> np.ndarray:
    """Sorted indices (address // sector) of the distinct sectors one warp's request touches."""
    addr = lane_addresses(stride, elem_bytes, lanes)
    return np.unique(addr // _check.count("sector", sector))
