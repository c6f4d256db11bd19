#!/usr/bin/env python3
"""Flag prose that is a near copy of the source documents.

Usage: python scripts/prose_near.py [FILES...] [--seeds DIR] [-n 8] [--swaps 1]

The shared checker (../shared/tools/prose_overlap.py) flags runs of ten or more words copied
word for word, so a sentence with one word swapped ("efficiency is the honest figure; speed-up
is the flattering one") passes it. This one compares word shingles: a run of ``n`` words
(default 8) that matches a run of the source in all but ``swaps`` positions (default 1) is a
near copy. Overlapping hits merge into one run. Exit status 1 when any run is found.

Formulas, numbers and code are shared on purpose; they live in code cells and math, which
the chapters' prose extraction leaves out, and single-word technical names do not reach
eight words.
"""
from __future__ import annotations

import argparse
import glob
import pathlib
import re
import sys
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"
WORD = re.compile(r"[a-z0-9']+")
_FRONT = re.compile(r"\A---\n.*?\n---\n", re.S)
_CODE = re.compile(r"^(`{3,})\{code-cell\}.*?^\1[ \t]*$", re.S | re.M)
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_LINK_TARGET = re.compile(r"\]\([^)\s]+\)")


def words(text: str) -> list[str]:
    return WORD.findall(text.lower().replace("\u2019", "'").replace("-", ""))


def book_words(text: str) -> list[str]:
    """A chapter's prose words: front matter, code cells, math, inline code and link targets
    left out (formulas and code are shared on purpose)."""
    text = _MATH.sub(" ", _CODE.sub(" ", _FRONT.sub("", text)))
    return words(_LINK_TARGET.sub("] ", _INLINE_CODE.sub(" ", text)))


@dataclass(frozen=True)
class Run:
    start: int
    end: int        # exclusive, in the book's words
    source: str
    text: str


class SeedIndex:
    """Every ``n``-word shingle of the seeds, and each with one position masked."""

    def __init__(self, seeds: dict[str, list[str]], n: int = 8, swaps: int = 1):
        if n < 3:
            raise ValueError(f"n (words per shingle) must be at least 3, got {n}")
        if swaps not in (0, 1):
            raise ValueError(f"swaps must be 0 or 1, got {swaps}")
        self.n, self.swaps = n, swaps
        self.keys: dict[tuple, str] = {}
        for name, w in seeds.items():
            for i in range(len(w) - n + 1):
                for key in self._keys(tuple(w[i:i + n])):
                    self.keys.setdefault(key, name)

    def _keys(self, shingle: tuple) -> list[tuple]:
        keys = [shingle]
        if self.swaps:
            keys += [shingle[:j] + (None,) + shingle[j + 1:] for j in range(self.n)]
        return keys

    def source_of(self, shingle: tuple) -> str | None:
        for key in self._keys(shingle):
            if key in self.keys:
                return self.keys[key]
        return None


def load_seeds(folder: pathlib.Path = SEEDS) -> dict[str, list[str]]:
    files = sorted(pathlib.Path(folder).glob("*.txt"))
    if not files:
        raise ValueError(f"no source documents (*.txt) in {folder}")
    return {p.name: words(p.read_text(encoding="utf-8")) for p in files}


def near_copies(w: list[str], index: SeedIndex) -> list[Run]:
    """The runs of ``w`` (a list of words) that nearly copy the seeds, merged."""
    n, runs = index.n, []
    i = 0
    while i <= len(w) - n:
        src = index.source_of(tuple(w[i:i + n]))
        if src is None:
            i += 1
            continue
        j = i + 1
        while j <= len(w) - n and index.source_of(tuple(w[j:j + n])):
            j += 1
        end = j - 1 + n
        runs.append(Run(i, end, src, " ".join(w[i:end])))
        i = end
    return runs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--seeds", default=str(SEEDS))
    ap.add_argument("-n", type=int, default=8)
    ap.add_argument("--swaps", type=int, default=1)
    a = ap.parse_args(argv)
    index = SeedIndex(load_seeds(pathlib.Path(a.seeds)), a.n, a.swaps)
    files = a.files or sorted(glob.glob(str(ROOT / "chapters" / "*.md"))) + [str(ROOT / "intro.md")]
    found = 0
    for path in files:
        for run in near_copies(book_words(pathlib.Path(path).read_text(encoding="utf-8")), index):
            print(f"{path}: {run.end - run.start} words near {run.source}: \"{run.text}\"")
            found += 1
    print(f"{found} near-copied run(s) of {a.n}+ words ({a.swaps} swap allowed) "
          f"in {len(files)} file(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
