"""Every chapter page opens its Colab twin: the badge under the title and the header button
point at notebooks/<name>.ipynb on the repository and branch of _config.yml, the twin
exists, and the page fetches nothing from outside the site."""
from __future__ import annotations

import pathlib
import sys

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "_ext"))
import colab  # noqa: E402


def _toc_chapters() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [c["file"] for part in toc.get("parts", []) for c in part.get("chapters", [])]
    return [f.removeprefix("chapters/") for f in files if f.startswith("chapters/")
            and (ROOT / f"{f}.md").exists()]


CHAPTERS = _toc_chapters()


def _expected(name: str) -> str:
    repo = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
    owner_repo = repo["url"].rstrip("/").removesuffix(".git").split("github.com/")[1]
    prefix = f"{repo['path_to_book'].strip('/')}/" if repo.get("path_to_book") else ""
    return (f"https://colab.research.google.com/github/{owner_repo}/blob/"
            f"{repo.get('branch', 'main')}/{prefix}notebooks/{name}.ipynb")


@pytest.mark.parametrize("url", ["https://github.com/o/r", "https://github.com/o/r/",
                                 "https://github.com/o/r.git", "git@github.com:o/r.git"])
def test_colab_url_from_any_spelling_of_the_repository(url):
    assert colab.colab_url(url, "b", "", "01_x") == (
        "https://colab.research.google.com/github/o/r/blob/b/notebooks/01_x.ipynb")
    assert colab.colab_url(url, "b", "book/", "01_x").endswith("/blob/b/book/notebooks/01_x.ipynb")


def test_colab_url_refuses_what_colab_cannot_open():
    with pytest.raises(ValueError, match="GitHub"):
        colab.colab_url("https://gitlab.com/o/r", "main", "", "01_x")


@pytest.mark.browser
@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_page_opens_its_twin_in_colab(open_page, name):
    assert (ROOT / "notebooks" / f"{name}.ipynb").exists(), "run `make notebooks`"
    want = _expected(name)
    p = open_page(f"chapters/{name}.html")
    badge = p.page.locator("a.colab-badge")
    assert badge.count() == 1
    assert badge.get_attribute("href") == want
    assert badge.locator("svg").count() == 1  # inline, not an image from elsewhere
    # The badge sits right under the page's title.
    assert p.page.locator("article section > h1 + p.colab-badge-line a.colab-badge").count() == 1
    button = p.page.locator(".article-header-buttons a.btn-colab-launch-button")
    assert button.count() == 1 and button.get_attribute("href") == want
    assert p.page.locator(".btn-colab-launch-button img").evaluate(
        "img => img.complete && img.naturalWidth > 0")
    # No other Colab link (the theme's own button would open the .md source).
    hrefs = p.page.eval_on_selector_all(
        "a[href*='colab.research.google.com']", "els => els.map(e => e.href)")
    assert set(hrefs) == {want}
    assert p.blocked == [], f"requests left the site: {p.blocked}"


@pytest.mark.browser
def test_pages_that_are_not_chapters_have_no_colab_link(open_page):
    p = open_page("appendix/machines.html")
    assert p.page.locator("a[href*='colab.research.google.com']").count() == 0
    assert p.blocked == []
