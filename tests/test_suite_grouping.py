"""The suite's grouping works: under ``pytest -n 2 --dist loadgroup`` (``make test``), every
test of a module outside conftest.SPREAD runs on one worker, so a module's costly fixtures
(executed twins, a built edition, a graded course) are made once, not once per worker.
Seen broken: pytest 9 with pytest-xdist 3.8 ignored the groups, and the Colab twins were
executed twice."""
from __future__ import annotations

import collections
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: Two quick modules of many tests each, neither in SPREAD.
MODULES = ("tests/test_table_cells.py", "tests/test_lessons_home.py")


def test_each_module_runs_on_one_worker():
    env = {**os.environ, "PYTEST_ADDOPTS": ""}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2",
                           "--dist", "loadgroup", "-v", *MODULES], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=240)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    workers = collections.defaultdict(set)
    for worker, module in re.findall(r"^\[(gw\d+)\].*?(tests/\w+\.py)::", proc.stdout, re.M):
        workers[module].add(worker)
    assert set(workers) == set(MODULES), proc.stdout[-3000:]
    assert all(len(w) == 1 for w in workers.values()), dict(workers)
