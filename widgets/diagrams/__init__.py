"""Diagrams: the machine and the algorithms drawn from the model (a view layer beside
the widgets; perfmodel never draws). Each function takes model objects (a machine, a
stride, a tile) and returns a view that shows a static figure on the site and a live one
in Jupyter, with a caption and a screen-reader description (see _base.py)."""
from .chips import peak_product, sm_anatomy, transistor_bets

#: Every diagram, in the order of the gallery: (function name, chapter).
DIAGRAMS = [("transistor_bets", 1), ("sm_anatomy", 6), ("peak_product", 9)]

__all__ = [name for name, _ in DIAGRAMS]
