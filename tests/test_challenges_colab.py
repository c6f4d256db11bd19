"""The kernel challenges as a Colab reader without a GPU meets them: in Colab's runtime
(``.venv-colab``: Python 3.13, numba-cuda 0.22, numpy 2.1; ``scripts/colab_env.py``),
``python -m labs challenge check`` runs each reference solution under numba's CUDA
simulator and passes, and a starter that leaves its work undone fails (exit 1), so the
pass is not vacuous. The sm_75 compile of the same kernels is tests/test_t4_compile.py."""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from test_t4_compile import CHALLENGES, COLAB_PYTHON, colab_pins  # noqa: E402

ENV = {"PATH": "/usr/bin:/bin", "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": str(ROOT),
       "CUDA_VISIBLE_DEVICES": ""}


def _colab(*args: str) -> subprocess.CompletedProcess:
    if not COLAB_PYTHON.exists():
        pytest.fail(f"{COLAB_PYTHON.relative_to(ROOT)} is missing: run "
                    "`python scripts/colab_env.py` (make colab-env) to build Colab's runtime")
    return subprocess.run([str(COLAB_PYTHON), *args], capture_output=True, text=True,
                          env={**ENV, "HOME": str(pathlib.Path.home())}, cwd=ROOT,
                          timeout=600)


def test_the_runtime_is_colabs():
    proc = _colab("-c", "import importlib.metadata as m, sys; "
                        "print(sys.version.split()[0], m.version('numba-cuda'))")
    python, numba_cuda = proc.stdout.split()
    assert python.startswith("3.13") and numba_cuda == colab_pins()["numba-cuda"]


@pytest.mark.parametrize("name", CHALLENGES)
def test_each_reference_passes_its_check_in_colabs_simulator(name):
    solution = ROOT / "labs" / "challenges" / "solutions" / f"{name}.py"
    proc = _colab("-m", "labs", "challenge", "check", name, str(solution), "--json")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    assert r["passed"] is True and r["device"] == "CUDA simulator (CPU)", r


def test_an_unfinished_starter_fails_there(tmp_path):
    starter = ROOT / "labs" / "challenges" / "starters" / "saxpy.py"
    proc = _colab("-m", "labs", "challenge", "check", "saxpy", str(starter), "--json")
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1])["message"].startswith("out[0] = nan")
