"""The check cell of a graded assignment (``assign --graded``): "right" or "not yet", never
how far off.

The practice check cell (:func:`exercises.assign.check_answers`) says how far an answer is
from the truth ("about 800 times too high", "close: 4.0% too high"): two tries give the
answer. In graded mode the cell says only ``right`` or ``not yet`` for an exercise with
the book's numbers (close counts as not yet), with an optional limit on the checks of each
question in this notebook session, and for a question with the student's own numbers
(keyed by the instructor's secret, :mod:`exercises.secret`) only how the answer was read:
those numbers cannot be checked without the key, which never leaves the instructor.

The attempt limit is counted in the running notebook's memory: a student who restarts the
kernel starts again. It slows guessing; the grader, not this cell, decides the points.
"""
from __future__ import annotations

from .assign import _latest_sources, _read_cell, _texts, answer_sources
from .registry import get as get_exercise, judge

#: Checks used so far in this session: (assignment, student, id) -> answers checked.
_USED: dict[tuple, list[str]] = {}


def verdict_word(status: str) -> str:
    """The only word graded mode says about a checked answer."""
    return "right" if status == "right" else "not yet"


def check_answers(assignment: str, student: str | None, ids: list[str],
                  varied: list[str] = (), attempts: int | None = None,
                  history: list[str] | None = None) -> str:
    """What a graded notebook's check cell prints, one line per question."""
    ids, varied = _texts("ids", ids), _texts("varied", varied)
    if not isinstance(assignment, str) or student is not None and not isinstance(student, str):
        raise TypeError("assignment and student must be text (student may be None)")
    if attempts is not None and (isinstance(attempts, bool) or not isinstance(attempts, int)
                                 or attempts < 1):
        raise ValueError(f"attempts must be a whole number >= 1 or None, got {attempts!r}")
    sources = answer_sources(ids, _latest_sources() if history is None else history)
    lines = []
    for id in ids:
        reading, said = _read_cell(id, sources)
        if reading is None:
            lines.append(said)
            continue
        if id in varied:
            lines.append(f"{id}: read as {reading.text}; your own numbers are checked when "
                         "the notebook is graded.")
            continue
        used = _USED.setdefault((assignment, student, id), [])
        if reading.text not in used:
            if attempts is not None and len(used) >= attempts:
                lines.append(f"{id}: no checks left ({attempts} used); it is graded as it "
                             "stands.")
                continue
            used.append(reading.text)
        ex = get_exercise(id)
        word = verdict_word(judge(ex, reading.value, ex.answer).status)
        left = f" ({attempts - len(used)} check(s) left)" if attempts is not None else ""
        lines.append(f"{id}: {word}.{left}")
    text = "\n".join(lines)
    print(text)
    return text
