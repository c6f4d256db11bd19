"""Static figures for the built site: plotly JSON in an HTML div, drawn by the site's
own plotly.js (``_static/book-plotly.js``); no CDN, no kernel.

``StaticFigure(fig)`` is what a chapter cell returns: on the html builder it shows as
``text/html`` (DESIGN.md's mime-priority override); in Jupyter it also carries plotly's
own mimetype so JupyterLab draws it natively.
"""
from __future__ import annotations

import base64
import html as _html
import itertools
import json
import math

import numpy as np

_ids = itertools.count()


def _plain(obj):
    """numpy arrays and scalars to lists and floats; NaN to None (JSON null)."""
    if isinstance(obj, dict):
        if "bdata" in obj and "dtype" in obj:  # plotly's base64 typed array
            arr = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=np.dtype(obj["dtype"]))
            if "shape" in obj:
                arr = arr.reshape([int(d) for d in str(obj["shape"]).split(",")])
            return _plain(arr)
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _plain(obj.tolist())
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def figure_json(fig) -> dict:
    """The figure as a plain dict (data, layout): numbers as plain JSON numbers (no
    base64 typed arrays), so the page and the tests read the same values."""
    return _plain(fig.to_dict())


def compact_json(obj, digits: int = 6) -> str:
    """JSON with every float written to ``digits`` significant digits ("2.66667e+10"):
    the static widgets carry thousands of precomputed numbers, and the page weighs less."""
    if isinstance(obj, dict):
        return "{" + ",".join(json.dumps(str(k)) + ":" + compact_json(v, digits)
                              for k, v in obj.items()) + "}"
    if isinstance(obj, (list, tuple)):
        return "[" + ",".join(compact_json(v, digits) for v in obj) + "]"
    if isinstance(obj, float):
        if not math.isfinite(obj):
            return "null"
        text = format(obj, f".{digits}g")
        return text if text.lstrip("-")[0].isdigit() else json.dumps(obj)
    return json.dumps(obj)


def to_html(fig, height: int | None = None, name: str | None = None,
            digits: int | None = None) -> str:
    """HTML for one figure: a div with the figure's JSON, drawn by book-plotly.js.
    ``digits`` rounds every float to that many significant digits (None: exact)."""
    spec = figure_json(fig)
    spec.setdefault("layout", {}).pop("template", None)
    spec["layout"]["autosize"] = True
    h = int(height or spec["layout"].get("height") or 420)
    spec["layout"]["height"] = h
    body = {"data": spec["data"], "layout": spec["layout"], "config": {"responsive": True}}
    payload = (compact_json(body, digits) if digits else
               json.dumps(body, separators=(",", ":"), allow_nan=False))
    payload = payload.replace("</", "<\\/")
    fid = f"book-figure-{name or next(_ids)}"
    return (f'<div class="book-figure" id="{_html.escape(fid)}">'
            f'<div class="book-figure-plot" style="height:{h}px"></div>'
            f'<script type="application/json">{payload}</script></div>')


class StaticFigure:
    """Display wrapper: text/html for the book, plotly JSON for Jupyter."""

    def __init__(self, fig, height: int | None = None, name: str | None = None):
        self.fig = fig
        self.height = height
        self.name = name

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": to_html(self.fig, self.height, self.name),
                "application/vnd.plotly.v1+json": figure_json(self.fig)}


class HTML:
    """Plain HTML output (tables) that renders the same in Jupyter and in the book."""

    def __init__(self, markup: str):
        self.markup = markup

    def _repr_html_(self) -> str:
        return self.markup


def table(rows: list[dict], columns: list[str] | None = None, caption: str = "") -> HTML:
    """An HTML table from a list of dicts (values already formatted as strings)."""
    cols = columns or (list(rows[0]) if rows else [])
    head = "".join(f"<th>{_html.escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{_html.escape(str(r.get(c, '')))}</td>" for c in cols)
                   + "</tr>" for r in rows)
    cap = f"<caption>{_html.escape(caption)}</caption>" if caption else ""
    return HTML(f'<div class="book-table"><table class="table">{cap}<thead><tr>{head}</tr>'
                f"</thead><tbody>{body}</tbody></table></div>")
