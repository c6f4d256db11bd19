"""One measured H200: every page quotes the H200's measured roofs from one profile
(``labs.machine_profile("H200")``, built from one recorded run of each lab it reads), so one
quantity has one value book-wide. The run-to-run spread is stated once, in the appendix.

A quote is a number with the quantity's unit in a sentence of a page's authored prose
(paragraphs and list items, folded asides included; what a cell prints is the profile's
by construction) that names the H200 and the quantity. It must be the profile's value at
the precision quoted, or the datasheet's. A sentence about another instrument (WebGPU in
a browser, wgpu) measures something else and is left out."""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass

import pytest

import labs
from conftest import ROOT
from perfmodel import machines

sys.path.insert(0, str(ROOT / "scripts"))
import core_path  # noqa: E402


@dataclass(frozen=True)
class Quantity:
    name: str
    unit: str            # as the page writes it
    scale: float         # SI value of one unit
    words: str           # a regex the sentence must match to be about this quantity
    measured: float      # SI, from the profile
    datasheet: float     # SI


PROFILE = labs.machine_profile("H200")
SHEET = machines.get("H200")
QUANTITIES = (
    Quantity("DRAM copy bandwidth", "TB/s", 1e12, r"\bcop(y|ies|ied|ying)\b",
             PROFILE.bandwidth("dram"), SHEET.bandwidth("dram")),
    Quantity("FP32 rate", "TFLOP/s", 1e12, r"\bFMA\b|\bFP32 (peak|rate|roof)\b",
             PROFILE.peak_flops("fp32"), SHEET.peak_flops("fp32")),
)
OTHER_INSTRUMENTS = re.compile(r"WebGPU|wgpu|browser", re.I)
NUMBER = r"(\d[\d,]*(?:\.\d+)?)"


def same_at_precision(quoted: str, value: float) -> bool:
    """'4.21' is 4.2131... at two decimals; '4.2' at one; '65' at none."""
    decimals = len(quoted.split(".")[1]) if "." in quoted else 0
    return abs(float(quoted.replace(",", "")) - round(value, decimals)) < 0.5 * 10 ** -decimals


GPUS = re.compile(r"\b(T4|A100|H100|H200|B200|GB200)\b")
#: Words either side of a number within which the quantity's word must stand.
NEAR = 6


def quotes(text: str, q: Quantity) -> list[tuple[str, str]]:
    """(number, sentence) for each quote of q about the H200 in the text: a number with
    q's unit whose nearest GPU name before it (else the sentence's first) is the H200 and
    with q's word within NEAR words of it."""
    out = []
    for sentence in re.split(r"(?<=[.;!?])\s+(?=[A-Z(])", text):
        if "H200" not in sentence or OTHER_INSTRUMENTS.search(sentence):
            continue
        for m in re.finditer(NUMBER + r"\s*" + re.escape(q.unit), sentence):
            before = GPUS.findall(sentence[:m.start()])
            gpu = before[-1] if before else GPUS.search(sentence).group(1)
            words_before = sentence[:m.start()].split()[-NEAR:]
            words_after = sentence[m.end():].split()[:NEAR]
            near = " ".join(words_before + words_after)
            if gpu == "H200" and re.search(q.words, near):
                out.append((m.group(1), sentence))
    return out


def wrong_values(text: str) -> list[str]:
    found = []
    for q in QUANTITIES:
        for n, sentence in quotes(text, q):
            if not any(same_at_precision(n, v / q.scale) for v in (q.measured, q.datasheet)):
                found.append(f"{q.name} {n} {q.unit} (the profile's is "
                             f"{q.measured / q.scale:.3g}): {sentence[:160]}")
    return found


def test_the_check_flags_a_second_value_and_passes_the_profiles():
    copy = PROFILE.bandwidth("dram") / 1e12
    good = f"The H200 copied at {copy:.2f} TB/s, against 4.8 TB/s on its datasheet."
    bad = "On the H200 the plain device copy ran at 4.14 TB/s that day."
    other = "In the browser the H200's copy reached 4.13 TB/s through WebGPU."
    t4 = "The T4 copies at 0.22 TB/s and its FMA loop at 8.14 TFLOP/s, the H200 at 65.1 TFLOP/s."
    read = "The H200 read 4.42 TB/s, against the 4.21 TB/s of a plain copy."
    assert wrong_values(good) == [] and wrong_values(t4) == [] and wrong_values(read) == []
    assert len(wrong_values(bad)) == 1 and "4.14" in wrong_values(bad)[0]
    assert wrong_values(other) == []
    assert same_at_precision("4.21", 4.2131) and not same_at_precision("4.17", 4.2131)


PAGES = sorted(str(p.relative_to(ROOT).with_suffix("")) for p in
               [*(ROOT / "chapters").glob("[0-9][0-9]_*.md"), *(ROOT / "appendix").glob("*.md"),
                ROOT / "intro.md"])


@pytest.mark.parametrize("page", PAGES)
def test_a_page_quotes_one_value_per_measured_h200_roof(site, page):
    html = (site / f"{page}.html").read_text(encoding="utf-8")
    text = " ".join(core_path.site_paragraphs(html, asides=True, outputs=False))
    assert wrong_values(text) == []
