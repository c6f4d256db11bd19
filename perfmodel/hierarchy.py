"""The memory hierarchy as a staircase: which level serves a working set, and at what latency.

The model behind the latency lab's plateaus: a chase through a random cyclic permutation
touches every line of its working set once per lap, so while the set fits in a level's
capacity every load hits there, and once it does not (the lap is longer than the cache)
the loads fall to the next level. Latency is then a step function of the working set.
Capacities in bytes; latencies in any one unit (seconds or cycles), returned in that unit.

It also holds the memory footprint that separates naive attention from FlashAttention:
bytes allocated beside the inputs.
"""
from __future__ import annotations

import math
from typing import Sequence

from . import _check


def _levels(levels: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
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
