"""How a lab shows itself in a chapter: a one-line note, its plot against the model
(static HTML on the site, plotly in Jupyter) and its readout table (labs/readouts.py)."""
from __future__ import annotations

import html
import importlib


class LabView:
    """Display object for one lab: results[0] is the run shown, the rest references."""

    def __init__(self, name: str, results: list[dict], note: str):
        self.name, self.results, self.note = name, results, note

    def figure(self):
        """The lab's plot of the runs (the lab module's own ``plot``; this module imports
        the lab, not the ``labs`` package, which imports this one)."""
        return importlib.import_module(f"{__package__}.{self.name}").plot(self.results)

    def summary_html(self) -> str:
        """The readers' table of the runs (:func:`labs.readouts.table_html`): plain names
        with units, the model beside each measurement, one sentence on what to look at."""
        from .readouts import table_html

        return table_html(self.name, self.results)

    def _repr_mimebundle_(self, include=None, exclude=None):
        from widgets.static import figure_html

        body = (f"<p class='book-lab-note'><em>{html.escape(self.note)}</em></p>"
                + figure_html(self.figure(), name=f"lab-{self.name}") + self.summary_html())
        return {"text/html": body, "text/plain": self.note}
