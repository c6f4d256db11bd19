"""Labs II without a GPU: the model pieces they add, their helpers, the torch reference
implementations of attention on the CPU, imports without plotly, and the recorded results
(H200 run and the source notes' T4 figures) loading, keeping their summary keys and plotting.
Timing is never asserted."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from labs import coalescing, common, latency, littles_law, module, results, waves
from perfmodel import hierarchy, simt, softmax

LABS2 = ("divergence", "latency", "littles_law", "coalescing", "waves", "attention")
H100_LEVELS = [(256e3, 34.0), (50e6, 265.0), (math.inf, 650.0)]


# ------------------------------------------------------------------ perfmodel.hierarchy

@pytest.mark.parametrize("ws, cycles", [(4e3, 34.0), (256e3, 34.0), (256e3 + 1, 265.0),
                                        (50e6, 265.0), (8e9, 650.0)])
def test_chase_latency_is_a_staircase(ws, cycles):
    assert hierarchy.chase_latency(ws, H100_LEVELS) == cycles


def test_level_index():
    assert [hierarchy.level_index(w, H100_LEVELS) for w in (1, 1e6, 1e12)] == [0, 1, 2]


@pytest.mark.parametrize("call, words", [
    (lambda: hierarchy.chase_latency(0, H100_LEVELS), "working_set"),
    (lambda: hierarchy.chase_latency(1e3, []), "levels"),
    (lambda: hierarchy.chase_latency(1e3, [(1e6, 30), (1e3, 300), (math.inf, 600)]), "increase"),
    (lambda: hierarchy.chase_latency(1e3, [(1e6, 30)]), "inf"),
    (lambda: hierarchy.chase_latency(1e3, [(1e6, -3), (math.inf, 600)]), "latency"),
    (lambda: hierarchy.chase_latency(1e3, [(1e6,)]), "pair"),
    (lambda: hierarchy.attention_extra_bytes(0, 64), "seq"),
    (lambda: hierarchy.attention_extra_bytes(1024, 64, dtype_bytes=0), "dtype_bytes"),
])
def test_hierarchy_bad_input(call, words):
    with pytest.raises(ValueError, match=words):
        call()


def test_attention_footprints_by_hand():
    # 16 heads, S = 1024, d = 64, FP16: naive 2 S^2 + S d elements per head, flash S d + 4 S bytes
    assert hierarchy.attention_extra_bytes(1024, 64, 1, 16, 2) == 16 * (2 * 1024 ** 2 * 2 + 1024 * 64 * 2)
    assert hierarchy.attention_extra_bytes(1024, 64, 1, 16, 2, flash=True) == 16 * (1024 * 64 * 2 + 4 * 1024)
    naive = [hierarchy.attention_extra_bytes(s, 64, 1, 16, 2) for s in (8192, 16384)]
    flash = [hierarchy.attention_extra_bytes(s, 64, 1, 16, 2, flash=True) for s in (8192, 16384)]
    assert naive[1] / naive[0] == pytest.approx(4, rel=0.01)
    assert flash[1] / flash[0] == pytest.approx(2)


# ------------------------------------------------------------------ lab helpers (pure)

@pytest.mark.parametrize("stride, placement, frac", [
    (1, "l2", 1.0), (2, "l2", 0.5), (8, "l2", 1 / 8), (16, "l2", 1 / 8), (128, "l2", 1 / 8),
    (1, "dram", 1.0), (8, "dram", 1 / 8), (16, "dram", 1 / 16), (32, "dram", 1 / 16)])
def test_coalescing_model_fractions(stride, placement, frac):
    """32-byte sectors stop the waste at stride 8, 64-byte bursts at stride 16 (the notes)."""
    assert coalescing.predicted_fraction(stride, placement) == pytest.approx(frac)


def test_coalescing_helpers():
    assert [coalescing.pow2_floor(n) for n in (1, 2, 3, 1000, 1024)] == [1, 2, 2, 512, 1024]
    with pytest.raises(ValueError, match="placement"):
        coalescing.predicted_fraction(2, "l3")
    with pytest.raises(ValueError, match="n must"):
        coalescing.pow2_floor(0)


def test_waves_model_the_notes_example():
    """256 x 128 tiles on the A100's 108 SMs: 1792 -> 98 full tiles in one wave; 1793 -> 120
    tiles, two waves, most of them partial."""
    assert waves.model_fraction(1792, 108) == pytest.approx(98 / 108)
    useful = 1793 ** 2 / (120 * 256 * 128)
    assert waves.model_fraction(1793, 108) == pytest.approx(useful * 120 / 216)
    assert waves.model_fraction(1793, 132) == pytest.approx(useful * 120 / 132)


@pytest.mark.parametrize("cc, want", (("9.0", True), ("8.0", True), ("12.0", True),
                                      ("7.5", False), (None, False), ("", False)))
def test_littles_law_pipelines_where_cp_async_exists(cc, want):
    """The cp.async pipeline needs compute capability 8.0 or later; a T4 gets the batch."""
    assert littles_law.pipelined_here(cc) is want


@pytest.mark.parametrize("warps, sms, shape", [(1, 132, (1, 32)), (64, 132, (64, 32)),
                                               (512, 132, (256, 64)), (8192, 132, (1024, 256)),
                                               (6, 4, (6, 32))])
def test_littles_law_block_shape(warps, sms, shape):
    blocks, tpb = littles_law.block_shape(warps, sms)
    assert (blocks, tpb) == shape and blocks * tpb == warps * 32


def test_latency_plateau_ranges_and_summary():
    l2 = 60e6
    assert latency.level_of(8e3, l2) == "l1" and latency.level_of(4e6, l2) == "l2"
    assert latency.level_of(512e6, l2) == "dram" and latency.level_of(100e6, l2) is None
    rows = [{"working_set_bytes": w, "cycles": c, "ns": c / 2} for w, c in
            ((4e3, 40), (16e3, 44), (2e6, 300), (8e6, 280), (100e6, 500), (256e6, 660),
             (512e6, 680), (1e9, 900))]                    # 1 GB is past 16 x the L2: not counted
    s = latency._summary(rows, l2)
    assert s["latency_cycles"] == {"l1": 42, "l2": 290, "dram": 670}
    assert s["latency_ns"]["dram"] == 335


def test_path_assignment_matches_the_model():
    from labs import divergence

    for p in divergence.PATHS:
        for split in divergence.SPLITS:
            got = [divergence.path_of(t, p, split == "between") for t in range(128)]
            assert (np.array(got).reshape(4, 32) == simt.warp_paths(p, split, 4)).all()


def test_runs_say_plainly_there_is_no_gpu():
    if common.has_cuda():
        pytest.skip("a GPU is present")
    for name in LABS2:
        with pytest.raises(common.NoGPUError, match=name):
            module(name).run(quick=True)


def test_imports_pull_in_neither_plotly_nor_ipywidgets_nor_gpu_libraries():
    code = ("import sys; import labs.divergence, labs.latency, labs.littles_law, "
            "labs.coalescing, labs.waves, labs.attention, labs.memkernels, labs.timing; "
            "print(sorted(m for m in ('plotly', 'ipywidgets', 'torch', 'numba.cuda') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(os.path.dirname(__file__)))
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------ attention on the CPU

def _qkv(seq=96, d=16, heads=2):
    torch = pytest.importorskip("torch")
    g = torch.Generator().manual_seed(int(np.random.default_rng().integers(1 << 30)))
    return [torch.randn(1, heads, seq, d, generator=g, dtype=torch.float64) for _ in range(3)]


@pytest.mark.parametrize("causal", (False, True))
@pytest.mark.parametrize("tile", (1, 7, 32, 500))
def test_tiled_online_softmax_matches_the_reference(causal, tile):
    from labs import attention

    torch = pytest.importorskip("torch")
    q, k, v = _qkv()
    rows = torch.arange(q.shape[-2])
    ref = attention.reference_rows(q, k, v, rows, causal)
    out = attention.tiled_attention(q, k, v, causal=causal, tile=tile)
    assert attention.relative_error(out, ref) < 1e-6      # float32 inside the tiles
    naive = attention.naive_attention(q, k, v, causal=causal)
    assert attention.relative_error(naive, ref) < 1e-12


def test_tiled_attention_is_perfmodels_online_softmax_row_by_row():
    from labs import attention

    q, k, v = _qkv(seq=20, d=4, heads=1)
    out = attention.tiled_attention(q, k, v, tile=6).numpy()[0, 0]
    scores = (q[0, 0] @ k[0, 0].T).numpy() / 2.0            # 1/sqrt(d) with d = 4
    for i in (0, 7, 19):
        # float32 against float64: outputs are O(1), so an absolute floor for those near 0
        np.testing.assert_allclose(out[i], softmax.online(scores[i], v[0, 0].numpy(), 6),
                                   rtol=1e-5, atol=1e-5)


def test_relative_error_of_nan_is_inf():
    from labs import attention

    torch = pytest.importorskip("torch")
    ref = torch.ones(4, dtype=torch.float64)
    assert attention.relative_error(torch.tensor([1.0, float("nan"), 1.0, 1.0]), ref) == math.inf


# ------------------------------------------------------------------ recorded results

@pytest.mark.parametrize("name", LABS2)
def test_recorded_h200_result_loads_with_exactly_the_summary_keys(name):
    r = results.load(name, "H200")
    assert r["context"]["gpu_name"] == "NVIDIA H200" and not r["context"].get("reference")
    assert tuple(r["summary"]) == module(name).SUMMARY_KEYS
    assert r["rows"] and r["params"]["quick"] is False


@pytest.mark.parametrize("name", ("divergence", "latency", "littles_law", "coalescing"))
def test_t4_reference_holds_only_the_notes_figures(name):
    r = results.load(name, "T4-reference")
    ctx = r["context"]
    assert ctx["reference"] is True and ctx["gpu_name"] == "Tesla T4"
    assert ctx["source"] == "the source notes (seed 003), measured on a Tesla T4 on Kaggle"
    assert set(r["summary"]) <= set(module(name).SUMMARY_KEYS)


def test_t4_reference_figures_are_the_notes():
    assert results.load("divergence", "T4-reference")["summary"]["within_warp_slowdown"]["4"] == 3.9
    assert results.load("latency", "T4-reference")["summary"]["latency_cycles"] == {"dram": 500.0}
    assert results.load("littles_law", "T4-reference")["summary"]["one_sm_bandwidth"] == 49e9
    assert results.load("coalescing", "T4-reference")["summary"]["gather_bandwidth"] == 14e9


@pytest.mark.parametrize("name", LABS2)
def test_recorded_results_plot(name):
    pytest.importorskip("plotly")
    fig = module(name).plot(results.list_recorded(name))
    assert len(fig.data) >= 3
    assert json.dumps(fig.to_plotly_json(), default=str)

