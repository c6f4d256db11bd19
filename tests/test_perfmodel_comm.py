"""perfmodel.comm against published figures and independent arithmetic: the datasheets' link
rates (per direction = bidirectional / 2), PCIe's signalling rate, InfiniBand's line rate,
NCCL-tests' bus-bandwidth factors, a ring all-reduce timed step by step by hand, the ring
simulated chunk by chunk, the data-parallel ridge checked against its definition, and
hypothesis properties."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfmodel import comm, machines

GIB = 2 ** 30


@pytest.mark.parametrize("key, bidirectional", [
    ("nvlink2", 300e9),   # V100 SXM2 datasheet: 300 GB/s NVLink
    ("nvlink3", 600e9),   # A100 datasheet: 600 GB/s NVLink
    ("nvlink4", 900e9),   # H100 / H200 SXM datasheets: 900 GB/s NVLink
    ("nvlink5", 1.8e12),  # HGX B200 datasheet: 1.8 TB/s NVLink per GPU
])
def test_nvlink_generations_per_direction_is_half_the_datasheet(key, bidirectional):
    link = comm.link(key)
    assert link.bandwidth == bidirectional / 2
    assert link.bidirectional() == bidirectional
    assert "bidirectional" in link.source


@pytest.mark.parametrize("key, gt_per_s", [("pcie3", 8e9), ("pcie4", 16e9), ("pcie5", 32e9)])
def test_pcie_x16_is_its_signalling_rate(key, gt_per_s):
    """PCI-SIG: 8, 16, 32 GT/s a lane; 16 lanes; one bit a transfer, 8 bits a byte."""
    assert comm.link(key).bandwidth == gt_per_s * 16 / 8


@pytest.mark.parametrize("key, gbit", [("ib_hdr", 200), ("ib_ndr", 400)])
def test_infiniband_is_its_line_rate_in_bytes(key, gbit):
    assert comm.link(key).bandwidth == gbit * 1e9 / 8


def test_machines_links():
    assert comm.link_of("H200").bandwidth == 450e9           # NVLink 4, each way
    assert comm.link_of("h200", "host").bandwidth == 64e9    # PCIe Gen5 x16, each way
    assert comm.link_of("T4").key == "pcie3"                 # no NVLink on a T4
    assert comm.link_of(machines.get("A100")).key == "nvlink3"
    # the machines' own PCIe level agrees with the link where both are datasheet figures
    for name in ("A100", "H100", "H200", "B200"):
        assert comm.link_of(name, "host").bandwidth == machines.get(name).bandwidth("pcie")


def test_bus_factors_as_nccl_tests_documents_them():
    assert comm.bus_factor("all_reduce", 8) == 14 / 8
    assert comm.bus_factor("all_reduce", 2) == 1.0
    assert comm.bus_factor("all_gather", 8) == 7 / 8
    assert comm.bus_factor("reduce_scatter", 4) == 3 / 4
    assert comm.bus_factor("broadcast", 8) == 1.0
    assert comm.bus_factor("all_reduce", 1) == 0.0
    # 1 GiB all-reduced on 8 GPUs in 10 ms: algbw 107.37 GB/s, busbw 187.9 GB/s
    assert comm.bus_bandwidth("all_reduce", GIB, 0.01, 8) == pytest.approx(107.3741824e9 * 1.75)


def test_ring_allreduce_worked_by_hand():
    """8 H200s, 1 GiB, alpha 5 us: 14 steps, each sends 1/8 GiB = 134,217,728 bytes over
    NVLink 4 at 450 GB/s (298.26 us) after its 5 us start: 14 x 303.26 us = 4.2457 ms."""
    t = comm.ring_allreduce_time(GIB, 8, comm.link_of("H200"), alpha=5e-6)
    assert t == pytest.approx(14 * (5e-6 + 134_217_728 / 450e9))
    assert t == pytest.approx(4.2457e-3, rel=1e-4)
    # all-gather of the same 1 GiB: half the steps
    assert comm.ring_gather_time(GIB, 8, 450e9, alpha=5e-6) == pytest.approx(t / 2)


def test_tree_beats_ring_on_small_messages_and_loses_on_large():
    small, large = 4096, GIB
    assert comm.tree_allreduce_time(small, 64, 450e9) < comm.ring_allreduce_time(small, 64, 450e9)
    assert comm.tree_allreduce_time(large, 64, 450e9) > comm.ring_allreduce_time(large, 64, 450e9)
    # 8 GPUs: depth 3, six whole messages: 6 x (5 us + 4096 B / 450 GB/s)
    assert comm.tree_allreduce_time(4096, 8, 450e9, 5e-6) == pytest.approx(6 * (5e-6 + 4096 / 450e9))


def test_message_time_and_fit_recover_alpha_beta():
    assert comm.message_time(64e9, comm.link("pcie5"), alpha=0) == pytest.approx(1.0)
    sizes = [4096 * 2 ** k for k in range(15)]
    times = [2e-6 + s / 25e9 for s in sizes]
    alpha, beta = comm.fit_alpha_beta(sizes, times)
    assert alpha == pytest.approx(2e-6, rel=1e-6) and beta == pytest.approx(25e9, rel=1e-6)


def test_overlap_bound_is_max_not_sum():
    assert comm.step_time(3e-3, 2e-3) == 3e-3
    assert comm.step_time(3e-3, 2e-3, overlap=False) == 5e-3
    assert comm.exposed(3e-3, 5e-3) == pytest.approx(2e-3)
    assert comm.exposed(3e-3, 2e-3) == 0


def test_data_parallel_ridge_is_where_backward_equals_all_reduce():
    """7e9 parameters in BF16 (2 bytes) on 8 H200s at 989 TFLOP/s over NVLink 4: at T*
    tokens a GPU the backward pass (4 x P x T* FLOPs) takes as long as the ring all-reduce
    of 2P bytes (alpha left out)."""
    p, f, beta, n = 7e9, 989e12, 450e9, 8
    t_star = comm.dp_ridge_tokens(f, beta, n)
    assert 4 * p * t_star / f == pytest.approx(comm.ring_allreduce_time(2 * p, n, beta, alpha=0))
    assert t_star == pytest.approx(989e12 * 7 * 2 / (2 * 8 * 450e9))      # about 1,923
    assert comm.dp_intensity(t_star, n) == pytest.approx(f / beta)
    # over PCIe 5 instead of NVLink 4: 450 / 64 times the tokens
    assert comm.dp_ridge_tokens(f, comm.link("pcie5"), n) == pytest.approx(t_star * 450 / 64)


def test_ring_simulation_sums_and_sends_two_n_minus_one_chunks():
    n = 5
    vals = [[10.0 ** r * (c + 1) for c in range(n)] for r in range(n)]
    steps = comm.ring_allreduce_steps(vals)
    assert len(steps) == 1 + 2 * (n - 1)
    want = [sum(vals[r][c] for r in range(n)) for c in range(n)]
    assert all(row == pytest.approx(want) for row in steps[-1]["values"])
    assert all(h == list(range(n)) for row in steps[-1]["held"] for h in row)
    after_rs = steps[n - 1]
    for r in range(n):                     # rank r owns the full sum of chunk r + 1
        assert after_rs["held"][r][(r + 1) % n] == list(range(n))
    sent = [0] * n
    for s in steps[1:]:
        assert sorted(src for src, _, _ in s["sends"]) == list(range(n))   # one chunk each
        for src, dst, _ in s["sends"]:
            assert dst == (src + 1) % n
            sent[src] += 1
    assert sent == [2 * (n - 1)] * n      # 2(n-1) chunks of S/n: 2(n-1)/n of S per link


@pytest.mark.parametrize("call, names", [
    (lambda: comm.link("nvlink9"), "key"),
    (lambda: comm.link_of("CPU"), "machine"),
    (lambda: comm.link_of("T4", "network"), "role"),
    (lambda: comm.link_of("H200", "moon"), "role"),
    (lambda: comm.ring_allreduce_time(GIB, 0, 450e9), "n"),
    (lambda: comm.ring_allreduce_time(-1, 8, 450e9), "nbytes"),
    (lambda: comm.message_time(1, 0), "bandwidth"),
    (lambda: comm.collective_time("all_to_all", 1, 2, 1e9), "op"),
    (lambda: comm.collective_time("all_gather", 1, 2, 1e9, algorithm="tree"), "algorithm"),
    (lambda: comm.dp_intensity(1000, 1), "n"),
    (lambda: comm.fit_alpha_beta([1, 1], [1e-6, 2e-6]), "nbytes"),
    (lambda: comm.ring_allreduce_steps([[1, 2], [3]]), "values"),
])
def test_bad_input_names_the_argument(call, names):
    with pytest.raises(ValueError, match=names):
        call()


sizes = st.floats(min_value=1, max_value=2 ** 40)
gpus = st.integers(min_value=2, max_value=4096)
rates = st.floats(min_value=1e9, max_value=2e12)
alphas = st.floats(min_value=0, max_value=1e-4)


@settings(max_examples=200, deadline=None)
@given(sizes, gpus, rates, alphas)
def test_bus_bandwidth_of_the_model_never_beats_the_link(s, n, beta, alpha):
    t = comm.ring_allreduce_time(s, n, beta, alpha)
    assert comm.bus_bandwidth("all_reduce", s, t, n) <= beta * (1 + 1e-9)
    t = comm.ring_gather_time(s, n, beta, alpha)
    assert comm.bus_bandwidth("all_gather", s, t, n) <= beta * (1 + 1e-9)


@settings(max_examples=200, deadline=None)
@given(sizes, gpus, rates, alphas)
def test_ring_time_grows_with_size_and_gpus(s, n, beta, alpha):
    t = comm.ring_allreduce_time(s, n, beta, alpha)
    assert comm.ring_allreduce_time(2 * s, n, beta, alpha) >= t
    assert comm.ring_allreduce_time(s, n + 1, beta, alpha) >= t
    # and never exceeds twice the whole buffer sent once, plus the starts
    assert t <= 2 * s / beta + 2 * (n - 1) * alpha + 1e-15


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=0, max_value=10), st.floats(min_value=0, max_value=10))
def test_overlap_sits_between_max_and_sum(a, b):
    lo, hi = comm.step_time(a, b), comm.step_time(a, b, overlap=False)
    assert lo == max(a, b) and math.isclose(hi, a + b) and lo <= hi <= 2 * lo + 1e-12
