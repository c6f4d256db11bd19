"""The live views' plotly FigureWidget: loaded once per page, drawn once shown.

With plotly >= 6 ``FigureWidget`` is an anywidget whose front-end module (about 5 MB,
plotly.js inside) is sent and evaluated for every figure, and whose ``render`` draws at
once. In JupyterLab 4 on a small machine that went wrong three ways:

- the view is rendered before JupyterLab attaches its element to the document, so
  plotly.js measures nothing: the figure takes its default width (700 px, whatever the
  output's) and a table loses every string that contains a space (its text wrapping
  measures each word at zero width); nothing redraws it until a later update happens to;
- anywidget gives a model 2 s to load its module; with a dozen figures displayed at once
  each evaluating 5 MB of JavaScript, the later ones missed it ("[anywidget] Failed to
  initialize model.") and never drew;
- plotly opens the widget's comm in the middle of its constructor and sends the figure's
  data and layout after it, so a view rendered in between drew an empty figure.

:func:`figure_class` returns a subclass whose module is a small stand-in: it carries
plotly's module as a string, evaluates it once per page (shared by every figure) without
holding up anywidget's model set-up, and renders plotly's view only once the element is
in the document and has a width (a ``ResizeObserver``); later width changes resize the
figure through plotly.js's responsive handler. The comm opens only when the figure is
built, with its data and layout in the first state. Messages, events and the model are
plotly's own.

With plotly 5 (Colab's 5.24 with ipywidgets 7.7) ``FigureWidget`` is the ipywidgets
``jupyterlab-plotly`` widget, whose view draws after it is attached; only the late comm
opening applies there.
"""
from __future__ import annotations

import functools
import hashlib
import json

#: The stand-in module. __BOOK_KEY__: where the page keeps its one evaluation of plotly's
#: module (a hash of its source). The source itself is the "value" of one model per kernel
#: (``_book_source`` holds its id), so it crosses the websocket once, not once a figure.
_STUB_JS = r"""
const KEY = __BOOK_KEY__;

async function plotlyWidget(model) {
  // plotly's module, evaluated once per page whatever the number of figures.
  if (!globalThis[KEY]) {
    globalThis[KEY] = (async () => {
      const holder = await model.widget_manager.get_model(model.get('_book_source'));
      const url = URL.createObjectURL(
        new Blob([holder.get('value')], {type: 'text/javascript'}));
      return import(url);
    })();
  }
  return globalThis[KEY];
}

export default function bookFigure() {
  let widget = null;  // a promise of plotly's {initialize, render} for this model
  return {
    initialize(ctx) {
      // Not awaited: anywidget allows a model 2 s to set up.
      widget = plotlyWidget(ctx.model).then(mod => {
        const w = mod.default();
        w.initialize(ctx);
        return w;
      });
      widget.catch(e => console.error('plotly FigureWidget failed to load', e));
    },
    render(ctx) {
      const el = ctx.el;
      let cleanup = null, stopped = false, width = 0, observer = null, ready = null;
      const shownWidth = () => (el.isConnected ? el.getBoundingClientRect().width : 0);
      const check = () => {
        if (stopped || ready === null) return;
        const w = shownWidth();
        if (w <= 0) return;
        if (cleanup === null) {
          width = w;
          cleanup = ready.render(ctx);
        } else if (Math.abs(w - width) >= 1) {
          width = w;
          if (typeof el._responsiveChartHandler === 'function') el._responsiveChartHandler();
        }
      };
      widget.then(w => {
        ready = w;
        if (stopped) return;
        if (typeof ResizeObserver === 'function') {
          observer = new ResizeObserver(check);
          observer.observe(el);
          check();
        } else {
          cleanup = w.render(ctx);
        }
      });
      return () => {
        stopped = true;
        if (observer) observer.disconnect();
        if (typeof cleanup === 'function') cleanup();
      };
    },
  };
}
"""


def stub_esm(source: str) -> str:
    """The stand-in module for plotly's front-end module ``source``."""
    if not isinstance(source, str):
        raise TypeError(f"source must be plotly's front-end module as a string; got "
                        f"{type(source).__name__}")
    key = "__bookPlotlyWidget_" + hashlib.sha256(source.encode()).hexdigest()[:16]
    return _STUB_JS.replace("__BOOK_KEY__", json.dumps(key))


@functools.cache
def _source_model(source: str):
    """The model (no view) that carries plotly's module to the page, one per kernel."""
    import ipywidgets
    import traitlets

    class PlotlyModule(ipywidgets.Widget):
        value = traitlets.Unicode().tag(sync=True)

    return PlotlyModule(value=source)


@functools.cache
def figure_class():
    """The FigureWidget class for the live views (see the module's docstring)."""
    import plotly.graph_objects as go
    import traitlets

    esm = getattr(go.FigureWidget, "_esm", None)
    # plotly >= 6: anywidget, its module anywidget's FileContents (str() is the text).
    source = str(esm) if esm is not None else None
    attrs = {} if source is None else {
        "_esm": stub_esm(source),
        "_book_source": traitlets.Unicode("").tag(sync=True)}
    stub = source is not None

    def __init__(self, *args, **kwargs):
        self._book_built = False
        super(cls, self).__init__(*args, **kwargs)
        if stub:
            self._book_source = _source_model(source).model_id
            # plotly.js resizes the figure when asked to (_STUB_JS)
            self._config = {**(self._config or {}), "responsive": True}
        self._book_built = True
        self.open()

    def open(self):
        """Open the comm once the figure is built (see the module's docstring)."""
        if getattr(self, "_book_built", True):
            super(cls, self).open()

    doc = ("plotly's FigureWidget, loaded once per page and drawn once shown "
           "(widgets/livefigure.py).")
    cls = type("BookFigureWidget", (go.FigureWidget,),
               {**attrs, "__init__": __init__, "open": open, "__doc__": doc,
                "__module__": __name__})
    return cls
