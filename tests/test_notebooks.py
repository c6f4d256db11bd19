"""The Colab twins: one per chapter, fresh (regenerated in memory and compared), no
solutions in them, and each one executes top to bottom with nbclient in this environment
(made from requirements.txt), its setup cell on the non-Colab path."""
from __future__ import annotations

import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys

import nbformat
import pytest

from exercises import _catalog

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import colab_markdown  # noqa: E402
import make_notebooks  # noqa: E402

CHAPTERS = make_notebooks.chapter_names()
SETUP_ID = "colab-setup"

RUNNER = r"""
import json, sys
import nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=int(sys.argv[3]), kernel_name="python3",
               resources={"metadata": {"path": sys.argv[2]}}).execute()
print("SETUP-OUTPUTS " + json.dumps(nb.cells[0].outputs))
"""


def test_every_twin_is_fresh():
    problems = make_notebooks.stale()
    assert problems == [], ("Colab twins out of date (never edit them by hand; run "
                            "`make notebooks`):\n" + "\n".join(problems))


@pytest.mark.parametrize("name", CHAPTERS)
def test_twin_starts_with_the_setup_cell_and_asks_for_a_gpu(name):
    path = ROOT / "notebooks" / f"{name}.ipynb"
    assert path.exists(), f"{path.name} is missing: run `make notebooks`"
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    first = nb.cells[0]
    assert first.cell_type == "code" and first.id == SETUP_ID
    assert first.source == make_notebooks.setup_cell_source()
    assert nb.cells[1].cell_type == "markdown" and f"chapters/{name}.md" in nb.cells[1].source
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for raw in ("{glue", "{exercise}", "{solution}", "{admonition}", "{math}`"):
        assert raw not in markdown, f"Colab would show {raw} raw"
    assert nb.metadata["accelerator"] == "GPU"
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert all(c.get("outputs", []) == [] for c in nb.cells if c.cell_type == "code")


@pytest.mark.parametrize("name", CHAPTERS)
def test_twin_has_no_solution_text(name):
    text = (ROOT / "notebooks" / f"{name}.ipynb").read_text()
    chapter = (ROOT / "chapters" / f"{name}.md").read_text()
    sols = [d for d in _catalog.directives(chapter) if d.kind == "solution"]
    assert "{solution}" not in text and "{solution-start}" not in text
    for d in sols:
        assert f"Solution to {d.label}" in text
        for phrase in _catalog.plain_phrases(d.body)[:2]:
            assert json.dumps(phrase)[1:-1] not in text, (d.label, phrase)


def test_colab_markdown_turns_directives_into_plain_markdown():
    text = ("Intro\n\n:::{exercise} A title\n:label: ch-1\n\nDo *this*.\n:::\n\n"
            "::::{solution} ch-1\n:class: dropdown\n\nThe answer is 4.\n```{code}\nx\n```\n::::\n"
            "\n```{exercise}\n:label: ch-2\nDescribe it.\n```\n\n```{solution} ch-2\nWords.\n```\n")
    out = colab_markdown.colab_markdown(text, numeric={"ch-1"})
    assert out == ("Intro\n\n**Exercise ch-1: A title**\n\nDo *this*.\n\n"
                   "*Solution to ch-1: in the book's instructor edition.* Check your number with "
                   '`from exercises import check; check("ch-1", your_answer)`.\n\n'
                   "**Exercise ch-2**\n\nDescribe it.\n\n"
                   "*Solution to ch-2: in the book's instructor edition.*\n")


def test_colab_markdown_quotes_admonitions_and_flattens_roles():
    text = ("```{admonition} Goal\n:class: tip\nLearn {glue:text}`t4_ridge:.1f` and "
            "{math}`x^2`, see {ref}`the roofline <roofline>`.\n```\n\n"
            ":::{warning}\nCareful.\n:::\nAfter {glue}`n` and {doc}`chapters/x`.\n")
    assert colab_markdown.colab_markdown(text) == (
        "> **Goal**\n>\n> Learn `t4_ridge` and $x^2$, see the roofline.\n\n"
        "> **Warning**\n>\n> Careful.\nAfter `n` and chapters/x.\n")


def _execute(path: pathlib.Path, timeout: int = 300) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COLAB_", "NUMBA_ENABLE_CUDASIM"))}
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    try:
        proc = subprocess.run([sys.executable, "-c", RUNNER, str(path), str(path.parent),
                               str(timeout)], capture_output=True, text=True, env=env,
                              cwd=path.parent, timeout=timeout * 4)
    except subprocess.TimeoutExpired:
        return 124, f"{path.name} did not finish in {timeout * 4} s"
    return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture(scope="session")
def executed() -> dict[str, tuple[int, str]]:
    """Every twin executed, several at a time (each in its own kernel)."""
    paths = {n: ROOT / "notebooks" / f"{n}.ipynb" for n in CHAPTERS}
    workers = max(2, min(len(paths), (os.cpu_count() or 2)))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        futures = {n: pool.submit(_execute, p) for n, p in paths.items() if p.exists()}
        return {n: f.result() for n, f in futures.items()}


@pytest.mark.parametrize("name", CHAPTERS)
def test_twin_executes_with_nbclient(name, executed):
    assert name in executed, f"notebooks/{name}.ipynb is missing: run `make notebooks`"
    rc, log = executed[name]
    assert rc == 0, f"notebooks/{name}.ipynb failed:\n{log[-6000:]}"
    setup = next(l for l in log.splitlines() if l.startswith("SETUP-OUTPUTS "))
    assert json.loads(setup.split(" ", 1)[1]) == [], "the setup cell printed outside Colab"
