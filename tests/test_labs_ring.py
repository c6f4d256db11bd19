"""The CPU collectives lab (labs.ring): the model's counts and the alpha-beta fit against
hand-worked values, the checker's verdicts on made-up reports, and real runs across 2 and 4
gloo processes on this computer (the reference ring passes, a broken one is named, a
deadlock is bounded by the time limit, a quick timing run yields rows). No timing is
asserted: only that the runs finish and say the right thing."""
from __future__ import annotations

import json
import pathlib

import pytest

from labs import results, ring

ROOT = pathlib.Path(__file__).resolve().parents[1]


# ---- the model's counts, worked by hand ------------------------------------------------

@pytest.mark.parametrize("alg,n,expected", [
    ("ring", 4, (6, 6 / 4 * 1000)),      # 2(n-1) steps, 2(n-1)/n of S
    ("ring", 2, (2, 1000.0)),
    ("tree", 4, (4, 4000.0)),             # 2 log2 4 rounds of S
    ("tree", 5, (6, 6000.0)),             # ceil(log2 5) = 3
    ("naive", 4, (6, 6000.0)),            # 3 receives then 3 sends at the root, S each
    ("gloo", 8, (14, 1750.0)),
])
def test_counts(alg, n, expected):
    assert ring.counts(alg, n, 1000) == pytest.approx(expected)


@pytest.mark.parametrize("args", [("star", 4, 1), ("ring", 1, 1), ("ring", 4, -1)])
def test_counts_bad_input(args):
    with pytest.raises(ValueError, match="algorithm|n must|nbytes"):
        ring.counts(*args)


def test_fit_recovers_alpha_and_beta():
    alpha, beta = 30e-6, 2e9  # a made-up link
    rows = [{"steps": s, "bytes_moved": b, "seconds": s * alpha + b / beta}
            for s in (2, 6) for b in (4e3, 6.4e4, 1e6, 1.6e7)]
    a, b = ring.fit(rows)
    assert a == pytest.approx(alpha, rel=1e-6) and b == pytest.approx(beta, rel=1e-6)


def test_fit_refuses_what_it_cannot_fit():
    with pytest.raises(ValueError, match="two"):
        ring.fit([{"steps": 2, "bytes_moved": 1, "seconds": 1}])
    flat = [{"steps": 2, "bytes_moved": b, "seconds": 1e-3} for b in (1e3, 1e6)]
    flat[1]["seconds"] = 0.5e-3  # time falls as bytes grow: no rate
    with pytest.raises(ValueError, match="rate"):
        ring.fit(flat)


# ---- the checker's verdicts on made-up reports -------------------------------------------

def _reports(n, numel=4099, sent=None, ok=None, **extra):
    """n ranks' reports for one size; sent[r] bytes sent by rank r, ok[r] whether correct."""
    sent = sent or [2 * (n - 1) * -(-numel // n) * 4] * n
    ok = ok or [True] * n
    return [{"rank": r, "cases": [dict({"rank": r, "numel": numel, "itemsize": 4, "ok": ok[r],
                                        "unchanged": False, "sent": sent[r],
                                        "received": sent[r], "collectives": [],
                                        "index": 0, "got": 1.0, "expected": 10.0}, **extra)]}
            for r in range(n)]


def test_verdict_ring_traffic_passes():
    ok, text = ring.verdict(4, _reports(4))
    assert ok and "a ring's traffic" in text


def test_verdict_names_the_busy_root():
    buf = 4099 * 4
    ok, text = ring.verdict(4, _reports(4, sent=[3 * buf, buf, buf, buf]))
    assert ok and "rank 0" in text and "3.00 buffers" in text and "2.0x" in text


def test_verdict_names_ranks_left_without_the_sum():
    ok, text = ring.verdict(4, _reports(4, numel=1000, ok=[True, False, False, False]))
    assert not ok and "ranks [0] hold the sum" in text


def test_verdict_chunk_boundaries():
    reps = _reports(4, numel=7, ok=[False] * 4) + _reports(4, numel=1000)
    merged = [{"rank": r, "cases": reps[r]["cases"] + reps[4 + r]["cases"]} for r in range(4)]
    ok, text = ring.verdict(4, merged)
    assert not ok and "chunk boundaries" in text and "7 elements" in text


def test_verdict_built_in_collective_and_errors():
    ok, text = ring.verdict(2, _reports(2, collectives=["all_reduce"]))
    assert not ok and "dist.all_reduce" in text
    ok, text = ring.verdict(2, [{"rank": 1, "error": "RuntimeError: Timed out waiting"},
                                {"rank": 0, "cases": []}])
    assert not ok and "Rank 1" in text and "deadlock" in text


# ---- real runs across CPU processes (gloo over loopback) ----------------------------------

def test_reference_ring_passes_on_2_and_4_ranks(capsys):
    assert ring.check(ring.ring_allreduce, ranks=(2, 4))
    out = capsys.readouterr().out
    assert out.count("PASS") == 2 and "a ring's traffic" in out


def _lost_all_gather(x):
    """A ring with its all-gather phase left out: each rank holds one summed chunk only."""
    import torch
    import torch.distributed as dist

    n, r = dist.get_world_size(), dist.get_rank()
    chunks = list(torch.tensor_split(x.view(-1), n))
    for k in range(n - 1):
        s, v = (r - k) % n, (r - k - 1) % n
        req = dist.isend(chunks[s], (r + 1) % n)
        buf = torch.empty_like(chunks[v])
        dist.recv(buf, (r - 1) % n)
        chunks[v] += buf
        req.wait()


def test_a_broken_ring_is_named(capsys):
    assert not ring.check(_lost_all_gather, ranks=(2,))
    assert "FAIL" in capsys.readouterr().out


def _waits_forever(x):
    import torch.distributed as dist

    dist.recv(x, (dist.get_rank() + 1) % dist.get_world_size())


def test_a_deadlock_is_bounded_and_named(capsys):
    assert not ring.check(_waits_forever, ranks=(2,), timeout_s=2.0)
    assert "deadlock" in capsys.readouterr().out


def test_quick_timing_rows_and_fit():
    rows = ring.time_algorithms(n=2, quick=True)
    assert {r["algorithm"] for r in rows} == {"naive", "tree", "ring", "gloo"}
    assert all(r["seconds"] > 0 and r["ranks"] == 2 for r in rows)
    summary = ring.summarize(rows)
    assert {"ring_2_best_busbw", "gloo_2_best_busbw"} <= set(summary)  # fits may be refused


def test_bad_inputs():
    with pytest.raises(ValueError, match="fn must"):
        ring.check(42)
    with pytest.raises(ValueError, match="n must"):
        ring.launch(1, {}, 1.0)
    with pytest.raises(ValueError, match="fns keys"):
        ring.time_algorithms({"star": ring.ring_allreduce})


# ---- the recorded run ------------------------------------------------------------------

def test_recorded_cpu_run_says_it_is_not_a_gpu():
    path = ROOT / "labs" / "results" / "cpu-gloo" / "ring.json"
    run = results.validate(json.loads(path.read_text()))
    ctx = run["context"]
    assert run["lab"] == "ring" and ctx["backend"] == "gloo"
    assert "CPU" in ctx["gpu_name"] and "loopback" in ctx["transport"]
    assert {"ring_4_alpha_s", "ring_4_beta"} <= set(run["summary"])
    for row in run["rows"]:  # the counts stored beside each time are the model's
        assert (row["steps"], row["bytes_moved"]) == pytest.approx(
            ring.counts(row["algorithm"], row["ranks"], row["bytes"]))
