"""Bad input from code raises a ValueError that names the argument."""
from __future__ import annotations

import pytest

import widgets
from perfmodel import machines

CASES = [
    (widgets.roofline_explorer, {"machine": "GTX 480"}, "machine"),
    (widgets.roofline_explorer, {"unit": "fp4_tensor"}, "unit"),          # a T4 has none
    (widgets.roofline_explorer, {"vector_n": -5}, "vector_n"),
    (widgets.roofline_explorer, {"tile": 2.5}, "tile"),
    (widgets.roofline_explorer, {"machines": ["T4"]}, "machines"),
    (widgets.operation_timer, {"op": "fft"}, "op"),
    (widgets.operation_timer, {"gpu": "nope"}, "machine"),
    (widgets.operation_timer, {"pcie": "yes"}, "pcie"),
    (widgets.operation_timer, {"n": 0}, "n"),
    (widgets.intensity_calculator, {"op": "sort"}, "op"),
    (widgets.intensity_calculator, {"dtype": "int8"}, "dtype"),
    (widgets.intensity_calculator, {"size": -1}, "size"),
    (widgets.amdahl_gustafson, {"serial_fraction": 1.5}, "serial_fraction"),
    (widgets.amdahl_gustafson, {"serial_fraction": -0.1}, "serial_fraction"),
    (widgets.littles_law, {"machine": "TPU"}, "machine"),
    (widgets.littles_law, {"latency_ns": 0}, "latency_ns"),
    (widgets.divergence, {"paths": 0}, "paths"),
    (widgets.divergence, {"paths": 33}, "paths"),
    (widgets.divergence, {"split": "diagonal"}, "split"),
    (widgets.divergence, {"k": 0}, "k"),
    (widgets.coalescing, {"stride": 3}, "stride"),
    (widgets.coalescing, {"stride": "sorted"}, "stride"),
    (widgets.tiles_and_waves, {"n": -1792}, "n"),
    (widgets.tiles_and_waves, {"tile_m": 0}, "tile_m"),
    (widgets.tiles_and_waves, {"sms": 0}, "sms"),
    (widgets.online_softmax, {"tile": 0}, "tile"),
    (widgets.online_softmax, {"scores": [1.0, float("nan")], "values": [1, 2]}, "scores"),
    (widgets.online_softmax, {"scores": [1.0, 2.0], "values": [1]}, "values"),
    (widgets.roof_moves, {"clock_mhz": 5000}, "clock_mhz"),
    (widgets.roof_moves, {"power_limit_w": 0}, "power_limit_w"),
    (widgets.fusion_chain, {"n": 0}, "n"),
    (widgets.fusion_chain, {"count": 0}, "count"),
    (widgets.fusion_chain, {"dtype": "int4"}, "dtype"),
    (widgets.fusion_chain, {"machine": "abacus"}, "machine"),
    (widgets.triage_questions, {"op": "sort"}, "op"),
    (widgets.triage_questions, {"machine": "abacus"}, "machine"),
]


@pytest.mark.parametrize("make, kwargs, name", CASES,
                         ids=[f"{m.__name__}-{n}" for m, _, n in CASES])
def test_bad_input_names_the_argument(make, kwargs, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        make(**kwargs)


def test_good_extra_values_join_the_slider():
    """A valid initial value off the slider's grid is added to it, not refused."""
    w = widgets.amdahl_gustafson(serial_fraction=0.3)
    assert 0.3 in w.fractions
    w = widgets.roofline_explorer(vector_n=3000, machine=machines.get("A100"))
    assert 3000 in w.shapes["vector_n"] and w.initial()["machine"] == "A100"
