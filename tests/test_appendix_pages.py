"""The appendix pages' sources (no build needed): the syllabus covers every chapter, the
challenges are each described, the glossary is findable and in order, the tensor clock is
one, and every citation of an appendix page is in the bib file."""
from __future__ import annotations

import ast
import pathlib
import re

import labs.challenges as challenges
from perfmodel import machines

ROOT = pathlib.Path(__file__).resolve().parents[1]
APPENDIX = ROOT / "appendix"


def _page(name: str) -> str:
    return (APPENDIX / f"{name}.md").read_text()


def _chapters() -> list[str]:
    return sorted(p.stem for p in (ROOT / "chapters").glob("[0-9][0-9]_*.md"))


def test_the_syllabus_reads_every_chapter_once():
    page = _page("instructors")
    m = re.search(r"^WEEKS = .*?enumerate\(\s*\[(.*?)\], 1\)", page, re.M | re.S)
    assert m, "the syllabus's WEEKS list is missing"
    stems = ast.literal_eval("[" + m.group(1) + "]")
    assert stems == _chapters()


def test_every_challenge_is_described_with_what_it_measures():
    page = _page("instructors")
    for name in challenges.NAMES:
        assert re.search(rf"\*\*{name}\*\*, ", page), f"{name}: no line on what it measures"


def _glossary_terms() -> list[str]:
    body = _page("glossary").split("```{glossary}", 1)[1].split("\n```", 1)[0]
    return re.findall(r"^(\S.*)$", body, re.M)


def test_glossary_is_alphabetical_and_has_the_terms_the_review_asked_for():
    terms = _glossary_terms()
    key = [re.sub(r"[^a-z0-9 ]", "", t.lower()) for t in terms]
    assert key == sorted(key)
    for want in ("SM", "Data parallelism", "NVLink SHARP (NVLS)", "NVSwitch", "Tile quantization",
                 "Dense and 2:4-sparse peaks", "Boost clock and base clock", "SDPA", "Warpgroup",
                 "Grouped-query attention (GQA)", "cuBLAS, cuDNN and CUTLASS", "Gradient bucket",
                 "Mixed precision", "Prefill and decode"):
        assert want in terms, want


def test_glossary_no_longer_says_a_tree_beats_the_link_or_misnames_it():
    text = _page("glossary")
    tree = text.split("\nTree all-reduce\n", 1)[1].split("\n\n", 1)[0]
    assert "recursive halving sums" not in tree
    bus = text.split("\nBus bandwidth\n", 1)[1].split("\n\n", 1)[0]
    assert "tree cannot" in bus


def test_one_tensor_clock_hopper_quotes_its_tensor_peak_at():
    assert machines.get("H200").peak_clock("fp16_tensor") == 1.83e9  # the H100 whitepaper
    for name in ("lab_results", "machines"):
        text = _page(name)
        assert not re.search(r"tensor peak[^.\n]*1\.98 GHz", text), name
    assert "peak_clock('fp16_tensor')" in _page("lab_results")


def test_every_key_an_appendix_page_cites_is_in_the_bib_file():
    bib = set(re.findall(r"^@\w+\{([^,]+),", (ROOT / "references.bib").read_text(), re.M))
    for path in APPENDIX.glob("*.md"):
        for body in re.findall(r"\{cite(?::\w+)?\}`([^`]+)`", path.read_text()):
            for key in (k.strip() for k in body.split(",")):
                assert key in bib, f"{path.name} cites {key!r}, which references.bib lacks"
