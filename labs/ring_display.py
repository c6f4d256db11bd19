"""The CPU collectives lab's recorded run as a table: one row per algorithm and process
count, with the fitted alpha and beta of chapter 11's model (see :mod:`labs.ring`)."""
from __future__ import annotations

from perfmodel import units

#: How each algorithm is named on the page, in the order the table lists them.
NAMES = {"naive": "naive root (the starter)", "tree": "binomial tree", "ring": "ring",
         "gloo": "gloo's own all_reduce (counted as a ring)"}


def fit_rows(run: dict) -> list[dict]:
    """Table rows (strings) from a ``ring`` lab result: algorithm, processes, fitted start-up
    a step, fitted rate, and the best bus bandwidth measured."""
    if not isinstance(run, dict) or run.get("lab") != "ring":
        raise ValueError("run must be a result of the ring lab (labs.ring)")
    s = run["summary"]
    rows = []
    for n in sorted({r["ranks"] for r in run["rows"]}):
        for alg, name in NAMES.items():
            if f"{alg}_{n}_best_busbw" not in s:
                continue
            fitted = f"{alg}_{n}_alpha_s" in s
            rows.append({
                "all-reduce": name, "processes": str(n),
                "fitted α a step": units.seconds(s[f"{alg}_{n}_alpha_s"]) if fitted else "no fit",
                "fitted β": units.bandwidth(s[f"{alg}_{n}_beta"]) if fitted else "no fit",
                "best bus bandwidth": units.bandwidth(s[f"{alg}_{n}_best_busbw"])})
    return rows


def caption(run: dict) -> str:
    """What the table is, where and when it was measured, in one sentence."""
    ctx = run["context"]
    return (f"All-reduces across CPU processes over gloo ({ctx.get('transport', 'loopback')}), "
            f"recorded {str(ctx.get('date', ''))[:10]} on a {ctx.get('cpu_count', '?')}-core "
            f"computer under a load average of {ctx.get('load_average_1min', float('nan')):.1f}: "
            "no GPU and no NVLink; t = α·steps + bytes/β fitted with each algorithm's counts")
