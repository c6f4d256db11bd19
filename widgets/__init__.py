"""Interactive views over perfmodel, each rendered live (ipywidgets + plotly FigureWidget)
in a kernel and static (plotly's own sliders and dropdowns, steps precomputed) on the site.

Every public function returns a view object: display it (a notebook cell's last line) and
Jupyter or Colab shows the live widget while the book shows the static figure
(see widgets/base.py).
"""
from . import static
from .amdahl_gustafson import amdahl_gustafson
from .coalescing import coalescing
from .comm_roofline import comm_roofline
from .divergence import divergence
from .fusion_triage import fusion_chain, triage_questions
from .intensity_calculator import intensity_calculator
from .link_roof import link_roof
from .littles_law import littles_law
from .machines_figure import machines_roofline
from .online_softmax import online_softmax
from .operation_timer import operation_timer
from .roof_moves import roof_moves
from .roofline_explorer import roofline_explorer
from .tiles_and_waves import tiles_and_waves

#: The fourteen widgets, in the order of the gallery.
WIDGETS = ["roofline_explorer", "operation_timer", "intensity_calculator", "amdahl_gustafson",
           "littles_law", "divergence", "coalescing", "tiles_and_waves", "online_softmax",
           "roof_moves", "fusion_chain", "triage_questions", "link_roof", "comm_roofline"]

__all__ = ["static", "machines_roofline", *WIDGETS]
