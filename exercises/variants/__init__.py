"""Per-student variants of the numeric exercises: the same question with other numbers.

A variant is the chapter's exercise with its parameters (machine, sizes, data type, ...)
drawn from ranges that keep the question meaningful. Each student's parameters come from
a seed derived from the assignment's id, the student's id and the exercise's id, so
adding an exercise to an assignment leaves the others' numbers as they were. The
question's text and its answer follow from the parameters; the answer is computed by
perfmodel, like the chapter's own.

>>> from exercises import variants
>>> v = variants.instance("roofline-3", "hw1", "ada")   # doctest: +SKIP
>>> v.question, v.answer                                # doctest: +SKIP

Each chapter's variants live in a module of this package (``variants/roofline.py``, ...)
and are registered with :func:`define`; ``defaults`` are the chapter's own numbers, and
with them a variant's answer is the registry's (a test holds every variant to that).
"""
from __future__ import annotations

import hashlib
import hmac
import importlib
import pkgutil
import random
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from ..registry import Exercise, get as get_exercise

_VARIANTS: dict[str, "Variant"] = {}
_LOADED = False


@dataclass(frozen=True)
class Variant:
    """How one exercise varies. ``draw(rng)`` returns the parameters (a dict of plain
    values: str, int, float); ``question(params)`` the question in Markdown (``$...$``
    maths allowed), saying which number to give and in which unit; ``answer(params)``
    the answer in the exercise's unit, computed by perfmodel; ``defaults`` the chapter's
    parameters."""

    id: str
    title: str
    draw: Callable[[random.Random], dict[str, Any]]
    question: Callable[[dict[str, Any]], str]
    answer: Callable[[dict[str, Any]], float]
    defaults: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Instance:
    """One student's version of an exercise: its parameters, question and answer (in the
    unit of ``exercise``). ``varied`` is False for an exercise without variants (the
    chapter's numbers, its question as the registry states it)."""

    id: str
    title: str
    params: dict[str, Any]
    question: str
    answer: float
    exercise: Exercise
    varied: bool
    seed: int | None = None


def define(id: str, *, title: str, draw, question, answer, defaults: dict) -> Variant:
    """Register the variants of exercise ``id`` (a module of this package calls it)."""
    if not isinstance(id, str) or not id or id != id.strip().lower():
        raise ValueError(f"id must be an exercise id like 'roofline-3', got {id!r}")
    if id in _VARIANTS:
        raise ValueError(f"id {id!r} has variants already")
    for name, fn in (("draw", draw), ("question", question), ("answer", answer)):
        if not callable(fn):
            raise TypeError(f"{name} must be callable")
    v = Variant(id, title, draw, question, answer, dict(defaults))
    _VARIANTS[id] = v
    return v


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    for mod in pkgutil.iter_modules(__path__):
        if not mod.name.startswith("_"):
            importlib.import_module(f"{__name__}.{mod.name}")
    _LOADED = True


def _text(name: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be non-empty text, got {value!r}")
    return value.strip()


def all_variants() -> dict[str, Variant]:
    """Every variant whose exercise is still registered, by exercise id (a variant of an
    exercise a chapter dropped is left out)."""
    _load()
    out = {}
    for id, v in sorted(_VARIANTS.items()):
        try:
            get_exercise(id)
        except ValueError:
            continue
        out[id] = v
    return out


def ids() -> list[str]:
    """Ids of the registered exercises that have variants."""
    return list(all_variants())


def get(id: str) -> Variant | None:
    """The variant of exercise ``id``, or None when it has none."""
    return all_variants().get(_text("id", id).lower())


def seed(assignment: str, student: str, exercise: str, key: bytes | None = None) -> int:
    """The seed of one student's numbers for one exercise of one assignment: 64 bits of
    SHA-256 over the three ids (stable across Python versions and machines); with the
    instructor's secret ``key`` (:mod:`exercises.secret`), 64 bits of HMAC-SHA-256 under it,
    which no one without the key can compute."""
    parts = [_text("assignment", assignment), _text("student", student),
             _text("exercise", exercise).lower()]
    message = "\x1f".join(parts).encode()
    if key is None:
        digest = hashlib.sha256(message).digest()
    elif isinstance(key, bytes) and len(key) >= 16:
        digest = hmac.new(key, message, hashlib.sha256).digest()
    else:
        raise ValueError("key must be the instructor's secret: at least 16 bytes")
    return int.from_bytes(digest[:8], "big")


def params(id: str, assignment: str, student: str) -> dict[str, Any]:
    """One student's parameters for exercise ``id`` (the chapter's when it has no variant)."""
    return dict(instance(id, assignment, student).params)


def instance(id: str, assignment: str | None = None, student: str | None = None,
             key: bytes | None = None) -> Instance:
    """One student's version of exercise ``id``. With no student (or an exercise without
    variants) it is the chapter's exercise, numbers and all; ``key``: the seed is keyed by
    the instructor's secret (:func:`seed`)."""
    ex = get_exercise(id)
    v = get(ex.id)
    if v is None:
        return Instance(ex.id, "", {}, ex.question, ex.answer, ex, False)
    if student is None or assignment is None:
        p = dict(v.defaults)
        s = None
    else:
        s = seed(assignment, student, ex.id, key)
        rng = random.Random(s)
        p = dict(v.draw(rng))
        for _ in range(20):  # not the chapter's own numbers: its solution is printed
            if p != v.defaults:
                break
            p = dict(v.draw(rng))
    question, answer = v.question(p), float(v.answer(p))
    # The chapter's hint speaks of the chapter's numbers: a student's variant gets none.
    mine = replace(ex, question=question, compute=lambda: answer, hint="")
    return Instance(ex.id, v.title, p, question, answer, mine, True, s)


def default_instance(id: str) -> Instance:
    """The variant with the chapter's own numbers (its answer must be the registry's)."""
    v = get(id)
    if v is None:
        raise ValueError(f"exercise {id!r} has no variants")
    ex = get_exercise(id)
    p = dict(v.defaults)
    return Instance(ex.id, v.title, p, v.question(p), float(v.answer(p)), ex, True, None)
