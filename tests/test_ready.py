"""labs.ready: the setup cell's status, and the NVVM/nvJitLink agreement that numba needs
to link any kernel (a newer NVVM writes PTX an older nvJitLink refuses)."""
from __future__ import annotations

import importlib.metadata as md
import os
import subprocess
import sys

import pytest

from labs import ready


@pytest.mark.parametrize("nvvm, nvjitlink, ok", [
    ("12.8.93", "12.8.93", True),
    ("12.8.61", "12.8.93", True),     # same release, other builds
    ("12.9.86", "12.8.93", False),    # PTX ISA 8.8 against a linker that knows 8.7
    ("12.6.77", "12.8.93", False),
    ("13.0.48", "12.9.86", False),
])
def test_toolchain_problem_compares_cuda_releases(nvvm, nvjitlink, ok):
    problem = ready.toolchain_problem(nvvm, nvjitlink)
    assert (problem is None) == ok
    if not ok:
        assert f"pip install {ready.NVVM_WHEEL}=={nvjitlink}" in problem


def test_requirements_leave_nvvm_and_nvjitlink_in_agreement():
    """This environment was installed from requirements.txt: both wheels are there, of one
    CUDA release (this fails when one is bumped without the other)."""
    nvvm, link = md.version(ready.NVVM_WHEEL), md.version(ready.NVJITLINK_WHEEL)
    assert ready.release(nvvm) == ready.release(link), (nvvm, link)
    assert ready.toolchain_problem() is None


def test_release_parsing():
    assert ready.release("12.8.93") == (12, 8)
    assert ready.release(None) is None and ready.release("garbage") is None


def test_status_without_a_gpu_says_how_to_get_one():
    st = ready.status()
    assert not st.gpu
    assert st.facts[0].startswith("Python 3.")
    text = st.text(1.25)
    assert text.startswith("Set up, with a problem (1.2 s): Python 3.")
    assert ready.GET_A_GPU in text


def test_numba_check_compiles_runs_and_checks_a_kernel_in_the_simulator():
    code = "from labs import ready; print(ready.numba_check(n=300) >= 0)"
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
