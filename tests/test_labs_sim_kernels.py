"""Every numba kernel of the labs, checked on the CPU under numba's CUDA simulator.

The checks live in tests/labs_sim_checks.py and run in one subprocess with
NUMBA_ENABLE_CUDASIM=1, so the simulator is on before numba.cuda is imported there, however
this test session was started (the whole suite runs in one process)."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from labs_sim_checks import CHECKS  # noqa: E402


@pytest.fixture(scope="module")
def outcomes() -> dict:
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "labs_sim_checks.py")],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_kernel_correct_under_simulator(outcomes, name):
    assert outcomes.get(name) == "ok", outcomes.get(name)
