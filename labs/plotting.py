"""Plot helpers the labs share. plotly is imported inside each function, never at module
import (the GPU machine has no plotly; a lab's ``run`` never calls these).

Convention: ``results[0]`` is the run shown (filled markers, solid lines), later results
are reference sets (open markers, dotted lines); model curves are dashed grey. A plot with
one series per result colours it by result; a plot with several series per result (the
paths of divergence, the L of Little's law, the kernels of attention) passes ``series``,
which colours by series, so each series keeps its colour across the run and the reference.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
          "#17becf", "#bcbd22", "#7f7f7f")
MODEL = dict(color="#7f7f7f", dash="dash", width=2)


def label(result: dict) -> str:
    """'NVIDIA H200 (2026-11-29)' or 'Tesla T4 (source notes)'."""
    ctx = result.get("context", {})
    name = ctx.get("gpu_name", "?")
    if ctx.get("reference"):
        return f"{name} (source notes)"
    date = str(ctx.get("date", ""))[:10]
    return f"{name} ({date})" if date else name


def style(i: int, series: int | None = None) -> dict:
    """Marker and line style of the i-th result (of its series-th series, when given)."""
    c = COLORS[(i if series is None else series) % len(COLORS)]
    return {"marker": dict(color=c, size=9, symbol="circle" if i == 0 else "diamond-open",
                           line=dict(color=c, width=2)),
            "line": dict(color=c, width=2 if i == 0 else 1.5, dash="solid" if i == 0 else "dot")}


def rows(result: dict, **match) -> list[dict]:
    """The result's rows whose keys equal every ``match`` value."""
    return [r for r in result.get("rows", []) if all(r.get(k) == v for k, v in match.items())]


def column(rs: Iterable[dict], key: str) -> list:
    """One key of each row (None where a row lacks it)."""
    return [r.get(key) for r in rs]


def figure(title: str, cols: int = 1, subtitles: tuple[str, ...] = (), height: int = 520):
    """An empty plotly figure with the book's layout (1 or more side-by-side panels)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=cols, subplot_titles=subtitles or None,
                        horizontal_spacing=0.1) if cols > 1 else go.Figure()
    fig.update_layout(title=title, height=height, margin=dict(l=60, r=20, t=70, b=150),
                      legend=dict(orientation="h", yanchor="top", y=-0.22, x=0),
                      hovermode="closest")
    return fig


def axes(fig, x: str, y: str, xlog: bool | None = True, ylog: bool = True,
         col: int | None = None):
    """Title and log/linear type of one panel's axes (xlog=None: categories, as in bars)."""
    kw = {} if col is None else {"row": 1, "col": col}
    fig.update_xaxes(title_text=x, type={True: "log", False: "linear", None: "-"}[xlog], **kw)
    fig.update_yaxes(title_text=y, type="log" if ylog else "linear", **kw)
    return fig


def points(fig, i: int, x, y, name: str, col: int | None = None, mode: str = "markers+lines",
           text=None, showlegend: bool = True, series: int | None = None):
    """Measured points of the i-th result (its series-th series: see the module docstring)."""
    import plotly.graph_objects as go

    keep = [(a, b, t) for a, b, t in zip(x, y, text or [None] * len(x))
            if a is not None and b is not None]
    if not keep:
        return fig
    xs, ys, ts = zip(*keep)
    tr = go.Scatter(x=list(xs), y=list(ys), name=name, mode=mode, text=list(ts),
                    showlegend=showlegend, **style(i, series))
    fig.add_trace(tr, **({} if col is None else {"row": 1, "col": col}))
    return fig


def model(fig, x, y, name: str, col: int | None = None, showlegend: bool = True, dash: str = "dash"):
    """A model curve (dashed grey)."""
    import plotly.graph_objects as go

    tr = go.Scatter(x=list(x), y=list(y), name=name, mode="lines", showlegend=showlegend,
                    line=dict(MODEL, dash=dash))
    fig.add_trace(tr, **({} if col is None else {"row": 1, "col": col}))
    return fig


def roof(fig, peak: float, bandwidth: float, name: str, lo: float = 1 / 64, hi: float = 4096,
         col: int | None = None):
    """The roofline min(peak, I x bandwidth) over intensities lo..hi (FLOP/byte)."""
    ridge = peak / bandwidth
    xs = np.unique(np.clip([lo, ridge, hi], lo, hi))
    return model(fig, xs, np.minimum(peak, xs * bandwidth), name, col=col)


def each(results: list[dict]):
    """(index, result, label) for every result, the run shown first."""
    for i, r in enumerate(results):
        yield i, r, label(r)
