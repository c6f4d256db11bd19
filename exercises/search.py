"""Small numeric helpers the exercises share."""
from __future__ import annotations

from typing import Callable


def first_true(predicate: Callable[[int], bool], start: int = 1, stop: int = 1_000_000) -> int:
    """The smallest integer n in [start, stop) with predicate(n) true, for a predicate that
    is false and then true (bisection). None in range -> ValueError."""
    lo, hi = start, stop
    if not predicate(hi - 1):
        raise ValueError("no size in range satisfies the condition")
    while lo < hi:
        mid = (lo + hi) // 2
        if predicate(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo
