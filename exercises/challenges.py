"""Kernel challenges in assignments: the cells, and running a submitted kernel's check.

A kernel challenge (``labs/challenges/``) is code, not a number, so its check has to run
the student's code. This module never imports ``labs`` (the book's design rule for
``exercises/``): it talks to the challenges through their command line,

    python -m labs challenge list
    python -m labs challenge show NAME --json      (the statement and the starter kernel;
    python -m labs challenge starter NAME           or the starter alone)
    python -m labs challenge check NAME FILE.py --json

and checks a submission in two steps that never share a process
(:func:`run_check`, the API of ``labs/challenges``):

1. ``python -m labs.challenges.collect NAME FILE.py --seed S --out OUT.npz [--gpu --time]``
   runs the submission inside the sandbox of :mod:`exercises.sandbox` (bubblewrap: the
   book read-only without its solutions, a private tmpfs, no network, its own PID
   namespace, limits), with a fresh random seed ``S`` chosen here; it hands back only its
   output arrays and counters, as a file;
2. ``python -m labs.challenges.judge NAME OUT.npz --seed S --mode sim|gpu --json``,
   trusted code run outside the sandbox in its own process, validates that file against
   numpy's outputs for the same seed and returns the verdicts (correct, mechanism, share).

The grader computes pass, fail and points from those verdicts (:mod:`exercises.graded`).
Nothing the student's code prints, returns or exits with sets a verdict: a hang, a crash,
a limit reached or a missing file is a failed check with its reason. Where the sandbox
cannot start, :func:`run_check` refuses (``sandboxed=False`` is the instructor's explicit
``--no-sandbox``, recorded in the gradebook).

What the sandbox cannot stop: the student's code runs in the same process as
``collect``, the code that records its outputs. It can patch that recorder (numba's
array class, ``collect`` itself), or write the result file on its own (its path and the
seed are on the command line; the book's judge, importable inside, recomputes the right
outputs from the seed) and leave before ``collect`` does: a forged pass the judge cannot
tell from an honest one. So before any check runs, :mod:`exercises.policy` reads the
submission (with ``ast``, never running it) and holds for review, with 0 points and the
status "held for review: uses X", anything that imports beyond numpy, numba, math and
the harness's helpers, or names the tools a forgery needs (``os``, ``sys``, ``open``,
``eval``, ``__import__``, numpy's file writers, double-underscore attributes, ...). The
kept file stays for the instructor. The policy is a list, not a proof: code that
reaches those tools in a way it does not name could still forge a pass, which is why
every kept kernel is there to be read, and why a pass from a cell that does odd things
deserves a look.

The student's own check cell (:func:`check_challenge`) runs ``python -m labs challenge
check`` in a contained process on the student's machine: there, the code is theirs.
"""
from __future__ import annotations

import ast
import hashlib
import json
import math
import os
import pathlib
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from . import _catalog, policy, sandbox
from .sandbox import Limits

ROOT = _catalog.ROOT
#: The challenges' command line (run with the book's root on PYTHONPATH).
CHECKER: tuple[str, ...] = (sys.executable, "-m", "labs", "challenge")
WALL_S, MEMORY_BYTES, OUTPUT_BYTES = sandbox.WALL_S, sandbox.MEMORY_BYTES, sandbox.OUTPUT_BYTES
#: How long the challenges' own list/show commands may take, seconds.
INFO_S = 120.0
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
_MEMORY = re.compile(r"MemoryError|bad_alloc|Cannot allocate memory|out of memory"
                     r"|OutOfMemory|failed to allocate|mmap failed", re.I)
_TOO_LARGE = re.compile(r"File too large|\[Errno 27\]")
#: Environment variables a GPU check needs from the grader's environment.
_GPU_ENV = re.compile(r"^(CUDA_[A-Z_]*|NVIDIA_[A-Z_]*|LD_LIBRARY_PATH|NUMBA_CUDA_[A-Z_]*)$")


def check_name(name: object) -> str:
    """A challenge's name: a Python identifier of 1 to 64 characters (it names files)."""
    if not isinstance(name, str) or not _NAME.match(name.strip()):
        raise ValueError(f"challenge name must be 1 to 64 letters, digits or '_', starting "
                         f"with a letter (see `python -m labs challenge list`); got "
                         f"{name!r}"[:200])
    return name.strip()


def _checker(checker: object) -> list[str]:
    if checker is None:
        return list(CHECKER)
    if isinstance(checker, (str, bytes)) or not isinstance(checker, (list, tuple)) \
            or not checker or not all(isinstance(c, str) for c in checker):
        raise TypeError(f"checker must be a command as a list of text, got {checker!r}"[:200])
    return list(checker)


# --- Limits and the contained run ---------------------------------------------------------

def _mib(n: int) -> str:
    return f"{n / 2 ** 20:,.0f} MiB"


def environment(folder: pathlib.Path, gpu: bool, root: pathlib.Path = ROOT) -> dict[str, str]:
    """The check's whole environment: nothing of the caller's but ``PATH`` (and, with
    ``gpu``, the CUDA variables); the book's ``root`` on ``PYTHONPATH``; ``folder`` as
    home and temporary folder; two malloc arenas; the CUDA simulator unless ``gpu``."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
           "LC_ALL": "C.UTF-8", "HOME": str(folder), "TMPDIR": str(folder),
           "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1",
           "NUMBA_CACHE_DIR": str(folder / ".numba"), "MPLBACKEND": "Agg",
           # glibc gives each thread that allocates an arena of 64 MiB of address space;
           # the simulator's threads would spend the memory limit on them.
           "MALLOC_ARENA_MAX": "2"}
    if gpu:
        env.update({k: v for k, v in os.environ.items() if _GPU_ENV.match(k)})
    else:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    return env


@dataclass
class Run:
    """A finished child: ``returncode`` (negative: the signal that ended it, None: killed
    at the wall-clock limit), its output, how long it took (seconds)."""

    returncode: int | None
    stdout: str
    stderr: str
    wall_s: float
    timed_out: bool = False


def contained(command: list[str], folder: pathlib.Path, env: dict[str, str],
              limits: Limits, gpu: bool = False) -> Run:
    """Run ``command`` in ``folder`` under ``limits`` (see the module's docstring): its own
    session, killed as a group at the wall-clock limit (and after it ends, so that nothing
    it started lives on); stdout and stderr go to files in ``folder``, never to pipes that
    a flood could fill."""
    out, err = folder / ".stdout", folder / ".stderr"
    t0 = time.monotonic()
    with open(out, "wb") as fo, open(err, "wb") as fe:
        proc = subprocess.Popen(command, cwd=folder, env=env, stdin=subprocess.DEVNULL,
                                stdout=fo, stderr=fe, start_new_session=True,
                                preexec_fn=sandbox._preexec(limits, gpu), close_fds=True)
        timed_out = sandbox._wait(proc, limits.wall_s)
    wall = time.monotonic() - t0
    return Run(None if timed_out else proc.returncode, sandbox._tail(out), sandbox._tail(err),
               wall, timed_out)


# --- A check's verdict ------------------------------------------------------------------

@dataclass
class Result:
    """A challenge's verdict for one submission: ``passed``; ``reason`` in a few words
    ("passed", "failed the check", "timed out after 5 s", ...); ``message`` (the check's
    own, or what the grader saw); ``device`` the check ran on; the check's whole JSON
    object in ``report`` (empty when it printed none)."""

    challenge: str
    passed: bool
    reason: str
    message: str = ""
    device: str = ""
    wall_s: float = 0.0
    returncode: int | None = None
    report: dict = field(default_factory=dict)
    seed: int | None = None
    sandboxed: bool = True
    held: bool = False

    @property
    def correct(self) -> bool:
        """The judge found every output right (False when it never judged)."""
        return self.report.get("correct") is True

    @property
    def mechanism(self) -> bool:
        """The judge's mechanism verdict passed (simulator counters against the targets)."""
        m = self.report.get("mechanism")
        return isinstance(m, dict) and m.get("passed") is True

    @property
    def share(self) -> float | None:
        """The timed share of the reference time on a GPU (at its measured copy and FMA
        rates; of the bound at the datasheet's ceilings where none are recorded), as the
        judge computed it (None without; ``report["share_of"]`` names which)."""
        v = self.report.get("share")
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) \
            and math.isfinite(v) else None

    def __str__(self) -> str:
        said = f"{self.challenge}: {'passed' if self.passed else 'failed'}"
        if not self.passed:
            said += f" ({self.reason})"
        return said + (f": {self.message}" if self.message else "") \
            + (f" [{self.device}]" if self.device else "")


def _report(stdout: str) -> dict:
    """The check's JSON object: what its output ends with (on one line or indented), if
    that is an object with a true-or-false ``passed``; anything printed after it (or no
    such object) -> {}."""
    text = stdout.rstrip()
    starts = [m.start() for m in re.finditer(r"^\{", text, re.M)][-50:]
    for at in reversed(starts):
        try:
            obj = json.loads(text[at:])
        except ValueError:
            continue
        return obj if isinstance(obj, dict) and isinstance(obj.get("passed"), bool) else {}
    return {}


def _signal(n: int) -> str:
    try:
        return signal.Signals(n).name
    except ValueError:
        return f"signal {n}"


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


def verdict(name: str, run: Run, limits: Limits) -> Result:
    """What a finished check says: the exit status and the JSON it printed, read with the
    limits in mind (a MemoryError under the memory limit is the limit's doing)."""
    report = _report(run.stdout)
    message = str(report.get("message", ""))[:2000]
    device = str(report.get("device", ""))[:200]
    rc = run.returncode
    memory = bool(_MEMORY.search(message) or _MEMORY.search(run.stderr[-20_000:]))
    out_of_memory = (f"killed by the memory limit of {_mib(limits.memory_bytes)}"
                     if limits.memory_bytes else "ran out of memory (no memory limit was set)")

    def fail(reason: str, msg: str = "") -> Result:
        return Result(name, False, reason, msg or message or _last_line(run.stderr), device,
                      run.wall_s, rc, report)

    if run.timed_out:
        return fail(f"timed out after {limits.wall_s:g} s (wall-clock limit); the whole "
                    "process group was killed", "a kernel that never ends (an infinite loop, "
                    "a barrier some threads never reach) or a check far too slow")
    if rc is not None and rc < 0:
        sig = _signal(-rc)
        if -rc == signal.SIGXCPU or (-rc == signal.SIGKILL and run.wall_s >= limits.cpu * 0.9):
            return fail(f"used more than {math.ceil(limits.cpu)} s of CPU time (CPU limit)")
        if -rc == signal.SIGXFSZ:
            return fail(f"wrote more than {_mib(limits.output_bytes)} (output limit)")
        if memory:
            return fail(f"{out_of_memory} (crashed with {sig})")
        if -rc == signal.SIGKILL:
            return fail("killed (SIGKILL) by something other than the grader: most likely "
                        "the system's out-of-memory killer")
        return fail(f"crashed with signal {sig}")
    if _TOO_LARGE.search(run.stderr[-20_000:]) and not report.get("passed"):
        return fail(f"wrote more than {_mib(limits.output_bytes)} to a file or its output "
                    "(output limit)")
    if memory and not report.get("passed"):
        return fail(out_of_memory + (": it asked for more memory than the limit allows"
                                     if limits.memory_bytes else ""))
    if rc == 0 and report.get("passed") is True:
        return Result(name, True, "passed", message, device, run.wall_s, rc, report)
    if not report:
        return fail(f"the check printed no result (exit status {rc})")
    if rc == 0 or report.get("passed") is True:
        return fail("the check's exit status and its result disagree (exit status "
                    f"{rc}, passed={report.get('passed')!r}); not counted as a pass")
    if rc == 1:
        return fail("failed the check")
    if rc == 2:
        return fail("could not run (it does not import, lacks a name the challenge needs, "
                    "or its kernels do not compile or launch)")
    return fail(f"the check ended with exit status {rc}")


def module_source(cell: str) -> str:
    """A notebook cell as a Python file: IPython's ``%magic`` and ``!shell`` lines (which
    only a notebook understands) become ``pass``, at their indentation."""
    if not isinstance(cell, str):
        raise TypeError(f"cell must be a cell's text, got {type(cell).__name__}")
    out = []
    for line in cell.splitlines():
        body = line.lstrip()
        if body.startswith(("%", "!")):
            line = line[:len(line) - len(body)] + "pass  # notebook-only line left out: " \
                + body[:60].replace("\n", " ")
        out.append(line)
    return "\n".join(out) + "\n"


def _arguments(name: str, source: object, limits: object) -> tuple[str, Limits]:
    """A check's name and limits, validated (TypeError or ValueError naming the argument)."""
    name = check_name(name)
    if not isinstance(source, str):
        raise TypeError(f"source must be the cell's text, got {type(source).__name__}")
    limits = Limits() if limits is None else limits
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a Limits, got {limits!r}"[:200])
    return name, limits


def check_contained(name: str, source: str, *, limits: Limits | None = None, gpu: bool = False,
              checker: list[str] | None = None, root: pathlib.Path = ROOT,
              keep: pathlib.Path | None = None) -> Result:
    """Run ``python -m labs challenge check`` of challenge ``name`` on ``source`` (a cell's
    text) in a separate, contained process (not sandboxed: the student's own check, on
    their own machine) and return its verdict. The
    file checked is ``<name>.py`` in a fresh temporary folder (``keep``: also write it
    there). Never raises for anything the submission does."""
    name, limits = _arguments(name, source, limits)
    command = _checker(checker)
    if not isinstance(gpu, bool):
        raise TypeError(f"gpu must be True or False, got {gpu!r}"[:200])
    root = sandbox._path("root", root)
    keep = None if keep is None else sandbox._path("keep", keep)
    text = module_source(source)
    if keep is not None:
        pathlib.Path(keep).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(keep).write_text(text)
    with tempfile.TemporaryDirectory(prefix=f"check-{name}-") as tmp:
        folder = pathlib.Path(tmp)
        (folder / f"{name}.py").write_text(text)
        try:
            run = contained([*command, "check", name, f"{name}.py", "--json"], folder,
                            environment(folder, gpu, root), limits, gpu)
        except OSError as exc:  # the checker itself cannot start: the grader's problem
            return Result(name, False, f"the check could not start ({exc})", "")
        return verdict(name, run, limits)


@dataclass(frozen=True)
class Engine:
    """How a check reaches the challenges' engine: ``collect`` (the arguments after
    ``python`` that run a submission, as the sandbox sees them), ``judge`` (the same for
    the trusted judge, run outside), ``code`` (the book's folders or files, relative to its
    root, bound read-only in the sandbox) and ``hidden`` (the answer keys among them,
    covered by an empty tmpfs)."""

    collect: tuple[str, ...] = ("-m", "labs.challenges.collect")
    judge: tuple[str, ...] = ("-m", "labs.challenges.judge")
    code: tuple[str, ...] = sandbox.CODE
    hidden: tuple[str, ...] = sandbox.HIDDEN


#: How long the trusted judge may take, seconds.
JUDGE_S = 300.0


def _judge(engine: Engine, name: str, npz: pathlib.Path, seed: int, mode: str,
           machine: str, root: pathlib.Path) -> dict:
    """The judge's verdict (a dict), from a separate trusted process; ValueError when the
    judge itself fails (the grader's problem, never the student's)."""
    command = [sys.executable, *engine.judge, name, str(npz), "--seed", str(seed),
               "--mode", mode, "--machine", machine, "--json"]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(root),
           "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "HOME": str(npz.parent)}
    try:
        got = subprocess.run(command, capture_output=True, text=True, timeout=JUDGE_S,
                             env=env, cwd=npz.parent, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ValueError(f"the judge did not answer ({exc})") from None
    lines = [ln for ln in got.stdout.splitlines() if ln.strip()]
    try:
        v = json.loads(lines[-1]) if lines else None
    except ValueError:
        v = None
    if not isinstance(v, dict) or not isinstance(v.get("correct"), bool):
        raise ValueError(f"the judge gave no verdict (exit status {got.returncode}): "
                         f"{_last_line(got.stderr)}")
    return v


def _sandbox_reason(name: str, run: sandbox.Run, limits: Limits) -> str:
    """Why a sandboxed run handed back nothing usable ("" when it ended normally)."""
    if run.timed_out:
        return (f"timed out after {limits.wall_s:g} s (wall-clock limit); the sandbox and "
                "everything in it were killed")
    rc = run.returncode
    tail = run.stderr[-20_000:]
    if rc is not None and rc < 0:
        if -rc == signal.SIGXCPU or run.wall_s >= limits.cpu * 0.9:
            return f"used more than {math.ceil(limits.cpu)} s of CPU time (CPU limit)"
        if -rc == signal.SIGXFSZ:
            return f"wrote more than {_mib(limits.output_bytes)} (output limit)"
        return f"crashed with signal {_signal(-rc)}"
    if rc == 137 or rc == 128 + signal.SIGXCPU:
        return f"used more than {math.ceil(limits.cpu)} s of CPU time (CPU limit)"
    if rc == 128 + signal.SIGXFSZ or _TOO_LARGE.search(tail):
        return f"wrote more than {_mib(limits.output_bytes)} (output limit)"
    if _MEMORY.search(tail):
        return (f"killed by the memory limit of {_mib(limits.memory_bytes)}"
                if limits.memory_bytes else "ran out of memory")
    if rc is not None and rc > 128:
        return f"crashed with signal {_signal(rc - 128)}"
    if rc != 0:
        return f"the check could not run (exit status {rc}): {_last_line(run.stderr)}"
    return ""


def reviewed(name: str, text: str) -> Result | None:
    """The result of a submission the grader does not run (its Python ``text``): a
    SyntaxError, or something :func:`exercises.policy.review` holds for review; None
    when it may run."""
    try:
        uses = policy.review(text)
    except policy.InvalidSource as e:
        return Result(name, False, f"syntax error at line {e.lineno}: {e.msg}",
                      "the kernel cell is not valid Python, so it was not run")
    if uses is None:
        return None
    return Result(name, False, f"held for review: uses {uses}", (
        f"not run: the kernel cell uses {uses}. A kernel needs only numpy, numba, math and "
        "labs.challenges.harness's load4, store4, WARP and resident_grid; the grader holds "
        "anything else for the instructor, who has the kept cell"), held=True)


def run_check(name: str, source: str, *, limits: Limits | None = None, gpu: bool = False,
              root: pathlib.Path = ROOT, keep: pathlib.Path | None = None,
              engine: Engine | None = None, sandboxed: bool = True, machine: str = "T4",
              seed: int | None = None, review: bool = True) -> Result:
    """Check challenge ``name`` on ``source`` (a submitted cell's text): collect inside
    the sandbox with a fresh random seed, judge outside (see the module's docstring). The
    result's ``report`` is the judge's verdict; ``passed`` is its ``passed``. ``keep``:
    also write the checked file there. ``review``: first hold for review what
    :func:`reviewed` holds (False: the sandbox alone, as the hostile tests try it).
    ``sandboxed=False`` (the instructor's ``--no-sandbox``) runs collect in a contained
    process instead. Never raises for anything the submission does; ValueError when the
    sandbox cannot start."""
    name, limits = _arguments(name, source, limits)
    engine = Engine() if engine is None else engine
    root = pathlib.Path(root)
    text = module_source(source)
    if keep is not None:
        pathlib.Path(keep).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(keep).write_text(text)
    held = reviewed(name, text) if review else None
    if held is not None:
        held.sandboxed = sandboxed
        return held
    if sandboxed:
        why = sandbox.probe(root, gpu, engine.code, engine.hidden)
        if why:
            raise ValueError(f"sandbox: {why}. Untrusted code is not run without it; "
                             "pass --no-sandbox to run it anyway (recorded in the gradebook)")
    seed = secrets.randbelow(2 ** 63) if seed is None else int(seed)
    mode = "gpu" if gpu else "sim"
    flags = ["--gpu", "--time"] if gpu else []
    with tempfile.TemporaryDirectory(prefix=f"check-{name}-") as tmp:
        folder = pathlib.Path(tmp)
        sub = folder / f"{name}.py"
        sub.write_text(text)
        work = folder / "run"
        work.mkdir()
        if sandboxed:
            collect = [sys.executable, *engine.collect, name, f"{sandbox.CHECK}/{name}.py",
                       "--seed", str(seed), "--out", sandbox.PAYLOAD, *flags]
            run = sandbox.run(collect, work, root=root, submission=sub,
                              inside_name=f"{name}.py", limits=limits, gpu=gpu,
                              code=engine.code, hidden=engine.hidden)
        else:
            (work / f"{name}.py").write_text(text)
            got = contained([sys.executable, *engine.collect, name, f"{name}.py", "--seed",
                             str(seed), "--out", "out.npz", *flags], work,
                            environment(work, gpu, root), limits, gpu)
            npz = work / "out.npz"
            run = sandbox.Run(got.returncode, got.stdout, got.stderr, got.wall_s,
                              got.timed_out, npz if npz.exists() else None)
        why = _sandbox_reason(name, run, limits)

        def fail(reason: str, message: str = "", report: dict | None = None) -> Result:
            return Result(name, False, reason, message, "", run.wall_s, run.returncode,
                          report or {}, seed, sandboxed)

        if why:
            return fail(why)
        if run.payload is None:
            return fail("the check handed back no results (the submission ended it before "
                        "it wrote them?)")
        try:
            v = _judge(engine, name, run.payload, seed, mode, machine, root)
        except ValueError as exc:
            return fail(f"the grader's judge failed: {exc}")
    messages = v.get("messages") if isinstance(v.get("messages"), list) else []
    message = " ".join(str(m) for m in messages)[:2000]
    device = "GPU" if gpu else "CUDA simulator (CPU)"
    passed = v.get("passed") is True and v.get("correct") is True
    reason = "passed" if passed else ("failed the check" if v.get("correct") is True
                                      else "wrong results")
    if not v.get("correct") and _MEMORY.search(message):
        reason = (f"killed by the memory limit of {_mib(limits.memory_bytes)}: it asked for "
                  "more memory than the limit allows" if limits.memory_bytes
                  else "ran out of memory (no memory limit was set)")
    return Result(name, passed, reason, message, device, run.wall_s, run.returncode, v, seed,
                  sandboxed)


# --- What the challenges' command line says about them ------------------------------------

def _ask(args: list[str], checker: list[str] | None, root: pathlib.Path) -> str:
    """The output of one of the challenges' own commands (trusted code, the book's), or
    ValueError with what it said."""
    command = [*_checker(checker), *args]
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               NUMBA_ENABLE_CUDASIM="1")
    try:
        got = subprocess.run(command, capture_output=True, text=True, timeout=INFO_S,
                             env=env, cwd=root, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ValueError(f"`{' '.join(command[1:])}` did not answer ({exc})") from None
    if got.returncode != 0:
        raise ValueError(f"`{' '.join(command[1:])}` failed (exit status {got.returncode}): "
                         f"{_last_line(got.stderr) or _last_line(got.stdout)}")
    return got.stdout


def names(checker: list[str] | None = None, root: pathlib.Path = ROOT) -> list[str]:
    """The challenges' names, as ``python -m labs challenge list`` prints them (the first
    word of each line)."""
    out = []
    for line in _ask(["list"], checker, root).splitlines():
        word = line.split()[0] if line.split() else ""
        if _NAME.match(word):
            out.append(word)
    return out


@dataclass(frozen=True)
class Challenge:
    """What an assignment shows of a challenge: its ``name``, ``title``, ``statement``
    (Markdown) and ``starter`` (the starting kernel's code), and its ``chapter``."""

    name: str
    title: str
    statement: str
    starter: str
    chapter: str = ""


def _described(name: str, root: pathlib.Path) -> dict:
    """Title, statement and chapter of a challenge read from its module's text
    (``labs/challenges/<name>.py``: the docstring, ``TITLE``, ``CHAPTER``), parsed and
    never imported; empty when there is no such file."""
    path = pathlib.Path(root) / "labs" / "challenges" / f"{name}.py"
    try:
        tree = ast.parse(path.read_text())
    except (OSError, SyntaxError, ValueError):
        return {}
    text = ast.get_docstring(tree) or ""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text).replace("``", "`")  # reST roles
    found = {"statement": text}
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else []
        for t in targets:
            names = [t] if isinstance(t, ast.Name) else list(getattr(t, "elts", []))
            values = [stmt.value] if isinstance(t, ast.Name) \
                else list(getattr(stmt.value, "elts", []))
            for n, v in zip(names, values):
                if isinstance(n, ast.Name) and n.id in ("TITLE", "CHAPTER") \
                        and isinstance(v, ast.Constant) and isinstance(v.value, str):
                    found[n.id.lower()] = v.value
    return found


def info(name: str, checker: list[str] | None = None, root: pathlib.Path = ROOT,
         known: list[str] | None = None) -> Challenge:
    """A challenge's statement and starter: from ``python -m labs challenge show NAME
    --json`` where the challenges' command line has it, else the starter from ``challenge
    starter NAME`` and the statement, title and chapter from the challenge module's text
    (:func:`_described`). An unknown name -> ValueError listing the known ones
    (``known``: the names, when the caller has asked already)."""
    name = check_name(name)
    known = names(checker, root) if known is None else known
    if name not in known:
        raise ValueError(f"challenge must be one of {', '.join(known) or '(none)'}; "
                         f"got {name!r}")
    try:
        obj = json.loads(_ask(["show", name, "--json"], checker, root))
    except ValueError:
        obj = None
    if not isinstance(obj, dict) or not isinstance(obj.get("starter"), str):
        obj = {**_described(name, root), "starter": _ask(["starter", name], checker, root)}
    statement = obj.get("statement") if isinstance(obj.get("statement"), str) else ""
    title = re.sub(r"^Your turn:\s*", "", str(obj.get("title") or name))
    return Challenge(name, title,
                     statement.strip() or f"The book's kernel challenge `{name}`.",
                     obj["starter"].strip("\n"), str(obj.get("chapter") or ""))


# --- The notebook's cells ---------------------------------------------------------------

def marker(name: str) -> str:
    """The first line of a challenge cell: how the grader and the check cell find it when
    a notebook editor has dropped the cells' metadata."""
    return f"# Challenge {check_name(name)}: your kernel. Keep this line and the kernel's name."


def cell_source(ch: Challenge) -> str:
    """The editable challenge cell: the marker line, then the starter."""
    return f"{marker(ch.name)}\n{ch.starter}"


def check_cell_source(name: str) -> str:
    """The check cell under a challenge cell."""
    return ("# Check your kernel (as often as you like): the cell above, as its text stands\n"
            "# when last run, goes through the challenge's check in a separate process, as\n"
            "# the grader runs it.\n"
            "from exercises.challenges import check_challenge\n\n"
            f"check_challenge({check_name(name)!r});  # the ';': the verdict shows once")


def digest_code(text: str) -> str:
    """SHA-256 of a code cell's text with trailing spaces and blank lines left out (how the
    grader tells a starter handed back unchanged)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a cell's text, got {type(text).__name__}")
    lines = [ln.rstrip() for ln in text.strip("\n").splitlines()]
    return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogatepass")).hexdigest()


def is_cell_of(source: str, name: str) -> bool:
    """The cell's first non-blank line is ``name``'s marker."""
    first = next((ln.strip() for ln in str(source).splitlines() if ln.strip()), "")
    return first == marker(name)


def _raw_sources() -> list[str]:
    """The cells run so far in this IPython kernel as typed (``%magic`` lines untouched,
    so that :func:`module_source` sees them), newest last."""
    try:
        from IPython import get_ipython
    except ImportError:
        return []
    ip = get_ipython()
    if ip is None:
        return []
    raw = getattr(getattr(ip, "history_manager", None), "input_hist_raw", None)
    return list(raw if raw else ip.user_ns.get("_ih", []))


def has_gpu() -> bool:
    """An NVIDIA driver's device files are here (without importing CUDA)."""
    return any(os.path.exists(p) for p in ("/dev/nvidiactl", "/dev/nvidia0"))


def check_challenge(name: str, history: list[str] | None = None, *,
                    wall_s: float = 300.0, checker: list[str] | None = None) -> Result:
    """What a challenge's check cell runs in the student's notebook: the latest run cell
    that starts with the challenge's marker, checked as the grader checks it (a separate
    process; on this machine's GPU when there is one, with no memory limit since CUDA
    reserves more address space than any limit would allow; else the simulator)."""
    name = check_name(name)
    if history is None:
        history = _raw_sources()
    cells = [s for s in history if isinstance(s, str) and is_cell_of(s, name)]
    if not cells:
        print(f"{name}: no challenge cell run yet (run the cell above, keeping its first "
              "line).")
        return Result(name, False, "no challenge cell run yet")
    gpu = has_gpu()
    result = check_contained(name, cells[-1], limits=Limits(
        wall_s=wall_s, memory_bytes=None if gpu else MEMORY_BYTES), gpu=gpu, checker=checker)
    print(result)
    return result
