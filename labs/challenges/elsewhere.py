"""A check under the simulator in a process of its own: for a process that imported
numba.cuda for a GPU it lacks (a chapter's page at build time, a script on a GPU machine
that wants the simulator's counters)."""
from __future__ import annotations

import pathlib

from .catalog import HERE


def collect_elsewhere(name: str, path: pathlib.Path, seed: int, timeout_s: float) -> dict:
    """The collected (arrays, meta) from ``python -m labs.challenges.collect`` in a fresh
    process under the simulator (this one imported numba.cuda for a GPU it lacks)."""
    import os
    import subprocess
    import sys
    import tempfile

    from .collect import failed
    from .judge import _load

    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1",
               PYTHONPATH=os.pathsep.join([str(HERE.parents[1]),
                                           os.environ.get("PYTHONPATH", "")]))
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "collected.npz"
        try:
            proc = subprocess.run([sys.executable, "-m", "labs.challenges.collect", name,
                                   str(path.resolve()), "--seed", str(seed), "--out",
                                   str(out)], capture_output=True, text=True, env=env,
                                  cwd=str(HERE.parents[1]), timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return failed(name, seed, f"the check did not finish in {timeout_s:.0f} s (a "
                                      f"kernel that never ends?)")
        if proc.returncode != 0 or not out.exists():
            return failed(name, seed, "the check did not run: "
                          + " ".join(proc.stderr.split())[-300:])
        arrays, meta = _load(out)
    return {**arrays, "meta": meta}


def simulated_counters(name: str, path, seed: int = 0, timeout_s: float = 600.0) -> dict:
    """The mechanism counters of the submission at ``path``, from a check under the
    simulator in a process of its own (so a script on a GPU can call it): what
    :func:`record` takes. {} when the kernels did not run."""
    import pathlib

    collected = collect_elsewhere(name, pathlib.Path(path), int(seed), timeout_s)
    return dict(collected["meta"].get("counters") or {})
