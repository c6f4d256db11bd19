"""One home per lesson: a lesson (not only a term, which chapters/concepts.yml covers) is
taught in one chapter and linked from the others.

chapters/lessons.yml lists each lesson with its home chapter and a few markers: phrases
(regular expressions, matched case-insensitively on the chapter's source above its
Exercises, code cells left out) that teaching it takes and a one-line link does not. A
marker must occur in the home chapter and in no other chapter's text, folded asides included.

Lessons the list does not name are caught by a near-copy check between chapters: no run of
NEAR_WORDS words (the shared tool's threshold for copying from the sources) stands in the
authored prose of two chapters. Text a cell prints (lab notes made by code, listings'
captions) is left out: it is made by one function on purpose; so are the source
documents' titles, which every chapter cites by name."""
from __future__ import annotations

import collections
import re
import sys

import pytest
import yaml

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import core_path  # noqa: E402

LESSONS = ROOT / "chapters" / "lessons.yml"
CHAPTERS = sorted(p.stem for p in (ROOT / "chapters").glob("[0-9][0-9]_*.md"))
NEAR_WORDS = 10
#: Text every chapter carries on purpose: a source's title (and every citation's label, the
#: shorthands of references.bib), and the reading-time line.
TITLES = ("how gpus actually run ml",) + tuple(
    m.lower() for m in re.findall(r"shorthand\s*=\s*\{([^}]*)\}",
                                  (ROOT / "references.bib").read_text(encoding="utf-8")))
READING_LINE = re.compile(r"core path: about \d+ minutes\.[^.]*\.")
WORD = re.compile(r"[a-z0-9']+")


def lessons() -> list[dict]:
    """The list (empty when the file is missing: the first test says so)."""
    if not LESSONS.exists():
        return []
    data = yaml.safe_load(LESSONS.read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{LESSONS.name} must be a list of lessons")
    return data


@pytest.fixture(scope="module")
def prose(site) -> dict[str, str]:
    """Each chapter's authored prose above its exercises, asides included, lower case."""
    out = {}
    for name in CHAPTERS:
        page = (site / "chapters" / f"{name}.html").read_text(encoding="utf-8")
        text = " ".join(core_path.site_paragraphs(page, asides=True, outputs=False))
        out[name] = re.sub(r"\s+", " ", text.replace("\u2019", "'")).lower()
    return out


#: The lessons the fourth edit found taught in more than one chapter (issues 34 and 35):
#: the time model, percent of peak for memory-bound work, a cheaper GELU, the PCIe trip, the
#: toll and break-even; registers for full occupancy, Little's law, the divergence table,
#: tile intensity and the latency ladder. Each must have its home in the list.
LEAST = 10


def test_every_lesson_is_well_formed():
    assert LESSONS.exists(), f"{LESSONS.relative_to(ROOT)} is missing: the one-home list of lessons"
    assert len(lessons()) >= LEAST, f"only {len(lessons())} lessons listed"
    seen = set()
    for entry in lessons():
        assert set(entry) >= {"lesson", "home", "says", "markers"}, entry
        assert entry["home"] in CHAPTERS, f"{entry['lesson']}: home {entry['home']!r} is no chapter"
        assert entry["lesson"] not in seen, f"{entry['lesson']} is listed twice"
        seen.add(entry["lesson"])
        assert entry["markers"] and all(isinstance(m, str) and m for m in entry["markers"]), entry
        for m in entry["markers"]:
            re.compile(m)


CODE_CELL = re.compile(r"^(`{3,})\{code-cell\}.*?^\1[ \t]*$", re.S | re.M)


@pytest.fixture(scope="module")
def sources() -> dict[str, str]:
    """Each chapter's source above its Exercises heading, code cells left out, asides in:
    where the markers are looked for (they are written as the author writes, Markdown and
    maths included)."""
    out = {}
    for name in CHAPTERS:
        text = (ROOT / "chapters" / f"{name}.md").read_text(encoding="utf-8")
        text = re.split(r"^## Exercises\b", text, flags=re.M)[0]
        out[name] = re.sub(r"\s+", " ", CODE_CELL.sub(" ", text))
    return out


@pytest.mark.parametrize("entry", lessons(), ids=lambda e: e["lesson"])
def test_a_lesson_is_taught_in_its_home_only(sources, entry):
    home = entry["home"]
    markers = [re.compile(m, re.I) for m in entry["markers"]]
    assert any(m.search(sources[home]) for m in markers), (
        f"{entry['lesson']}: none of its markers is in its home, {home}")
    elsewhere = {name: [m.pattern for m in markers if m.search(text)]
                 for name, text in sources.items() if name != home}
    elsewhere = {k: v for k, v in elsewhere.items() if v}
    assert elsewhere == {}, (
        f"{entry['lesson']} (home {home}) is taught again in {elsewhere}: link to its home")


def near_copies(texts: dict[str, str], n: int = NEAR_WORDS) -> dict[str, list[str]]:
    """Runs of n words that stand in two or more of the texts: {run: names}."""
    seen: dict[tuple, set] = collections.defaultdict(set)
    for name, text in texts.items():
        text = READING_LINE.sub(" ", text)
        for title in TITLES:
            text = text.replace(title, " ")
        words = WORD.findall(text)
        for i in range(len(words) - n + 1):
            seen[tuple(words[i:i + n])].add(name)
    return {" ".join(k): sorted(v) for k, v in seen.items() if len(v) > 1}


def test_the_near_copy_check_finds_a_repeated_sentence():
    said = "a warp of thirty two threads issues one instruction for all of its lanes at once"
    found = near_copies({"a": f"first {said} here", "b": f"and later {said}", "c": "other"})
    assert found and all(v == ["a", "b"] for v in found.values())
    assert near_copies({"a": "how gpus actually run ml " * 3, "b": "how gpus actually run ml"}) == {}


def test_no_paragraph_is_repeated_between_chapters(prose):
    found = near_copies(prose)
    pairs = sorted({(tuple(v), k) for k, v in found.items()})
    assert not found, f"{len(found)} runs of {NEAR_WORDS} words stand in two chapters:\n" + \
        "\n".join(f"  {v}: {k}" for v, k in pairs[:20])
