"""The student's path, as Colab runs it: every twin executed in a Colab-faithful runtime.

The runtime (``.venv-colab``, made by ``scripts/colab_env.py``; ``make test`` makes it)
holds Colab's published versions of what the book touches on Python 3.13 (plotly 5.24,
ipywidgets 7.7, numba-cuda 0.22 with CUDA 12.8's NVVM and nvJitLink, numpy 2.1, ...;
torch is the one package left out, see that script). ``google.colab`` is a stand-in
(tests/colab/stub) whose widget switch behaves as Colab's: it tags only outputs published
with ``display()``. The twins are executed from a fresh working folder, as in Colab's
/content, with the book *not* importable: the setup cell must fetch it, and git is told
to fetch the repository's address from a local mirror of this working tree.

For every twin: no error output; no pip ``ERROR`` text; the setup cell ends with its
status line and installs nothing Colab ships; every widget view carries Colab's
custom-widget-manager metadata; every figure is in a form that draws itself (not the
site-only div); every link between pages opens a twin in Colab or a page of the site.
"""
from __future__ import annotations

import concurrent.futures
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import nbformat
import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import make_notebooks  # noqa: E402

COLAB_PYTHON = ROOT / ".venv-colab" / "bin" / "python"
STUB = ROOT / "tests" / "colab" / "stub"
RUNNER = ROOT / "tests" / "colab" / "run_twin.py"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
TWINS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))


def _mirror(tmp: pathlib.Path) -> pathlib.Path:
    """A git repository holding this working tree's files (tracked and untracked, not
    ignored) on the branch the twins fetch."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    src = tmp / "mirror"
    for rel in filter(None, files):
        if (ROOT / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, src / rel)
    branch = make_notebooks.repository(ROOT).branch
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=" + branch]
    subprocess.run([*git, "init", "-q"], cwd=src, check=True)
    subprocess.run([*git, "add", "-A"], cwd=src, check=True)
    subprocess.run([*git, "commit", "-qm", "mirror"], cwd=src, check=True)
    return src


def _env(mirror: pathlib.Path) -> dict[str, str]:
    url = make_notebooks.repository(ROOT).url
    url = url if url.endswith(".git") else url + ".git"
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(PYTHONPATH=str(STUB), PYDEVD_DISABLE_FILE_VALIDATION="1",
               GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0=f"url.{mirror}.insteadOf",
               GIT_CONFIG_VALUE_0=url, GIT_TERMINAL_PROMPT="0")
    return env


def _run(name: str, tmp: pathlib.Path, env: dict[str, str]) -> tuple[str, float]:
    work = tmp / f"content-{name}"
    work.mkdir()
    out = tmp / f"{name}.out.ipynb"
    proc = subprocess.run([str(COLAB_PYTHON), str(RUNNER), str(ROOT / "notebooks" / f"{name}.ipynb"),
                           str(work), str(out)], env=env, capture_output=True, text=True,
                          timeout=900)
    if proc.returncode or not out.exists():
        raise RuntimeError(f"{name}: the runner failed:\n{proc.stdout[-2000:]}{proc.stderr[-3000:]}")
    return str(out), float(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> dict[str, tuple[nbformat.NotebookNode, float]]:
    if not COLAB_PYTHON.exists():
        pytest.fail("the Colab-faithful runtime is missing: run `python scripts/colab_env.py` "
                    "(make test does)")
    assert not pathlib.Path("/content").exists(), "this test needs a machine without /content"
    tmp = tmp_path_factory.mktemp("colab")
    env = _env(_mirror(tmp))
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        runs = {n: pool.submit(_run, n, tmp, env) for n in TWINS}
        done = {n: f.result() for n, f in runs.items()}
    # Kept for a look at what a student sees: _build/colab-twins/<name>.ipynb and times.
    keep = ROOT / "_build" / "colab-twins"
    keep.mkdir(parents=True, exist_ok=True)
    for n, (path, _) in done.items():
        shutil.copyfile(path, keep / f"{n}.ipynb")
    (keep / "seconds.json").write_text(json.dumps({n: s for n, (_, s) in done.items()}, indent=1))
    return {n: (nbformat.read(p, as_version=4), s) for n, (p, s) in done.items()}


def _outputs(nb):
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            for out in cell.get("outputs", []):
                yield i, cell, out


def _text(out) -> str:
    if out.get("output_type") == "stream":
        return out.get("text", "")
    return "".join(str(v) for v in (out.get("data") or {}).values())


def test_every_twin_is_run():
    assert len(TWINS) == len(list((ROOT / "chapters").glob("*.md"))) >= 10


@pytest.mark.parametrize("name", TWINS)
def test_twin_runs_without_an_error(executed, name):
    nb, _ = executed[name]
    errors = [f"cell {i}: {o.get('ename')}: {o.get('evalue')}"
              for i, _, o in _outputs(nb) if o.get("output_type") == "error"]
    assert not errors, "\n".join(errors)


@pytest.mark.parametrize("name", TWINS)
def test_setup_cell_is_quiet_and_ends_with_its_status(executed, name):
    nb, _ = executed[name]
    setup = nb.cells[0]
    assert "colab-setup" in setup.metadata.get("tags", [])
    text = "".join(_text(o) for o in setup.outputs)
    assert "ERROR" not in text and "Installing" not in text, text
    last = text.strip().splitlines()
    assert last and re.match(r"^(Ready|Set up, with a problem) \(\d+\.\d s\): Python 3\.13",
                             last[0]), text
    assert "Runtime > Change runtime type > T4 GPU" in text  # no GPU here: it says what to do


@pytest.mark.parametrize("name", TWINS)
def test_no_pip_error_anywhere(executed, name):
    nb, _ = executed[name]
    shown = [f"cell {i}" for i, _, o in _outputs(nb) if re.search(r"^ERROR:", _text(o), re.M)]
    assert not shown


@pytest.mark.parametrize("name", TWINS)
def test_every_widget_is_tagged_for_colabs_manager(executed, name):
    nb, _ = executed[name]
    views = [(i, o) for i, _, o in _outputs(nb) if WIDGET_MIME in (o.get("data") or {})]
    untagged = [i for i, o in views
                if not (o.get("metadata") or {}).get(WIDGET_MIME, {}).get("colab", {})
                .get("custom_widget_manager", {}).get("url")]
    assert not untagged, f"widget outputs without Colab's metadata in cells {untagged}"


def test_some_twins_show_live_widgets(executed):
    """The tag test above means something only if widgets are there to tag."""
    count = sum(WIDGET_MIME in (o.get("data") or {})
                for nb, _ in executed.values() for _, _, o in _outputs(nb))
    assert count >= 10


@pytest.mark.parametrize("name", TWINS)
def test_every_figure_draws_itself(executed, name):
    nb, _ = executed[name]
    site_only = [i for i, _, o in _outputs(nb)
                 if 'class="book-figure"' in (o.get("data") or {}).get("text/html", "")]
    assert not site_only, f"site-only figure divs (blank in Colab) in cells {site_only}"
    for i, _, o in _outputs(nb):
        html = (o.get("data") or {}).get("text/html", "")
        for div in re.findall(r'<div class="book-figure-nb" id="([^"]+)"', html):
            assert f'getElementById("{div}")' in html and "newPlot" in html, f"cell {i}"
            assert "https://cdn.plot.ly/plotly-" in html


def test_lab_figures_are_among_them(executed):
    figures = sum(html.count('class="book-figure-nb"')
                  for nb, _ in executed.values() for _, _, o in _outputs(nb)
                  for html in [(o.get("data") or {}).get("text/html", "")])
    assert figures >= 14


def _site_pages() -> set[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = {toc["root"]}
    for part in toc.get("parts", []):
        files |= {c["file"] for c in part.get("chapters", [])}
    base = make_notebooks.site_url(ROOT)
    return {base + ("index.html" if f == toc["root"] else f"{f}.html") for f in files}


@pytest.mark.parametrize("name", TWINS)
def test_every_link_between_pages_resolves(name):
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    site, twins = _site_pages(), set(TWINS)
    colab = re.compile(r"^https://colab\.research\.google\.com/github/[^/]+/[^/]+/blob/[^/]+/"
                       r"notebooks/(?P<twin>[^/#]+)\.ipynb$")
    bad = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        prose = re.sub(r"`[^`\n]+`", " ", cell.source)   # inline code is no link
        for target in re.findall(r"(?<!!)\[[^\]]*\]\(([^()\s]+)\)", prose):
            page = target.split("#", 1)[0]
            m = colab.match(page)
            if m:
                ok = m["twin"] in twins
            elif page.startswith(make_notebooks.site_url(ROOT)):
                ok = page in site
            else:
                ok = page.startswith("https://") and not page.endswith((".md", ".ipynb"))
            if not ok:
                bad.append(target)
    assert not bad, f"links that open nothing from Colab: {bad}"


def test_running_the_twins_replaced_none_of_colabs_packages(executed):
    """After every twin ran (setup cells included), each package the book touches is still
    at Colab's version: the setup cell never replaces what Colab ships."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import colab_env

    changed = colab_env.drifted()
    assert not changed, f"packages no longer at Colab's version (pinned, now): {changed}"
