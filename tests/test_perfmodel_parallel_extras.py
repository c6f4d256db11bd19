"""Formulas added for the chapters "Why GPUs exist" and "The mathematics of parallelism":
the Karp-Flatt serial fraction, the pipeline time, barrier efficiency and the hardware facts
machines carry. Expected values are plain arithmetic, never perfmodel's output."""

import pytest
from hypothesis import given, strategies as st

from perfmodel import machines, parallel

approx = pytest.approx


def test_karp_flatt_inverts_amdahl_on_the_notes_example():
    # 004: f = 10/110; on 4 units Amdahl gives 1 / (10/110 + (100/110)/4) = 110/35
    s4 = 110 / 35
    assert parallel.karp_flatt(s4, 4) == approx(10 / 110)


@given(st.floats(0.0, 1.0), st.integers(2, 10_000))
def test_karp_flatt_round_trip(f, p):
    assert parallel.karp_flatt(parallel.amdahl(f, p), p) == approx(f, abs=1e-9)


def test_karp_flatt_bad_input():
    with pytest.raises(ValueError, match="p must be"):
        parallel.karp_flatt(2.0, 1)
    with pytest.raises(ValueError, match="speedup"):
        parallel.karp_flatt(0, 4)


def test_pipeline_time():
    # three stages of 2, 3 and 1 us, 1000 items: 6 us for the first, 3 us for each later one
    assert parallel.pipeline_time(1000, [2e-6, 3e-6, 1e-6]) == approx(6e-6 + 999 * 3e-6)
    # one item: no overlap at all
    assert parallel.pipeline_time(1, [2e-6, 3e-6, 1e-6]) == approx(6e-6)
    # one stage: plain serial time
    assert parallel.pipeline_time(10, [5e-6]) == approx(50e-6)


def test_pipeline_time_bad_input():
    with pytest.raises(ValueError, match="items"):
        parallel.pipeline_time(0, [1.0])
    with pytest.raises(ValueError, match="stage_times"):
        parallel.pipeline_time(3, [])
    with pytest.raises(ValueError, match="stage_times"):
        parallel.pipeline_time(3, [1.0, -1.0])


def test_barrier_efficiency_straggler():
    # 32 threads, one does 10 units, the others 1: (31 + 10) / (32 x 10)
    assert parallel.barrier_efficiency([10] + [1] * 31) == approx(41 / 320)
    assert parallel.barrier_efficiency([3, 3, 3]) == 1.0


def test_barrier_efficiency_bad_input():
    with pytest.raises(ValueError, match="work"):
        parallel.barrier_efficiency([])
    with pytest.raises(ValueError, match="work"):
        parallel.barrier_efficiency([0, 0])
    with pytest.raises(ValueError, match="work"):
        parallel.barrier_efficiency([1, -2])


def test_t4_hardware_table():
    # 003's T4 table: 40 SMs, 1,024 threads per SM, 256 KB registers per SM = 10 MB, 4 MB L2
    t4 = machines.get("T4")
    assert t4.hardware("max_threads_per_sm") == 1024
    assert t4.sms * t4.hardware("registers_per_sm_bytes") == 40 * 256 * 1024
    assert t4.sms * t4.hardware("registers_per_sm_bytes") / 2 ** 20 == 10
    assert t4.hardware("l2_bytes") == 4 * 2 ** 20
    assert t4.hardware("l1_shared_per_sm_bytes") == 96 * 1024


def test_h200_hardware():
    h = machines.get("H200")
    assert h.hardware("max_threads_per_sm") == 2048
    assert h.sms * h.hardware("registers_per_sm_bytes") == 132 * 256 * 1024


def test_hardware_unknown_key():
    with pytest.raises(ValueError, match="key must be one of"):
        machines.get("T4").hardware("l3_bytes")
    with pytest.raises(ValueError, match="none"):
        machines.get("CPU").hardware("l2_bytes")


def test_notes_t4_is_the_measured_t4():
    # 003: FMA 6.8 TFLOP/s, add 230 GB/s, pinned PCIe 12.3 GB/s, toll about 20 us; ridge about 30
    m = machines.notes_t4()
    assert m.peak_flops("fp32") == 6.8e12 and m.bandwidth("dram") == 230e9
    assert m.bandwidth("pcie") == 12.3e9 and m.launch_overhead.value == 20e-6
    assert m.ridge("fp32") == approx(6.8e12 / 230e9)
    assert m.measured and m.sms == 40 and m.peak_flops("fp16_tensor") == 65e12
    assert "T4 (measured)" not in machines.names()  # not added to the catalogue


def test_in_flight_is_littles_law():
    # 000: 320 GB/s x 400 ns = 128,000 bytes; 003: a T4 FMA chain step takes 3.5 ns, and the
    # chip finishes 8.1e12 / 2 FMAs per second
    assert parallel.in_flight(320e9, 400e-9) == approx(128_000)
    assert parallel.in_flight(8.1e12 / 2, 3.5e-9) == approx(14_175)
    with pytest.raises(ValueError, match="latency"):
        parallel.in_flight(1.0, 0)
