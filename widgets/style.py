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
    return [2 ** k for k in range(lo, hi + 1, step)]


def int_label(n: float) -> str:
    """A size for a slider label: 1,048,576 -> '1,048,576 (2^20)' for powers of two."""
    n = int(n)
    if n >= 1024 and n & (n - 1) == 0:
        return f"{n:,} (2^{n.bit_length() - 1})"
    return f"{n:,}"


def log_range(lo: float, hi: float) -> list[float]:
    """A plotly log-axis range [log10 lo, log10 hi]."""
    return [math.log10(lo), math.log10(hi)]


def fraction_label(f: float) -> str:
    """0.25 -> '25%'."""
    return f"{100 * f:.3g}%"


def table_trace(header: list[str], cells: list[list[str]], domain_y: list[float],
                widths: list[float] | None = None) -> dict:
    """A plotly table that reads in the light and the dark theme (transparent cells)."""
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
