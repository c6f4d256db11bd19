"""The labs' device-dependent choices, with a T4's and an H200's properties stood in (no GPU):
dtype, warps per SM, what fits in memory, NVML missing, and each lab's quick mode on a T4
estimated from the model (under a minute, and what its docstring says)."""
from __future__ import annotations

import re
import sys
from types import SimpleNamespace

import pytest

import labs
from labs import attention, budget, gpu, littles_law, results, waves

GIB = 2 ** 30
#: torch.cuda.get_device_properties on a T4 and an H200 (the T4's figures: NVIDIA's T4
#: datasheet and the CUDA guide's table for 7.5; the H200's: the recorded run's context).
T4 = SimpleNamespace(name="Tesla T4", major=7, minor=5, multi_processor_count=40,
                     max_threads_per_multi_processor=1024, total_memory=15 * GIB)
H200 = SimpleNamespace(name="NVIDIA H200", major=9, minor=0, multi_processor_count=132,
                       max_threads_per_multi_processor=2048, total_memory=150_000_000_000)


def test_device_limits_of_a_t4():
    lim = gpu.device_limits(T4)
    assert lim == {"name": "Tesla T4", "sms": 40, "compute_capability": (7, 5),
                   "max_threads_per_sm": 1024, "warps_per_sm": 32, "memory_bytes": 15 * GIB}


def test_device_limits_without_the_threads_field_use_the_guides_table():
    old = SimpleNamespace(**{k: v for k, v in vars(T4).items()
                             if k != "max_threads_per_multi_processor"})
    assert gpu.device_limits(old)["warps_per_sm"] == 32
    with pytest.raises(ValueError, match="max_threads_per_multi_processor"):
        gpu.device_limits(SimpleNamespace(**{**vars(old), "major": 6, "minor": 1}))


@pytest.mark.parametrize("cc, want", [("7.5", (7, 5)), ((9, 0), (9, 0)), ("8.6", (8, 6))])
def test_compute_capability(cc, want):
    assert gpu.compute_capability(cc) == want


def test_compute_capability_bad_input():
    with pytest.raises(ValueError, match="compute_capability"):
        gpu.compute_capability("sm_75")


@pytest.mark.parametrize("cc, dtype", [("7.5", "float16"), ("7.0", "float16"), ("8.0", "bfloat16"),
                                       ("8.6", "bfloat16"), ("9.0", "bfloat16")])
def test_waves_dtype_follows_bf16_tensor_cores(cc, dtype):
    assert waves.dtype_for(cc) == dtype


def test_waves_recorded_h200_ran_bf16_as_the_choice_says():
    r = results.load("waves", "H200")
    assert r["summary"]["dtype"] == r["params"]["dtype"] == waves.dtype_for(
        r["context"]["compute_capability"])


def test_littles_law_pipeline_only_with_cp_async():
    assert littles_law.choose_pipelined(None, "7.5") is False
    assert littles_law.choose_pipelined(None, "9.0") is True
    assert littles_law.choose_pipelined(False, "9.0") is False
    with pytest.raises(ValueError, match="pipelined"):
        littles_law.choose_pipelined(True, "7.5")


def test_littles_law_loaded_points_on_the_h200_are_the_recorded_ones():
    r = results.load("littles_law", "H200")
    recorded = sorted({row["stream_warps_per_sm"] for row in r["rows"]
                       if row.get("experiment") == "loaded_latency"})
    assert list(littles_law.loaded_points(64, quick=False)) == recorded
    assert littles_law.loaded_points(64, quick=True) == (2, 8, 32)


@pytest.mark.parametrize("quick", [True, False])
def test_littles_law_every_loaded_point_fits_on_a_t4(quick):
    """Each point's streaming blocks plus the chaser's must be resident at once. A T4 holds
    1024 threads an SM; the streaming blocks are at most 8 warps (256 threads), so 4 of them
    an SM, 160 on 40 SMs (where registers do not bind first). The old top point, 32 warps
    an SM, needed 160 + 1."""
    lim = gpu.device_limits(T4)
    points = littles_law.loaded_points(lim["warps_per_sm"], quick)
    assert max(points) == 16
    for wps in points:
        tpb = 32 * min(wps, 8)
        blocks = lim["sms"] * wps * 32 // tpb
        resident = lim["sms"] * (1024 // tpb)
        assert blocks + 1 <= resident, (wps, blocks, resident)


def test_littles_law_skipped_rows_name_what_and_why():
    row = littles_law._skipped("loaded_latency", "161 blocks do not fit", stream_warps_per_sm=32)
    assert row == {"experiment": "skipped", "what": "loaded_latency", "stream_warps_per_sm": 32,
                   "reason": "161 blocks do not fit"}


def test_attention_square_matrices_fit_a_t4_up_to_4096():
    """2 x 16 heads x S^2 float32 against half of ~14.5 GiB free: 2 GiB at S = 4096 fits,
    8 GiB at 8192 does not; on an H200 (~140 GB free) 32 GiB at 16384 does."""
    free_t4 = 14.5 * GIB
    assert [attention.square_fits(free_t4, s) for s in attention.SEQS] == [
        True, True, True, True, False, False]
    assert attention.square_bytes(4096) == 2 * 16 * 4096 ** 2 * 4
    assert attention.square_fits(140e9, 16384)


def test_attention_recorded_h200_ran_naive_at_every_length():
    r = results.load("attention", "H200")
    naive = {row["seq"] for row in r["rows"] if row.get("impl") == "naive" and row.get("available")}
    assert naive == set(attention.SEQS)


def test_nvml_missing_is_said_in_one_sentence(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)   # import pynvml -> ImportError
    said = gpu.nvml_problem()
    assert "nvidia-ml-py" in said and "clock" in said


# ------------------------------------------------------------------ quick mode on a T4

def test_every_lab_is_estimated_or_says_why_not():
    assert set(budget.ESTIMATED) | set(budget.NOT_ESTIMATED) == set(labs.LABS)
    assert not set(budget.ESTIMATED) & set(budget.NOT_ESTIMATED)


@pytest.mark.parametrize("name", budget.ESTIMATED)
def test_quick_mode_on_a_t4_is_under_a_minute(name):
    est = budget.estimate(name)
    assert est["seconds"] == pytest.approx(sum(est["parts"].values()))
    assert est["seconds"] < 60, est


@pytest.mark.parametrize("name", budget.ESTIMATED)
def test_docstring_states_the_estimate(name):
    doc = labs.module(name).__doc__
    found = re.findall(r"On a T4 \(quick\):\s+about\s+(\d+)\s+s\b", doc)
    assert found == [str(budget.stated(budget.estimate(name)["seconds"]))], (name, found)


def test_the_estimates_t4_is_the_notes_t4():
    m = budget.t4()
    assert m.peak_flops("fp32") == 6.8e12 and m.bandwidth("dram") == 230e9
    assert m.peak_flops("fp16_tensor") == 21e12 and m.bandwidth("pcie") == 12.3e9


def test_estimate_bad_name():
    with pytest.raises(ValueError, match="profile"):
        budget.estimate("profile")
