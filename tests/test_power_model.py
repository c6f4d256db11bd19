"""labs.power_model: the fit recovers a made-up card's a and e, the prediction solves the
power limit by hand, and bad input is refused (no GPU, no recorded run needed)."""
import pytest

from labs import power_model as pm


def _run(flops_per_cycle, a=150e-9, e=0.4e-12, idle=80.0, limit=700.0, top=1.98e9):
    """A made-up product: the clock the model's own limit allows, and its power there."""
    f = min(top, (limit - idle) / (a + e * flops_per_cycle))
    return {"workload": "matmul FP16 tensor", "sm_clock_hz": f,
            "flops": flops_per_cycle * f, "power_w": idle + f * (a + e * flops_per_cycle)}


def test_fit_recovers_a_and_e():
    rows = [_run(c) for c in (1e5, 2e5, 3e5)]          # all under the limit at 1.98 GHz
    assert all(r["sm_clock_hz"] == 1.98e9 for r in rows)
    a, e = pm.fit(rows, 80.0)
    assert a == pytest.approx(150e-9, rel=1e-9) and e == pytest.approx(0.4e-12, rel=1e-9)


def test_prediction_solves_the_limit_by_hand():
    # 620 W of headroom over 150e-9 + 0.4e-12 x 5e5 = 350e-9 W/Hz: 1.771 GHz.
    row = {"flops": 5e5 * 1.5e9, "sm_clock_hz": 1.5e9}
    f = pm.predicted_clock(row, 150e-9, 0.4e-12, 80.0, 700.0, 1.98e9)
    assert f == pytest.approx(620 / 350e-9)


def test_whole_test_on_a_made_up_result():
    rows = [dict(_run(c), n=n) for n, c in ((1024, 1e5), (2048, 2e5), (4096, 3e5), (8192, 5e5))]
    result = {"lab": "power_model", "rows": rows,
              "summary": {"idle_power_w": 80.0, "power_limit_w": 700.0, "max_sm_clock_hz": 1.98e9}}
    out = pm.prediction_rows(result)
    assert [r["fitted"] for r in out] == [True, True, True, False]
    assert out[-1]["predicted_clock_hz"] == pytest.approx(out[-1]["measured_clock_hz"])
    # every made-up run lies on the model, so its cost per cycle is the line's
    assert [r["over_line"] for r in out] == pytest.approx([1.0] * 4)
    assert pm.fit_unthrottled(result) == pytest.approx((150e-9, 0.4e-12), rel=1e-9)


def test_fit_of_the_recorded_h200_run_by_hand():
    """The recorded run's fit, by the closed-form least-squares line over the tensor runs that
    held the top clock, worked here from the JSON without numpy."""
    import json
    import pathlib

    run = json.loads((pathlib.Path(__file__).resolve().parents[1] / "labs" / "results"
                      / "H200" / "power_model.json").read_text())
    idle, top = run["summary"]["idle_power_w"], run["summary"]["max_sm_clock_hz"]
    train = [r for r in run["rows"] if r["workload"] == "matmul FP16 tensor"
             and r["sm_clock_hz"] == top]
    xs = [r["flops"] / r["sm_clock_hz"] for r in train]
    ys = [(r["power_w"] - idle) / r["sm_clock_hz"] for r in train]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    e = (sum((x - mx) * (y - my) for x, y in zip(xs, ys))
         / sum((x - mx) ** 2 for x in xs))
    a = my - e * mx
    assert pm.fit_unthrottled(run) == pytest.approx((a, e), rel=1e-9)


def test_bad_input():
    with pytest.raises(ValueError, match="two"):
        pm.fit([_run(1e5)], 80.0)
    with pytest.raises(ValueError, match="different"):
        pm.fit([_run(1e5), _run(1e5)], 80.0)
    with pytest.raises(ValueError, match="idle_w"):
        pm.fit([_run(1e5), _run(2e5)], -1.0)
    with pytest.raises(ValueError, match="power_model"):
        pm.prediction_rows({"lab": "clocks"})
