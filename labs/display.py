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


class Note:
    """A sentence or paragraph of Markdown that a chapter shows only in some runs (e.g. a
    caution about how a recorded run was taken): displayed as Markdown in Jupyter and on
    the site, as its own text in a plain terminal."""

    def __init__(self, text: str):
        if not isinstance(text, str):
            raise ValueError(f"text must be Markdown text, not {type(text).__name__}")
        self.text = text

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/markdown": self.text, "text/plain": self.text}

    def __repr__(self) -> str:
        return self.text


def note(text: str) -> Note | None:
    """``text`` as a Markdown note, or None when it is empty or blank, so that a cell
    ending in ``note("")`` shows nothing. IPython's ``Markdown("")`` instead left an empty
    Markdown output, which the site printed as its repr, ``<IPython.core.display.Markdown
    object>``."""
    if not isinstance(text, str):
        raise ValueError(f"text must be Markdown text, not {type(text).__name__}")
    return Note(text) if text.strip() else None
