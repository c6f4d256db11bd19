"""The one way the book's recordings are made on a lent GPU machine: named steps, each a
command of its own with its own time limit, run in order, everything packed after each step.

    python3 -m labs.device --out DIR STEP [STEP ...]
    python3 -m labs.device --list

Run from the repository root on the GPU machine (python3 with torch and numba-cuda; no
plotly). Each step writes under ``DIR/w/<step>/`` and logs to ``DIR/w/<step>.log``; after
every step ``DIR/all.tgz`` holds everything so far, so what a time limit leaves still
comes back. A step that fails or runs out of time is reported and the next one runs. The
recorded JSON is then copied by hand into ``labs/results/<gpu>/`` (what each step writes,
and where it goes, is in its description), with a line in ``labs/NOTES.md``.

``labs:NAME[,NAME...]`` runs those labs (``python -m labs run NAME``); ``labs`` alone runs
every lab.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import pathlib
import subprocess
import sys
import tarfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


@dataclasses.dataclass(frozen=True)
class Step:
    """One recording: ``argv`` (``{w}`` is the step's output folder), a limit in seconds."""

    argv: tuple[str, ...]
    limit_s: float
    what: str
    env: tuple[tuple[str, str], ...] = ()


PY = sys.executable or "python3"

STEPS: dict[str, Step] = {
    "profile": Step((PY, "-m", "labs", "run", "profile", "--out", "{w}"), 420,
                    "the profile lab under Nsight Compute (ncu from PATH or /usr/local/cuda/bin), "
                    "its raw CSV kept in {w}/raw: labs/results/<gpu>/profile.json",
                    (("LABS_PROFILE_RAW", "{w}/raw"),)),
    "challenges": Step((PY, "-m", "labs.challenges.on_device", "--out", "{w}"), 240,
                       "every challenge's starter, reference and textbook kernel timed against "
                       "its bound, with the simulator's estimate: labs/results/<gpu>/challenges.json"),
    "grade": Step(("bash", "-c", f"{PY} -m exercises.gpu_grading_demo --out {{w}} && "
                   f"{PY} -m exercises grade {{w}}/assignment {{w}}/submissions --out "
                   "{w}/grades --gpu; sleep 5; cat {w}/grades/gradebook.csv {w}/grades/totals.csv"),
                  240, "grade --gpu end to end on a small course (an honest and a hostile "
                  "student): labs/results/<gpu>/grading_demo/"),
    "machine": Step((PY, "-m", "labs.part2a_on_device", "--out", "{w}"), 330,
                    "chapters 6-8's machine as it behaves: SASS, L2 fetch granularity, store "
                    "sectors and the schedulers' stall counters under ncu"),
    "power_model": Step((PY, "-m", "labs.power_model_time", "--out", "{w}"), 200,
                        "idle power, the FMA loop and FP32/FP16 matmuls under NVML, no GPU "
                        "setting changed: labs/results/<gpu>/power_model.json"),
    "pcie_cpu_add": Step((PY, "-m", "labs.pcie_cpu_add_time", "--out", "{w}"), 120,
                         "the host's CPU add (preallocated and fresh outputs) against the pinned "
                         "round trip, chapter 5's lab note: labs/results/<gpu>/pcie_cpu_add.json"),
    "fma_variants": Step((PY, "-m", "labs.fma_variants_time", "--out", "{w}", "--repeat", "3",
                          "--hold", "2"), 120,
                         "the FMA-peak variants: labs/results/<gpu>/fma_variants.json"),
}


def step(name: str) -> Step:
    """The step called ``name``; ``labs`` or ``labs:a,b`` runs labs; unknown -> ValueError."""
    if name == "labs" or name.startswith("labs:"):
        from . import LABS

        chosen = name.split(":", 1)[1].split(",") if ":" in name else list(LABS)
        unknown = [n for n in chosen if n not in LABS]
        if unknown or not chosen:
            raise ValueError(f"step {name!r}: labs must be among {', '.join(LABS)}")
        script = "; ".join(f"{PY} -m labs run {n} --out {{w}}" for n in chosen)
        return Step(("bash", "-c", script), 90 * len(chosen),
                    f"the labs {', '.join(chosen)}: labs/results/<gpu>/<lab>.json")
    if name not in STEPS:
        raise ValueError(f"step must be one of {', '.join(STEPS)}, labs or labs:NAME,...; "
                         f"got {name!r}")
    return STEPS[name]


def pack(out: pathlib.Path) -> None:
    """``out/all.tgz`` from ``out/w`` (written beside, then renamed: never half a file)."""
    part = out / "all.tgz.part"
    with tarfile.open(part, "w:gz") as tar:
        tar.add(out / "w", arcname="w")
    part.rename(out / "all.tgz")


def run(names: list[str], out: pathlib.Path) -> int:
    """Run the steps in order; returns how many failed."""
    steps = [(n, step(n)) for n in names]          # every name checked before anything runs
    work = out / "w"
    work.mkdir(parents=True, exist_ok=True)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,"
                          "clocks.max.sm,power.draw", "--format=csv"],
                         capture_output=True, text=True, check=False)
    (work / "gpu.txt").write_text(smi.stdout + smi.stderr)
    print(smi.stdout.strip(), flush=True)
    failed = 0
    for name, s in steps:
        folder = work / name.replace(":", "_").replace(",", "_")
        folder.mkdir(parents=True, exist_ok=True)
        argv = [a.replace("{w}", str(folder)) for a in s.argv]
        env = {**os.environ, "PYTHONUNBUFFERED": "1",
               **{k: v.replace("{w}", str(folder)) for k, v in s.env}}
        t0 = time.monotonic()
        with open(folder.with_suffix(".log"), "w") as log:
            try:
                rc = subprocess.run(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                    timeout=s.limit_s, check=False).returncode
            except subprocess.TimeoutExpired:
                rc = 124
        failed += rc != 0
        tail = folder.with_suffix(".log").read_text(errors="replace").splitlines()[-25:]
        print(f"== {name}: exit {rc} after {time.monotonic() - t0:.0f} s "
              f"(limit {s.limit_s:.0f} s)\n" + "\n".join(tail), flush=True)
        pack(out)
    return failed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("steps", nargs="*", help="steps to run, in order")
    ap.add_argument("--out", help="folder for the recordings (the device's $OUT)")
    ap.add_argument("--list", action="store_true", help="list the steps and exit")
    a = ap.parse_args(argv)
    if a.list or not a.steps:
        for name, s in STEPS.items():
            print(f"{name:13s} {s.limit_s:4.0f} s  {s.what}")
        print(f"{'labs[:A,B]':13s} 90 s a lab  the labs (python -m labs run NAME)")
        return 0
    if not a.out:
        ap.error("--out is needed to run steps")
    return 1 if run(a.steps, pathlib.Path(a.out)) else 0


if __name__ == "__main__":
    sys.exit(main())
