"""A chapter's core path: the prose a student reads first, counted from its MyST source.

The core path is the main line above the chapter's ``## Exercises`` heading, with code cells,
fenced code, maths blocks, tables, figures, HTML and every collapsed block (solutions,
``:class: dropdown`` admonitions such as "Lab notes" and "Going further") left out. Its budget
is ``BUDGET_WORDS`` words, read at ``WORDS_PER_MINUTE``; a chapter states its reading time
at the top (``READING_TIME`` below).

:func:`core_path_words` counts the source, so an author can check a page without building
the book; :func:`site_words` counts the built page, and that count is the one tested
(``tests/test_core_path.py``): the words of the paragraphs and list items of the article
above its Exercises section, outside code, maths, figures, tables and every collapsed block.

    python scripts/core_path.py                 # every chapter's source
    python scripts/core_path.py chapters/03_intensity.md
    python scripts/core_path.py --site _build/html   # the built chapters
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


#: Elements whose text is not main-line prose on the site: code, maths, figures and tables
#: (a code cell's output counts where it is prose a reader reads, a Markdown paragraph), a
#: kernel challenge's box ("Your turn": practice, like the exercises, not the main line), and every collapsed block (details, dropdown admonitions:
#: "Lab notes", "Going further", solutions), the Colab badge.
SITE_SKIP_TAGS = {"pre", "code", "figure", "table", "details", "script", "style", "svg"}
SITE_SKIP_CLASSES = ("dropdown", "toggle-hidden", "math", "book-figure", "colab-badge",
                     "highlight", "MathJax", "challenge")
SITE_PROSE_TAGS = {"p", "li", "dd", "dt"}


def site_paragraphs(page_html: str, asides: bool = False, outputs: bool = True) -> list[str]:
    """The core path's prose of one built chapter page, a string per paragraph or list
    item (see the module's docstring); with ``asides``, the folded Lab notes and Going
    further boxes' paragraphs too (solutions and exercises never); without ``outputs``,
    only what the chapter's author wrote (no paragraph a code cell printed)."""
    from bs4 import BeautifulSoup, NavigableString

    skip_classes = tuple(c for c in SITE_SKIP_CLASSES if not (asides and c == "dropdown"))
    skip_classes += () if outputs else ("cell_output",)
    soup = BeautifulSoup(page_html, "html.parser")
    article = soup.find("article") or soup
    stop = article.find("section", id="exercises")
    blocks: dict[int, list[str]] = {}
    for node in article.descendants:
        if node is stop:
            break
        if not isinstance(node, NavigableString) or not node.strip():
            continue
        if stop is not None and stop in node.parents:
            break
        block = None
        for parent in node.parents:
            if parent is article:
                break
            classes = parent.get("class") or []
            if (parent.name in SITE_SKIP_TAGS or "solution" in classes
                    or any(c == skip or c.startswith(skip + "-") for c in classes
                           for skip in skip_classes)):
                block = None
                break
            if block is None and parent.name in SITE_PROSE_TAGS:
                block = parent
        if block is not None:
            blocks.setdefault(id(block), []).append(str(node))
    return [" ".join(parts) for parts in blocks.values()]


def site_text(page_html: str) -> str:
    """The core path's prose of one built chapter page (see the module's docstring)."""
    return " ".join(site_paragraphs(page_html))


def site_words(page_html: str) -> int:
    """Words in a built chapter page's core path."""
    return len(_WORD.findall(site_text(page_html)))


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        description="Count each chapter's core path (words above its Exercises, asides, code, "
                    f"figures and tables left out) against the budget of {BUDGET_WORDS:,} words.")
    parser.add_argument("chapters", nargs="*", type=pathlib.Path,
                        help="chapter sources (.md) to count; default: every chapter")
    parser.add_argument("--site", nargs="?", const=ROOT / "_build" / "html", type=pathlib.Path,
                        help="count the built pages under this folder instead "
                             "(default: _build/html)")
    args = parser.parse_args(argv)
    if args.site is not None:
        pages = sorted((args.site / "chapters").glob("[0-9]*.html"))
        if not pages:
            parser.error(f"no built chapter pages under {args.site / 'chapters'}: build the "
                         "book first (make book)")
        over = 0
        for page in pages:
            words = site_words(page.read_text(encoding="utf-8"))
            over += words > BUDGET_WORDS
            print(f"{page.name:32s} {words:6,d} words  {reading_minutes(words):3d} min"
                  + ("  OVER" if words > BUDGET_WORDS else ""))
        return 1 if over else 0
    paths = args.chapters or sorted((ROOT / "chapters").glob("[0-9]*.md"))
    for path in paths:
        if not path.is_file():
            parser.error(f"no chapter source at {path}")
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
