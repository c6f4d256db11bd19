"""How every exercise is titled, in the book and everywhere else that shows one:

    Exercise 4.3: Where the H100's FP8 ridge sits (`roofline-3`)

the chapter's number and the exercise's place in it, the title the chapter gives the
``{exercise}`` directive (its argument), and the exercise's id (its ``:label:``, which
``exercises.check`` takes). The book's pages get it from _ext/exercise_titles.py, the
Colab twins from scripts/colab_markdown.py; both call :func:`heading`.
"""
from __future__ import annotations


def heading(number: str, title: str = "", label: str = "") -> tuple[str, str]:
    """("Exercise 4.3:", "Where the ridge sits (`roofline-3`)"): the numbered head and
    the rest, in Markdown. An untitled exercise: ("Exercise 4.3", "(`roofline-3`)");
    without a label the id part is left out."""
    if not isinstance(number, str) or not number.strip():
        raise ValueError(f"number must be the exercise's number like '4.3', got {number!r}")
    ident = f"(`{label}`)" if label else ""
    if title.strip():
        return f"Exercise {number}:", " ".join(p for p in (title.strip(), ident) if p)
    return f"Exercise {number}", ident
