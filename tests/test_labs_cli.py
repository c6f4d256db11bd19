"""python -m labs run: a lab whose tool this machine lacks (ncu for the profile lab) is
skipped with its one sentence under --all, and fails when asked for by name."""
from __future__ import annotations

import types

import pytest

import labs
import labs.__main__ as cli
import labs.gpu
from labs.ncu import NcuUnavailable


@pytest.fixture
def fake_gpu(monkeypatch, tmp_path):
    monkeypatch.setattr(labs.gpu, "has_cuda", lambda: True)
    ran = []

    def fake_module(name):
        def run(quick=False):
            ran.append(name)
            if name == "profile":
                raise NcuUnavailable("ncu is not installed here.")
            return {"lab": name, "context": {"gpu_name": "Fake GPU", "gpu_slug": "fake"},
                    "params": {}, "rows": [], "summary": {"x": 1.0}}
        return types.SimpleNamespace(run=run)

    monkeypatch.setattr(cli, "module", fake_module)
    monkeypatch.setattr(cli, "available", lambda: list(labs.LABS))
    return ran, tmp_path


def test_all_skips_a_lab_without_its_tool(fake_gpu, capsys):
    ran, out = fake_gpu
    assert cli.main(["run", "--all", "--quick", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "profile: skipped: ncu is not installed here." in text
    assert "Traceback" not in text and ran == list(labs.LABS)
    assert len(list((out / "fake").glob("*.json"))) == len(labs.LABS) - 1


def test_by_name_the_missing_tool_is_a_failure(fake_gpu, capsys):
    _, out = fake_gpu
    assert cli.main(["run", "profile", "--out", str(out)]) == 1
    assert "profile: skipped: ncu is not installed here." in capsys.readouterr().out
