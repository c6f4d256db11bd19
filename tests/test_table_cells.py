"""Table cells that fit their column on one line get no-break spaces (plotly then draws
them as plain text instead of measuring every word to wrap them); the rest are left for
plotly to wrap."""
from __future__ import annotations

import pytest

from widgets.style import NBSP, table_trace, unbroken


def test_a_short_cell_keeps_its_words_together():
    # 6 characters, about 45 px of 12 px text, in a 200 px column
    assert unbroken("1.2 ms", 200) == "1.2" + NBSP + "ms"


def test_a_long_cell_is_left_to_wrap():
    sentence = "irregular: gathers waste most of each sector"   # 44 characters, ~300 px
    assert unbroken(sentence, 150) == sentence
    assert unbroken(sentence, 600) == sentence.replace(" ", NBSP)


def test_markup_and_numbers_are_left_alone():
    assert unbroken("a<br>b c", 600) == "a<br>b c"
    assert unbroken(3.5, 600) == 3.5


def test_bad_width_is_named():
    with pytest.raises(ValueError, match="column_px"):
        unbroken("x", 0)


def test_table_columns_are_judged_by_their_share_of_the_width():
    t = table_trace(["a b", "c d"], [["short one", "x"], ["a much longer cell of text here " * 2, "y z"]],
                    [0, 1], [0.2, 0.8])
    assert t["header"]["values"] == ["a" + NBSP + "b", "c" + NBSP + "d"]
    # the first column is a fifth of the table: "short one" (~90 px) fits its ~108 px
    assert t["cells"]["values"][0] == ["short" + NBSP + "one", "x"]
    # 64 characters (~480 px) do not fit the second column's ~430 px: plotly wraps them
    assert " " in t["cells"]["values"][1][0] and t["cells"]["values"][1][1] == "y" + NBSP + "z"
