"""Citations read as short references ("[Dao 2022]") in the Colab twins, the same label
the book's pages show; exercise headings follow exercises/titles.py in the twins."""
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import colab_markdown  # noqa: E402

from exercises.titles import heading  # noqa: E402

BIB = (ROOT / "references.bib").read_text()


def test_the_bib_file_holds_the_four_documents_papers_and_datasheets():
    keys = set(re.findall(r"^@\w+\{([^,\s]+),", BIB, re.M))
    assert {"whygpus", "cs336lecture5", "howgpusrunml", "mathparallel",
            "williams2009roofline", "little1961", "amdahl1967", "gustafson1988",
            "dao2022flashattention", "dao2023flashattention2",
            "nvidia_t4", "nvidia_a100", "nvidia_h100", "nvidia_h200", "nvidia_b200"} <= keys
    assert len(keys) == len(re.findall(r"^@\w+\{", BIB, re.M))  # no key twice


def test_a_citation_reads_as_its_shorthand_in_a_twin():
    out = colab_markdown.colab_markdown("As {cite}`dao2022flashattention` showed.")
    assert out == "As [Dao 2022] showed."
    assert colab_markdown.colab_markdown("{cite:p}`howgpusrunml`") == "[How GPUs Actually Run ML]"
    both = colab_markdown.colab_markdown("{cite}`dao2022flashattention, dao2023flashattention2`")
    assert both == "[Dao 2022, Dao 2023]"


def test_an_unknown_citation_key_is_an_error():
    with pytest.raises(ValueError, match="no_such_paper"):
        colab_markdown.colab_markdown("{cite}`no_such_paper`")


def test_every_key_cited_in_the_chapters_is_in_the_bib_file():
    cited = set()
    for path in sorted((ROOT / "chapters").glob("*.md")) + sorted((ROOT / "appendix").glob("*.md")):
        for body in re.findall(r"\{cite(?::\w+)?\}`([^`]+)`", path.read_text()):
            cited |= {k.strip() for k in body.split(",")}
    assert cited <= set(colab_markdown.shorthands())


def test_heading_has_the_number_the_title_and_the_id():
    assert heading("4.3", "Where the ridge sits", "roofline-3") == (
        "Exercise 4.3:", "Where the ridge sits (`roofline-3`)")
    assert heading("6.1", "", "simt-1") == ("Exercise 6.1", "(`simt-1`)")
    with pytest.raises(ValueError, match="number"):
        heading("", "x", "y")


def test_a_numbered_exercise_in_a_twin_reads_as_in_the_book():
    text = ":::{exercise} Where the ridge sits\n:label: roofline-3\n\nBody.\n:::\n"
    out = colab_markdown.colab_markdown(text, targets={"roofline-3": "Exercise 4.3 (roofline-3)"})
    assert out.splitlines()[0] == "**Exercise 4.3: Where the ridge sits (`roofline-3`)**"


def test_a_sphinx_build_titles_exercises_and_labels_citations(tmp_path):
    # A two-page project with the book's two extensions: the titles and citations as a
    # reader of the site sees them.
    from sphinx.cmd.build import build_main

    (tmp_path / "ch").mkdir()
    (tmp_path / "references.bib").write_text(BIB)
    (tmp_path / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / '_ext')!r})\n"
        "extensions = ['myst_parser', 'sphinx_exercise', 'sphinxcontrib.bibtex', 'citations',"
        " 'exercise_titles']\nmyst_enable_extensions = ['colon_fence']\n"
        "bibtex_bibfiles = ['references.bib']\nbibtex_default_style = 'book'\n"
        "bibtex_reference_style = 'label'\n")
    (tmp_path / "index.md").write_text("# Book\n\n```{toctree}\n:numbered:\nch/a\nsources\n```\n")
    (tmp_path / "sources.md").write_text("# Sources\n\n```{bibliography}\n```\n")
    (tmp_path / "ch" / "a.md").write_text(
        "# A\n\nAs {cite}`dao2022flashattention` showed.\n\n"
        ":::{exercise} Where the ridge sits\n:label: roofline-3\n\nBody.\n:::\n\n"
        ":::{solution} roofline-3\n:class: dropdown\n\nAnswer.\n:::\n")
    assert build_main(["-W", "-q", "-b", "html", str(tmp_path), str(tmp_path / "_b")]) == 0
    page = (tmp_path / "_b" / "ch" / "a.html").read_text()
    text = re.sub(r"<[^>]+>", "", page)
    assert "Exercise 1.1: Where the ridge sits (roofline-3)" in text
    assert "Solution to Exercise 1.1: Where the ridge sits" in text
    assert "[Dao 2022]" in text
