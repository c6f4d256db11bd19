"""Every lab's plot of its recorded results draws every trace it holds: a trace whose x
values are names (bars by case) must sit on a category axis, not a linear or log one
(plotly draws nothing there), and a numeric trace on a log axis needs positive values."""
import pytest

import labs


def _axis(fig, trace, letter):
    ref = getattr(trace, f"{letter}axis") or letter
    name = ref.replace(letter, f"{letter}axis", 1)
    return fig.layout[name]


@pytest.mark.parametrize("name", labs.available())
def test_every_trace_is_drawable(name):
    results = labs.list_recorded(name)
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
