"""The eight challenges' content, judged by the engine on a CPU: each starter fails its
mechanism target, for the reason its statement gives (the counter's value worked out
here by hand from the starter's code), and the message names the fix; the reference and
the textbook solution pass; a numpy "kernel" on the host is refused. Plus the milestones
(read from a recorded run, never typed in) and the page's rendering.

The kernels run under numba's CUDA simulator in a process of their own
(tests/challenge_content_checks.py)."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from labs import challenges as ch
from labs.challenges.judge import check_sizes

ROOT = pathlib.Path(__file__).resolve().parents[1]
SIM = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", CUDA_VISIBLE_DEVICES="", PYTHONPATH=str(ROOT))


@pytest.fixture(scope="module")
def runs() -> dict:
    proc = subprocess.run([sys.executable, "-X", "faulthandler",
                           str(ROOT / "tests" / "challenge_content_checks.py")],
                          capture_output=True, text=True, env=SIM, cwd=ROOT, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _run(runs, key):
    entry = runs[key]
    assert "error" not in entry, entry.get("error")
    return entry


#: The seed tests/challenge_content_checks.py checks with.
SEED = 11


def _largest(name: str) -> dict:
    """The size the counters come from (the check's largest simulator size)."""
    return check_sizes(ch.challenge(name), "sim", SEED)[-1]


#: What each starter does wrong, by hand from its code: (counter, value at the largest
#: simulator size, None when the starter never makes that access).
STARTER_FAULT = {
    "saxpy": ("sectors.out.store", None),              # the body is empty: no store at all
    "fuse": ("launches", 3),                           # scale, shift, relu
    "regroup": ("paths_per_warp", 2.0),                # both parities in every warp (at least)
    "reduce": ("atomics_global", _largest("reduce")["n"]),  # one atomic add per element
    "ilp": ("bytes_in_flight", 4),                     # one float, then its store
    "transpose": ("sectors.out.store", 8.0),           # 32 lanes, 32 sectors of 32 bytes
    "matmul": ("reads_per_element.a", _largest("matmul")["n"]),  # a row of A per output
    "softmax": ("reads_per_element.x", 3.0),           # max, sum, write: three passes
}


def test_every_challenge_has_targets_sizes_and_milestones():
    for name in ch.NAMES:
        spec = ch.challenge(name)
        assert spec.MECHANISM and spec.MILESTONES, name
        assert {k for k, _ in spec.MILESTONES} >= {"textbook", "reference"}, name
        for t in spec.MECHANISM.values():
            assert t.get("fix"), name
        mids = set()
        for seed in range(8):
            sim = check_sizes(spec, "sim", seed)
            assert check_sizes(spec, "gpu", seed)[:len(sim)] == sim, name  # same on a GPU
            mids.add(json.dumps(sim[-1]))
        assert len(mids) > 1, name                  # the seed picks the mid size


@pytest.mark.parametrize("name", ch.NAMES)
def test_the_starter_fails_its_target_naming_the_counter_and_the_fix(runs, name):
    r = _run(runs, f"{name}/starter")
    v, counters = r["verdict"], r["counters"]
    counter, value = STARTER_FAULT[name]
    assert not v["mechanism"]["passed"] and not v["passed"]
    target = ch.challenge(name).MECHANISM[counter]
    if value is None:
        assert counter not in counters
        assert counter in v["mechanism"]["message"]
    else:
        if name == "regroup":
            assert counters[counter] >= value
        else:
            assert counters[counter] == pytest.approx(value)
        assert target["fix"] in v["mechanism"]["message"]


@pytest.mark.parametrize("name", ch.NAMES)
@pytest.mark.parametrize("kind", ["reference", "textbook"])
def test_the_reference_and_the_textbook_solution_pass(runs, name, kind):
    r = _run(runs, f"{name}/{kind}")
    v = r["verdict"]
    assert not r["errors"], r["errors"]
    assert v["correct"], v["first_wrong"]
    assert v["mechanism"]["passed"], v["mechanism"]["message"]
    for counter in ch.challenge(name).MECHANISM:      # measured, not passed for lack of it
        assert counter in r["counters"], counter
    assert v["passed"]


@pytest.mark.parametrize("name", ch.NAMES)
def test_a_numpy_kernel_on_the_host_is_refused(runs, name):
    r = _run(runs, f"{name}/host")
    assert not r["verdict"]["passed"] and not r["verdict"]["correct"]
    assert r["errors"] and all("outside a kernel" in e for e in r["errors"].values())


def test_the_reduce_statement_is_right_about_float32():
    """One float32 running sum stops at 2^24: adding a value below 1 rounds back."""
    import numpy as np

    s = np.float32(2 ** 24)
    assert s + np.float32(0.99) == s and np.float32(2 ** 24 - 2) + np.float32(0.99) != 2 ** 24 - 2
    assert "16,777,216" in ch.challenge("reduce").__doc__


def test_the_regroup_reference_is_the_starter_with_element_changed():
    from labs.challenges.solutions import regroup as ref
    from labs.challenges.starters import regroup as start

    assert ref.paths.py_func.__code__ is start.paths.py_func.__code__
    assert ref.paths.py_func.__globals__["element"] is ref.element
    assert start.paths.py_func.__globals__["element"] is start.element


# ------------------------------------------------------------------------ milestones

def _recorded(tmp_path, rows, date="2026-12-05T10:00:00+00:00"):
    (tmp_path / "H200").mkdir()
    (tmp_path / "H200" / "challenges.json").write_text(json.dumps(
        {"lab": "challenges", "context": {"date": date}, "rows": rows}))
    return tmp_path


def test_milestones_come_from_the_recorded_run(tmp_path):
    from labs.challenges import milestones

    d = _recorded(tmp_path, [
        {"challenge": "transpose", "kernel": "textbook", "share": 0.58, "correct": True},
        {"challenge": "transpose", "kernel": "reference", "share": 0.91, "correct": True},
        {"challenge": "transpose", "kernel": "copy", "error": "RuntimeError: boom"},
        {"challenge": "fuse", "kernel": "textbook", "share": 0.5}])
    rungs = {r["kernel"]: r["share"] for r in milestones.ladder("transpose", results_dir=d)}
    assert rungs == {"textbook": 0.58, "copy": None, "reference": 0.91}
    text = milestones.ladder_text("transpose", share=0.7, results_dir=d)
    lines = text.splitlines()
    assert "recorded 2026-12-05" in lines[0]
    order = [ln.split()[0] for ln in lines[1:4]]
    assert order == ["0.58", "0.70", "0.91"] and "yours" in lines[2]
    assert "not measured yet" in lines[4]
    said = milestones.sentence("transpose", results_dir=d)
    assert "58%" in said and "91%" in said and "is not measured yet" in said


def test_milestones_without_a_recorded_run(tmp_path):
    from labs.challenges import milestones

    assert all(r["share"] is None for r in milestones.ladder("fuse", results_dir=tmp_path))


# ------------------------------------------------------------------------------ page

def test_the_page_has_one_title_a_copyable_how_to_and_no_raw_backticks():
    from labs.challenges import page

    v = page.show("transpose", gpu="NVIDIA H200", verdict=False)
    html, md = v._repr_html_(), v._repr_markdown_()
    assert ch.challenge("transpose").TITLE not in html + md    # the chapter's heading is it
    assert "``" not in html and "`" not in html.split("<pre")[0]
    assert "<code>cuda.syncthreads()</code>" in html
    assert "```python\nimport labs.challenges as ch\n" in md
    assert "ch.check('transpose', 'my_transpose.py')" in page.how_to("transpose")
    assert "Sizes:" not in v.statement


def test_the_page_shows_the_starters_cpu_verdict():
    from labs.challenges import page

    text = page.starter_verdict("fuse")
    assert "launches" in text and "do the three steps in one kernel" in text
    assert "estimate" in text.lower()


def test_the_references_whole_tile_and_next_row_paths_are_right():
    """Paths the check's small sizes never reach (they keep the simulator quick): the
    matmul reference's whole 32 x 1024 tiles, the softmax reference's next-row loads (a
    grid of two blocks under the simulator, so five rows)."""
    code = (
        "from labs.challenges import challenge, harness\n"
        "from labs.challenges.solutions import matmul, softmax\n"
        "for name, ns, size in (('matmul', matmul, {'m': 64, 'n': 2048}),\n"
        "                       ('softmax', softmax, {'rows': 5})):\n"
        "    ch = challenge(name)\n"
        "    i, _a, got = harness.run_once(ch, ns, size, seed=5)\n"
        "    assert harness.compare(ch, i, got) is None, name\n"
        "print('ok')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=SIM, cwd=ROOT, timeout=600)
    assert proc.stdout.strip().endswith("ok"), proc.stderr[-2000:]
