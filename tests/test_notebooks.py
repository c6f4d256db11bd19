"""The Colab twins: one per chapter, fresh (regenerated in memory and compared), no
solutions in them, and each one executes top to bottom with nbclient in this environment
(made from requirements.txt), its setup cell on the non-Colab path."""
from __future__ import annotations

import concurrent.futures
import json
import os
import pathlib
import re
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

# The kernel is reached over Unix sockets in a folder of its own: over TCP, kernels started
# side by side (these, the Colab twins' in the other worker) could pick the same free port.
RUNNER = r"""
import json, os, sys, tempfile
import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
km = KernelManager(kernel_name="python3", transport="ipc",
                   ip=os.path.join(tempfile.mkdtemp(prefix="twin-"), "kernel"))
NotebookClient(nb, km=km, timeout=int(sys.argv[3]), kernel_name="python3",
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
    # Nothing else of MyST either, outside fenced code: roles, directives, targets,
    # definition lists, comments.
    prose = re.sub(r"^(`{3,}|~{3,})[^`\n]*\n.*?^\1\s*$", "", markdown, flags=re.M | re.S)
    for pattern in (r"\{[\w:.+-]+\}`", r"^\s*(`{3,}|:{3,})\{", r"^\s*\([^()\s]+\)=\s*$",
                    r"^[:~] ", r"^%"):
        leak = re.search(pattern, prose, flags=re.M)
        assert not leak, f"Colab would show MyST raw: {prose[leak.start():leak.start() + 80]!r}"
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
    glued = {"t4_ridge": {"text/plain": "25.3125"}, "n": {"text/plain": "3"}}
    assert colab_markdown.colab_markdown(text, glued=glued) == (
        "> **Goal**\n>\n> Learn 25.3 and $x^2$, see the roofline.\n\n"
        "> **Warning**\n>\n> Careful.\n\nAfter 3 and chapters/x.\n")


def test_colab_markdown_folds_lab_notes_as_the_site_does():
    """A "Lab notes" aside (an admonition with the dropdown class) is a closed <details> in
    the twin, its body still Markdown; a plain admonition stays a blockquote."""
    text = (":::{admonition} Lab notes: the H200 copy\n:class: dropdown lab-notes\n"
            "It ran at **4.21 TB/s**, {math}`x^2`.\n:::\n")
    assert colab_markdown.colab_markdown(text) == (
        "<details>\n<summary><b>Lab notes: the H200 copy</b></summary>\n\n"
        "It ran at **4.21 TB/s**, $x^2$.\n\n</details>\n")


GLUED = {"ratio": {"text/plain": "10.357142857142856"}, "lanes": {"text/plain": "2560"},
         "big": {"text/plain": "268435456"}, "tiny": {"text/plain": "0.09655172413793105"},
         "gpu": {"text/plain": "'Tesla T4'"}, "share": {"text/plain": "0.125"},
         "huge": {"text/plain": "1e+21"}}


@pytest.mark.parametrize("role, shown", [
    ("{glue:text}`ratio:.1f`", "10.4"),
    ("{glue:text}`ratio:.0f`", "10"),
    ("{glue:text}`ratio`", "10.357142857142856"),          # no spec: str() of the value
    ("{glue:text}`ratio:`", "10.357142857142856"),
    ("{glue:text}`lanes:,`", "2,560"),
    ("{glue:text}`lanes:,.0f`", "2,560"),
    ("{glue:text}`big:.3g`", "2.68e+08"),
    ("{glue:text}`tiny:.2f`", "0.10"),
    ("{glue:text}`tiny:.1e`", "9.7e-02"),
    ("{glue:text}`share:.0%`", "12%"),
    ("{glue:text}`lanes:d`", "2560"),
    ("{glue:text}`huge:.0f`", "1000000000000000000000"),
    ("{glue:text}`gpu`", "Tesla T4"),                       # strings without their quotes
    ("{glue:text}`gpu:>10s`", "  Tesla T4"),
    ("{glue}`ratio`", "10.357142857142856"),                # the text/plain as it is
    ("{glue:}`lanes`", "2560"),
    ("{glue:any}`lanes`", "2560"),
])
def test_glued_values_read_as_the_book_prints_them(role, shown):
    from myst_nb.core.variables import format_plain_text

    assert colab_markdown.colab_markdown(f"x {role} y", glued=GLUED) == f"x {shown} y"
    if role.startswith("{glue:text}"):  # myst-nb's own formatting, as the book's role does
        name, _, spec = role.split("`")[1].partition(":")
        spec = spec if ":" in role.split("`")[1] else "s"
        assert format_plain_text(GLUED[name]["text/plain"], spec) == shown


def test_a_pasted_name_that_is_not_glued_stops_generation():
    text = "One {glue:text}`lanes:,` and {glue:text}`no_such_value:.1f`.\n"
    with pytest.raises(colab_markdown.GlueError, match=r"chapters/09_x\.md.*no_such_value"):
        colab_markdown.colab_markdown(text, glued=GLUED, where="chapters/09_x.md")
    with pytest.raises(colab_markdown.GlueError, match="'lanes'"):
        colab_markdown.colab_markdown(text)  # nothing glued at all
    missing: list[str] = []  # or every unglued name listed, for one message
    colab_markdown.colab_markdown(text, glued={}, missing=missing)
    assert missing == ["lanes", "no_such_value"]
    with pytest.raises(colab_markdown.GlueError, match="another document"):
        colab_markdown.colab_markdown("{glue:text}`02_x.md::lanes:d`", glued=GLUED)
    with pytest.raises(colab_markdown.GlueError, match="cannot format"):
        colab_markdown.colab_markdown("{glue:text}`gpu:.1f`", glued=GLUED)


def test_roles_in_code_are_left_as_they_are():
    text = ("Write ``{glue:text}`name:.1f` `` like this, or ``{ref}`x` ``.\n\n"
            "```markdown\n{glue:text}`lanes:d` and {ref}`x`\n(label)=\n```\n")
    assert colab_markdown.colab_markdown(text, glued=GLUED) == text


def test_colab_markdown_flattens_the_rest_of_myst():
    text = ("(sec-roofline)=\n## The roofline\n\n% a comment the book hides\n"
            "FLOP\n: One floating-point\n  operation.\n\nWarp\n: 32 threads.\n\n"
            "See {numref}`Section %s <sec-roofline>`, {ref}`sec-roofline`, {doc}`02_x`, "
            "{term}`FLOP`, H{sub}`2`O, {abbr}`HBM (high-bandwidth memory)` and {eq}`eq-1`.\n\n"
            "$$\nP = F / t\n$$ (eq-1)\n\n"
            "```{figure} images/roof.png\n:name: fig-roof\n:width: 80%\n\nThe roofline.\n```\n"
            "```{code-block} python\n:caption: x\nprint(1)\n```\n\n"
            ":::{math}\n:label: eq-2\na^2\n:::\n\n"
            "```{list-table} Peaks\n:header-rows: 1\n\n* - GPU\n  - TFLOP/s\n* - T4\n"
            "  - {glue:text}`ratio:.1f`\n```\n\n"
            ":::{note} First line.\nSecond line.\n:::\n"
            "::::{dropdown} More\n:::{tip}\nInner {glue:text}`lanes:,`.\n:::\n::::\n")
    out = colab_markdown.colab_markdown(
        text, glued=GLUED, where="chapters/01_x.md",
        targets={"sec-roofline": "The roofline", "doc:chapters/02_x": "Parallelism"},
        assets="https://raw.example/b/")
    assert out == (
        "## The roofline\n\n"
        "**FLOP**: One floating-point\n  operation.\n\n**Warp**: 32 threads.\n\n"
        "See Section The roofline, The roofline, Parallelism, FLOP, H<sub>2</sub>O, HBM and "
        "(eq-1).\n\n"
        "$$\nP = F / t\n$$\n\n"
        "![The roofline.](https://raw.example/b/chapters/images/roof.png)\n\n*The roofline.*\n\n"
        "```python\nprint(1)\n```\n\n"
        "$$\na^2\n$$\n\n"
        "**Peaks**\n\n| GPU | TFLOP/s |\n| --- | --- |\n| T4 | 10.4 |\n\n"
        "> **Note**\n>\n> First line.\n> Second line.\n\n"
        "<details>\n<summary><b>More</b></summary>\n\n> **Tip**\n>\n> Inner 2,560.\n\n"
        "</details>\n")   # a {dropdown} is closed until opened, as on the site


def _chapter(root: pathlib.Path, code: str, prose: str) -> None:
    """A one-chapter book in ``root``: _config.yml and requirements.txt of this one."""
    for name in ("_config.yml", "requirements.txt"):
        (root / name).write_text((ROOT / name).read_text())
    (root / "chapters").mkdir(exist_ok=True)
    (root / "chapters" / "01_x.md").write_text(
        "---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
        "kernelspec:\n  display_name: Python 3\n  language: python\n  name: python3\n---\n\n"
        f"# X\n\n```{{code-cell}} ipython3\n:tags: [remove-cell]\n{code}\n```\n\n{prose}\n")


def test_the_freshness_check_executes_the_chapter(tmp_path):
    """A twin is stale when a glued number changes, even with the chapter's text unchanged;
    and a name that no cell glues stops generation with the chapter and the name."""
    prose = "It runs {glue:text}`speedup:.1f` times faster, on {glue:text}`gpu`."
    _chapter(tmp_path, 'from myst_nb import glue\nglue("speedup", 19.04, display=False)\n'
                       'glue("gpu", "T4", display=False)', prose)
    assert make_notebooks.write(tmp_path) == ["wrote notebooks/01_x.ipynb"]
    nb = nbformat.read(tmp_path / "notebooks" / "01_x.ipynb", as_version=4)
    assert "It runs 19.0 times faster, on T4." in [c.source for c in nb.cells]
    assert make_notebooks.stale(tmp_path) == []
    _chapter(tmp_path, 'from myst_nb import glue\nglue("speedup", 21.0, display=False)\n'
                       'glue("gpu", "T4", display=False)', prose)
    assert make_notebooks.stale(tmp_path) == ["notebooks/01_x.ipynb: stale"]
    _chapter(tmp_path, 'from myst_nb import glue\nglue("speedup", 21.0, display=False)', prose)
    with pytest.raises(colab_markdown.GlueError, match=r"chapters/01_x\.md.*\bgpu\b"):
        make_notebooks.stale(tmp_path)
    _chapter(tmp_path, "raise ValueError('broken chapter')", prose)
    with pytest.raises(RuntimeError, match=r"chapters/01_x\.md(.|\n)*broken chapter"):
        make_notebooks.stale(tmp_path)


def test_twins_are_generated_deterministically(tmp_path):
    _chapter(tmp_path, 'from myst_nb import glue\nglue("third", 1 / 3, display=False)',
             "A third is {glue:text}`third:.3f`.")
    first = make_notebooks.expected(tmp_path)
    assert make_notebooks.expected(tmp_path) == first
    assert "A third is 0.333." in first["notebooks/01_x.ipynb"]


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
    outputs = json.loads(setup.split(" ", 1)[1])
    # Outside Colab the cell installs nothing and prints only its status (labs.ready).
    assert [o["output_type"] for o in outputs] == ["stream"], outputs
    assert outputs[0]["text"].startswith(("Ready (", "Set up, with a problem (")), outputs


def test_the_book_builds_glued_values_are_used_only_while_fresh(tmp_path):
    """A chapter's values are read from the book build (myst-nb's glue.json) only while it
    is newer than the chapter and the code a chapter runs; otherwise the chapter runs."""
    _chapter(tmp_path, 'from myst_nb import glue\nglue("speedup", 19.04, display=False)',
             "It runs {glue:text}`speedup:.1f` times faster.")
    (tmp_path / "labs").mkdir()
    (tmp_path / "labs" / "lab.py").write_text("X = 1\n")
    built = tmp_path / make_notebooks.BUILT_GLUE / "01_x.glue.json"
    built.parent.mkdir(parents=True)
    built.write_text(json.dumps({"speedup": {"output_type": "display_data",
                                             "data": {"text/plain": "7.5"}}}))
    old, new = 1_000_000_000, 1_000_000_100
    for f in (tmp_path / "chapters" / "01_x.md", tmp_path / "labs" / "lab.py"):
        os.utime(f, (old, old))
    os.utime(built, (new, new))
    assert make_notebooks.built_glue("01_x", tmp_path) == {"speedup": {"text/plain": "7.5"}}
    text = make_notebooks.expected(tmp_path)["notebooks/01_x.ipynb"]
    assert "It runs 7.5 times faster." in text          # read, not executed (19.0)
    os.utime(tmp_path / "labs" / "lab.py", (new + 1, new + 1))   # code changed since
    assert make_notebooks.built_glue("01_x", tmp_path) is None
    assert "It runs 19.0 times faster." in make_notebooks.expected(tmp_path)["notebooks/01_x.ipynb"]
