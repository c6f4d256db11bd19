"""Checks of Part I's structure, shared by tests/test_part1_structure.py.

- ``reading_order``: the chapters in the order _toc.yml gives them.
- ``prose``: a chapter's prose, with its front matter and code cells left out.
- ``glossary_terms`` / ``concept_homes``: the glossary's entries, and where each concept of
  the book is taught (chapters/concepts.yml).
- ``early_uses``: glossary terms a chapter uses before the chapter that defines them.
- ``printed_numbers`` / ``shows_answer``: the quantities a page prints, with their units in
  SI, and whether one of them gives an exercise's answer away.
"""
from __future__ import annotations

import html
import html.parser
import math
import pathlib
import re
import sys
from dataclasses import dataclass

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]


def reading_order(root: pathlib.Path = ROOT) -> list[str]:
    """The chapters' stems (like "01_why_gpus") in the order of _toc.yml."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    return [c["file"].split("/")[-1] for part in toc["parts"] for c in part["chapters"]
            if c["file"].startswith("chapters/")]


sys.path.insert(0, str(ROOT / "scripts"))
from prose_near import _CODE, _FRONT  # noqa: E402  (one definition of a chapter's parts)

_COMMENT = re.compile(r"^%.*$|<!--.*?-->", re.M | re.S)


def prose(text: str) -> str:
    """A MyST chapter's prose: front matter, code cells and comments left out."""
    return _COMMENT.sub("", _CODE.sub("", _FRONT.sub("", text)))


def paragraphs(text: str) -> list[str]:
    return [p for p in re.split(r"\n[ \t]*\n", text) if p.strip()]


def glossary_terms(root: pathlib.Path = ROOT) -> dict[str, str]:
    """Each glossary term with its definition text."""
    text = (root / "appendix" / "glossary.md").read_text()
    body = text.split("```{glossary}", 1)[1].split("\n```", 1)[0]
    return {t.strip(): d for t, d in re.findall(r"^(\S.*)\n((?:[ \t]+.*(?:\n|$))+)", body, re.M)}


def first_link(definition: str) -> str | None:
    """The chapter a glossary definition sends the reader to first ("See [chapter 4](...)")."""
    m = re.search(r"\(\.\./chapters/(\d\d_\w+)\.md(?:#[\w-]+)?\)", definition)
    return m.group(1) if m else None


@dataclass(frozen=True)
class Concept:
    name: str
    chapter: str        # stem, like "04_roofline"
    section: str        # a heading of that chapter
    terms: tuple[str, ...]   # glossary terms it defines (may be empty)
    aliases: tuple[str, ...]  # other spellings a chapter uses for it


def concept_homes(root: pathlib.Path = ROOT) -> list[Concept]:
    data = yaml.safe_load((root / "chapters" / "concepts.yml").read_text())
    out = []
    for name, entry in data["concepts"].items():
        home = entry["home"]
        chapter, _, section = home.partition("#")
        out.append(Concept(name, chapter.strip(), section.strip(),
                           tuple(entry.get("terms", ())), tuple(entry.get("aliases", ()))))
    return out


def headings(text: str) -> list[str]:
    return [h.strip() for h in re.findall(r"^#{1,6}\s+(.*)$", prose(text), re.M)]


def spellings(term: str) -> list[str]:
    """"Array of structures (AoS)" -> ["Array of structures", "AoS"]."""
    m = re.match(r"(.*?)\s*\((.*)\)$", term)
    return [m.group(1), m.group(2)] if m else [term]


def term_pattern(spelling: str) -> re.Pattern:
    acronym = spelling.isupper() or re.search(r"[A-Z].*[A-Z]", spelling)
    body = re.escape(spelling).replace(r"\ ", r"[\s-]+").replace(r"\-", r"[\s-]")
    suffix = r"(?:\d\w*)?" if acronym else ""  # GDDR6, GDDR6X
    return re.compile(r"(?<![\w-])" + body + suffix + r"(?:s|es)?(?![\w-])",
                      0 if acronym else re.I)


def early_uses(order: list[str], texts: dict[str, str], homes: dict[str, str],
               allowed: dict[str, set[str]] | None = None) -> list[str]:
    """Every (term, chapter) where ``texts[chapter]`` uses a term before its home chapter.

    A paragraph that links to the home chapter (a forward reference: "chapter 7 explains
    it") may name the term; ``allowed`` maps a chapter to terms it may name anyway."""
    found = []
    for term, home in homes.items():
        if home not in order:
            continue
        for chapter in order[:order.index(home)]:
            if term in (allowed or {}).get(chapter, set()):
                continue
            for para in paragraphs(texts[chapter]):
                if f"{home}.md" in para:
                    continue
                hit = next((m.group(0) for s in spellings(term)
                            if (m := term_pattern(s).search(para))), None)
                if hit:
                    found.append(f"{chapter} uses {term!r} ({hit!r}) before {home} defines it: "
                                 f"{' '.join(para.split())[:160]}")
                    break
    return found


# ---------------------------------------------------------------- printed numbers

#: Elements whose text is no prose: code, and headings and navigation (section numbers).
_SKIP = ("script", "style", "svg", "h1", "h2", "h3", "h4", "h5", "h6", "nav")


class _Text(html.parser.HTMLParser):
    """The visible text of a built page's article, up to the first exercise."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0
        self.inside = False
        self.done = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "main" or (tag == "article" and "bd-article" in (a.get("class") or "")):
            self.inside = True
        if "exercise" in (a.get("class") or "").split():
            self.done = True
        if tag in _SKIP:
            self.skip += 1
        if tag in ("p", "div", "li", "tr", "td", "th", "br", "h1", "h2", "h3", "h4"):
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in _SKIP and self.skip:
            self.skip -= 1

    def handle_data(self, data):
        if self.inside and not self.skip and not self.done:
            self.parts.append(data)


def text_before_exercises(page_html: str) -> str:
    p = _Text()
    p.feed(page_html)
    return "".join(p.parts)


def source_before_exercises(md: str) -> str:
    """The fallback when no site is built: the chapter's prose above its first exercise."""
    text = prose(md)
    m = re.search(r"^[`:]{3,}\{exercise", text, re.M)
    return text[:m.start()] if m else text


_PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15,
           "m": 1e-3, "µ": 1e-6, "μ": 1e-6, "u": 1e-6, "n": 1e-9, "p": 1e-12,
           "Ki": 2.0 ** 10, "Mi": 2.0 ** 20, "Gi": 2.0 ** 30}
#: A unit a page writes after a number, and the exercise unit it measures.
_UNITS = [(r"FLOP/s", "FLOP/s"), (r"FLOPs?/s", "FLOP/s"), (r"B/s", "byte/s"),
          (r"FLOP/byte|FLOPs?/B", "FLOP/byte"), (r"FLOPs?", "FLOP"), (r"B|bytes?", "bytes"),
          (r"s", "s"), (r"%", "%"), (r"[x×]", "x")]
_NUMBER = re.compile(
    r"(?<![\w.,/])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<prefix>Ki|Mi|Gi|[kKMGTPmµμunp])?(?P<unit>FLOPs?/s|FLOP/byte|FLOPs?/B|FLOPs?|"
    r"B/s|bytes?|B|s|%|[x×])(?![\w/]))?")


@dataclass(frozen=True)
class Printed:
    text: str
    value: float      # in SI (a percentage as a fraction)
    kind: str         # "FLOP/s", "byte/s", "s", "bytes", "%", "x", "" (a bare number)
    digits: int       # significant figures as printed
    scale: float      # SI factor from the printed number to value

    @property
    def step(self) -> float:
        """Half a unit in the last printed place, in SI."""
        raw = self.text.replace(",", "")
        decimals = len(raw.split(".")[1]) if "." in raw else 0
        return 0.5 * 10.0 ** -decimals * self.scale


def printed_numbers(text: str) -> list[Printed]:
    out = []
    for m in _NUMBER.finditer(text):
        raw, prefix, unit = m["num"], m["prefix"] or "", m["unit"] or ""
        if unit == "" and prefix:
            continue
        if unit == "s" and prefix in ("Ki", "Mi", "Gi"):
            continue
        kind = next(k for pat, k in _UNITS + [("", "")] if re.fullmatch(pat, unit))
        scale = _PREFIX[prefix] * (0.01 if kind == "%" else 1.0)
        digits = len(raw.replace(",", "").replace(".", "").lstrip("0")) or 1
        out.append(Printed(raw, float(raw.replace(",", "")) * scale, kind, digits, scale))
    return out


#: Exercise units and the printed kinds that can state them.
_KINDS = {"s": {"s"}, "FLOP/s": {"FLOP/s"}, "bytes": {"bytes"}, "x": {"x"},
          "fraction": {"%", ""}, "FLOP/byte": {"FLOP/byte", ""}}


def shows_answer(answer: float, unit: str, printed: list[Printed],
                 rel_tol: float = 0.02) -> list[str]:
    """The printed quantities that state ``answer`` (in the exercise's ``unit``) to the
    precision they are printed with, and near enough that the checker would take it as right
    (``rel_tol``, the exercise's own): "320 GB/s" states 0.32 TB/s, "58%" states 0.583, "10"
    does not state 9.78. A bare one-digit number (like "2") states nothing, and a ratio
    ("x" answers) must be printed as one ("2.0x")."""
    kinds = _KINDS.get(unit, {""})
    hits = []
    for p in printed:
        if p.kind not in kinds or answer == 0 or not math.isfinite(answer):
            continue
        if p.digits < 2 and p.kind in ("", "x"):
            continue
        if p.kind == "" and "." not in p.text and p.digits < 3:
            continue  # a bare two-digit count (32 lanes, 64 SMs) is too common to mean it
        if p.value == 0:
            continue
        # As printed, it rounds to the answer, and copying it would be checked right.
        if (abs(p.value - answer) <= max(p.step, 1e-12 * abs(answer)) * 1.0001
                and abs(p.value - answer) <= rel_tol * abs(answer)):
            hits.append(p.text + (" " + p.kind if p.kind else ""))
    return hits
