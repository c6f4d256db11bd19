"""One object, two renderings: what _repr_mimebundle_ returns in each mode, and that the
book's mode creates no ipywidget (so an executed notebook holds no widget state)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import widgets
from widgets import base

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def test_static_mode_gives_html_and_no_widget(monkeypatch):
    monkeypatch.setenv(base.MODE_ENV, "static")
    import warnings

    from ipywidgets import Widget

    def count() -> int:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return len(Widget._active_widgets)

    before = count()
    for name in widgets.WIDGETS:
        bundle = getattr(widgets, name)()._repr_mimebundle_()
        assert bundle["text/html"].startswith('<div class="book-figure"')
        assert WIDGET_VIEW not in bundle
    assert count() == before


def test_live_mode_gives_widget_view_and_the_static_figure(monkeypatch):
    monkeypatch.setenv(base.MODE_ENV, "live")
    w = widgets.littles_law()
    bundle, metadata = w._repr_mimebundle_()
    assert WIDGET_VIEW in bundle and bundle[WIDGET_VIEW]["model_id"] == w.live().box.model_id
    # Outside the book the fallback figure draws itself (plotly.js from its CDN).
    assert bundle["text/html"].startswith('<div class="book-figure-nb"')
    assert metadata == {}  # not in Colab: no Colab tag


def test_in_colab_a_widget_tags_itself_for_colabs_manager(monkeypatch):
    """Returned as a cell's last expression, a widget is an execute_result, which Colab's
    display hook never tags; the view must carry the tag itself (tests/colab/stub is a
    stand-in for google.colab that records the manager's URL as Colab's does)."""
    import pathlib

    stub = str(pathlib.Path(__file__).parent / "colab" / "stub")
    monkeypatch.syspath_prepend(stub)
    for name in [m for m in sys.modules if m == "google" or m.startswith("google.")]:
        monkeypatch.delitem(sys.modules, name)
    import IPython

    class Pub:
        hooks: list = []

        def register_hook(self, hook):
            self.hooks.append(hook)

    shell = type("Shell", (), {"display_pub": Pub()})()
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    try:
        import google.colab  # noqa: F401  (the stand-in)

        monkeypatch.setenv(base.MODE_ENV, "live")
        _, metadata = widgets.amdahl_gustafson()._repr_mimebundle_()
    finally:  # the stand-in must not outlive this test
        for name in [m for m in sys.modules if m == "google" or m.startswith("google.")]:
            del sys.modules[name]
    url = metadata[WIDGET_VIEW]["colab"]["custom_widget_manager"]["url"]
    assert url.startswith("https://") and url.endswith("manager.min.js")
    assert len(Pub.hooks) == 1  # the manager was switched on once, as Colab's would be


def test_static_figure_json_has_no_typed_arrays():
    spec = json.dumps(widgets.static.figure_json(widgets.divergence().static_figure()))
    assert '"bdata"' not in spec


@pytest.mark.parametrize("mode, has_state", [("static", False), ("live", True)])
def test_executed_notebook_widget_state(tmp_path, mode, has_state):
    """Executed as the book executes it (nbclient), a notebook keeps widget state only when
    the widgets are live; the book runs them static (_ext/bookstatic.py sets the mode)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import widgets\nwidgets.amdahl_gustafson()")]
    env_before = os.environ.get(base.MODE_ENV)
    os.environ[base.MODE_ENV] = mode
    try:
        NotebookClient(nb, timeout=120, kernel_name="python3",
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
    finally:
        if env_before is None:
            os.environ.pop(base.MODE_ENV, None)
        else:
            os.environ[base.MODE_ENV] = env_before
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    assert bool(state.get("state")) == has_state
    data = nb.cells[0].outputs[0]["data"]
    assert "text/html" in data and (WIDGET_VIEW in data) == has_state
    site_div = data["text/html"].startswith('<div class="book-figure"')
    assert site_div == (mode == "static")  # the book's div only in the book build


def test_the_book_build_sets_static_mode():
    code = textwrap.dedent("""
        import os, sys
        sys.path.insert(0, "_ext")
        import bookstatic
        class App:
            def add_js_file(self, *a, **k): pass
            def connect(self, *a, **k): pass
        bookstatic.setup(App())
        print(os.environ["GPU_BOOK_WIDGETS"])
    """)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                         env={k: v for k, v in os.environ.items() if k != base.MODE_ENV})
    assert out.stdout.strip() == "static", out.stderr
