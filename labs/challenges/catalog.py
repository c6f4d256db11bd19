"""The eight challenges by name: each one's module, starter, reference, textbook solution
and the model's line for it. Imported by the engine's modules and re-exported by
:mod:`labs.challenges` (this module imports nothing of the package's ``__init__``)."""
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
