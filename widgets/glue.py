"""``glue`` for the chapters: myst-nb's in the book build, quiet everywhere else.

The book pastes numbers computed in a chapter's hidden cells into its text with myst-nb's
``glue``. Each call leaves an output that only the book build reads; in JupyterLab those
pile up (about a hundred a chapter) behind an empty "show more outputs" button, and in
Colab myst-nb is not even installed. The Colab twins carry the numbers pasted in their
text already, so outside the book build a call records nothing, and shows its value only
when asked to (``display=True``), as myst-nb would.
"""
from __future__ import annotations

from typing import Any

from .static import in_book_build


def glue(name: str, variable: Any, display: bool = True) -> None:
    """Record ``variable`` under ``name`` for the book's text (the book build only); show it
    when ``display`` is true."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string; got {name!r}")
    if in_book_build():
        from myst_nb import glue as myst_glue

        myst_glue(name, variable, display=display)
    elif display:
        from IPython.display import display as show

        show(variable)
