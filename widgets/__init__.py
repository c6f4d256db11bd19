"""Interactive views over perfmodel, each rendered live (ipywidgets + plotly FigureWidget)
in a kernel and static (plotly's own sliders and dropdowns, steps precomputed) on the site.
"""
from . import static
from .machines_figure import machines_roofline

__all__ = ["static", "machines_roofline"]
