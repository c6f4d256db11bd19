"""Colours, labels and axis helpers shared by the widgets (display only, no model)."""
from __future__ import annotations

import math

#: One palette for every widget; readable on the light and the dark theme.
COLORS = {
    "roof": "#4c78a8", "ridge": "#9d755d", "cpu": "#7f7f7f", "gpu": "#2ca02c",
    "accent": "#e45756", "muted": "#9e9e9e",
    "ops": ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
            "#17becf", "#bcbd22"],
    "parts": {"toll": "#9e9e9e", "compute": "#f58518", "memory": "#4c78a8", "pcie": "#e45756"},
}


def pow2(lo: int, hi: int, step: int = 1) -> list[int]:
    """[2**lo, 2**(lo+step), ..., 2**hi]."""
    for name, v in (("lo", lo), ("hi", hi), ("step", step)):
        if isinstance(v, bool) or not isinstance(v, int) or not -1100 <= v <= 1100:
            raise ValueError(f"{name} must be an integer exponent in [-1100, 1100], got {v!r}")
    if step < 1:
        raise ValueError(f"step must be at least 1, got {step}")
    return [2 ** k for k in range(lo, hi + 1, step)]


def int_label(n: float) -> str:
    """A size for a slider label: 1,048,576 -> '1,048,576 (2^20)' for powers of two."""
    if isinstance(n, bool) or not isinstance(n, (int, float)) or not math.isfinite(n):
        raise ValueError(f"n must be a finite number, got {n!r}")
    n = int(n)
    if n >= 1024 and n & (n - 1) == 0:
        return f"{n:,} (2^{n.bit_length() - 1})"
    return f"{n:,}"


def log_range(lo: float, hi: float) -> list[float]:
    """A plotly log-axis range [log10 lo, log10 hi]."""
    for name, v in (("lo", lo), ("hi", hi)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < math.inf:
            raise ValueError(f"{name} must be a positive finite number, got {v!r}")
    return [math.log10(lo), math.log10(hi)]


def fraction_label(f: float) -> str:
    """0.25 -> '25%'."""
    return f"{100 * f:.3g}%"


#: Width (px) a table spans in the narrowest figure the book draws (the site's column at a
#: 760 px window, less the plot's margins), and generous widths (px) of one character at
#: the tables' 12 px font and of a cell's padding, by which a cell is judged to fit.
TABLE_PX, TABLE_CHAR_PX, TABLE_PAD_PX = 540, 7.5, 20

#: A no-break space: plotly draws a table cell with no space in it as plain text.
NBSP = "\u00a0"


def unbroken(text, column_px: float):
    """``text`` with no-break spaces where it fits on one line of a ``column_px`` wide
    column, else as it is (plotly then wraps it at its spaces). Plotly wraps every cell
    that has a space by measuring each word in the page, most of a slider step's time in
    a figure with a table; a cell that fits never wraps, so it loses nothing."""
    if isinstance(column_px, bool) or not isinstance(column_px, (int, float)) or \
            not 0 < column_px < math.inf:
        raise ValueError(f"column_px must be a positive width in pixels, got {column_px!r}")
    if not isinstance(text, str) or "<" in text or \
            len(text) * TABLE_CHAR_PX + TABLE_PAD_PX > column_px:
        return text
    return text.replace(" ", NBSP)


def table_trace(header: list[str], cells: list[list[str]], domain_y: list[float],
                widths: list[float] | None = None) -> dict:
    """A plotly table that reads in the light and the dark theme (transparent cells);
    the text of a cell that fits its column on one line has no-break spaces (see
    ``unbroken``)."""
    for name, v in (("header", header), ("cells", cells), ("domain_y", domain_y)):
        if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple)):
            raise ValueError(f"{name} must be a list, got {v!r}"[:200])
    if not all(isinstance(col, (list, tuple)) for col in cells):
        raise ValueError(f"cells must be a list of columns (lists), got {cells!r}"[:200])
    share = widths or [1.0] * max(len(header), len(cells), 1)
    if isinstance(share, (str, bytes)) or not isinstance(share, (list, tuple)) or not all(
            not isinstance(w, bool) and isinstance(w, (int, float)) and 0 < w < math.inf
            for w in share):
        raise ValueError(f"widths must be a list of positive column widths, got {widths!r}"[:200])
    cols = [TABLE_PX * w / sum(share) for w in share]
    header = [unbroken(h, cols[i % len(cols)]) for i, h in enumerate(header)]
    cells = [[unbroken(v, cols[i % len(cols)]) for v in col] for i, col in enumerate(cells)]
    t = {"type": "table", "domain": {"x": [0, 1], "y": domain_y},
         "header": {"values": header, "fill": {"color": "rgba(128,128,128,0.25)"},
                    "line": {"color": "rgba(128,128,128,0.5)"}, "align": "left",
                    "font": {"size": 12}},
         "cells": {"values": cells, "fill": {"color": "rgba(0,0,0,0)"}, "height": 24,
                   "line": {"color": "rgba(128,128,128,0.5)"}, "align": "left",
                   "font": {"size": 12}}}
    if widths:
        t["columnwidth"] = widths
    return t
