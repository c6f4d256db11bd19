"""The memory hierarchy as a staircase: which level serves a working set, and at what latency.

The model behind the latency lab's plateaus: a chase through a random cyclic permutation
touches every line of its working set once per lap, so while the set fits in a level's
capacity every load hits there, and once it does not (the lap is longer than the cache)
the loads fall to the next level. Latency is then a step function of the working set.
Capacities in bytes; latencies in any one unit (seconds or cycles), returned in that unit.

It also holds the memory footprint that separates naive attention from FlashAttention:
bytes allocated beside the inputs; and, for the chapter on the memory hierarchy, the size of
each level on a machine (:func:`staircase`), the tiles that fit in it (:func:`largest_tile`),
and what an access pattern moves: strides, gathers, arrays of structures and transposes.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from . import _check


def _levels(levels: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    levels = _check.items("levels", levels)
    if not levels:
        raise ValueError("levels must list (capacity_bytes, latency) pairs, smallest first")
    out = []
    for i, pair in enumerate(levels):
        try:
            cap, lat = pair
        except (TypeError, ValueError):
            raise ValueError(f"levels[{i}] must be a (capacity_bytes, latency) pair; got {pair!r}")
        out.append((_check.positive(f"levels[{i}] capacity", cap, allow_inf=True),
                    _check.positive(f"levels[{i}] latency", lat)))
    caps = [c for c, _ in out]
    if caps != sorted(caps) or len(set(caps)) != len(caps):
        raise ValueError(f"levels capacities must increase strictly; got {caps}")
    if not math.isinf(caps[-1]):
        raise ValueError("the last level must have capacity inf (the memory every miss ends in)")
    return out


def level_index(working_set: float, levels: Sequence[tuple[float, float]]) -> int:
    """Index of the first level whose capacity holds ``working_set`` bytes."""
    ws = _check.positive("working_set", working_set)
    for i, (cap, _lat) in enumerate(_levels(levels)):
        if ws <= cap:
            return i
    raise AssertionError("unreachable: the last capacity is inf")


def chase_latency(working_set: float, levels: Sequence[tuple[float, float]]) -> float:
    """Latency of one dependent load in a random chase over ``working_set`` bytes: the
    latency of the first level whose capacity holds the set (same unit as given).

    >>> chase_latency(8e3, [(256e3, 34), (50e6, 265), (math.inf, 650)])
    34.0
    """
    return _levels(levels)[level_index(working_set, levels)][1]


def attention_extra_bytes(seq: int, head_dim: int, batch: int = 1, heads: int = 1,
                          dtype_bytes: float = 2.0, flash: bool = False) -> float:
    """Bytes attention allocates beside Q, K and V at its peak (leading terms).

    Naive: the S x S scores and the S x S probabilities live together while softmax runs,
    2 S^2 elements per head, plus the S x d output. Flash (fused, tiled): only the S x d
    output and a float32 log-sum-exp per row, 4 S bytes: linear in S.
    """
    s, d = _check.count("seq", seq), _check.count("head_dim", head_dim)
    bh = _check.count("batch", batch) * _check.count("heads", heads)
    e = _check.positive("dtype_bytes", dtype_bytes)
    out = s * d * e
    if flash:
        return float(bh * (out + 4.0 * s))
    return float(bh * (2.0 * s * s * e + out))


# ---------------------------------------------------------------------------------------
# Sizes and bandwidths per level; tiles that fit; what access patterns cost (chapter 8).
# ---------------------------------------------------------------------------------------

#: The levels of the staircase, closest first, with the hardware fact that sizes each one
#: (per SM for registers and L1/shared memory, per chip for the L2).
STAIRCASE = (("registers", "registers_per_sm_bytes", True),
             ("l1", "l1_shared_per_sm_bytes", True),
             ("l2", "l2_bytes", False),
             ("dram", None, False))


def level_capacity(machine, level: str) -> float:
    """Bytes a level holds across the whole chip: ``"registers"`` and ``"l1"`` (L1 and
    shared memory together) are per-SM figures times the SMs; ``"l2"`` the shared cache;
    ``"dram"`` the card's memory. A figure the machine lacks -> ValueError."""
    from . import machines

    m = machines.get(machine)
    names = [name for name, _key, _per_sm in STAIRCASE]
    level = _check.choice("level", level, names)
    if level == "dram":
        if not m.memory_bytes:
            raise ValueError(f"{m.name} has no memory size on record")
        return float(m.memory_bytes)
    _name, key, per_sm = STAIRCASE[names.index(level)]
    size = m.hardware(key)
    return float(size * m.sms) if per_sm else float(size)


def staircase(machine) -> list[dict]:
    """The levels of ``machine`` closest first: ``level``, ``capacity`` (bytes, whole chip,
    None where not on record), ``per_sm`` (bytes per SM for registers and L1, else None)
    and ``bandwidth`` (byte/s for the whole chip, None where not on record)."""
    from . import machines

    m = machines.get(machine)
    rows = []
    for name, key, per_sm in STAIRCASE:
        try:
            cap = level_capacity(m, name)
        except ValueError:
            cap = None
        per = None
        if per_sm:
            try:
                per = float(m.hardware(key))
            except ValueError:
                per = None
        bw = m.bandwidth(name) if name in m.levels() else None
        rows.append({"level": name, "capacity": cap, "per_sm": per, "bandwidth": bw})
    return rows


def tile_bytes(tile: int, elem_bytes: float = 4.0, tiles: int = 2) -> float:
    """Bytes ``tiles`` square tiles of edge ``tile`` take on chip: tiles x T^2 x s (the two
    input tiles of a tiled matmul step by default)."""
    t = _check.count("tile", tile)
    return float(_check.count("tiles", tiles) * t * t * _check.positive("elem_bytes", elem_bytes))


def largest_tile(capacity_bytes: float, elem_bytes: float = 4.0, tiles: int = 2) -> int:
    """The largest edge T whose ``tiles`` square tiles fit in ``capacity_bytes``:
    floor(sqrt(capacity / (tiles x s)))."""
    cap = _check.positive("capacity_bytes", capacity_bytes)
    per = _check.count("tiles", tiles) * _check.positive("elem_bytes", elem_bytes)
    t = math.isqrt(_check.whole("capacity_bytes and elem_bytes", cap // per))
    if t < 1:
        raise ValueError(f"capacity_bytes={cap:g} holds no tile of {tiles} x 1 x 1 elements")
    return int(t)


def tile_for_intensity(intensity: float, elem_bytes: float = 4.0) -> int:
    """The smallest whole tile edge T whose step intensity T/s reaches ``intensity``."""
    target = _check.positive("intensity", intensity)
    s = _check.positive("elem_bytes", elem_bytes)
    return _check.whole("intensity and elem_bytes", target * s - 1e-9)


def strided_bandwidth(bandwidth: float, stride: int | str, elem_bytes: int = 4,
                      piece: int = 32) -> float:
    """Useful byte/s when a warp reads ``elem_bytes`` values ``stride`` elements apart and
    the level moves whole ``piece``-byte pieces (32 B sectors from the caches, 64 B bursts
    from DRAM): bandwidth x useful fraction (:func:`perfmodel.simt.useful_fraction`)."""
    from . import simt

    return (_check.positive("bandwidth", bandwidth)
            * simt.useful_fraction(stride, elem_bytes, _check.count("piece", piece)))


def gather_fraction(value_bytes: float = 4.0, index_bytes: float = 4.0,
                    piece: float = 64.0, store_bytes: float = 0.0) -> float:
    """Useful over moved bytes of a random gather of ``x[idx[i]]``: the index is read in
    order (no waste) and every value costs a whole piece of its own, so
    (index + value) / (index + piece). A kernel that also writes each value out in order,
    ``out[i] = x[idx[i]]``, adds ``store_bytes`` (useful, no waste) on both sides:
    (index + value + store) / (index + piece + store). Pass index_bytes=0 to count the
    values alone."""
    v = _check.positive("value_bytes", value_bytes)
    i = _check.non_negative("index_bytes", index_bytes)
    p = _check.positive("piece", piece)
    s = _check.non_negative("store_bytes", store_bytes)
    if v > p:
        raise ValueError(f"value_bytes={v:g} must not exceed piece={p:g}")
    return (i + v + s) / (i + p + s)


def struct_bytes_moved(n: int, struct_bytes: int, offsets: Sequence[int], field_bytes: int = 4,
                       layout: str = "aos", piece: int = 32, lanes: int = 32) -> float:
    """Bytes moved to read the fields at ``offsets`` (bytes into each record) of ``n``
    records, a warp of ``lanes`` consecutive records at a time.

    layout="aos" (array of structures): record r's field sits at r x struct_bytes + offset,
    and each warp pays for every distinct ``piece`` its lanes touch. layout="soa"
    (structure of arrays): every field is its own contiguous array, so a warp's lanes are
    adjacent and (when lanes x field_bytes is a whole number of pieces) nothing is wasted.
    """
    n = _check.count("n", n)
    sb = _check.count("struct_bytes", struct_bytes)
    fb = _check.count("field_bytes", field_bytes)
    p = _check.count("piece", piece)
    w = _check.count("lanes", lanes, maximum=_check.MAX_LANES)
    layout = _check.choice("layout", layout, ("aos", "soa"))
    offs = [int(o) for o in offsets]
    if not offs:
        raise ValueError("offsets must name at least one field")
    for o in offs:
        if o < 0 or o + fb > sb:
            raise ValueError(f"offsets: field at byte {o} does not fit in a {sb}-byte record")
    lane = np.arange(w)
    if layout == "soa":
        per_warp = sum(len(np.unique((lane * fb) // p)) for _o in offs) * p
    else:
        touched = set()
        for o in offs:
            start, end = lane * sb + o, lane * sb + o + fb - 1
            for a, b in zip(start // p, end // p):
                touched.update(range(int(a), int(b) + 1))
        per_warp = len(touched) * p
    return float(n * per_warp / w)


def transpose_bytes(n: int, elem_bytes: int = 4, piece: int = 32, tiled: bool = False) -> float:
    """DRAM-side bytes moved to transpose an n x n matrix (read once, write once).

    tiled=True: through shared memory, both the reads and the writes walk rows, 2 n^2 s.
    tiled=False: reads walk rows of the input but the writes walk columns of the output,
    so each element written lands in a piece of its own (if nothing merges the pieces in
    a cache): n^2 s read + n^2 x piece written.
    """
    n = _check.count("n", n)
    s = _check.count("elem_bytes", elem_bytes)
    p = _check.count("piece", piece)
    if s > p:
        raise ValueError(f"elem_bytes={s} must not exceed piece={p}")
    if tiled:
        return float(2 * n * n * s)
    return float(n * n * (s + p))
