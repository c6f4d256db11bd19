"""Assignment notebooks: the book's exercises handed out, one notebook per student.

    python -m exercises assign hw1 --chapter 04_roofline --students roster.txt --variants
    python -m exercises assign hw1 --ids roofline-3,roofline-12,latency-1

An assignment notebook opens with the Colab setup cell of the chapters' twins (from
``scripts/make_notebooks.py``), then, for each exercise, its question as the chapter
renders it (glued numbers filled in, maths as ``$...$``, converted by
``scripts/colab_markdown.py``) and a cell for the answer: ``answer_<id> = ...`` for a
numeric exercise, a Markdown cell for a written one. The last cell checks the answers
so far, reading them as the grader will (:mod:`exercises.notebook`).

With variants on, each student's numbers for an exercise that has variants
(:mod:`exercises.variants`) come from a seed of the assignment's id, the student's id
and the exercise's id; the question's text and the answer follow from them.

With a key (:mod:`exercises.secret`, made by ``assign`` outside the repository), each
student's seed is keyed by the instructor's secret: neither the notebook nor the book's
public code gives anyone's numbers or answers, and the notebook's check cell can only say
how it read a varied answer (:mod:`exercises.graded`). ``graded`` makes every check cell
say "right" or "not yet" and nothing more, with an optional limit on attempts.

The set-up cell installs the book at the commit the assignment was made from (recorded in
``assignment.json`` and the notebook's metadata), never the newest ``main``.

Besides the notebooks, ``assignment.json`` records what the grader needs: the ids, the
roster, whether variants are on, each question's points and the challenges' scoring, the
key's fingerprint, and a digest of each generated cell so that edited cells can be told
apart; ``rubric.json`` holds the written questions and the book's model answers for the
rubric. The grader trusts those files, never the submitted notebooks.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import pathlib
import re
import subprocess
import sys
from dataclasses import dataclass, field

from . import _catalog, challenges, secret, variants
from .notebook import read_answer, variable
from .roster import check_student
from .registry import all_exercises, get as get_exercise, judge
from .titles import heading

ROOT = _catalog.ROOT
SPEC = "assignment.json"
#: The written questions and their model answers, beside assignment.json.
RUBRIC = "rubric.json"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
METADATA_KEY = "exercises"   # cell and notebook metadata written by this module


def _scripts():
    """The book's generator scripts (not a package): make_notebooks, colab_markdown."""
    path = str(ROOT / "scripts")
    if path not in sys.path:
        sys.path.insert(0, path)
    import colab_markdown
    import make_notebooks

    return make_notebooks, colab_markdown


def _path(name: str, value: object) -> pathlib.Path:
    """A file or folder argument as a Path, or TypeError naming the argument."""
    if not isinstance(value, (str, pathlib.PurePath)) or not str(value).strip():
        raise TypeError(f"{name} must be a path (text or pathlib.Path), got {value!r}"[:200])
    return pathlib.Path(value)


def _texts(name: str, value: object) -> list[str]:
    """A list of text items (ids, cell sources), or TypeError naming the argument."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, set, frozenset)):
        raise TypeError(f"{name} must be a list of text, got {value!r}"[:200])
    bad = [v for v in value if not isinstance(v, str)]
    if bad:
        raise TypeError(f"{name} must hold text only, got {bad[0]!r}"[:200])
    return list(value)


def check_id(what: str, value: object) -> str:
    """An assignment or student id: letters, digits, ``.``, ``_`` and ``-`` (it names files).
    ``what`` names it in the message."""
    if not isinstance(what, str) or not what.strip():
        raise TypeError(f"what must be text naming the id (e.g. 'student id'), got {what!r}"[:200])
    if what.startswith("student"):
        return check_student(value)
    if not isinstance(value, str) or not _ID.match(value.strip()):
        raise ValueError(f"{what} must be 1 to 64 letters, digits, '.', '_' or '-' "
                         f"(it names a file), starting with a letter or digit; got "
                         f"{value!r}"[:300])
    return value.strip()


# --- Which exercises --------------------------------------------------------------------

def chapter_names(root: pathlib.Path = ROOT) -> list[str]:
    """The chapters' file stems ("04_roofline", ...) under ``root``."""
    return [p.stem for p in _catalog.chapter_files(_path("root", root))]


def _chapter(name: str, root: pathlib.Path) -> str:
    """"roofline", "04_roofline" or "4" -> "04_roofline"."""
    names = chapter_names(root)
    key = str(name).strip().lower()
    for n in names:
        number = n.split("_", 1)[0]
        if key in (n, n.split("_", 1)[-1], number, number.lstrip("0")):
            return n
    raise ValueError(f"chapter must be one of {', '.join(names)}; got {name!r}")


def select(ids: list[str] | None = None, chapters: list[str] | None = None,
           root: pathlib.Path = ROOT) -> list[_catalog.Directive]:
    """The exercises named (by id, in the order given) and every exercise of the chapters
    named (in the chapter's order); an unknown id -> ValueError naming ids like it."""
    ids, chapters = _texts("ids", ids or []), _texts("chapters", chapters or [])
    found = {d.label: d for d in _catalog.exercises(_path("root", root)) if d.label}
    out: list[_catalog.Directive] = []
    for ch in chapters:
        stem = _chapter(ch, root)
        out += [d for d in found.values() if d.chapter == stem]
    for id in ids:
        key = str(id).strip().lower()
        if key not in found:
            prefix = key.rsplit("-", 1)[0]
            near = [k for k in found if k.startswith(prefix)][:8]
            raise ValueError(f"no exercise {id!r} in the chapters"
                             + (f"; ids like it: {', '.join(near)}" if near else ""))
        out.append(found[key])
    seen: set[str] = set()
    unique = [d for d in out if not (d.label in seen or seen.add(d.label))]
    if not unique:
        raise ValueError("name at least one exercise (ids) or chapter")
    return unique


# --- The chapters' glued values -------------------------------------------------------

def _newest_code(root: pathlib.Path) -> float:
    """When the model, widgets, labs or exercises last changed (the build's rule)."""
    files = [p for d in ("perfmodel", "widgets", "labs", "exercises", "_ext")
             for p in (root / d).rglob("*.py")]
    files += list((root / "labs" / "results").glob("*/*.json"))
    return max((p.stat().st_mtime for p in files), default=0.0)


def glued_values(chapters: list[str], root: pathlib.Path = ROOT) -> dict[str, dict]:
    """Each chapter's glued values (name -> mime bundle): from the built book
    (``_build/jupyter_execute/chapters/<name>.glue.json``, written by ``make book``) when
    it is newer than the chapter and the code, else by executing the chapter as the
    Colab twin generator does."""
    out: dict[str, dict] = {}
    todo: list[str] = []
    code = _newest_code(root)
    for name in chapters:
        built = root / "_build" / "jupyter_execute" / "chapters" / f"{name}.glue.json"
        source = root / "chapters" / f"{name}.md"
        if built.exists() and built.stat().st_mtime >= max(source.stat().st_mtime, code):
            data = json.loads(built.read_text())
            out[name] = {k: v.get("data", {}) for k, v in data.items()}
        else:
            todo.append(name)
    if todo:
        make_notebooks, _ = _scripts()
        out.update(make_notebooks.glued_values(todo, root))
    return out


# --- One question ---------------------------------------------------------------------

@dataclass
class Question:
    """One exercise as an assignment shows it: ``markdown`` (heading and question),
    ``kind`` "numeric", "written" or "challenge", the student's ``answer`` (numeric) and
    ``unit``; for a kernel challenge, ``code`` is its editable cell (marker and starter)."""

    id: str
    chapter: str
    kind: str
    markdown: str
    answer: float | None = None
    unit: str = ""
    varied: bool = False
    seed: int | None = None
    params: dict = field(default_factory=dict)
    code: str = ""


_UNITS = {"x": "a ratio (2.5 for 2.5x)", "": "a plain number",
          "fraction": "a fraction between 0 and 1", "s": "seconds", "B": "bytes",
          "%": "percent", "B/s": "byte/s"}


def _unit(unit: str) -> str:
    """How the answer line names the unit: "in seconds", "a fraction between 0 and 1"."""
    said = _UNITS.get(unit, unit)
    return said if unit in ("x", "", "fraction") else f"in {said}"


def render(d: _catalog.Directive, glued: dict | None, titles: dict[str, str]) -> str:
    """The exercise as the chapter renders it, in Colab's Markdown: its heading and body
    with the chapter's glued numbers pasted and maths kept as ``$...$``."""
    if not isinstance(d, _catalog.Directive) or d.kind != "exercise" or not d.chapter:
        raise TypeError(f"d must be a chapter's exercise (from exercises._catalog), got {d!r}"[:200])
    if glued is not None and not isinstance(glued, dict):
        raise TypeError(f"glued must be a dict of glued values or None, got {glued!r}"[:200])
    if not isinstance(titles, dict):
        raise TypeError(f"titles must be a dict (label -> title), got {titles!r}"[:200])
    _, cm = _scripts()
    text = (ROOT / "chapters" / f"{d.chapter}.md").read_text().splitlines()
    lines = text[d.start:d.end + 1]
    # The chapters' titles may end with the id ("... · roofline-3"); the heading has it.
    lines[0] = re.sub(rf"\s*[·:-]\s*{re.escape(d.label)}\s*$", "", lines[0]) if d.label else lines[0]
    source = "\n".join(lines)
    return cm.colab_markdown(source, glued=glued or {}, where=f"chapters/{d.chapter}.md",
                             targets=titles).strip()


def questions(directives: list[_catalog.Directive], assignment: str, student: str | None,
              use_variants: bool, root: pathlib.Path = ROOT,
              glued: dict[str, dict] | None = None, key: bytes | None = None) -> list[Question]:
    """The questions of one student's notebook (``student`` None: everyone's, the
    chapter's numbers; ``key``: the instructor's secret the seeds are keyed by)."""
    make_notebooks, cm = _scripts()
    titles = make_notebooks.reference_titles(root)
    numeric = {e.id for e in all_exercises()}
    varied_ids = set(variants.ids()) if use_variants and student else set()
    need = sorted({d.chapter for d in directives if d.label not in varied_ids
                   and cm.glue_references(d.body)})
    if glued is None:
        glued = glued_values(need, root) if need else {}
    out = []
    for d in directives:
        if d.label in numeric:
            ex = get_exercise(d.label)
            if d.label in varied_ids:
                inst = variants.instance(d.label, assignment, student, key)
                number = re.search(r"Exercise (\d+(?:\.\d+)?)", titles.get(d.label, ""))
                head = " ".join(heading(number[1] if number else "", inst.title, d.label)) \
                    if number else f"Exercise {d.label}: {inst.title}"
                md = (f"**{head}** *(your own numbers)*\n\n{inst.question}\n\n"
                      f"*Your answer ({_unit(ex.unit)}) goes in the cell below.*")
                out.append(Question(d.label, d.chapter, "numeric", md, inst.answer, ex.unit,
                                    True, None if key else inst.seed, inst.params))
            else:
                md = (render(d, glued.get(d.chapter), titles)
                      + f"\n\n*The number to give ({_unit(ex.unit)}): "
                        f"{ex.question[:1].lower() + ex.question[1:]}*")
                out.append(Question(d.label, d.chapter, "numeric", md, ex.answer, ex.unit))
        else:
            md = render(d, glued.get(d.chapter), titles) + "\n\n*Answer in words in the cell below.*"
            out.append(Question(d.label, d.chapter, "written", md))
    return out


def challenge_questions(names: list[str], checker: list[str] | None = None,
                        root: pathlib.Path = ROOT) -> list[Question]:
    """The kernel challenges named, as an assignment shows them: the statement, the
    starter kernel in an editable cell (from ``python -m labs challenge show``)."""
    out = []
    known = challenges.names(checker, root)
    for name in dict.fromkeys(_texts("names", names)):
        ch = challenges.info(name, checker, root, known)
        md = (f"**Kernel challenge: {ch.title}** (`{ch.name}`)\n\n{ch.statement}\n\n"
              "*Change the kernel in the cell below (keep its first line and the kernel's "
              "name), run it, then run the check under it. The grader takes that cell's "
              "text and runs the same check.*")
        out.append(Question(ch.name, ch.chapter, "challenge", md, code=challenges.cell_source(ch)))
    return out


# --- The notebook -----------------------------------------------------------------------

def digest(text: str) -> str:
    """SHA-256 of a cell's text (how the grader tells an edited cell)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a cell's text, got {type(text).__name__}")
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _check_source(assignment: str, student: str | None, ids: list[str],
                  varied: list[str], graded: bool = False, attempts: int | None = None) -> str:
    who = repr(student) if student else "None"
    if graded:
        return ("# Check your answers so far: it says right or not yet (how far off, never)"
                + (f",\n# {attempts} check(s) of each question" if attempts else "") + ".\n"
                "# It reads each answer cell as the grader will: the number written there.\n"
                "from exercises.graded import check_answers\n\n"
                f"check_answers({assignment!r}, {who}, {ids!r},\n"
                f"              varied={varied!r}, attempts={attempts!r});")
    return ("# Check your answers so far (run it as often as you like). It reads each\n"
            "# answer cell as the grader will: the number written there, not a variable.\n"
            "from exercises.assign import check_answers\n\n"
            f"check_answers({assignment!r}, {who}, {ids!r},\n"
            f"              varied={varied!r});  # the ';': the text shows once")


def _intro(title: str, assignment: str, student: str | None, n_numeric: int,
           n_written: int, varied: int, n_challenges: int = 0) -> str:
    who = f" for **{student}**" if student else ""
    counts = f"{n_numeric} numeric and {n_written} written question(s)"
    if n_challenges:
        counts = (counts + f" and {n_challenges}" if n_numeric or n_written else
                  f"{n_challenges}") + " kernel challenge(s)"
    steps = ["Run the set-up cell above first (in Colab, choose *Runtime > Change runtime "
             "type > T4 GPU* before, if a question wants a measurement)."]
    if n_numeric or n_written or not n_challenges:
        steps += ["Under each numeric question, replace the `...` in `answer_<id> = ...` with "
                  "your number: a number such as `0.0021` or `2.1e12`, or arithmetic on "
                  "numbers such as `2.1e12 / 3.6e12`. The grader reads that line as written "
                  "and runs none of your code, so a variable or a function call there is not "
                  "an answer. Use any other cell for your working.",
                  "Under each written question, write your answer in the text cell.",
                  "Run the last cell to check your numeric answers so far."]
    if n_challenges:
        steps += ["Under each kernel challenge, change the kernel in its code cell (keep the "
                  "cell's first line and the kernel's name), run it, and run the check cell "
                  "under it. The grader takes the kernel cell's text and runs the challenge's "
                  "own check on it, in a separate process with a time limit; it reads nothing "
                  "your notebook printed or timed."]
    steps += ["Hand in this notebook as it is (*File > Download > Download .ipynb* in "
              "Colab). Do not delete or move the question and answer cells."]
    parts = [f"# {title}", "", f"Assignment `{assignment}`{who}: {counts}.", ""]
    parts += [f"{i}. {step}" for i, step in enumerate(steps, 1)]
    if varied:
        parts += ["", f"{varied} question(s) use numbers drawn for you alone: a classmate's "
                      "answers will not fit yours."]
    return "\n".join(parts)


#: The set-up cell's lines that fetch the newest code of the branch, and what a pinned
#: assignment puts in their place (the commit the assignment was made from).
_FETCH = (
    '        if os.path.isdir(os.path.join(book, ".git")):\n'
    '            git = ["git", "-C", book, "pull", "--quiet", "--ff-only"]\n'
    '        else:\n'
    '            git = ["git", "clone", "--quiet", "--depth", "1", "--branch", branch, repo, book]\n'
    '        got = subprocess.run(git, capture_output=True, text=True)\n')
_PINNED = (
    "        commit = {commit!r}  # the assignment's version of the book (assignment.json)\n"
    '        if not os.path.isdir(os.path.join(book, ".git")):\n'
    '            subprocess.run(["git", "clone", "--quiet", "--no-checkout", repo, book],\n'
    '                           capture_output=True, text=True)\n'
    '        subprocess.run(["git", "-C", book, "fetch", "--quiet", "origin", commit],\n'
    '                       capture_output=True, text=True)\n'
    '        git = ["git", "-C", book, "checkout", "--quiet", "--detach", commit]\n'
    '        got = subprocess.run(git, capture_output=True, text=True)\n')
_PIN = re.compile(r"^\s*commit = '([0-9a-f]{7,64})'  # the assignment's version", re.M)


def pin_setup(source: str, commit: str) -> str:
    """The set-up cell's code with the book fetched at ``commit`` instead of the newest
    code of its branch; ValueError when the cell no longer has the lines to replace."""
    if not isinstance(source, str):
        raise TypeError(f"source must be the set-up cell's text, got {type(source).__name__}")
    if not isinstance(commit, str) or not re.fullmatch(r"[0-9a-f]{7,64}", commit):
        raise ValueError(f"commit must be a git commit's hex id, got {commit!r}"[:200])
    if _FETCH not in source:
        raise ValueError("source: the set-up cell of scripts/make_notebooks.py no longer fetches the "
                         "book as exercises.assign expects: the assignment cannot pin it")
    return source.replace(_FETCH, _PINNED.format(commit=commit))


def pinned_commit(source: str) -> str:
    """The commit a set-up cell installs ("" when it is not pinned)."""
    m = _PIN.search(str(source))
    return m[1] if m else ""


def build_notebook(qs: list[Question], assignment: str, student: str | None, title: str,
                   root: pathlib.Path = ROOT, *, graded: bool = False,
                   attempts: int | None = None, commit: str = ""):
    """The assignment notebook (an nbformat node) for one student (None: everyone):
    ``graded`` check cells, with ``attempts`` checks a question; the set-up cell pinned at
    ``commit`` when one is given."""
    if not isinstance(qs, list) or not all(isinstance(q, Question) for q in qs):
        raise TypeError(f"qs must be a list of Question (from questions()), got {qs!r}"[:200])
    assignment = check_id("assignment", assignment)
    student = None if student is None else check_id("student", student)
    if not isinstance(title, str):
        raise TypeError(f"title must be text, got {title!r}"[:200])
    import nbformat

    make_notebooks, _ = _scripts()
    cells = []

    def add(cell, role: str, id: str | None = None, locked: bool = True, **extra):
        meta = {"role": role, **({"id": id} if id else {}), **extra}
        if locked:
            meta["digest"] = digest(cell.source)
            cell.metadata.update({"editable": False, "deletable": False})
        cell.metadata[METADATA_KEY] = meta
        cell["id"] = f"{role}-{id}" if id else role
        cells.append(cell)

    source = make_notebooks.setup_cell_source(root)
    setup = nbformat.v4.new_code_cell(pin_setup(source, commit) if commit else source)
    setup.metadata.update({"cellView": "form", "tags": ["colab-setup"]})
    add(setup, "setup", locked=False)
    numeric = [q for q in qs if q.kind == "numeric"]
    kernels = [q for q in qs if q.kind == "challenge"]
    add(nbformat.v4.new_markdown_cell(_intro(title, assignment, student, len(numeric),
                                             len(qs) - len(numeric) - len(kernels),
                                             sum(q.varied for q in qs), len(kernels))), "intro")
    for q in qs:
        extra = {"seed": q.seed} if q.varied and q.seed is not None else {}
        add(nbformat.v4.new_markdown_cell(q.markdown), "question", q.id, **extra)
        if q.kind == "challenge":
            code = nbformat.v4.new_code_cell(q.code)
            code.metadata["tags"] = ["challenge"]
            add(code, "challenge", q.id, locked=False)
            add(nbformat.v4.new_code_cell(challenges.check_cell_source(q.id)),
                "challenge-check", q.id)
        elif q.kind == "numeric":
            unit = f"  # {q.unit}" if q.unit else ""
            add(nbformat.v4.new_code_cell(f"{variable(q.id)} = ...{unit}"), "answer", q.id,
                locked=False)
        else:
            add(nbformat.v4.new_markdown_cell("*Your answer:* "), "written", q.id, locked=False)
    if len(kernels) < len(qs):  # the answers' check (a challenge has its own)
        keyed = any(q.varied and q.seed is None for q in numeric)
        add(nbformat.v4.new_code_cell(_check_source(assignment, student,
                                                    [q.id for q in numeric],
                                                    [q.id for q in numeric if q.varied],
                                                    graded or keyed, attempts)),
            "check")
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata = nbformat.from_dict({
        "accelerator": "GPU",
        "colab": {"provenance": [], "gpuType": "T4",
                  "name": f"{assignment}-{student}.ipynb" if student else f"{assignment}.ipynb"},
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        METADATA_KEY: {"assignment": assignment, "student": student,
                       "ids": [q.id for q in qs], "book_commit": commit},
    })
    nbformat.validate(nb)
    return nb


def _book_commit(root: pathlib.Path) -> str:
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def read_roster(path: str | pathlib.Path, column: str | int | None = None) -> list[str]:
    """Student ids from a roster file (:func:`exercises.roster.read_roster`: one a line, or
    a CSV whose id ``column`` is named or found by its header)."""
    from .roster import read_roster as read

    return read(path, column)


def _rubric_questions(directives: list[_catalog.Directive], root: pathlib.Path,
                      glued: dict[str, dict]) -> dict[str, dict]:
    """Each written question as the notebook shows it and the book's model answer (what
    the grader's rubric prints, so that grading needs none of the book-building code)."""
    make_notebooks, cm = _scripts()
    titles = make_notebooks.reference_titles(root)
    numeric = {e.id for e in all_exercises()}
    sols = {d.label: d for d in _catalog.solutions(root)}
    need = sorted({d.chapter for d in directives if d.label not in numeric
                   and d.chapter not in glued and d.label in sols
                   and cm.glue_references(sols[d.label].body)})
    glued = {**glued, **(glued_values(need, root) if need else {})}
    out = {}
    for d in directives:
        if d.label in numeric:
            continue
        s = sols.get(d.label)
        model = cm.colab_markdown(s.body, glued=glued.get(d.chapter) or {},
                                  where=f"chapters/{d.chapter}.md", targets=titles).strip() \
            if s is not None else ""
        out[d.label] = {"question": render(d, glued.get(d.chapter), titles), "model": model}
    return out


def assign(assignment: str, out: str | pathlib.Path, *, ids: list[str] | None = None,
           chapters: list[str] | None = None, students: list[str] | None = None,
           use_variants: bool = False, title: str = "", root: pathlib.Path = ROOT,
           glued: dict[str, dict] | None = None, kernels: list[str] | None = None,
           checker: list[str] | None = None, key: bytes | None = None,
           course: str = secret.COURSE, graded: bool = False, attempts: int | None = None,
           points: dict[str, float] | None = None, scoring: dict | None = None,
           due: str | None = None, id_column: str = "", pin: bool = True) -> list[pathlib.Path]:
    """Write the assignment: ``<out>/assignment.json``, ``<out>/rubric.json`` and a
    notebook per student (``<out>/<student>.ipynb``), or one for everyone
    (``<out>/<assignment>.ipynb``) when there is no roster. ``kernels`` names kernel
    challenges to add after the exercises (``checker``: the challenges' command line,
    :data:`exercises.challenges.CHECKER` when None). ``key``: the instructor's secret the
    variants are keyed by (of ``course``, :mod:`exercises.secret`); ``graded``: check cells
    say right or not yet, ``attempts`` times a question at most; ``points``: exercise id ->
    its points (others: the grader's ``--points``); ``scoring``: a kernel challenge's
    points (:data:`exercises.grade.SCORING`); ``due``: an ISO date-time; ``id_column``: the
    roster's id column (the wide gradebook's header); ``pin``: set-up cells install the
    book at this commit. Returns the paths written."""
    import nbformat

    if attempts is not None and (isinstance(attempts, bool) or not isinstance(attempts, int)
                                 or attempts < 1):
        raise ValueError(f"attempts must be a whole number >= 1, got {attempts!r}")
    if key is not None:
        secret.fingerprint(key)

    assignment = check_id("assignment", assignment)
    students = [check_id("student id", s) for s in students or []]
    if use_variants and not students:
        raise ValueError("variants need students: give a roster (--students)")
    if len(set(students)) != len(students):
        raise ValueError("students: a student id appears twice")
    kernels = _texts("kernels", kernels or [])
    directives = select(ids, chapters, root) if ids or chapters or not kernels else []
    kernel_qs = challenge_questions(kernels, checker, root) if kernels else []
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    title = title or f"Assignment {assignment}"
    make_notebooks, cm = _scripts()
    varied = set(variants.ids()) if use_variants and students else set()
    need = sorted({d.chapter for d in directives
                   if d.label not in varied and cm.glue_references(d.body)})
    if glued is None:
        glued = glued_values(need, root) if need else {}
    known = {d.label for d in directives} | {q.id for q in kernel_qs}
    points = dict(points or {})
    for id, v in points.items():
        if id not in known:
            raise ValueError(f"points: {id!r} is not an exercise of this assignment")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < float("inf"):
            raise ValueError(f"points: {id} must be a number > 0, got {v!r}")
    commit = _book_commit(root) if pin else ""
    written: list[pathlib.Path] = []
    cells: dict[str, dict[str, str]] = {}
    for student in students or [None]:
        qs = questions(directives, assignment, student, use_variants, root, glued,
                       key if use_variants else None) + kernel_qs
        nb = build_notebook(qs, assignment, student, title, root, graded=graded,
                            attempts=attempts, commit=commit)
        path = out / f"{student or assignment}.ipynb"
        path.write_text(nbformat.writes(nb) + "\n")
        written.append(path)
        cells[student or ""] = {c["id"]: c.metadata[METADATA_KEY]["digest"] for c in nb.cells
                                if "digest" in c.metadata.get(METADATA_KEY, {})}
    numeric = {e.id for e in all_exercises()}
    spec = {
        "assignment": assignment, "title": title,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "book_commit": commit or _book_commit(root),
        "variants": bool(use_variants),
        "course": course,
        "key_fingerprint": secret.fingerprint(key) if key is not None and use_variants else None,
        "graded": bool(graded), "attempts": attempts,
        "points": points, "scoring": scoring, "due": due, "id_column": id_column,
        "students": students,
        "exercises": [{"id": d.label, "chapter": d.chapter,
                       "kind": "numeric" if d.label in numeric else "written",
                       "varied": bool(use_variants and d.label in variants.ids())}
                      for d in directives]
        + [{"id": q.id, "chapter": q.chapter, "kind": "challenge", "varied": False,
            "starter_digest": challenges.digest_code(q.code)} for q in kernel_qs],
        "digests": cells,
    }
    spec_path = out / SPEC
    spec_path.write_text(json.dumps(spec, indent=1) + "\n")
    (out / RUBRIC).write_text(json.dumps(_rubric_questions(directives, root, glued),
                                         indent=1) + "\n")
    return [spec_path] + written


# --- The check cell ---------------------------------------------------------------------

def _latest_sources() -> list[str]:
    """The sources of the cells run so far in this IPython kernel, newest last."""
    try:
        from IPython import get_ipython
    except ImportError:
        return []
    ip = get_ipython()
    return list(ip.user_ns.get("_ih", [])) if ip is not None else []


def answer_sources(ids: list[str], history: list[str]) -> dict[str, str]:
    """For each id, the latest run cell that assigns its answer variable."""
    ids, history = _texts("ids", ids), _texts("history", history)
    out: dict[str, str] = {}
    for source in history:
        for id in ids:
            if re.search(rf"^\s*{variable(id)}\s*[:=]", str(source), re.M):
                out[id] = str(source)
    return out


def expected(id: str, assignment: str, student: str | None, varied: bool,
             key: bytes | None = None):
    """The exercise as one student got it (:class:`variants.Instance`): their own numbers
    when ``varied`` (keyed by the instructor's ``key`` when the assignment was), else the
    chapter's. Without the key, a keyed assignment's numbers cannot be computed."""
    if varied and student:
        return variants.instance(id, assignment, student, key)
    return variants.instance(id)


def _read_cell(id: str, sources: dict[str, str]):
    """(the answer as read, "") from the latest run answer cell of ``id``, or (None, the
    line a check cell says when there is no number to check)."""
    if id not in sources:
        return None, f"{id}: no answer yet (run its answer cell)."
    reading = read_answer(sources[id], id)
    if reading.status != "answered":
        return None, f"{id}: {reading.message}."
    return reading, ""


def check_answers(assignment: str, student: str | None, ids: list[str],
                  varied: list[str] = (), history: list[str] | None = None) -> str:
    """What the notebook's check cell prints: each numeric answer as the grader will read
    it (from the answer cell as last run), checked against this student's numbers."""
    history = _latest_sources() if history is None else history
    varied = _texts("varied", varied)
    if not isinstance(assignment, str) or student is not None and not isinstance(student, str):
        raise TypeError("assignment and student must be text (student may be None)")
    sources = answer_sources(ids, history)
    lines = []
    for id in ids:
        try:
            inst = expected(id, assignment, student, id in varied)
        except ValueError as exc:
            lines.append(f"{id}: {exc}")
            continue
        reading, said = _read_cell(id, sources)
        if reading is None:
            lines.append(said)
            continue
        lines.append(str(judge(inst.exercise, reading.value, inst.answer)))
    text = "\n".join(lines)
    print(text)
    return text
