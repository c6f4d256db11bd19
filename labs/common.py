"""Pieces every lab's ``run`` shares: the GPU check, the result record, sizes that adapt
to the GPU in hand, adaptive repeat counts, and the FP32 lanes of each architecture.

Nothing here imports plotly, ipywidgets or (at import) torch.
"""
from __future__ import annotations

import statistics
import time
from typing import Callable, Iterable

from .gpu import context, free_memory_bytes, has_cuda

#: FP32 lanes per SM by compute capability (major, minor); the major alone as fallback.
_LANES = {(6, 0): 64, (7, 0): 64, (7, 2): 64, (7, 5): 64, (8, 0): 64}
_LANES_MAJOR = {5: 128, 6: 128, 7: 64, 8: 128, 9: 128, 10: 128, 11: 128, 12: 128}


class NoGPUError(RuntimeError):
    """Raised by a lab's run() when no CUDA GPU is present."""


def require_cuda(lab: str) -> None:
    """Raise NoGPUError with a one-line explanation when torch sees no CUDA GPU."""
    if not has_cuda():
        raise NoGPUError(
            f"lab {lab!r} measures a CUDA GPU and torch sees none here; "
            f"recorded results: labs.show({lab!r}) or labs.load({lab!r}, 'H200')")


def fp32_lanes_per_sm(compute_capability: str) -> int:
    """FP32 lanes (FMA units) per SM for a compute capability like '9.0'."""
    try:
        major, minor = (int(p) for p in str(compute_capability).split(".")[:2])
    except ValueError:
        raise ValueError(f"compute_capability must look like '9.0'; got {compute_capability!r}")
    if (major, minor) in _LANES:
        return _LANES[(major, minor)]
    if major in _LANES_MAJOR:
        return _LANES_MAJOR[major]
    raise ValueError(f"unknown compute capability {compute_capability!r}")


def record(lab: str, params: dict, rows: list[dict], summary: dict,
           ctx: dict | None = None) -> dict:
    """A lab result: {lab, context, params, rows, summary} (SI units)."""
    return {"lab": lab, "context": ctx if ctx is not None else context(), "params": params,
            "rows": rows, "summary": summary}


def elements_for(target_bytes: float, itemsize: int = 4, share: float = 0.2,
                 multiple: int = 4096) -> int:
    """Elements of ``itemsize`` bytes in one buffer: ``target_bytes``, or ``share`` of the
    free device memory when that is less, rounded down to a multiple of ``multiple``."""
    if target_bytes <= 0 or itemsize <= 0 or not 0 < share <= 1:
        raise ValueError("target_bytes and itemsize must be > 0 and share in (0, 1]")
    free = free_memory_bytes() or target_bytes / share
    n = int(min(target_bytes, share * free) // itemsize)
    n -= n % multiple
    if n < multiple:
        raise ValueError(f"too little free GPU memory for a {target_bytes:.3g}-byte buffer")
    return n


def powers_of_two(lo: int, hi: int) -> list[int]:
    """[lo, 2 lo, 4 lo, ...] up to hi inclusive (lo >= 1)."""
    if lo < 1 or hi < lo:
        raise ValueError(f"need 1 <= lo <= hi; got lo={lo}, hi={hi}")
    out, v = [], int(lo)
    while v <= hi:
        out.append(v)
        v *= 2
    return out


def repeats_for(fn: Callable[[], object], budget_s: float, lo: int = 3, hi: int = 50) -> int:
    """How many repeats of ``fn`` fit ``budget_s`` seconds, from one timed call (clamped)."""
    t = time.perf_counter()
    fn()
    dt = max(time.perf_counter() - t, 1e-7)
    return int(max(lo, min(hi, budget_s / dt)))


def host_time(fn: Callable[[], object], budget_s: float = 0.3, lo: int = 3, hi: int = 50) -> float:
    """Median host seconds of ``fn()`` (include a synchronize in fn for GPU work), with the
    repeat count chosen to fit ``budget_s``; the first call is a warm-up."""
    n = repeats_for(fn, budget_s, lo, hi)
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def first_win(sizes: Iterable[int], slow: Iterable[float], fast: Iterable[float]) -> int | None:
    """The first size from which ``fast`` beats ``slow`` at every larger size (None if never)."""
    sizes, slow, fast = list(sizes), list(slow), list(fast)
    if not (len(sizes) == len(slow) == len(fast)):
        raise ValueError("sizes, slow and fast must have the same length")
    win = None
    for n, a, b in zip(sizes, slow, fast):
        if b < a:
            win = n if win is None else win
        else:
            win = None
    return win
