"""Lab result tables written for readers (labs/readouts.py, drawn by labs.display.LabView):
every lab has a readout; each renders for the recorded H200 run and the T4 reference; no raw
summary key, snake_case word or e-notation reaches the page; every figure has a model cell
(a value, or "measured only"); a reference without a figure leaves its cells empty and
marked; and key model values equal an independent computation from the run's context and
the datasheets (numbers written here by hand, not taken from the code under test)."""
from __future__ import annotations

import copy
import html as htmllib
import re

import pytest

import labs
from labs import readouts, results
from labs.results import list_recorded
from perfmodel import units

SNAKE = re.compile(r"\b[a-z0-9]+_[a-z0-9_]+\b")
E_NOTATION = re.compile(r"\d(?:\.\d+)?[eE][+-]?\d")


@pytest.fixture(autouse=True)
def _no_gpu(monkeypatch):
    monkeypatch.setattr("labs.gpu.has_cuda", lambda: False)


def _cells(page: str) -> list[list[str]]:
    """The table body as rows of cell texts (tags stripped, entities unescaped)."""
    body = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    out = []
    for tr in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S):
        tds = re.findall(r"<td[^>]*>(.*?)</td>", tr, flags=re.S)
        out.append([htmllib.unescape(re.sub(r"<[^>]+>", " ", td)).strip() for td in tds])
    return out


def _row(page: str, starts: str) -> list[str]:
    found = [r for r in _cells(page) if r[0].startswith(starts)]
    assert len(found) == 1, (starts, [r[0] for r in _cells(page)])
    return found[0]


def _visible_text(page: str) -> str:
    return re.sub(r"\s+", " ", htmllib.unescape(re.sub(r"<[^>]+>", " ", page)))


def test_every_lab_has_a_readout():
    """A lab added to LABS without a readout (or without its own tables) fails here."""
    assert set(readouts.READOUTS).isdisjoint(readouts.OWN_TABLES)
    assert set(readouts.READOUTS) | set(readouts.OWN_TABLES) == set(labs.LABS)
    for name in readouts.OWN_TABLES:
        assert callable(getattr(labs.module(name), "show", None)), name


def test_unknown_lab_and_empty_results_raise():
    with pytest.raises(ValueError, match="name must be a lab"):
        readouts.table_html("nonesuch", [results.load("pcie", "H200")])
    with pytest.raises(ValueError, match="results"):
        readouts.table_html("pcie", [])


def _check_page(name: str, page: str) -> None:
    text = _visible_text(page)
    for key in labs.module(name).SUMMARY_KEYS:
        assert key not in page, f"{name}: raw key {key!r} on the page"
    assert not SNAKE.findall(text), (name, SNAKE.findall(text))
    assert not E_NOTATION.findall(text), (name, E_NOTATION.findall(text))
    assert "&ndash;" not in page and "–" not in text, name
    assert "<caption>Look at" in page, name            # one sentence on what to look at
    caption = page.split("<caption>", 1)[1].split("</caption>", 1)[0]
    assert caption.count(". ") == 0 and caption.endswith("."), caption


@pytest.mark.parametrize("name", sorted(readouts.READOUTS))
def test_table_for_the_recorded_h200_beside_the_reference(name):
    view = labs.show(name)
    page = view.summary_html()
    assert page in view._repr_mimebundle_()["text/html"]
    _check_page(name, page)
    rows = _cells(page)
    assert rows, name
    for r in rows:
        # the H200 run is shown first: every row has its measured value and a model cell
        assert r[1] and r[1] != "*", (name, r)
        assert r[2], (name, r)
    # the column names the run: the GPU and the day its context recorded
    day = results.load(name, "H200")["context"]["date"][:10]
    assert f"NVIDIA H200, {day}" in _visible_text(page)


@pytest.mark.parametrize("name", sorted(n for n in readouts.READOUTS
                                        if any(r["context"].get("reference")
                                               for r in list_recorded(n))))
def test_table_for_the_t4_reference_alone(name):
    ref = results.load(name, "T4-reference")
    page = readouts.table_html(name, [ref])
    _check_page(name, page)
    assert "Tesla T4 (reference)" in page
    for r in _cells(page):
        if r[1] == "*":   # no such figure in the reference: both cells empty, footnoted
            assert r[2] == ""
            assert "* No figure for that row in the Tesla T4 (reference) run." in page
        else:
            assert r[1] and r[2], (name, r)


def test_missing_reference_figure_is_an_empty_marked_cell():
    page = labs.show("fusion").summary_html()
    row = _row(page, "sin(x)^2 + cos(x)^2")
    assert row[1:] == ["4.11x", "5.5x", "*", ""]
    assert 'class="book-empty"' in page
    assert "No figure for that row in the Tesla T4 (reference) run." in page


def test_reference_figures_read_from_its_rows_where_its_summary_is_empty():
    """The T4 reference states some figures only row by row: the elementwise ops' lowest
    and highest share of the roof (84% and 90%), and the layer's time at batch 1 (0.19 ms)."""
    page = labs.show("ops_on_roof").summary_html()
    assert _row(page, "Elementwise ops")[3:] == ["84% to 90%", "100%"]
    page = labs.show("linear_batch").summary_html()
    # batch 1: the 4096 x 4096 FP16 weights plus one input and one output vector, in 0.19 ms
    weights = (4096 * 4096 + 2 * 4096) * 2 / 0.19e-3
    assert _row(page, "Weights read per second")[3:] == [units.bandwidth(weights), "320 GB/s"]
    assert units.bandwidth(weights) == "177 GB/s"
    assert _row(page, "Batch where the layer")[3:] == ["*", ""]


def test_figures_without_a_model_say_so():
    page = labs.show("pcie").summary_html()
    assert _row(page, "Pageable host-to-device copy")[2] == "measured only"
    assert _row(page, "The CPU doing the add itself")[2] == "measured only"


# ---------------------------------------------------- model values, computed independently

def test_intensity_fma_model_is_sms_x_128_lanes_x_2_x_clock():
    h200 = results.load("intensity", "H200")
    ctx, s = h200["context"], h200["summary"]
    assert ctx["sms"] == 132 and ctx["compute_capability"] == "9.0"   # Hopper: 128 lanes
    expected = 132 * 128 * 2 * s["fma_clock_hz"]                       # 66.9 TFLOP/s at 1.98 GHz
    assert expected == pytest.approx(66.908e12, rel=1e-4)
    page = readouts.table_html("intensity", [h200])
    row = _row(page, "FP32 rate of the FMA kernel")
    assert row[1:] == [units.flops(s["fma_flops"]), "66.9 TFLOP/s"]
    t4 = results.load("intensity", "T4-reference")        # Turing: 40 SMs x 64 lanes
    t4_row = _row(readouts.table_html("intensity", [t4]), "FP32 rate of the FMA kernel")
    assert t4_row[2] == units.flops(40 * 64 * 2 * 1365e6) == "6.99 TFLOP/s"
    # the datasheet columns: H200 4.8 TB/s DRAM, ridge 66.9 / 4.8 = 13.9 FLOP/byte
    assert _row(page, "DRAM bandwidth")[2] == "4.8 TB/s"
    assert _row(page, "Ridge point")[2] == "13.9"


def test_pcie_model_round_trip_matches_the_recorded_model():
    for gpu in ("H200", "T4-reference"):
        r = results.load("pcie", gpu)
        n, pinned = r["params"]["n"], r["summary"]["pinned_bandwidth"]
        add = next(x["seconds"] for x in r["rows"] if x.get("stage") == "add on the GPU")
        expected = 12 * n / pinned + add          # x and y in, z out: 3 x 4 bytes an element
        row = _row(readouts.table_html("pcie", [r]), "Round trip, pinned")
        assert row[2] == units.seconds(expected), gpu
        if gpu == "H200":   # the lab's own model, recorded at run time
            assert expected == pytest.approx(r["summary"]["model_round_trip_s"], rel=1e-9)
            assert row[2] == "59.2 ms"
        else:               # the T4 note gives 12n / B alone (0.26 s); the add adds 13 ms
            assert r["summary"]["model_round_trip_s"] == pytest.approx(12 * n / pinned, abs=0.01)
            assert row[2] == "275 ms"


def test_a_pcie_cpu_add_with_a_fresh_result_says_so():
    """The H200's recorded run (2026-11-30) timed x + y with a fresh 1 GB result; a run of
    the lab as it is now records a preallocated output and needs no such note."""
    old = results.load("pcie", "H200")
    assert "cpu_add" not in old["params"]
    assert "fresh 1 GB result" in _row(readouts.table_html("pcie", [old]), "The CPU doing")[0]
    new = copy.deepcopy(old)
    new["params"]["cpu_add"] = "preallocated output"
    assert _row(readouts.table_html("pcie", [new]), "The CPU doing")[0] == \
        "The CPU doing the add itself"


def test_linear_batch_bend_is_where_intensity_meets_the_ridge():
    r = results.load("linear_batch", "H200")
    s = r["summary"]
    # the ridge: this run's FP16 matmul over the one measured H200's copy (intensity lab)
    copy = results.load("intensity", "H200")["summary"]["copy_bandwidth"]
    ridge, d = s["fp16_matmul_flops"] / copy, 4096
    # intensity of a d x d FP16 layer at batch b: 2 b d^2 / (2 (d^2 + 2 b d)) = b d / (d + 2b)
    b = ridge * d / (d - 2 * ridge)
    assert b * d / (d + 2 * b) == pytest.approx(ridge)
    row = _row(readouts.table_html("linear_batch", [r]), "Batch where the layer")
    assert row[1:] == [units.number(s["bend_batch_measured"]), units.number(b)]
    assert row[2] == "187"      # 720 TFLOP/s / 4.21 TB/s = 171 FLOP/byte


def test_clocks_models_scale_the_datasheet_to_the_clock():
    r = results.load("clocks", "H200")
    page = readouts.table_html("clocks", [r])
    # FP16 dense 989 TFLOP/s, quoted at 1.83 GHz (132 SMs x 4,096 FLOPs a clock, H100
    # whitepaper), scaled to the clock the run held (1.5 GHz on 2026-12-03: 811 TFLOP/s)
    held = r["summary"]["tensor_clock_hz"]
    assert 1.0e9 < held < 1.98e9
    assert _row(page, "FP16 matmul (tensor cores), held")[2] == units.flops(132 * 4096 * held)
    assert _row(page, "FP16 matmul (tensor cores): board power")[2] == "700 W"
    t4 = readouts.table_html("clocks", [results.load("clocks", "T4-reference")])
    # T4 FP32 8.1 TFLOP/s at 1.59 GHz; the notes' FP32 matmul ran at 705 MHz
    assert _row(t4, "FP32 matmul (TF32 off), held")[2] == units.flops(8.1e12 * 705 / 1590)


def test_fusion_models_are_the_ratio_of_bytes():
    page = readouts.table_html("fusion", [results.load("fusion", "H200")])
    # FP16: three kernels each read and write 2 bytes (12 B), fused 2 + 2 (4 B)
    assert _row(page, "relu(x*1.5+0.5)")[2] == "3x"
    # FP32: four one-input kernels and one two-input: 4 x 8 + 12 = 44 B; fused 8 B
    assert _row(page, "sin(x)^2 + cos(x)^2")[2] == "5.5x"


def test_divergence_and_coalescing_models():
    page = readouts.table_html("divergence", [results.load("divergence", "H200")])
    for p in (2, 4, 8):
        assert _row(page, f"{p} paths split through every warp")[2] == f"{p}x"
        assert _row(page, f"{p} paths split between warps")[2] == "1x"
    page = readouts.table_html("coalescing", [results.load("coalescing", "H200")])
    assert _row(page, "From DRAM, stride\u00a016")[2] == "6.25%"      # 4 of each 64-byte burst
    assert _row(page, "From the L2, stride\u00a08")[2] == "12.5%"     # 4 of each 32-byte sector
    assert _row(page, "From the L2, stride\u00a032")[2] == "12.5%"
    # gather: (4 + 4) useful of (4 + 64) moved, at the same run's stride-1 DRAM read
    stride1 = results.load("coalescing", "H200")["summary"]["useful_bandwidth_by_stride"]["dram"]["1"]
    assert _row(page, "Random gather")[2] == units.bandwidth(stride1 * 8 / 68)


def test_attention_and_littles_law_models():
    page = readouts.table_html("attention", [results.load("attention", "H200")])
    # 16 heads: two S x S FP16 matrices and the S x 64 FP16 output, at S = 4096
    naive = 16 * (2 * 4096 ** 2 * 2 + 4096 * 64 * 2)
    assert _row(page, "S = 4,096: naive")[2] == units.nbytes(naive) == "1.08 GB"
    fused = 16 * (4096 * 64 * 2 + 4 * 4096)
    assert _row(page, "S = 4,096: fused SDPA's")[2] == units.nbytes(fused)
    r = results.load("littles_law", "H200")
    idle = next(x["latency_ns"] for x in r["rows"] if x.get("experiment") == "idle_latency")
    row = _row(readouts.table_html("littles_law", [r]), "Bytes in flight")
    assert row[2] == units.nbytes(r["summary"]["saturation_bandwidth"] * idle * 1e-9)


def test_a_gpu_without_datasheet_says_so_and_keeps_context_models():
    r = copy.deepcopy(results.load("intensity", "H200"))
    r["context"]["gpu_name"] = "NVIDIA RTX 9999"
    assert readouts.datasheet(r) is None
    page = readouts.table_html("intensity", [r])
    assert _row(page, "DRAM bandwidth")[2] == readouts.NO_DATASHEET
    assert _row(page, "FP32 rate of the FMA kernel")[2] == "66.9 TFLOP/s"   # from the context


@pytest.mark.parametrize("gpu, name", [("NVIDIA H200", "H200"), ("Tesla T4", "T4"),
                                       ("NVIDIA H100 80GB HBM3", "H100"),
                                       ("NVIDIA A100-SXM4-80GB", "A100")])
def test_datasheet_machine_by_gpu_name(gpu, name):
    assert readouts.datasheet({"context": {"gpu_name": gpu}}).name == name


@pytest.mark.parametrize("lesson", ["simt", "latency", "memory", "compute"])
def test_profile_tables_have_no_raw_keys_or_e_notation(lesson):
    """The profile lab draws its own lesson tables (OWN_TABLES); they meet the same bar,
    except that they cite the exact ncu metric names in <code> under the table."""
    page = labs.show("profile", lesson=lesson)._repr_mimebundle_()["text/html"]
    text = _visible_text(re.sub(r"<code>.*?</code>", "", page))
    assert not SNAKE.findall(text) and not E_NOTATION.findall(text)
    assert "<caption>Look at" in page


@pytest.mark.parametrize("name", sorted(readouts.READOUTS))
def test_partial_and_unknown_runs_still_render(name):
    """A reader's own run may lack figures (no NVML, a quick sweep) or be on a GPU perfmodel
    does not know: the table still renders, and says so rather than failing."""
    bare = {"lab": name, "context": {"gpu_name": "Tesla T4"}, "params": {}, "rows": [],
            "summary": {}}
    shown = copy.deepcopy(results.load(name, "H200"))
    shown["context"]["gpu_name"] = "Mystery GPU"
    page = readouts.table_html(name, [shown, bare])
    _check_page(name, page)
    assert "The Tesla T4 run records none of these figures." in page
    models = [r[2] for r in _cells(page)]
    assert models and all(models)


def test_paradox_t4_breakeven_model_by_hand():
    """The T4 reference has no model rows: its break-even comes from the T4 note's own
    machines, CPU 215 GFLOP/s, 23 GB/s and a 4 us toll; T4 6.8 TFLOP/s, 230 GB/s and the
    35 us a matmul paid launched and waited for (chapter 1's break-even, one number)."""
    def t(n, p, b, t0):   # t0 + max(F/P, D/B) for an n x n FP32 matmul, 3 n^2 floats moved
        return t0 + max(2 * n ** 3 / p, 12 * n ** 2 / b)

    sizes = (16, 32, 64, 128, 192, 256, 384, 512, 1024, 2048, 4096)
    first = next(n for n in sizes if t(n, 6.8e12, 230e9, 35e-6) < t(n, 215e9, 23e9, 4e-6))
    assert first == 192
    page = readouts.table_html("paradox", [results.load("paradox", "T4-reference")])
    assert _row(page, "Smallest n x n matmul")[1:] == ["n = 192", "n = 192"]
    page = readouts.table_html("paradox", [results.load("paradox", "H200")])
    assert _row(page, "Launch toll")[2] == "10 µs"    # perfmodel's order-of-magnitude toll


def test_paradox_h200_breakeven_model_from_the_runs_roofs():
    """The H200 run's model: each machine's roofs from its largest matmul and add, its toll
    from its smallest op of each kind; the first size from which the GPU stays ahead."""
    r = results.load("paradox", "H200")
    rows = {k: [x for x in r["rows"] if x["kind"] == k] for k in ("matmul", "add")}
    roofs = {}
    for who in ("cpu_s", "gpu_resident_s"):
        mm, add = rows["matmul"][-1], rows["add"][-1]
        roofs[who] = (2 * mm["n"] ** 3 / mm[who], 12 * add["n"] / add[who])
    expected = {}
    for kind, rs in rows.items():
        def t(x, who):
            p, b = roofs[who]
            n = x["n"]
            f, d = (2 * n ** 3, 12 * n ** 2) if kind == "matmul" else (n, 12 * n)
            return rs[0][who] + max(f / p, d / b)
        wins = [t(x, "gpu_resident_s") < t(x, "cpu_s") for x in rs]
        expected[kind] = next(x["n"] for i, x in enumerate(rs) if all(wins[i:]))
    page = readouts.table_html("paradox", [r])
    assert _row(page, "Smallest n x n matmul")[2] == f"n = {expected['matmul']:,}"
    assert _row(page, "Smallest vector add")[2] == f"n = {expected['add']:,}"


def test_ops_on_roof_readout_judges_against_the_bound_and_quotes_no_second_copy():
    """The H200 run's add, ReLU and multiply-add as a share of the datasheet's 4.8 TB/s
    slope, each at its own intensity, averaged; the run's own copy and FMA rates (4.14 TB/s,
    64.2 TFLOP/s) are not printed, since the page quotes the one measured H200's."""
    r = results.load("ops_on_roof", "H200")
    ops_ = {x["op"]: x for x in r["rows"] if x.get("kind") == "op"}
    shares = [ops_[n]["flops"] / (ops_[n]["intensity"] * 4.8e12)
              for n in ("add", "ReLU", "multiply-add")]
    page = readouts.table_html("ops_on_roof", [r])
    row = _row(page, "Share of the datasheet bound")
    assert row[1:] == [units.percent(sum(shares) / 3), "100%"]
    assert 0.85 < sum(shares) / 3 < 1
    assert units.bandwidth(r["summary"]["copy_bandwidth"]) not in page
    assert units.flops(r["summary"]["fma_flops"]) not in page
    # their share of a copy: the one measured H200's copy (intensity lab), bytes/s over it
    copy = results.load("intensity", "H200")["summary"]["copy_bandwidth"]
    mean = sum(ops_[n]["bytes"] / ops_[n]["seconds"] / copy
               for n in ("add", "ReLU", "multiply-add")) / 3
    assert _row(page, "Elementwise ops (add, ReLU, multiply-add): share")[1] == units.percent(mean) == "103%"
    lin = results.load("linear_batch", "H200")
    page = readouts.table_html("linear_batch", [lin])
    assert units.bandwidth(lin["summary"]["copy_bandwidth"]) not in page
    assert _row(page, "Weights read per second")[2] == "4.8 TB/s"
