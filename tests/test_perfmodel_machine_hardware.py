"""Every hardware fact of every built-in machine carries a source, and the facts the book
uses match the documents they cite (typed here from those documents, not read from the model)."""
import pytest

from perfmodel import machines

KIB = 1024
# (machine, key) -> value from the cited document.
DOCUMENTED = {
    # The T4 note's table and the Turing whitepaper.
    ("T4", "sms"): 40, ("T4", "fp32_lanes_per_sm"): 64, ("T4", "clock_hz"): 1590e6,
    ("T4", "power_limit_w"): 70, ("T4", "max_threads_per_sm"): 1024,
    ("T4", "registers_per_sm_bytes"): 65536 * 4, ("T4", "l1_shared_per_sm_bytes"): 96 * KIB,
    ("T4", "l2_bytes"): 4 * KIB ** 2,
    # CUDA C++ Programming Guide, shared memory per block by compute capability.
    ("T4", "shared_per_block_bytes"): 64 * KIB,
    ("A100", "shared_per_block_bytes"): 163 * KIB,
    ("H200", "shared_per_block_bytes"): 227 * KIB,
    # Hopper whitepaper and the H200 datasheet; the L2 as the H200 reports it (62,914,560 B).
    ("H200", "sms"): 132, ("H200", "fp32_lanes_per_sm"): 128, ("H200", "clock_hz"): 1980e6,
    ("H200", "power_limit_w"): 700, ("H200", "max_threads_per_sm"): 2048,
    ("H200", "l1_shared_per_sm_bytes"): 256 * KIB, ("H200", "l2_bytes"): 62914560,
    ("A100", "sms"): 108,
}


def _facts(name):
    return {key: (value, source) for key, _label, value, _unit, source
            in machines.hardware_facts(name)}


@pytest.mark.parametrize("name", machines.names())
def test_every_fact_has_a_source(name):
    for key, (value, source) in _facts(name).items():
        assert value > 0 and source.strip(), (name, key)


@pytest.mark.parametrize("machine_key, value", sorted(DOCUMENTED.items()))
def test_documented_values(machine_key, value):
    name, key = machine_key
    assert _facts(name)[key][0] == value


def test_cpu_figures_say_they_were_measured_on_the_cpu():
    cpu = machines.get("CPU")
    for what in ("fp32", "dram", "launch_overhead"):
        assert "CPU" in cpu.source(what) and "Tesla T4" not in cpu.source(what)


def test_a_fact_without_a_source_is_refused():
    import dataclasses
    bare = dataclasses.replace(machines.get("T4"), hardware_sources={})
    with pytest.raises(ValueError, match="no source"):
        machines.hardware_facts(bare)
