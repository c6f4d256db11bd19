"""Exercise registry and answer checker."""
from __future__ import annotations

import importlib
import math
import pathlib
import pkgutil
import re
from dataclasses import dataclass
from numbers import Real
from typing import Callable

_REGISTRY: dict[str, "Exercise"] = {}
_LOADED = False
#: Modules of the package that register no exercises (not imported by all_exercises()).
NOT_CHAPTERS = frozenset({"registry", "search", "assign", "grade", "variants", "notebook",
                          "sandbox"})


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
    """Register one numeric exercise (ids are unique and lower-case, like "roofline-3")."""
    if not isinstance(id, str) or not id or id != id.strip().lower():
        raise ValueError(f"exercise id {id!r}: use lower-case text without spaces, "
                         "like 'roofline-3'")
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
    # The package's own folder (this module's), not ``exercises.__path__``: the package's
    # __init__ imports this module.
    for mod in pkgutil.iter_modules([str(pathlib.Path(__file__).resolve().parent)]):
        # Chapter modules register exercises; the registry, the tools (assignments, grading,
        # variants) and private helpers ("_catalog") don't.
        if mod.name not in NOT_CHAPTERS and not mod.name.startswith("_"):
            importlib.import_module(f"exercises.{mod.name}")
    _LOADED = True


def _natural(id: str) -> tuple:
    """"roofline-10" after "roofline-9"."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", id))


def all_exercises() -> list[Exercise]:
    """Every registered numeric exercise, by chapter then id (numbers in order)."""
    _load_all()
    return sorted(_REGISTRY.values(), key=lambda e: (e.chapter, _natural(e.id)))


def _normalise(id: object) -> str:
    return id.strip().lower() if isinstance(id, str) else repr(id)


def get(id: str) -> Exercise:
    """The exercise of that id (case and surrounding spaces ignored); an unknown id ->
    ValueError naming ids like it."""
    _load_all()
    if not isinstance(id, str):
        got = "nothing (None)" if id is None else f"{_a(type(id).__name__)} ({id!r})"
        raise ValueError(f"exercise ids are text like 'roofline-3'; got {got}")
    key = _normalise(id)
    if key not in _REGISTRY:
        prefix = key.rsplit("-", 1)[0]
        near = [k for k in sorted(_REGISTRY, key=_natural) if k.startswith(prefix)][:8]
        hint = (f"; ids like it: {', '.join(near)}" if near
                else f"; chapters with numeric exercises: "
                     f"{', '.join(sorted({e.chapter for e in _REGISTRY.values()}))}")
        raise ValueError(f"no numeric exercise {id!r}" + (hint if _REGISTRY else ""))
    return _REGISTRY[key]


def answer(id: str) -> float:
    """The answer of an exercise, computed by perfmodel now."""
    return get(id).answer


class Verdict(str):
    """What :func:`check` says: a plain string (shown without quotes in a notebook) with
    ``status`` ("right", "close", "wrong" or "invalid") and ``error`` (relative error, or
    None) for graders and tests."""

    status: str
    error: float | None

    def __new__(cls, text: str, status: str, error: float | None = None) -> "Verdict":
        self = super().__new__(cls, text)
        self.status, self.error = status, error
        return self

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, p, cycle) -> None:  # IPython's display of a cell's value
        p.text(str(self))

    @property
    def right(self) -> bool:
        return self.status == "right"


def _as_number(value: object, unit: str) -> float | str:
    """The answer as a float, or the message explaining why it is not one."""
    asked = f"in {unit}" if unit else "in the units the question asks for"
    if value is None:
        return f"no answer given: pass your answer as a number {asked}, e.g. check(id, 4.2)."
    if isinstance(value, str):
        text = value.strip().replace(",", "").replace("_", "")
        if not text:
            return f"no answer given: pass your answer as a number {asked}, e.g. check(id, 4.2)."
        try:
            return float(text)
        except ValueError:
            return (f"please give a number {asked}, not the text {value!r}"
                    + " (a number alone, without its unit).")
    if isinstance(value, bool):
        return f"{value} is not a number: give your answer as a number {asked}."
    if isinstance(value, complex):
        return f"{value} is a complex number: give one real number {asked}."
    size = getattr(value, "size", None)
    if hasattr(value, "item") and (size == 1 or size is None and not hasattr(value, "__len__")):
        try:  # numpy scalars and arrays of one element, torch scalars
            value = value.item()
        except (TypeError, ValueError, RuntimeError):
            pass
    if isinstance(value, (list, tuple, set, dict)) or hasattr(value, "__len__"):
        n = len(value)
        values = "one value: pass the number itself" if n == 1 else f"{n} values"
        return f"please give one number {asked}, not {_a(type(value).__name__)} of {values}."
    if isinstance(value, Real):
        try:
            return float(value)
        except OverflowError:
            return (f"an integer of {value.bit_length()} bits is too large: give a number "
                    f"{asked}.")
    try:
        return float(value)  # Decimal, Fraction-like objects, anything with __float__
    except (TypeError, ValueError, OverflowError):
        return f"please give one number {asked}; got {_a(type(value).__name__)}."


def _a(noun: str) -> str:
    noun = {"ndarray": "array", "NoneType": "None"}.get(noun, noun)
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _times(x: float) -> str:
    if x >= 1e6:  # "about 10^12 times": a run of thirty digits says nothing more
        return f"10^{math.floor(math.log10(x))}"
    return f"{x:.2g}" if x < 100 else f"{x:,.0f}"


def _factor(ratio: float) -> str:
    if not 0 < ratio < math.inf or not 0 < 1 / ratio < math.inf:
        return "far too high" if ratio > 1 else "far too low"
    if ratio >= 1.5:
        return f"about {_times(ratio)} times too high"
    if 0 < ratio <= 1 / 1.5:
        return f"about {_times(1 / ratio)} times too low"
    return "too high" if ratio > 1 else "too low"


def _share(number: float, percent_sign: bool) -> tuple[float, str]:
    """A share given as a fraction (0.58) or a percentage (58, or "58%"), as a fraction,
    with the words saying which was read. A value above 1 can only be a percentage."""
    if percent_sign or abs(number) > 1:
        return number / 100, f" (read {number:g} as a percentage, {number / 100:g})"
    return number, f" (read {number:g} as a fraction)"


def check(id: str, value) -> Verdict:
    """A student's answer checked: says right, close (and how close) or wrong, with a hint.

    Never raises for odd input: a string, NaN, a list, None or an unknown id gets a
    message saying what was expected.
    """
    try:
        ex = get(id)
    except ValueError as e:
        return Verdict(f"Unknown exercise: {e}.", "invalid")
    return judge(ex, value)


def judge(ex: Exercise, value, truth: float | None = None) -> Verdict:
    """:func:`check` for an exercise object: ``value`` against ``truth`` (the exercise's
    own answer when not given; a student's variant passes its own). Never raises for
    odd input."""
    if not isinstance(ex, Exercise):
        raise TypeError(f"ex must be an Exercise (from exercises.get), not {_a(type(ex).__name__)}")
    label = ex.id
    percent_sign = isinstance(value, str) and value.strip().endswith("%")
    if percent_sign:
        value = value.strip()[:-1]
    number = _as_number(value, ex.unit)
    if isinstance(number, str):
        return Verdict(f"{label}: {number}", "invalid")
    read = ""
    if ex.unit == "fraction" and math.isfinite(number):
        number, read = _share(number, percent_sign)
    if not math.isfinite(number):
        return Verdict(f"{label}: {number} is not a finite number; give a plain number.",
                       "invalid")
    try:
        truth = ex.answer if truth is None else float(truth)
    except Exception as e:  # a bug in the book, not in the answer
        return Verdict(f"{label}: the book could not compute this answer ({e}); "
                       "please report it.", "invalid")
    err = abs(number - truth) / abs(truth) if truth != 0 else abs(number)
    unit = f" {ex.unit}" if ex.unit else ""
    hint = f" Hint: {ex.hint}" if ex.hint else ""
    if err <= ex.rel_tol:
        return Verdict(f"{label}: right{read}. The answer is {truth:.4g}{unit}.", "right", err)
    side = "high" if number > truth else "low"
    if err <= ex.close_tol:
        return Verdict(f"{label}: close{read}: {err:.1%} too {side} (within {ex.rel_tol:.0%} counts as right). "
                       f"Check your rounding and the numbers you used.{hint}", "close", err)
    message = f"{label}: not yet{read}"
    if truth != 0 and number != 0 and (number > 0) == (truth > 0):
        ratio = number / truth
        message += f": {_factor(ratio)}."
        decades = math.log10(ratio) if 0 < ratio < math.inf else 0
        if abs(decades) >= 2.5 and abs(decades - round(decades)) < 0.1:
            message += (f" A factor of 10^{round(decades)} often means a unit slip: give the "
                        f"answer in {ex.unit or 'the units asked for'}.")
    elif truth != 0 and number != 0:
        message += ": the sign is wrong."
    else:
        message += "."
    return Verdict(message + (hint or " Recount the FLOPs and bytes."), "wrong", err)
