"""Sphinx extension: serve plotly.js from the site itself and keep figures in the theme.

The book's static figures are HTML divs drawn with ``include_plotlyjs=False``; this
extension copies the plotly.js that the installed plotly package ships into the site's
``_static`` folder and loads it on the pages that hold a figure (it is 4.6 MB; a page of
prose does not pay for it); ``book-plotly.js`` draws the figures and re-colours them
when the reader switches between light and dark theme.
No page loads anything from outside the site.
"""
from __future__ import annotations

import filecmp
import os
import shutil

import plotly

PLOTLY_JS = os.path.join(os.path.dirname(plotly.__file__), "package_data", "plotly.min.js")
#: The slider-step engine (book-plotly.js steps the figures' sliders with it).
STEP_JS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "widgets",
                       "plotly_step.js")


def _copy_if_changed(src: str, dest: str) -> None:
    if not os.path.exists(dest) or not filecmp.cmp(src, dest, shallow=False):
        shutil.copyfile(src, dest)


def _add_plotly_static(app, config) -> None:
    """Put plotly.min.js and the slider-step engine (STEP_JS, shared with the live
    widgets' front end) in a build-side folder and add it to html_static_path."""
    folder = os.path.join(os.path.dirname(os.path.abspath(app.doctreedir)), "plotly-static")
    os.makedirs(folder, exist_ok=True)
    _copy_if_changed(PLOTLY_JS, os.path.join(folder, "plotly.min.js"))
    _copy_if_changed(STEP_JS, os.path.join(folder, "book-plotly-step.js"))
    config.html_static_path = list(config.html_static_path) + [folder]


def _drop_script_unless(context, script: str, marker: str) -> None:
    """Drop ``script`` from the page's scripts when its body does not contain ``marker``."""
    scripts = context.get("script_files")
    if scripts is None or marker in context.get("body", ""):
        return
    context["script_files"] = [
        js for js in scripts
        if not str(getattr(js, "filename", js) or "").split("?")[0].endswith(script)]


def _plotly_only_where_needed(app, pagename, templatename, context, doctree) -> None:
    """Drop plotly.min.js and the step engine from a page whose body holds no book figure."""
    _drop_script_unless(context, "plotly.min.js", 'class="book-figure"')
    _drop_script_unless(context, "book-plotly-step.js", 'class="book-figure"')


def _webgpu_only_where_needed(app, pagename, templatename, context, doctree) -> None:
    """Drop book-webgpu.js (the "Measure this device" harness) from a page without it."""
    _drop_script_unless(context, "book-webgpu.js", 'class="book-webgpu"')


#: The site's index.html: a redirect to the book's first page (what Jupyter Book writes
#: when the build wrote none), with the site's icon, so that no browser asks the server
#: for a /favicon.ico it does not have (a 404 in the console of a reader who opens the
#: site's root), a title, and a link for a reader whose browser does not follow it.
REDIRECT_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Refresh" content="0; url={target}">
<link rel="icon" href="{icon}">
<title>{title}</title>
</head>
<body><p><a href="{target}">{title}</a></p></body>
</html>
"""


def _write_index_redirect(app, exception) -> None:
    """Write _build/html/index.html (REDIRECT_PAGE) where the book's first page is not
    index itself; Jupyter Book then leaves the file as it is."""
    if exception is not None or app.builder.format != "html" or app.config.root_doc == "index":
        return
    from html import escape

    icon = app.config.html_favicon
    page = REDIRECT_PAGE.format(
        target=escape(app.builder.get_target_uri(app.config.root_doc)),
        icon=escape("_static/" + os.path.basename(icon)) if icon else "data:,",
        title=escape(app.config.html_title or app.config.project))
    with open(os.path.join(app.outdir, "index.html"), "w", encoding="utf-8") as f:
        f.write(page)


def setup(app):
    # The notebooks this build executes inherit the environment: the book's widgets then
    # emit only their static figure and create no ipywidget, so no notebook holds widget
    # state and no page loads a widget manager (see widgets/base.py).
    os.environ["GPU_BOOK_WIDGETS"] = "static"
    app.add_js_file("plotly.min.js", priority=400)
    app.add_js_file("book-plotly-step.js", priority=450)   # before book-plotly.js (500)
    # book-plotly.js and book.css sit in the book's _static folder, which Jupyter Book
    # loads on every page by itself.
    app.connect("config-inited", _add_plotly_static)
    app.connect("html-page-context", _plotly_only_where_needed)
    app.connect("html-page-context", _webgpu_only_where_needed)
    app.connect("build-finished", _write_index_redirect)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
