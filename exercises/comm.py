"""Numeric exercises of chapter 11, "Communication is a roof too".

Every answer is computed by perfmodel here; tests/test_exercises_comm.py checks each one
against plain arithmetic from the datasheets' link rates and NCCL-tests' formulas.
Machines, sizes and GPU counts differ from the ones the chapter works.
"""
from __future__ import annotations

import math

from perfmodel import comm, machines

from .registry import register

CHAPTER = "comm"
MIB, GIB = 2 ** 20, 2 ** 30
BF16, FP32 = 2, 4

# comm-1: eight A100s over NVLink 3 all-reduce 2 GiB of FP32 gradients.
A100_GPUS, A100_BYTES = 8, 2 * GIB
# comm-2: an NCCL-tests line: 16 GPUs all-gather 512 MiB in 3.2 ms.
AG_GPUS, AG_BYTES, AG_SECONDS = 16, 512 * MIB, 3.2e-3
# comm-3: 64 H200s in eight servers of eight (NVLink 4 inside, one NDR port a GPU): a
# hierarchical all-reduce of 1 GiB.
HIER_SERVERS, HIER_PER_SERVER, HIER_BYTES = 8, 8, GIB
# comm-5: 64 GPUs, one NDR InfiniBand port each.
IB_GPUS = 64
# comm-6: four H200 PCIe cards (no NVLink bridge), a 1.3e9-parameter model, BF16
# gradients, 2,048 tokens a GPU, at the dense BF16 peak.
PCIE_GPUS, PCIE_PARAMS, PCIE_TOKENS = 4, 1.3e9, 2048
# comm-7: eight B200s linked only by PCIe 5 x16, 4,096-token micro-batches.
ACCUM_GPUS, ACCUM_MICRO_TOKENS = 8, 4096
# comm-8: the blog's all-reduce: 256 MiB on four H200s.
BLOG_GPUS, BLOG_BYTES = 4, 256 * MIB
# comm-9: an NCCL-tests all-reduce line from eight H200s: 16 GiB in 62.0 ms, by NVLink SHARP.
NVLS_GPUS, NVLS_BYTES, NVLS_SECONDS = 8, 16 * GIB, 62.0e-3
# comm-10: eight GPUs, 6,144 tokens each, FP32 gradients.
CI_GPUS, CI_TOKENS = 8, 6144


def a100_all_reduce() -> float:
    return comm.ring_allreduce_time(A100_BYTES, A100_GPUS, comm.link_of("A100"))


def all_gather_busbw() -> float:
    return comm.bus_bandwidth("all_gather", AG_BYTES, AG_SECONDS, AG_GPUS)


def hierarchical_all_reduce() -> float:
    """Seconds of a two-level all-reduce of HIER_BYTES on HIER_SERVERS servers of
    HIER_PER_SERVER GPUs: a ring reduce-scatter inside each server over NVLink (each GPU
    ends with its eighth, summed over the server), a ring all-reduce of that eighth among
    the GPUs of the same rank in every server, each over its own InfiniBand port, then a
    ring all-gather inside each server. The eight cross-server rings run at once."""
    nvlink, ib = comm.link_of("H200"), comm.link_of("H200", "network")
    inside = comm.collective_time("reduce_scatter", HIER_BYTES, HIER_PER_SERVER, nvlink)
    across = comm.ring_allreduce_time(HIER_BYTES / HIER_PER_SERVER, HIER_SERVERS, ib)
    return inside + across + comm.collective_time("all_gather", HIER_BYTES, HIER_PER_SERVER,
                                                  nvlink)


def b200_ridge_tokens() -> float:
    b200 = machines.get("B200")
    return comm.dp_ridge_tokens(b200.peak_flops("bf16_tensor"), comm.link_of(b200), 8, BF16)


def ib_crossover() -> float:
    return comm.tree_ring_crossover(IB_GPUS, comm.link("ib_ndr"))


def pcie_step_overlapped() -> float:
    h200 = machines.get("H200")
    backward = comm.backward_flops(PCIE_PARAMS, PCIE_TOKENS) / h200.peak_flops("bf16_tensor")
    reduce = comm.ring_allreduce_time(PCIE_PARAMS * BF16, PCIE_GPUS, comm.link("pcie5"))
    return comm.step_time(backward, reduce, overlap=True)


def b200_pcie_micro_batches() -> int:
    """Micro-batches of ACCUM_MICRO_TOKENS tokens a GPU must accumulate per all-reduce for
    eight B200s on PCIe 5 alone to reach the ridge: ceil(T* / micro-batch)."""
    b200 = machines.get("B200")
    tokens = comm.dp_ridge_tokens(b200.peak_flops("bf16_tensor"), comm.link("pcie5"),
                                  ACCUM_GPUS, BF16)
    return math.ceil(tokens / ACCUM_MICRO_TOKENS)


def blog_all_reduce() -> float:
    return comm.ring_allreduce_time(BLOG_BYTES, BLOG_GPUS, comm.link_of("H200"))


def nvls_bus_bandwidth() -> float:
    """The bus bandwidth NCCL-tests prints for the comm-9 line (byte/s)."""
    return comm.bus_bandwidth("all_reduce", NVLS_BYTES, NVLS_SECONDS, NVLS_GPUS)


def nvls_link_share() -> float:
    """Share of NVLink 4's per-direction rate each GPU's link carried in the comm-9 run, if
    the switch did the adding (NVLink SHARP): each GPU sends its buffer once and receives
    the sum once, so its link moved the buffer each way in the time."""
    return NVLS_BYTES / NVLS_SECONDS / comm.link_of("H200").bandwidth


def fp32_intensity() -> float:
    return comm.dp_intensity(CI_TOKENS, CI_GPUS, FP32)


register("comm-1", CHAPTER,
         "Ring all-reduce of 2 GiB of FP32 gradients on 8 A100s over NVLink 3 (300 GB/s each "
         "way, alpha 5 us a step), in seconds.",
         a100_all_reduce, unit="s",
         hint="2(n-1) steps of alpha, plus 2(n-1)/n of the buffer over the link.")
register("comm-2", CHAPTER,
         "NCCL-tests reports an all-gather of 512 MiB on 16 GPUs in 3.2 ms: its bus bandwidth, "
         "in byte/s.",
         all_gather_busbw, unit="B/s",
         hint="algbw = size / time; for all-gather busbw = algbw x (n-1)/n.")
register("comm-3", CHAPTER,
         "Hierarchical all-reduce of 1 GiB on 64 H200s in eight servers (NVLink 4 at 450 GB/s "
         "each way inside, one NDR port of 50 GB/s each way a GPU, alpha 5 us a step): "
         "reduce-scatter inside, ring all-reduce of each eighth across servers, all-gather "
         "inside, in seconds.",
         hierarchical_all_reduce, unit="s",
         hint="Inside: (n-1) alpha + (n-1)/n S / beta, twice; across: a ring all-reduce of "
              "S/8 on 8 servers.")
register("comm-4", CHAPTER,
         "Tokens per GPU above which 8 B200s (2.25 PFLOP/s dense BF16, NVLink 5 at 900 GB/s "
         "each way) hide their BF16 gradients' ring all-reduce behind the backward pass.",
         b200_ridge_tokens, unit="tokens",
         hint="T* = F (n-1) b / (2 n beta).")
register("comm-5", CHAPTER,
         "On 64 GPUs joined by NDR InfiniBand (50 GB/s each way, alpha 5 us), the message size "
         "below which the (unpipelined) tree all-reduce beats the ring, in bytes.",
         ib_crossover, unit="bytes",
         hint="Set 2d(alpha + S/beta) equal to 2(n-1) alpha + 2(n-1)/n S/beta, d = log2 64.")
register("comm-6", CHAPTER,
         "Four SXM-class H200s linked only by PCIe 5 x16, 1.3e9 parameters, BF16 gradients, "
         "2,048 tokens a GPU at 989 TFLOP/s: one step's backward plus all-reduce with perfect "
         "overlap, in seconds.",
         pcie_step_overlapped, unit="s",
         hint="Backward 4 P T / F; all-reduce 2(n-1) alpha + 2(n-1)/n 2P / beta; take the max.")
register("comm-7", CHAPTER,
         "Eight B200s (2.25 PFLOP/s dense BF16) linked only by PCIe 5 x16 (64 GB/s each way), "
         "BF16 gradients, 4,096-token micro-batches: how many micro-batches a GPU accumulates "
         "per all-reduce so that it can hide behind the backward passes.",
         b200_pcie_micro_batches, unit="micro-batches", rel_tol=0.01, close_tol=0.1,
         hint="T* = F (n-1) b / (2 n beta), then round T* / 4096 up.")
register("comm-8", CHAPTER,
         "The blog's all-reduce redone: 256 MiB on 4 H200s over NVLink 4 at its per-direction "
         "rate, alpha 5 us a step, in seconds.",
         blog_all_reduce, unit="s",
         hint="450 GB/s each way, not 900; 2(n-1) = 6 steps.")
register("comm-9", CHAPTER,
         "NCCL-tests reports an all-reduce of 16 GiB on eight H200s in 62.0 ms, by NVLink "
         "SHARP (the switch adds; each GPU sends its buffer once and receives the sum once): "
         "the share of NVLink 4's 450 GB/s each way that each GPU's link actually carried, "
         "in percent.",
         lambda: 100 * nvls_link_share(), unit="%",
         hint="Each way the link moved the whole buffer in the time: S / t over 450 GB/s.")
register("comm-10", CHAPTER,
         "Communication intensity of data parallelism on 8 GPUs, 6,144 tokens each, FP32 "
         "gradients, in FLOP/byte.",
         fp32_intensity, unit="FLOP/byte",
         hint="4 T FLOPs per parameter over 2(n-1)/n x 4 bytes per parameter.")
