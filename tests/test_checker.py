"""The answer checker over every registered numeric exercise: the exact answer is right,
a near miss is close (and says how close), a far miss is wrong with a hint, and odd input
gets a clear message, never a traceback."""
from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from exercises import Verdict, all_exercises, answer, check, get
from exercises import _catalog

EXERCISES = all_exercises()
IDS = [e.id for e in EXERCISES]


def test_there_are_numeric_exercises():
    assert EXERCISES, "no numeric exercise is registered"
    assert len(set(IDS)) == len(IDS)


@pytest.mark.parametrize("ex", EXERCISES, ids=IDS)
def test_answer_is_a_finite_number_with_sane_tolerances(ex):
    value = answer(ex.id)
    assert isinstance(value, float) and math.isfinite(value)
    assert 0 < ex.rel_tol < ex.close_tol < 2, "x3 must stay wrong"
    assert ex.question and ex.chapter


@pytest.mark.parametrize("ex", EXERCISES, ids=IDS)
def test_exact_answer_is_right(ex):
    truth = answer(ex.id)
    for given in (truth, str(truth), np.float64(truth), np.array([truth])):
        v = check(ex.id, given)
        assert isinstance(v, Verdict) and v.status == "right", v
        assert v.startswith(f"{ex.id}: right")
    # Within the tolerance still counts.
    assert check(ex.id, truth * (1 + ex.rel_tol / 2)).status == "right"


@pytest.mark.parametrize("ex", EXERCISES, ids=IDS)
def test_near_miss_is_close_and_says_how_close(ex):
    truth = answer(ex.id)
    off = 0.10 if ex.rel_tol < 0.10 < ex.close_tol else (ex.rel_tol + ex.close_tol) / 2
    for sign, side in ((1, "high"), (-1, "low")):
        given = truth * (1 + sign * off) if truth else sign * off
        v = check(ex.id, _as_given(ex, given))
        assert v.status == "close", v
        assert f"{off:.1%} too {side}" in v, v
        assert "right" not in v.replace("counts as right", "")
        assert v.error == pytest.approx(off)


def _as_given(ex, value: float) -> float:
    """What a student types for ``value``: a share above 1 only as a percentage (the
    checker reads any share above 1 as one)."""
    return value * 100 if ex.unit == "fraction" and value > 1 else value


@pytest.mark.parametrize("ex", EXERCISES, ids=IDS)
def test_far_miss_is_wrong_with_a_hint(ex):
    truth = answer(ex.id)
    given = truth * 3 if truth else 3.0
    v = check(ex.id, _as_given(ex, given))
    assert v.status == "wrong" and "not yet" in v, v
    assert "Hint:" in v or "Recount" in v
    if truth:
        assert "3 times too high" in v, v
        assert "3 times too low" in check(ex.id, truth / 3)
        if ex.unit != "fraction":  # a share of 1,000 times the answer reads as a percentage
            assert "unit slip" in check(ex.id, truth * 1000)
        assert "sign is wrong" in check(ex.id, -truth)


MALFORMED = [
    ("a string", "about four", "not the text"),
    ("a string with a unit it does not know", "4.2 T$", "not a unit the checker knows"),
    ("an empty string", "  ", "no answer given"),
    ("None", None, "no answer given"),
    ("NaN", float("nan"), "not a finite number"),
    ("the string nan", "nan", "not a finite number"),
    ("infinity", float("inf"), "not a finite number"),
    ("a list", [1.0, 2.0], "not a list of 2 values"),
    ("a one-element list", [1.0], "pass the number itself"),
    ("a tuple", (1.0,), "not a tuple"),
    ("a dict", {"answer": 1.0}, "not a dict"),
    ("an array", np.array([1.0, 2.0]), "not an array of 2 values"),
    ("a bool", True, "not a number"),
    ("a complex number", 1 + 2j, "complex"),
    ("an object", object(), "got an object"),
]


@pytest.mark.parametrize("ex", EXERCISES, ids=IDS)
@pytest.mark.parametrize("what,value,says", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_answer_gets_a_message(ex, what, value, says):
    v = check(ex.id, value)
    assert v.status == "invalid" and says in v, v
    assert v.startswith(f"{ex.id}: ")
    if ex.unit:
        assert ex.unit in v or "finite" in v


@pytest.mark.parametrize("bad_id,says", [
    ("no-such-exercise-1", "no numeric exercise 'no-such-exercise-1'"),
    (None, "got nothing (None)"),
    (3, "got an int"),
    (["roofline-3"], "got a list"),
    ("", "no numeric exercise ''"),
])
def test_unknown_id_gets_a_message(bad_id, says):
    v = check(bad_id, 1.0)
    assert v.status == "invalid" and v.startswith("Unknown exercise") and says in v, v


def test_unknown_id_suggests_ids_like_it():
    ex = EXERCISES[0]
    prefix = ex.id.rsplit("-", 1)[0]
    v = check(f"{prefix}-999", 1.0)
    assert ex.id in v


def test_id_is_forgiving_about_case_and_spaces():
    ex = EXERCISES[0]
    assert check(f"  {ex.id.upper()} ", answer(ex.id)).status == "right"
    assert get(ex.id.upper()) is get(ex.id)


def test_other_number_types_are_accepted():
    ex = EXERCISES[0]
    truth = answer(ex.id)
    for given in (Decimal(repr(truth)), Fraction(truth), np.float32(truth), f"{truth:,}"):
        assert check(ex.id, given).status in ("right", "close"), given


def test_verdict_shows_without_quotes():
    v = check(EXERCISES[0].id, answer(EXERCISES[0].id))
    assert repr(v) == str(v) and v.right


def test_a_broken_exercise_is_reported_not_raised(monkeypatch):
    from exercises import registry

    ex = EXERCISES[0]
    broken = registry.Exercise(ex.id, ex.chapter, ex.question, lambda: 1 / 0, ex.unit)
    monkeypatch.setitem(registry._REGISTRY, ex.id, broken)
    v = check(ex.id, 1.0)
    assert v.status == "invalid" and "please report it" in v


def test_every_numeric_exercise_is_an_exercise_in_its_chapter():
    """The checker's ids are the chapters' exercise labels, so a reader finds them."""
    labels = {d.label for d in _catalog.exercises()}
    if not labels:
        pytest.skip("no chapter has exercises yet")
    chapters_with_exercises = {d.chapter.split("_", 1)[-1].replace("_", "-")
                               for d in _catalog.exercises()}
    missing = [e.id for e in EXERCISES
               if e.chapter in chapters_with_exercises and e.id not in labels]
    assert missing == [], f"registered but not an {{exercise}} label in any chapter: {missing}"
