"""Plot helpers the labs share. plotly is imported inside each function, never at module
import (the GPU machine has no plotly; a lab's ``run`` never calls these).

Convention: ``results[0]`` is the run shown (filled markers, solid lines), later results
are reference sets (open markers, dotted lines); model curves are dashed grey. A plot with
one series per result colours it by result; a plot with several series per result (the
paths of divergence, the L of Little's law, the kernels of attention) passes ``series``,
which colours by series, so each series keeps its colour across the run and the reference.
"""
from __future__ import annotations

import numbers
from typing import Iterable

import numpy as np

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
          "#17becf", "#bcbd22", "#7f7f7f")
MODEL = dict(color="#7f7f7f", dash="dash", width=2)


#: The document whose T4 measurements are the labs' reference set (references.bib:
#: howgpusrunml).
REFERENCE_SOURCE = "How GPUs Actually Run ML"


def label(result: dict) -> str:
    """'NVIDIA H200 (2026-11-29)' or 'Tesla T4 (How GPUs Actually Run ML)' (the document the
    reference figures were measured for)."""
    ctx = result.get("context", {})
    name = ctx.get("gpu_name", "?")
    if ctx.get("reference"):
        return f"{name} ({REFERENCE_SOURCE})"
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


def figure(title: str, cols: int = 1, subtitles: tuple[str, ...] = (), height: int = 460,
           rows: int = 1, row_heights: list[float] | None = None):
    """An empty plotly figure with the book's layout (1 or more panels, side by side or
    stacked); the legend goes under the panels (see :func:`finish`)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=rows, cols=cols, subplot_titles=subtitles or None,
                        horizontal_spacing=0.22 if cols == 2 else 0.14, vertical_spacing=0.16,
                        row_heights=row_heights) if cols > 1 or rows > 1 else go.Figure()
    fig.update_layout(title=dict(text=title, x=0, xanchor="left", font=dict(size=15)),
                      height=height, margin=dict(l=90, r=24, t=80, b=80),
                      legend=dict(orientation="h", yanchor="bottom", y=0, yref="container",
                                  x=0, xanchor="left", font=dict(size=11)),
                      hovermode="closest")
    if subtitles:
        fig.update_annotations(font_size=13)
    return fig


#: Width (px) the book's column gives a figure (688 at a 1280 px window, 728 at 760 px).
WIDTH_PX = 688


def _panel(fig, row: int | None, col: int | None) -> tuple[str, str]:
    """Layout names of one panel's axes ('xaxis2', 'yaxis2')."""
    if row is None and col is None:
        return "xaxis", "yaxis"
    sub = fig.get_subplot(row or 1, col or 1)
    return sub.xaxis.plotly_name, sub.yaxis.plotly_name


def _values(fig, ref: str, key: str) -> list[float]:
    """Every finite number a panel's traces draw along one axis."""
    out = []
    for tr in fig.data:
        if (getattr(tr, key + "axis", None) or key) == ref:
            out += [float(v) for v in (getattr(tr, key, None) or [])
                    if isinstance(v, numbers.Real) and not isinstance(v, bool) and np.isfinite(v)]
    return out


def wrap(label: str, width: int = 16) -> str:
    """A category label broken into lines of about ``width`` characters (plotly's <br>)."""
    lines, cur = [], ""
    for word in str(label).split():
        if cur and len(cur) + 1 + len(word) > width:
            lines.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
    return "<br>".join(lines + [cur])


def _extent(fig, ref: str, key: str, log: bool) -> tuple[float, float] | None:
    """Smallest and largest finite (positive, on a log axis) value a panel's traces draw
    along one axis (``key`` "x" or "y"; ``ref`` "x", "x2", ...)."""
    vals = []
    for tr in fig.data:
        if (getattr(tr, key + "axis", None) or key) != ref:
            continue
        if tr.type == "bar" and key == ("y" if (tr.orientation or "v") == "v" else "x"):
            vals.append(0.0)   # a bar starts at zero
        for v in (getattr(tr, key, None) or []):
            if isinstance(v, numbers.Real) and not isinstance(v, bool) and np.isfinite(v):
                vals.append(float(v))
    if log:
        vals = [v for v in vals if v > 0]
    return (min(vals), max(vals)) if vals else None


def _ticks(fig, name: str, ref: str, key: str, log: bool, unit: str) -> None:
    """Explicit SI ticks (widgets/axes.py) over the panel's data along one axis."""
    from widgets import axes as ax

    rng = fig.layout[name].range
    span = ([10 ** v for v in rng] if log else list(rng)) if rng else _extent(fig, ref, key, log)
    if span is None:
        return
    lo, hi = span
    if rng:
        pass
    elif log:
        pad = 10 ** (0.04 * max(np.log10(hi / lo), 0.5))
        lo, hi = lo / pad, hi * pad
    elif hi == lo:
        lo, hi = lo - 1, hi + 1
    elif 0 < lo < 0.15 * (hi - lo):
        lo, hi = 0.0, hi * 1.05            # near zero: start the axis at zero
        fig.layout[name].rangemode = "tozero"
    else:
        lo, hi = (lo - 0.05 * (hi - lo) if lo > 0 else lo), hi + 0.05 * (hi - lo)
    axis = fig.layout[name]
    dom = axis.domain or (0, 1)
    if key == "x":
        length = (WIDTH_PX - 94) * (dom[1] - dom[0])
    else:
        m = fig.layout.margin
        length = ((fig.layout.height or 460) - (m.t or 80) - (m.b or 80)) * (dom[1] - dom[0])
    spec = ax.axis(unit, lo, hi, log=log, length_px=length, vertical=key == "y")
    vals, texts = spec["tickvals"], spec["ticktext"]
    sizes = sorted(set(_values(fig, ref, key)))
    if log and 3 <= len(sizes) <= 16 and all(v >= 1 and v == int(v) and int(v) & (int(v) - 1) == 0
                                             for v in sizes):
        # sizes that double: tick the sizes themselves (1, 2, 4, ...), as many as fit
        step = 1
        while True:
            vals = sizes[::step]
            texts = [ax.tick_text(v, unit) for v in vals]
            if ax.fit(texts, length, key == "y") >= len(vals) or len(vals) <= 2:
                break
            step += 1
    fig.layout[name].update(tickmode="array", tickvals=vals, ticktext=texts, automargin=True,
                            title_standoff=4)


def axes(fig, x: str, y: str, xlog: bool | None = True, ylog: bool = True,
         col: int | None = None, xunit: str | None = None, yunit: str | None = None,
         row: int | None = None):
    """Title and log/linear type of one panel's axes (xlog=None: categories, as in bars),
    with SI tick labels in the unit the title names (or ``xunit``/``yunit``: see
    widgets/axes.py; "" for a plain count). Call it once the panel's traces are in."""
    from widgets import axes as ax

    kw = {} if col is None and row is None else {"row": row or 1, "col": col or 1}
    fig.update_xaxes(title_text=x, type={True: "log", False: "linear", None: "-"}[xlog], **kw)
    fig.update_yaxes(title_text=y, type={True: "log", False: "linear", None: "-"}[ylog], **kw)
    xname, yname = _panel(fig, row, col)
    if xlog is not None:
        _ticks(fig, xname, xname.replace("axis", ""), "x", bool(xlog),
               xunit if xunit is not None else (ax.unit_of(x) or ""))
    if ylog is not None:
        _ticks(fig, yname, yname.replace("axis", ""), "y", ylog,
               yunit if yunit is not None else (ax.unit_of(y) or ""))
    return fig


def finish(fig, width_px: float = WIDTH_PX):
    """Make room under the panels for the legend and the x axis titles, so nothing
    overlaps: a horizontal plotly legend that wraps sets its entries in columns as wide as
    its widest entry, so it takes one row per that many entries."""
    names = [t.name for t in fig.data if t.name and t.showlegend is not False]
    widest = max((7.0 * len(n) + 46 for n in names), default=0)
    per_row = max(1, int((width_px - 16) // widest)) if names else 1
    rows = -(-len(names) // per_row)
    m = fig.layout.margin
    has_xtitle = any(fig.layout[k].title.text for k in fig.layout
                     if k.startswith("xaxis") and fig.layout[k].title)
    bottom = 32 + (24 if has_xtitle else 0) + 20 * rows
    plot = (fig.layout.height or 460) - (m.t or 80) - (m.b or 80)
    fig.update_layout(margin=dict(b=bottom), height=plot + (m.t or 80) + bottom,
                      legend=dict(xref="container", x=0.01))
    return fig


def points(fig, i: int, x, y, name: str, col: int | None = None, mode: str = "markers+lines",
           text=None, showlegend: bool = True, series: int | None = None, **extra):
    """Measured points of the i-th result (its series-th series: see the module docstring)."""
    import plotly.graph_objects as go

    keep = [(a, b, t) for a, b, t in zip(x, y, text or [None] * len(x))
            if a is not None and b is not None]
    if not keep:
        return fig
    xs, ys, ts = zip(*keep)
    tr = go.Scatter(x=list(xs), y=list(ys), name=name, mode=mode, text=list(ts),
                    showlegend=showlegend, **{**style(i, series), **extra})
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
         col: int | None = None, dash: str = "dash", showlegend: bool = True):
    """The roofline min(peak, I x bandwidth) over intensities lo..hi (FLOP/byte), grey:
    dashed for a datasheet bound, ``dash="dot"`` for a measured reference line."""
    ridge = peak / bandwidth
    xs = np.unique(np.clip([lo, ridge, hi], lo, hi))
    return model(fig, xs, np.minimum(peak, xs * bandwidth), name, col=col, dash=dash,
                 showlegend=showlegend)


def each(results: list[dict]):
    """(index, result, label) for every result, the run shown first."""
    for i, r in enumerate(results):
        yield i, r, label(r)
