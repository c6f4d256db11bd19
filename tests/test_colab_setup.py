"""The Colab setup cell (scripts/make_notebooks.py's SETUP_TEMPLATE), run here with Colab
faked: google.colab importable, subprocess.run recorded, no network, no file system
changes. Checks the exact commands it would run in Colab (it installs only what Colab
lacks, and never the GPU path), what it prints when something fails, and that elsewhere
it only reports. tests/test_colab_twins.py runs the same cell for real, in a
Colab-faithful runtime."""
from __future__ import annotations

import importlib.metadata
import os
import pathlib
import socket
import subprocess
import sys
import types

import pytest
import torch  # noqa: F401  (imported before the fakes, as Colab has it loaded anyway)
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import make_notebooks  # noqa: E402


class Colab:
    """A faked Colab around one run of the setup cell: ``versions`` overrides what
    importlib.metadata reports (None: not installed); ``fail`` names commands that fail."""

    def __init__(self, monkeypatch, *, cloned: bool = False, versions: dict | None = None,
                 fail: tuple[str, ...] = ()):
        self.calls: list[list[str]] = []
        self.chdir: list[str] = []
        self.widget_manager = 0
        self.fail = fail
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
        monkeypatch.setattr(os.path, "isdir", lambda p: (
            True if str(p) == "/content" else
            cloned if str(p).startswith("/content/") else isdir(p)))
        monkeypatch.setattr(os, "chdir", self.chdir.append)
        monkeypatch.setattr(sys, "path", list(sys.path))
        monkeypatch.setenv("PYTHONPATH", "/existing")
        real = importlib.metadata.version
        overrides = versions or {}

        def version(dist):
            if dist in overrides:
                if overrides[dist] is None:
                    raise importlib.metadata.PackageNotFoundError(dist)
                return overrides[dist]
            return real(dist)

        monkeypatch.setattr(importlib.metadata, "version", version)

    def _enable(self) -> None:
        self.widget_manager += 1

    def _run(self, cmd, *args, **kwargs):
        self.calls.append(list(cmd))
        failed = any(word in cmd for word in self.fail)
        return subprocess.CompletedProcess(cmd, 1 if failed else 0,
                                           stdout="pip says: boom\n" if failed else "",
                                           stderr="fatal: no network\n" if failed else "")


def _refuse(*args, **kwargs):
    raise AssertionError("the setup cell tried to reach outside subprocess.run")


def _run_cell() -> dict:
    namespace: dict = {}
    exec(compile(make_notebooks.setup_cell_source(), "<setup cell>", "exec"), namespace)
    return namespace


def _config_repo() -> tuple[str, str]:
    repo = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
    return repo["url"].rstrip("/"), repo.get("branch", "main")


def _book() -> str:
    return "/content/" + _config_repo()[0].rsplit("/", 1)[-1]


def test_colab_path_clones_and_installs_nothing_colab_has(monkeypatch, capsys):
    colab = Colab(monkeypatch)
    namespace = _run_cell()
    url, branch = _config_repo()
    assert colab.calls == [
        ["git", "clone", "--quiet", "--depth", "1", "--branch", branch, f"{url}.git", _book()]]
    assert colab.widget_manager == 1
    assert colab.chdir == [f"{_book()}/notebooks"]
    assert sys.path[0] == _book()
    assert os.environ["PYTHONPATH"] == f"{_book()}{os.pathsep}/existing"
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith(("Ready (", "Set up, with a problem (")) and "Python 3." in out[0]
    assert "_book_setup" not in namespace  # leaves nothing behind in the reader's namespace


def test_colab_installs_only_what_is_missing_or_too_old(monkeypatch, capsys):
    colab = Colab(monkeypatch, versions={"anywidget": None, "plotly": "5.9.0",
                                         "ipywidgets": "7.7.1"})
    _run_cell()
    pip = [c for c in colab.calls if "pip" in c]
    assert pip == [[sys.executable, "-m", "pip", "install", "--quiet",
                    "--disable-pip-version-check", "plotly>=5.24", "anywidget>=0.9"]]
    assert "pip says" not in capsys.readouterr().out  # pip's output stays hidden


def test_the_gpu_path_is_never_installed():
    """torch, numpy, numba and numba-cuda (with the CUDA wheels) are Colab's own."""
    minimums = {d.lower() for d in make_notebooks.COLAB_MINIMUMS}
    for dist in make_notebooks.GPU_PATH + ("nvidia-cuda-nvcc-cu12", "nvidia-nvjitlink-cu12"):
        assert dist not in minimums
    source = make_notebooks.setup_cell_source()
    assert "numba-cuda[" not in source and "--upgrade" not in source


def test_minimums_hold_for_colab_and_for_requirements():
    """The book's code is tested at Colab's versions and at requirements.txt's: both must
    meet the minimums the cell installs against."""
    colab = {}
    for line in (ROOT / "tests" / "colab" / "colab-constraints.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==", 1)
            colab[name.lower()] = version
    pinned = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            pinned[name.split("[")[0].lower()] = version

    def key(v):
        return [int(x) for x in v.split("+")[0].split(".")[:3] if x.isdigit()]

    for dist, least in make_notebooks.COLAB_MINIMUMS.items():
        assert key(colab[dist.lower()]) >= key(least), dist
        if dist.lower() in pinned:
            assert key(pinned[dist.lower()]) >= key(least), dist


def test_a_failed_install_shows_pip_and_says_what_to_do(monkeypatch, capsys):
    Colab(monkeypatch, versions={"anywidget": None}, fail=("pip",))
    _run_cell()
    out = capsys.readouterr().out
    assert "pip says: boom" in out and "Runtime > Restart session" in out
    assert "Ready" not in out


def test_a_failed_clone_says_what_to_do(monkeypatch, capsys):
    colab = Colab(monkeypatch, fail=("clone",))
    _run_cell()
    out = capsys.readouterr().out
    assert "Could not fetch the book's code" in out and "internet" in out
    assert colab.chdir == [] and colab.widget_manager == 0


def test_colab_rerun_pulls_instead_of_cloning(monkeypatch):
    colab = Colab(monkeypatch, cloned=True)
    _run_cell()
    assert colab.calls[0] == ["git", "-C", _book(), "pull", "--quiet", "--ff-only"]
    assert sys.path.count(_book()) == 1


@pytest.mark.parametrize("how", ["not installed", "import blocked"])
def test_elsewhere_the_cell_only_reports(monkeypatch, capsys, how):
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
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith(("Ready (", "Set up, with a problem ("))
    assert [k for k in namespace if not k.startswith("__")] == []


def test_setup_cell_comes_from_config(tmp_path):
    """Another url and branch in _config.yml change the cell: it is the one place."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["repository"] = {"url": "https://github.com/someone/fork/", "branch": "autumn-term"}
    (tmp_path / "_config.yml").write_text(yaml.safe_dump(config))
    source = make_notebooks.setup_cell_source(tmp_path)
    assert "repo = 'https://github.com/someone/fork.git'" in source
    assert "branch, name = 'autumn-term', 'fork'" in source


def test_missing_repository_is_a_clear_error(tmp_path):
    (tmp_path / "_config.yml").write_text("title: x\n")
    with pytest.raises(ValueError, match="repository"):
        make_notebooks.repository(tmp_path)


def test_cell_lines_fit_the_column():
    assert max(len(line) for line in make_notebooks.setup_cell_source().splitlines()) <= 100
