"""On a GPU: the same wrong SAXPY kernels the simulator fails (a truncated grid, a missing
bounds check, a grid hard-coded for the simulator's size, a "kernel" done with numpy on
the host) through ``collect --gpu`` and ``judge``, beside the right one; each verdict and
its first wrong element recorded. Issue 32's "several sizes, one verdict": each wrong
kernel must fail here as it does under the simulator (tests/test_challenge_engine.py).

    python3 -m labs.challenges.engine_gpu_check --out $OUT      # writes $OUT/engine_gpu_check.json

torch + numba-cuda only; well under a minute. Copy the JSON to
labs/results/<gpu>/engine_gpu_check.json.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import platform
import sys
import tempfile
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[2]

SAXPY = '''from numba import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


def launch(a, x, y, out):
    threads = 256
    saxpy[(x.size + threads - 1) // threads, threads](a, x, y, out)
'''
#: Wrong saxpy submissions, each one edit away from SAXPY (which is right).
WRONG = {
    "truncated": SAXPY.replace("(x.size + threads - 1) // threads", "x.size // threads"),
    "unbounded": SAXPY.replace("    if i < x.size:\n        out[i]", "    out[i]"),
    "hardcoded": SAXPY.replace("(x.size + threads - 1) // threads", "4"),
    "host": SAXPY.replace("    saxpy[(x.size + threads - 1) // threads, threads](a, x, y, out)",
                          "    out.copy_to_device(a * x.copy_to_host() + y.copy_to_host())"),
}
SEED = 20261204


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    from labs.challenges.collect import collect
    from labs.challenges.harness import device_name
    from labs.challenges.judge import judge

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, text in {"right": SAXPY, **WRONG}.items():
            path = pathlib.Path(tmp) / f"{label}.py"
            path.write_text(text)
            t0 = time.perf_counter()
            try:
                arrays, meta = collect("saxpy", path, SEED, gpu=True)
                v = judge("saxpy", {**arrays, "meta": meta}, SEED)
                rows.append({"kernel": label, "passed": v["passed"],
                             "first_wrong": v["first_wrong"], "sizes": meta["sizes"],
                             "launches": meta["launches"],
                             "host_transfers": meta["host_transfers"],
                             "seconds": time.perf_counter() - t0})
            except Exception:  # recorded, so one failure does not lose the others
                rows.append({"kernel": label, "error": traceback.format_exc()[-2000:]})
            print(json.dumps(rows[-1])[:300], flush=True)
    expected = {"right": True, **{k: False for k in WRONG}}
    result = {"lab": "engine_gpu_check",
              "context": {"device": device_name(), "python": platform.python_version(),
                          "seed": SEED},
              "rows": rows,
              "summary": {"same_verdict_as_simulator": all(
                  r.get("passed") is expected[r["kernel"]] for r in rows)}}
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "engine_gpu_check.json").write_text(json.dumps(result, indent=1))
    print(json.dumps(result["summary"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
