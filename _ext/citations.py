"""Citations that read as short references: ``{cite}`dao2022flashattention``` shows
"[Dao 2022]", the ``shorthand`` field of the entry in references.bib (an entry without one
falls back to its key). The Colab twins show the same label (scripts/colab_markdown.py
reads the same field), so a citation reads alike in the book and in a notebook.

Sphinx names this style in ``bibtex_default_style`` (_config.yml); the extension only
registers it with pybtex."""
from __future__ import annotations

from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle

STYLE = "book"


class ShorthandLabels(BaseLabelStyle):
    """Each entry's ``shorthand`` field, else its key."""

    def format_labels(self, sorted_entries):
        for entry in sorted_entries:
            yield entry.fields.get("shorthand", entry.key)


class BookStyle(UnsrtStyle):
    default_label_style = STYLE


def setup(app):
    register_plugin("pybtex.style.labels", STYLE, ShorthandLabels)
    register_plugin("pybtex.style.formatting", STYLE, BookStyle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
