"""Axis ticks a reader can read: SI prefixes with the unit on every tick.

One place for the book's axis formatting (the widgets' ``layout`` and the labs' plots
both call it). Plotly's own log axes write "10B" for ten billion bytes per second and
"10^15" or a row of minor digits ("7 8 9 0.01") on short spans; here every tick is an
explicit value with its text: ``10 GB/s``, ``1 TFLOP/s``, ``100 µs``. Numbers are
formatted by :func:`perfmodel.units.si` (the one formatter of quantities in text).

Units: ``"B/s"``, ``"FLOP/s"``, ``"s"``, ``"B"``, ``"FLOP"``, ``"Hz"`` take SI prefixes;
``"FLOP/B"`` (intensity) and ``""`` (a count or a ratio) are plain numbers, with k, M, G
from ten thousand up; ``"%"`` is a fraction written as a percentage.
"""
from __future__ import annotations

import math
from typing import Sequence

from perfmodel import units

#: Units written with an SI prefix on every tick.
SI_UNITS = ("B/s", "FLOP/s", "s", "B", "FLOP", "Hz", "W")
#: Units written as plain numbers (the axis title names them).
PLAIN_UNITS = ("", "FLOP/B", "x")

#: Pixels a tick label may take per character, and the gap wanted between labels, at the
#: book's 12 px tick font (measured on plotly's Open Sans: about 6.5 px a character).
CHAR_PX, GAP_PX = 7.0, 14.0


def _span(lo: object, hi: object) -> None:
    """lo and hi must be finite numbers (TypeError/ValueError naming them)."""
    for name, v in (("lo", lo), ("hi", hi)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"{name} must be a number, got {v!r}"[:200])
        try:
            finite = math.isfinite(v)
        except OverflowError:
            finite = False
        if not finite:
            raise ValueError(f"{name} must be a finite number, got {v!r}"[:200])


def _check_unit(unit: str) -> str:
    if not isinstance(unit, str) or unit not in SI_UNITS + PLAIN_UNITS + ("%",):
        raise ValueError(f"unit must be one of {', '.join(repr(u) for u in SI_UNITS + PLAIN_UNITS + ('%',))}; "
                         f"got {unit!r}")
    return unit


def _plain(v: float) -> str:
    """0.01 -> '0.01', 1000 -> '1,000', 20000 -> '20k', 3e6 -> '3M' (no e-notation)."""
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e4:
        s = units.si(v, "", 3).replace(" ", "")
        return s
    if a >= 1:
        return f"{v:,.6g}" if a < 1e4 else f"{v:,.0f}"
    text = f"{v:.6f}".rstrip("0").rstrip(".")
    return text if float(text) == v else f"{v:.3g}"


def tick_text(value: float, unit: str) -> str:
    """One tick label: tick_text(1e10, 'B/s') -> '10 GB/s'; tick_text(1e-4, 's') -> '100 µs'."""
    _check_unit(unit)
    if unit == "%":
        return f"{100 * value:.3g}%"
    if unit in PLAIN_UNITS:
        return _plain(value)
    if value == 0:
        return "0"
    return units.si(value, unit, 3)


#: Multiples of each power of ten that get a tick, coarsest first.
MANTISSAS = ([1], [1, 3], [1, 2, 5], [1, 1.5, 2, 3, 4, 5, 6, 8])


def log_ticks(lo: float, hi: float, unit: str = "", max_ticks: int = 8,
              min_ticks: int = 3) -> tuple[list, list]:
    """(values, texts) of a log axis from lo to hi: powers of ten (every second or third
    one when there are more than ``max_ticks``), with 3, or 2 and 5, between on spans
    too short for ``min_ticks`` powers of ten."""
    _check_unit(unit)
    _span(lo, hi)
    if not (lo > 0 and hi > lo):
        raise ValueError(f"lo and hi must satisfy 0 < lo < hi; got {lo!r}, {hi!r}")
    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))

    def inside(mant, step=1, offset=0):
        out = []
        for e in range(first, last + 1):
            if (e - offset) % step:
                continue
            for m in mant:
                v = float(f"{m * 10.0 ** e:.12g}")
                if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9):
                    out.append(v)
        return out

    vals = []
    for k, mant in enumerate(MANTISSAS):
        vals = inside(mant)
        if len(vals) >= min_ticks:
            if len(vals) > max_ticks and k > 0:
                vals = inside(MANTISSAS[k - 1])
            break
    step = 1
    while len(vals) > max_ticks:
        step += 1
        vals = max((inside([1], step, o) for o in range(step)), key=len)
    return vals, [tick_text(v, unit) for v in vals]


def linear_ticks(lo: float, hi: float, unit: str = "", max_ticks: int = 7) -> tuple[list, list]:
    """(values, texts) of a linear axis from lo to hi at a 1, 2 or 5 step."""
    _check_unit(unit)
    _span(lo, hi)
    if not hi > lo:
        raise ValueError(f"hi must exceed lo; got {lo!r}, {hi!r}")
    raw = (hi - lo) / max(max_ticks - 1, 1)
    e = 10 ** math.floor(math.log10(raw))
    step = next(m * e for m in (1, 2, 2.5, 5, 10) if m * e >= raw)
    k = math.ceil(lo / step - 1e-9)
    vals = []
    while k * step <= hi + 1e-9 * step:
        vals.append(float(f"{k * step:.12g}"))
        k += 1
    return vals, [tick_text(v, unit) for v in vals]


def fit(texts: Sequence[str], length_px: float, vertical: bool = False) -> int:
    """How many of these labels fit along an axis ``length_px`` long (y axes: by height)."""
    if isinstance(texts, (str, bytes)) or not hasattr(texts, "__iter__"):
        raise TypeError(f"texts must be a list of labels, got {texts!r}"[:200])
    texts = [str(t) for t in texts]
    if isinstance(length_px, bool) or not isinstance(length_px, (int, float)) \
            or not 0 <= length_px < 1e7:
        raise ValueError(f"length_px must be a number of pixels, got {length_px!r}"[:200])
    if vertical:
        return max(2, int(length_px // 22))
    widest = max((len(t) for t in texts), default=4)
    return max(2, int(length_px // (widest * CHAR_PX + GAP_PX)))


def axis(unit: str, lo: float, hi: float, title: str | None = None, log: bool = True,
         length_px: float = 600, vertical: bool = False, **extra) -> dict:
    """A plotly axis dict: range lo..hi (data units), log or linear, explicit ticks with
    units that fit ``length_px`` pixels; ``title`` and ``extra`` keys pass through."""
    make = log_ticks if log else linear_ticks
    vals, texts = make(lo, hi, unit)
    # fewer ticks until the widest label fits between neighbours
    limit = len(vals)
    while limit > 2 and fit(texts, length_px, vertical) < len(vals):
        limit -= 1
        vals, texts = make(lo, hi, unit, max_ticks=limit)
    if vertical and len(vals) > 2:
        # a y tick at the foot of the axis would sit on the x axis's first tick label
        span = (math.log10(hi) - math.log10(lo)) if log else (hi - lo)
        keep = [((math.log10(v) - math.log10(lo)) if log else (v - lo)) / span * length_px >= 14
                or v == 0 for v in vals]
        vals = [v for v, k in zip(vals, keep) if k]
        texts = [t for t, k in zip(texts, keep) if k]
    out = {"type": "log" if log else "linear",
           "range": [math.log10(lo), math.log10(hi)] if log else [lo, hi],
           "tickmode": "array", "tickvals": vals, "ticktext": texts}
    if title is not None:
        out["title"] = {"text": title}
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = {**out[k], **v}
        else:
            out[k] = v
    return out


def log_axis(unit: str, lo: float, hi: float, title: str | None = None, **extra) -> dict:
    """A log axis from lo to hi with one labelled tick per decade (see :func:`axis`)."""
    return axis(unit, lo, hi, title, log=True, **extra)


def linear_axis(unit: str, lo: float, hi: float, title: str | None = None, **extra) -> dict:
    """A linear axis from lo to hi with SI tick labels (see :func:`axis`)."""
    return axis(unit, lo, hi, title, log=False, **extra)


def unit_of(title: str) -> str | None:
    """The unit an axis title names, or None: '... (B/s)' -> 'B/s', 'seconds' -> 's',
    'bytes read per second' -> 'B/s', 'intensity (FLOP/byte)' -> 'FLOP/B'."""
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be an axis title (text) or None, got {title!r}"[:200])
    t = (title or "").strip().lower()
    if t.endswith(")") and "(" in t:
        inner = t[t.rindex("(") + 1:-1].strip()
        inner = {"flop/byte": "FLOP/B", "flop/b": "FLOP/B", "flop/s": "FLOP/s", "b/s": "B/s",
                 "bytes/s": "B/s", "s": "s", "seconds": "s", "bytes": "B", "b": "B",
                 "flop": "FLOP", "hz": "Hz", "w": "W"}.get(inner)
        if inner:
            return inner
    if "per second" in t and "byte" in t:
        return "B/s"
    if t.startswith("flop/s") or t.endswith("flop/s"):
        return "FLOP/s"
    if t.startswith("seconds") or t.startswith("time (s") or t == "time":
        return "s"
    if t in ("bytes", "peak bytes"):
        return "B"
    return None
