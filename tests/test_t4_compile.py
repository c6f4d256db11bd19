"""Every numba kernel a lab can launch on a T4 (compute capability 7.5) compiles and links to
an sm_75 cubin with Colab's toolchain (numba-cuda 0.22, NVVM and nvJitLink 12.8), on a CPU.

The compiling happens in ``.venv-colab`` (``scripts/colab_env.py``), through
``tests/colab/compile_sm75.py``, run once for the module; it reports per kernel. Kernels
that need sm_80 (``cp.async``) are never chosen at 7.5, and one of them compiled for sm_75
all the same must fail to link: the harness does catch an sm_80-only kernel.
"""
from __future__ import annotations

import json
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
COLAB_PYTHON = ROOT / ".venv-colab" / "bin" / "python"
WORKER = ROOT / "tests" / "colab" / "compile_sm75.py"
CONSTRAINTS = ROOT / "tests" / "colab" / "colab-constraints.txt"
#: The labs whose run() launches numba kernels, and the notebooks' setup cell.
NUMBA_LABS = {"intensity", "clocks", "paradox", "fusion", "divergence", "latency",
              "littles_law", "coalescing", "profile", "setup cell", "challenge copies",
              "challenge variants"}
#: The kernel challenges (labs/challenges): each starter's and reference's kernels.
CHALLENGES = ("saxpy", "fuse", "regroup", "reduce", "ilp", "transpose", "matmul", "softmax")


def colab_pins() -> dict[str, str]:
    """name -> version pinned in Colab's published pip freeze."""
    pins = {}
    for line in CONSTRAINTS.read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==", 1)
            pins[name.strip().lower()] = version.strip()
    return pins


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict:
    if not COLAB_PYTHON.exists():
        pytest.fail(f"{COLAB_PYTHON.relative_to(ROOT)} is missing: run "
                    "`python scripts/colab_env.py` (make colab-env) to build Colab's runtime")
    out = tmp_path_factory.mktemp("sm75") / "report.json"
    proc = subprocess.run([str(COLAB_PYTHON), str(WORKER), "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0 and out.exists(), proc.stderr[-3000:]
    return json.loads(out.read_text())


def test_the_toolchain_is_colabs(report):
    pins = colab_pins()
    tc = report["toolchain"]
    for dist in ("numba-cuda", "numba", "numpy", "nvidia-cuda-nvcc-cu12", "nvidia-nvjitlink-cu12"):
        assert tc[dist] == pins[dist], (dist, tc[dist], pins[dist])
    assert tc["python"].startswith("3.13")


def test_every_kernel_compiles_and_links_for_sm75(report):
    failed = [f"{k['lab']}: {k['kernel']} {k['signature']}: {k['error']}"
              for k in report["kernels"] if not k["ok"]]
    assert not failed, "\n".join(failed)
    for k in report["kernels"]:
        assert k["ptx_target"] == "sm_75" and k["cubin_sm"] == 75, k
        assert k["cubin_bytes"] > 1000, k


def test_every_lab_kernel_is_in_the_catalogue(report):
    """Each ``@cuda.jit`` kernel defined in labs/*.py is compiled here (or is sm_80-only)."""
    assert report["uncovered"] == []
    assert {k["lab"] for k in report["kernels"]} == NUMBA_LABS | {
        f"challenge {name}" for name in CHALLENGES}


def test_every_challenge_compiles_its_starter_and_its_reference(report):
    for name in CHALLENGES:
        kinds = {k["kernel"].split(":")[0] for k in report["kernels"]
                 if k["lab"] == f"challenge {name}"}
        assert {"starter", "reference"} <= kinds <= {"starter", "reference", "textbook"}, (
            name, kinds)


def test_max_registers_reach_the_linker(report):
    """The 8-load 16-byte read asks ptxas for room (max_registers=64): the option must be
    part of the compile, as at a launch."""
    eight = [k for k in report["kernels"] if k["kernel"].startswith("stream read, L = 8")]
    assert eight and all(k["max_registers"] == 64 for k in eight)


def test_no_sm80_only_kernel_is_chosen_on_sm75(report):
    # A kernel that failed to compile has no PTX to read (the compile test names it).
    compiled = [k for k in report["kernels"] if "cp_async" in k]
    assert compiled, "no kernel compiled, so none could be checked for cp.async"
    assert [k["kernel"] for k in compiled if k["cp_async"]] == []
    assert report["choices"]["7.5"] == {"pipelined": False, "sm80_only_chosen": 0}
    # and the choice is not vacuous: on an H200 (9.0) the lab does pick the pipeline
    assert report["choices"]["9.0"]["pipelined"] is True
    assert report["choices"]["9.0"]["sm80_only_chosen"] == 4


def test_an_sm80_only_kernel_fails_to_link_for_sm75(report):
    """The negative control: the cp.async pipeline compiled for sm_75 must not pass."""
    assert report["sm80_only"]
    for k in report["sm80_only"]:
        assert not k["ok"], k
        assert "cp.async" in k["error"] and "sm_80" in k["error"], k["error"]
