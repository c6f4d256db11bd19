"""Build one edition of the book from the one source.

    python scripts/build_edition.py student      # -> _build/student/html, solutions removed
    python scripts/build_edition.py instructor   # -> _build/instructor/html, solutions shown

Both are Jupyter Book builds of the same ``_config.yml`` and ``_toc.yml`` with one Sphinx
setting changed, sphinx-exercise's ``hide_solutions``. Both use the main build's jupyter
cache (``_build/.jupyter_cache``), so after ``make book`` neither re-executes a notebook.
Warnings are errors, as in ``make book``.
"""
from __future__ import annotations

import argparse
import pathlib
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
EDITIONS = {"student": True, "instructor": False}  # edition -> hide_solutions


def output_dir(edition: str, root: pathlib.Path = ROOT) -> pathlib.Path:
    """Where an edition's HTML lands: ``_build/<edition>/html``."""
    if edition not in EDITIONS:
        raise ValueError(f"edition must be one of {', '.join(EDITIONS)}, not {edition!r}")
    return root / "_build" / edition / "html"


def overrides(edition: str, root: pathlib.Path = ROOT) -> dict:
    """The Sphinx settings an edition changes over ``_config.yml``.

    The student edition also ships no page sources (``_sources/*.md`` holds every
    solution) and so no "download this page" button pointing at them."""
    output_dir(edition, root)  # validates the name
    changes: dict = {
        "hide_solutions": EDITIONS[edition],
        "nb_execution_cache_path": str(root / "_build" / ".jupyter_cache"),
        "external_toc_path": (root / "_toc.yml").as_posix(),
        "latex_individualpages": False,
    }
    if EDITIONS[edition]:
        from jupyter_book.config import get_final_config

        book, _ = get_final_config(user_yaml=root / "_config.yml",
                                   cli_config={"latex_individualpages": False},
                                   sourcedir=root)
        theme = dict(book.get("html_theme_options") or {})
        theme["use_download_button"] = False
        changes.update(html_copy_source=False, html_show_sourcelink=False,
                       html_theme_options=theme)
    return changes


def build(edition: str, root: pathlib.Path = ROOT, quiet: bool = True) -> int:
    """Build an edition; returns Sphinx's exit status (0 when it built without warnings)."""
    from jupyter_book.sphinx import build_sphinx

    out = output_dir(edition, root)
    if EDITIONS[edition]:
        shutil.rmtree(out / "_sources", ignore_errors=True)  # left by an older build
    result = build_sphinx(root, out, noconfig=True, path_config=str(root / "_config.yml"),
                          confoverrides=overrides(edition, root),
                          doctreedir=out.parent / ".doctrees", builder="html",
                          warningiserror=True, keep_going=True, quiet=quiet)
    if isinstance(result, Exception):
        print(f"the {edition} edition failed to build: {result}", file=sys.stderr)
        return 1
    return int(result)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("edition", choices=sorted(EDITIONS))
    parser.add_argument("--verbose", action="store_true", help="show Sphinx's progress")
    args = parser.parse_args(argv)
    status = build(args.edition, quiet=not args.verbose)
    if status == 0:
        print(f"The {args.edition} edition is in {output_dir(args.edition)}/index.html")
    return status


if __name__ == "__main__":
    sys.exit(main())
