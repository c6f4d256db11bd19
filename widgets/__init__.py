"""Interactive views over perfmodel, each rendered live (ipywidgets + plotly FigureWidget)
in a kernel and static (plotly's own sliders and dropdowns, steps precomputed) on the site.

Every public function returns a view object: display it (a notebook cell's last line) and
Jupyter or Colab shows the live widget while the book shows the static figure.
"""
from . import static
from .machines_figure import machines_roofline
from .roofline_explorer import roofline_explorer

__all__ = ["static", "machines_roofline", "roofline_explorer"]
