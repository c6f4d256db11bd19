"""Every lab's plot of its recorded results draws every trace it holds: a trace whose x
values are names (bars by case) must sit on a category axis, not a linear or log one
(plotly draws nothing there), and a numeric trace on a log axis needs positive values."""
import pytest

import labs

#: Labs with no run recorded yet, and where their plot is drawn instead.
UNRECORDED = {"comm": "no multi-GPU machine was lent yet; tests/test_labs_comm.py draws "
                      "made-up one- and eight-GPU runs and the model alone"}


def _recorded(name):
    results = labs.list_recorded(name)
    if not results and name in UNRECORDED:
        pytest.skip(UNRECORDED[name])
    return results


def _axis(fig, trace, letter):
    ref = getattr(trace, f"{letter}axis") or letter
    name = ref.replace(letter, f"{letter}axis", 1)
    return fig.layout[name]


@pytest.mark.parametrize("name", labs.available())
def test_every_trace_is_drawable(name):
    results = _recorded(name)
    assert results, f"no recorded results for {name}"
    fig = labs.module(name).plot(results)
    assert fig.data, f"{name}'s plot has no traces"
    for tr in fig.data:
        xs = [x for x in (tr.x if tr.x is not None else []) if x is not None]
        ys = [y for y in (tr.y if tr.y is not None else []) if y is not None]
        if xs and all(isinstance(x, str) for x in xs):
            assert _axis(fig, tr, "x").type in (None, "-", "category"), \
                f"{name}: trace {tr.name!r} has named x values on a {_axis(fig, tr, 'x').type} axis"
        for letter, vals in (("x", xs), ("y", ys)):
            if _axis(fig, tr, letter).type == "log" and vals and not isinstance(vals[0], str):
                assert any(v > 0 for v in vals), \
                    f"{name}: trace {tr.name!r} has no positive {letter} on a log axis"


def _line_color(tr):
    line = getattr(tr, "line", None)
    marker = getattr(tr, "marker", None)
    return (line.color if line is not None and line.color else None) or \
        (marker.color if marker is not None and isinstance(marker.color, str) else None)


@pytest.mark.parametrize("name", labs.available())
def test_the_runs_series_are_told_apart_by_colour(name):
    """Within one panel, no two measured series (traces with markers) of the same run share
    a colour: a reader matches legend to line by colour (model curves, grey and dashed, and
    a run's own guide lines, such as linear_batch's measured bend, are left out)."""
    from labs import plotting

    results = _recorded(name)
    fig = labs.module(name).plot(results)
    for result in results:
        label = plotting.label(result)
        seen = {}
        for tr in fig.data:
            if (tr.type != "scatter" or "markers" not in (tr.mode or "")
                    or not (tr.name or "").startswith(label)):
                continue
            key = (tr.xaxis or "x", _line_color(tr))
            assert key not in seen, \
                f"{name}: {tr.name!r} and {seen[key]!r} share a colour in one panel"
            seen[key] = tr.name


# ------------------------------------------ roofs that are bounds, references that are not

def _trace(fig, start):
    return [tr for tr in fig.data if (tr.name or "").startswith(start)]


def test_ops_on_roof_judges_each_op_against_the_datasheet_bound():
    """The H200 run's ops as a share of min(P, I x B) from the H200 datasheet (FP32 66.9
    TFLOP/s, dense FP16 tensor 989 TFLOP/s, 4.8 TB/s): every share is at most 1, though
    the add beat the run's own copy (its recorded fraction_of_roof is above 1)."""
    from labs import ops_on_roof
    from perfmodel import machines

    r = labs.load("ops_on_roof", "H200")
    h200 = machines.get("H200")
    add = next(x for x in r["rows"] if x.get("op") == "add")
    assert add["fraction_of_roof"] > 1                       # past the copy reference
    assert ops_on_roof.datasheet_share(add, h200) == pytest.approx(
        add["flops"] / (4.8e12 / 12), rel=1e-9)              # 1 FLOP per 12 bytes
    mm = next(x for x in r["rows"] if x.get("op") == "matmul 4096 fp16")
    assert mm["fraction_of_roof"] == 1.0                     # the sweep's own fastest point
    assert ops_on_roof.datasheet_share(mm, h200) == pytest.approx(mm["flops"] / 989e12, rel=1e-3)
    shares = [ops_on_roof.datasheet_share(x, h200) for x in r["rows"] if x.get("kind") == "op"]
    assert all(s is not None and 0 < s <= 1 for s in shares)
    assert ops_on_roof.datasheet_share(add, None) is None
    assert ops_on_roof.datasheet_share({"op": "x", "unit": None}, h200) is None


def test_ops_on_roof_draws_references_apart_from_the_bounds():
    """Top panel: the datasheet bounds (dashed) reach 989 TFLOP/s; the measured references
    (dotted) are the one measured H200's copy and FMA rates (labs.profile); the FP16 reference is the clocks lab's held
    rate, not the fastest matmul of the sweep it is drawn over."""
    from labs import ops_on_roof

    r = labs.load("ops_on_roof", "H200")
    fig = ops_on_roof.plot(labs.list_recorded("ops_on_roof"))
    bounds = _trace(fig, "bounds: datasheet")
    assert bounds and all(tr.line.dash == "dash" for tr in bounds)
    assert max(max(tr.y) for tr in bounds) == pytest.approx(989e12, rel=1e-3)
    ref = _trace(fig, "reference lines: the measured H200's copy")
    assert len(ref) == 1 and ref[0].line.dash == "dot"
    # the one measured H200 (the intensity lab's FMA kernel), not this sweep's own FMA run
    fma = labs.load("intensity", "H200")["summary"]
    assert max(ref[0].y) == pytest.approx(fma["fma_flops"])
    assert max(ref[0].y) != pytest.approx(r["summary"]["fma_flops"])
    held = _trace(fig, "reference line: FP16 tensor rate held")
    assert len(held) == 1
    clocks = labs.load("clocks", "H200")["summary"]["tensor_fp16_flops"]
    assert list(held[0].y) == [clocks, clocks]
    assert clocks < r["summary"]["tensor_fp16_flops"]     # the sweep's burst passes it
    assert not any(max(tr.y or [0]) == r["summary"]["tensor_fp16_flops"]
                   for tr in fig.data if tr.type == "scatter" and tr.mode == "lines")
    bars = [tr for tr in fig.data if tr.type == "bar"]
    assert bars[0].name.endswith("% of the datasheet bound") and max(bars[0].x) <= 100
    assert bars[1].name.endswith("% of its measured roofs")   # the T4 note gives only those


def test_linear_batch_draws_the_datasheet_bound_under_every_point():
    """The layer's datasheet floor max(F/P, D/B) at 989 TFLOP/s and 4.8 TB/s lies under
    every measured time; the reference from the run's 8192^3 matmul rate and the measured
    H200's copy does not (batch
    2048 ran faster than that matmul's rate), which is why it is drawn as a reference."""
    from labs import linear_batch
    from perfmodel import ops

    r = labs.load("linear_batch", "H200")
    fig = linear_batch.plot(labs.list_recorded("linear_batch"))
    (bound,) = _trace(fig, "bound: max(F/P, D/B)")
    (ref,) = _trace(fig, "reference: the same")
    assert ref.line.dash == "dot" and bound.line.dash == "dash"
    rows = [x for x in r["rows"] if x["kind"] == "linear"]
    for x, floor in zip(rows, bound.y):
        op = ops.linear(x["batch"], 4096, 4096, "fp16")
        assert floor == pytest.approx(max(op.flops / 989.4e12, op.bytes / 4.8e12), rel=2e-3)
        assert x["seconds"] > floor
    assert any(x["seconds"] < m for x, m in zip(rows, ref.y))
