"""A Colab-faithful Python environment for the tests: ``.venv-colab``.

    python scripts/colab_env.py            # create or update .venv-colab; prints its python
    python scripts/colab_env.py --print    # print its python's path, or exit 1 when absent

It holds what the book touches, at the versions Colab's GPU runtime ships
(``tests/colab/colab-constraints.txt``, Colab's own published ``pip freeze``), on Python
3.13 (Colab's minor version): numpy 2.1, numba 0.61, numba-cuda 0.22 with the CUDA 12.8
NVVM and nvJitLink wheels, plotly 5.24, ipywidgets 7.7, anywidget 0.9, ipykernel 6.17,
IPython 7.34, nbclient, nvidia-ml-py.

torch is left out on purpose: Colab's ``2.11.0+cu128`` build is not on PyPI, PyPI's 2.11.0
for Linux is a CUDA 13 build whose ``cuda-bindings`` 13 conflicts with Colab's 12.9, and
no CPU build for Python 3.13 is reachable here. Without a GPU the book takes the same path
with or without torch (``labs.gpu.has_cuda`` is False either way); the setup cell reports
torch as missing there.

The environment is rebuilt when the constraints or the package list change (a stamp file
holds their hash). It needs a ``python3.13`` on PATH (or ``COLAB_PYTHON``).
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
ENV_DIR = ROOT / ".venv-colab"
CONSTRAINTS = ROOT / "tests" / "colab" / "colab-constraints.txt"

#: What the book touches in Colab; pip takes each at Colab's version (the constraints).
PACKAGES = ("numpy", "numba", "numba-cuda", "nvidia-cuda-nvcc-cu12", "nvidia-nvjitlink-cu12",
            "nvidia-cuda-runtime-cu12", "nvidia-cuda-nvrtc-cu12", "nvidia-cuda-cccl-cu12",
            "cuda-python", "cuda-bindings", "cuda-core", "plotly", "ipywidgets",
            "anywidget", "ipykernel", "ipython", "jupyter_client", "nbclient", "nbformat",
            "nvidia-ml-py", "pandas", "PyYAML", "traitlets", "widgetsnbextension",
            "jupyterlab_widgets", "setuptools")


def python_313() -> str:
    """The interpreter to build the environment with: COLAB_PYTHON, python3.13 on PATH, or
    a pyenv-installed 3.13 (a pyenv shim on PATH may not be active); the first that runs."""
    candidates = [os.environ.get("COLAB_PYTHON"), shutil.which("python3.13"),
                  *sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.13*/bin/python3.13")))]
    for exe in filter(None, candidates):
        ok = subprocess.run([exe, "-c", "import sys; assert sys.version_info[:2] == (3, 13)"],
                            capture_output=True).returncode == 0
        if ok:
            return exe
    raise SystemExit("scripts/colab_env.py needs Python 3.13 (Colab's version): put "
                     "python3.13 on PATH or set COLAB_PYTHON")


def python_path() -> pathlib.Path:
    return ENV_DIR / "bin" / "python"


def _digest() -> str:
    text = CONSTRAINTS.read_text() + "\n".join(PACKAGES)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def pinned() -> dict[str, str]:
    """Colab's version of each package in PACKAGES that the constraints pin (names
    normalised: lower case, '-')."""
    pins = {}
    for line in CONSTRAINTS.read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==", 1)
            pins[name.strip().lower().replace("_", "-")] = version.strip()
    return {p.lower().replace("_", "-"): pins[p.lower().replace("_", "-")] for p in PACKAGES
            if p.lower().replace("_", "-") in pins}


def drifted() -> dict[str, tuple[str, str | None]]:
    """Packages of the environment no longer at Colab's version: {name: (pinned, now)}
    (something installed over them, e.g. an old setup cell that upgraded numba)."""
    code = ("import importlib.metadata as m, json, sys\n"
            "out = {}\n"
            "for d in sys.argv[1:]:\n"
            "    try: out[d] = m.version(d)\n"
            "    except m.PackageNotFoundError: out[d] = None\n"
            "print(json.dumps(out))")
    want = pinned()
    got = subprocess.run([str(python_path()), "-c", code, *want], capture_output=True,
                         text=True, check=True).stdout
    have = json.loads(got)
    return {d: (v, have.get(d)) for d, v in want.items() if have.get(d) != v}


def ensure(quiet: bool = True) -> pathlib.Path:
    """Create or update the environment; return its python. It is rebuilt when the
    constraints change or when a package drifted from Colab's version."""
    stamp = ENV_DIR / ".colab-stamp"
    if python_path().exists() and stamp.exists() and stamp.read_text() == _digest() \
            and not drifted():
        return python_path()
    if ENV_DIR.exists():
        shutil.rmtree(ENV_DIR)
    subprocess.run([python_313(), "-m", "venv", str(ENV_DIR)], check=True)
    pip = [str(python_path()), "-m", "pip", "install", "--disable-pip-version-check"]
    if quiet:
        pip.append("-q")
    subprocess.run([*pip, "-c", str(CONSTRAINTS), *PACKAGES], check=True)
    stamp.write_text(_digest())
    return python_path()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--print", action="store_true", help="print the python; create nothing")
    args = parser.parse_args(argv)
    if args.print:
        if not python_path().exists():
            return 1
        print(python_path())
        return 0
    print(ensure())
    return 0


if __name__ == "__main__":
    sys.exit(main())
