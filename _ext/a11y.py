"""Sphinx extension: the bibliography as a list assistive technology can read.

sphinxcontrib-bibtex's entries are docutils citations; the HTML writer puts them in
``<div role="list" class="citation-list">`` and gives each ``role="doc-biblioentry"``, a
DPUB-ARIA role that ARIA 1.2 deprecates and that is not a list item. A screen reader then
finds a list without items (axe-core: aria-required-children, critical; aria-deprecated-role
and aria-allowed-role on every entry). Each entry becomes a ``listitem``; nothing else in the
page changes. The theme's header buttons are fixed in ``_templates/``, the scrollable tables
in ``_static/book-a11y.js``; appendix/accessibility.md says what the site offers.
"""
from __future__ import annotations

import re

#: The opening tag of one bibliography entry as docutils writes it (Sphinx 7, docutils 0.21).
_ENTRY = re.compile(r'(<div class="citation"[^>]*?) role="doc-biblioentry"')


def citations_as_list_items(html: str) -> str:
    """``html`` with every citation entry's role ``doc-biblioentry`` made ``listitem``."""
    if not isinstance(html, str):
        raise TypeError(f"html must be text, got {type(html).__name__}")
    return _ENTRY.sub(r'\1 role="listitem"', html)


def _fix_page(app, pagename, templatename, context, doctree) -> None:
    body = context.get("body")
    if isinstance(body, str) and "doc-biblioentry" in body:
        context["body"] = citations_as_list_items(body)


def setup(app):
    app.connect("html-page-context", _fix_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
