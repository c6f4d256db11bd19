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


def _use(backend: str, monkeypatch) -> None:
    """Build the next sandboxes with ``backend`` (skip when it cannot start here)."""
    monkeypatch.setenv("GPU_PERF_BOOK_SANDBOX", backend)
    if backend == "unshare":  # one probe per setting, cached by root: this backend's own
        monkeypatch.setattr(sandbox, "_PROBE", {})
        if sandbox.probe(ROOT):
            pytest.skip(f"unshare cannot build a sandbox here: {sandbox.probe(ROOT)}")


@pytest.mark.parametrize("backend", _backends())
def test_a_check_writes_only_in_its_tmpfs(backend, tmp_path, monkeypatch):
    _use(backend, monkeypatch)
    python_parent = os.path.dirname(os.path.realpath(sys.prefix))
    # Each folder once: on CI the venv's parent is the clone itself (/check/work/main).
    folders = list(dict.fromkeys(["/", "/tmp", "/book", "/book/labs", python_parent, str(ROOT),
                                  "/usr", "/etc", "/dev", sandbox.CHECK, "/dev/shm"]))
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


#: Prints each mount the check sees: "MOUNT <point> <options>".
MOUNTS = """\
for line in open('/proc/self/mountinfo'):
    f = line.split()
    print('MOUNT', f[4].encode().decode('unicode_escape'), f[5])
"""
#: Mounts a check may write on: its tmpfs, multiprocessing's /dev/shm and the devpts
#: bubblewrap makes (bubblewrap's /dev itself, a tmpfs of no size, is read-only).
WRITABLE = (sandbox.CHECK, "/dev/shm", "/dev/pts")

#: Prints the size of each tmpfs a check can write: "SIZE <folder> <bytes>".
SIZES = """\
import os
for d in ('/check', '/dev/shm'):
    st = os.statvfs(d)
    print('SIZE', d, st.f_blocks * st.f_frsize)
"""


@pytest.mark.parametrize("backend", _backends())
def test_what_a_check_can_write_is_bounded(backend, tmp_path, monkeypatch):
    """Pages of a tmpfs count against no limit of the process that wrote them: each tmpfs
    a check can write has a size (a /dev without one let a check hold 3 GB of the host's
    memory, or half of it, past its own memory limit)."""
    _use(backend, monkeypatch)
    got = sandbox.run([sys.executable, "-c", SIZES], tmp_path, root=ROOT,
                      limits=sandbox.Limits(wall_s=60))
    assert got.returncode == 0, got.stderr[-2000:]
    sizes = {line.split()[1]: int(line.split()[2]) for line in got.stdout.splitlines()
             if line.startswith("SIZE ")}
    assert sizes == {sandbox.CHECK: sandbox.TMPFS_BYTES, "/dev/shm": sandbox.SHM_BYTES}, sizes


@pytest.mark.parametrize("gpu", [False, True], ids=["simulator", "gpu"])
@pytest.mark.parametrize("backend", _backends())
def test_every_mount_a_check_sees_is_read_only_but_its_own(backend, gpu, tmp_path,
                                                            monkeypatch):
    """/proc too: when the grader runs as root, the check's user is root outside (the one
    user a namespace made by root maps to), so a writable /proc/sys would let it set the
    host's kernel.core_pattern and run a command as the host's root. On a GPU, /sys is
    bound with the mounts below it (/sys/fs/cgroup: cgroup v1's release_agent is the same
    escape): every one of them read-only."""
    _use(backend, monkeypatch)
    got = sandbox.run([sys.executable, "-c", MOUNTS], tmp_path, root=ROOT, gpu=gpu,
                      limits=sandbox.Limits(wall_s=60, memory_bytes=None))
    assert got.returncode == 0, got.stderr[-2000:]
    mounts = [line.split(" ")[1:] for line in got.stdout.splitlines()
              if line.startswith("MOUNT ")]
    assert {"/", "/proc", "/usr", sandbox.CHECK} <= {point for point, _ in mounts}, mounts
    if gpu and os.path.isdir("/sys"):
        assert "/sys" in {point for point, _ in mounts}
    devices = {f"/dev/{d}" for d in ("null", "zero", "full", "random", "urandom", "tty")}
    devices |= set(sandbox.gpu_devices())
    # on a GPU /proc itself is writable (the CUDA driver's cuInit fails on a read-only
    # one), and the parts of it that reach the host are read-only mounts of their own
    own = WRITABLE + (("/proc",) if gpu else ())
    writable = [(point, options) for point, options in mounts
                if "ro" not in options.split(",")
                and point not in own and point not in devices]
    assert writable == [], f"{backend}: writable mounts inside the sandbox: {writable}"
    if gpu:
        ro = {point for point, options in mounts if "ro" in options.split(",")}
        assert {f"/proc/{p}" for p in sandbox.PROC_READ_ONLY
                if os.path.exists(f"/proc/{p}")} <= ro, mounts
        assert "/proc/sys" in ro, mounts


#: Opens each of the host's kernel settings for writing (writes nothing: opening is
#: the test, so a wall that fails harms no one) and prints what it could open.
KERNEL_SETTINGS = """\
import os
for path in ('/proc/sys/kernel/core_pattern', '/proc/sys/vm/stat_interval',
             '/proc/sysrq-trigger', '/proc/sys/kernel/modprobe'):
    try:
        os.close(os.open(path, os.O_WRONLY))
        print('OPENED', path)
    except OSError as e:
        print('REFUSED', path, e.strerror)
"""


@pytest.mark.parametrize("gpu", [False, True], ids=["simulator", "gpu"])
@pytest.mark.parametrize("backend", _backends())
def test_a_check_cannot_open_the_hosts_kernel_settings(backend, gpu, tmp_path, monkeypatch):
    """Meaningful where the grader is root (CI, most grading machines): as another user the
    files' own permissions refuse it anyway. On a GPU too, where /proc is writable."""
    _use(backend, monkeypatch)
    got = sandbox.run([sys.executable, "-c", KERNEL_SETTINGS], tmp_path, root=ROOT, gpu=gpu,
                      limits=sandbox.Limits(wall_s=60, memory_bytes=None))
    assert got.returncode == 0, got.stderr[-2000:]
    assert "REFUSED /proc/sys/kernel/core_pattern" in got.stdout, got.stdout
    assert "OPENED" not in got.stdout, got.stdout


#: Looks for a pipe held by any other process of the sandbox (the payload's), writes a
#: forged payload into each it can open, then hands back its own honest one.
FORGER = """\
import glob, os
me = str(os.getpid())
for fd in glob.glob('/proc/[0-9]*/fd/*'):
    if fd.split('/')[2] == me:
        continue
    try:
        if not os.readlink(fd).startswith('pipe:'):
            continue
        with open(fd, 'wb') as f:
            f.write(b'FORGED')
        print('FORGED INTO', fd)
    except OSError as e:
        print('REFUSED', fd, e.strerror)
with open('/check/out.npz', 'wb') as f:
    f.write(b'HONEST')
"""


@pytest.mark.parametrize("backend", _backends())
def test_the_payload_pipe_is_out_of_the_checks_reach(backend, tmp_path, monkeypatch):
    """The wrapper that forwards the payload is not dumpable: the check, the same user
    without capabilities, cannot open its /proc/PID/fd to write a payload of its own."""
    _use(backend, monkeypatch)
    got = sandbox.run([sys.executable, "-c", FORGER], tmp_path, root=ROOT,
                      limits=sandbox.Limits(wall_s=60))
    assert got.returncode == 0, got.stderr[-2000:]
    assert "FORGED INTO" not in got.stdout, got.stdout
    assert got.payload is not None and got.payload.read_bytes() == b"HONEST"


@pytest.mark.parametrize("backend", _backends())
def test_the_wrapper_keeps_the_commands_exit_status(backend, tmp_path, monkeypatch):
    """As a shell would: the status, 128 + N for signal N, 127 for a missing program."""
    _use(backend, monkeypatch)
    for command, want in (([sys.executable, "-c", "raise SystemExit(7)"], 7),
                          ([sys.executable, "-c", "import os; os.kill(os.getpid(), 9)"], 137),
                          (["/no/such/program"], 127)):
        (tmp_path / str(want)).mkdir()
        got = sandbox.run(command, tmp_path / str(want), root=ROOT,
                          limits=sandbox.Limits(wall_s=60))
        assert got.returncode == want, (command, got.returncode, got.stderr[-500:])


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


def test_a_virtual_environment_reached_through_a_link_is_seen_at_both_paths(monkeypatch,
                                                                             tmp_path):
    """A checkout whose .venv links to another's: sys.executable names the linked path,
    so the check must see the environment there too (it refused to start before)."""
    real = tmp_path / "real_env"
    (real / "bin").mkdir(parents=True)
    link = tmp_path / "checkout" / ".venv"
    link.parent.mkdir()
    link.symlink_to(real)
    monkeypatch.setattr(sandbox.sys, "prefix", str(link))
    monkeypatch.setattr(sandbox.sys, "exec_prefix", str(link))
    monkeypatch.setattr(sandbox.sys, "executable", str(link / "bin" / "python"))
    pairs = sandbox._python_paths()
    assert (str(real), str(link)) in pairs and (str(real), str(real)) in pairs, pairs
