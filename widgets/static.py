"""Static figures, drawn wherever a chapter runs.

Two HTML forms of one figure:

- :func:`to_html` (the book build): plotly JSON in a div that the site's own plotly.js
  draws (``_static/book-plotly.js``); no CDN, no kernel.
- :func:`notebook_html` (Colab, JupyterLab, VS Code, classic Notebook): the same div with
  a script that draws it itself, loading plotly.js from plotly's CDN (through require.js
  where the page has it, as classic Notebook does) when the page has no ``Plotly`` yet.

:func:`figure_html` picks the form for where the code runs (the book build sets
``GPU_BOOK_WIDGETS=static``, see ``_ext/bookstatic.py``). ``StaticFigure(fig)`` is what a
chapter cell returns: ``text/html`` in that form, plus plotly's own mimetype, which
JupyterLab and VS Code draw natively.
"""
from __future__ import annotations

import base64
import html as _html
import itertools
import json
import math
import os

import numpy as np

from . import a11y


def flatten(d: dict, prefix: str = "") -> dict:
    """{"marker": {"color": x}} -> {"marker.color": x} (lists stay whole)."""
    if not isinstance(d, dict) or not isinstance(prefix, str):
        raise TypeError(f"d must be a dict and prefix text, got d={d!r}, prefix={prefix!r}"[:200])
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


_ids = itertools.count()

#: Environment variable the book build sets to "static" (shared with widgets.base).
MODE_ENV = "GPU_BOOK_WIDGETS"

#: Where a notebook page without plotly.js gets it ({version}: the installed plotly's).
PLOTLY_CDN = "https://cdn.plot.ly/plotly-{version}.min"


def in_book_build() -> bool:
    """True while the book's html build executes the chapters."""
    return os.environ.get(MODE_ENV, "").strip().lower() == "static"


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
    if not hasattr(fig, "to_dict"):
        raise TypeError(f"fig must be a plotly Figure, got {type(fig).__name__}")
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


def _payload(fig, height: int | None, digits: int | None) -> tuple[str, int, dict]:
    """The figure's JSON (data, layout, config) ready to sit in a script tag, its
    height in pixels, and the plain figure it was written from."""
    spec = figure_json(fig)
    spec.setdefault("layout", {}).pop("template", None)
    spec["layout"]["autosize"] = True
    h = int(height or spec["layout"].get("height") or 420)
    spec["layout"]["height"] = h
    body = {"data": spec["data"], "layout": spec["layout"], "config": {"responsive": True}}
    payload = (compact_json(body, digits) if digits else
               json.dumps(body, separators=(",", ":"), allow_nan=False))
    return payload.replace("</", "<\\/"), h, body


def to_html(fig, height: int | None = None, name: str | None = None,
            digits: int | None = None, label: str | None = None,
            description: str | None = None) -> str:
    """HTML for one figure on the site: a div with the figure's JSON, drawn by
    book-plotly.js, with its text alternatives (widgets/a11y.py: ``label`` and
    ``description``, or ones read from the figure). ``digits`` rounds every float to
    that many significant digits (None: exact)."""
    payload, h, body = _payload(fig, height, digits)
    fid = f"book-figure-{name or next(_ids)}"
    inner = (f'<div class="book-figure-plot" style="height:{h}px"></div>'
             f'<script type="application/json">{payload}</script>')
    return a11y.wrap(fid, inner, body, label, description)


def plotly_js_version() -> str:
    """The plotly.js version the installed plotly package was built against."""
    from plotly.offline import get_plotlyjs_version

    return get_plotlyjs_version()


# Draws the figure in the div before it; loads plotly.js from the CDN when the page has
# none (through require.js where the page has it: classic Notebook). __ID__, __URL__ are
# filled in by notebook_html.
_DRAW = """(function () {
  var root = document.getElementById("__ID__");
  if (!root) { return; }
  var spec = JSON.parse(root.querySelector("script[type='application/json']").textContent);
  var plot = root.querySelector(".book-figure-plot");
  function draw(P) {
    plot.style.width = "100%";
    P.newPlot(plot, spec.data, spec.layout, spec.config);
  }
  if (window.Plotly) { draw(window.Plotly); return; }
  if (typeof window.requirejs === "function" && typeof window.define === "function") {
    window.requirejs.config({paths: {plotly: "__URL__"}});
    window.requirejs(["plotly"], function (P) { window.Plotly = window.Plotly || P; draw(P); });
    return;
  }
  var s = document.createElement("script");
  s.src = "__URL__.js";
  s.onload = function () { draw(window.Plotly); };
  s.onerror = function () {
    plot.textContent = "This figure needs plotly.js from cdn.plot.ly, which this page " +
      "could not load (no network?).";
  };
  document.head.appendChild(s);
})();"""


def notebook_html(fig, height: int | None = None, name: str | None = None,
                  digits: int | None = None) -> str:
    """HTML for one figure in a notebook (Colab, JupyterLab, VS Code, classic Notebook):
    the figure's JSON and a script that draws it, loading plotly.js from its CDN when the
    page has none."""
    payload, h, _ = _payload(fig, height, digits)
    fid = f"book-nbfigure-{name or 'fig'}-{next(_ids)}"
    script = (_DRAW.replace("__ID__", fid)
              .replace("__URL__", PLOTLY_CDN.format(version=plotly_js_version())))
    return (f'<div class="book-figure-nb" id="{_html.escape(fid)}">'
            f'<div class="book-figure-plot" style="height:{h}px;width:100%"></div>'
            f'<script type="application/json">{payload}</script>'
            f'<script type="text/javascript">{script}</script></div>')


def figure_html(fig, height: int | None = None, name: str | None = None,
                digits: int | None = None, label: str | None = None,
                description: str | None = None) -> str:
    """The figure's HTML for where this code runs: the site's div (with its text
    alternatives, ``label`` and ``description`` where given) in the book build, the
    self-drawing form anywhere else."""
    if in_book_build():
        return to_html(fig, height=height, name=name, digits=digits, label=label,
                       description=description)
    return notebook_html(fig, height=height, name=name, digits=digits)


class StaticFigure:
    """Display wrapper: text/html for the book, plotly JSON for Jupyter."""

    def __init__(self, fig, height: int | None = None, name: str | None = None):
        self.fig = fig
        self.height = height
        self.name = name

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": figure_html(self.fig, self.height, self.name),
                "application/vnd.plotly.v1+json": figure_json(self.fig)}


class HTML:
    """Plain HTML output (tables) that renders the same in Jupyter and in the book."""

    def __init__(self, markup: str):
        self.markup = markup

    def _repr_html_(self) -> str:
        return self.markup


def table(rows: list[dict], columns: list[str] | None = None, caption: str = "") -> HTML:
    """An HTML table from a list of dicts (values already formatted as strings)."""
    if not isinstance(rows, (list, tuple)) or not all(isinstance(r, dict) for r in rows):
        raise TypeError(f"rows must be a list of dicts, got {rows!r}"[:200])
    if columns is not None and (isinstance(columns, str) or not isinstance(columns, (list, tuple))
                                or not all(isinstance(c, str) for c in columns)):
        raise TypeError(f"columns must be a list of column names or None, got {columns!r}"[:200])
    if not isinstance(caption, str):
        raise TypeError(f"caption must be text, got {caption!r}"[:200])
    cols = columns or (list(rows[0]) if rows else [])
    head = "".join(f"<th>{_html.escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{_html.escape(str(r.get(c, '')))}</td>" for c in cols)
                   + "</tr>" for r in rows)
    cap = f"<caption>{_html.escape(caption)}</caption>" if caption else ""
    return HTML(f'<div class="book-table"><table class="table">{cap}<thead><tr>{head}</tr>'
                f"</thead><tbody>{body}</tbody></table></div>")
