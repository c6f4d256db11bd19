"""The Colab setup cell (scripts/make_notebooks.py's SETUP_TEMPLATE), run here with Colab
faked: google.colab in sys.modules, subprocess.run recorded, no network, no file system
changes. Checks the exact commands it would run in Colab, and that elsewhere it does
nothing at all."""
from __future__ import annotations

import os
import pathlib
import socket
import subprocess
import sys
import types

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import make_notebooks  # noqa: E402

NVIDIA_SMI = ["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"]


class Colab:
    """A faked Colab around one run of the setup cell."""

    def __init__(self, monkeypatch, *, cloned: bool = False, gpu: str | None = "Tesla T4, 15360 MiB, 550.54.15"):
        self.calls: list[list[str]] = []
        self.chdir: list[str] = []
        self.widget_manager = 0
        self.gpu = gpu
        output = types.ModuleType("google.colab.output")
        output.enable_custom_widget_manager = self._enable
        colab = types.ModuleType("google.colab")
        colab.output = output
        google = sys.modules.get("google") or types.ModuleType("google")
        monkeypatch.setitem(sys.modules, "google", google)
        monkeypatch.setitem(sys.modules, "google.colab", colab)
        monkeypatch.setitem(sys.modules, "google.colab.output", output)
        monkeypatch.setattr(subprocess, "run", self._run)
        monkeypatch.setattr(subprocess, "Popen", _refuse)
        monkeypatch.setattr(socket.socket, "connect", _refuse)
        isdir = os.path.isdir
        monkeypatch.setattr(os.path, "isdir",
                            lambda p: cloned if str(p).startswith("/content/") else isdir(p))
        monkeypatch.setattr(os, "chdir", self.chdir.append)
        monkeypatch.setattr(sys, "path", list(sys.path))
        monkeypatch.setenv("PYTHONPATH", "/existing")

    def _enable(self) -> None:
        self.widget_manager += 1

    def _run(self, cmd, *args, **kwargs):
        self.calls.append(list(cmd))
        if cmd[0] == "nvidia-smi":
            if self.gpu is None:
                raise FileNotFoundError("nvidia-smi")
            return subprocess.CompletedProcess(cmd, 0, stdout=self.gpu + "\n", stderr="")
        return subprocess.CompletedProcess(cmd, 0, stdout="", stderr="")


def _refuse(*args, **kwargs):
    raise AssertionError("the setup cell tried to reach outside subprocess.run")


def _run_cell(source: str | None = None) -> dict:
    namespace: dict = {}
    exec(compile(source or make_notebooks.setup_cell_source(), "<setup cell>", "exec"), namespace)
    return namespace


def _config_repo() -> tuple[str, str]:
    repo = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
    return repo["url"].rstrip("/"), repo.get("branch", "main")


def test_colab_path_runs_exactly_these_commands(monkeypatch, capsys):
    colab = Colab(monkeypatch)
    namespace = _run_cell()
    url, branch = _config_repo()
    name = url.rsplit("/", 1)[-1]
    book = f"/content/{name}"
    packages = make_notebooks.colab_packages()
    assert colab.calls == [
        ["git", "clone", "--quiet", "--depth", "1", "--branch", branch, f"{url}.git", book],
        [sys.executable, "-m", "pip", "install", "--quiet", *packages],
        NVIDIA_SMI,
    ]
    assert colab.widget_manager == 1
    assert colab.chdir == [f"{book}/notebooks"]
    assert sys.path[0] == book
    assert os.environ["PYTHONPATH"] == f"{book}{os.pathsep}/existing"
    out = capsys.readouterr().out
    assert "GPU: Tesla T4, 15360 MiB, 550.54.15" in out
    assert "Restart" not in out
    assert "_book_setup" not in namespace  # leaves nothing behind in the reader's namespace


def test_colab_installs_what_colab_lacks_and_nothing_else():
    packages = make_notebooks.colab_packages()
    names = [make_notebooks._requirement_name(p) for p in packages]
    assert any(p.startswith("numba-cuda[cu12]") for p in packages)
    # torch comes with Colab; the book build and the tests are not needed there.
    for absent in ("torch", "jupyter-book", "myst-nb", "sphinx-exercise", "pytest", "hypothesis",
                   "playwright", "nbclient", "jupytext", "ipykernel", "sphinx-mathjax-offline"):
        assert absent not in names
    assert not any(p.startswith("-") or p == "." for p in packages)
    # Everything a chapter imports at run time is there, at the pinned version.
    requirements = (ROOT / "requirements.txt").read_text()
    for pin in ("plotly==", "ipywidgets==", "numba=="):
        line = next(l.strip() for l in requirements.splitlines() if l.strip().startswith(pin))
        assert line in packages
    assert "anywidget" in names  # plotly's FigureWidget draws through it


def test_colab_rerun_pulls_instead_of_cloning(monkeypatch):
    colab = Colab(monkeypatch, cloned=True)
    _run_cell()
    url, branch = _config_repo()
    book = "/content/" + url.rsplit("/", 1)[-1]
    assert colab.calls[0] == ["git", "-C", book, "pull", "--quiet", "--ff-only"]
    assert colab.calls[1][:5] == [sys.executable, "-m", "pip", "install", "--quiet"]
    assert sys.path.count(book) == 1


def test_colab_without_gpu_says_labs_show_recorded_results(monkeypatch, capsys):
    Colab(monkeypatch, gpu=None)
    _run_cell()
    out = capsys.readouterr().out
    assert "No GPU" in out and "recorded results" in out


def test_colab_asks_for_restart_when_a_loaded_package_changed(monkeypatch, capsys):
    Colab(monkeypatch)
    monkeypatch.setitem(sys.modules, "plotly", types.SimpleNamespace(__version__="5.24.1"))
    _run_cell()
    out = capsys.readouterr().out
    assert "plotly changed under the running session" in out and "Restart session" in out


@pytest.mark.parametrize("how", ["not installed", "import blocked"])
def test_elsewhere_the_cell_does_nothing(monkeypatch, capsys, how):
    if how == "not installed":
        monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    else:
        monkeypatch.setitem(sys.modules, "google.colab", None)  # import google.colab fails
    monkeypatch.setattr(subprocess, "run", _refuse)
    monkeypatch.setattr(subprocess, "Popen", _refuse)
    monkeypatch.setattr(os, "chdir", _refuse)
    before = list(sys.path), dict(os.environ)
    namespace = _run_cell()
    assert (list(sys.path), dict(os.environ)) == before
    assert capsys.readouterr().out == ""
    assert [k for k in namespace if not k.startswith("__")] == []


def test_setup_cell_comes_from_config(tmp_path):
    """Another url and branch in _config.yml change the cell: it is the one place."""
    for name in ("requirements.txt",):
        (tmp_path / name).write_text((ROOT / name).read_text())
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["repository"] = {"url": "https://github.com/someone/fork/", "branch": "autumn-term"}
    (tmp_path / "_config.yml").write_text(yaml.safe_dump(config))
    source = make_notebooks.setup_cell_source(tmp_path)
    assert "repo = 'https://github.com/someone/fork.git'" in source
    assert "branch = 'autumn-term'" in source
    assert "book = '/content/fork'" in source


def test_missing_repository_is_a_clear_error(tmp_path):
    (tmp_path / "_config.yml").write_text("title: x\n")
    with pytest.raises(ValueError, match="repository"):
        make_notebooks.repository(tmp_path)


def test_colab_gets_a_glue_that_shows_what_chapters_glue(monkeypatch, capsys):
    """Colab has no myst_nb; the chapters' `from myst_nb import glue` must still work."""
    Colab(monkeypatch)
    monkeypatch.setitem(sys.modules, "myst_nb", None)  # not installed
    _run_cell()
    from myst_nb import glue

    assert glue.__module__ != "myst_nb.ext.glue"
    capsys.readouterr()
    glue("hidden", 1.5, display=False)
    glue("shown", 2.25)
    out = capsys.readouterr().out
    assert "1.5" not in out and "2.25" in out


def test_colab_keeps_a_real_myst_nb(monkeypatch):
    import myst_nb

    Colab(monkeypatch)
    _run_cell()
    assert sys.modules["myst_nb"] is myst_nb
