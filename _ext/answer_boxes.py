"""Sphinx extension: an answer box under every numeric exercise (issue 36).

Each page that holds a numeric exercise (an ``{exercise}`` whose ``:label:`` the exercise
registry knows) gets the checker's key as JSON in ``<script type="application/json"
id="book-check-key">``: the unit rules and, for each of the page's numeric exercises, its
unit, answer, tolerances and hint, all from ``exercises.registry.site_key`` at build time.
``_static/book-check.js`` finds each exercise by its id and puts a box under it; no chapter
changes.

The student edition ships no answers. The config value ``book_answer_key`` says whether
pages hold them: left unset it follows sphinx-exercise's ``hide_solutions`` (the student
edition sets that), so the key then holds the units only and each exercise shows where its
answer is checked instead of a box (``book_answer_elsewhere``).
"""
from __future__ import annotations

import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from exercises.registry import site_key  # noqa: E402

#: The opening tag sphinx-exercise writes for a labelled exercise.
_EXERCISE = re.compile(r'<div class="exercise[^"]*" id="([^"]+)"')
ELSEWHERE = ("In this edition your answers are checked in your assignment's notebook, "
             "not on this page: answer {id} there.")


def with_answers(config) -> bool:
    """Whether the pages hold the answers: ``book_answer_key`` when set, else not
    ``hide_solutions``."""
    value = getattr(config, "book_answer_key", None)
    if value is None:
        return not bool(getattr(config, "hide_solutions", False))
    return bool(value)


def key_script(body: str, answers: bool = True, elsewhere: str = ELSEWHERE) -> str:
    """The ``<script type="application/json">`` holding the key for the numeric exercises
    in ``body`` (empty when it has none). Without ``answers`` it holds units only, and the
    sentence saying where the answers are checked."""
    if not isinstance(body, str):
        raise ValueError(f"body must be the page's HTML text, not {type(body).__name__}")
    key = site_key(_EXERCISE.findall(body), answers=answers)
    if not key["exercises"]:
        return ""
    if not answers:
        key["elsewhere"] = elsewhere
    text = json.dumps(key, ensure_ascii=False).replace("</", "<\\/")
    return f'<script type="application/json" id="book-check-key">{text}</script>'


def _add_key(app, pagename, templatename, context, doctree) -> None:
    body = context.get("body")
    if isinstance(body, str) and 'class="exercise' in body:
        script = key_script(body, with_answers(app.config),
                            app.config.book_answer_elsewhere or ELSEWHERE)
        if script:
            context["body"] = body + script


def setup(app):
    app.add_config_value("book_answer_key", None, "html")
    app.add_config_value("book_answer_elsewhere", "", "html")
    app.connect("html-page-context", _add_key)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
