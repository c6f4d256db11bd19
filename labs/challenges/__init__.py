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

import pathlib

from .catalog import (HERE, NAMES, challenge, kernel_source, model_line,  # noqa: F401
                      reference, starter, starter_path, textbook)
from .elsewhere import collect_elsewhere, simulated_counters  # noqa: F401

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
            collected = collect_elsewhere(name, path, seed, timeout_s)
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
