"""Bad input raises ValueError naming the argument and the accepted range or names."""
import math

import pytest

from perfmodel import clocks, little, machines, ops, parallel, roofline, simt, softmax, waves


@pytest.mark.parametrize("call, words", [
    (lambda: ops.vector_add(-5), "n"),
    (lambda: ops.vector_add(0), "n"),
    (lambda: ops.vector_add(2.5), "n"),
    (lambda: ops.matmul(128, reuse="sometimes"), "reuse"),
    (lambda: ops.matmul(128, dtype="fp12"), "dtype"),
    (lambda: ops.attention(0, 64), "seq"),
    (lambda: ops.linear(1, -4096, 4096), "d_in"),
    (lambda: machines.get("V100"), "machine"),
    (lambda: machines.get("T4").peak_flops("bf16_tensor"), "unit"),
    (lambda: machines.get("T4").bandwidth("l3"), "level"),
    (lambda: roofline.attainable("T4", -1.0), "intensity"),
    (lambda: roofline.time("T4", ops.vector_add(10), overhead=-1e-6), "overhead"),
    (lambda: parallel.amdahl(1.5, 8), "serial_fraction"),
    (lambda: parallel.amdahl(-0.1, 8), "serial_fraction"),
    (lambda: parallel.gustafson(0.1, 0), "p"),
    (lambda: parallel.amdahl(float("nan"), 8), "serial_fraction"),
    (lambda: little.bytes_in_flight(-320e9, 400e-9), "bandwidth"),
    (lambda: little.threads_needed(320e9, 400e-9, 0), "bytes_per_thread"),
    (lambda: waves.tiles(0, 1792, 256, 128), "m"),
    (lambda: waves.waves(98, 0), "sms"),
    (lambda: softmax.online([1.0, 2.0], [1.0], 1), "values"),
    (lambda: softmax.online([1.0, math.nan], [1.0, 2.0], 1), "scores"),
    (lambda: softmax.online([1.0, 2.0], [1.0, 2.0], 0), "tile"),
    (lambda: simt.divergence_passes(2, "diagonal"), "split"),
    (lambda: simt.sectors(0), "stride"),
    (lambda: clocks.peak(40, 64, -1.0), "clock_hz"),
])
def test_bad_input_names_the_argument(call, words):
    with pytest.raises(ValueError, match=words):
        call()


def test_unknown_machine_lists_known_names():
    with pytest.raises(ValueError) as e:
        machines.get("V100")
    for name in ("T4", "A100", "H100", "H200", "B200", "CPU"):
        assert name in str(e.value)


def test_machine_names_case_insensitive():
    assert machines.get("h200") is machines.get("H200")
    assert machines.names()[:5] == ["T4", "A100", "H100", "H200", "B200"]


def test_softmax_of_fully_masked_row_is_an_error():
    with pytest.raises(ValueError, match="no valid"):
        softmax.online([-math.inf, -math.inf], [1.0, 2.0], 1)
