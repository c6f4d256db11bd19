"""The Labs II bars (issue 5), read off recorded results and printed as a short table.

    python3 scripts/labs2_bars.py [RESULTS_DIR ...]

Each RESULTS_DIR holds <gpu>/<lab>.json (and, from scripts/labs_device.py, times.json);
default: labs/results. Nothing here measures; it only reads and compares.
"""
from __future__ import annotations

import json
import pathlib
import sys

LABS2 = ("divergence", "latency", "littles_law", "coalescing", "waves", "attention")


def _within(x, target, tol) -> bool:
    return x is not None and abs(x / target - 1) <= tol


def bars(lab: str, r: dict) -> list[tuple[str, str, bool | None]]:
    """(bar, measured figure, held?) for one lab's result."""
    s, rows, out = r["summary"], r["rows"], []
    if lab == "divergence":
        w, b = s["within_warp_slowdown"], s["between_warp_slowdown"]
        for p in ("2", "4"):
            out.append((f"through every warp, P={p}: within 15% of {p}", f"{w.get(p, 0):.3f}x",
                        _within(w.get(p), int(p), 0.15)))
        out.append(("between warps within 10% of 1", ", ".join(f"P={k}: {v:.3f}" for k, v in b.items()),
                    all(_within(v, 1, 0.10) for v in b.values())))
        out.append(("one busy thread in 32 within 10% of all busy", f"{s['one_in_32_vs_all']:.3f}",
                    _within(s["one_in_32_vs_all"], 1, 0.10)))
    elif lab == "latency":
        c = s["latency_cycles"]
        for lvl, lo, hi in (("l1", 20, 60), ("l2", 150, 400), ("dram", 450, 1000)):
            v = c.get(lvl)
            out.append((f"{lvl} in [{lo}, {hi}] cycles", f"{v:.0f} cycles, {s['latency_ns'][lvl]:.0f} ns"
                        if v else "missing", v is not None and lo <= v <= hi))
        ok = all(k in c for k in ("l1", "l2", "dram")) and c["l2"] > 2 * c["l1"] and c["dram"] > 1.5 * c["l2"]
        out.append(("three distinct plateaus", "l2/l1 = %.1f, dram/l2 = %.1f" % (
            c["l2"] / c["l1"], c["dram"] / c["l2"]) if ok or len(c) == 3 else "missing", ok))
    elif lab == "littles_law":
        col = [x for x in rows if x.get("experiment") == "collapse"]
        worst = max((x["spread"] for x in col), default=None)
        out.append(("L=1,2,4,8 at equal bytes in flight within 20% (below saturation)",
                    f"worst max/min {worst:.3f} over {len(col)} points" if worst else "no points",
                    worst is not None and worst <= 1.2))
        copy = r["params"]["copy_bandwidth"]
        out.append(("saturation >= 85% of the copy", f"{s['saturation_bandwidth'] / 1e12:.2f} / "
                    f"{copy / 1e12:.2f} TB/s = {s['saturation_bandwidth'] / copy:.3f}",
                    s["saturation_bandwidth"] >= 0.85 * copy))
        out.append(("bytes in flight at saturation; one SM", f"{s['bytes_in_flight_at_saturation'] / 1e6:.2f} MB;"
                    f" {s['one_sm_bandwidth'] / 1e9:.0f} GB/s", None))
        for x in rows:
            if x.get("experiment") in ("idle_latency", "loaded_latency"):
                out.append((x["experiment"], f"{x['latency_ns']:.0f} ns"
                            + (f" beside {x['stream_bandwidth'] / 1e12:.2f} TB/s"
                               if "stream_bandwidth" in x else ""), None))
    elif lab == "coalescing":
        st = [x for x in rows if x.get("experiment") == "stride" and x["stride"] <= 16]
        for place in ("l2", "dram"):
            sel = [x for x in st if x["placement"] == place]
            out.append((f"{place}: useful bandwidth within 25% of the model up to stride 16",
                        ", ".join(f"{x['stride']}: {x['ratio_to_model']:.2f}" for x in sel),
                        bool(sel) and all(abs(x["ratio_to_model"] - 1) <= 0.25 for x in sel)))
        g = {x["order"]: x["useful_bandwidth"] for x in rows if x.get("experiment") == "gather"}
        out.append(("gather random vs in order", f"{g.get('random', 0) / 1e9:.0f} vs "
                    f"{g.get('sequential', 0) / 1e9:.0f} GB/s", None))
    elif lab == "attention":
        gr = {x["impl"]: x["exponent"] for x in rows if x.get("kind") == "growth"}
        out.append(("naive peak memory ~ S^2", f"exponent {gr.get('naive', float('nan')):.2f}",
                    "naive" in gr and 1.8 <= gr["naive"] <= 2.2))
        out.append(("SDPA peak memory ~ S", f"exponent {gr.get('sdpa', float('nan')):.2f}",
                    "sdpa" in gr and 0.8 <= gr["sdpa"] <= 1.2))
        checked = [x for x in rows if x.get("available")]
        worst = max((x["rel_error"] for x in checked), default=None)
        out.append(("outputs agree with float64 (rel err <= 1e-2)",
                    f"worst {worst:.2e} over {len(checked)} runs" if worst is not None else "none",
                    worst is not None and all(x["ok"] for x in checked)))
    elif lab == "waves":
        out.append(("best; fine-sweep max/min", f"{s['best_flops'] / 1e12:.0f} TFLOP/s; "
                    f"{s['fine_sweep_max_over_min']:.2f}", None))
    return out


def report(base: pathlib.Path) -> None:
    times = json.loads((base / "times.json").read_text()) if (base / "times.json").exists() else {}
    for lab in LABS2:
        for path in sorted(base.glob(f"*/{lab}.json")):
            r = json.loads(path.read_text())
            if r["context"].get("reference"):
                continue
            t = times.get(lab)
            print(f"{base.name}/{path.parent.name} {lab}" + (f" ({t:.1f} s)" if t else ""))
            for name, fig, ok in bars(lab, r):
                mark = {True: "PASS", False: "FAIL", None: "    "}[ok]
                print(f"  {mark} {name}: {fig}")


def main(argv: list[str]) -> int:
    dirs = [pathlib.Path(a) for a in argv] or [pathlib.Path(__file__).resolve().parents[1] / "labs" / "results"]
    for d in dirs:
        try:
            report(d)
        except Exception as e:  # a missing or partial result: say so, keep going
            print(f"{d}: {type(e).__name__}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
