"""The live views' plotly FigureWidget, drawn only once its output is on the page.

With plotly >= 6 ``FigureWidget`` is an anywidget whose ``render`` draws the figure at
once (``Plotly.newPlot``) into an element that JupyterLab has not attached to the
document yet. plotly.js then measures nothing: the figure takes its default width
(700 px, whatever the output's width) and a table loses every string that contains a
space (its text wrapping measures each word at zero width). Nothing redraws it until a
later update happens to relayout the figure.

:func:`figure_class` returns a subclass whose front-end module is plotly's own, with one
change: its ``render`` waits (a ``ResizeObserver`` on the view's element) until the
element is in the document and has a width, then lets plotly draw. Later width changes
(the side bar opened, the window resized) resize the figure through plotly.js's
responsive handler. Everything else (messages, events, the model) is plotly's.

With plotly 5 (Colab's 5.24 with ipywidgets 7.7) ``FigureWidget`` is the ipywidgets
``jupyterlab-plotly`` widget, whose view already draws after it is attached and follows
resizes; :func:`figure_class` returns it unchanged.
"""
from __future__ import annotations

import functools
import re

#: The end of plotly's front-end module: ``export{A as FigureModel,B as FigureView,C as
#: default};`` (minified names); the last such statement in the module.
_EXPORTS = re.compile(r"export\s*\{([^{}]*)\}\s*;?")

#: Appended to plotly's module; ``__BOOK_INNER__`` is replaced by the local name of
#: plotly's default export (a function returning {initialize, render}).
_DEFER_JS = r"""
const __bookInner = __BOOK_INNER__;
function __bookDrawWhenShown() {
  const inner = __bookInner();
  return {
    initialize(ctx) { return inner.initialize(ctx); },
    render(ctx) {
      const el = ctx.el;
      let cleanup = null, stopped = false, width = 0, observer = null;
      const shownWidth = () => (el.isConnected ? el.getBoundingClientRect().width : 0);
      const draw = () => { width = shownWidth(); cleanup = inner.render(ctx); };
      const check = () => {
        if (stopped) return;
        const w = shownWidth();
        if (w <= 0) return;
        if (cleanup === null) draw();
        else if (Math.abs(w - width) >= 1) {
          width = w;
          if (typeof el._responsiveChartHandler === 'function') el._responsiveChartHandler();
        }
      };
      if (typeof ResizeObserver === 'function') {
        observer = new ResizeObserver(check);
        observer.observe(el);
        check();
      } else {
        draw();
      }
      return () => {
        stopped = true;
        if (observer) observer.disconnect();
        if (typeof cleanup === 'function') cleanup();
      };
    },
  };
}
export default __bookDrawWhenShown;
"""


def deferred_esm(source: str) -> str | None:
    """plotly's front-end module ``source`` with its default export wrapped so that the
    figure is drawn once its element is shown; None when the module does not end in the
    export statement this expects (then plotly's module is used as it is)."""
    if not isinstance(source, str):
        raise TypeError(f"source must be the module's JavaScript text, got {type(source).__name__}")
    matches = list(_EXPORTS.finditer(source))
    if not matches:
        return None
    last = matches[-1]
    names, inner = [], None
    for part in last.group(1).split(","):
        words = part.split()
        if len(words) == 3 and words[1] == "as" and words[2] == "default":
            inner = words[0]
        elif part.strip():
            names.append(part.strip())
    if inner is None or not re.fullmatch(r"[A-Za-z_$][\w$]*", inner):
        return None
    rest = source[last.end():]
    if re.sub(r"/\*.*?\*/|//[^\n]*", "", rest, flags=re.S).strip():
        return None  # code after the exports: not the module layout this expects
    exports = f"export{{{','.join(names)}}};" if names else ""
    return (source[:last.start()] + exports + rest
            + _DEFER_JS.replace("__BOOK_INNER__", inner))


@functools.cache
def figure_class():
    """The FigureWidget class for the live views (see the module's docstring)."""
    import plotly.graph_objects as go

    esm = getattr(go.FigureWidget, "_esm", None)
    if esm is None:  # plotly 5: the ipywidgets widget draws after it is attached
        return go.FigureWidget
    source = str(esm)  # anywidget's FileContents: the file's text
    wrapped = deferred_esm(source)
    if wrapped is None:
        return go.FigureWidget

    class BookFigureWidget(go.FigureWidget):
        """plotly's FigureWidget, drawn once its output is shown (widgets/livefigure.py)."""

        _esm = wrapped

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            # plotly.js then resizes the figure when asked to (see _DEFER_JS).
            self._config = {**(self._config or {}), "responsive": True}

    return BookFigureWidget
