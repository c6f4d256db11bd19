"""The comm lab without a GPU: its sizes, its launch environment, NCCL-tests' bus-bandwidth
arithmetic on its rows (expected values worked by hand here), the JSON it saves, the clear
message without a GPU, and its display with no run, a one-GPU run and an eight-GPU run
(made-up rows: no timing is asserted)."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

import labs
from labs import comm, comm_display, results

ROOT = pathlib.Path(__file__).resolve().parents[1]
KIB, GIB = 1024, 1024 ** 3


@pytest.fixture(autouse=True)
def _no_gpu(monkeypatch):
    monkeypatch.setattr("labs.gpu.has_cuda", lambda: False)


def _fake(n: int) -> dict:
    """A run on n made-up GPUs: copies at 50 GB/s after 5 us, collectives at 300 GB/s."""
    rows = []
    for s in comm.sizes(quick=True):
        for path in comm.COPIES:
            rows.append(comm.copy_row(path, s, 5e-6 + s / 50e9))
        if n >= 2:
            rows.append(comm.copy_row("peer to peer", s, 5e-6 + s / 300e9))
            for op in ("all_reduce", "all_gather"):
                rows.append(comm.collective_row(op, s, 20e-6 + s / 300e9, n))
    ctx = {"gpu_name": "NVIDIA H200", "gpu_slug": "H200", "date": "2026-12-03T21:00:00+00:00",
           "world_size": n, "gpu_count": n, "topology": "GPU0\tX", "nccl": "2.27.3"}
    return comm.common.record("comm", {"quick": True, "world_size": n}, rows,
                              comm.summarize(rows, n), ctx)


def test_sizes_run_from_4_kib_to_1_gib():
    full = comm.sizes()
    assert full[0] == 4 * KIB and full[-1] == GIB and len(full) == 19   # 2^12 .. 2^30
    assert comm.sizes(quick=True) == [4 * KIB * 4 ** k for k in range(10)]
    assert comm.sizes(max_bytes=64 * KIB) == [4 * KIB, 8 * KIB, 16 * KIB, 32 * KIB, 64 * KIB]
    for bad in (1024, 2 * GIB):
        with pytest.raises(ValueError, match="max_bytes"):
            comm.sizes(max_bytes=bad)


def test_launch_reads_torchrun_environment():
    assert comm.launch({}) == {"torchrun": False, "rank": 0, "world_size": 1, "local_rank": 0}
    env = {"RANK": "3", "WORLD_SIZE": "8", "LOCAL_RANK": "3"}
    assert comm.launch(env) == {"torchrun": True, "rank": 3, "world_size": 8, "local_rank": 3}
    with pytest.raises(ValueError, match="RANK"):
        comm.launch({"RANK": "x", "WORLD_SIZE": "2"})
    with pytest.raises(ValueError, match="WORLD_SIZE"):
        comm.launch({"RANK": "2", "WORLD_SIZE": "2"})


def test_bus_bandwidth_as_nccl_tests_defines_it():
    """NCCL-tests (doc/PERFORMANCE.md): algbw = S / t; busbw = algbw x 2(n-1)/n for
    all-reduce and x (n-1)/n for all-gather. 1 GiB in 5 ms is 214.7483648 GB/s."""
    row = comm.collective_row("all_reduce", GIB, 5e-3, 8)
    assert row["algbw"] == pytest.approx(214.7483648e9)
    assert row["busbw"] == pytest.approx(214.7483648e9 * 14 / 8)
    row = comm.collective_row("all_gather", GIB, 5e-3, 8)
    assert row["busbw"] == pytest.approx(214.7483648e9 * 7 / 8)
    assert comm.collective_row("all_reduce", GIB, 5e-3, 2)["busbw"] == pytest.approx(214.7483648e9)
    assert comm.copy_row("peer to peer", 4 * KIB, 1e-6)["bandwidth"] == pytest.approx(4.096e9)


def test_summary_takes_the_best_of_each_path():
    r = _fake(8)
    s = r["summary"]
    assert set(s) <= set(comm.SUMMARY_KEYS)
    assert s["gpus"] == 8
    assert s["h2d_bandwidth"] == pytest.approx(GIB / (5e-6 + GIB / 50e9))
    assert s["h2d_alpha_s"] == pytest.approx(5e-6, rel=1e-6)
    assert s["all_reduce_small_s"] == pytest.approx(20e-6 + 4096 / 300e9)
    one = _fake(1)["summary"]
    assert "peer_bandwidth" not in one and "all_reduce_busbw" not in one


def test_json_shape_round_trips(tmp_path):
    r = _fake(2)
    path = results.save(r, tmp_path)
    assert path == tmp_path / "H200" / "comm.json"
    back = results.load("comm", "H200", tmp_path)
    assert back == json.loads(json.dumps(r))
    for key in ("world_size", "gpu_count", "topology", "nccl"):
        assert key in back["context"]
    kinds = {row["kind"] for row in back["rows"]}
    assert kinds == {"copy", "collective"}


def test_no_gpu_is_one_clear_sentence(capsys):
    assert comm.main(["--quick"]) == 2
    err = capsys.readouterr().err
    assert "torch sees none" in err and "Traceback" not in err


def test_cli_rejects_a_bad_size(capsys):
    with pytest.raises(SystemExit) as e:
        comm.main(["--max-bytes", "100"])
    assert e.value.code == 2 and "--max-bytes" in capsys.readouterr().err


def test_listed_and_importable_without_plotly():
    assert "comm" in labs.LABS
    code = ("import sys, labs.comm\n"
            "bad = [m for m in ('plotly', 'ipywidgets') if m in sys.modules]\n"
            "assert not bad, bad\n")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=env)
    out = subprocess.run([sys.executable, "-m", "labs", "list"], capture_output=True, text=True,
                         cwd=ROOT, env=env, check=True).stdout
    assert any(line.startswith("comm ") for line in out.splitlines())


def _drawable(fig):
    assert fig.data
    for tr in fig.data:
        assert all(y > 0 for y in tr.y), tr.name


def test_show_without_a_recorded_run_draws_the_model(monkeypatch, tmp_path):
    monkeypatch.setattr(results, "RESULTS_DIR", tmp_path)
    view = labs.show("comm")
    assert view.result is None and "No run of this lab is recorded yet" in view.note
    _drawable(view.figure())
    assert "no run yet" in view._repr_mimebundle_()["text/html"]


@pytest.mark.parametrize("n, says", [(1, "only one GPU was measured"), (8, "8 GPUs")])
def test_show_says_how_many_gpus_were_measured(monkeypatch, tmp_path, n, says):
    results.save(_fake(n), tmp_path)
    monkeypatch.setattr(results, "RESULTS_DIR", tmp_path)
    view = labs.show("comm")
    assert says in view.note
    fig = view.figure()
    _drawable(fig)
    names = [t.name for t in fig.data]
    # the measured all-reduce only where several GPUs ran; the model's on 8 GPUs always
    assert any(name.startswith("NVIDIA H200") and "all-reduce" in name for name in names) == (n >= 2)
    assert any(name.startswith("model: ring all-reduce on 8 GPUs") for name in names)
    page = view._repr_mimebundle_()["text/html"]
    assert ("not measured" in page) == (n == 1)
    with pytest.raises(ValueError, match="B200"):
        comm_display.show(gpu="B200")


def test_on_a_gpu_the_run_made_now_sits_beside_the_recorded_collectives(monkeypatch, tmp_path):
    """Colab's T4: the one-GPU part runs now; the collectives come from the recorded run."""
    results.save(_fake(8), tmp_path)
    monkeypatch.setattr(results, "RESULTS_DIR", tmp_path)
    monkeypatch.setattr("labs.gpu.has_cuda", lambda: True)
    now = _fake(1)
    now["context"].update(gpu_name="Tesla T4", gpu_slug="T4")
    monkeypatch.setattr(comm, "run", lambda quick=False: now)
    view = comm.show()   # what labs.show("comm") calls: it hands the display its run
    assert view.result is now and len(view.others) == 1
    assert "your Tesla T4" in view.note and "recorded on 8 x NVIDIA H200" in view.note
    names = [t.name for t in view.figure().data]
    assert any(n.startswith("Tesla T4") for n in names)
    assert any(n.startswith("NVIDIA H200") and "all-reduce" in n for n in names)


def test_nccl_settings_recorded_from_the_environment():
    """The algorithm and protocol NCCL was told to use go into the context; unset is None."""
    assert comm.nccl_settings({}) == {"nccl_algo": None, "nccl_proto": None}
    assert comm.nccl_settings({"NCCL_ALGO": "Ring", "NCCL_PROTO": "Simple"}) == {
        "nccl_algo": "Ring", "nccl_proto": "Simple"}


def test_largest_copy_is_the_biggest_message_not_the_fastest():
    """The 16 MiB copy is fastest (L2) but the 1 GiB row is the DRAM one (rows made up here)."""
    from labs import comm_display
    rows = [{"kind": "copy", "path": "device to device", "bytes": 2 ** 24, "bandwidth": 2.5e12},
            {"kind": "copy", "path": "device to device", "bytes": 2 ** 30, "bandwidth": 2.1e12},
            {"kind": "copy", "path": "host to device (pinned)", "bytes": 2 ** 31,
             "bandwidth": 5e10}]
    assert comm_display.largest_copy({"rows": rows}, "device to device")["bytes"] == 2 ** 30
    assert comm_display.largest_copy({"rows": rows}, "peer to peer") is None
