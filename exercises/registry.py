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

from . import _reading

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


def _asked(unit: str) -> str:
    """How the question wants its answer, in words: "in ms", "as a plain number"."""
    return {"": "as a plain number", "%": "in percent (%)",
            "fraction": "as a fraction (or a percentage with %)",
            "x": "as a ratio (3.2 or 3.2x)"}.get(unit, f"in {unit}")


def _as_number(value: object, unit: str) -> float | str:
    """A value that is not text (a float, a numpy scalar...) as a float, or the message
    explaining why it is not one. Text goes through :func:`_read_text`."""
    asked = _asked(unit)
    if value is None:
        return f"no answer given: pass your answer as a number {asked}, e.g. check(id, 4.2)."
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


def _g(x: float, digits: int = 6) -> str:
    """Python's general format ("%.6g"): the site's checker writes numbers the same way."""
    return f"{x:.{digits}g}"


def _times(x: float) -> str:
    """A factor of 1.5 or more in words a reader knows, to two significant figures:
    "2.5", "100", "1,000", "12,000", "a million", "3.3 billion"; past the trillions,
    "10^18"."""
    r = float(_g(x, 2))
    if r < 10:
        return _g(r, 2)
    if r < 1e6:
        return f"{r:,.0f}"
    for scale, name in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if r < 1000 * scale:
            if r >= scale:
                m = _g(r / scale, 2)
                return f"a {name}" if m == "1" else f"{m} {name}"
    return f"10^{len(str(int(r))) - 1}"


def _factor(ratio: float) -> str:
    if not 0 < ratio < math.inf or not 0 < 1 / ratio < math.inf:
        return "far too high" if ratio > 1 else "far too low"
    if ratio >= 1.5:
        return f"about {_times(ratio)} times too high"
    if 0 < ratio <= 1 / 1.5:
        return f"about {_times(1 / ratio)} times too low"
    return "too high" if ratio > 1 else "too low"


def _quantity(x: float, unit: str) -> str:
    """An answer with its unit, as a reader writes it: "75%", "0.3438 (34.4%)", "3.2
    times", "0.00021 s"."""
    if unit == "%":
        return f"{_g(x, 4)}%"
    if unit == "fraction":
        return f"{_g(x, 4)} ({_g(x * 100, 3)}%)"
    if unit == "x":
        return f"{_g(x, 4)} times"
    return f"{_g(x, 4)} {unit}".rstrip()


def _compatible(unit: str, dim: str) -> bool:
    """Whether a typed unit of dimension ``dim`` can answer a question in ``unit``."""
    if dim == "":
        return True
    if unit in ("%", "fraction"):
        return dim == "percent"
    want = _reading.unit_of(unit)
    if want is None or want[0] in ("", "ratio"):
        return dim in ("ratio", "percent")
    return dim == want[0]


def _read_text(text: str, unit: str) -> tuple[float, bool, str] | str:
    """A typed answer in the exercise's unit: (number, written as a percentage, what was
    read, e.g. " (read 0.21 ms as 0.00021 s)"); or the message saying why not."""
    asked = _asked(unit)
    if not text.strip(_reading.SPACES):
        return f"no answer given: type a number {asked}, e.g. 4.2."
    got = _reading.read(text)
    if isinstance(got, str):
        return f"please give a number {asked}, not {got}."
    number, typed = got
    dim = _reading.unit_of(typed)
    if dim is None:
        return (f'"{typed}" is not a unit the checker knows: give a number {asked} '
                "(a number alone is read that way).")
    if not _compatible(unit, dim[0]):
        return f'"{typed}" does not measure what this question asks: give a number {asked}.'
    if dim[0] == "percent":
        return number, True, ""
    if dim[0] in ("", "ratio"):
        return number * dim[1], False, ""
    value = number * dim[1] / _reading.unit_of(unit)[1]
    read = "" if value == number else f" (read {_g(number)} {typed} as {_g(value)} {unit})"
    return value, False, read


def _format_slip(ex: Exercise, number: float, percent: bool, truth: float) -> str:
    """The sentence for a share written in the other form (a fraction on a percentage
    question, or a percentage without its % on a fraction question), when the other
    reading is right; else empty."""
    if percent or not 0 < abs(number) <= 1 or truth == 0:
        return ""
    if ex.unit == "%" and abs(number * 100 - truth) <= ex.rel_tol * abs(truth):
        p = _g(number * 100)
        return (f"{_g(number)} reads as {_g(number)}%; as a fraction it is {p}%, which is "
                f"right. This question asks for a percentage: write {p} or {p}%.")
    if ex.unit == "fraction" and abs(number / 100 - truth) <= ex.rel_tol * abs(truth):
        return (f"{_g(number)} reads as a fraction, {_g(number * 100)}%. If you meant "
                f"{_g(number)}%, write {_g(number)}% (or the fraction {_g(number / 100)}).")
    return ""


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
    own answer when not given; a student's variant passes its own). ``value`` may be text
    with a unit ("0.21 ms", "21%", "4.2 TB/s": exercises/_reading.py). Never raises for
    odd input."""
    if not isinstance(ex, Exercise):
        raise TypeError(f"ex must be an Exercise (from exercises.get), not {_a(type(ex).__name__)}")
    label = ex.id
    if isinstance(value, str):
        got = _read_text(value, ex.unit)
        if isinstance(got, str):
            return Verdict(f"{label}: {got}", "invalid")
        number, percent, read = got
    else:
        number, percent, read = _as_number(value, ex.unit), False, ""
        if isinstance(number, str):
            return Verdict(f"{label}: {number}", "invalid")
    if not math.isfinite(number):
        return Verdict(f"{label}: {_g(number)} is not a finite number; give a plain number.",
                       "invalid")
    try:
        truth = ex.answer if truth is None else float(truth)
    except Exception as e:  # a bug in the book, not in the answer
        return Verdict(f"{label}: the book could not compute this answer ({e}); "
                       "please report it.", "invalid")
    return _verdict(ex, number, percent, read, truth)


def _verdict(ex: Exercise, number: float, percent: bool, read: str, truth: float) -> Verdict:
    """The verdict on a finite number in the exercise's unit (``percent``: it was written
    with a % sign)."""
    label = ex.id
    given = number
    if ex.unit == "fraction" and (percent or abs(number) > 1):
        number = number / 100
        read = f" (read {_g(given)} as a percentage, {_g(number)})"
    elif ex.unit == "fraction":
        read = f" (read {_g(given)} as a fraction)"
    elif percent and ex.unit != "%":
        number = number / 100
        read = f" (read {_g(given)}% as {_g(number)})"
    err = abs(number - truth) / abs(truth) if truth != 0 else abs(number)
    hint = f" Hint: {ex.hint}" if ex.hint else ""
    if err <= ex.rel_tol:
        return Verdict(f"{label}: right{read}. The answer is {_quantity(truth, ex.unit)}.",
                       "right", err)
    side = "high" if number > truth else "low"
    if err <= ex.close_tol:
        return Verdict(f"{label}: close{read}: {err:.1%} too {side} (within {ex.rel_tol:.0%} "
                       f"counts as right). Check your rounding and the numbers you used.{hint}",
                       "close", err)
    slip = _format_slip(ex, given, percent, truth)
    if slip:
        return Verdict(f"{label}: not yet: {slip}", "wrong", err)
    message = f"{label}: not yet{read}"
    if truth != 0 and number != 0 and (number > 0) == (truth > 0):
        ratio = number / truth
        message += f": {_factor(ratio)}."
        decades = math.log10(ratio) if 0 < ratio < math.inf else 0
        k = round(decades)
        if abs(decades) >= 2.5 and abs(decades - k) < 0.1:
            message += (f" A factor of {_times(float(f'1e{abs(k)}'))} often means a unit "
                        f"slip: give the answer {_asked(ex.unit)}, or type its unit.")
    elif truth != 0 and number != 0:
        message += ": the sign is wrong."
    else:
        message += "."
    return Verdict(message + (hint or " Recount the FLOPs and bytes."), "wrong", err)


def _iterable(value, name: str):
    try:
        return list(value)
    except TypeError:
        raise ValueError(f"{name} must be a list, not {_a(type(value).__name__)}") from None


def site_key(ids: list[str] | None = None, answers: bool = True) -> dict:
    """What the site's checker (``_static/book-check.js``) needs to judge the exercises of
    ``ids`` (every numeric exercise when None) as :func:`judge` does: the unit rules, and
    each exercise's unit with, when ``answers``, its answer, tolerances and hint. Without
    answers (the student edition) the key holds the units only. Unknown ids are skipped."""
    if ids is not None and (isinstance(ids, str) or not all(isinstance(i, str) for i in
                                                           _iterable(ids, "ids"))):
        raise ValueError(f"ids must be a list of exercise ids (text), not {ids!r}")
    if not isinstance(answers, bool):
        raise ValueError(f"answers must be True or False, not {answers!r}")
    _load_all()
    wanted = all_exercises() if ids is None else [
        _REGISTRY[i] for i in dict.fromkeys(ids) if i in _REGISTRY]
    out: dict[str, dict] = {}
    for ex in wanted:
        entry: dict = {"unit": ex.unit}
        if answers:
            entry.update(answer=ex.answer, rel_tol=ex.rel_tol, close_tol=ex.close_tol,
                         hint=ex.hint)
        out[ex.id] = entry
    return {"rules": _reading.RULES, "exercises": out}
