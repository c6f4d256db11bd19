"""Issue 35, chapters 6-8: the H200 measurements the chapters read, in one run.

Run on the device machine from the repository root (torch, numba-cuda; no plotly):

    python3 -m labs.part2a_on_device --out OUT

Four parts, each in its own try/except (a failure is written into the summary and the
next part still runs):

1. ``divergence``: the divergence lab (labs/divergence.py, its loop now a constant-trip
   inner loop of 32 multiply-adds), full size, then the SASS of its two kernels
   (``kernel.inspect_sass()``, or ``cuobjdump -sass`` on the cubin where that fails), with
   the GPU, driver and numba versions above the listing. Writes
   OUT/<gpu>/divergence.json and OUT/<gpu>/divergence_sass.txt.
2. ``coalescing``: the coalescing lab, full size, plus the DRAM strided reads and the
   random gather again at L2 fetch granularities of 64 (the default), 32 and 128 bytes,
   the limit set inside this process with cudaDeviceSetLimit (labs/l2fetch.py: cuda-python,
   else ctypes on libcudart, else the driver's cuCtxSetLimit), read back and recorded,
   and restored afterwards. Writes OUT/<gpu>/coalescing.json.
3. ``transpose``: the profile lab's transpose lesson under ncu (labs/profile.py; ncu from
   $NCU, the PATH or /usr/local/cuda/bin/ncu): the naive, the tiled (32 x 33) and the
   unpadded tiled (32 x 32) 8192 x 8192 FP32 transpose: store sectors per request, store
   sectors from L1 to the L2, DRAM bytes read and written, shared-memory passes per load,
   kernel time. Writes OUT/<gpu>/profile_transpose.json and ncu's raw
   CSV under OUT/ncu_raw_transpose/.
4. ``stalls``: the profile lab's stalls lesson under ncu: chapter 7's latency kernels
   (the pointer chaser and the streaming read at 2 to 64 warps an SM) with the schedulers'
   issue-active share, eligible warps a cycle and long-scoreboard cycles per issued
   instruction. Writes OUT/<gpu>/profile_stalls.json and ncu's CSV under
   OUT/ncu_raw_stalls/.

Also OUT/part2a_on_device.json: for each part, ok or the error with its traceback, its
seconds, and the few figures the chapters quote (so a glance says whether it worked).
Budget: about 20 s for part 1 (compiling included), 30 s for part 2, 60-90 s for parts 3
and 4 each (ncu replays each kernel once per pass); under 5 minutes in all. Copy OUT/<gpu>/* into
labs/results/<gpu>/ (for the H200: labs/results/H200/).
"""
from __future__ import annotations

import argparse
import importlib
import json
import pathlib
import sys
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: L2 fetch granularities to measure (bytes): the default first.
GRANULARITIES = (64, 32, 128)
#: The longest the ncu part may take (s).
NCU_TIMEOUT_S = 150


def divergence_part(out: pathlib.Path) -> dict:
    from labs import divergence, results, sass
    from labs.gpu import context

    res = divergence.run()
    path = results.save(res, out)
    kern = divergence.kernels()
    listings = {name: sass.capture(getattr(kern, name)) for name in ("diverge", "one_in_k")}
    ctx = context()
    note = ("SASS of labs/divergence.py's kernels as compiled for this GPU by numba-cuda "
            f"(the loop: {divergence.UNROLL} multiply-adds a turn of the outer loop)")
    text = sass.record_text(listings, ctx, note)
    sass_path = path.parent / "divergence_sass.txt"
    sass_path.write_text(text)
    loops = sass.work_loops(listings["one_in_k"][0])
    return {"files": [str(path), str(sass_path)], "how": {k: v[1] for k, v in listings.items()},
            "one_in_k_loops": loops, "summary": res["summary"]}


def coalescing_part(out: pathlib.Path) -> dict:
    from labs import coalescing, results

    res = coalescing.run(fetch_granularities=GRANULARITIES)
    path = results.save(res, out)
    return {"files": [str(path)], "fetch_granularity": res["summary"].get("fetch_granularity"),
            "useful_bandwidth_by_stride": res["summary"]["useful_bandwidth_by_stride"]}


def profiled_part(lesson: str, out: pathlib.Path) -> dict:
    """One of the profile lab's EXTRA_LESSONS under ncu, recorded apart (its own lab name)."""
    from labs import results

    profile = importlib.import_module("labs.profile")
    profile.LESSON_TIMEOUT_S = NCU_TIMEOUT_S
    res = profile.run(lessons=(lesson,), raw_dir=str(out / f"ncu_raw_{lesson}"))
    res["lab"] = profile.EXTRA_RECORDS[lesson]
    path = results.save(res, out)
    return {"files": [str(path)],
            "rows": [{k: r.get(k) for k in ("case", "counter", "measured", "predicted")}
                     for r in res["rows"]]}


def transpose_part(out: pathlib.Path) -> dict:
    return profiled_part("transpose", out)


def stalls_part(out: pathlib.Path) -> dict:
    return profiled_part("stalls", out)


PARTS = (("divergence", divergence_part), ("coalescing", coalescing_part),
         ("transpose", transpose_part), ("stalls", stalls_part))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="folder for the results")
    ap.add_argument("--only", nargs="*", choices=[p[0] for p in PARTS],
                    help="run only these parts (default: all)")
    a = ap.parse_args(argv)
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    summary: dict = {"script": "labs/part2a_on_device.py", "parts": {}}
    t_all = time.time()
    for name, fn in PARTS:
        if a.only and name not in a.only:
            continue
        t0 = time.time()
        print(f"[part2a] {name} ...", flush=True)
        try:
            summary["parts"][name] = {"ok": True, **fn(out)}
        except BaseException as exc:             # noqa: BLE001 - recorded, the next part runs
            if isinstance(exc, KeyboardInterrupt):
                raise
            summary["parts"][name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}",
                                      "traceback": traceback.format_exc()[-4000:]}
        summary["parts"][name]["seconds"] = round(time.time() - t0, 1)
        print(f"[part2a] {name}: {'ok' if summary['parts'][name]['ok'] else 'FAILED'} "
              f"in {summary['parts'][name]['seconds']} s", flush=True)
        (out / "part2a_on_device.json").write_text(json.dumps(summary, indent=1, default=str))
    summary["seconds"] = round(time.time() - t_all, 1)
    (out / "part2a_on_device.json").write_text(json.dumps(summary, indent=1, default=str))
    print(json.dumps({k: {"ok": v["ok"], "seconds": v["seconds"], "error": v.get("error")}
                      for k, v in summary["parts"].items()}, indent=1))
    return 0 if all(v["ok"] for v in summary["parts"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
