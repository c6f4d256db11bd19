"""Runs a file of CUDA-simulator checks in a fresh pytest process with NUMBA_ENABLE_CUDASIM=1.

The simulator must be switched on before numba.cuda is first imported in a process, and a
whole test session imports the labs in one process; so each Labs II simulator test hands
its checks (tests/sim_labs2_*.py, not collected on their own) to a child pytest.
"""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

TESTS = pathlib.Path(__file__).resolve().parent
ROOT = TESTS.parent


def run_checks(filename: str, timeout: float = 600) -> None:
    """Run ``tests/<filename>`` under the simulator; fail with its output if it fails."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(TESTS / filename)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout)
    if proc.returncode != 0:
        pytest.fail(f"{filename} under the CUDA simulator:\n{proc.stdout[-6000:]}\n{proc.stderr[-2000:]}")
