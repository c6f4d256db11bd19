"""perfmodel.little's additions for chapter 7 (registers as the budget for bytes in flight,
SMs needed, Little's law read backwards), checked against hand arithmetic."""
import pytest
from pytest import approx

from perfmodel import little


def test_in_flight_is_warps_threads_loads_bytes():
    assert little.in_flight(1, 1, 16) == 512            # the notes' one warp of float4 loads
    assert little.in_flight(256, 1, 16) == little.in_flight(64, 4, 16) == 131_072
    assert little.in_flight(0) == 0


def test_registers_budget_the_resident_warps():
    assert little.registers_per_sm("T4") == 65_536
    assert little.resident_warps("T4", 64) == 32         # 1,024 threads at 64 registers
    assert little.resident_warps("T4", 32) == 32         # the SM's limit binds
    assert little.resident_warps("T4", 128) == 16
    assert little.resident_warps("H200", 32) == 64
    assert little.resident_warps("H200", 72) == 28       # 65,536 / 2,304 = 28.4
    assert little.occupancy("H200", 72) == approx(28 / 64)
    assert little.resident_warps("H200", 255) == 8


def test_bandwidth_with_registers():
    # T4, 128 registers: 40 SMs x 16 warps x 32 x 4 B = 81,920 B over 400 ns.
    assert little.bandwidth_with_registers("T4", 128, 400e-9) == approx(204.8e9)
    # the same with float4 loads: 327,680 B in flight, more than 128 KB: the roof binds.
    assert little.bandwidth_with_registers("T4", 128, 400e-9, 1, 16) == approx(320e9)


def test_sms_needed_and_implied_latency():
    assert little.sms_needed(4.42e12, 191e9) == 24
    assert little.sms_needed(275e9, 49e9) == 6
    assert little.implied_latency(131_072, 275e9) == approx(476.6e-9, rel=1e-3)


@pytest.mark.parametrize("call", [
    lambda: little.resident_warps("T4", 0),
    lambda: little.resident_warps("T4", 256),
    lambda: little.resident_warps("T4", 1.5),
    lambda: little.resident_warps("nope", 32),
    lambda: little.in_flight(-1),
    lambda: little.in_flight(1, 0),
    lambda: little.sms_needed(0, 1e9),
    lambda: little.implied_latency(1, 0),
    lambda: little.bandwidth_with_registers("T4", 64, 0),
])
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()
