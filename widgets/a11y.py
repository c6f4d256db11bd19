"""Text alternatives of the site's figures, computed from the figure at build time.

Every figure on the site (``widgets.static.to_html``) is wrapped in a ``role="figure"``
element with

- an accessible name (the figure's title, or what its axes show) and a short description
  (what kind of plot, of what against what, which traces, which controls), read by
  ``aria-labelledby`` / ``aria-describedby`` from text kept off screen;
- a polite live region (``aria-live="polite"``) that ``_static/book-figure-keys.js``
  fills with the words of a slider step or dropdown entry (the words a view computed
  from the model for that step: :func:`step_words`, kept in ``layout.meta``);
- a ``<details>`` "Data table" with the numbers of the figure's traces at the settings
  it opens with.

Nothing here draws; the functions take the figure as the plain JSON dict (data,
layout) that ``widgets.static.figure_json`` returns.
"""
from __future__ import annotations

import html as _html
import math
import re
from typing import Any

from perfmodel._check import show

#: Kept off screen but read by screen readers (inline: a notebook page has no book.css).
OFF_SCREEN = ("position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;"
              "clip:rect(0,0,0,0);white-space:nowrap;border:0")
#: Most rows a trace gives the data table (a longer trace shows evenly spaced points).
MAX_ROWS = 24
#: What a plotly trace type is called in a description.
KINDS = {"scatter": "line and point plot", "bar": "bar chart", "heatmap": "heat map",
         "table": "table", "histogram": "histogram"}


def plain(text: Any) -> str:
    """Figure text (plotly's little HTML: <br>, <b>, <sup>) as one line of plain text."""
    if text is None:
        return ""
    if not isinstance(text, str):
        text = str(text)
    text = re.sub(r"<br\s*/?>", ", ", text, flags=re.I)
    text = _html.unescape(re.sub(r"<[^>]+>", "", text))
    return re.sub(r"\s+", " ", text).strip(" ,")


def _mapping(name: str, value: Any) -> dict:
    """value, if it is a dict (a plotly figure, layout or trace as JSON); else TypeError."""
    if not isinstance(value, dict):
        raise TypeError(f"{name} must be a dict (plotly JSON), got {show(value)}")
    return value


def _text(name: str, value: Any, *, optional: bool = False) -> str | None:
    """value, if it is a str (or None where optional); else TypeError naming it."""
    if (value is None and optional) or isinstance(value, str):
        return value
    raise TypeError(f"{name} must be {'None or ' if optional else ''}text, got {show(value)}")


def _title(obj: Any) -> str:
    """The text of a plotly title (a string or {"text": ...})."""
    if isinstance(obj, dict):
        obj = obj.get("text")
    return plain(obj)


def number(value: Any) -> str:
    """A number as a reader reads it: 4 significant digits, an SI prefix beyond a
    million or below a millionth (no e-notation; a ratio of 1/1024 reads 0.0009766, not
    976.6 µ); text as it is; a gap as "none"."""
    from perfmodel import units

    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "none"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return plain(value)
    if value == 0 or 1e-6 <= abs(value) < 1e6:
        return units.number(value, 4)
    return units.si(value, "", 4).strip()


def ordinal(n: int) -> str:
    """An ordinal in digits: 2nd, 3rd, 4th, 11th, 21st."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a whole number from 1, got {show(n)}")
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def axis_titles(layout: dict) -> tuple[str, str]:
    """(x title, y title) of the figure's first axes ("" where there is none)."""
    _mapping("layout", layout)
    return (_title((layout.get("xaxis") or {}).get("title")),
            _title((layout.get("yaxis") or {}).get("title")))


def trace_axis_titles(layout: dict, trace: dict) -> tuple[str, str]:
    """(x title, y title) of the axes ``trace`` is drawn on: its ``xaxis`` "x2" is the
    layout's ``xaxis2`` ("" where that axis has no title: a second panel's numbers are not
    labelled with the first panel's titles)."""
    _mapping("layout", layout)
    out = []
    for key, default in (("xaxis", "x"), ("yaxis", "y")):
        ref = trace.get(key) if isinstance(trace.get(key), str) else default
        axis = layout.get(key + ref[1:]) if ref.startswith(default) else None
        out.append(_title((axis or {}).get("title")))
    return out[0], out[1]


def _shown(trace: dict) -> bool:
    """Whether a trace carries data a reader reads (diagram frames and decorations, drawn
    with hoverinfo "skip" and no legend entry, carry none)."""
    return not (trace.get("hoverinfo") == "skip" and trace.get("showlegend") is False) \
        and trace.get("visible", True) is not False


def figure_name(spec: dict) -> str:
    """The figure's accessible name: its title, else what its axes show, else "Figure"."""
    _mapping("spec", spec)
    layout = spec.get("layout") or {}
    name = _title(layout.get("title"))
    if name:
        return name
    x, y = axis_titles(layout)
    return f"{y} against {x}" if x and y else (x or y or "Figure")


def _controls(layout: dict) -> list[str]:
    """The figure's controls in words: 'slider "tile T"', 'menu "machine: T4"'."""
    out = []
    for menu in layout.get("updatemenus") or []:
        buttons = menu.get("buttons") or []
        active = menu.get("active", 0) or 0
        if buttons:
            label = plain(buttons[min(active, len(buttons) - 1)].get("label"))
            out.append(f'a menu ("{label}", {len(buttons)} choices)')
    for sl in layout.get("sliders") or []:
        prefix = plain((sl.get("currentvalue") or {}).get("prefix")).rstrip(": ")
        out.append(f'a slider "{prefix or sl.get("name", "")}" of {len(sl.get("steps") or [])} steps')
    return out


def figure_description(spec: dict) -> str:
    """A short description of what the figure shows, from its traces and layout."""
    _mapping("spec", spec)
    data, layout = spec.get("data") or [], spec.get("layout") or {}
    shown = [t for t in data if _shown(t)]
    kinds = sorted({KINDS.get(t.get("type", "scatter"), t.get("type", "plot")) for t in shown})
    x, y = axis_titles(layout)
    parts = []
    what = " and ".join(kinds) if kinds else "diagram"
    axes = f" of {y} against {x}" if x and y else ""
    logs = [a for a, key in (("x", "xaxis"), ("y", "yaxis"))
            if (layout.get(key) or {}).get("type") == "log"]
    scale = f" ({' and '.join(logs)} on a log scale)" if logs and axes else ""
    parts.append(f"A {what}{axes}{scale}.")
    names = [plain(t.get("name")) for t in shown if plain(t.get("name"))]
    if names:
        parts.append("It shows " + "; ".join(dict.fromkeys(names)) + ".")
    controls = _controls(layout)
    if controls:
        parts.append("Controls: " + ", ".join(controls) + ".")
    if shown:
        parts.append("The data table under it lists the numbers.")
    return " ".join(parts)


def _table_x(trace: dict) -> Any:
    """The x values a reader is told of: the trace's x, or, for a trace drawn at scaled or
    index positions, the values it names instead (meta table_x "customdata": coalescing's
    byte addresses and strides)."""
    meta = trace.get("meta") if isinstance(trace.get("meta"), dict) else {}
    if meta.get("table_x") == "customdata" and isinstance(trace.get("customdata"), list):
        return trace["customdata"]
    return trace.get("x")


def _columns(trace: dict, x_title: str, y_title: str) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of one trace's numbers."""
    kind = trace.get("type", "scatter")
    if kind == "table":
        head = [plain(h) for h in ((trace.get("header") or {}).get("values") or [])]
        cols = (trace.get("cells") or {}).get("values") or []
        rows = [list(r) for r in zip(*cols)] if cols else []
        return head, [[number(v) for v in r] for r in rows]
    if "z" in trace and isinstance(trace.get("z"), list):
        xs, ys, z = trace.get("x"), trace.get("y"), trace["z"]
        width = max((len(r) for r in z if isinstance(r, list)), default=0)
        xs = xs if isinstance(xs, list) and len(xs) == width else list(range(width))
        ys = ys if isinstance(ys, list) and len(ys) == len(z) else list(range(len(z)))
        head = [y_title or "y", *[f"{x_title or 'x'} {number(v)}" for v in xs]]
        return head, [[number(yv), *[number(c) for c in (row or [])]] for yv, row in zip(ys, z)]
    xs, ys = _table_x(trace), trace.get("y")
    xs = xs if isinstance(xs, list) else []
    ys = ys if isinstance(ys, list) else []
    texts = trace.get("text") if isinstance(trace.get("text"), list) else None
    n = max(len(xs), len(ys))
    head = [x_title or "x", y_title or "y"] + (["label"] if texts else [])
    rows = []
    for i in range(n):
        row = [number(xs[i] if i < len(xs) else None), number(ys[i] if i < len(ys) else None)]
        if texts:
            row.append(plain(texts[i]) if i < len(texts) else "")
        if not (xs[i:i + 1] == [None] and ys[i:i + 1] == [None]):   # a line's gap
            rows.append(row)
    return head, rows


def data_table(spec: dict) -> str:
    """The <details> "Data table" of a figure at the settings it opens with: one table per
    trace that carries data (at most MAX_ROWS evenly spaced rows each, and the caption says
    so); "" where no trace does (a diagram, whose description says what it shows). On the
    site, _static/book-figure-keys.js writes the same tables again from the traces after
    each step, by the same rules."""
    _mapping("spec", spec)
    data, layout = spec.get("data") or [], spec.get("layout") or {}
    tables = []
    for k, trace in enumerate(data):
        if not _shown(trace):
            continue
        head, rows = _columns(trace, *trace_axis_titles(layout, trace))
        if not rows:
            continue
        name = plain(trace.get("name")) or f"trace {k + 1}"
        cap = name
        if len(rows) > MAX_ROWS:
            every = math.ceil(len(rows) / MAX_ROWS)
            cap += f" (every {ordinal(every)} of {len(rows)} points)" if every > 1 else ""
            rows = rows[::every]
        th = "".join(f'<th scope="col">{_html.escape(h)}</th>' for h in head)
        body = "".join("<tr>" + "".join(f"<td>{_html.escape(c)}</td>" for c in r) + "</tr>"
                       for r in rows)
        tables.append(f'<table class="table"><caption>{_html.escape(cap)}</caption>'
                      f"<thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>")
    if not tables:
        return ""
    return ('<details class="book-figure-data"><summary>Data table</summary>'
            '<p>The figure\'s numbers at the settings it shows: each step of a slider or '
            'choice from a menu writes them again.</p>'
            + "".join(tables) + "</details>")


def wrap(fid: str, inner: str, spec: dict, name: str | None = None,
         description: str | None = None) -> str:
    """The figure's markup ``inner`` (plot div and JSON) inside its text alternatives:
    name, description, live region and data table (see the module docstring)."""
    _text("fid", fid)
    _text("inner", inner)
    _mapping("spec", spec)
    _text("name", name, optional=True)
    _text("description", description, optional=True)
    name = plain(name) or figure_name(spec)
    description = plain(description) or figure_description(spec)
    fid = _html.escape(fid)
    return (f'<div class="book-figure" id="{fid}" role="figure" aria-labelledby="{fid}-name" '
            f'aria-describedby="{fid}-desc">'
            f'<p id="{fid}-name" class="book-figure-name" style="{OFF_SCREEN}">'
            f'{_html.escape(name)}</p>'
            f'<p id="{fid}-desc" class="book-figure-desc" style="{OFF_SCREEN}">'
            f'{_html.escape(description)}</p>'
            f'{inner}'
            f'<p class="book-figure-status" aria-live="polite" aria-atomic="true" '
            f'style="{OFF_SCREEN}"></p>'
            f'{data_table(spec)}</div>')


def step_words(label: str, value_text: str, traces: list[dict], moved: list[int],
               layout: dict) -> str:
    """The result of a slider step in words, from the traces the model computed for it:
    'tile T: 64: matmul 4096, tiled at 16 and 9.7 T; ...'. ``moved``: the indices of the
    traces the step moves."""
    _mapping("layout", layout)
    if not isinstance(traces, list) or not all(isinstance(t, dict) for t in traces):
        raise TypeError(f"traces must be a list of plotly traces (dicts), got {show(traces)}")
    if not isinstance(moved, list) or not all(
            isinstance(j, int) and not isinstance(j, bool) and 0 <= j < len(traces) for j in moved):
        raise ValueError(f"moved must list indices into traces (0 to {len(traces) - 1}), "
                         f"got {show(moved)}")
    said = []
    for j in moved:
        t = traces[j]
        x_title, y_title = trace_axis_titles(layout, t)
        if not _shown(t):
            if isinstance(t.get("meta"), dict) and t["meta"].get("role") == "axis labels":
                continue      # an axis's tick labels drawn as text: the axis, not a result
            texts = t.get("text") if isinstance(t.get("text"), list) else []
            words = [plain(s) for s in texts if plain(s)]
            if words:
                said.append("; ".join(words))
            continue
        name = plain(t.get("name"))
        if not name:          # an unnamed trace (a tick mark, a frame) says nothing
            continue
        tx = _table_x(t)
        xs = [v for v in tx if v is not None] if isinstance(tx, list) else []
        ys = [v for v in (t.get("y") or []) if v is not None] if isinstance(t.get("y"), list) else []
        if len(ys) == 1 or (ys and len(set(map(str, xs))) == 1):
            x = f"{x_title or 'x'} {number(xs[0])}, " if xs else ""
            said.append(f"{name}: {x}{y_title or 'y'} {', '.join(number(v) for v in ys)}")
        elif ys and all(isinstance(v, (int, float)) for v in ys):
            said.append(f"{name}: {y_title or 'y'} from {number(min(ys))} to {number(max(ys))}")
        else:
            said.append(name)
    head = f"{plain(label)} {plain(value_text)}"
    return f"{head}: {'; '.join(said)}" if said else head


#: Where a step's words split into the parts word_table stores once (and the page joins
#: again with one space): after a comma, semicolon or colon and its space.
PART_BREAK = re.compile(r"(?<=[,;:]) ")


def word_table(words: dict[str, list[list[str]]]) -> dict:
    """The words of every step, for the page: ``words`` maps a choice of the dropdowns
    (their entries' labels, one a line) to each slider's steps' words. The steps repeat
    parts ("memory-bound;", "intensity 0.0833 FLOP/byte,") across choices, so each part
    is stored once: {"parts": [...], "steps": {choice: [[[part index, ...] per step] per
    slider]}}; joining a step's parts with single spaces gives its words back exactly."""
    if not isinstance(words, dict):
        raise TypeError(f"words must map a choice of the dropdowns to words, got {show(words)}")
    for choice, sliders in words.items():
        if not (isinstance(choice, str) and isinstance(sliders, list) and all(
                isinstance(sl, list) and all(isinstance(w, str) for w in sl) for sl in sliders)):
            raise TypeError(f"words must map each choice (text) to a list of sliders' lists of "
                            f"words, got {show(choice)}: {show(sliders)}")
    parts: dict[str, int] = {}
    steps = {}
    for choice, sliders in words.items():
        steps[choice] = [[[parts.setdefault(p, len(parts)) for p in PART_BREAK.split(w)]
                          for w in slider] for slider in sliders]
    return {"parts": list(parts), "steps": steps}


def _index(name: str, value: Any, size: int) -> int:
    """value, if it is an index into a list of ``size``; else ValueError naming it."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < size:
        raise ValueError(f"{name} must be an index from 0 to {size - 1}, got {show(value)}")
    return value


def words_of(table: dict, choice: str, slider: int, step: int) -> str:
    """A step's words back from a :func:`word_table` (what book-figure-keys.js does)."""
    _mapping("table", table)
    if set(table) != {"parts", "steps"}:
        raise ValueError(f"table must be what word_table returns (parts and steps), got {show(table)}")
    if not isinstance(choice, str) or choice not in table["steps"]:
        raise ValueError(f"choice {show(choice)} is not one of the table's {list(table['steps'])}")
    sliders = table["steps"][choice]
    steps = sliders[_index("slider", slider, len(sliders))]
    return " ".join(table["parts"][i] for i in steps[_index("step", step, len(steps))])
