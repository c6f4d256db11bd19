"""Run the Labs I experiments on a GPU machine, quick then full, and print a short table.

    python3 scripts/labs_device.py OUTDIR [MODE ...]

MODE is quick or full, optionally with labs and keyword arguments: ``full:intensity:waves=0``
runs only the intensity lab, full, with waves=0 (results under OUTDIR/full_waves0/). Each
mode runs in its own process (a crash in one cannot spoil the other); results go to
OUTDIR/<mode>/<gpu>/<lab>.json, wall times to OUTDIR/<mode>/times.json, and everything is
packed into OUTDIR/labs.tgz after every lab (what a time limit leaves still comes back).
"""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import tarfile
import time
import traceback

LABS = ("intensity", "paradox", "ops_on_roof", "linear_batch", "fusion", "pcie", "clocks")


def pack(out: pathlib.Path) -> None:
    tmp = out / "labs.tgz.part"
    with tarfile.open(tmp, "w:gz") as tar:
        for d in sorted(out.iterdir()):
            if d.is_dir():
                tar.add(d, arcname=d.name)
    tmp.rename(out / "labs.tgz")


def parse(mode: str) -> tuple[str, str, tuple[str, ...], dict]:
    """'full:intensity,paradox:waves=0' -> (folder, 'full', labs, {'waves': 0})."""
    parts = mode.split(":")
    names = tuple(parts[1].split(",")) if len(parts) > 1 and parts[1] else LABS
    kw = dict(p.split("=") for p in parts[2].split(",")) if len(parts) > 2 else {}
    kw = {k: int(v) if v.lstrip('-').isdigit() else v for k, v in kw.items()}
    folder = parts[0] + "".join(f"_{k}{v}" for k, v in kw.items())
    return folder, parts[0], names, kw


def one(out: pathlib.Path, mode: str) -> None:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    import labs
    from labs import results

    folder, speed, names, kw = parse(mode)
    mode = folder
    times = {}
    for name in names:
        t0 = time.perf_counter()
        try:
            res = labs.module(name).run(quick=speed == "quick", **kw)
            times[name] = time.perf_counter() - t0
            path = results.save(res, out / mode)
            print(f"[{mode}] {name}: {times[name]:.1f} s -> {path}", flush=True)
            for k, v in res["summary"].items():
                print(f"    {k} = {v}", flush=True)
        except Exception:
            times[name] = None
            print(f"[{mode}] {name}: FAILED after {time.perf_counter() - t0:.1f} s", flush=True)
            traceback.print_exc()
        (out / mode).mkdir(parents=True, exist_ok=True)
        (out / mode / "times.json").write_text(json.dumps(times))
        pack(out)


def table(out: pathlib.Path) -> None:
    print("\n== Labs I on this GPU ==")
    modes = sorted(d.name for d in out.iterdir() if d.is_dir())
    for mode in modes:
        f = out / mode / "times.json"
        if f.exists():
            t = json.loads(f.read_text())
            print(f"{mode:5s} " + "  ".join(f"{k}={v:.1f}s" if v else f"{k}=FAIL" for k, v in t.items()))
    for mode in modes:
        for p in sorted((out / mode).glob("*/intensity.json")):
            r = json.loads(p.read_text())
            s = r["summary"]
            worst = max((abs(x["model_ratio"] - 1) for x in r["rows"]
                         if x.get("kind") == "knob" and not x["near_ridge"]), default=None)
            print(f"{mode}: stream/copy = {s['stream_bandwidth']:.4g}/{s['copy_bandwidth']:.4g} = "
                  f"{s['stream_bandwidth'] / s['copy_bandwidth']:.3f}; fma/clock_peak = "
                  f"{s['fma_flops']:.4g}/{s['fma_clock_peak']:.4g} = "
                  f"{s['fma_flops'] / s['fma_clock_peak']:.3f}; knob worst |t/model-1| off-ridge = "
                  f"{worst}; ridge {s['ridge_measured']:.3g}")
            for x in r["rows"]:
                if x.get("kind") == "knob":
                    print(f"   k={x['k']:5d} I={x['intensity']:7.2f} t={x['seconds'] * 1e3:8.3f} ms "
                          f"model={x['model_seconds'] * 1e3:8.3f} ratio={x['model_ratio']:.3f}"
                          f"{' (near ridge)' if x['near_ridge'] else ''} [{x.get('launch')}] "
                          + " ".join(f"{key[8:]}={v / x['model_seconds']:.3f}" for key, v in x.items()
                                     if key.startswith("seconds_")))


def main() -> int:
    out = pathlib.Path(sys.argv[1])
    if sys.argv[2:3] == ["--one"]:  # one mode, in this process
        one(out, sys.argv[3])
        return 0
    for mode in sys.argv[2:] or ["quick", "full"]:
        subprocess.run([sys.executable, __file__, str(out), "--one", mode])
        folder = parse(mode)[0]
        again = 2
        while (out / f"{folder}_run{again}").exists():
            again += 1
        if (out / folder).exists() and sys.argv[2:].count(mode) > 1:  # repeats keep apart
            (out / folder).rename(out / f"{folder}_run{again}")
    table(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
