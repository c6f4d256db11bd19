"""Kernel challenges ("Your turn"): a kernel to fix or write, checked against numpy and,
on a GPU, timed against the model's time on that GPU (the reference time at its measured
copy and FMA rates where they are recorded, else the bound at the datasheet's ceilings).

Each challenge is three small modules: ``labs/challenges/<name>.py`` (the statement a
student reads, the operation's model counts, the inputs and the numpy reference),
``labs/challenges/starters/<name>.py`` (the starting kernel: what the student copies and
edits) and ``labs/challenges/solutions/<name>.py`` (the reference solution, with the
starter's names; the book never shows it, and a student edition can leave the folder
out). The shared machinery is in :mod:`labs.challenges.harness` (check, timing) and
:mod:`labs.challenges.verdict` (the reference time and what it refuses).

>>> import labs.challenges as ch
>>> ch.show("saxpy")                    # the statement, the starter's source, how to check
>>> ch.check("saxpy", "my_saxpy.py")    # or a module; simulator without a GPU: correct at
...                                      # several sizes, mechanism counters, estimate
>>> ch.time("saxpy", "my_saxpy.py")     # GPU only: time, reference, share, milestones

Command line: ``python -m labs challenge list | check NAME FILE.py [--json] [--seed S]
[--machine T4] | time NAME [FILE.py | --reference] [--quick] | starter NAME``.

A check is two steps (the grader runs them apart, the first in a sandbox):
:mod:`labs.challenges.collect` runs the submission at every size of the check and writes
one npz; :mod:`labs.challenges.judge` decides from it, never running the submission.

What a challenge module may set for the engine (each optional; without it the default
named):

- ``MECHANISM``: counter -> ``{"at_most": x}`` or ``{"at_least": x}`` plus ``"fix"`` (the
  fix's direction, in the chapter's words), judged on the simulator's counters
  (:mod:`labs.challenges.counters` lists them); default: no target.
- ``CHECK_SIZES``: ``{"sim": [...], "gpu": [...]}``, keyword sizes (or a function of the
  seed returning them); default: :func:`labs.challenges.judge.check_sizes`'s.
- ``MILESTONES``: ``((kernel label, what it does), ...)``, the rungs a timing is read
  against, their shares read from the recorded run (:mod:`labs.challenges.milestones`);
  default: none.
- a textbook solution, ``textbooks/<name>.py`` (:func:`textbook`).
"""
from __future__ import annotations

import importlib
import inspect
import pathlib
from types import ModuleType

#: Every challenge, in the order of the book.
NAMES = ("saxpy", "fuse", "regroup", "reduce", "ilp", "transpose", "matmul", "softmax")
HERE = pathlib.Path(__file__).resolve().parent


def challenge(name: str) -> ModuleType:
    """The module describing one challenge; unknown name -> ValueError listing them."""
    if name not in NAMES:
        raise ValueError(f"challenge must be one of {', '.join(NAMES)}; got {name!r}")
    return importlib.import_module(f"labs.challenges.{name}")


def starter(name: str) -> ModuleType:
    """The starting kernel's module."""
    challenge(name)
    return importlib.import_module(f"labs.challenges.starters.{name}")


def reference(name: str) -> ModuleType:
    """The reference solution's module (instructors; not shown in the book)."""
    challenge(name)
    return importlib.import_module(f"labs.challenges.solutions.{name}")


def textbook(name: str) -> ModuleType | None:
    """The textbook solution's module, ``labs/challenges/textbooks/<name>.py`` (what the
    statement describes, no more), or None where the challenge has none."""
    challenge(name)
    if not (HERE / "textbooks" / f"{name}.py").exists():
        return None
    return importlib.import_module(f"labs.challenges.textbooks.{name}")


def starter_path(name: str) -> pathlib.Path:
    challenge(name)
    return HERE / "starters" / f"{name}.py"


def _submission(name: str, submission):
    from .harness import load_submission

    ch = challenge(name)
    if submission is None:
        return starter(name)
    if isinstance(submission, (str, pathlib.Path)):
        return load_submission(submission, ch.KERNELS)
    return submission


class Verdict(dict):
    """A check's verdict (:func:`labs.challenges.judge.judge`'s dict, plus ``message``:
    the first wrong element or the first message). Its repr is the verdict's text, so a
    notebook cell ending in ``check(...)`` shows it once, and nothing else prints it."""

    def __repr__(self) -> str:
        from .judge import text

        return text(self)

    __str__ = __repr__

    def _repr_pretty_(self, p, cycle) -> None:  # IPython's plain-text display
        p.text(repr(self))


def _collect_elsewhere(name: str, path: pathlib.Path, seed: int, timeout_s: float) -> dict:
    """The collected (arrays, meta) from ``python -m labs.challenges.collect`` in a fresh
    process under the simulator (this one imported numba.cuda for a GPU it lacks)."""
    import os
    import subprocess
    import sys
    import tempfile

    from .collect import failed
    from .judge import _load

    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1",
               PYTHONPATH=os.pathsep.join([str(HERE.parents[1]),
                                           os.environ.get("PYTHONPATH", "")]))
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "collected.npz"
        try:
            proc = subprocess.run([sys.executable, "-m", "labs.challenges.collect", name,
                                   str(path.resolve()), "--seed", str(seed), "--out",
                                   str(out)], capture_output=True, text=True, env=env,
                                  cwd=str(HERE.parents[1]), timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return failed(name, seed, f"the check did not finish in {timeout_s:.0f} s (a "
                                      f"kernel that never ends?)")
        if proc.returncode != 0 or not out.exists():
            return failed(name, seed, "the check did not run: "
                          + " ".join(proc.stderr.split())[-300:])
        arrays, meta = _load(out)
    return {**arrays, "meta": meta}


def check(name: str, submission=None, seed: int | None = None, machine: str = "T4",
          timeout_s: float = 300.0) -> Verdict:
    """Check a submission (a file path, a module, or None for the starter): correct at
    every size of the check against numpy, its mechanism against the challenge's targets
    and the time the model estimates on ``machine`` (under numba's CUDA simulator, in a
    process of its own where this one has not chosen it); on a GPU, correct at the GPU's
    sizes. ``seed``: of the random inputs (None: a fresh one). Returns a :class:`Verdict`
    (printed once in a notebook, as a cell's value)."""
    import secrets

    from ..gpu import has_cuda
    from ..kernels import simulated
    from .collect import failed
    from .judge import judge

    challenge(name)
    seed = secrets.randbelow(2 ** 31) if seed is None else int(seed)
    if submission is None:
        submission = starter_path(name)
    if not simulated() and not has_cuda():
        if isinstance(submission, (str, pathlib.Path)):
            path = pathlib.Path(submission)
        else:
            path = pathlib.Path(getattr(submission, "__file__", "") or "")
            if not path.is_file():
                raise ValueError("submission: without a GPU, check a file path (or a module "
                                 "with a __file__)")
        if not path.is_file():
            collected = failed(name, seed, f"no such file: {path.name}")
        else:
            collected = _collect_elsewhere(name, path, seed, timeout_s)
    else:
        from .collect import collect

        arrays, meta = collect(name, submission, seed, gpu=not simulated())
        collected = {**arrays, "meta": meta}
    v = Verdict(judge(name, collected, seed, machine))
    v["seed"] = seed
    v["message"] = v.get("detail") or "; ".join(v["messages"])
    return v


class Timed(dict):
    """A timing's result (:func:`labs.challenges.harness.time_submission`'s dict, plus
    ``milestones``: :func:`labs.challenges.milestones.ladder_text` with the share placed
    on it). Its repr is the text ``python -m labs challenge time`` prints, so a notebook
    cell ending in ``time(...)`` shows it once."""

    def __repr__(self) -> str:
        from .verdict import timed_text

        return timed_text(self)

    __str__ = __repr__

    def _repr_pretty_(self, p, cycle) -> None:  # IPython's plain-text display
        p.text(repr(self))


def time(name: str, submission=None, quick: bool = False, prepared=None) -> Timed:
    """GPU only: check, time and judge a submission on this GPU, its share beside the
    challenge's milestones (``prepared``: inputs and expected outputs from
    :func:`labs.challenges.harness.prepare`, to time several submissions on the same
    data)."""
    from .harness import time_submission
    from .milestones import ladder_text

    result = Timed(time_submission(challenge(name), _submission(name, submission),
                                   quick=quick, prepared=prepared))
    result["milestones"] = ladder_text(name, (result.get("verdict") or {}).get("share"))
    return result


def kernel_source(name: str) -> str:
    """The starter's source file as the student copies it (read from the module itself,
    so the page and the lab cannot drift)."""
    return inspect.getsource(starter(name))


def model_line(name: str, gpu: str | None = None) -> str:
    """What the model counts for the challenge at its full size (perfmodel's FLOPs and
    DRAM bytes) and its time on ``gpu`` (default: the GPU in hand, else the H200), in
    words: the reference time at the measured copy and FMA rates where they are recorded,
    else the bound at the datasheet's ceilings."""
    from perfmodel import units

    from ..gpu import has_cuda
    from .verdict import RATES, roofs, time_name

    if gpu is None:
        gpu = "NVIDIA H200"
        if has_cuda():
            import torch

            gpu = torch.cuda.get_device_name(0)

    ch = challenge(name)
    size = ch.sizes("full")
    op = ch.op(**size)
    m = roofs(gpu)
    compute, memory = op.flops / m.peak_flops(ch.UNIT), op.bytes / m.bandwidth("dram")
    shown = ", ".join(f"{k} = {units.count(v)}" for k, v in size.items())
    return (f"The model, at the timed size ({shown}): {units.si(op.flops, 'FLOP')} and "
            f"{units.nbytes(op.bytes)} of DRAM traffic, {units.number(op.intensity)} "
            f"FLOP/byte; on the {m.name} the {time_name(m)} max(F/P, D/B) at "
            f"{RATES[bool(m.measured)]} is {units.seconds(max(compute, memory))}, "
            f"{'memory' if memory >= compute else 'compute'}-bound.")


def write_starter(name: str, path: str | pathlib.Path | None = None) -> pathlib.Path:
    """Copy the starter to ``path`` (default ``my_<name>.py`` here) for editing; returns
    the path. An existing file is left as it is (it may hold the reader's work)."""
    path = pathlib.Path(path or f"my_{name}.py")
    if not path.exists():
        path.write_text(kernel_source(name))
    return path


def show(name: str, gpu: str | None = None, verdict: bool = True):
    """What a chapter's "Your turn" cell ends with: :func:`labs.challenges.page.show`'s
    view (the statement, the starter's source, the model's counts and time on ``gpu``,
    the milestones, how to work on it as a code block, and with ``verdict`` the starter's
    own verdict on a CPU; no title, the chapter's heading is it)."""
    from .page import show as page_show

    return page_show(name, gpu, verdict)
