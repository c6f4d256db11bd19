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

The stand-in also carries the book's slider-step engine (``plotly_step.js``, which the
site uses too): a kernel update that only moves trace values is drawn as a lean step,
not plotly's whole-figure ``Plotly.update``; anything else is plotly's own.
"""
from __future__ import annotations

import functools
import hashlib
import json
import pathlib

#: The slider-step engine, shared with the site (book-plotly-step.js there).
STEP_JS = pathlib.Path(__file__).with_name("plotly_step.js")

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

// The book's slider-step engine (widgets/plotly_step.js; window.bookPlotlyStep).
__BOOK_STEP__

// Plotly's module reads the model through the one object its initialize is given, and
// each view listens to it as it renders. This model, handed to initialize, gives a
// listener to its kernel updates that a view registers while it renders (viewEl() is
// that view's element, the figure) to the book's step engine first: an update that
// moves trace values (no layout) is drawn lean, without plotly's whole-figure replot
// (and without the trace defaults plotly's view then sends back to the kernel, which
// nothing here reads); anything else goes to plotly's listener.
function stepping(model, viewEl) {
  const engine = globalThis.bookPlotlyStep;
  const empty = o => !o || Object.keys(o).length === 0;
  const on = (name, cb, ...rest) => {
    const el = viewEl();
    if (name !== 'change:_py2js_update' || !engine || !el) return model.on(name, cb, ...rest);
    return model.on(name, (...args) => {
      const msg = model.get('_py2js_update');
      const whole = () => cb(...args);
      if (msg && empty(msg.layout_data) &&
          engine.liveUpdate(el, msg.style_data, msg.style_traces, whole)) return;
      whole();
    }, ...rest);
  };
  return new Proxy(model, {
    get(target, prop) {
      if (prop === 'on') return on;
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

export default function bookFigure() {
  let widget = null;  // a promise of plotly's {initialize, render} for this model
  let rendering = null;  // the element of the view plotly is rendering now
  const render = (w, ctx) => {
    rendering = ctx.el;
    try { return w.render(ctx); } finally { rendering = null; }
  };
  return {
    initialize(ctx) {
      // Not awaited: anywidget allows a model 2 s to set up.
      widget = plotlyWidget(ctx.model).then(mod => {
        const w = mod.default();
        w.initialize({...ctx, model: stepping(ctx.model, () => rendering)});
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
          cleanup = render(ready, ctx);
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
          cleanup = render(w, ctx);
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
    return _STUB_JS.replace("__BOOK_KEY__", json.dumps(key)).replace("__BOOK_STEP__", step_js())


def step_js() -> str:
    """The slider-step engine's source (widgets/plotly_step.js), shared with the site."""
    return STEP_JS.read_text(encoding="utf-8")


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
        # No mode bar: its buttons would be a dozen Tab stops before the next control
        # (issue 26); zoom stays a drag, reset a double click.
        self._config = {**(self._config or {}), "displayModeBar": False}
        if stub:
            self._book_source = _source_model(source).model_id
            # plotly.js resizes the figure when asked to (_STUB_JS)
            self._config = {**self._config, "responsive": True}
        self._book_built = True
        self.open()

    def open(self):
        """Open the comm once the figure is built (see the module's docstring)."""
        if getattr(self, "_book_built", True):
            super(cls, self).open()

    def _send_update_msg(self, restyle_data, relayout_data, trace_indexes=None,
                         source_view_id=None):
        """Plotly's update message, with every trace's value of every key it restyles:
        a batch sends only the values that changed (a hole, Undefined, where a trace's
        value stayed), and the front end draws a step lean only when it arrives whole."""
        from plotly.basedatatypes import Undefined

        from .static import flatten

        idx = self._normalize_trace_indexes(trace_indexes)
        # The values each trace was given ("marker.color" keys), not plotly's trace[key],
        # which gives the front end's default where a trace has none.
        given = {j: flatten(self._data[j]) for j in idx}
        whole = {k: [given[j].get(k) if v is Undefined else v for v, j in zip(vals, idx)]
                 for k, vals in (restyle_data or {}).items()}
        return super(cls, self)._send_update_msg(whole, relayout_data, trace_indexes,
                                                 source_view_id)

    doc = ("plotly's FigureWidget, loaded once per page and drawn once shown "
           "(widgets/livefigure.py).")
    cls = type("BookFigureWidget", (go.FigureWidget,),
               {**attrs, "__init__": __init__, "open": open, "__doc__": doc,
                "_send_update_msg": _send_update_msg,
                "__module__": __name__})
    return cls
