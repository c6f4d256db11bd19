"""Chapter 9's power model tested out of sample, on runs that draw different power on their own.

The model: board power W = W_idle + f (a + e R/f), with f the SM clock (Hz), R the FLOP rate
(FLOP/s), R/f the FLOPs the work completes per cycle, a a cost per cycle that does not depend on
the arithmetic (W/Hz) and e an energy per FLOP (J). Under a power limit L the card runs at
f = min(f_max, (L - W_idle) / (a + e R/f)).

The test, with no change to the GPU's settings: matrix products of several sizes held for
seconds draw different power at the same settings, because small ones leave gaps and complete
fewer FLOPs a cycle. Those that stay under the limit at the top clock fix a and e (a straight
line of (W - W_idle)/f against R/f); the model then predicts, for each product that hit the
limit, the clock it should have held, from its own FLOPs a cycle alone. The recorded run is
made by ``labs/power_model_time.py`` (``labs/results/<gpu>/power_model.json``).
"""
from __future__ import annotations

import numpy as np

#: A run counts as unthrottled when its clock is within this share of the top clock.
TOP_CLOCK_SHARE = 0.99


def fit(rows: list[dict], idle_w: float) -> tuple[float, float]:
    """(a W/Hz, e J/FLOP) by least squares of (W - W_idle)/f = a + e (R/f) over ``rows``
    (each with ``power_w``, ``sm_clock_hz``, ``flops``); needs two distinct R/f."""
    if not idle_w >= 0:
        raise ValueError(f"idle_w must be >= 0 watts; got {idle_w!r}")
    if len(rows) < 2:
        raise ValueError(f"rows must hold at least two unthrottled runs; got {len(rows)}")
    x = np.array([r["flops"] / r["sm_clock_hz"] for r in rows], float)
    y = np.array([(r["power_w"] - idle_w) / r["sm_clock_hz"] for r in rows], float)
    if np.ptp(x) <= 0:
        raise ValueError("rows need at least two different FLOPs per cycle to separate a and e")
    e, a = np.polyfit(x, y, 1)
    return float(a), float(e)


def predicted_clock(row: dict, a: float, e: float, idle_w: float, limit_w: float,
                    max_clock_hz: float) -> float:
    """The clock (Hz) the model gives a run with ``row``'s FLOPs a cycle under ``limit_w``."""
    per_cycle = a + e * row["flops"] / row["sm_clock_hz"]
    if per_cycle <= 0:
        raise ValueError("a + e R/f must be positive watts per hertz")
    return min(max_clock_hz, (limit_w - idle_w) / per_cycle)


def _runs(result: dict, workload: str) -> tuple[list[dict], list[dict]]:
    """``workload``'s rows of a recorded ``power_model`` result, and those at the top clock."""
    if result.get("lab") != "power_model":
        raise ValueError("result must be a power_model lab result")
    top = result["summary"]["max_sm_clock_hz"]
    runs = [r for r in result["rows"] if r.get("workload") == workload]
    return runs, [r for r in runs if r["sm_clock_hz"] >= TOP_CLOCK_SHARE * top]


def fit_unthrottled(result: dict, workload: str = "matmul FP16 tensor") -> tuple[float, float]:
    """(a W/Hz, e J/FLOP) fitted to ``workload``'s runs that held the top clock."""
    _, train = _runs(result, workload)
    return fit(train, result["summary"]["idle_power_w"])


def prediction_rows(result: dict, workload: str = "matmul FP16 tensor") -> list[dict]:
    """Fit on ``workload``'s unthrottled runs of a recorded ``power_model`` result and predict
    every run's clock; rows with the measured and the predicted clock, whether the run was
    used for the fit, and the measured cost per cycle (W - W_idle)/f over the fitted line's
    a + e R/f (``over_line``, 1 on the line)."""
    runs, train = _runs(result, workload)
    s = result["summary"]
    idle, limit, top = s["idle_power_w"], s["power_limit_w"], s["max_sm_clock_hz"]
    a, e = fit(train, idle)
    return [{"n": r.get("n"), "power_w": r["power_w"], "flops": r["flops"],
             "measured_clock_hz": r["sm_clock_hz"], "fitted": r in train,
             "predicted_clock_hz": predicted_clock(r, a, e, idle, limit, top),
             "over_line": (r["power_w"] - idle) / r["sm_clock_hz"]
             / (a + e * r["flops"] / r["sm_clock_hz"])} for r in runs]
