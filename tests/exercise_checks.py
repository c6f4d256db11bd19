"""The three tests every chapter's exercise file shares, built for one chapter:

    (test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
     test_checker_verdicts) = chapter_checks("triage", EXPECTED)

The expected values stay in each chapter's test file, worked by hand from the source
notes' figures (never by calling perfmodel)."""
from __future__ import annotations

import pytest

from exercises import all_exercises, answer, check

def chapter_checks(chapter: str, expected: dict[str, float], rel: float = 1e-9,
                   rel_by_id: dict[str, float] | None = None,
                   rounded: list[tuple[str, float]] = (), off: list[tuple[str, float]] = ()):
    """Three pytest tests: the chapter's registered ids are exactly ``expected``'s keys;
    each registered answer equals its hand-worked value within ``rel`` (or the id's own
    tolerance in ``rel_by_id``); and the checker calls the hand-worked value right, each
    ``rounded`` answer (id, value) right, and each ``off`` answer "not yet"."""
    loose = dict(rel_by_id or {})

    def test_every_exercise_is_checked():
        ids = {e.id for e in all_exercises() if e.chapter == chapter}
        assert ids == set(expected)

    @pytest.mark.parametrize("ex_id", sorted(expected))
    def test_answer_matches_hand_arithmetic(ex_id):
        assert answer(ex_id) == pytest.approx(expected[ex_id], rel=loose.get(ex_id, rel))

    cases = ([(ex_id, expected[ex_id], "right") for ex_id in sorted(expected)]
             + [(ex_id, v, "right") for ex_id, v in rounded]
             + [(ex_id, v, "not yet") for ex_id, v in off])

    @pytest.mark.parametrize("ex_id, given, verdict", cases)
    def test_checker_verdicts(ex_id, given, verdict):
        assert verdict in check(ex_id, given)

    return (test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
            test_checker_verdicts)
