"""Kernel challenges in assignments: assign makes the cells, grade runs each submitted
kernel's check in a contained process, one student at a time, and a kernel that hangs,
writes out of bounds, crashes or asks for too much memory is a failed check with its
reason while the grader goes on.

The challenges' command line is played here by ``tests/challenge_double.py`` (one
challenge, ``vadd``, with the contract of ``python -m labs challenge``), so that these
tests say what the grader does whatever challenges the book has; the book's own
challenges are graded end to end in ``test_real_challenges_through_the_command_line``.
"""
from __future__ import annotations

import csv
import json
import os
import pathlib
import signal
import subprocess
import sys

import pytest

from exercises import challenges
from exercises.assign import assign
from exercises.challenges import Limits, Run, marker, verdict
from exercises.grade import grade

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import challenge_double as double  # noqa: E402

CHECKER = [sys.executable, str(ROOT / "tests" / "challenge_double.py")]
#: The double as the sandbox sees it (collect) and as the trusted judge runs it.
ENGINE = challenges.Engine(collect=("/book/tests/challenge_double.py", "collect"),
                           judge=(str(ROOT / "tests" / "challenge_double.py"), "judge"),
                           code=("tests/challenge_double.py",), hidden=())
#: Wall-clock limit of each check here: the double's check takes 1-3 s on the simulator
#: (more on a loaded machine).
WALL_S = 10.0
MEMORY = 1024 * 2 ** 20
SLEEPER = "313.25"      # the seconds of a `sleep` a hanging submission leaves behind

HANG = double.REFERENCE.replace(
    "    if i < out.size:",
    "    while i >= 0:      # never ends\n        i += 0\n    if i < out.size:")
OUT_OF_BOUNDS = double.REFERENCE.replace("    if i < out.size:\n", "    if True:\n")
SUBMISSIONS = {
    "ada": double.REFERENCE,                                        # right
    # hangs, after starting a child of its own, and its notebook claims a pass
    "bo": f"import subprocess\nsubprocess.Popen(['sleep', '{SLEEPER}'])\n" + HANG,
    "cy": OUT_OF_BOUNDS,                                            # writes past the end
    "dan": "import numpy as np\nscratch = np.ones(2**33)  # 64 GiB\n" + double.REFERENCE,
    "eve": None,                                                    # the starter, untouched
    "fay": double.REFERENCE,                                        # metadata dropped
    "gus": "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n" + double.REFERENCE,
}
FAKE_OUTPUTS = [{"output_type": "stream", "name": "stdout",
                 "text": "vadd: passed: all 300 elements right [GPU] in 0.001 ms\n"}]
ERROR_OUTPUTS = [{"output_type": "error", "ename": "IndexError", "evalue": "out of bounds",
                  "traceback": []}]


def _cells(nb: dict, role: str) -> list[dict]:
    return [c for c in nb["cells"] if c["metadata"].get("exercises", {}).get("role") == role]


@pytest.fixture(scope="module")
def assigned(tmp_path_factory):
    out = tmp_path_factory.mktemp("kernels") / "hw"
    assign("hwk", out, kernels=["vadd"], students=list(SUBMISSIONS), checker=CHECKER)
    return out


@pytest.fixture(scope="module")
def graded(assigned, tmp_path_factory):
    subs = tmp_path_factory.mktemp("submissions")
    for student, body in SUBMISSIONS.items():
        nb = json.loads((assigned / f"{student}.ipynb").read_text())
        cell = _cells(nb, "challenge")[0]
        if body is not None:
            cell["source"] = f"{marker('vadd')}\n{body}"
        if student == "bo":
            cell["outputs"] = FAKE_OUTPUTS
            for c in _cells(nb, "challenge-check"):
                c["outputs"] = FAKE_OUTPUTS
        if student == "fay":
            cell["outputs"] = ERROR_OUTPUTS
            for c in nb["cells"]:
                c["metadata"] = {}
        (subs / f"{student}.ipynb").write_text(json.dumps(nb))
    out = tmp_path_factory.mktemp("grades")
    heard: list[str] = []
    # review=False: these kernels are run, to try the sandbox and the limits behind the
    # policy that would hold several of them unrun (tests of it: test_the_policy_*)
    result = grade(assigned, subs, out, limits=Limits(wall_s=WALL_S, memory_bytes=MEMORY),
                   checker=CHECKER, engine=ENGINE, log=heard.append, review=False)
    with open(out / "gradebook.csv", newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    return out, result, rows, heard


def test_assign_adds_statement_starter_and_check_cells(assigned):
    spec = json.loads((assigned / "assignment.json").read_text())
    entry, = spec["exercises"]
    assert entry["kind"] == "challenge" and entry["id"] == "vadd"
    nb = json.loads((assigned / "ada.ipynb").read_text())
    roles = [(c["metadata"]["exercises"]["role"], c["metadata"]["exercises"].get("id"))
             for c in nb["cells"]]
    at = roles.index(("question", "vadd"))
    assert roles[at:at + 3] == [("question", "vadd"), ("challenge", "vadd"),
                                ("challenge-check", "vadd")]
    assert ("check", None) not in roles        # no numeric answers to check
    question, = [c for c in _cells(nb, "question")]
    assert "Add two vectors" in "".join(question["source"])
    cell, = _cells(nb, "challenge")
    assert cell["cell_type"] == "code" and "challenge" in cell["metadata"]["tags"]
    assert cell["metadata"].get("editable", True) is True   # the student edits it
    source = "".join(cell["source"])
    assert source.splitlines()[0] == marker("vadd")
    assert double.STARTER.strip() in source
    check, = _cells(nb, "challenge-check")
    assert check["metadata"]["editable"] is False
    assert "check_challenge('vadd')" in "".join(check["source"])


def test_the_right_kernel_passes_and_the_grader_finishes_everyone(graded):
    out, result, rows, heard = graded
    assert heard == [f"grading {s}" for s in SUBMISSIONS]       # one at a time, in order
    assert [s.student for s in result] == list(SUBMISSIONS)
    assert (rows["ada"]["status"], rows["ada"]["points"]) == ("pass", "1")
    assert rows["ada"]["expected"] == "passes its check"
    assert (rows["fay"]["status"], rows["fay"]["points"]) == ("pass", "1")  # found by marker
    kept = out / rows["ada"]["answer"]                        # the extracted cell, as a file
    assert kept.read_text().startswith(marker("vadd")) and "out.size" in kept.read_text()
    for s in ("bo", "cy", "dan", "gus"):
        assert (rows[s]["status"], rows[s]["points"]) == ("fail", "0"), rows[s]
    with open(out / "totals.csv", newline="") as f:
        totals = {r["student"]: r for r in csv.DictReader(f)}
    assert totals["ada"]["points"] == "1" and totals["bo"]["points"] == "0"
    assert totals["bo"]["out_of"] == "1"


def _reason(out: pathlib.Path, student: str) -> dict:
    return json.loads((out / "challenges.json").read_text())["checks"][student]["vadd"]


def test_each_failure_says_why(graded):
    out, _, rows, _ = graded
    hang = _reason(out, "bo")
    # a hang ends at the wall limit, or at the CPU limit first when it spins a core
    assert hang["passed"] is False and (hang["reason"].startswith(f"timed out after {WALL_S:g} s")
                                        or "(CPU limit)" in hang["reason"]), hang
    assert "IndexError" in _reason(out, "cy")["message"]           # the simulator's bounds
    assert "out of bounds" in _reason(out, "cy")["message"]
    assert "memory limit of 1,024 MiB" in _reason(out, "dan")["reason"]
    assert "SIGSEGV" in _reason(out, "gus")["reason"]
    eve = rows["eve"]
    assert (eve["status"], eve["points"]) == ("missing", "0")
    assert "unchanged" in (out / "feedback" / "eve.md").read_text()
    assert "eve" not in json.loads((out / "challenges.json").read_text())["checks"] or \
        not json.loads((out / "challenges.json").read_text())["checks"]["eve"]
    bo = (out / "feedback" / "bo.md").read_text()
    assert ("timed out" in bo or "CPU limit" in bo) and "Kernel challenges: 0 passed of 1" in bo


def test_the_notebooks_outputs_are_never_read(graded):
    """bo's notebook shows a pass (and a time) under both cells, fay's an error under
    the kernel cell; each grade is the check's, either way."""
    out, _, rows, _ = graded
    assert rows["bo"]["status"] == "fail" and rows["fay"]["status"] == "pass"
    assert "0.001" not in (out / "feedback" / "bo.md").read_text()


def test_a_hanging_submission_leaves_nothing_running(graded):
    left = []
    for proc in pathlib.Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if SLEEPER.encode() in argv and state != "Z":
            left.append(proc.name)
    assert not left, f"the hanging submission's child lives on: {left}"


def _check(source: str, **limits) -> challenges.Result:
    return challenges.check_contained("vadd", source, limits=Limits(**limits), checker=CHECKER)


def test_cpu_limit_and_bare_environment(monkeypatch):
    # Spinning at import, with time to spare on the wall clock: the CPU limit ends it.
    got = _check("while True:\n    pass\n", wall_s=60, cpu_s=2, memory_bytes=MEMORY)
    assert not got.passed and "CPU time" in got.reason
    # None of the grader's environment reaches the submission (it would not import).
    monkeypatch.setenv("GRADER_SECRET", "hunter2")
    spy = "import os\nassert 'GRADER_SECRET' not in os.environ, 'the secret leaked'\n"
    got = _check(spy + double.REFERENCE, wall_s=WALL_S, memory_bytes=MEMORY)
    assert got.passed, got
    env = challenges.environment(pathlib.Path("/tmp/x"), gpu=False)
    assert env["NUMBA_ENABLE_CUDASIM"] == "1" and "GRADER_SECRET" not in env
    assert "NUMBA_ENABLE_CUDASIM" not in challenges.environment(pathlib.Path("/tmp/x"), gpu=True)


def test_a_forged_result_with_a_failing_exit_is_not_a_pass():
    forged = ("import json, sys\nprint(json.dumps({'challenge': 'vadd', 'passed': True, "
              "'message': 'ok', 'device': 'GPU'}))\nsys.exit(1)\n")
    got = _check(forged, wall_s=WALL_S, memory_bytes=MEMORY)
    assert not got.passed and "disagree" in got.reason


@pytest.mark.parametrize("run, reason", [
    (Run(None, "", "", 5.0, timed_out=True), "timed out after 5 s"),
    (Run(-signal.SIGSEGV, "", "Segmentation fault", 1.0), "crashed with signal SIGSEGV"),
    (Run(-signal.SIGXCPU, "", "", 5.0), "CPU time"),
    (Run(-signal.SIGKILL, "", "std::bad_alloc", 1.0), "memory limit"),
    (Run(0, "hello\n", "", 1.0), "printed no result"),
    (Run(1, '{"passed": true}\n', "", 1.0), "disagree"),
    (Run(0, '{"passed": false, "message": "out[3] is 0"}\n', "", 1.0), "disagree"),
    (Run(1, '{"passed": false, "message": "out[3] is 0"}\n', "", 1.0), "failed the check"),
    (Run(2, '{"passed": false, "message": "no vadd"}\n', "", 1.0), "could not run"),
    (Run(0, '{"passed": true}\nnoise after the result\n', "", 1.0), "printed no result"),
])
def test_verdicts(run, reason):
    got = verdict("vadd", run, Limits(wall_s=5))
    assert not got.passed and reason in got.reason, got
    assert verdict("vadd", Run(0, '{"passed": true, "message": "ok"}\n', "", 1.0),
                   Limits()).passed


def test_notebook_lines_become_a_module():
    text = challenges.module_source("%%time\nx = 1\nif x:\n    !nvidia-smi\n")
    compile(text, "cell", "exec")
    assert text.splitlines()[1] == "x = 1" and text.splitlines()[3].startswith("    pass")


def test_limits_refuse_nonsense():
    for bad in ({"wall_s": 0}, {"wall_s": float("inf")}, {"memory_bytes": 10},
                {"cpu_s": -1}, {"wall_s": True}):
        with pytest.raises(ValueError):
            Limits(**bad)
    with pytest.raises(ValueError, match="challenge name"):
        challenges.check_name("../etc/passwd")


def test_the_check_cell_checks_the_latest_run_of_the_cell(capsys):
    history = [f"{marker('vadd')}\n{OUT_OF_BOUNDS}", "x = 1",
               f"{marker('vadd')}\n{double.REFERENCE}"]
    got = challenges.check_challenge("vadd", history, wall_s=WALL_S * 3, checker=CHECKER)
    assert got.passed, got
    assert "vadd: passed" in capsys.readouterr().out
    got = challenges.check_challenge("vadd", ["x = 1"], checker=CHECKER)
    assert not got.passed and "no challenge cell" in got.reason


def test_an_unknown_challenge_is_refused(tmp_path):
    with pytest.raises(ValueError, match="vadd"):
        assign("hwk", tmp_path, kernels=["nope"], checker=CHECKER)


def test_the_instructors_page_names_the_options_that_exist():
    import re

    page = (ROOT / "appendix" / "instructors.md").read_text()
    part = page.split("## Kernel challenges: grading student code", 1)[1].split("\n## ", 1)[0]
    assert "not a security sandbox" in part
    helps = {cmd: subprocess.run([sys.executable, "-m", "exercises", cmd, "--help"], cwd=ROOT,
                                 capture_output=True, text=True, timeout=60).stdout
             for cmd in ("assign", "grade", "list")}
    code = re.findall(r"`([^`\n]+)`", part) + re.findall(r"```bash\n(.*?)```", part, re.S)
    spans = [c for c in code if "labs challenge" not in c]
    options = {o for c in spans for o in re.findall(r"(?<![\w-])--[a-z][a-z-]*", c)}
    assert {"--time-limit", "--memory-limit", "--gpu", "--challenges"} <= options
    for option in options:
        assert any(option in h for h in helps.values()), option
    assert f"{challenges.WALL_S:g} s by default" in part
    assert f"{challenges.MEMORY_BYTES // 2 ** 20} MiB by default" in part


def test_the_result_may_be_indented_but_must_come_last():
    indented = 'noise\n{\n "challenge": "vadd",\n "passed": true,\n "message": "ok"\n}\n'
    assert verdict("vadd", Run(0, indented, "", 1.0), Limits()).passed
    assert not verdict("vadd", Run(0, indented + "more\n", "", 1.0), Limits()).passed


# --- The book's own challenges, through both command lines --------------------------------

try:
    import labs.challenges as book_challenges
    from labs.challenges import misbehaving  # the GPU grading script grades the same ones
except ImportError:  # the challenges are not in this checkout yet
    book_challenges = None
needs_book = pytest.mark.skipif(book_challenges is None, reason="no labs.challenges here")

BOOK_WALL_S = 25   # the simulator takes 3-15 s a check on a loaded machine


def _exercises(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "exercises", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


@needs_book
def test_real_challenges_through_the_command_line(tmp_path):
    import inspect

    got = _exercises("assign", "hwr", "--challenges", "saxpy", "--student", "ada,bo,cy,dan",
                     "--out", str(tmp_path / "hw"))
    assert got.returncode == 0, got.stderr
    subs = tmp_path / "subs"
    subs.mkdir()
    bodies = {"ada": inspect.getsource(book_challenges.reference("saxpy")),
              "bo": misbehaving.HANG, "cy": misbehaving.OUT_OF_BOUNDS,
              "dan": "import numpy as np\nscratch = np.ones(2**33)  # 64 GiB\n"
                     + inspect.getsource(book_challenges.reference("saxpy"))}
    for student, body in bodies.items():
        nb = json.loads((tmp_path / "hw" / f"{student}.ipynb").read_text())
        cell, = _cells(nb, "challenge")
        assert book_challenges.kernel_source("saxpy").strip() in "".join(cell["source"])
        question, = _cells(nb, "question")
        statement = inspect.getdoc(book_challenges.challenge("saxpy"))
        assert statement.splitlines()[0] in "".join(question["source"])
        cell["source"] = f"{marker('saxpy')}\n{body}"
        (subs / f"{student}.ipynb").write_text(json.dumps(nb))
    out = tmp_path / "grades"
    got = _exercises("grade", str(tmp_path / "hw"), str(subs), "--out", str(out),
                     "--time-limit", str(BOOK_WALL_S))
    assert got.returncode == 0, got.stderr        # the grader came through all four
    listed = _exercises("list", "--challenges").stdout.split()
    assert listed == list(book_challenges.NAMES)
    with open(out / "gradebook.csv", newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert {s: rows[s]["status"] for s in bodies} == {"ada": "pass", "bo": "fail", "cy": "fail",
                                                      "dan": "fail"}
    checks = json.loads((out / "challenges.json").read_text())["checks"]
    assert checks["ada"]["saxpy"]["device"].startswith("CUDA simulator")
    reason = checks["bo"]["saxpy"]["reason"]
    assert reason.startswith(f"timed out after {BOOK_WALL_S} s") or "(CPU limit)" in reason, reason
    assert "out of bounds" in checks["cy"]["saxpy"]["message"]
    assert "out of bounds" in (out / "feedback" / "cy.md").read_text()
    assert "memory limit of 4,096 MiB" in checks["dan"]["saxpy"]["reason"]   # the default


@needs_book
def test_the_check_cell_runs_in_a_notebook(tmp_path):
    """The assignment notebook executed in a kernel, as a student runs it outside Colab:
    the check cell checks the challenge cell as last run."""
    import inspect

    import nbformat
    from nbclient import NotebookClient

    got = _exercises("assign", "hwr", "--challenges", "saxpy", "--out", str(tmp_path))
    assert got.returncode == 0, got.stderr
    nb = nbformat.read(tmp_path / "hwr.ipynb", as_version=4)
    for c in nb.cells:
        if c.metadata.get("exercises", {}).get("role") == "challenge":
            c.source = (f"{marker('saxpy')}\n%load_ext autoreload\n"   # a magic, as typed
                        + inspect.getsource(book_challenges.reference("saxpy")))
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    kernel = next(c for c in nb.cells
                  if c.metadata.get("exercises", {}).get("role") == "challenge")
    assert not [o for o in kernel.outputs if o.get("output_type") == "error"], kernel.outputs
    check = next(c for c in nb.cells
                 if c.metadata.get("exercises", {}).get("role") == "challenge-check")
    text = "".join(o.get("text", "") for o in check.outputs)
    assert "saxpy: passed" in text, check.outputs


def test_memory_reasons_say_whether_a_limit_was_set():
    broke = Run(2, '{"passed": false, "message": "MemoryError: Unable to allocate"}\n', "", 1.0)
    assert "memory limit of 512 MiB" in verdict("vadd", broke, Limits(memory_bytes=2 ** 29)).reason
    assert "no memory limit" in verdict("vadd", broke, Limits(memory_bytes=None)).reason
    killed = Run(-signal.SIGKILL, "", "", 1.0)
    assert "out-of-memory killer" in verdict("vadd", killed, Limits(wall_s=5)).reason


def test_challenges_beside_exercises_keep_the_answers_check_last(tmp_path):
    from test_assign_grade import PLAIN

    assign("hwk", tmp_path, ids=[PLAIN], kernels=["vadd"], checker=CHECKER)
    nb = json.loads((tmp_path / "hwk.ipynb").read_text())
    roles = [(c["metadata"]["exercises"]["role"], c["metadata"]["exercises"].get("id"))
             for c in nb["cells"]]
    assert roles.index(("answer", PLAIN)) < roles.index(("challenge", "vadd"))
    assert roles[-1] == ("check", None)
    assert f"[{PLAIN!r}]" in "".join(nb["cells"][-1]["source"])   # numeric ids only
    intro = "".join(_cells(nb, "intro")[0]["source"])
    assert "1 numeric and 0 written question(s) and 1 kernel challenge(s)" in intro


# --- The policy: what the grader runs at all ------------------------------------------------

def test_the_policy_allows_what_a_kernel_needs_and_names_the_rest():
    from exercises import policy

    honest = ("from __future__ import annotations\nimport math\nimport numpy as np\n"
              "import numba.cuda\nfrom numba import cuda, float32\n"
              "from labs.challenges.harness import load4, store4, WARP, resident_grid\n"
              "x = np.zeros(4, np.float32)\n")
    assert policy.review(honest) is None
    for source, uses in [
            ("import os\n", "import os"),
            ("import numpy, socket\n", "import socket"),
            ("from labs.challenges.harness import Tally\n",
             "from labs.challenges.harness import Tally"),
            ("from labs.challenges import judge\n", "from labs.challenges import ..."),
            ("from . import x\n", "a relative import (from .)"),
            ("f = open\n", "open"), ("eval('1')\n", "eval"), ("exec('1')\n", "exec"),
            ("compile('1', 'f', 'eval')\n", "compile"), ("g = globals()\n", "globals"),
            ("getattr(np, 'sa' + 'vez')\n", "getattr"),
            ("import numpy as np\nnp.savez('f', x=1)\n", "np.savez"),
            ("import numpy as np\nnp.zeros(3).tofile('f')\n", "np.zeros(3).tofile"),
            ("import numpy as np\nnp.lib.npyio._savez\n", "np.lib.npyio._savez"),
            ("def f():\n    pass\nf.__globals__\n", "f.__globals__"),
            ("import numpy as np\nnp.os\n", "np.os"),
            # names imported from an allowed module are checked as attributes are (a
            # student forged a pass through sys.modules this way)
            ("from numba.core.config import sys as S\n", "from numba.core.config import sys"),
            ("from numpy import savez as keep\n", "from numpy import savez"),
            ("from numpy.lib import _npyio_impl\n", "from numpy.lib import _npyio_impl"),
            ("from numpy import *\n", "from numpy import *"),
            ("import numba.core.utils as u\nu.inspect\n", "u.inspect"),
            ("import numpy as np\nnp.ctypeslib\n", "np.ctypeslib"),
            # a running generator's frame leads to its caller's globals (the recorder's)
            ("def g():\n    yield x.gi_frame.f_back\n", "x.gi_frame.f_back"),
            # a module's function replaced: numpy's savez calls np.asanyarray on collect's
            # counters, so this rewrote them (a hostile student's, 2026-12-07)
            ("import numpy as np\nnp.asanyarray = len\n", "an assignment to np.asanyarray"),
            ("import numpy as np\ndel np.sum\n", "a deletion of np.sum"),
            ("import numpy as np\nnp.e += 1\n", "an assignment to np.e"),
            ("import numpy.lib._npyio_impl as M\n", "import numpy.lib._npyio_impl"),
            ("from numpy.lib._npyio_impl import zipfile_factory\n",
             "from numpy.lib._npyio_impl import ..."),
            # attributes by name through a module an allowed one re-exports (a third hostile
            # student's: utils.operator.attrgetter("_rec.events")(x) read the recorder)
            ("from numba.core import utils\nutils.operator.attrgetter('_rec')\n",
             "utils.operator.attrgetter"),
            ("from numba.core import utils\nutils.sizeof\n",
             "from numba.core import ..."),
            ("import numpy as np\nnp.ma.core.left_shift\n",
             "np.ma.core.left_shift (the module numpy.ma)"),
            ("import numpy as np\nm = np\n", "the module np as a value"),
            ("from numpy import ma\n", "from numpy import ma"),
            ("import numba.core.utils\n", "import numba.core.utils"),
            ("from numba import cuda\ncuda.cudadrv.devicearray\n",
             "cuda.cudadrv.devicearray (cuda.cudadrv, which a kernel does not use)"),
            # a class pattern names attributes as strings (a fifth hostile student's: the
            # recorder through load4's globals, and sys through launch's builtins)
            ("from labs.challenges.harness import load4\nmatch load4:\n"
             "    case object(__globals__=g):\n        pass\n", "a match statement"),
            ("from labs.challenges.harness import load4\n"
             "t = '{0.__globals__[_ACTIVE]}'.format(load4)\n",
             "a format field that reads an underscore name"),
            ("t = ('{0.' + '_rec}').format(x)\n",
             "str.format on a string built as the code runs (write an f-string)"),
            # gdb attached to the process by numba runs any code (a sixth hostile student's)
            ("import numba\nnumba.gdb('-ex', 'call ...')\n", "numba.gdb"),
            ("from numba import gdb_init\n", "from numba import gdb_init"),
            ("import numba\nnumba.njit(lambda v: v)\n", "numba.njit"),
            # a module reached by a chain and used as a value, and chains through the
            # modules numba.cuda holds (an honest-student sweep's finds, 2026-12-07: under
            # the simulator c.cloudpickle.loads ran a pickle, and cuda.cg.types.logging
            # opens files)
            ("import numba\nc = numba.cuda\nc.serialize.dumps(b'')\n",
             "the module numba.cuda as a value"),
            ("from numba import cuda\nfs = [cuda][0]\n", "the module cuda as a value"),
            ("from numba import cuda\ncuda.cg.types.logging.FileHandler('f', 'wb')\n",
             "cuda.cg.types.logging.FileHandler (cuda.cg.types.logging: a kernel reaches at "
             "most cuda.name.name)"),
            ("from numba.cuda import cg\nt = cg.types\n", "cg.types (the module cuda.cg.types)"),
            ("from numba.cuda import random as r\nq = r\n", "the module r as a value"),
            ("import numba.cuda.random as r\nr.config\n", "r.config (the module cuda.random.config)"),
            ("from numba.cuda.random import np\n", "from numba.cuda.random import np"),
            ("import numba.cuda.cudadrv.driver as d\n", "import numba.cuda.cudadrv.driver"),
            ("import numba\nt = numba.core.types\n", "numba.core.types (the module numba.core)"),
            ("import numpy as np\nr = np.random\n", "the module np.random as a value"),
            ("import numpy as np\nnp.random.mtrand\n",
             "np.random.mtrand (the module numpy.random.mtrand)"),
            ("from labs.challenges import harness\nharness.load4.py_func\n",
             "harness.load4.py_func (of the harness, a kernel uses only load4, store4, WARP "
             "and resident_grid)"),
            ("from labs.challenges import harness\nh = harness\n", "the module harness as a value"),
            ("from labs.challenges import harness, judge\n", "from labs.challenges import ..."),
            ("import typing\n", "import typing"),
            ("from typing import get_type_hints\n", "from typing import ..."),
            # a seventh hostile student's forged passes, each through the real grader with
            # the policy of that morning: a Cython function's globals (every numpy.random
            # function), AttributeError.obj (a module as a value the walls never saw), and
            # a submodule the grader had not imported (numba.testing reaches cProfile.run)
            ("import numpy as np\nB = np.random.default_rng.func_globals\n",
             "np.random.default_rng.func_globals"),
            ("import numba\ntry:\n    numba.nope\nexcept AttributeError as e:\n    M = e.obj\n",
             "e.obj"),
            ("from numba import testing\n", "from numba import testing"),
            ("import numba\nnumba.testing.main\n",
             "numba.testing.main (the module numba.testing)"),
            ("import numba\nM = numba.cloudpickle\n", "numba.cloudpickle")]:
        assert policy.review(source) == uses, source
    with pytest.raises(policy.InvalidSource):       # a ValueError naming source
        policy.review("def f(:\n")


def test_the_policy_passes_every_starter_and_self_contained_solution():
    """The book's own kernels import only what the policy allows (the regroup solution and
    textbook are built from the starter by import: not cells a student hands in)."""
    from exercises import policy

    folder = ROOT / "labs" / "challenges"
    files = [p for d in ("starters", "solutions", "textbooks") for p in (folder / d).glob("*.py")
             if p.name != "__init__.py"]
    assert len(files) == 24
    held = {f"{p.parent.name}/{p.stem}": policy.review(p.read_text()) for p in files}
    assert {k for k, v in held.items() if v} == {"solutions/regroup", "textbooks/regroup"}


def test_a_held_or_unparsable_cell_is_not_run():
    # a checker that cannot start: were the cell run, the result would say so
    nowhere = challenges.Engine(collect=("-c", "raise SystemExit(3)"))
    held = challenges.run_check("vadd", "import os\n" + double.REFERENCE, engine=nowhere,
                                sandboxed=False)
    assert held.held and not held.passed and held.reason == "held for review: uses import os"
    assert "not run" in held.message
    broken = challenges.run_check("vadd", "def f(:\n", engine=nowhere, sandboxed=False)
    assert not broken.held and broken.reason.startswith("syntax error at line 1")
