"""MyST Markdown as Colab shows it: plain Markdown for a twin's markdown cells.

Colab renders CommonMark (with ``$...$`` maths and some HTML) and knows nothing of MyST
directives and roles, so in a twin:

- an ``{exercise}`` becomes a bold heading over its text, a ``{solution}`` a one-line
  pointer (to ``check()`` for numeric exercises; the solutions are in the instructor
  edition);
- a glued value (``{glue:text}`name:.1f```, ``{glue}`name```, ...) becomes the text the
  book prints there, formatted by myst-nb's own ``format_plain_text``; the values are
  those the chapter's code cells glued when ``make_notebooks.py`` executed them. A name
  that no code cell glues is an error (:class:`GlueError`);
- an admonition (and ``{margin}``, ``{sidebar}``, ...) a blockquote under its title, but a
  collapsed one (``:class: dropdown``, as the Lab notes and Going further asides are, and
  ``{dropdown}``) a ``<details>`` block, closed until opened as on the site, ``{code-block}`` a fenced block, ``{math}`` ``$$...$$``, ``{figure}`` and
  ``{image}`` an image, ``{table}``/``{list-table}`` a pipe table under its caption;
- ``{math}`` (role) ``$...$``, a reference (``{ref}``, ``{numref}``, ``{doc}``,
  ``{term}``, ...) its text (or the title of what it points at), a citation its label
  from references.bib ("[Dao 2022]", as the book shows it), other roles their text;
- ``(label)=`` targets, ``%`` comments and equation labels disappear, and a definition
  list (``Term`` over ``: definition``) becomes ``**Term**: definition``.

Fenced code and inline code are left as they are.
"""
from __future__ import annotations

import csv
import functools
import io
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from exercises import _catalog
from exercises.titles import heading

ADMONITIONS = ("admonition", "note", "tip", "hint", "important", "warning", "caution",
               "attention", "danger", "error", "seealso")
# Other directives whose body is shown as a blockquote under their argument (the title).
QUOTED = ADMONITIONS + ("dropdown", "margin", "sidebar", "topic", "card", "tab-item",
                        "versionadded", "versionchanged", "deprecated")
TITLES = {"seealso": "See also"}
EPIGRAPHS = ("epigraph", "pull-quote", "highlights")
# Directives that show nothing in a notebook (navigation, indexes).
DROPPED = ("toctree", "tableofcontents", "index", "contents", "bibliography", "only",
           "glossary-start", "include", "literalinclude", "jupyter-execute")
# Directives whose body is shown as it is (layout wrappers).
UNWRAPPED = ("tab-set", "grid", "grid-item", "grid-item-card", "div", "container",
             "card-carousel", "rubric-body", "centered")
CODE = ("code", "code-block", "sourcecode", "code-cell")
GLUE_DIRECTIVES = ("glue", "glue:", "glue:any", "glue:figure", "glue:md", "glue:math")
GLUE_ROLES = ("glue", "glue:", "glue:any", "glue:text", "glue:md")
# The html builder's mime priority with the book's override (text/html first); the
# generator passes the one computed from _config.yml, this is for direct callers.
PRIORITY = ("application/vnd.jupyter.widget-view+json", "text/html", "application/javascript",
            "image/svg+xml", "image/png", "image/jpeg", "text/markdown", "text/latex",
            "text/plain")

# A role (``{name}`content```) or an inline code span, whichever starts first: code
# spans are left alone, and a role's own backticks never open one. Neither crosses a
# blank line.
_NOBLANK = r"(?:(?!\n[ \t>]*\n)[\s\S])"
_INLINE = re.compile(rf"(?P<role>\{{(?P<name>\w[\w:+.-]*)\}}(?P<tick>`+)(?P<body>{_NOBLANK}+?)"
                     rf"(?<!`)(?P=tick)(?!`))"
                     rf"|(?P<code>(?P<ct>`+){_NOBLANK}+?(?<!`)(?P=ct)(?!`))")
_TITLED = re.compile(r"^(?P<text>[\s\S]*?)\s*<(?P<target>[^<>]+)>$")
_TARGET = re.compile(r"^\s{0,3}\((?P<label>[^()\s]+)\)=\s*$")
_COMMENT = re.compile(r"^\s{0,3}%")
_FENCE = re.compile(r"^(?P<indent>\s{0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
_DEF = re.compile(r"^\s{0,3}[:~][ \t]+(?P<text>.*)$")
_NOT_A_TERM = re.compile(r"^\s*(?:[#|>*+-]|\d+[.)]|\$\$|$)")
_MATH_LABEL = re.compile(r"\$\$\s*\([^()\s]+\)\s*$")
_HEADING = re.compile(r"^#{1,6}\s+(?P<title>.*?)\s*#*\s*$")
# Characters that would turn a pasted text into Markdown (or maths, or a table cell).
_ESCAPE = re.compile(r"([\\`*_\[\]<>$|~])")


MISSING: Mapping[str, Any] = {}  # what an unglued name pastes while they are being listed


class GlueError(ValueError):
    """A glued value the twin cannot show: not glued by any code cell, or not text."""


@dataclass(frozen=True)
class Context:
    """What a conversion needs beyond the text: the glued values (name -> mime bundle, as
    myst-nb stores them, ``text/plain`` holding the repr), where the text comes from (for
    messages; e.g. ``chapters/01_why_gpus.md``), reference titles (label -> title, and
    ``doc:<path>`` -> a document's title), the base url of the book's files (images) and
    the mime priority of ``{glue}``."""

    glued: Mapping[str, Mapping[str, Any]] | None = None
    where: str = ""
    targets: Mapping[str, str] = field(default_factory=dict)
    assets: str = ""
    priority: Sequence[str] = PRIORITY
    missing: list[str] | None = None  # when given, unglued names are listed here, not raised
    links: Mapping[str, str] = field(default_factory=dict)  # "chapters/07_latency" -> url

    @property
    def docdir(self) -> str:
        return posixpath.dirname(self.where)


def glue_references(text: str) -> list[tuple[str, str, str]]:
    """Every glued value a MyST text pastes, as ``(role or directive, content, name)``,
    in order: roles ``{glue:text}`name:fmt```, ``{glue}`name``` ... and ``{glue}``
    directives. Fenced code is skipped."""
    found: list[tuple[str, str, str]] = []

    def role(m: re.Match) -> str:
        if m["role"] and m["name"] in GLUE_ROLES:
            found.append((m["name"], m["body"], _glue_key(m["name"], m["body"])))
        return ""

    def visit(lines: list[str]) -> None:
        for kind, part in _parts(lines):
            if kind == "prose":
                _INLINE.sub(role, "\n".join(part))
            elif kind == "directive":
                name, arg, _, body = part
                if name in GLUE_DIRECTIVES:
                    found.append((name, arg, arg.strip()))
                elif name not in CODE:
                    visit(body)

    visit(text.splitlines())
    return found


def _glue_key(role: str, body: str) -> str:
    """The name a glue role pastes: ``name:fmt`` for ``glue:text`` and ``glue:md`` (as
    myst-nb splits it, at the last colon), the whole content for the others."""
    if role in ("glue:text", "glue:md") and ":" in body:
        return body.rsplit(":", 1)[0]
    return body


# --- Splitting a cell into prose, fenced code, maths and directives ---------------------

def _parts(lines: list[str]):
    """``("prose", lines)``, ``("fence", lines)`` (code or ``$$`` maths, verbatim) and
    ``("directive", (name, arg, options, body_lines))``, in order."""
    prose: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _catalog._OPEN.match(line)
        f = _FENCE.match(line) if not m else None
        math = not m and not f and line.lstrip().startswith("$$")
        if not (m or f or math):
            prose.append(line)
            i += 1
            continue
        if prose:
            yield "prose", prose
            prose = []
        if m:
            j = _catalog._closing(lines, i, m["fence"])
            options, body = _options(lines[i + 1:j] if j > i else [])
            yield "directive", (m["name"], m["arg"], options, body)
        elif f:
            j = _catalog._closing(lines, i, f["fence"])
            yield "fence", lines[i:j + 1]
        else:
            j = i
            if line.strip() == "$$" or "$$" not in line.strip()[2:]:
                j = next((k for k in range(i + 1, len(lines)) if "$$" in lines[k]),
                         len(lines) - 1)
            yield "fence", [_MATH_LABEL.sub("$$", x) for x in lines[i:j + 1]]
        i = j + 1
    if prose:
        yield "prose", prose


def _options(body: list[str]) -> tuple[dict[str, str], list[str]]:
    """A directive's options: ``:key: value`` lines, or a ``---`` YAML block, first."""
    if body and body[0].strip() == "---":
        end = next((k for k in range(1, len(body)) if body[k].strip() == "---"), None)
        if end is not None:
            options = {}
            for line in body[1:end]:
                key, _, value = line.partition(":")
                if key.strip():
                    options[key.strip()] = value.strip().strip("'\"")
            return options, body[end + 1:]
    return _catalog._split_options(body)


# --- Converting ------------------------------------------------------------------------

def _convert(lines: list[str], ctx: Context) -> list[str]:
    out: list[str] = []
    apart = False  # the last part was a directive: keep the next text out of it
    for kind, part in _parts(lines):
        if kind == "directive":
            block = _directive(*part, ctx)
            if not block:
                continue
            if out and out[-1].strip():
                out.append("")
            out += block
            apart = True
            continue
        if apart and part and part[0].strip():
            out.append("")
        out += _prose(part, ctx) if kind == "prose" else part
        apart = False
    return out


def _quote(title: str, body: list[str]) -> list[str]:
    head = [f"> **{title}**", ">"] if title else []
    return head + [f"> {line}".rstrip() for line in body]


def _fenced(body: list[str], info: str = "") -> list[str]:
    longest = max((len(r) for line in body for r in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info] + body + [fence]


def _trim(lines: list[str]) -> list[str]:
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def _folded(title: str, inner: list[str]) -> list[str]:
    """A collapsed block ("Lab notes", "Going further", a {dropdown}): closed until opened,
    as on the site. The blank lines let the body be read as Markdown inside the HTML."""
    return ["<details>", f"<summary><b>{title}</b></summary>", ""] + inner + ["", "</details>"]


def _directive(name: str, arg: str, options: dict[str, str], body: list[str],
               ctx: Context) -> list[str]:
    if name in CODE:
        return _fenced(body, (arg.split() or [""])[0])
    if name == "math":
        return ["$$"] + _trim(body) + ["$$"]
    if name in GLUE_DIRECTIVES:
        return _glue_block(name, arg.strip(), options, body, ctx)
    inner = _trim(_convert(body, ctx))
    if name in ADMONITIONS and name != "admonition":
        # These take no title: MyST reads a first-line argument as the start of the body.
        if arg:
            inner = _trim(_convert([arg] + body, ctx))
        return _quote(TITLES.get(name, name.capitalize()), inner)
    if name in QUOTED:
        title = arg or options.get("label", "") or (
            name.capitalize() if name == "admonition" else "")
        if "dropdown" in options.get("class", "").split() or name == "dropdown":
            return _folded(_inline(title, ctx), inner)
        return _quote(_inline(title, ctx), inner)
    if name in EPIGRAPHS:
        return _quote("", inner)
    if name in ("figure", "image"):
        src = _asset(arg.strip(), ctx)
        caption = " ".join(line.strip() for line in inner if line.strip())
        alt = options.get("alt") or (inner[0].strip() if inner else "") or arg
        out = [f"![{_plain(alt)}]({src})"]
        return out + (["", f"*{caption}*"] if name == "figure" and caption else [])
    if name == "table":
        return ([f"**{_inline(arg, ctx)}**", ""] if arg else []) + inner
    if name == "list-table":
        return ([f"**{_inline(arg, ctx)}**", ""] if arg else []) + _list_table(inner, options)
    if name == "csv-table":
        rows = [[cell.strip() for cell in row] for row in csv.reader(io.StringIO("\n".join(inner)))
                if row]
        header = next(csv.reader([options["header"]]), []) if "header" in options else []
        return ([f"**{_inline(arg, ctx)}**", ""] if arg else []) + _pipe_table(
            [[c.strip() for c in header]] + rows if header else rows, bool(header))
    if name == "raw":
        return inner if arg.strip() in ("html", "markdown") else []
    if name == "rubric":
        return [f"**{_inline(arg, ctx)}**"]
    if name in DROPPED:
        return []
    if name in UNWRAPPED:
        return inner
    # Anything else: its text, under its argument.
    return ([f"**{_inline(arg, ctx)}**", ""] if arg else []) + inner


def _asset(path: str, ctx: Context) -> str:
    if re.match(r"^[a-z][a-z0-9+.-]*:", path):  # a url already
        return path
    rel = path.lstrip("/") if path.startswith("/") else posixpath.normpath(
        posixpath.join(ctx.docdir, path))
    return ctx.assets + rel if ctx.assets else path


def _list_table(lines: list[str], options: dict[str, str]) -> list[str]:
    """``* - a`` / ``  - b`` rows as a pipe table (first row a header with ``:header-rows: 1``)."""
    rows: list[list[str]] = []
    for line in lines:
        m = re.match(r"^(?P<row>[*-]\s+)?(?P<lead>\s*)-\s+(?P<cell>.*)$", line)
        if m and m["row"]:
            rows.append([m["cell"]])
        elif m and rows:
            rows[-1].append(m["cell"])
        elif line.strip() and rows and rows[-1]:
            rows[-1][-1] += " " + line.strip()
    return _pipe_table(rows, options.get("header-rows", "0").strip() not in ("", "0"))


def _pipe_table(rows: list[list[str]], header: bool) -> list[str]:
    if not rows:
        return []
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    head = rows[0] if header else [""] * width
    body = rows[1:] if header else rows

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", r"\|") for c in cells) + " |"

    return [line(head), "| " + " | ".join("---" for _ in head) + " |"] + [line(r) for r in body]


def _prose(lines: list[str], ctx: Context) -> list[str]:
    lines = [line for line in lines if not _TARGET.match(line) and not _COMMENT.match(line)]
    lines = _definitions(lines)
    return _inline("\n".join(lines), ctx).split("\n") if lines else []


def _definitions(lines: list[str]) -> list[str]:
    """``Term`` over ``: definition`` (MyST's deflist) as ``**Term**: definition``; a
    second definition of the same term becomes a paragraph of its own."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        if (i + 1 < len(lines) and not _NOT_A_TERM.match(lines[i]) and not _DEF.match(lines[i])
                and _DEF.match(lines[i + 1])):
            term, i = lines[i].strip(), i + 1
            first = True
            while i < len(lines) and (m := _DEF.match(lines[i])):
                out += [f"**{term}**: {m['text']}"] if first else ["", m["text"]]
                first, i = False, i + 1
                while i < len(lines) and (lines[i].startswith("  ") or (
                        not lines[i].strip() and i + 1 < len(lines)
                        and lines[i + 1].startswith("  "))):
                    out.append(lines[i])
                    i += 1
            continue
        out.append(lines[i])
        i += 1
    return out


def _inline(text: str, ctx: Context) -> str:
    text = _INLINE.sub(lambda m: m[0] if m["code"] else _role(m["name"], m["body"], ctx), text)
    return _LINK.sub(lambda m: m[0] if m["code"] else _link(m, ctx), text)


_LINK = re.compile(r"(?P<code>(?P<ct>`+)[^`]+?(?<!`)(?P=ct)(?!`))"
                   r"|(?<!!)\[(?P<text>[^\]]*)\]\((?P<target>[^()\s]+)\)")


def _link(m: re.Match, ctx: Context) -> str:
    """A link to another page of the book (``07_latency.md#anchor``) as the address that
    opens it from Colab (``ctx.links``: the twin in Colab, or the page on the site); web
    addresses and in-page anchors stay as they are."""
    target = m["target"]
    if not ctx.links or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
        return m[0]
    path = target.split("#", 1)[0]
    if not path.endswith((".md", ".ipynb")):
        return m[0]
    page = posixpath.normpath(posixpath.join(ctx.docdir, path.rsplit(".", 1)[0]))
    if page not in ctx.links:
        where = f"{ctx.where}: " if ctx.where else ""
        raise ValueError(f"{where}the link ({target}) names no page of the book "
                         f"(known: {', '.join(sorted(ctx.links)) or 'none given'})")
    return f"[{m['text']}]({ctx.links[page]})"


def _split_titled(body: str) -> tuple[str, str]:
    """``text <target>`` -> (text, target); ``target`` -> ("", target)."""
    m = _TITLED.match(body.strip())
    return (m["text"].strip(), m["target"].strip()) if m else ("", body.strip())


def _role(name: str, body: str, ctx: Context) -> str:
    if name in GLUE_ROLES:
        return _glue_inline(name, body, ctx)
    if name == "math":
        return f"${body}$"
    if name in ("sub", "sup", "kbd"):
        return f"<{name}>{body}</{name}>"
    if name in ("code", "literal", "samp", "file", "command", "envvar", "option", "program"):
        return f"`{body}`"
    if name == "emphasis":
        return f"*{body}*"
    if name == "strong":
        return f"**{body}**"
    if name == "abbr":
        return re.sub(r"\s*\([^()]*\)\s*$", "", body)
    if name in ("cite", "cite:p", "cite:t", "footcite"):
        return cite_text(body)
    if name == "eq":
        text, target = _split_titled(body)
        return text or f"({target})"
    text, target = _split_titled(body)
    if name in ("ref", "numref", "doc", "term", "prf:ref", "any", "std:ref", "download", "index"):
        title = _title(name, target, ctx)
        if text:
            return text.replace("%s", title).replace("{number}", title).replace("{name}", title)
        return title
    return text or target  # any other role: its text


BIB = _catalog.ROOT / "references.bib"


@functools.lru_cache(maxsize=None)
def shorthands(path: str = str(BIB)) -> dict[str, str]:
    """Citation key -> the label the book shows for it: the entry's ``shorthand`` in the
    bib file (the book's pages show the same, _ext/citations.py), else the key."""
    from pybtex.database import parse_file

    entries = parse_file(path).entries
    return {key: e.fields.get("shorthand", key) for key, e in entries.items()}


def cite_text(body: str, path: str = str(BIB)) -> str:
    """``{cite}`a,b``` as the book prints it: "[Dao 2022, Dao 2023]". A key the bib file
    lacks is a ValueError (the book's build would warn about it too)."""
    labels = shorthands(path)
    keys = [k.strip() for k in body.split(",") if k.strip()]
    unknown = [k for k in keys if k not in labels]
    if unknown or not keys:
        raise ValueError(f"cite: {body!r} names no entry of {path} ({', '.join(unknown)})")
    return "[" + ", ".join(labels[k] for k in keys) + "]"


def _title(name: str, target: str, ctx: Context) -> str:
    if name == "doc":
        path = target.removesuffix(".md").removesuffix(".ipynb")
        path = path.lstrip("/") if path.startswith("/") else posixpath.normpath(
            posixpath.join(ctx.docdir, path))
        return ctx.targets.get(f"doc:{path}", target)
    if name == "index":
        return target.split(";")[0].removeprefix("single:").strip()
    return ctx.targets.get(target, target)


# --- Glued values ----------------------------------------------------------------------

def _glued(role: str, content: str, key: str, ctx: Context) -> Mapping[str, Any]:
    where = f"{ctx.where}: " if ctx.where else ""
    if "::" in content:
        raise GlueError(f"{where}{{{role}}}`{content}` pastes {key!r} from another document; "
                        "a Colab twin can only show values its own chapter glues")
    if ctx.glued is None or key not in ctx.glued:
        if ctx.missing is not None:
            ctx.missing.append(key)
            return MISSING
        raise GlueError(f"{where}{{{role}}}`{content}` pastes {key!r}, which no code cell "
                        "of the chapter glues")
    return ctx.glued[key]


def _plain(text: str) -> str:
    """Pasted text as Markdown that shows exactly that text."""
    return _ESCAPE.sub(r"\\\1", text)


def format_text(data: Mapping[str, Any], fmt_spec: str, what: str = "") -> str:
    """What ``{glue:text}`name:fmt_spec``` prints: myst-nb's own formatting of the
    ``text/plain`` repr (``literal_eval``, then ``format`` with the spec)."""
    from myst_nb.core.variables import format_plain_text

    if "text/plain" not in data:
        raise GlueError(f"{what}: no text/plain in the glued value")
    try:
        return format_plain_text(data["text/plain"], fmt_spec)
    except Exception as exc:  # the book would warn, and --warningiserror fail
        raise GlueError(f"{what}: cannot format {data['text/plain']!r} with "
                        f"{fmt_spec!r}: {exc}") from exc


def _glue_inline(role: str, content: str, ctx: Context) -> str:
    key = _glue_key(role, content)
    data = _glued(role, content, key, ctx)
    if data is MISSING:
        return "?"
    what = f"{ctx.where}: {{{role}}}`{content}`" if ctx.where else f"{{{role}}}`{content}`"
    if role == "glue:text":
        fmt = content.rsplit(":", 1)[1] if ":" in content else "s"
        return _plain(format_text(data, fmt, what))
    if role == "glue:md":
        if "text/markdown" not in data:
            raise GlueError(f"{what}: no text/markdown in the glued value")
        return str(data["text/markdown"]).strip()
    return _any(data, what, ctx, inline=True)


def _any(data: Mapping[str, Any], what: str, ctx: Context, inline: bool) -> str:
    """``{glue}``: the first mime type of the priority list the value has."""
    mime = next((m for m in ctx.priority if m in data), None)
    if mime == "text/plain":
        text = str(data[mime])
        return _plain(text) if inline else "\n".join(_fenced(text.splitlines()))
    if mime in ("text/markdown", "text/html", "text/latex"):
        return str(data[mime]).strip()
    raise GlueError(f"{what}: the book shows this value as {mime or 'nothing'}, which a "
                    "Colab twin's text cannot show (paste text, or show it from a code cell)")


def _glue_block(name: str, key: str, options: dict[str, str], body: list[str],
                ctx: Context) -> list[str]:
    data = _glued(name, key, key, ctx)
    if data is MISSING:
        return ["?"]
    what = f"{ctx.where}: {{{name}}} {key}" if ctx.where else f"{{{name}}} {key}"
    if name == "glue:md":
        if "text/markdown" not in data:
            raise GlueError(f"{what}: no text/markdown in the glued value")
        return str(data["text/markdown"]).strip().splitlines()
    if name == "glue:math":
        if "text/latex" not in data:
            raise GlueError(f"{what}: no text/latex in the glued value")
        latex = str(data["text/latex"]).strip().strip("$").strip()
        return ["$$", latex, "$$"]
    out = _any(data, what, ctx, inline=False).splitlines()
    caption = " ".join(line.strip() for line in _trim(_convert(body, ctx)) if line.strip())
    return out + (["", f"*{caption}*"] if name == "glue:figure" and caption else [])


# --- Exercises and solutions, then everything else --------------------------------------

def colab_markdown(text: str, numeric: set[str] | frozenset[str] = frozenset(),
                   glued: Mapping[str, Mapping[str, Any]] | None = None, *, where: str = "",
                   targets: Mapping[str, str] | None = None, assets: str = "",
                   priority: Sequence[str] = PRIORITY, missing: list[str] | None = None,
                   links: Mapping[str, str] | None = None) -> str:
    """A markdown cell for Colab: each ``{exercise}`` becomes a bold heading over its text,
    each ``{solution}`` a one-line pointer (to ``check()`` for numeric exercises), glued
    values their text (from ``glued``: name -> mime bundle) and every other MyST
    construct plain Markdown (see the module's docstring). ``where`` names the source in
    errors; :class:`GlueError` when a pasted name is not in ``glued`` (unless ``missing``
    is given: the names are then appended to it, to report them all at once)."""
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
        name = (targets or {}).get(d.label, f"Exercise {d.label}")
        numbered = re.fullmatch(rf"Exercise (\S+) \({re.escape(d.label)}\)", name)
        if numbered:  # the book's own heading: "Exercise 4.3: Title (`roofline-3`)"
            head = "**" + " ".join(p for p in heading(numbered[1], d.title, d.label) if p) + "**"
        else:
            head = f"**{name}" + (f": {d.title}**" if d.title else "**")
        blank = d.body_start < len(lines) and not lines[d.body_start].strip()
        edits.append((d.start, d.body_start - 1, [head] if blank else [head, ""]))
        if d.end > d.body_end:
            edits.append((d.body_end + 1, d.end, []))
    for first, last, replacement in sorted(edits, reverse=True):
        lines[first:last + 1] = replacement
    ctx = Context(glued, where, targets or {}, assets, priority, missing, links or {})
    out = "\n".join(_convert(lines, ctx))
    return out + "\n" if text.endswith("\n") else out
