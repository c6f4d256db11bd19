"""Build one edition of the book from the one source.

    python scripts/build_edition.py student      # -> _build/student/html, solutions removed
    python scripts/build_edition.py instructor   # -> _build/instructor/html, solutions shown
    python scripts/build_edition.py student --tree-only   # -> _build/student/book

The student edition is also a source tree (``_build/student/book``, what the workflow
``.github/workflows/student-edition.yml`` pushes to the ``student`` branch that its Colab
set-up cells clone): the book's tracked files without the reference kernels
(``labs/challenges/solutions/``: a stub package that says where they went), without any
instructor key or assignment, and with every set-up cell and ``_config.yml`` pointing at
that branch. :func:`leaks` lists what in a tree should not be there.

Both are Jupyter Book builds of the same ``_config.yml`` and ``_toc.yml`` with one Sphinx
setting changed, sphinx-exercise's ``hide_solutions``. Both use the main build's jupyter
cache (``_build/.jupyter_cache``), so after ``make book`` neither re-executes a notebook.
Warnings are errors, as in ``make book``.
"""
from __future__ import annotations

import argparse
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
EDITIONS = {"student": True, "instructor": False}  # edition -> hide_solutions


#: The branch the student edition's source tree is published to (its Colab cells clone it).
STUDENT_BRANCH = "student"
#: Tracked paths the student tree leaves out (the answer keys), as path prefixes.
LEFT_OUT = ("labs/challenges/solutions/",)
#: What stands in for the solutions package in the student tree.
STUB = ('"""The reference kernels are not in the student edition (they are the answer key);\n'
        'instructors have them in the book\'s main branch."""\n')
_SECRET_NAMES = re.compile(r"(\.key$|(^|/)assignment\.json$|(^|/)rubric\.json$)")


def tree_dir(root: pathlib.Path = ROOT) -> pathlib.Path:
    """Where the student edition's source tree lands: ``_build/student/book``."""
    return root / "_build" / "student" / "book"


def _tracked(root: pathlib.Path) -> list[str]:
    got = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True,
                         timeout=60)
    if got.returncode:
        raise ValueError(f"root: {root} is not a git checkout (the tree is its tracked files)")
    return [p for p in got.stdout.decode().split("\0") if p]


def leaks(tree: pathlib.Path) -> list[str]:
    """Files of a source tree that the student edition must not hold: a reference kernel
    (any module of ``labs/challenges/solutions`` but the stub), a key, an assignment."""
    out = []
    for p in sorted(tree.rglob("*")):
        rel = p.relative_to(tree).as_posix()
        if not p.is_file() or rel.startswith(".git/"):
            continue
        if rel.startswith(LEFT_OUT) and rel != f"{LEFT_OUT[0]}__init__.py":
            out.append(rel)
        elif rel == f"{LEFT_OUT[0]}__init__.py" and p.read_text() != STUB:
            out.append(rel)
        elif _SECRET_NAMES.search(rel):
            out.append(rel)
    return out


def student_tree(root: pathlib.Path = ROOT, out: pathlib.Path | None = None,
                 branch: str = STUDENT_BRANCH) -> pathlib.Path:
    """Write the student edition's source tree (see the module's docstring); returns it.
    Raises ValueError if anything of :func:`leaks` is left in it."""
    out = tree_dir(root) if out is None else pathlib.Path(out)
    shutil.rmtree(out, ignore_errors=True)
    for rel in _tracked(root):
        if rel.startswith(LEFT_OUT) or _SECRET_NAMES.search(rel):
            continue
        src, dst = root / rel, out / rel
        if not src.is_file():
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    stub = out / LEFT_OUT[0] / "__init__.py"
    stub.parent.mkdir(parents=True, exist_ok=True)
    stub.write_text(STUB)
    config = out / "_config.yml"
    if config.exists():
        config.write_text(re.sub(r"(?m)^(\s+branch:\s*).*$", rf"\g<1>{branch}",
                                 config.read_text()))
    for nb in (out / "notebooks").glob("*.ipynb"):
        nb.write_text(re.sub(r"branch, name = '[^']*'", f"branch, name = '{branch}'",
                             nb.read_text()))
    bad = leaks(out)
    if bad:
        raise ValueError(f"the student tree still holds {', '.join(bad[:5])}")
    return out


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
    parser.add_argument("--tree-only", action="store_true",
                        help="student: write only the source tree (_build/student/book)")
    args = parser.parse_args(argv)
    if args.edition == "student":
        print(f"The student edition's source tree is in {student_tree()}")
        if args.tree_only:
            return 0
    status = build(args.edition, quiet=not args.verbose)
    if status == 0:
        print(f"The {args.edition} edition is in {output_dir(args.edition)}/index.html")
    return status


if __name__ == "__main__":
    sys.exit(main())
