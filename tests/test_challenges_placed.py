"""Every kernel challenge is offered to the reader: each appears, as a "Your turn" section
showing it, in exactly one chapter (the one its module names), and at least eight are placed."""
from __future__ import annotations

import pathlib
import re

from labs import challenges

CHAPTERS = pathlib.Path(__file__).resolve().parents[1] / "chapters"
SHOW = re.compile(r'labs\.challenges\.show\("([a-z_]+)"\)')


def placements() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for md in sorted(CHAPTERS.glob("*.md")):
        for name in SHOW.findall(md.read_text()):
            found.setdefault(name, []).append(md.name)
    return found


def test_every_challenge_is_placed_once():
    found = placements()
    names = set(challenges.NAMES)
    assert len(names) >= 8, names
    assert set(found) == names, (sorted(names - set(found)), sorted(set(found) - names))
    twice = {n: where for n, where in found.items() if len(where) != 1}
    assert not twice, twice


def test_each_challenge_sits_under_a_your_turn_heading():
    for md in sorted(CHAPTERS.glob("*.md")):
        text = md.read_text()
        for m in SHOW.finditer(text):
            before = text[:m.start()].rsplit("\n#", 1)[-1]
            assert before.lstrip("#").strip().startswith("Your turn"), (md.name, m.group(1))


def test_each_challenge_is_in_the_chapter_its_module_names():
    for name, where in placements().items():
        assert where == [challenges.challenge(name).CHAPTER + ".md"], (name, where)
