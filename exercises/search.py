"""Small numeric helpers the exercises share."""
from __future__ import annotations

from typing import Callable


def first_true(predicate: Callable[[int], bool], start: int = 1, stop: int = 1_000_000) -> int:
    """The smallest integer n in [start, stop) with predicate(n) true, for a predicate that
    is false and then true (bisection). None in range -> ValueError."""
    if not callable(predicate):
        raise TypeError(f"predicate must be a function of an integer, got {predicate!r}"[:200])
    for name, value in (("start", start), ("stop", stop)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an integer, got {value!r}"[:200])
    if not start < stop:
        raise ValueError(f"start must be smaller than stop, got start={start}, stop={stop}")
    if stop - start > 2 ** 62:
        raise ValueError(f"stop - start must be at most 2**62, got {stop - start}")
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
