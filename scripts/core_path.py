"""A chapter's core path: the prose a student reads first, counted from its MyST source.

The core path is the main line above the chapter's ``## Exercises`` heading, with code cells,
fenced code, maths blocks, tables, figures, HTML and every collapsed block (solutions,
``:class: dropdown`` admonitions such as "Lab notes" and "Going further") left out. Its budget
is ``BUDGET_WORDS`` words, read at ``WORDS_PER_MINUTE``; a chapter states its reading time
at the top (``READING_TIME`` below).

This counts the source, so an author can check a page without building the book; the built
site's count (``tests/test_core_path.py``) is the one that is tested.

    python scripts/core_path.py                 # every chapter
    python scripts/core_path.py chapters/03_intensity.md
"""
from __future__ import annotations

import math
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUDGET_WORDS = 3000
WORDS_PER_MINUTE = 200
# The line under the goal box: "*Core path: about 14 minutes.*" (the minutes are the core
# path's words / WORDS_PER_MINUTE, rounded up).
READING_TIME = re.compile(r"Core path: about (\d+) minutes")

_FENCE = re.compile(r"^(`{3,}|~{3,})")
_COLON_FENCE = re.compile(r"^(:{3,})\s*\{([\w:-]+)\}")
_WORD = re.compile(r"[A-Za-z0-9][\w'’.,%/×-]*")


def reading_minutes(words: int) -> int:
    """Minutes to read ``words`` words at WORDS_PER_MINUTE, rounded up (at least 1)."""
    if words < 0:
        raise ValueError(f"words must be >= 0, got {words}")
    return max(1, math.ceil(words / WORDS_PER_MINUTE))


def core_path_text(source: str) -> str:
    """The prose of a chapter's core path, from its MyST-markdown source."""
    lines = source.splitlines()
    if lines and lines[0].strip() == "---":          # jupytext front matter
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == "---")
        lines = lines[end + 1:]
    kept: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if re.match(r"^##\s+Exercises\b", line):
            break
        fence = _FENCE.match(line)
        colon = _COLON_FENCE.match(line)
        if fence or line.strip().startswith("$$"):
            close = fence.group(1) if fence else "$$"
            if not fence and line.strip().endswith("$$") and len(line.strip()) > 2:
                i += 1
                continue
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(close):
                i += 1
            i += 1
            continue
        if colon:
            depth, name = colon.group(1), colon.group(2)
            body: list[str] = []
            i += 1
            while i < len(lines) and lines[i].strip() != depth:
                body.append(lines[i])
                i += 1
            i += 1
            options = [b for b in body if b.startswith(":") and not b.startswith(":::")]
            collapsed = any("dropdown" in o for o in options if o.startswith(":class:"))
            if name in ("solution", "exercise", "figure", "table", "list-table", "dropdown",
                        "code-block", "math", "glue:figure") or collapsed:
                continue
            text = "\n".join(b for b in body if b not in options)
            kept.append(core_path_text(text))
            continue
        if line.lstrip().startswith(("|", "<", "(", "%", "```")) or line.startswith("#"):
            i += 1
            continue
        kept.append(line)
        i += 1
    return "\n".join(kept)


def core_path_words(source: str) -> int:
    """Words in the core path (roles' backticks and glue markup count as one word each)."""
    text = re.sub(r"\{[\w:-]+\}`([^`]*)`", r"\1", core_path_text(source))
    return len(_WORD.findall(text))


def main(argv: list[str]) -> int:
    paths = [pathlib.Path(a) for a in argv] or sorted((ROOT / "chapters").glob("[0-9]*.md"))
    over = 0
    for path in paths:
        source = path.read_text(encoding="utf-8")
        words = core_path_words(source)
        stated = READING_TIME.search(source)
        note = (f"states {stated.group(1)} min" if stated else "no reading time stated")
        flag = "  OVER" if words > BUDGET_WORDS else ""
        over += words > BUDGET_WORDS
        print(f"{path.name:32s} {words:6,d} words  {reading_minutes(words):3d} min  ({note}){flag}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
