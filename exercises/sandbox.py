"""The sandbox every student check runs in: bubblewrap (``bwrap``), nothing of the grader.
Where bubblewrap is missing (a GPU box without network to install it), the same sandbox
is built from util-linux's ``unshare``, ``chroot`` and ``setpriv`` (:func:`_unshare_argv`).

Inside, the check sees:

- the book's code it needs (``labs/``, ``perfmodel/``) read-only at ``/book``, with an
  empty tmpfs over the reference solutions (``labs/challenges/solutions``): no answer key,
  no ``exercises/``, no ``.git``, no assignments, grades or other students' files;
- the Python it runs (the virtual environment and its base interpreter) and the system's
  ``/usr`` read-only, a few files of ``/etc`` (the loader's cache, passwd, ...);
- one private tmpfs of a fixed size, ``/check``, holding the submission (read-only): the
  only place it can write, with ``/dev/shm`` (multiprocessing's, a tmpfs of
  :data:`SHM_BYTES`); everything else is read-only: ``/dev`` (whose tmpfs has no size
  limit: pages a check wrote there would count against no limit of its own), the root
  that holds the folders above each bind, every mount below a bind
  (``/sys/fs/cgroup`` under ``/sys``), and ``/proc`` (on a GPU, whose driver writes
  under it, its :data:`PROC_READ_ONLY` parts: ``/proc/sys``, ``/proc/sysrq-trigger``,
  ...). This matters most when the grader
  is root: a user namespace made by root maps the check's user to root outside, and the
  kernel's settings under ``/proc/sys`` (``kernel.core_pattern``: a command the host runs
  as root when a process crashes) or cgroup v1's ``release_agent`` check no more than the
  owner of the file;
- its own user (uid 65534), PID, network (no interface but loopback), IPC and UTS
  namespaces; no capabilities; a new session; ``--die-with-parent``. When the command
  ends, the PID namespace ends and the kernel kills everything left in it, so a
  double-forked ``setsid`` child cannot outlive the check;
- resource limits set before ``bwrap`` starts and inherited by everything it starts:
  CPU time, address space (the simulator only), file size (what it may print), no core
  files, processes (``RLIMIT_NPROC``; a root grader, whom the kernel exempts from it, puts
  the check in its own ``pids`` cgroup when it can), and a wall-clock limit after which
  the whole process group is killed;
- on a GPU grading machine, the NVIDIA device nodes (``/dev/nvidia*``) and ``/sys``
  read-only; else only ``/dev``'s null, zero, random, urandom and tty.

The file the check hands back (``/check/out.npz``) leaves the sandbox through a pipe held
by a trusted wrapper (:data:`_WRAPPER`) that the student's process never holds and cannot
reach (the wrapper is not dumpable, so its ``/proc/PID/fd`` is closed to the check), read
by the grader up to the tmpfs's size.
"""
from __future__ import annotations

import glob
import math
import os
import pathlib
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

#: Where the book's code is inside the sandbox.
BOOK = "/book"
#: The check's private tmpfs inside the sandbox (its working, home and temporary folder).
CHECK = "/check"
#: The file the check writes, inside the tmpfs.
PAYLOAD = f"{CHECK}/out.npz"
#: The book's folders a check imports (relative to the book's root).
CODE: tuple[str, ...] = ("labs", "perfmodel")
#: Folders under CODE replaced by an empty tmpfs: the answer keys.
HIDDEN: tuple[str, ...] = ("labs/challenges/solutions",)
#: The user and group a check runs as inside its user namespace.
NOBODY = 65534
#: Files of /etc a Python process may read (the loader, names of users, time zone).
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "passwd", "group", "nsswitch.conf",
       "localtime", "alternatives")
#: Wall-clock limit of one check, seconds.
WALL_S = 60.0
#: Address-space limit of one check on the simulator, bytes.
MEMORY_BYTES = 4 * 2 ** 30
#: Largest file (its printed output included) a check may write, bytes.
OUTPUT_BYTES = 64 * 2 ** 20
#: Size of the check's tmpfs, bytes (also the largest file it can hand back).
TMPFS_BYTES = 512 * 2 ** 20
#: What of /proc stays read-only where /proc itself cannot be: the host's kernel settings
#: and what reaches its hardware (Docker's read-only set). On a GPU the CUDA driver's
#: initialisation writes under /proc (cuInit fails with CUDA_ERROR_OPERATING_SYSTEM on a
#: read-only /proc: seen on an H100, 2026-12-07), so there /proc is writable but these.
PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs")
#: Size of the check's ``/dev/shm``, bytes.
SHM_BYTES = 64 * 2 ** 20
#: Processes and threads a check may have at once (the simulator runs a block's threads as
#: threads: up to 1,024).
PROCESSES = 2048
#: Stack of each thread of a check on the simulator, bytes.
SIM_STACK_BYTES = 2 ** 20
#: The trusted wrapper, run by the sandbox's Python (``-I -S``: nothing of the check's
#: environment or site-packages) as ``WRAPPER FD PAYLOAD COMMAND...``: it makes itself
#: not dumpable, so that no process of the check (the same user, no capabilities) can open
#: its ``/proc/PID/fd`` and write into the pipe; runs the command with every other file
#: descriptor closed; then sends the payload down the pipe. Exits as bash would: the
#: command's status, 128 + N when signal N ended it, 127 when it cannot start.
_WRAPPER = r"""
import ctypes, os, shutil, subprocess, sys
fd, payload, command = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
if ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:
    sys.exit("sandbox wrapper: prctl(PR_SET_DUMPABLE, 0) failed")
os.chdir(os.path.dirname(payload))
try:
    rc = subprocess.call(command, close_fds=True)
except OSError as e:
    print(f"sandbox: cannot run {command[0]}: {e}", file=sys.stderr)
    rc = 127
if os.path.isfile(payload):
    try:
        with open(payload, "rb") as src, os.fdopen(fd, "wb") as dst:
            shutil.copyfileobj(src, dst)
    except OSError:
        pass
sys.exit(128 - rc if rc < 0 else rc)
"""


def _wrapped(command: list[str], fd: int) -> list[str]:
    """``command`` run by the trusted wrapper, which hands the payload to ``fd``."""
    return [sys.executable, "-I", "-S", "-c", _WRAPPER, str(int(fd)), PAYLOAD, *command]


@dataclass(frozen=True)
class Limits:
    """What one check may use: ``wall_s`` (seconds of wall-clock time), ``cpu_s`` (CPU
    seconds, default the wall limit), ``memory_bytes`` (address space; None: no limit, the
    default on a GPU, where CUDA reserves far more address space than it uses),
    ``output_bytes`` (largest file, printed output included), ``tmpfs_bytes`` (the
    check's writable space) and ``processes`` (processes and threads at once)."""

    wall_s: float = WALL_S
    memory_bytes: int | None = MEMORY_BYTES
    cpu_s: float | None = None
    output_bytes: int = OUTPUT_BYTES
    tmpfs_bytes: int = TMPFS_BYTES
    processes: int = PROCESSES

    def __post_init__(self):
        for name in ("wall_s", "cpu_s"):
            v = getattr(self, name)
            if v is None and name == "cpu_s":
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < math.inf:
                raise ValueError(f"{name} must be a number of seconds > 0, got {v!r}")
        for name in ("memory_bytes", "output_bytes", "tmpfs_bytes"):
            v = getattr(self, name)
            if v is None and name == "memory_bytes":
                continue
            if isinstance(v, bool) or not isinstance(v, int) or v < 2 ** 20:
                raise ValueError(f"{name} must be a whole number of bytes >= 1 MiB "
                                 f"(1048576), got {v!r}")
        if isinstance(self.processes, bool) or not isinstance(self.processes, int) \
                or self.processes < 8:
            raise ValueError(f"processes must be a whole number >= 8, got {self.processes!r}")

    @property
    def cpu(self) -> float:
        return self.wall_s if self.cpu_s is None else self.cpu_s


@dataclass
class Run:
    """A finished sandboxed command: ``returncode`` (negative: the signal that ended it;
    None: killed at the wall-clock limit), its output (the last 200 kB of each), how long
    it took (seconds), and ``payload``: the file it handed back (a path on the grader's
    side) or None."""

    returncode: int | None
    stdout: str
    stderr: str
    wall_s: float
    timed_out: bool = False
    payload: pathlib.Path | None = None
    notes: list[str] = field(default_factory=list)


def _python_paths() -> list[tuple[str, str]]:
    """The folders the running Python needs, as (folder, where the check sees it): the
    virtual environment and its base, each at its real path and, where a symbolic link
    leads to it (a ``.venv`` linked from another checkout), at the linked path too, which
    is the one ``sys.executable`` names."""
    places = (sys.prefix, sys.base_prefix, sys.exec_prefix,
              os.path.dirname(os.path.dirname(sys.executable)))
    pairs = {(os.path.realpath(p), seen) for p in places
             for seen in (os.path.realpath(p), os.path.abspath(p))}
    pairs = {(src, seen) for src, seen in pairs
             if seen not in ("/", "/usr") and os.path.isdir(src)}
    for _, p in pairs:
        for inside in (BOOK, CHECK, "/proc", "/dev"):
            if inside == p or inside.startswith(p.rstrip("/") + "/"):
                raise ValueError(f"python: this Python lives at {p}, which would cover the "
                                 f"sandbox's {inside}; install it (or its virtual "
                                 "environment) anywhere else")
    return sorted(pairs)


def _system() -> list[str]:
    """bwrap arguments for /usr, its merged-usr links and the few /etc files."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for name in ETC:
        if os.path.exists(f"/etc/{name}"):
            args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    return args


def _path(name: str, value: object) -> pathlib.Path:
    """A file or folder argument as a Path, or TypeError naming the argument."""
    if not isinstance(value, (str, pathlib.PurePath)) or not str(value).strip():
        raise TypeError(f"{name} must be a path (text or pathlib.Path), got {value!r}"[:200])
    return pathlib.Path(value)


def _texts(name: str, value: object, *, empty: bool = True) -> tuple[str, ...]:
    """A list or tuple of text (a command, folders of the book), or TypeError naming it."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)) \
            or not all(isinstance(v, str) and v for v in value) or not (empty or value):
        raise TypeError(f"{name} must be a list of text, got {value!r}"[:200])
    return tuple(value)


def _arguments(command: object, root: object, submission: object, inside_name: object,
               limits: object, gpu: object, code: object, hidden: object) -> None:
    """Check :func:`run`'s and :func:`probe`'s arguments (TypeError or ValueError naming
    the argument)."""
    if command is not None:
        _texts("command", command, empty=False)
    _path("root", root)
    if submission is not None:
        _path("submission", submission)
    if not isinstance(inside_name, str) or not inside_name or "/" in inside_name \
            or inside_name in (".", ".."):
        raise ValueError(f"inside_name must be a file name, got {inside_name!r}"[:200])
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a Limits, got {limits!r}"[:200])
    if not isinstance(gpu, bool):
        raise TypeError(f"gpu must be True or False, got {gpu!r}"[:200])
    for name, value in (("code", code), ("hidden", hidden)):
        if any(v.startswith("/") or ".." in v.split("/") for v in _texts(name, value)):
            raise ValueError(f"{name} must be folders inside the book, got {value!r}"[:200])


def gpu_devices() -> list[str]:
    """The NVIDIA device nodes of this machine (empty without an NVIDIA driver)."""
    return sorted(glob.glob("/dev/nvidia*"))


def _argv(command: list[str], *, root: pathlib.Path, submission: pathlib.Path | None = None,
          inside_name: str = "submission.py", limits: Limits = Limits(), gpu: bool = False,
          code: tuple[str, ...] = CODE, hidden: tuple[str, ...] = HIDDEN,
          env: dict[str, str] | None = None, fd: int = 3) -> list[str]:
    """The whole ``bwrap`` command line that runs ``command`` (paths as the sandbox sees
    them) in the sandbox described in the module's docstring, with ``submission`` bound
    read-only at ``/check/<inside_name>``; ``fd`` is the open pipe the payload goes to."""
    root = pathlib.Path(root)
    args = ["bwrap", "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY),
            "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--clearenv", "--proc", "/proc", *([] if gpu else ["--remount-ro", "/proc"]),
            "--dev", "/dev", "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm"]
    args += _system()
    for rel in code:
        src = root / rel
        if not src.exists():
            raise ValueError(f"code: {src} does not exist (the book's code to bind)")
        args += ["--ro-bind", str(src), f"{BOOK}/{rel}"]
    for rel in hidden:
        if any(rel == c or rel.startswith(c.rstrip("/") + "/") for c in code):
            args += ["--tmpfs", f"{BOOK}/{rel}", "--remount-ro", f"{BOOK}/{rel}"]
    args += ["--size", str(limits.tmpfs_bytes), "--tmpfs", CHECK]
    if submission is not None:
        args += ["--ro-bind", str(submission), f"{CHECK}/{inside_name}"]
    for src, seen in _python_paths():  # after /check's tmpfs (it would hide a Python there)
        args += ["--ro-bind", src, seen]
    if gpu:
        for dev in gpu_devices():
            args += ["--dev-bind", dev, dev]
        if os.path.isdir("/sys"):
            args += ["--ro-bind", "/sys", "/sys"]
        for p in PROC_READ_ONLY:            # /proc writable for the driver, but these
            args += ["--ro-bind-try", f"/proc/{p}", f"/proc/{p}"]
    args += ["--remount-ro", "/dev"]         # after the GPU's device nodes are bound in it
    for k, v in (env or {}).items():
        args += ["--setenv", k, v]
    # The root is bwrap's own tmpfs, holding the folders above each bind (say /tmp for a
    # Python under /tmp), owned by the check's user: made read-only, so that /check stays
    # the only place a check can write.
    args += ["--remount-ro", "/"]
    args += ["--chdir", CHECK, *_wrapped(command, fd)]
    return args


def environment(gpu: bool) -> dict[str, str]:
    """The check's whole environment: the book on ``PYTHONPATH``, the tmpfs as home and
    temporary folder, the CUDA simulator unless ``gpu`` (then the caller's CUDA_* and
    NVIDIA_* variables, and LD_LIBRARY_PATH)."""
    py = os.path.dirname(sys.executable)
    env = {"PATH": f"{py}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
           "HOME": CHECK, "TMPDIR": CHECK, "PYTHONPATH": BOOK, "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONNOUSERSITE": "1", "NUMBA_CACHE_DIR": f"{CHECK}/.numba", "MPLBACKEND": "Agg",
           "NUMBA_GDB_BINARY": "/nonexistent/gdb",  # numba.gdb would attach gdb to the check
           "MALLOC_ARENA_MAX": "2"}
    if gpu:
        env.update({k: v for k, v in os.environ.items()
                    if k.startswith(("CUDA_", "NVIDIA_", "NUMBA_CUDA_")) or k == "LD_LIBRARY_PATH"})
    else:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    return env


class _Pids:
    """A ``pids`` cgroup for one check, when this process may make one (root on cgroup v1
    or v2): the kernel does not apply RLIMIT_NPROC to root."""

    def __init__(self, limit: int):
        self.path: pathlib.Path | None = None
        if os.geteuid() != 0:
            return
        for base in ("/sys/fs/cgroup/pids", "/sys/fs/cgroup"):
            b = pathlib.Path(base)
            if not (b / "cgroup.procs").exists():
                continue
            p = b / (f"gpu-perf-book-check-{os.getpid()}-{threading.get_ident()}-"
                     f"{time.monotonic_ns()}")
            try:
                p.mkdir()
                (p / "pids.max").write_text(str(limit))
                self.path = p
                return
            except OSError:
                try:
                    p.rmdir()
                except OSError:
                    pass

    def close(self) -> None:
        if self.path is not None:
            for _ in range(50):
                try:
                    self.path.rmdir()
                    return
                except OSError:
                    time.sleep(0.05)


def _preexec(limits: Limits, gpu: bool, pids: _Pids | None = None):
    """The function a child runs before its command starts: its resource limits (see the
    module's docstring), and its ``pids`` cgroup when there is one. On the simulator the
    stack limit is cut to :data:`SIM_STACK_BYTES`: the simulator runs each thread of a
    block as a Python thread, and each thread's stack counts in the address space."""
    import resource

    cpu = max(1, math.ceil(limits.cpu))
    procs = str(pids.path / "cgroup.procs") if pids is not None and pids.path else None

    def apply() -> None:
        if procs:
            with open(procs, "w") as f:
                f.write(str(os.getpid()))
        if not gpu:
            soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
            want = SIM_STACK_BYTES if hard == resource.RLIM_INFINITY else min(SIM_STACK_BYTES, hard)
            resource.setrlimit(resource.RLIMIT_STACK, (want, hard))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))
        if limits.memory_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.output_bytes, limits.output_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))

    return apply


def _tail(path: pathlib.Path, n: int = 200_000) -> str:
    """The last ``n`` bytes of a file, as text ("" when it cannot be read)."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, path.stat().st_size - n))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _drain(fd: int, dest: pathlib.Path, cap: int) -> None:
    """Copy what the sandbox writes on ``fd`` into ``dest``, at most ``cap`` bytes (the
    rest is read and dropped, so the writer never blocks)."""
    got = 0
    with open(dest, "wb") as f:
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            if got < cap:
                f.write(chunk[:cap - got])
            got += len(chunk)
    os.close(fd)


def _wait(proc: subprocess.Popen, wall_s: float) -> bool:
    """Wait for ``proc`` up to ``wall_s`` seconds, then kill its whole process group (what
    it left behind too); True when the wall-clock limit ended it."""
    timed_out = False
    try:
        proc.wait(timeout=wall_s)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
    return timed_out


def run(command: list[str], folder: pathlib.Path, *, root: pathlib.Path,
        submission: pathlib.Path | None = None, inside_name: str = "submission.py",
        limits: Limits = Limits(), gpu: bool = False, code: tuple[str, ...] = CODE,
        hidden: tuple[str, ...] = HIDDEN) -> Run:
    """Run ``command`` (as the sandbox sees it) in the sandbox. ``folder`` is the grader's
    own private folder for this check (never bound inside): stdout, stderr and the handed
    back file land there. Never raises for what the command does."""
    _arguments(command, root, submission, inside_name, limits, gpu, code, hidden)
    folder = _path("folder", folder)
    if not folder.is_dir():
        raise ValueError(f"folder: {folder} is not a folder (the grader's own for this "
                         "check's output: make it first)")
    command, code, hidden = list(command), tuple(code), tuple(hidden)
    out, err, payload = folder / "stdout", folder / "stderr", folder / "out.npz"
    r, w = os.pipe()
    kind = backend()
    if kind == "unshare":
        base = folder / "root"
        base.mkdir(mode=0o700)
        args = _unshare_argv(command, root=root, base=base, submission=submission,
                            inside_name=inside_name, limits=limits, gpu=gpu, code=code,
                            hidden=hidden, env=environment(gpu), fd=w)
    else:
        args = _argv(command, root=root, submission=submission, inside_name=inside_name,
                    limits=limits, gpu=gpu, code=code, hidden=hidden, env=environment(gpu),
                    fd=w)
    reader = threading.Thread(target=_drain, args=(r, payload, limits.tmpfs_bytes), daemon=True)
    reader.start()
    pids = _Pids(limits.processes)
    t0 = time.monotonic()
    timed_out = False
    try:
        with open(out, "wb") as fo, open(err, "wb") as fe:
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=fo, stderr=fe,
                                    pass_fds=(w,), start_new_session=True, close_fds=True,
                                    preexec_fn=_preexec(limits, gpu, pids),
                                    env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
            os.close(w)
            w = -1
            timed_out = _wait(proc, limits.wall_s)
    finally:
        if w != -1:
            os.close(w)
        pids.close()
    reader.join(timeout=10)
    wall = time.monotonic() - t0
    got = payload if payload.exists() and payload.stat().st_size > 0 else None
    return Run(None if timed_out else proc.returncode, _tail(out), _tail(err), wall,
               timed_out, got)


# --- Without bubblewrap: the same sandbox from util-linux's unshare, chroot and setpriv ----

def backend() -> str:
    """The sandbox this machine can build: "bwrap" (bubblewrap), else "unshare" (util-linux
    2.38 or later: ``unshare``, ``chroot`` and ``setpriv``), else "". The environment
    variable ``GPU_PERF_BOOK_SANDBOX`` (``bwrap`` or ``unshare``) chooses one."""
    forced = os.environ.get("GPU_PERF_BOOK_SANDBOX", "")
    if forced in ("bwrap", "unshare"):
        return forced if shutil.which(forced) else ""
    if shutil.which("bwrap"):
        return "bwrap"
    if all(shutil.which(t) for t in ("unshare", "chroot", "setpriv")):
        return "unshare"
    return ""


def _unshare_argv(command: list[str], *, root: pathlib.Path, base: pathlib.Path,
                  submission: pathlib.Path | None = None, inside_name: str = "submission.py",
                  limits: Limits = Limits(), gpu: bool = False, code: tuple[str, ...] = CODE,
                  hidden: tuple[str, ...] = HIDDEN, env: dict[str, str] | None = None,
                  fd: int = 3) -> list[str]:
    """The sandbox of :func:`_argv` built without bubblewrap, for a machine that lacks it:
    new user (root mapped to the grader), mount, PID, network, IPC and UTS namespaces; a
    trusted shell mounts a tmpfs at ``base`` (an empty folder of the grader's), binds into
    it read-only what :func:`_argv` binds (each mount below a bind made read-only too),
    mounts the check's sized tmpfs and a fresh read-only /proc (on a GPU, writable but
    :data:`PROC_READ_ONLY`), then ``chroot``s there and drops every capability (``setpriv``: empty bounding
    and inheritable sets, no new privileges) before the command runs, as PID 1 of the
    namespace: it cannot mount, unmount or remount anything, and nothing outlives it."""
    q = shlex.quote
    r = str(base)
    lines = ["set -e", f"R={q(r)}", 'mount -t tmpfs -o size=16m,mode=755 tmpfs "$R"']

    def bind(src: str, dst: str, dev: bool = False) -> None:
        kind = "-d" if os.path.isdir(src) else "-f"
        make = f'mkdir -p "$R"{q(dst)}' if kind == "-d" else \
            f'mkdir -p "$(dirname "$R"{q(dst)})" && touch "$R"{q(dst)}'
        lines.append(make)
        lines.append(f'mount --rbind {q(src)} "$R"{q(dst)}')
        if not dev:  # the bind and every mount below it (/sys/fs/cgroup under /sys)
            for sub in [src, *_submounts(src)]:
                inside = dst + sub[len(src):]
                lines.append(f'mount -o remount,bind,ro "$R"{q(inside)}')

    for top in ("/usr",):
        bind(top, top)
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            lines.append(f'ln -s {q(os.readlink(top))} "$R"{q(top)}')
        elif os.path.isdir(top):
            bind(top, top)
    for name in ETC:
        if os.path.exists(f"/etc/{name}"):
            bind(f"/etc/{name}", f"/etc/{name}")
    for rel in code:
        src = pathlib.Path(root) / rel
        if not src.exists():
            raise ValueError(f"code: {src} does not exist (the book's code to bind)")
        bind(str(src), f"{BOOK}/{rel}")
    for rel in hidden:
        if any(rel == c or rel.startswith(c.rstrip("/") + "/") for c in code):
            lines.append(f'mount -t tmpfs -o size=64k,ro tmpfs "$R"{q(f"{BOOK}/{rel}")}')
    lines.append(f'mkdir -p "$R"{CHECK} && mount -t tmpfs -o size={int(limits.tmpfs_bytes)},'
                 f'mode=777 tmpfs "$R"{CHECK}')
    if submission is not None:
        bind(str(submission), f"{CHECK}/{inside_name}")
    for src, seen in _python_paths():  # after /check's tmpfs (it would hide a Python there)
        bind(src, seen)
    lines.append('mkdir -p "$R/proc" && mount -t proc ' + ("" if gpu else "-o ro ")
                 + 'proc "$R/proc"')
    if gpu:                                  # /proc writable for the driver, but these
        for p in PROC_READ_ONLY:
            at = q(f"/proc/{p}")
            lines.append(f'if [ -e "$R"{at} ]; then mount --bind "$R"{at} "$R"{at}; '
                         f'mount -o remount,bind,ro "$R"{at}; fi')   # (set -e: each one)
    for dev in ("null", "zero", "random", "urandom", "tty"):
        if os.path.exists(f"/dev/{dev}"):
            bind(f"/dev/{dev}", f"/dev/{dev}", dev=True)
    lines.append(f'mkdir -p "$R/dev/shm" && '
                 f'mount -t tmpfs -o size={SHM_BYTES} tmpfs "$R/dev/shm"')
    if gpu:
        for dev in gpu_devices():
            bind(dev, dev, dev=True)
        if os.path.isdir("/sys"):
            bind("/sys", "/sys")
    # The base tmpfs holds the folders above each bind, owned by the check's (root-mapped)
    # user: read-only, so that /check (and /dev/shm) stay the only places it can write.
    lines.append('mount -o remount,ro "$R"')
    exports = " ".join(f"{k}={q(v)}" for k, v in (env or {}).items())
    lines.append(f'exec chroot "$R" /usr/bin/env -i {exports} /usr/bin/setpriv '
                 "--bounding-set=-all --inh-caps=-all --no-new-privs -- "
                 + " ".join(q(c) for c in _wrapped(command, fd)))
    return ["unshare", "--user", "--map-root-user", "--mount", "--pid", "--fork", "--net",
            "--ipc", "--uts", "--kill-child", "--propagation", "private", "--",
            "/bin/sh", "-c", "\n".join(lines)]


def _submounts(folder: str) -> list[str]:
    """The mount points strictly below ``folder`` on this machine (from
    ``/proc/self/mountinfo``), outermost first: a recursive bind carries them along, and
    each must be made read-only on its own."""
    top = os.path.realpath(folder).rstrip("/") + "/"
    found = []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                fields = line.split()
                if len(fields) > 4:
                    point = fields[4].encode().decode("unicode_escape")  # \040 is a space
                    if point.startswith(top):
                        found.append(point)
    except OSError:
        pass
    return sorted(set(found), key=lambda p: (p.count("/"), p))


_PROBE: dict[tuple, str] = {}


def probe(root: pathlib.Path, gpu: bool = False, code: tuple[str, ...] = CODE,
          hidden: tuple[str, ...] = HIDDEN) -> str:
    """Why the sandbox cannot start on this machine ("" when it can): ``bwrap`` missing,
    or namespaces refused (some containers forbid them). Checked once per setting."""
    _arguments(None, root, None, "submission.py", Limits(), gpu, code, hidden)
    code, hidden = tuple(code), tuple(hidden)
    key = (str(root), gpu, code, hidden)
    if key in _PROBE:
        return _PROBE[key]
    if not backend():
        why = ("neither bubblewrap (`bwrap`) nor util-linux's unshare, chroot and setpriv "
               "are installed: `apt-get install bubblewrap` (Debian, Ubuntu) or your "
               "system's package")
    else:
        with tempfile.TemporaryDirectory(prefix="probe-") as tmp:
            try:
                got = run([sys.executable, "-c", "import sys; print(sys.version_info[0])"],
                          pathlib.Path(tmp), root=root,
                          limits=Limits(wall_s=60.0, memory_bytes=None), gpu=gpu,
                          code=code, hidden=hidden)
            except (OSError, ValueError) as exc:
                why = f"bubblewrap could not start ({exc})"
            else:
                ok = got.returncode == 0 and got.stdout.strip() == "3"
                why = "" if ok else (f"{backend()} could not start a sandbox here "
                                     f"(exit status {got.returncode}): "
                                     f"{got.stderr.strip()[-300:] or got.stdout.strip()[-300:]}")
    _PROBE[key] = why
    return why
