"""The sandbox's walls, wherever the book and its Python live: a check can write only in
its own tmpfs (``/check``, and the ``/dev/shm`` that multiprocessing needs), on both
backends this machine can build, and a Python installed under a folder named like the
check's tmpfs (a clone at ``/check/work/main``, as one CI machine has it) is still seen
inside."""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import uuid

import pytest

from exercises import sandbox

ROOT = pathlib.Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(bool(sandbox.probe(ROOT)),
                                reason=f"no sandbox here: {sandbox.probe(ROOT)}")

#: Tries to write a file in each folder and prints which it could.
WRITER = """\
import os, sys
for d in {folders!r}:
    try:
        with open(os.path.join(d, 'written-by-a-check'), 'w') as f:
            f.write('x')
        print('WROTE', d)
    except OSError:
        pass
"""


def _backends() -> list[str]:
    found = []
    if shutil.which("bwrap"):
        found.append("bwrap")
    if all(shutil.which(t) for t in ("unshare", "chroot", "setpriv")):
        found.append("unshare")
    return found


@pytest.mark.parametrize("backend", _backends())
def test_a_check_writes_only_in_its_tmpfs(backend, tmp_path, monkeypatch):
    monkeypatch.setenv("GPU_PERF_BOOK_SANDBOX", backend)
    if backend == "unshare":  # one probe per setting, cached by root: this backend's own
        monkeypatch.setattr(sandbox, "_PROBE", {})
        if sandbox.probe(ROOT):
            pytest.skip(f"unshare cannot build a sandbox here: {sandbox.probe(ROOT)}")
    python_parent = os.path.dirname(os.path.realpath(sys.prefix))
    folders = ["/", "/tmp", "/book", "/book/labs", python_parent, str(ROOT), "/usr",
               "/etc", sandbox.CHECK, "/dev/shm"]
    got = sandbox.run([sys.executable, "-c", WRITER.format(folders=folders)], tmp_path,
                      root=ROOT, limits=sandbox.Limits(wall_s=60))
    assert got.returncode == 0, got.stderr[-2000:]
    wrote = sorted(line.split(" ", 1)[1] for line in got.stdout.splitlines()
                   if line.startswith("WROTE "))
    # Inside the tmpfs: /check, and any folder under it (a clone at /check/work/main
    # shows there as empty folders of the check's own tmpfs, not the book's).
    private = sorted({f for f in folders if f == "/dev/shm" or f == sandbox.CHECK
                      or f.startswith(sandbox.CHECK + "/")})
    assert wrote == private, (backend, got.stdout)
    assert not (ROOT / "written-by-a-check").exists()


def test_a_python_under_the_checks_folder_name_is_seen_inside(tmp_path):
    """A virtual environment at /check/<name>/venv (the sandbox mounts its tmpfs at /check
    over whatever was bound there before): the sandbox still starts and runs it."""
    if not os.access("/", os.W_OK):
        pytest.skip("making /check needs a writable / (CI's machine runs as root)")
    made_top = not os.path.exists(sandbox.CHECK)
    place = pathlib.Path(sandbox.CHECK) / f"sandbox-test-{uuid.uuid4().hex[:8]}"
    try:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages",
                        str(place / "venv")], check=True, capture_output=True, timeout=120)
        python = place / "venv" / "bin" / "python"
        ask = ("import pathlib, sys; from exercises import sandbox; "
               f"print(repr(sandbox.probe(pathlib.Path({str(ROOT)!r}))))")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        env.pop("GPU_PERF_BOOK_SANDBOX", None)
        got = subprocess.run([str(python), "-c", ask], capture_output=True, text=True,
                             env=env, timeout=120)
        assert got.returncode == 0, got.stderr[-2000:]
        assert got.stdout.strip() == "''", f"the sandbox does not start: {got.stdout}"
    finally:
        shutil.rmtree(place, ignore_errors=True)
        if made_top:
            shutil.rmtree(sandbox.CHECK, ignore_errors=True)


def test_a_python_that_would_cover_a_sandbox_folder_is_named(monkeypatch):
    monkeypatch.setattr(sandbox.sys, "prefix", "/book")
    monkeypatch.setattr(sandbox.os.path, "isdir", lambda p: True)
    with pytest.raises(ValueError, match="/book"):
        sandbox._python_paths()
