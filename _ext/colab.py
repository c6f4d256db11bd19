"""Sphinx extension: "Open in Colab" on every chapter page, pointing at its .ipynb twin.

sphinx-book-theme's own Colab button links the page's source file, and Colab cannot open
a ``.md`` page, so the theme's button stays off (``launch_buttons: colab_url: ""``) and
this extension adds, on each ``chapters/<name>`` page,

- a badge under the page title, and
- a button in the header bar,

both opening ``notebooks/<name>.ipynb`` (made by ``scripts/make_notebooks.py``) on the
repository and branch set in ``_config.yml`` (``repository: url/branch/path_to_book``,
which Jupyter Book passes on as the theme's ``repository_url``, ``repository_branch``
and ``path_to_docs``). The badge is inline SVG and the button's logo a file of the site's
own ``_static``: no page fetches anything from outside the site.
"""
from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)
CHAPTERS = "chapters/"
COLAB = "https://colab.research.google.com/github"
_GITHUB = re.compile(r"^(?:https?://|git@)(?:www\.)?github\.com[/:](?P<owner>[^/]+)/"
                     r"(?P<repo>[^/]+?)(?:\.git)?/?$")

BADGE_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="117" height="20" viewBox="0 0 117 20" '
    'role="img" aria-label="Open in Colab"><title>Open in Colab</title>'
    '<rect width="117" height="20" rx="3" fill="#555"/>'
    '<rect x="67" width="50" height="20" rx="3" fill="#e8710a"/>'
    '<rect x="67" width="6" height="20" fill="#e8710a"/>'
    '<path d="M9.6 6.2a3.8 3.8 0 1 0 0 7.6" fill="none" stroke="#f9ab00" stroke-width="2.4"/>'
    '<path d="M13.4 13.8a3.8 3.8 0 1 0 0-7.6" fill="none" stroke="#f9ab00" stroke-width="2.4"/>'
    '<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">'
    '<text x="22" y="14">Open in</text><text x="74" y="14">Colab</text></g></svg>'
)


def colab_url(repository_url: str, branch: str, path_to_book: str, name: str) -> str:
    """The Colab address of ``notebooks/<name>.ipynb`` on that GitHub repository/branch."""
    m = _GITHUB.match(repository_url.strip())
    if not m:
        raise ValueError(f"repository url {repository_url!r} is not a GitHub repository; "
                         "Colab opens notebooks from GitHub only")
    prefix = f"{path_to_book.strip('/')}/" if path_to_book.strip("/") else ""
    return (f"{COLAB}/{m['owner']}/{m['repo']}/blob/{branch or 'main'}/"
            f"{prefix}notebooks/{name}.ipynb")


def _page_url(app: Sphinx, docname: str) -> str | None:
    if not docname.startswith(CHAPTERS):
        return None
    opts = app.config.html_theme_options or {}
    url = opts.get("repository_url", "")
    if not url:
        return None
    try:
        return colab_url(url, opts.get("repository_branch", "main"),
                         opts.get("path_to_docs", ""), docname[len(CHAPTERS):])
    except ValueError as e:
        LOGGER.warning(str(e), type="colab", subtype="repository")
        return None


def badge_html(url: str) -> str:
    return (f'<p class="colab-badge-line"><a class="colab-badge" href="{url}" target="_blank" '
            f'rel="noopener" title="Open this chapter as a notebook in Google Colab">'
            f"{BADGE_SVG}</a></p>")


def _add_badge(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    url = _page_url(app, docname)
    if not url:
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None or not section.children or not isinstance(section[0], nodes.title):
        return
    section.insert(1, nodes.raw("", badge_html(url), format="html"))


def _add_button(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                doctree) -> None:
    url = _page_url(app, pagename)
    buttons = context.get("header_buttons")
    if url and isinstance(buttons, list):
        buttons.insert(0, {"type": "link", "url": url, "text": "Colab",
                           "tooltip": "Open this chapter in Colab",
                           "icon": "_static/colab-logo.svg", "label": "colab-launch-button"})


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-resolved", _add_badge)
    # After sphinx-book-theme fills the header buttons (priority 501).
    app.connect("html-page-context", _add_button, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
