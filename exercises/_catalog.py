"""The exercises as the chapters write them: every ``{exercise}`` and ``{solution}``
directive in ``chapters/*.md``, found by reading the MyST source.

Used by the Colab twin generator (which leaves solutions out of the twins), the
"For instructors" page (which lists every exercise, numeric or not) and the tests of the
two editions (which look for each solution's text in the built HTML).
"""
from __future__ import annotations

import html
import pathlib
import re
from dataclasses import dataclass, field

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHAPTERS = ROOT / "chapters"

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:.-]+)\}[ \t]*(?P<arg>.*?)\s*$")
_OPTION = re.compile(r"^\s*:(?P<key>[\w-]+):\s*(?P<value>.*?)\s*$")
KINDS = ("exercise", "solution")


@dataclass(frozen=True)
class Directive:
    """One exercise or solution. ``label`` is the exercise's ``:label:`` (its id, shared
    with the checker for numeric exercises) or the exercise a solution answers; ``start``
    and ``end`` are the first and last line (0-based, inclusive) in the scanned text, and
    ``body_start``/``body_end`` those of its body."""

    kind: str
    label: str
    title: str
    body: str
    chapter: str = ""
    start: int = 0
    end: int = 0
    options: dict[str, str] = field(default_factory=dict)
    body_start: int = 0  # first line of the body (after the options)
    body_end: int = -1   # last line of the body

    @property
    def classes(self) -> list[str]:
        return self.options.get("class", "").split()


def _closing(lines: list[str], i: int, fence: str) -> int:
    """Index of the line that closes the fence opened at line i (CommonMark: the first
    bare run of the same character at least as long); the last line when it is missing."""
    close = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
    for j in range(i + 1, len(lines)):
        if close.match(lines[j]):
            return j
    return len(lines) - 1


def _split_options(body: list[str]) -> tuple[dict[str, str], list[str]]:
    options: dict[str, str] = {}
    k = 0
    while k < len(body) and (m := _OPTION.match(body[k])):
        options[m["key"]] = m["value"]
        k += 1
    return options, body[k:]


def directives(text: str, chapter: str = "", kinds: tuple[str, ...] = KINDS) -> list[Directive]:
    """Every exercise and solution (or other directive named in ``kinds``) in a MyST text,
    in order, nested ones included (``exercise-start``/``-end`` and
    ``solution-start``/``-end`` pairs too)."""
    lines = text.splitlines()
    found: list[Directive] = []

    def scan(lo: int, hi: int) -> None:
        i = lo
        while i < hi:
            m = _OPEN.match(lines[i])
            if not m:
                i += 1
                continue
            name, fence = m["name"], m["fence"]
            j = min(_closing(lines, i, fence), hi - 1)
            options, rest = _split_options(lines[i + 1:j])
            base = name.removesuffix("-start")
            if base in KINDS and base in kinds and name.endswith("-start"):
                # Gated: the body runs from here to the matching {base-end} directive.
                end, body = j, (j + 1, j)
                for k in range(j + 1, hi):
                    mk = _OPEN.match(lines[k])
                    if mk and mk["name"] == f"{base}-end":
                        end = _closing(lines, k, mk["fence"])
                        rest, body = lines[j + 1:k], (j + 1, k - 1)
                        break
                found.append(_make(base, m["arg"], options, rest, chapter, i, end, body))
                scan(j + 1, end)
                i = end + 1
                continue
            if name in kinds:
                body = (i + 1 + len(options), j - 1 if j > i else j)
                found.append(_make(name, m["arg"], options, rest, chapter, i, j, body))
            if name not in ("code-cell", "code", "code-block"):
                scan(i + 1 + len(options), j)
            i = j + 1

    scan(0, len(lines))
    return found


def _make(kind: str, arg: str, options: dict[str, str], body: list[str], chapter: str,
          start: int, end: int, span: tuple[int, int]) -> Directive:
    if kind == "solution":  # its argument is the exercise it answers
        label, title = arg.split()[0] if arg.split() else "", options.get("title", "")
    else:
        label, title = options.get("label", ""), arg
    return Directive(kind, label, title, "\n".join(body).strip("\n"), chapter, start, end,
                     options, span[0], span[1])


def chapter_files(root: pathlib.Path = ROOT) -> list[pathlib.Path]:
    return sorted((root / "chapters").glob("*.md"))


def scan_chapters(root: pathlib.Path = ROOT) -> list[Directive]:
    """Every exercise and solution in every chapter, chapter by chapter."""
    out: list[Directive] = []
    for path in chapter_files(root):
        out += directives(path.read_text(), chapter=path.stem)
    return out


def solutions(root: pathlib.Path = ROOT) -> list[Directive]:
    return [d for d in scan_chapters(root) if d.kind == "solution"]


def exercises(root: pathlib.Path = ROOT) -> list[Directive]:
    return [d for d in scan_chapters(root) if d.kind == "exercise"]


def _outermost(found: list[Directive]) -> list[Directive]:
    """Those not inside another of the list (in order)."""
    out: list[Directive] = []
    for d in sorted(found, key=lambda d: d.start):
        if not out or d.start > out[-1].end:
            out.append(d)
    return out


def strip_solutions(text: str, note: str = "") -> str:
    """The text with every solution directive removed (replaced by ``note`` when given,
    with ``{label}`` filled in)."""
    lines = text.splitlines()
    for d in reversed(_outermost([d for d in directives(text) if d.kind == "solution"])):
        lines[d.start:d.end + 1] = [note.format(label=d.label)] if note else []
    out = "\n".join(lines)
    return out + "\n" if text.endswith("\n") and out else out


_MARKUP = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\{[\w:.-]+\}`[^`]*`|`[^`]*`|\[[^\]]*\]\([^)]*\)"
                     r"|<[^>]+>|[*_]{1,2}|\|", re.S)
_WORD = re.compile(r"^(?!.*\.\.)[A-Za-z0-9(][A-Za-z0-9,.;()%]*(?:-[A-Za-z0-9,.;()%]+)*$")


def plain_phrases(body: str, min_words: int = 5) -> list[str]:
    """Runs of at least ``min_words`` plain words in a MyST body: no maths, roles, code,
    links or quotes, so they appear verbatim in the built HTML's text. Longest first."""
    _, rest = _split_options(body.splitlines())
    text = _MARKUP.sub(" \x00 ", "\n".join(rest))
    runs: list[list[str]] = [[]]
    for token in text.split():
        if _WORD.match(token):
            runs[-1].append(token)
        elif runs[-1]:
            runs.append([])
    phrases = [" ".join(r) for r in runs if len(r) >= min_words]
    return sorted(phrases, key=len, reverse=True)


# --- The list of exercises on the "For instructors" page ------------------------------

_LAB = re.compile(r"\blabs?\b|\bthen,? measured?\b", re.I)
GPU_NEEDED = "needed"
GPU_OPTIONAL = "optional"


def chapter_title(path: pathlib.Path) -> str:
    for line in path.read_text().splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem


def chapters_calling(call: str, root: pathlib.Path = ROOT) -> list[tuple[str, str]]:
    """(file stem, numbered title) of every chapter whose source contains ``call``, e.g.
    ``'labs.show("waves"'`` or ``'widgets.divergence('``: where a lab or a view is taught."""
    if not call:
        raise ValueError("call must be a non-empty piece of code, like 'widgets.divergence('")
    out = []
    for path in chapter_files(root):
        if call in path.read_text():
            number = re.match(r"(\d+)_", path.name)
            prefix = f"{int(number[1])}. " if number else ""
            out.append((path.stem, prefix + chapter_title(path)))
    return out


def taught_in_html(call: str, base: str = "../chapters/", root: pathlib.Path = ROOT) -> str:
    """'<p>Taught in <a href="...">6. Warps, SIMT and divergence</a>.</p>' for the chapters
    that call ``call`` (see :func:`chapters_calling`); empty when none does."""
    found = chapters_calling(call, root)
    if not found:
        return ""
    links = [f'<a href="{base}{stem}.html">{html.escape(title)}</a>' for stem, title in found]
    text = links[0] if len(links) == 1 else ", ".join(links[:-1]) + " and " + links[-1]
    return f'<p class="taught-in">Taught in {text}.</p>'


def _short(text: str, n: int = 90) -> str:
    text = re.sub(r"\{[\w:.-]+\}`([^`]*)`", r"\1", text)  # roles: keep their target
    text = re.sub(r"[$*`]", "", " ".join(text.split()))
    return text if len(text) <= n else text[: n - 1].rsplit(" ", 1)[0] + "…"


def gpu_use(d: Directive | None, numeric_needs_gpu: bool = False) -> str:
    """``needed`` when the exercise is marked so (``needs_gpu=True`` in register(), or
    ``:class: needs-gpu`` on the directive); ``optional`` when it compares with a lab's
    measurement (without a GPU the lab cells show recorded results); else empty."""
    if numeric_needs_gpu or (d is not None and "needs-gpu" in d.classes):
        return GPU_NEEDED
    if d is not None and _LAB.search(d.title + " " + d.body):
        return GPU_OPTIONAL
    return ""


def _answer(ex) -> tuple[str, str]:
    if ex is None:
        return "written", ""
    unit = {"x": "ratio", "": "plain number"}.get(ex.unit, ex.unit)
    return f"number ({unit})", f"{ex.rel_tol:.0%}"


def exercise_title(d: Directive) -> str:
    """The exercise's own title, without the id some chapters end it with
    ("Reading a ceiling · roofline-1" -> "Reading a ceiling"); empty when untitled."""
    title = d.title.strip()
    if d.label:
        title = re.sub(rf"\s*[·:-]\s*`?{re.escape(d.label)}`?\s*$", "", title)
    if not title:  # chapters 6 to 10 open the body with a bold lead-in: "**The merge.**"
        _, rest = _split_options(d.body.splitlines())
        m = re.match(r"\s*\*\*(?P<lead>[^*]+?)\*\*", "\n".join(rest))
        title = m["lead"].strip().rstrip(".:") if m else ""
    return title


def numbered_title(d: Directive, k: int, path: pathlib.Path) -> str:
    """"Exercise 4.1: Reading a ceiling" (the chapter's number from its file name, the
    exercise's place in the chapter), or "Exercise 6.3" for an untitled one."""
    from .titles import heading

    number = re.match(r"(\d+)_", path.name)
    return " ".join(p for p in heading(f"{int(number[1])}.{k}" if number else str(k),
                                       exercise_title(d)) if p)


def exercise_rows(root: pathlib.Path = ROOT) -> list[dict[str, str]]:
    """One row per exercise of every chapter (written or numeric), then the numeric
    exercises no chapter shows yet: chapter, id, exercise (its numbered title), answer,
    right within, GPU, variants ("yes" when students can get their own numbers)."""
    from . import variants
    from .registry import all_exercises

    numeric = {e.id: e for e in all_exercises()}
    varied = set(variants.ids())
    rows: list[dict[str, str]] = []
    seen: set[str] = set()
    for path in chapter_files(root):
        title = chapter_title(path)
        found = [d for d in directives(path.read_text(), path.stem) if d.kind == "exercise"]
        for k, d in enumerate(found, 1):
            ex = numeric.get(d.label)
            seen.add(d.label)
            kind, tol = _answer(ex)
            rows.append({"chapter": title, "id": d.label or "(no label)",
                         "exercise": numbered_title(d, k, path), "answer": kind,
                         "right within": tol, "GPU": gpu_use(d, bool(ex and ex.needs_gpu)),
                         "variants": "yes" if d.label in varied else ""})
    for ex in numeric.values():
        if ex.id not in seen:
            kind, tol = _answer(ex)
            rows.append({"chapter": ex.chapter, "id": ex.id, "exercise": _short(ex.question),
                         "answer": kind, "right within": tol,
                         "GPU": GPU_NEEDED if ex.needs_gpu else "",
                         "variants": "yes" if ex.id in varied else ""})
    return rows


_GLUE_ROLE = re.compile(r"\{(?P<role>glue(?::\w*)?)\}`(?P<body>[^`]+)`")
_MD_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]]*)\]\((?P<target>[^()\s]+)\)")


def portable_myst(d: Directive, page_dir: str = "appendix") -> str:
    """An exercise's body as MyST that renders on another page of the book exactly as in
    its chapter: each glued value pasted from the chapter (``{glue:text}`name:.1f``` ->
    ``{glue:text}`/chapters/<chapter>.md::name:.1f```, myst-nb's cross-document paste)
    and each link to a page made relative to ``page_dir``."""
    if not d.chapter:
        raise ValueError("d must come from a chapter (scan_chapters sets its chapter)")

    def glue(m: re.Match) -> str:
        body = m["body"]
        if "::" in body:
            return m[0]
        return f"{{{m['role']}}}`/chapters/{d.chapter}.md::{body}`"

    def link(m: re.Match) -> str:
        target = m["target"]
        if re.match(r"^[a-z][a-z0-9+.-]*:|^#|^/", target, re.I):
            return m[0]
        up = "/".join(".." for _ in page_dir.strip("/").split("/")) if page_dir else "."
        return f"[{m['text']}]({up}/chapters/{target})"

    return _MD_LINK.sub(link, _GLUE_ROLE.sub(glue, d.body))


def questions_myst(root: pathlib.Path = ROOT, page_dir: str = "appendix") -> dict[str, str]:
    """Chapter title -> MyST listing every exercise of the chapter as the chapter renders
    it: a bold numbered title with its id, then its question (see :func:`portable_myst`)."""
    out: dict[str, str] = {}
    for path in chapter_files(root):
        found = [d for d in directives(path.read_text(), path.stem) if d.kind == "exercise"]
        parts = []
        for k, d in enumerate(found, 1):
            head = f"**{numbered_title(d, k, path)}**" + (f" (`{d.label}`)" if d.label else "")
            parts.append(f"{head}\n\n{portable_myst(d, page_dir).strip()}")
        if parts:
            out[chapter_title(path)] = "\n\n".join(parts)
    return out


def table_myst(rows: list[dict[str, str]], columns: list[str], caption: str = "") -> str:
    """A MyST table of the rows (cells are MyST inline text: an exercise's title keeps its
    maths), under ``caption``, in a container of class ``exercise-list``."""
    def cell(value: object) -> str:
        return " ".join(str(value).split()).replace("|", "\\|") or " "

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(r.get(c, "")) for c in columns) + " |" for r in rows]
    table = "\n".join(lines)
    return (f"::::{{container}} exercise-list\n:::{{table}} {caption}\n{table}\n:::\n::::\n"
            if caption else f"::::{{container}} exercise-list\n{table}\n::::\n")
