"""One view, two renderings: the base every book widget is built on.

A widget is a :class:`View`: a list of :class:`Control` objects (dropdowns and sliders
over discrete values) and a function ``traces(settings)`` that asks perfmodel for the
figure's traces at one setting of every control. From that one definition come

- **live** (:class:`Live`): ipywidgets controls above a plotly ``FigureWidget``; every
  control change calls ``traces`` again and moves the traces;
- **static** (:meth:`View.static_figure`): a plain plotly figure whose own dropdowns
  (``updatemenus``) and ``sliders`` carry the traces precomputed for each step.

The static figure has one rule that keeps its size linear in the number of steps:
each trace depends on at most one slider (plus the dropdowns). A dropdown entry carries
the whole figure for its choice and resets the sliders; a slider step restyles only the
traces that its slider moves. ``static_figure`` checks the rule and raises if a view
breaks it.

``_repr_mimebundle_`` returns the static figure as ``text/html`` (what the book shows)
and, when ipywidgets can run, the live view (what Jupyter and Colab show). In the book
build (``GPU_BOOK_WIDGETS=static``, set by ``_ext/bookstatic.py``) no ipywidget is
created at all, so the executed notebooks hold no widget state and the pages load no
widget manager.
"""
from __future__ import annotations

import itertools
import math
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from . import a11y, static
from .static import flatten  # noqa: F401  (widgets.base.flatten, as before)

Settings = dict[str, Any]

#: Environment variable that picks the rendering: "static", "live" or "auto" (default:
#: live when ipywidgets and anywidget import, else static).
MODE_ENV = static.MODE_ENV

#: Pixel geometry of the static figure's controls: the title, a row of dropdowns, the x
#: axis (ticks and title) under the plot, a row of sliders.
TITLE_PX, MENU_PX, AXIS_PX, SLIDER_PX = 46, 38, 60, 52
#: Height (px) of one entry of an open dropdown's list (plotly draws them 35 px apart at
#: the figures' 12 px font): the figure is made tall enough for the whole list to open
#: inside it, or the entries below its edge are clipped and cannot be clicked.
MENU_ITEM_PX = 36

#: Width (px) of the column a figure is drawn in (the site's content at a 1280 px window),
#: from which the dropdowns are set side by side; and from how many sliders they sit in
#: two columns (so a control and what it moves fit a 1366 x 768 laptop screen together).
FIGURE_PX, TWO_COLUMNS_FROM = 688, 2
#: Left margin (px): room for tick labels with their unit ("100 GFLOP/s") and a title.
LEFT_PX = 96

#: Significant digits of the numbers in a static figure (the tests compare to 1e-5).
DIGITS = 6

_counter = itertools.count()


@dataclass
class Control:
    """One control: ``name`` is the keyword argument it sets, ``label`` what the reader
    reads, ``options`` the allowed values (a list, or a function of the settings of the
    dropdowns before it), ``value`` the initial value, ``kind`` "slider" or "dropdown",
    ``fmt`` turns a value into its label."""

    name: str
    label: str
    options: Sequence | Callable[[Settings], Sequence]
    value: Any
    kind: str = "slider"
    fmt: Callable[[Any], str] = str

    def choices(self, settings: Settings) -> list:
        """The allowed values given the other settings."""
        opts = self.options(settings) if callable(self.options) else self.options
        return list(opts)

    def start(self, settings: Settings) -> Any:
        """The initial value, or the middle choice where the initial one is not allowed."""
        opts = self.choices(settings)
        return self.value if self.value in opts else opts[len(opts) // 2]

    def text(self, value: Any) -> str:
        return f"{self.label}: {self.fmt(value)}"


def check_choice(name: str, value: Any, options: Sequence, fmt: Callable[[Any], str] = str) -> Any:
    """Return value if it is one of options, else raise ValueError naming the argument."""
    if not isinstance(name, str):
        raise TypeError(f"name must be the argument's name (text), got {name!r}"[:200])
    if isinstance(options, (str, bytes)) or not hasattr(options, "__iter__"):
        raise TypeError(f"options must be a list of the accepted values, got {options!r}"[:200])
    if not callable(fmt):
        raise TypeError(f"fmt must be a function formatting an option, got {fmt!r}"[:200])
    if value in list(options):
        return value
    shown = ", ".join(fmt(o) for o in options)
    raise ValueError(f"{name} must be one of {shown}; got {value!r}")


def gpu_menu(machine: Any, extra: Sequence = ()) -> tuple[dict, str]:
    """The GPUs of perfmodel plus ``extra`` Machine objects (and ``machine`` itself when it
    is one), by name; and the name of ``machine`` among them (case-insensitive), or a
    ValueError naming the argument and the known names."""
    from perfmodel.machines import Machine, all_machines

    if isinstance(extra, (str, bytes)) or not hasattr(extra, "__iter__"):
        raise TypeError(f"machines (extra) must be a list of Machine objects, got {extra!r}"[:200])
    for m in extra:
        if not isinstance(m, Machine):
            raise ValueError(f"machines must be a list of perfmodel Machine objects; "
                             f"got {type(m).__name__}")
    menu = {m.name: m for m in all_machines() if m.kind == "gpu"}
    menu.update({m.name: m for m in extra})
    if isinstance(machine, Machine):
        menu.setdefault(machine.name, machine)
        machine = machine.name
    name = next((k for k in menu if isinstance(machine, str) and k.lower() == machine.lower()),
                None)
    if name is None:
        raise ValueError(f"machine must be one of {', '.join(menu)}; got {machine!r}")
    return menu, name


def with_value(options: Sequence, value: Any, name: str, low: float = 0.0,
               high: float = math.inf, integer: bool = False) -> list:
    """Slider options with ``value`` added (sorted) when it is a number in [low, high]
    (an integer when ``integer``) that the list lacks; otherwise ValueError naming the
    argument."""
    if not isinstance(name, str):
        raise TypeError(f"name must be the argument's name (text), got {name!r}"[:200])
    if isinstance(options, (str, bytes)) or not hasattr(options, "__iter__"):
        raise TypeError(f"options must be a list of slider values, got {options!r}"[:200])
    kind = "an integer" if integer else "a number"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not (low <= value <= high) or (isinstance(value, float) and math.isnan(value)) or \
            (integer and value != int(value)):
        raise ValueError(f"{name} must be {kind} in [{low:g}, {high:g}]; got {value!r}")
    opts = list(options)
    return opts if value in opts else sorted(opts + [value])


def check_int(name: str, value: Any, low: int, high: int) -> int:
    """Return value if it is an integer in [low, high], else raise ValueError."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be the argument's name (text), got {name!r}"[:200])
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}]; got {value!r}")
    return value


def _plain(obj):
    return static._plain(obj)


class View:
    """Base class of the book's widgets: subclasses set ``name`` and ``height`` and
    implement ``controls``, ``traces`` and ``layout``."""

    name = "widget"
    height = 420          # height of the plotting area in pixels
    legend: dict | None = None   # where the legend sits inside the plot (None: no legend)
    right_px = 16        # right margin (room for a legend beside the plot)
    axis_px = AXIS_PX    # room under the plot for its x axis (a table alone needs little)
    title = ""

    def __init__(self, **settings):
        self._initial = settings

    # --- what a widget defines -------------------------------------------------------
    def controls(self) -> list[Control]:
        raise NotImplementedError

    def traces(self, s: Settings) -> list[dict]:
        """The figure's traces (plotly dicts) at settings ``s``; same number and types of
        traces for every setting."""
        raise NotImplementedError

    def layout(self, s: Settings) -> dict:
        """Axes and annotations; may depend on the dropdowns' settings only."""
        return {}

    # --- settings ---------------------------------------------------------------------
    def _controls(self) -> list[Control]:
        if not hasattr(self, "_cache_controls"):
            self._cache_controls = self.controls()
        return self._cache_controls

    def menus(self) -> list[Control]:
        return [c for c in self._controls() if c.kind == "dropdown"]

    def sliders(self) -> list[Control]:
        return [c for c in self._controls() if c.kind == "slider"]

    def settle(self, s: Settings) -> Settings:
        """Settings completed and made valid in control order: each control keeps its value
        when allowed, else takes its start value."""
        out = dict(s)
        for c in self._controls():
            if c.name not in out or out[c.name] not in c.choices(out):
                out[c.name] = c.start(out)
        return out

    def initial(self) -> Settings:
        return self.settle({c.name: c.value for c in self._controls()})

    # --- the static rendering --------------------------------------------------------
    def _menu_rows(self) -> list[int]:
        """The row of each dropdown: side by side while they fit the column's width."""
        rows, row, used = [], 0, 0.0
        for c in self.menus():
            s = self.initial()
            w = max(len(c.text(v)) for v in c.choices(s)) * 7.2 + 44
            if used and used + w > FIGURE_PX - 24:
                row, used = row + 1, 0.0
            rows.append(row)
            used += w + 10
        return rows

    def _slider_columns(self) -> int:
        return 2 if len(self.sliders()) >= TWO_COLUMNS_FROM else 1

    def _geometry(self) -> dict:
        """The figure's heights in px (title and menus, plot, axis and sliders below);
        fixed by the view's controls, so computed once (a live step asked for it again,
        every choice of every dropdown with it: a third of online softmax's step)."""
        if "_geometry_px" not in self.__dict__:
            self._geometry_px = self._compute_geometry()
        return dict(self._geometry_px)

    def _compute_geometry(self) -> dict:
        menu_rows = (max(self._menu_rows()) + 1) if self.menus() else 0
        slider_rows = -(-len(self.sliders()) // self._slider_columns())
        top = TITLE_PX + MENU_PX * menu_rows
        bottom = self.axis_px + SLIDER_PX * slider_rows
        # The lowest edge of any dropdown's open list: its header's row, then one entry
        # per choice (the most any earlier choice gives it). Room for it is added below
        # the plot, so the plot keeps its size (some views draw at a true aspect).
        opened = max((TITLE_PX + MENU_PX * (row + 1) + MENU_ITEM_PX * self._most_choices(c) + 8
                      for c, row in zip(self.menus(), self._menu_rows())), default=0)
        bottom = max(bottom, opened - top - self.height)
        return {"top": top, "bottom": bottom, "plot": self.height,
                "total": self.height + top + bottom}

    def _most_choices(self, c: Control) -> int:
        """The most entries dropdown ``c`` offers under any choice of the dropdowns."""
        return max(len(c.choices(s)) for s in self._combos())

    def place_controls(self, fig) -> None:
        """Set the static figure's dropdowns side by side and its sliders in two columns
        from TWO_COLUMNS_FROM sliders on (in place; in every dropdown entry's sliders too),
        within the room ``_geometry`` leaves for them."""
        g = self._geometry()
        cols = self._slider_columns()
        gap = 0.06 if cols == 2 else 0.0
        width = (1.0 - gap * (cols - 1)) / cols

        def place(sliders):
            for i, sl in enumerate(sliders):
                row, col = divmod(i, cols)
                sl["x"], sl["len"] = col * (width + gap), width
                sl["y"] = -(self.axis_px + SLIDER_PX * row) / g["plot"]
                sl["pad"] = {**(sl.get("pad") or {}), "t": 8}

        def walk(layout_upd):
            if isinstance(layout_upd, dict):
                for k, v in layout_upd.items():
                    if k == "sliders" and isinstance(v, list):
                        place(v)
                    elif k.endswith(".buttons") and isinstance(v, list):
                        for b in v:
                            walk(b["args"][1] if len(b.get("args", [])) > 1 else None)

        lay = fig.layout
        sliders = [sl.to_plotly_json() for sl in lay.sliders]
        place(sliders)
        rows = self._menu_rows()
        menus = [m.to_plotly_json() for m in lay.updatemenus]
        x_px = {}
        for level, m in enumerate(menus):
            row = rows[level]
            c = self.menus()[level]
            w = max(len(c.text(v)) for v in c.choices(self.initial())) * 7.2 + 44
            x = x_px.get(row, 0.0)
            m["x"] = x / self.plot_px()
            m["y"] = 1 + (g["top"] - TITLE_PX - MENU_PX * row) / g["plot"]
            x_px[row] = x + w + 10
            for b in m.get("buttons", []):
                walk(b["args"][1] if len(b.get("args", [])) > 1 else None)
        fig.update_layout(sliders=sliders, updatemenus=menus)

    def full_layout(self, s: Settings) -> dict:
        """The view's layout with title, margins and height for the static controls."""
        g = self._geometry()
        lay = {"title": {"text": self.title_for(s), "x": 0.0, "xanchor": "left",
                         "y": 1.0, "yanchor": "top", "yref": "container", "pad": {"t": 10, "l": 8},
                         "font": {"size": 15}},
               "height": g["total"],
               "margin": {"t": g["top"], "b": g["bottom"], "l": LEFT_PX, "r": self.right_px},
               "hoverlabel": {"namelength": -1}, "font": {"size": 12},
               "showlegend": bool(self.legend)}
        if self.legend:
            lay["legend"] = {"font": {"size": 10}, "borderwidth": 0, "tracegroupgap": 2,
                             **self.legend}
        lay.update(self.layout(s))
        return lay

    def title_for(self, s: Settings) -> str:
        return self.title

    def plot_px(self) -> float:
        """Width of the plotting area (px) in the book's column."""
        return FIGURE_PX - LEFT_PX - self.right_px

    def _slider(self, c: Control, i: int, s: Settings, base: list[dict]
                ) -> tuple[dict, set, set]:
        """One plotly slider for control c at dropdown settings s: each step restyles the
        traces that differ from ``base`` somewhere along the slider."""
        values = c.choices(s)
        states = [self.traces(self.settle({**s, c.name: v})) for v in values]
        flat_base = [flatten(t) for t in base]
        moved: dict[int, set] = {}
        for tr in states:
            for j, t in enumerate(tr):
                ft = flatten(t)
                keys = {k for k in set(ft) | set(flat_base[j]) if ft.get(k) != flat_base[j].get(k)}
                if keys:
                    moved.setdefault(j, set()).update(keys)
        idx = sorted(moved)
        keys = sorted(set().union(*moved.values())) if moved else []
        steps = []
        lay = self.layout(s)
        words = [self.step_words(c, self.settle({**s, c.name: v}), tr, idx, lay)
                 for v, tr in zip(values, states)]
        for v, tr in zip(values, states):
            upd = {k: [_plain(flatten(tr[j]).get(k)) for j in idx] for k in keys}
            steps.append({"label": c.fmt(v), "method": "restyle", "args": [upd, idx],
                          "value": str(values.index(v))})
        g = self._geometry()
        y = -(AXIS_PX + SLIDER_PX * i) / g["plot"]
        slider = {"name": c.name, "active": values.index(s[c.name]), "steps": steps,
                  "currentvalue": {"prefix": c.label + ": ", "xanchor": "left",
                                   "font": {"size": 13}, "offset": 4},
                  "x": 0.0, "len": 1.0, "xanchor": "left", "y": y, "yanchor": "top",
                  "pad": {"t": 12, "b": 0, "l": 0, "r": 0}, "ticklen": 3, "minorticklen": 0,
                  "font": {"size": 1}, "transition": {"duration": 0}}
        return slider, set(idx), set(keys), words

    def step_words(self, c: Control, s: Settings, traces: list[dict], moved: list[int],
                   layout: dict) -> str:
        """What a step of slider ``c`` to settings ``s`` shows, in words (a screen reader
        reads it from the figure's live region): by default the moved traces' values
        from ``traces`` (the model's, at ``s``); a view may say it better."""
        return a11y.step_words(c.label, c.fmt(s[c.name]), traces, moved, layout)

    def _state(self, s: Settings) -> tuple[list[dict], list[dict], dict, set]:
        """(traces, sliders, layout, moved keys) of the static figure at dropdown
        settings s; cached per choice of the dropdowns."""
        s = self.settle(s)
        key = tuple(s[c.name] for c in self.menus())
        cache = self.__dict__.setdefault("_states", {})
        if key not in cache:
            base = self.traces(s)
            sliders, owner, moved, words = [], {}, set(), []
            for i, c in enumerate(self.sliders()):
                sl, idx, keys, said = self._slider(c, i, s, base)
                words.append(said)
                for j in idx:
                    if j in owner:
                        raise RuntimeError(f"{self.name}: trace {j} moves with both the "
                                           f"{owner[j]!r} and {c.name!r} sliders")
                    owner[j] = c.name
                sliders.append(sl)
                moved |= keys
            self.__dict__.setdefault("_words", {})[key] = words
            cache[key] = (base, sliders, self.full_layout(s), moved)
        return cache[key]

    def _combos(self, level: int = 0, s: Settings | None = None) -> list[Settings]:
        """Every choice of the dropdowns (later ones at each earlier one's options)."""
        s = self.settle(s or {})
        if level == len(self.menus()):
            return [s]
        c = self.menus()[level]
        before = {d.name: s[d.name] for d in self.menus()[:level]}
        return [x for v in c.choices(s)
                for x in self._combos(level + 1, {**before, c.name: v})]

    def _varying(self) -> list[str]:
        """Trace keys a dropdown entry must set: those that differ between the dropdowns'
        choices or that a slider moves (the rest never change, so entries omit them)."""
        if "_varying_keys" not in self.__dict__:
            states = [self._state(s) for s in self._combos()]
            flat = [[flatten(t) for t in st[0]] for st in states]
            keys = set().union(*(st[3] for st in states))
            for j in range(len(flat[0])):
                for k in set().union(*(set(f[j]) for f in flat)) - {"type"}:
                    if any(f[j].get(k) != flat[0][j].get(k) for f in flat):
                        keys.add(k)
            self._varying_keys = sorted(keys)
        return self._varying_keys

    def _menu(self, level: int, s: Settings) -> list[dict]:
        """The entries of dropdown ``level`` given the choices of the dropdowns before it."""
        c = self.menus()[level]
        before = {d.name: s[d.name] for d in self.menus()[:level]}
        return [self._button(level, {**before, c.name: v}) for v in c.choices(s)]

    def _button(self, level: int, prefix: Settings) -> dict:
        """A dropdown entry: the figure for its choice (later dropdowns and every slider
        at their start values), and the entries of the later dropdowns."""
        c = self.menus()[level]
        s = self.settle(prefix)
        data, sliders, lay, _ = self._state(s)
        layout_upd = {k: v for k, v in flatten(lay).items() if k != "height"}
        layout_upd["sliders"] = sliders
        for deeper in range(level + 1, len(self.menus())):
            d = self.menus()[deeper]
            layout_upd[f"updatemenus[{deeper}].buttons"] = self._menu(deeper, s)
            layout_upd[f"updatemenus[{deeper}].active"] = d.choices(s).index(s[d.name])
        data_upd = {k: [_plain(flatten(t).get(k)) for t in data] for k in self._varying()}
        return {"label": c.text(s[c.name]), "method": "update",
                "args": [data_upd, _plain(layout_upd)]}

    def step_words_table(self) -> dict:
        """Every slider step's words (:meth:`step_words`) for every choice of the
        dropdowns, as book-figure-keys.js reads them (widgets/a11y.py: word_table)."""
        words = {}
        for s in self._combos():
            self._state(s)
            key = "\n".join(c.text(s[c.name]) for c in self.menus())
            words[key] = self._words[tuple(s[c.name] for c in self.menus())]
        return a11y.word_table(words)

    def static_figure(self):
        """The static plotly figure: dropdowns and sliders with precomputed steps (and
        their words in layout.meta, which plotly keeps and draws nothing from)."""
        import plotly.graph_objects as go

        s = self.initial()
        data, sliders, lay, _ = self._state(s)
        if sliders:
            lay = {**lay, "meta": {"book_words": self.step_words_table()}}
        menus = []
        g = self._geometry()
        for level, c in enumerate(self.menus()):
            y = 1 + (g["top"] - TITLE_PX - MENU_PX * level) / g["plot"]
            menus.append({"buttons": self._menu(level, s),
                          "active": c.choices(s).index(s[c.name]), "type": "dropdown",
                          "direction": "down", "x": 0.0, "xanchor": "left", "y": y,
                          "yanchor": "top", "pad": {"t": 0, "b": 0, "l": 0, "r": 0},
                          "showactive": True, "font": {"size": 12}})
        fig = go.Figure()
        fig.update_layout(lay)
        fig_dict = {"data": data, "layout": {**fig.to_plotly_json()["layout"],
                                             "sliders": sliders, "updatemenus": menus}}
        return go.Figure(fig_dict, skip_invalid=False)

    def static_html(self, fig=None) -> str:
        """The static figure as HTML for where this runs (the site's div in the book
        build, the self-drawing form elsewhere), numbers to DIGITS digits."""
        fig = fig or self.static_figure()
        self.place_controls(fig)
        label, description = self.alt_text()
        return static.figure_html(fig, name=f"{self.name}-{next(_counter)}", digits=DIGITS,
                                  label=label, description=description)

    def alt_text(self) -> tuple[str, str]:
        """(name, description) of the static figure for screen readers; empty: read from
        the figure (its title, axes, traces and controls: widgets/a11y.py)."""
        return "", ""

    # --- the live rendering ----------------------------------------------------------
    def live(self) -> "Live":
        """The live view (ipywidgets + FigureWidget), built once."""
        if not hasattr(self, "_live"):
            self._live = Live(self)
        return self._live

    def _repr_mimebundle_(self, include=None, exclude=None):
        fig = self.static_figure()
        html = self.static_html(fig)
        if not live_available():
            return {"text/html": html, "application/vnd.plotly.v1+json": static.figure_json(fig),
                    "text/plain": f"<{self.name}: static figure>"}
        # Built by hand rather than asked of the box: ipywidgets 7 (Colab's) has no
        # _repr_mimebundle_, and Colab's widget manager needs the metadata on the output
        # itself when the view is a cell's last expression (an execute_result, which
        # Colab's display hook never sees).
        data = {WIDGET_MIME: {"version_major": 2, "version_minor": 0,
                              "model_id": self.live().box.model_id},
                "text/plain": f"<{self.name}: interactive widget>",
                "text/html": html}
        return data, colab_widget_metadata()


#: The mimetype of a Jupyter widget view.
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def mode() -> str:
    """The rendering mode from GPU_BOOK_WIDGETS: "static", "live" or "auto"."""
    m = os.environ.get(MODE_ENV, "auto").strip().lower()
    return m if m in ("static", "live", "auto") else "auto"


def live_available() -> bool:
    """True when the live rendering should be built (not in the book build, and
    ipywidgets + anywidget are importable)."""
    if mode() == "static":
        return False
    try:
        import anywidget  # noqa: F401  (plotly's FigureWidget needs it)
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


def colab_widget_metadata() -> dict:
    """The output metadata Colab's custom widget manager needs on a widget view (the
    manager's URL, as ``google.colab.output`` records it once enabled); {} outside Colab.
    The manager is switched on here when the setup cell has not done it yet."""
    if "google.colab" not in sys.modules:
        return {}
    try:
        from google.colab import output  # type: ignore
        from google.colab.output import _widgets  # type: ignore

        if not getattr(_widgets, "_installed_url", None):
            output.enable_custom_widget_manager()
        url = getattr(_widgets, "_installed_url", None)
    except Exception:  # noqa: BLE001  (an older or changed google.colab: no tag)
        return {}
    return {WIDGET_MIME: {"colab": {"custom_widget_manager": {"url": url}}}} if url else {}


@dataclass
class Live:
    """ipywidgets controls above a FigureWidget; ``set(name, value)`` or changing a
    control's value recomputes every trace through the view."""

    view: View
    settings: Settings = field(init=False)

    def __post_init__(self):
        if not isinstance(self.view, View):
            raise TypeError(f"view must be a widgets View (e.g. RooflineExplorer(...)), got "
                            f"{type(self.view).__name__}")
        import ipywidgets as W

        from .livefigure import figure_class

        v = self.view
        self.settings = v.initial()
        traces, lay = v.traces(self.settings), self._layout(self.settings)
        # Plain lists, not numpy arrays (which reach the front end as typed arrays): a
        # step's values arrive as lists, and the front end's lean step takes only an
        # array for an array.
        self.figure = figure_class()(data=[_snapshot(t) for t in traces], layout=lay)
        # What the figure holds, flattened ("marker.color"), as the view computed it:
        # refresh() sends only what differs from it.
        self._shown = ([_snapshot(flatten(t)) for t in traces], _snapshot(flatten(lay)))
        self.controls: dict[str, Any] = {}
        style = {"description_width": "initial"}
        for c in v._controls():
            opts = [(c.fmt(o), o) for o in c.choices(self.settings)]
            if c.kind == "dropdown":
                w = W.Dropdown(options=opts, value=self.settings[c.name], description=c.label,
                               style=style)
            else:
                w = W.SelectionSlider(options=opts, value=self.settings[c.name],
                                      description=c.label, style=style, continuous_update=True,
                                      layout=W.Layout(width="95%"))
            w.observe(self._on_change(c.name), names="value")
            self.controls[c.name] = w
        menus = [self.controls[c.name] for c in v.menus()]
        sliders = [self.controls[c.name] for c in v.sliders()]
        self.box = W.VBox([W.HBox(menus), *sliders, self.figure])
        self._busy = False

    def _on_change(self, name: str):
        def handler(change):
            if not self._busy:
                self.set(name, change["new"])
        return handler

    def set(self, name: str, value: Any) -> None:
        """Set one control (as a reader would) and redraw."""
        self.settings = self.view.settle({**self.settings, name: value})
        self._busy = True
        try:
            for c in self.view._controls():
                w = self.controls[c.name]
                opts = [(c.fmt(o), o) for o in c.choices(self.settings)]
                if list(w.options) != opts:
                    w.options = opts
                if w.value != self.settings[c.name]:
                    w.value = self.settings[c.name]
        finally:
            self._busy = False
        self.refresh()

    def _layout(self, s: Settings) -> dict:
        """The figure's layout at settings s: the static one, with room for a title and
        the axes only (the controls are ipywidgets above the figure)."""
        lay = self.view.full_layout(s)
        lay["margin"] = {**lay["margin"], "t": TITLE_PX + 10, "b": AXIS_PX + 10}
        lay["height"] = self.view.height + TITLE_PX + AXIS_PX + 20
        return lay

    def refresh(self) -> None:
        """Recompute the figure at the current settings and send the front end only the
        trace and layout properties that changed, in one message (a step that moves two
        traces restyles those two; a step that leaves the layout alone sends no
        relayout). Validating every property through plotly, as ``update`` does, took
        most of a step's time in the kernel."""
        s = self.settings
        traces = [_snapshot(flatten(t)) for t in self.view.traces(s)]
        lay = _snapshot(flatten(self._layout(s)))
        old_traces, old_lay = self._shown
        changed = [(j, _changes(old, new, skip=("type",)))
                   for j, (old, new) in enumerate(zip(old_traces, traces))]
        changed = [(j, c) for j, c in changed if c]
        lay_changed = _changes(old_lay, lay)
        if changed or lay_changed:
            with self.figure.batch_update():
                for j, c in changed:
                    trace = self.figure.data[j]
                    for k, val in c.items():
                        trace[k] = val
                for k, val in lay_changed.items():
                    self.figure.layout[k] = val
        self._shown = (traces, lay)


def _snapshot(obj):
    """A plain copy of obj to compare later: numpy arrays and tuples become lists, numpy
    scalars Python numbers."""
    if isinstance(obj, dict):
        return {k: _snapshot(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_snapshot(v) for v in obj]
    if hasattr(obj, "tolist"):  # numpy array or scalar
        return _snapshot(obj.tolist())
    return obj


def _same(a, b) -> bool:
    """a == b for snapshots, NaN equal to NaN and True not equal to 1."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _changes(old: dict, new: dict, skip: tuple = ()) -> dict:
    """The flattened properties of new that differ from old, and None for those that new
    no longer has (plotly then removes them)."""
    out = {k: v for k, v in new.items()
           if k not in skip and (k not in old or not _same(old[k], v))}
    out.update({k: None for k in old if k not in new and k not in skip})
    return out
