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
