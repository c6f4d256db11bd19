"""The figures' text alternatives as the build writes them (widgets/a11y.py): a name, a
description, a live region, a data table; and every slider step's words, kept once per
part. Hand-made figures, so each expected string is read off the figure itself."""
from __future__ import annotations

import re

import pytest

import widgets
from perfmodel import machines, ops
from widgets import a11y, diagrams, static

FIG = {"data": [{"type": "scatter", "name": "roof", "x": [1, 10, 100], "y": [10, 100, 100]},
                {"type": "scatter", "name": "<b>dot</b><br>n=4", "x": [5], "y": [2e12]},
                {"type": "scatter", "name": "frame", "x": [0, 1], "y": [0, 1],
                 "hoverinfo": "skip", "showlegend": False}],
       "layout": {"title": {"text": "Roof of <i>one</i> GPU"},
                  "xaxis": {"title": {"text": "intensity (FLOP/byte)"}, "type": "log"},
                  "yaxis": {"title": {"text": "FLOP/s"}},
                  "sliders": [{"name": "n", "currentvalue": {"prefix": "size n: "},
                               "steps": [{}, {}, {}]}]}}


def test_name_and_description_read_the_figure():
    assert a11y.figure_name(FIG) == "Roof of one GPU"
    untitled = {"data": [], "layout": {"xaxis": {"title": "time (s)"}, "yaxis": {"title": "bytes"}}}
    assert a11y.figure_name(untitled) == "bytes against time (s)"
    desc = a11y.figure_description(FIG)
    assert desc.startswith("A line and point plot of FLOP/s against intensity (FLOP/byte) "
                           "(x on a log scale).")
    assert "It shows roof; dot, n=4." in desc and "frame" not in desc
    assert 'a slider "size n" of 3 steps' in desc


def test_the_data_table_lists_each_data_trace():
    html = a11y.data_table(FIG)
    assert html.startswith('<details class="book-figure-data"><summary>Data table</summary>')
    caps = re.findall(r"<caption>(.*?)</caption>", html)
    assert caps == ["roof", "dot, n=4"]                      # the frame carries no data
    assert re.findall(r"<td>(.*?)</td>", html)[:6] == ["1", "10", "10", "100", "100", "100"]
    assert "<td>2 T</td>" in html                           # 2e12, no e-notation
    assert a11y.data_table({"data": [FIG["data"][2]], "layout": {}}) == ""


def test_each_panel_is_labelled_with_its_own_axes():
    """A trace on the second panel (xaxis "x2") takes that panel's titles, not the
    first's (the intensity knob's time panel was labelled "intensity" and "FLOP/s")."""
    fig = {"data": [{"type": "scatter", "name": "rate", "x": [1], "y": [2]},
                    {"type": "scatter", "name": "time", "x": [3], "y": [4],
                     "xaxis": "x2", "yaxis": "y2"},
                    {"type": "scatter", "name": "bare", "x": [5], "y": [6],
                     "xaxis": "x3", "yaxis": "y3"}],
           "layout": {"xaxis": {"title": {"text": "intensity"}}, "yaxis": {"title": "FLOP/s"},
                      "xaxis2": {"title": {"text": "k"}}, "yaxis2": {"title": {"text": "s"}}}}
    heads = re.findall(r"<thead><tr>(.*?)</tr></thead>", a11y.data_table(fig))
    assert [re.findall(r">([^<]*)</th>", h) for h in heads] == \
        [["intensity", "FLOP/s"], ["k", "s"], ["x", "y"]]
    words = a11y.step_words("n", "1", fig["data"], [1], fig["layout"])
    assert words == "n 1: time: k 3, s 4"


def test_a_long_trace_is_sampled_and_says_so():
    fig = {"data": [{"type": "scatter", "name": "curve", "x": list(range(100)),
                     "y": list(range(100))}], "layout": {}}
    html = a11y.data_table(fig)
    assert "<caption>curve (every 5th of 100 points)</caption>" in html
    assert html.count("<tr>") == 1 + 20


def test_wrap_names_describes_and_announces():
    html = a11y.wrap("book-figure-x", "<div></div>", FIG, description="What it shows.")
    assert 'role="figure" aria-labelledby="book-figure-x-name" ' \
           'aria-describedby="book-figure-x-desc"' in html
    assert re.search(r'id="book-figure-x-name"[^>]*>Roof of one GPU</p>', html)
    assert re.search(r'id="book-figure-x-desc"[^>]*>What it shows.</p>', html)
    assert 'aria-live="polite"' in html


def test_step_words_round_trip_through_the_table():
    words = {"machine: T4": [["a: x 1, y 2; done", "a: x 3, y 2; done"]],
             "machine: A100": [["a: x 1, y 5; done", "b:  two  spaces"]]}
    table = a11y.word_table(words)
    for choice, sliders in words.items():
        for s, steps in enumerate(sliders):
            for k, w in enumerate(steps):
                assert a11y.words_of(table, choice, s, k) == w
    assert table["parts"].count("a:") == 1 and table["parts"].count("done") == 1
    with pytest.raises(TypeError, match="words"):
        a11y.word_table([["x"]])


def test_the_roofline_explorers_words_are_the_models():
    """Every step of the vector slider on a T4 in FP32: intensity F/D and attainable
    min(P, I B) from perfmodel's vector add, read back from the words."""
    view = widgets.roofline_explorer()
    table = view.step_words_table()
    choice = "machine: T4\nprecision: " + view.menus()[1].fmt("fp32")
    t4 = machines.get("T4")
    p, b = t4.peak_flops("fp32"), t4.bandwidth("dram")
    values = view.sliders()[0].choices(view.initial())
    for k, n in enumerate(values):
        said = a11y.words_of(table, choice, 0, k)
        op = ops.vector_add(n, "fp32")
        m = re.fullmatch(r"vector add: intensity ([\d.]+) FLOP/byte, ([\d.]+) ([GT])FLOP/s "
                         r"attainable, memory-bound", said)
        assert m, said
        assert float(m[1]) == pytest.approx(op.flops / op.bytes, rel=5e-3)
        assert float(m[2]) * {"G": 1e9, "T": 1e12}[m[3]] == \
            pytest.approx(min(p, op.flops / op.bytes * b), rel=5e-3)


def test_a_diagram_step_says_its_counters():
    """A stepped diagram's words: the step, then the running counters the view draws at
    it (its text traces), e.g. the latency timeline's loads in flight and busy cycles."""
    view = diagrams.latency_timeline()
    table = view.step_words_table()
    c = view.sliders()[0]
    start = view.initial()
    choice = "\n".join(m.text(start[m.name]) for m in view.menus())
    for k, value in enumerate(c.choices(start)):
        said = a11y.words_of(table, choice, 0, k)
        assert said.startswith(f"{c.label} {c.fmt(value)}: "), said
        texts = [a11y.plain(t) for tr in view.moving(view.settle({**start, c.name: value}))
                 if tr.get("mode") == "text" for t in tr["text"] if a11y.plain(t)]
        assert texts and all(t in said for t in texts), (said, texts)


def test_every_site_figure_carries_its_text_alternatives(monkeypatch):
    monkeypatch.setenv(static.MODE_ENV, "static")
    for name in widgets.WIDGETS:
        html = getattr(widgets, name)().static_html()
        assert re.search(r'class="book-figure-name"[^>]*>[^<]{3,}</p>', html), name
        assert re.search(r'class="book-figure-desc"[^>]*>[^<]{20,}</p>', html), name
        assert 'aria-live="polite"' in html, name


def test_a_long_trace_says_which_points_its_table_keeps():
    # English ordinals, typed in: 11th to 13th take "th" whatever their last digit
    assert [a11y.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "111th"]
    # 100 points keep every 5th (ceil(100 / 24)); the caption says so
    spec = {"data": [{"type": "scatter", "name": "curve", "x": list(range(100)),
                      "y": list(range(100))}], "layout": {}}
    assert "curve (every 5th of 100 points)" in a11y.data_table(spec)
    with pytest.raises(ValueError, match="n must"):
        a11y.ordinal(0)
