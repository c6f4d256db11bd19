"""Exercise registry and answer checker."""
from __future__ import annotations

import importlib
import math
import pkgutil
from dataclasses import dataclass
from numbers import Real
from typing import Callable

_REGISTRY: dict[str, "Exercise"] = {}
_LOADED = False


@dataclass(frozen=True)
class Exercise:
    """A numeric exercise: ``compute()`` returns the answer in ``unit`` (SI unless the
    unit says otherwise); an answer within ``rel_tol`` is right, within ``close_tol`` close."""

    id: str
    chapter: str
    question: str
    compute: Callable[[], float]
    unit: str = ""
    rel_tol: float = 0.02
    close_tol: float = 0.15
    hint: str = ""
    needs_gpu: bool = False

    @property
    def answer(self) -> float:
        return float(self.compute())


def register(id: str, chapter: str, question: str, compute: Callable[[], float], *,
             unit: str = "", rel_tol: float = 0.02, close_tol: float = 0.15, hint: str = "",
             needs_gpu: bool = False) -> Exercise:
    """Register one numeric exercise (ids are unique, like "roofline-3")."""
    if id in _REGISTRY and _REGISTRY[id].question != question:
        raise ValueError(f"exercise id {id!r} is already registered")
    if not 0 < rel_tol < close_tol:
        raise ValueError("rel_tol must be > 0 and smaller than close_tol")
    ex = Exercise(id, chapter, question, compute, unit, rel_tol, close_tol, hint, needs_gpu)
    _REGISTRY[id] = ex
    return ex


def _load_all() -> None:
    global _LOADED
    if _LOADED:
        return
    import exercises

    for mod in pkgutil.iter_modules(exercises.__path__):
        if mod.name not in ("registry",):
            importlib.import_module(f"exercises.{mod.name}")
    _LOADED = True


def all_exercises() -> list[Exercise]:
    """Every registered numeric exercise, by chapter then id."""
    _load_all()
    return sorted(_REGISTRY.values(), key=lambda e: (e.chapter, e.id))


def get(id: str) -> Exercise:
    """The exercise of that id; unknown id -> ValueError listing close ids."""
    _load_all()
    if not isinstance(id, str) or id not in _REGISTRY:
        prefix = str(id).split("-")[0]
        near = [k for k in sorted(_REGISTRY) if k.startswith(prefix)][:8]
        raise ValueError(f"no exercise {id!r}" + (f"; ids like it: {', '.join(near)}" if near else ""))
    return _REGISTRY[id]


def answer(id: str) -> float:
    """The answer of an exercise, computed by perfmodel now."""
    return get(id).answer


def check(id: str, value) -> str:
    """A student's answer checked: says right, close (and how close) or wrong, with a hint.

    Never raises for odd input: a string, NaN, a list or an unknown id gets a message.
    """
    try:
        ex = get(id)
    except ValueError as e:
        return f"Unknown exercise: {e}."
    if isinstance(value, str):
        try:
            value = float(value.replace(",", "").strip())
        except ValueError:
            return (f"{id}: please give a number (in {ex.unit or 'the units asked for'}), "
                    f"not the text {value!r}.")
    if isinstance(value, bool) or not isinstance(value, Real):
        return (f"{id}: please give one number (in {ex.unit or 'the units asked for'}); "
                f"got a {type(value).__name__}.")
    value = float(value)
    if not math.isfinite(value):
        return f"{id}: {value} is not a finite number; give a plain number."
    truth = ex.answer
    err = abs(value - truth) / abs(truth) if truth != 0 else abs(value)
    unit = f" {ex.unit}" if ex.unit else ""
    if err <= ex.rel_tol:
        return f"{id}: right. The answer is {truth:.4g}{unit}."
    if err <= ex.close_tol:
        side = "high" if value > truth else "low"
        return (f"{id}: close: {err:.0%} too {side}. Check your rounding and units."
                + (f" Hint: {ex.hint}" if ex.hint else ""))
    return f"{id}: not yet." + (f" Hint: {ex.hint}" if ex.hint else " Recount the FLOPs and bytes.")
