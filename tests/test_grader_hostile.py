"""Hostile submissions, each graded under the sandbox with the book's own challenge engine
(``saxpy`` on the CUDA simulator): none earns a point, and nothing outside each check's
tmpfs changes: not the book's tree, not the assignment, the key, the submissions or an
earlier student's kept files, and not the gradebook once ``grade`` has returned.

Most hostile cells are built so that they could only earn points if their attack worked:
they define the right kernel only after the forbidden read, write, import or connection
succeeded, and the starter's (wrong) kernel otherwise. One honest student shows that the
same set-up does give points for a right kernel.

The sandbox is tried alone (``review=False``): the policy that holds most of these cells
unrun before any sandbox starts (:mod:`exercises.policy`) is tried by the tests at the
end, with the two forgeries the sandbox alone cannot stop.
"""
from __future__ import annotations

import csv
import hashlib
import json
import os
import pathlib
import shutil
import time

import pytest

from exercises import sandbox
from exercises.assign import assign
from exercises.challenges import Limits, marker
from exercises.grade import grade

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: In the command line of anything a submission leaves; one per test process, so that a
#: second pytest-xdist worker grading the same cells is not taken for a survivor.
MARK = f"hostile-marker-7c1e-{os.getpid()}"
pytestmark = pytest.mark.skipif(bool(sandbox.probe(ROOT)),
                                reason=f"no sandbox here: {sandbox.probe(ROOT)}")

STARTER = (ROOT / "labs" / "challenges" / "starters" / "saxpy.py").read_text()
# The right SAXPY, the same text the GPU check edits into its wrong kernels.
from labs.challenges.engine_gpu_check import SAXPY as HONEST  # noqa: E402


#: A hostile student's (2026-12-07): a right but uncoalesced saxpy (16 elements a thread,
#: in a row: 8 sectors for every 32 useful bytes, where the target is 1.1), and numpy's
#: asanyarray replaced by one that rewrites those counters to 1.0 as np.savez writes
#: collect's file. Without the check that the writers' modules are untouched it passed.
PATCHER = """import json
import numpy as np
from numba import cuda

keep = np.asanyarray


def forged(a, *args, **kw):
    r = keep(a, *args, **kw)
    if r.ndim == 0 and r.dtype.kind == "U" and str(r).startswith("{"):
        meta = json.loads(str(r))
        meta["counters"] = {k: (1.0 if k.startswith("sectors.") else v)
                            for k, v in meta.get("counters", {}).items()}
        r = keep(json.dumps(meta))
    return r


np.asanyarray = forged


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    for k in range(16):
        j = 16 * i + k
        if j < x.size:
            out[j] = a * x[j] + y[j]


def launch(a, x, y, out):
    n = (x.size + 15) // 16
    saxpy[(n + 255) // 256, 256](a, x, y, out)
"""


def _if_any_worked(attempts: list[str]) -> str:
    """A cell that tries each statement and defines the right kernel only if one worked."""
    tries = "\n".join(f"try:\n    {a}\n    WORKED.append({a[:40]!r})\nexcept BaseException:\n    pass"
                      for a in attempts)
    return (f"WORKED = []\n{tries}\nif WORKED:\n"
            + "\n".join("    " + ln for ln in HONEST.splitlines()) + "\nelse:\n"
            + "\n".join("    " + ln for ln in STARTER.splitlines() if '"""' not in ln) + "\n")


def _hostile(paths: dict[str, pathlib.Path]) -> dict[str, str]:
    kept, book = paths["kept"], ROOT
    return {
        "honest": HONEST,
        # prints a passing verdict and leaves at once, with exit status 0
        "forger": ("import json, os\nprint(json.dumps({'challenge': 'saxpy', 'passed': True, "
                   "'correct': True, 'message': 'ok', 'device': 'GPU'}))\nos._exit(0)\n"),
        # the reference solution, another student's kept kernel, the gradebook, the
        # assignment, the key, the network
        "thief": _if_any_worked([
            "from labs.challenges.solutions.saxpy import saxpy as _s",
            f"open({str(kept / 'alice' / 'saxpy.py')!r}).read()",
            f"open({str(paths['out'] / 'gradebook.csv')!r}).read()",
            f"open({str(paths['assignment'] / 'assignment.json')!r}).read()",
            f"open({str(paths['key'])!r}).read()",
            f"open({str(book / 'exercises' / 'grade.py')!r}).read()",
            "__import__('socket').create_connection(('1.1.1.1', 53), 2)",
            "__import__('socket').create_connection(('127.0.0.1', 22), 2)",
        ]),
        # writes outside its folder: into the grader's code, the book, the kept files, /tmp
        "vandal": _if_any_worked([
            f"open({str(book / 'labs' / 'challenges' / '__init__.py')!r}, 'a').write('#x')",
            f"open({str(book / 'exercises' / 'grade.py')!r}, 'a').write('#x')",
            f"open({str(kept / 'alice' / 'saxpy.py')!r}, 'w').write('#x')",
            f"open({str(paths['canary'])!r}, 'w').write('x')",
            f"open({str(paths['out'] / 'gradebook.csv')!r}, 'w').write('x')",
        ]),
        # a double-forked setsid child that keeps trying to rewrite the gradebook
        "ghost": (f"import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
                  f"        os.execv('/bin/sh', ['/bin/sh', '-c', "
                  f"'for i in $(seq 100); do echo ghost,saxpy,,,pass,9 > "
                  f"{paths['out'] / 'gradebook.csv'} 2>/dev/null; sleep 0.1; done; "
                  f"sleep 300 # {MARK}'])\n    os._exit(0)\n" + STARTER),
        # the work done by numpy on the host, copied back
        "host": HONEST.replace(
            "    saxpy[(x.size + threads - 1) // threads, threads](a, x, y, out)",
            "    out.copy_to_device(a * x.copy_to_host() + y.copy_to_host())"),
        "hog": "import numpy as np\nscratch = np.ones(5 * 2**30)  # 40 GB\n" + HONEST,
        "flood": "import sys\nfor _ in range(400):\n    sys.stdout.write('x' * 2**20)\n" + HONEST,
        "spin": HONEST.replace("    if i < x.size:", "    while i >= 0:\n        i += 0\n    if i < x.size:"),
        "oob": HONEST.replace("    if i < x.size:\n", "    if True:\n"),
        "patcher": PATCHER,
    }


def _digest(*folders: pathlib.Path) -> dict[str, str]:
    out = {}
    for folder in folders:
        for p in sorted(folder.rglob("*")) if folder.is_dir() else [folder]:
            if p.is_file() and "__pycache__" not in p.parts:
                out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _alive(mark: str) -> list[str]:
    left = []
    for proc in pathlib.Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if mark.encode() in argv and str(os.getpid()) != proc.name:
            left.append(proc.name)
    return left


def _submit(assignment: pathlib.Path, bodies: dict[str, str],
            subs: pathlib.Path) -> pathlib.Path:
    """Each student's assignment notebook with ``bodies[student]`` as its saxpy cell, in
    ``subs``."""
    subs.mkdir()
    for student, body in bodies.items():
        nb = json.loads((assignment / f"{student}.ipynb").read_text())
        for c in nb["cells"]:
            if c["metadata"].get("exercises", {}).get("role") == "challenge":
                c["source"] = f"{marker('saxpy')}\n{body}"
        (subs / f"{student}.ipynb").write_text(json.dumps(nb))
    return subs


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    paths = {"assignment": tmp / "hw", "out": tmp / "grades", "key": tmp / "config" / "k.key",
             "canary": pathlib.Path(f"/tmp/{MARK}-{os.getpid()}")}
    paths["kept"] = paths["out"] / "kernels"
    paths["key"].parent.mkdir()
    paths["key"].write_text("00" * 32 + "\n")
    bodies = _hostile(paths)
    assign("hwh", paths["assignment"], kernels=["saxpy"], students=list(bodies))
    (paths["kept"] / "alice").mkdir(parents=True)                 # an earlier student's
    (paths["kept"] / "alice" / "saxpy.py").write_text(HONEST)
    subs = _submit(paths["assignment"], bodies, tmp / "submissions")
    watched = [ROOT / d for d in ("labs", "perfmodel", "exercises", "tests", "scripts")] + \
        [paths["assignment"], subs, paths["key"].parent, paths["kept"] / "alice"]
    before = _digest(*watched)
    t0 = time.monotonic()
    grade(paths["assignment"], subs, paths["out"], jobs=2,
          limits=Limits(wall_s=25, cpu_s=25, memory_bytes=4 * 2 ** 30), review=False)
    took = time.monotonic() - t0
    just_after = _digest(paths["out"])
    time.sleep(3)                       # what a left-behind process would do, it does now
    later = _digest(paths["out"])
    after = _digest(*watched)
    with open(paths["out"] / "gradebook.csv", newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    checks = json.loads((paths["out"] / "challenges.json").read_text())["checks"]
    yield {"rows": rows, "checks": checks, "before": before, "after": after,
           "just_after": just_after, "later": later, "paths": paths, "took": took}
    if paths["canary"].exists():
        paths["canary"].unlink()
    shutil.rmtree(tmp, ignore_errors=True)


def test_the_honest_kernel_passes(hostile):
    r = hostile["rows"]["honest"]
    assert (r["status"], r["points"], r["checked"]) == ("pass", "1", "sandbox"), r


@pytest.mark.parametrize("student", ["forger", "thief", "vandal", "ghost", "host", "hog",
                                     "flood", "spin", "oob", "patcher"])
def test_each_hostile_submission_earns_nothing(hostile, student):
    r = hostile["rows"][student]
    assert r["points"] == "0" and r["status"] == "fail", (r, hostile["checks"][student])
    assert r["checked"] == "sandbox"


def test_why_each_failed(hostile):
    c = {s: v["saxpy"] for s, v in hostile["checks"].items()}
    assert "no results" in c["forger"]["reason"]
    assert "wrong" in c["thief"]["reason"] and "wrong" in c["vandal"]["reason"]
    assert "memory" in c["hog"]["reason"], c["hog"]
    assert "output limit" in c["flood"]["reason"] or "wrong" in c["flood"]["reason"], c["flood"]
    assert "timed out" in c["spin"]["reason"] or "CPU" in c["spin"]["reason"], c["spin"]
    assert "out of bounds" in c["oob"]["message"], c["oob"]
    assert not c["host"]["correct"], c["host"]
    assert "the submission replaced numpy.asanyarray" in c["patcher"]["message"], c["patcher"]


def test_nothing_outside_the_checks_changed(hostile):
    assert hostile["before"] == hostile["after"]
    assert not hostile["paths"]["canary"].exists()


def test_nothing_outlives_the_grader(hostile):
    assert hostile["just_after"] == hostile["later"]        # the gradebook stays as written
    assert "ghost,saxpy,,,pass,9" not in (hostile["paths"]["out"] / "gradebook.csv").read_text()
    assert not _alive(MARK)


def test_the_grader_records_how_it_graded(hostile):
    info = json.loads((hostile["paths"]["out"] / "grading.json").read_text())
    assert info["sandboxed"] is True and info["jobs"] == 2
    assert hostile["took"] < 240                            # two at a time, bounded


# --- The policy in front of the sandbox ----------------------------------------------------

#: Writes the result file itself, from the path and seed on collect's command line, with
#: the right outputs the book's judge computes from the seed and counters that meet the
#: target, then leaves before collect can write its own: inside the sandbox, a pass.
SAVEZ_FORGER = '''import json
import os
import sys

import numpy as np

from labs.challenges import challenge, judge

argv = sys.argv
seed, out = int(argv[argv.index("--seed") + 1]), argv[argv.index("--out") + 1]
ch = challenge("saxpy")
sizes = judge.check_sizes(ch, "sim", seed)
arrays = {judge.key(k, "out"): ch.expected(inp)["out"]
          for k, inp in enumerate(judge.all_inputs(ch, sizes, seed))}
counters = {"sectors.x.load": 1.0, "sectors.y.load": 1.0, "sectors.out.store": 1.0}
meta = {"challenge": "saxpy", "seed": seed, "mode": "sim", "sizes": sizes,
        "counters": counters, "launches": 1, "host_transfers": [], "errors": {},
        "device": "CUDA simulator"}
np.savez(out, meta=np.array(json.dumps(meta)), **arrays)
os._exit(0)
'''
#: The same reach for the process through __import__, with nothing imported by name.
IMPORT_OS = "__import__('os')._exit(0)\n" + HONEST
#: A student's: sys and np.savez imported by name from allowed modules, collect's own
#: writer replaced through sys.modules with one that writes the judge's right outputs and
#: counters that meet the target; the kernel itself writes nothing. It passed the policy
#: of 2026-12-04 on both sandboxes.
ALIASED = '''from numba.core.config import sys as S
from numpy import savez as keep
from numba import cuda
from numpy import array

J = S.modules["labs.challenges.judge"]
ch = S.modules["labs.challenges.catalog"].challenge("saxpy")
argv = S.argv
seed = int(argv[argv.index("--seed") + 1])
sizes = J.check_sizes(ch, "sim", seed)
arrays = {J.key(k, "out"): ch.expected(inp)["out"]
          for k, inp in enumerate(J.all_inputs(ch, sizes, seed))}
meta = {"challenge": "saxpy", "seed": seed, "mode": "sim", "sizes": sizes,
        "counters": {"sectors.x.load": 1.0, "sectors.y.load": 1.0, "sectors.out.store": 1.0},
        "launches": 1, "host_transfers": [], "errors": {}, "device": "CUDA simulator"}


def write(path, arrs, m):
    keep(path, meta=array(S.modules["json"].dumps(meta)), **arrays)


S.modules["__main__"].write = write


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)


def launch(a, x, y, out):
    saxpy[(x.size + 255) // 256, 256](a, x, y, out)
'''


def test_without_the_policy_a_forged_result_file_passes_the_sandbox():
    """What the sandbox alone cannot stop, and why the policy is there (the module
    docstring of exercises.challenges says so): code in collect's process writes the file
    the grader reads, and leaves before collect does."""
    from exercises.challenges import run_check

    got = run_check("saxpy", SAVEZ_FORGER, limits=Limits(wall_s=25, cpu_s=25), review=False)
    assert got.passed, (got.reason, got.message)


def test_without_the_policy_a_replaced_writer_is_caught_by_collect():
    """The line behind the policy: collect's own functions (``__main__.write`` here,
    replaced through sys.modules) are watched as numpy's are, and the names it calls after
    the submission ran are bound before it loads (a seventh hostile student forged a pass
    this way through routes the policy now refuses)."""
    from exercises.challenges import run_check

    got = run_check("saxpy", ALIASED, limits=Limits(wall_s=25, cpu_s=25), review=False)
    assert not got.passed
    assert "replaced __main__.write" in got.message, got.message


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory):
    """The forgeries, a few hostile cells of the first set and the honest kernels, graded
    as an instructor grades (the policy on)."""
    import inspect

    from labs.challenges import reference

    tmp = tmp_path_factory.mktemp("reviewed")
    bodies = {"savez": SAVEZ_FORGER, "importer": IMPORT_OS, "aliased": ALIASED,
              "honest": HONEST,
              "ref": inspect.getsource(reference("saxpy")),
              "broken": HONEST.replace("def launch(a, x, y, out):", "def launch(a, x, y, out)")}
    paths = {"key": tmp / "config" / "k.key", "assignment": tmp / "hw", "out": tmp / "grades",
             "canary": tmp / "canary"}
    paths["key"].parent.mkdir()
    paths["key"].write_text("00" * 32 + "\n")
    paths["kept"] = paths["out"] / "kernels"
    for student in ("forger", "thief", "ghost", "flood"):
        bodies[student] = _hostile(paths)[student]
    assign("hwr", paths["assignment"], kernels=["saxpy"], students=list(bodies))
    subs = _submit(paths["assignment"], bodies, tmp / "submissions")
    grade(paths["assignment"], subs, paths["out"], jobs=2,
          limits=Limits(wall_s=25, cpu_s=25, memory_bytes=4 * 2 ** 30))
    with open(paths["out"] / "gradebook.csv", newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    yield {"rows": rows, "bodies": bodies, "out": paths["out"]}
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.parametrize("student, uses", [
    ("savez", "import json"), ("importer", "__import__('os')._exit"), ("forger", "import json"),
    ("aliased", "from numba.core.config import sys"),
    ("thief", "from labs.challenges.solutions.saxpy import ..."), ("ghost", "import os"),
    ("flood", "import sys")])
def test_the_policy_holds_each_forgery_for_review_unrun(reviewed, student, uses):
    r = reviewed["rows"][student]
    feedback = (reviewed["out"] / "feedback" / f"{student}.md").read_text()
    assert (r["status"], r["points"]) == (f"held for review: uses {uses}", "0"), (r, feedback)
    assert r["checked"] == "not run"
    # the kept cell stays for the instructor, and the feedback says why
    kept = reviewed["out"] / "kernels" / student / "saxpy.py"
    assert kept.read_text().strip() == f"{marker('saxpy')}\n{reviewed['bodies'][student]}".strip()
    assert "Held for review" in feedback and "not run" in feedback


def test_the_honest_kernels_pass_with_the_policy_on(reviewed):
    for student in ("honest", "ref"):
        r = reviewed["rows"][student]
        assert (r["status"], r["points"], r["checked"]) == ("pass", "1", "sandbox"), r


def test_a_cell_that_does_not_parse_is_a_syntax_error(reviewed):
    r = reviewed["rows"]["broken"]
    assert r["status"] == "fail" and r["points"] == "0", r
    assert "syntax error at line" in (reviewed["out"] / "feedback" / "broken.md").read_text()
