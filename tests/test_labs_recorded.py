"""Labs I without a GPU: recorded results load and validate, the summaries hold exactly the
keys the book promises, every plot draws, labs.show falls back to the recordings, and no lab
import pulls in plotly or ipywidgets. Timing is never asserted."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

import labs
from labs import results
from perfmodel import machines

ROOT = pathlib.Path(__file__).resolve().parents[1]
LABS_I = ("paradox", "intensity", "ops_on_roof", "linear_batch", "fusion", "pcie", "clocks")
NO_GPU = dict(os.environ, CUDA_VISIBLE_DEVICES="", PYTHONPATH=str(ROOT))


@pytest.fixture(autouse=True)
def _no_gpu(monkeypatch):
    monkeypatch.setattr("labs.gpu.has_cuda", lambda: False)


@pytest.mark.parametrize("name", LABS_I)
def test_recorded_h200_loads_with_exact_summary_keys(name):
    r = results.load(name, "H200")
    assert r["lab"] == name and r["context"]["gpu_name"] == "NVIDIA H200"
    assert set(r["summary"]) == set(labs.module(name).SUMMARY_KEYS)
    assert r["rows"] and not r["context"].get("reference")


@pytest.mark.parametrize("name", LABS_I)
def test_t4_reference_is_labelled_and_holds_only_known_keys(name):
    r = results.load(name, "T4-reference")
    ctx = r["context"]
    assert ctx["reference"] is True and ctx["gpu_name"] == "Tesla T4"
    assert "seed 003" in ctx["source"]
    assert set(r["summary"]) <= set(labs.module(name).SUMMARY_KEYS)


@pytest.mark.parametrize("name", LABS_I)
def test_show_without_gpu_draws_recorded_beside_reference(name):
    view = labs.show(name)
    assert [r["context"]["gpu_slug"] for r in view.results] == ["H200", "T4-reference"]
    assert "No CUDA GPU here" in view.note
    fig = view.figure()
    assert len(fig.data) >= 2
    bundle = view._repr_mimebundle_()
    assert "book-figure" in bundle["text/html"]


def test_roofline_of_recorded_h200():
    recorded = [results.load(n, "H200") for n in ("intensity", "paradox", "pcie", "clocks")]
    m = machines.from_results(*recorded)
    s = recorded[0]["summary"]
    assert m.measured and m.peak_flops("fp32") == s["fma_flops"]
    assert m.bandwidth("dram") == s["copy_bandwidth"]
    assert m.bandwidth("pcie") == recorded[2]["summary"]["pinned_bandwidth"]
    assert m.peak_flops("fp16_tensor") == recorded[3]["summary"]["tensor_fp16_flops"]
    assert m.launch_overhead.value == recorded[1]["summary"]["launch_sync_s"]


def test_knob_rows_carry_their_model():
    r = results.load("intensity", "H200")
    s = r["summary"]
    knob = [x for x in r["rows"] if x["kind"] == "knob"]
    assert [x["k"] for x in knob] == r["params"]["ks"]
    for x in knob:
        m = labs.module("intensity").model_seconds(x["k"], r["params"]["n_floats"],
                                                   s["fma_flops"], s["copy_bandwidth"])
        assert x["model_seconds"] == pytest.approx(m)


def test_recorded_h200_meets_the_labs_i_bars():
    """Issue 4's bars, recomputed from the recorded H200 rows and context (not from the
    lab's own ratios): the knob streams at >= 90% of the same run's copy, the FMA kernel
    reaches >= 90% of SMs x 128 lanes x 2 x the clock it ran at, and every knob time off
    the ridge band [ridge/2, 2 x ridge] is within 15% of max(2kN/P, 8N/B)."""
    r = results.load("intensity", "H200")
    ctx, n = r["context"], r["params"]["n_floats"]
    copy = next(x for x in r["rows"] if x["kind"] == "copy")["bandwidth"]
    knob = sorted((x for x in r["rows"] if x["kind"] == "knob"), key=lambda x: x["k"])
    assert 8 * n / knob[0]["seconds"] >= 0.90 * copy
    peak = next(x for x in r["rows"] if x["kind"] == "fma_peak")
    assert ctx["compute_capability"] == "9.0"  # Hopper: 128 FP32 lanes an SM
    assert peak["flops"] >= 0.90 * ctx["sms"] * 128 * 2 * peak["sm_clock_hz"]
    ridge = peak["flops"] / copy
    off = [x for x in knob if not ridge / 2 <= x["k"] / 4 <= 2 * ridge]
    assert len(off) >= 8 and {1, 2048} <= {x["k"] for x in off}
    for x in off:
        model = max(2 * x["k"] * n / peak["flops"], 8 * n / copy)
        assert 0.85 <= x["seconds"] / model <= 1.15, x["k"]


def test_knob_rows_keep_the_faster_launch():
    """Each knob row's time is the faster of its launch shapes, and names it."""
    r = results.load("intensity", "H200")
    names = set(r["params"]["launches"])
    assert names == set(labs.module("intensity").LAUNCHES)
    for x in (x for x in r["rows"] if x["kind"] == "knob"):
        times = {name: x[f"seconds_{name}"] for name in names}
        assert x["seconds"] == min(times.values())
        assert times[x["launch"]] == x["seconds"]


def test_lab_runs_refuse_plainly_without_gpu():
    from labs.common import NoGPUError

    for name in LABS_I:
        with pytest.raises(NoGPUError, match="CUDA GPU"):
            labs.module(name).run(quick=True)
    with pytest.raises(NoGPUError):
        labs.my_roofline()


def test_bad_arguments_raise_value_error():
    from labs import common, intensity, linear_batch

    with pytest.raises(ValueError, match="compute_capability"):
        common.fp32_lanes_per_sm("nine")
    with pytest.raises(ValueError):
        common.powers_of_two(0, 4)
    with pytest.raises(ValueError):
        intensity.model_seconds(1, 0, 1e12, 1e12)
    with pytest.raises(ValueError, match="launches must name"):
        intensity.run(launches="fresh+sideways")
    with pytest.raises(ValueError, match="launches must name"):
        intensity.run(launches=())
    with pytest.raises(ValueError):
        common.first_win([1, 2], [1.0], [2.0])
    assert common.first_win([1, 2, 3], [1, 1, 1], [2, 0.5, 0.5]) == 2
    assert linear_batch.model_bend(1e15, 1e9) is None


def test_no_lab_import_pulls_in_plotly_or_ipywidgets():
    code = ("import sys, labs, labs.roofline, labs.ceilings, labs.kernels\n"
            "[labs.module(n) for n in labs.available()]\n"
            "bad = [m for m in ('plotly', 'ipywidgets') if m in sys.modules]\n"
            "assert not bad, bad\n")
    proc = subprocess.run([sys.executable, "-c", code], env=NO_GPU, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_cli_list_and_run_without_gpu():
    run = lambda *a: subprocess.run([sys.executable, "-m", "labs", *a], env=NO_GPU, cwd=ROOT,  # noqa: E731
                                    capture_output=True, text=True, timeout=120)
    listed = run("list")
    assert listed.returncode == 0
    for name in LABS_I:
        assert name in listed.stdout
    failed = run("run", "intensity", "--quick")
    assert failed.returncode == 2
    assert "no CUDA GPU here" in failed.stderr and "Traceback" not in failed.stderr
    bad = run("run", "nosuchlab")
    assert bad.returncode != 0 and "unknown lab" in bad.stderr


def test_reference_files_are_plain_json():
    for p in sorted((ROOT / "labs" / "results" / "T4-reference").glob("*.json")):
        assert json.loads(p.read_text())["context"]["gpu_slug"] == "T4-reference"
