"""MyST Markdown as Colab shows it: plain Markdown for a twin's markdown cells.

Colab renders CommonMark and knows nothing of MyST directives and roles, so in a twin:
an ``{exercise}`` becomes a bold heading over its text, a ``{solution}`` a one-line
pointer (to ``check()`` for numeric exercises; the solutions are in the instructor
edition), an admonition a blockquote, a glued number its name in code, ``{math}`` a
``$...$`` and a reference its text.
"""
from __future__ import annotations

import re

from exercises import _catalog

ADMONITIONS = ("admonition", "note", "tip", "hint", "important", "warning", "caution",
               "attention", "danger", "error", "seealso")
GLUE = re.compile(r"\{glue(?::\w+)?\}`(?:[^`]*::)?([^`:]+)(?::[^`]*)?`")
_MATH = re.compile(r"\{math\}`([^`]*)`")
_REF = re.compile(r"\{(?:ref|numref|doc|eq|term|prf:ref)\}`([^`<]*?)\s*(?:<([^>]*)>)?`")


def _quote_admonitions(lines: list[str]) -> list[str]:
    """``{admonition} Title`` (and ``{note}``, ``{tip}``, ...) as a Markdown blockquote."""
    found = _catalog._outermost(_catalog.directives("\n".join(lines), kinds=ADMONITIONS))
    for d in reversed(found):
        title = d.title if d.kind == "admonition" else d.kind.capitalize()
        title = title or d.label or d.kind.capitalize()
        body = [f"> {line}".rstrip() for line in d.body.splitlines()]
        lines[d.start:d.end + 1] = [f"> **{title}**", ">"] + body
    return lines


def _plain_roles(line: str) -> str:
    """MyST roles Colab would show raw: glued numbers by name, maths as $...$, references
    as their text."""
    line = GLUE.sub(lambda m: f"`{m[1]}`", line)
    line = _MATH.sub(lambda m: f"${m[1]}$", line)
    return _REF.sub(lambda m: m[1] or m[2] or "", line)


def colab_markdown(text: str, numeric: set[str] | frozenset[str] = frozenset()) -> str:
    """A markdown cell for Colab: each ``{exercise}`` becomes a bold heading over its text,
    each ``{solution}`` a one-line pointer (to ``check()`` for numeric exercises)."""
    lines = text.splitlines()
    found = _catalog.directives(text)
    solutions = _catalog._outermost([d for d in found if d.kind == "solution"])
    edits: list[tuple[int, int, list[str]]] = []  # (first, last, replacement), disjoint
    for d in solutions:
        note = f"*Solution to {d.label}: in the book's instructor edition.*"
        if d.label in numeric:
            note += (" Check your number with "
                     f'`from exercises import check; check("{d.label}", your_answer)`.')
        edits.append((d.start, d.end, [note]))
    for d in found:
        if d.kind != "exercise" or any(s.start <= d.start <= s.end for s in solutions):
            continue
        head = f"**Exercise {d.label}" + (f": {d.title}**" if d.title else "**")
        blank = d.body_start < len(lines) and not lines[d.body_start].strip()
        edits.append((d.start, d.body_start - 1, [head] if blank else [head, ""]))
        if d.end > d.body_end:
            edits.append((d.body_end + 1, d.end, []))
    for first, last, replacement in sorted(edits, reverse=True):
        lines[first:last + 1] = replacement
    lines = _quote_admonitions(lines)
    lines = [_plain_roles(line) for line in lines]
    out = "\n".join(lines)
    return out + "\n" if text.endswith("\n") else out
