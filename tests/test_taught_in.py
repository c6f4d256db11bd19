"""The appendix pages say where each view and each lab is taught: the links are computed
from the chapters' own code (nothing typed twice), and every one leads to a built chapter."""
import re

import pytest

import labs
import widgets
from widgets import diagrams
from conftest import SITE
from exercises import _catalog


def test_chapters_calling_reads_the_chapter_sources(tmp_path):
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "03_x.md").write_text("# Three\n\nlabs.show(\"waves\")\n")
    (tmp_path / "chapters" / "11_y.md").write_text("# Eleven\n\nwidgets.coalescing()\n")
    assert _catalog.chapters_calling('labs.show("waves"', tmp_path) == [("03_x", "3. Three")]
    assert _catalog.chapters_calling("widgets.coalescing(", tmp_path) == [("11_y", "11. Eleven")]
    assert _catalog.taught_in_html("nowhere(", root=tmp_path) == ""
    html = _catalog.taught_in_html("(", root=tmp_path)
    assert html.count("<a ") == 2 and " and " in html
    with pytest.raises(ValueError, match="non-empty"):
        _catalog.chapters_calling("")


def test_every_view_and_lab_is_taught_somewhere():
    for view in widgets.WIDGETS:
        assert _catalog.chapters_calling(f"widgets.{view}("), f"no chapter uses widgets.{view}"
    for name in labs.available():
        assert _catalog.chapters_calling(f'labs.show("{name}"'), f"no chapter shows lab {name}"
    for name, _chapter in diagrams.DIAGRAMS:
        assert _catalog.chapters_calling(f"diagrams.{name}("), f"no chapter draws {name}"


@pytest.mark.parametrize("page, count", [("appendix/gallery.html",
                                          len(widgets.WIDGETS) + len(diagrams.DIAGRAMS)),
                                         ("appendix/lab_results.html", len(labs.available()))])
def test_built_appendix_links_each_entry_to_its_chapters(page, count):
    html = (SITE / page).read_text()
    blocks = re.findall(r'<p class="taught-in">(.*?)</p>', html, re.S)
    assert len(blocks) == count
    for block in blocks:
        targets = re.findall(r'href="([^"]+)"', block)
        assert targets
        for target in targets:
            assert (SITE / "appendix" / target).resolve().is_file(), target
