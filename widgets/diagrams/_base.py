"""The diagrams' shared machinery: a :class:`Diagram` is a widgets ``View`` whose picture
is plotly shapes and annotations (fixed by its dropdowns) and whose moving parts are
traces (restyled by its one step slider), with a caption and a description a screen
reader reads.

Shapes and annotations carry a ``name`` (``"sm"``, ``"lane"``, ``"sector"``, ...), so a
test can count what a diagram draws without asking how it was computed. Colours are
mid-tones at part opacity and text takes the theme's font colour, so one picture reads
on the light and the dark theme (book-plotly.js recolours fonts and axes only).
"""
from __future__ import annotations

import html as _html
import math
from typing import Iterable

from ..a11y import OFF_SCREEN  # kept off screen, read by screen readers
from ..base import FIGURE_PX, Control, Settings, View
from ..style import COLORS

#: Line colour of boxes: a grey that reads on white and on the dark theme's background.
EDGE = "rgba(128,128,128,0.85)"
#: Fills by role: on chip, off chip (DRAM/HBM), host, compute, idle, highlighted.
FILL = {"chip": "rgba(76,120,168,0.30)", "dram": "rgba(157,117,93,0.35)",
        "host": "rgba(127,127,127,0.25)", "compute": "rgba(44,160,44,0.40)",
        "idle": "rgba(158,158,158,0.18)", "hot": "rgba(228,87,86,0.55)",
        "warm": "rgba(245,133,24,0.45)", "cool": "rgba(76,120,168,0.55)"}
#: Font size (px) of a diagram's labels: the book's figures' 12 px.
FONT = 12


def size(nbytes: float) -> str:
    """Bytes in binary units as the datasheets give on-chip sizes: 256 KiB, 50 MiB,
    141 GB (DRAM, in SI units as the datasheets give it)."""
    from perfmodel import units

    if nbytes >= 2 ** 30:
        return units.si(nbytes, "B", 3)
    if nbytes >= 2 ** 20:
        return f"{units.number(nbytes / 2 ** 20)} MiB"
    if nbytes >= 2 ** 10:
        return f"{units.number(nbytes / 2 ** 10)} KiB"
    return f"{units.number(nbytes)} B"


def grid(count: int, x0: float, y0: float, x1: float, y1: float, aspect: float = 1.0):
    """``count`` cells filling the box row by row (cols chosen for square-ish cells at
    ``aspect`` = width units per height unit on screen)."""
    w, h = (x1 - x0) * aspect, y1 - y0
    ideal = max(1.0, math.sqrt(count * w / h))
    # a column count that divides count fills every row, where one is near the ideal
    exact = min((c for c in range(1, count + 1) if count % c == 0),
                key=lambda c: abs(math.log(c / ideal)), default=1)
    cols = exact if abs(math.log(exact / ideal)) < math.log(1.6) else math.ceil(ideal)
    rows = math.ceil(count / cols)
    cw, ch = (x1 - x0) / cols, (y1 - y0) / rows
    return [(x0 + (k % cols) * cw, y1 - (k // cols + 1) * ch,
             x0 + (k % cols + 1) * cw, y1 - (k // cols) * ch) for k in range(count)]


def rect(x0: float, y0: float, x1: float, y1: float, fill: str, name: str,
         line: str = EDGE, width: float = 1.0) -> dict:
    """A plotly rectangle in data coordinates, named for the tests. Its axes are plotly's
    defaults, the figure's x and y (every diagram has them: its anchor trace), so the shape
    does not spell them out: a page carries thousands of these rectangles in its steps."""
    return {"type": "rect", "x0": x0, "y0": y0, "x1": x1, "y1": y1,
            "fillcolor": fill, "line": {"color": line, "width": width}, "name": name,
            "layer": "below"}


def arrow(x0: float, y0: float, x1: float, y1: float, text: str = "", name: str = "arrow",
          size: int = FONT) -> dict:
    """An annotation drawn as an arrow from (x0, y0) to (x1, y1) with an optional label at
    the tail."""
    return {"x": x1, "y": y1, "ax": x0, "ay": y0, "xref": "x", "yref": "y", "axref": "x",
            "ayref": "y", "text": text, "showarrow": True, "arrowhead": 2, "arrowsize": 1,
            "arrowwidth": 1.4, "arrowcolor": EDGE, "font": {"size": size}, "name": name}


def label(x: float, y: float, text: str, name: str = "label", size: int = FONT,
          xanchor: str = "center", yanchor: str = "middle") -> dict:
    """A text annotation in data coordinates (theme-coloured font)."""
    return {"x": x, "y": y, "xref": "x", "yref": "y", "text": text, "showarrow": False,
            "font": {"size": size}, "xanchor": xanchor, "yanchor": yanchor, "name": name,
            "align": "left" if xanchor == "left" else "right" if xanchor == "right" else "center"}


def key(items: Iterable[tuple[str, str]], x: float, y: float, swatch: tuple[float, float],
        per_char: float, size: int = 11, wrap: float = math.inf,
        row_step: float = 0.0) -> tuple[list[dict], list[dict]]:
    """A colour key in rows starting at (x, y), in data units: for each (fill, words) a
    swatch of ``swatch`` = (width, height) in that fill, outlined, and its words after it.
    ``per_char``: x units one character of the words takes (at the narrowest column, with
    room to spare), so the next swatch starts clear of them; an item that would pass x =
    ``wrap`` starts a new row ``row_step`` further in y. Returns (shapes, annotations),
    named "key"."""
    w, h = swatch
    x0, shapes, notes = x, [], []
    for fill, words in items:
        width = 1.5 * w + per_char * len(words)
        if x > x0 and x + width > wrap:
            x, y = x0, y + row_step
        shapes.append(rect(x, y - h / 2, x + w, y + h / 2, fill, "key"))
        notes.append(label(x + 1.5 * w, y, words, name="key", size=size, xanchor="left"))
        x += width + 1.25 * w
    return shapes, notes


def rows_axis(rows: int, plot_px: float, above_px: float, below_px: float,
              most_px: float = 30.0) -> tuple[float, float, float]:
    """A y axis, top down, for ``rows`` rows of cells (row r centred at y = r) in a plot
    ``plot_px`` tall that keeps ``above_px`` for text above row 0 and ``below_px`` below
    the last row, whatever the number of rows: (px per row, at most ``most_px``; the axis's
    top; its bottom). What the rows leave spare goes below, so text placed from the rows'
    edges in px keeps its place."""
    unit = min(most_px, (plot_px - above_px - below_px) / rows)
    top = -0.5 - above_px / unit
    return unit, top, top + plot_px / unit


def _covered(lo: float, hi: float, spans: list[tuple[float, float]]) -> bool:
    """Whether the union of the intervals ``spans`` covers [lo, hi]."""
    for a, b in sorted(spans):
        if a > lo + 1e-9:
            return False
        lo = max(lo, b)
        if lo >= hi - 1e-9:
            return True
    return lo >= hi - 1e-9


def _chains(boxes: list[tuple[float, float, float, float]]) -> list[list[tuple[float, float]]]:
    """The boxes (in order) as few closed paths as can be drawn without a line that is not
    already an edge of one of them: each box is drawn from its bottom-left corner (x0, y0)
    round to it; the next box joins the path where the way from there to its own corner
    runs along edges of the boxes (the next box in a row, or the first of the row below
    a row of the grid); once no box joins, the path goes back along that way to its start
    (so it encloses nothing but the boxes) and a new path begins."""
    out: list[list[tuple[float, float]]] = []
    k = 0
    while k < len(boxes):
        x0, y0, x1, y1 = boxes[k]
        path = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
        spine = [(x0, y0)]
        while k + 1 < len(boxes):
            px0, py0, px1, py1 = boxes[k]
            nx0, ny0, nx1, ny1 = boxes[k + 1]
            if abs(ny0 - py0) < 1e-9 and abs(ny1 - py1) < 1e-9 and abs(nx0 - px1) < 1e-9:
                way = [(nx0, ny0)]          # the next box in the row: along px0..px1 at py0
            elif abs(ny1 - py0) < 1e-9 and nx0 <= px0 + 1e-9:
                # the row below: back along y = py0 to nx0, then down the box's left edge;
                # y = py0 is the bottom of this row's boxes and the top of the next row's
                edge = [(b[0], b[2]) for b in boxes if abs(b[1] - py0) < 1e-9
                        or abs(b[3] - py0) < 1e-9]
                if not _covered(nx0, px0, edge):
                    break
                way = [(nx0, py0), (nx0, ny0)]
            else:
                break
            path += way + [(nx1, ny0), (nx1, ny1), (nx0, ny1), (nx0, ny0)]
            spine += way
            k += 1
        out.append(path + spine[-2::-1])
        k += 1
    return out


def boxes_trace(boxes: Iterable[tuple[float, float, float, float]], fill: str, name: str,
                line: str = EDGE) -> dict:
    """Many rectangles (x0, y0, x1, y1) as one filled scatter trace: the diagrams' moving
    parts, which a slider step restyles. Boxes side by side in a row, and rows of a grid,
    are drawn as one path (see :func:`_chains`), gaps (None) between the paths: plotly
    draws a path element per path, and a step redraws them all (waves over 108 SMs drew
    hundreds). Lines are not simplified, so every edge stays as drawn."""
    xs: list = []
    ys: list = []
    for path in _chains(list(boxes)):
        if xs:
            xs.append(None)
            ys.append(None)
        xs += [p[0] for p in path]
        ys += [p[1] for p in path]
    return {"type": "scatter", "mode": "lines", "x": xs or [None], "y": ys or [None],
            "fill": "toself", "fillcolor": fill,
            "line": {"color": line, "width": 1, "simplify": False},
            "name": name, "hoverinfo": "skip", "showlegend": False, "xaxis": "x",
            "yaxis": "y"}


def text_trace(x: float, y: float, text: str, name: str, size: int = FONT + 1,
               position: str = "middle right") -> dict:
    """One line (or lines, with <br>) of text as a trace: a running counter a step
    slider rewrites."""
    return {"type": "scatter", "mode": "text", "x": [x], "y": [y], "text": [text],
            "textposition": position, "textfont": {"size": size}, "name": name,
            "hoverinfo": "skip", "showlegend": False, "cliponaxis": False, "xaxis": "x",
            "yaxis": "y"}


def texts_trace(xs: list, ys: list, texts: list, name: str, size: int = FONT,
                position: str = "middle center") -> dict:
    """Several labels as one text trace (labels that move with a slider)."""
    return {"type": "scatter", "mode": "text", "x": list(xs) or [None], "y": list(ys) or [None],
            "text": list(texts) or [""], "textposition": position, "textfont": {"size": size},
            "name": name, "hoverinfo": "skip", "showlegend": False, "cliponaxis": False,
            "xaxis": "x", "yaxis": "y"}


def count_boxes(trace: dict) -> int:
    """Rectangles in a :func:`boxes_trace`: runs of five points that go right, up, left
    and down back to where they began (the ways between boxes never close on
    themselves)."""
    pts = list(zip(trace["x"], trace["y"]))
    n = i = 0
    while i + 4 < len(pts):
        a, b, c, d, e = pts[i:i + 5]
        if None not in (*a, *b, *c, *d) and a == e and a[1] == b[1] and b[0] == c[0] \
                and c[1] == d[1] and d[0] == a[0] and a[0] != b[0] and b[1] != c[1]:
            n += 1
            i += 5
        else:
            i += 1
    return n


class Diagram(View):
    """A picture over perfmodel. Subclasses set ``name``, ``title``, ``caption`` and
    ``height``, the data box ``xrange`` x ``yrange`` (the picture's own coordinates) and
    implement ``picture(s)`` -> (shapes, annotations) for the dropdowns' settings,
    ``moving(s)`` -> traces for the step slider (none by default) and ``describe(s)``,
    the text a screen reader reads."""

    axis_px = 16
    right_px = 8
    legend = None
    caption = ""
    xrange = (0.0, 100.0)
    yrange = (0.0, 100.0)

    def controls(self):
        return []

    def picture(self, s: Settings) -> tuple[list[dict], list[dict]]:
        raise NotImplementedError

    def moving(self, s: Settings) -> list[dict]:
        return []

    def describe(self, s: Settings) -> str:
        raise NotImplementedError

    def machine_control(self, label: str = "GPU") -> Control:
        """The machine dropdown over ``self.menu`` (from :func:`machine_menu`)."""
        return Control("machine", label, list(self.menu), self._initial["machine"], "dropdown")

    def traces(self, s: Settings) -> list[dict]:
        # An invisible anchor keeps the axes (and so the shapes' coordinates) in place.
        anchor = {"type": "scatter", "mode": "lines", "x": list(self.xrange),
                  "y": list(self.yrange), "line": {"width": 0}, "hoverinfo": "skip",
                  "showlegend": False, "name": "frame", "xaxis": "x", "yaxis": "y"}
        return [anchor, *self.moving(s)]

    def layout(self, s: Settings) -> dict:
        shapes, notes = self.picture(s)
        hidden = {"visible": False, "fixedrange": True, "showgrid": False, "zeroline": False}
        return {"xaxis": {**hidden, "range": list(self.xrange), "domain": [0, 1]},
                "yaxis": {**hidden, "range": list(self.yrange), "domain": [0, 1]},
                "shapes": shapes, "annotations": notes, "hovermode": False,
                "margin": {"l": 8, "r": self.right_px, "t": self._geometry()["top"],
                           "b": self._geometry()["bottom"]}}

    def full_layout(self, s: Settings) -> dict:
        lay = super().full_layout(s)
        lay["margin"] = self.layout(s)["margin"]
        return lay

    def plot_px(self) -> float:
        return FIGURE_PX - 8 - self.right_px

    def aspect(self) -> float:
        """Screen pixels of one x unit over those of one y unit (in the book's column), so
        a grid of cells can be drawn square."""
        return (self.plot_px() / (self.xrange[1] - self.xrange[0])) / \
            (self.height / (self.yrange[1] - self.yrange[0]))

    # --- the text alternative ----------------------------------------------------------
    def alt_text(self) -> tuple[str, str]:
        """(caption, description) at the initial settings."""
        return self.caption, self.describe(self.initial())

    def static_html(self, fig=None) -> str:
        """The figure wrapped in a <figure>: a visible caption, and a description that
        screen readers read (aria-describedby) and sighted readers need not. The figure
        keeps its own role, figure (axe-core 4.14: role="group" is not allowed on it)."""
        body = super().static_html(fig)
        cap, desc = self.alt_text()
        uid = f"{self.name}-desc-{id(self):x}"
        # Inline styles too: a notebook page has none of the site's book.css.
        return (f'<figure class="book-diagram" aria-label="{_html.escape(cap)}" '
                f'aria-describedby="{uid}" style="margin:0 0 1rem 0">{body}'
                f'<figcaption class="book-diagram-caption" style="font-size:0.9em">'
                f'{_html.escape(cap)}</figcaption>'
                f'<p class="book-diagram-desc" id="{uid}" style="{OFF_SCREEN}">'
                f'{_html.escape(desc)}</p></figure>')

    def live(self):
        live = super().live()
        if not getattr(live, "_captioned", False):
            import ipywidgets as W

            cap, desc = self.alt_text()
            live.box.children = (*live.box.children,
                                 W.HTML(f"<p><em>{_html.escape(cap)}</em><br>"
                                        f"{_html.escape(desc)}</p>"))
            live._captioned = True
        return live


class RowsDiagram(Diagram):
    """A diagram of rows of cells, top down (one row per warp, per instruction issued),
    with text above and below them kept at fixed heights in px whatever the number of
    rows: subclasses set ``around_px`` = (px above row 0, px below the last row) and
    implement ``row_count(s)``; ``axis(s)`` gives (px per row, top, bottom)."""

    around_px: tuple[float, float] = (20.0, 40.0)

    def row_count(self, s: Settings) -> int:
        raise NotImplementedError

    def axis(self, s: Settings) -> tuple[float, float, float]:
        return rows_axis(self.row_count(s), self.height, *self.around_px)

    def layout(self, s: Settings) -> dict:
        lay = super().layout(s)
        _unit, top, bottom = self.axis(s)
        lay["yaxis"]["range"] = [bottom, top]
        return lay


def machine_menu(machine, need: tuple[str, ...] = ("sms", "fp32_lanes_per_sm")):
    """(menu, name) of the machines that have every fact in ``need`` (Machine attributes
    or hardware keys), and the name of ``machine`` among them; a machine that lacks one
    -> ValueError naming what it lacks."""
    from perfmodel import machines

    def has(m, key):
        return bool(getattr(m, key, 0)) if hasattr(m, key) else key in m.extra

    m = machines.get(machine)
    missing = [k for k in need if not has(m, k)]
    if missing:
        raise ValueError(f"machine {m.name} has no {', '.join(missing)} on record; "
                         f"pick one of {', '.join(x.name for x in machines.all_machines() if all(has(x, k) for k in need))}")
    menu = {x.name: x for x in machines.all_machines() if all(has(x, k) for k in need)}
    menu.setdefault(m.name, m)
    return menu, m.name


__all__ = ["machine_menu", "grid", "Diagram", "RowsDiagram", "rect", "arrow", "label", "key", "rows_axis", "boxes_trace", "text_trace", "texts_trace", "count_boxes",
           "size", "FILL", "EDGE", "FONT", "COLORS"]
