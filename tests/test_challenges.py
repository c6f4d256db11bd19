"""Kernel challenges on the CPU: every starter fails its check or is slow for the reason
its statement gives (shown by counting, never by timing), every reference passes, the
check names the first wrong element, the verdict refuses impossible timings and names the
limiting term, and the command line keeps its contract (exit 0/1/2, --json).

The kernels run under numba's CUDA simulator in processes of their own
(tests/challenges_sim_checks.py; ``python -m labs challenge``), so the simulator is on
before numba.cuda is imported there."""
from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

from labs import challenges as ch
from labs.challenges import estimate, verdict
from perfmodel import little, machines, ops, simt, units

ROOT = pathlib.Path(__file__).resolve().parents[1]
SIM = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", CUDA_VISIBLE_DEVICES="", PYTHONPATH=str(ROOT))


@pytest.fixture(scope="module")
def sim() -> dict:
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "challenges_sim_checks.py")],
                          capture_output=True, text=True, env=SIM, cwd=ROOT, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _get(sim, key):
    entry = sim[key]
    assert "error" not in entry, entry.get("error")
    return entry


def test_there_are_at_least_eight_challenges_each_in_a_chapter():
    assert len(ch.NAMES) >= 8
    chapters = {p.stem for p in (ROOT / "chapters").glob("*.md")}
    for name in ch.NAMES:
        spec = ch.challenge(name)
        assert spec.NAME == name and spec.CHAPTER in chapters, name
        text = (ROOT / "chapters" / f"{spec.CHAPTER}.md").read_text()
        assert f"## {spec.SECTION}\n" in text, (name, spec.SECTION)
        for kernel in spec.KERNELS:
            assert hasattr(ch.starter(name), kernel) and hasattr(ch.reference(name), kernel)


@pytest.mark.parametrize("name", ch.NAMES)
def test_the_reference_passes_its_check(sim, name):
    r = _get(sim, f"{name}/reference")["check"]
    assert r["passed"] and not r["broken"], r["message"]
    assert r["device"] == "CUDA simulator (CPU)"


def test_saxpy_starter_fails_the_check_at_its_first_element(sim):
    r = _get(sim, "saxpy/starter")["check"]
    assert not r["passed"] and not r["broken"]
    assert r["message"].startswith("out[0] = nan") and "never written" in r["message"]


def test_fuse_starter_moves_the_unfused_bytes(sim):
    """Three launches and 24 bytes touched per element, perfmodel's unfused count; the
    reference: one launch, the fused 8."""
    n = ch.challenge("fuse").sizes("sim")["n"]
    s, r = _get(sim, "fuse/starter")["structure"], _get(sim, "fuse/reference")["structure"]
    assert s["correct"] and s["launches"] == 3
    assert s["bytes_per_element"] == ops.scale_shift_relu(n, fused=False, dtype="fp32").bytes / n
    assert s["bytes_per_element"] == 24 and r["launches"] == 1 and r["bytes_per_element"] == 8


def test_regroup_starter_diverges_in_every_warp(sim):
    s, r = _get(sim, "regroup/starter")["structure"], _get(sim, "regroup/reference")["structure"]
    assert s["correct"] and s["warps_on_both_paths"] == s["warps"] > 0
    assert s["paths_per_warp"] == [2]
    assert r["warps_on_both_paths"] == 0 and r["paths_per_warp"] == [1]


def test_regroup_paths_per_warp_counts_by_hand():
    spec = ch.challenge("regroup")
    assert spec.paths_per_warp(lambda t, n: t, 128) == [2, 2, 2, 2]
    assert spec.paths_per_warp(lambda t, n: 2 * (t % 32) + (t // 32) % 2, 64) == [1, 1]


def test_reduce_starter_makes_one_atomic_per_element(sim):
    s, r = _get(sim, "reduce/starter")["structure"], _get(sim, "reduce/reference")["structure"]
    n = s["n"]
    assert s["correct"] and s["writes_of_out"] == n + 1          # the zeroing, then n adds
    # the reference: the zeroing and one atomic per block (a handful at this size)
    blocks = -(-(-(-n // 4)) // 256)
    assert r["writes_of_out"] == 1 + blocks


def test_ilp_starter_has_too_few_bytes_in_flight_for_littles_law(sim):
    """On an H200 (132 SMs, the challenge's 512 threads an SM) the starter's 4 bytes a
    thread are far below bandwidth x latency; the reference's 128 bytes a thread pass it."""
    s, r = _get(sim, "ilp/starter")["structure"], _get(sim, "ilp/reference")["structure"]
    assert s["correct"] and s["bytes_before_store"] == 4 and r["bytes_before_store"] == 128
    h200 = machines.get("H200")
    spec = ch.challenge("ilp")
    threads = h200.sms * spec.BLOCKS_PER_SM * spec.THREADS
    # the H200's recorded dependent-load latency from DRAM (337 ns), read from its run
    recorded = json.loads((ROOT / "labs" / "results" / "H200" / "latency.json").read_text())
    latency = recorded["summary"]["latency_ns"]["dram"] * 1e-9
    need = little.bytes_in_flight(h200.bandwidth("dram"), latency)
    assert threads * s["bytes_before_store"] < 0.2 * need
    assert threads * r["bytes_before_store"] > need


def test_transpose_starter_writes_eight_sectors_per_useful_one(sim):
    s, r = (_get(sim, "transpose/starter")["structure"],
            _get(sim, "transpose/reference")["structure"])
    n = ch.challenge("transpose").sizes("sim")["n"]
    assert s["correct"]
    assert s["write_sectors_per_useful"] == 1 / simt.useful_fraction(n, 4, 32) == 8
    assert s["read_sectors_per_useful"] == 1
    assert r["write_sectors_per_useful"] == 1 and r["read_sectors_per_useful"] == 1


def test_matmul_starter_reloads_a_row_and_a_column_per_output(sim):
    s, r = _get(sim, "matmul/starter")["structure"], _get(sim, "matmul/reference")["structure"]
    spec = ch.challenge("matmul")
    assert s["correct"] and s["loads_per_output"] == spec.naive_loads_per_output() == 2 * spec.K
    # the reference: A's 32 x 8 and B's 8 x 1024 once per 32 x 1024 tile
    assert r["loads_per_output"] == (32 * 8 + 8 * 1024) / (32 * 1024)


def test_softmax_starter_reads_each_row_three_times(sim):
    s, r = _get(sim, "softmax/starter")["structure"], _get(sim, "softmax/reference")["structure"]
    assert s["correct"] and s["reads_per_element"] == 3 and r["reads_per_element"] == 1
    assert ops.softmax(1, 4096).bytes == 2 * 4 * 4096      # the bound reads x once


def test_check_names_the_first_wrong_element(sim):
    from labs.challenges.judge import check_sizes

    n = check_sizes(ch.challenge("saxpy"), "sim", 0)[0]["n"]  # the check's first size
    x = np.random.default_rng(0).random(2 * n, dtype=np.float32)
    want = np.float32(2.5) * x[7] + x[n + 7]  # x, then y, from the seed's generator
    assert re.match(rf"out\[7\] = (\S+), expected (\S+); 1 of {n} elements wrong",
                    sim["wrong/saxpy"]["message"])
    got, expected = re.findall(r"= (\S+), expected (\S+);", sim["wrong/saxpy"]["message"])[0]
    assert float(expected) == pytest.approx(float(want)) and float(got) == pytest.approx(
        float(want) + 1.0)
    assert sim["wrong/matmul"]["message"].startswith("c[3, 5] = nan, expected")
    assert not sim["wrong/saxpy"]["passed"] and not sim["wrong/saxpy"]["broken"]


def test_timing_pipeline_judges_against_the_bound(sim):
    """time_submission end to end under the simulator with a stand-in clock and roofs."""
    ok = sim["timed/plausible"]
    assert ok["passed"] and ok["limit"] == "memory" and ok["share"] == pytest.approx(0.8)
    assert ok["message"].startswith("80% of the reference time")
    assert sim["timed/compute"]["limit"] == "compute"
    assert sim["timed/compute"]["share"] == pytest.approx(0.5)
    bad = sim["timed/impossible"]
    assert not bad["passed"] and bad["share"] is None and bad["message"].startswith("rejected")


def test_timing_catches_a_kernel_that_stops_writing(sim):
    r = sim["timed/once_only"]
    assert not r["passed"] and r["share"] is None
    assert r["message"].startswith("correct once, wrong after the timed runs: out[0] = nan")


def test_timing_checks_before_it_times(sim):
    r = sim["timed/wrong"]
    assert not r["passed"] and r["message"].startswith("out[0] = nan")


def test_first_wrong_on_plain_arrays():
    want = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = want.copy()
    assert verdict.first_wrong("y", got, want, 0, 0) is None
    got[1, 2], got[2, 3] = 99, np.nan
    msg = verdict.first_wrong("y", got, want, 0, 0)
    assert msg.startswith("y[1, 2] = 99, expected 6; 2 of 12 elements wrong")
    assert "shape (4,)" in verdict.first_wrong("y", np.zeros(4), want, 0, 0)


# ------------------------------------------------------------------------ the verdict

FAKE = machines.measured("Fake GPU", {"fp32": 1e12}, {"dram": 1e11}, source="a test")


def test_memory_bound_verdict_names_memory_and_the_share():
    op = ops.Op("x", flops=1e6, bytes=1e8)            # D/B = 1 ms, F/P = 1 us
    v = verdict.verdict(op, 2e-3, FAKE)
    assert v["accepted"] and v["limit"] == "memory"
    assert v["bound_s"] == pytest.approx(1e-3) and v["share"] == pytest.approx(0.5)
    assert "50% of the reference time" in v["reason"] and "memory (D / B)" in v["reason"]
    assert "(the measured copy and FMA rates)" in v["reason"]
    # only datasheet ceilings are bounds: the same time against the T4's datasheet figures
    t4 = machines.get("T4")
    assert not t4.measured
    bound = max(op.flops / t4.peak_flops("fp32"), op.bytes / t4.bandwidth("dram"))
    d = verdict.verdict(op, 2 * bound, t4)
    assert d["reason"].startswith("50% of the bound") and d["term"] == "bound"
    assert "(the datasheet's ceilings)" in d["reason"]
    assert "reference time" not in d["reason"] + verdict.describe(d)


def test_compute_bound_verdict_names_compute():
    op = ops.Op("x", flops=4e9, bytes=1e6)            # F/P = 4 ms
    v = verdict.verdict(op, 5e-3, FAKE)
    assert v["limit"] == "compute" and v["share"] == pytest.approx(0.8)
    assert v["roofs_source"] == {"peak": "a test", "bandwidth": "a test"}


def test_a_time_faster_than_the_bound_is_rejected_not_reported():
    op = ops.Op("x", flops=1e6, bytes=1e8)            # bound 1 ms
    v = verdict.verdict(op, 0.5e-3, FAKE)
    assert not v["accepted"] and v["share"] is None
    assert v["reason"].startswith("rejected") and "skipped write" in v["reason"]
    assert verdict.verdict(op, 0.91e-3, FAKE)["accepted"]  # within measurement slack
    assert not verdict.verdict(op, 0.89e-3, FAKE)["accepted"]


@pytest.mark.parametrize("seconds", [0, -1, float("nan"), float("inf")])
def test_verdict_refuses_a_meaningless_time(seconds):
    with pytest.raises(ValueError, match="seconds"):
        verdict.verdict(ops.saxpy(10), seconds, FAKE)


def test_roofs_measured_where_recorded_else_datasheet(tmp_path):
    h200 = verdict.roofs("NVIDIA H200")
    assert h200.measured and "measured by the book's labs" in h200.source("dram")
    assert h200.bandwidth("dram") < machines.get("H200").bandwidth("dram")
    a100 = verdict.roofs("NVIDIA A100-SXM4-80GB")
    assert a100 is machines.get("A100")
    # the T4 reference set is the notes' figures, not a run: a T4 gets its datasheet
    assert verdict.roofs("Tesla T4") is machines.get("T4")
    fake = {"lab": "intensity", "context": {"gpu_name": "NVIDIA H100 PCIe", "sms": 114},
            "params": {}, "rows": [], "summary": {"fma_flops": 5e13, "copy_bandwidth": 1.9e12}}
    (tmp_path / "H100-PCIe").mkdir()
    (tmp_path / "H100-PCIe" / "intensity.json").write_text(json.dumps(fake))
    m = verdict.roofs("NVIDIA H100 PCIe", tmp_path)
    assert m.bandwidth("dram") == 1.9e12 and m.peak_flops("fp32") == 5e13
    with pytest.raises(ValueError, match="gpu_name"):
        verdict.roofs("Some Other Card", tmp_path)


# ------------------------------------------------------------------- model and budget

@pytest.mark.parametrize("name", ch.NAMES)
def test_quick_mode_on_a_t4_is_under_a_minute_as_stated(name):
    spec = ch.challenge(name)
    est = estimate.quick_seconds(spec)
    stated = re.search(r"On a T4 \(quick\):\s+about (\d+) s", " ".join(spec.__doc__.split()))
    assert stated, f"{name}'s docstring must state its T4 quick estimate"
    assert int(stated.group(1)) == estimate.stated(est["seconds"]) < 60, est


@pytest.mark.parametrize("name", ch.NAMES)
def test_sizes_come_in_three_modes_and_refuse_others(name):
    spec = ch.challenge(name)
    sizes = [spec.sizes(mode) for mode in ("sim", "quick", "full")]
    assert sizes[0].keys() == sizes[1].keys() == sizes[2].keys()
    spec.sizes("sim").clear()                     # a copy: the next caller gets them whole
    assert spec.sizes("sim") == sizes[0]
    with pytest.raises(ValueError, match="mode must be one of sim, quick, full; got 'fast'"):
        spec.sizes("fast")


@pytest.mark.parametrize("name", ch.NAMES)
def test_the_bound_uses_perfmodel_counts(name):
    spec = ch.challenge(name)
    op = spec.op(**spec.sizes("full"))
    assert isinstance(op, ops.Op) and op.bytes > 0
    assert spec.UNIT in machines.get("H200").units()


def test_regroup_and_the_others_sit_where_the_statements_say():
    h200 = machines.get("H200")
    bound = {n: "compute" if ch.challenge(n).op(**ch.challenge(n).sizes("full")).intensity
             > h200.ridge() else "memory" for n in ch.NAMES}
    assert bound.pop("regroup") == "compute"
    assert set(bound.values()) == {"memory"}


# ------------------------------------------------------------------------ the page

def test_check_from_a_notebook_without_a_gpu_uses_the_simulator(tmp_path):
    """This process imported numba.cuda for a GPU (there is none): check runs in a
    simulator process of its own, on a path or a module."""
    r = ch.check("saxpy")
    assert r["device"] == "CUDA simulator (CPU)" and r["message"].startswith("out[0] = nan")
    assert ch.check("fuse", ch.reference("fuse"))["passed"] is True


def test_write_starter_copies_it_once(tmp_path):
    path = ch.write_starter("ilp", tmp_path / "mine.py")
    assert path.read_text() == ch.kernel_source("ilp")
    path.write_text("# my work")
    assert ch.write_starter("ilp", path).read_text() == "# my work"


def test_show_displays_the_starter_source_itself():
    view = ch.show("saxpy")
    src = (ROOT / "labs" / "challenges" / "starters" / "saxpy.py").read_text()
    assert view.source == src
    md = view._repr_markdown_()
    assert "```python\n" + src in md and "python -m labs challenge check saxpy" in md
    assert "Sizes:" not in md and ":func:" not in md
    # the model's counts at the timed size, on the H200's recorded roofs
    n = ch.challenge("saxpy").sizes("full")["n"]
    bound = ops.saxpy(n).bytes / verdict.roofs("NVIDIA H200").bandwidth("dram")
    assert f"{units.seconds(bound)}, memory-bound" in view.model
    assert "805 MB of DRAM traffic" in view.model and "(measured)" in view.model
    html = view._repr_html_()
    assert "out[i] = ..." in html and "<script" not in html and "``" not in html
    assert "reference" not in view.source.lower()
    # the page's view: no title of its own (the chapter's heading is the one), the how-to
    # as a code block, and the starter's own verdict from the simulator
    title = ch.challenge("saxpy").TITLE
    assert title not in md and title not in html and title not in str(view)
    assert "```python\nimport labs.challenges as ch\nch.write_starter('saxpy')" in md
    assert "checked on a CPU" in md and "```text\nsaxpy: " in md
    assert "saxpy: FAILED" in view.verdict or "saxpy: BROKEN" in view.verdict
    with pytest.raises(ValueError, match="challenge must be one of"):
        ch.show("nope")


# ------------------------------------------------------------------ the command line

def _cli(*args, env=SIM):
    return subprocess.run([sys.executable, "-m", "labs", "challenge", *args],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)


def _json(proc) -> dict:
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_cli_list_names_every_challenge():
    proc = _cli("list")
    assert proc.returncode == 0
    assert [line.split()[0] for line in proc.stdout.splitlines()] == list(ch.NAMES)


def test_cli_check_exit_codes_and_json(tmp_path):
    starter = _cli("starter", "saxpy")
    assert starter.returncode == 0
    mine = tmp_path / "my_saxpy.py"
    mine.write_text(starter.stdout)
    wrong = _cli("check", "saxpy", str(mine), "--json")
    assert wrong.returncode == 1, wrong.stderr[-2000:]
    r = _json(wrong)
    assert {"challenge", "passed", "message", "device"} <= set(r)
    assert r["challenge"] == "saxpy" and r["passed"] is False and r["broken"] is False
    assert r["message"].startswith("out[0] = nan")
    mine.write_text(starter.stdout.replace("pass  # your turn: out[i] = ...",
                                           "out[i] = a * x[i] + y[i]"))
    right = _cli("check", "saxpy", str(mine), "--json")
    assert right.returncode == 0 and _json(right)["passed"] is True
    assert _json(right)["device"] == "CUDA simulator (CPU)"
    plain = _cli("check", "saxpy", str(mine))
    assert plain.returncode == 0 and "saxpy: PASSED" in plain.stdout


@pytest.mark.parametrize("text, says", [
    ("import no_such_module\n", "does not import: ModuleNotFoundError"),
    ("x = 1\n", "must define saxpy, launch; missing: saxpy, launch"),
    ("def saxpy(): pass\ndef launch(a, x, y, out): raise RuntimeError('boom')\n",
     "the kernels did not run: RuntimeError: boom"),
])
def test_cli_a_broken_submission_exits_2(tmp_path, text, says):
    bad = tmp_path / "bad.py"
    bad.write_text(text)
    proc = _cli("check", "saxpy", str(bad), "--json")
    assert proc.returncode == 2, proc.stderr[-2000:]
    r = _json(proc)
    assert r["broken"] is True and r["passed"] is False and says in r["message"]


def test_cli_unknown_challenge_or_missing_file_exits_2(tmp_path):
    proc = _cli("check", "nope", str(tmp_path / "x.py"), "--json")
    assert proc.returncode == 2 and "unknown challenge 'nope'" in _json(proc)["message"]
    proc = _cli("check", "saxpy", str(tmp_path / "missing.py"), "--json")
    assert proc.returncode == 2 and "no such file" in _json(proc)["message"]


def test_cli_time_needs_a_gpu():
    proc = _cli("time", "saxpy", "--reference", "--json")
    assert proc.returncode == 2 and "needs a CUDA GPU" in _json(proc)["message"]
