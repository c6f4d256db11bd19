"""Numeric exercises of chapter 11, "Communication is a roof too".

Every answer is computed by perfmodel here; tests/test_exercises_comm.py checks each one
against plain arithmetic from the datasheets' link rates and NCCL-tests' formulas.
Machines, sizes and GPU counts differ from the ones the chapter works.
"""
from __future__ import annotations

from perfmodel import comm, machines

from .registry import register

CHAPTER = "comm"
MIB, GIB = 2 ** 20, 2 ** 30
BF16, FP32 = 2, 4

# comm-1: eight A100s over NVLink 3 all-reduce 2 GiB of FP32 gradients.
A100_GPUS, A100_BYTES = 8, 2 * GIB
# comm-2: an NCCL-tests line: 16 GPUs all-gather 512 MiB in 3.2 ms.
AG_GPUS, AG_BYTES, AG_SECONDS = 16, 512 * MIB, 3.2e-3
# comm-5: 64 GPUs, one NDR InfiniBand port each.
IB_GPUS = 64
# comm-6: four H200 PCIe cards (no NVLink bridge), a 1.3e9-parameter model, BF16
# gradients, 2,048 tokens a GPU, at the dense BF16 peak.
PCIE_GPUS, PCIE_PARAMS, PCIE_TOKENS = 4, 1.3e9, 2048
# comm-7: a 64 MiB pinned copy to a T4 over its PCIe 3 x16 link.
T4_COPY = 64 * MIB
# comm-8: the blog's all-reduce: 256 MiB on four H200s.
BLOG_GPUS, BLOG_BYTES = 4, 256 * MIB
# comm-10: eight GPUs, 6,144 tokens each, FP32 gradients.
CI_GPUS, CI_TOKENS = 8, 6144


def a100_all_reduce() -> float:
    return comm.ring_allreduce_time(A100_BYTES, A100_GPUS, comm.link_of("A100"))


def all_gather_busbw() -> float:
    return comm.bus_bandwidth("all_gather", AG_BYTES, AG_SECONDS, AG_GPUS)


def t4_half_bandwidth_size() -> float:
    """alpha x beta: the message that reaches half the link's rate."""
    return comm.ALPHA.value * comm.link_of("T4", "host").bandwidth


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


def t4_copy_time() -> float:
    return comm.message_time(T4_COPY, comm.link_of("T4", "host"))


def blog_all_reduce() -> float:
    return comm.ring_allreduce_time(BLOG_BYTES, BLOG_GPUS, comm.link_of("H200"))


def ib_ridge_tokens() -> float:
    h200 = machines.get("H200")
    return comm.dp_ridge_tokens(h200.peak_flops("bf16_tensor"), comm.link_of(h200, "network"),
                                IB_GPUS, BF16)


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
         "The message size at which a T4's PCIe 3 x16 host link (16 GB/s each way, alpha "
         "5 us) reaches half its rate, in bytes.",
         t4_half_bandwidth_size, unit="bytes",
         hint="S / (alpha + S / beta) = beta / 2.")
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
         "Before running the lab on a T4: the model's time for a 64 MiB pinned host-to-device "
         "copy over PCIe 3 x16 (16 GB/s, alpha 5 us), in seconds.",
         t4_copy_time, unit="s",
         hint="alpha + S / beta, with S = 64 x 2^20 bytes.")
register("comm-8", CHAPTER,
         "The blog's all-reduce redone: 256 MiB on 4 H200s over NVLink 4 at its per-direction "
         "rate, alpha 5 us a step, in seconds.",
         blog_all_reduce, unit="s",
         hint="450 GB/s each way, not 900; 2(n-1) = 6 steps.")
register("comm-9", CHAPTER,
         "Tokens per GPU above which 64 H200s, each in its own server with one NDR port "
         "(50 GB/s each way) in one flat ring, hide their BF16 gradients behind the backward "
         "pass at 989 TFLOP/s.",
         ib_ridge_tokens, unit="tokens",
         hint="T* = F (n-1) b / (2 n beta), n = 64.")
register("comm-10", CHAPTER,
         "Communication intensity of data parallelism on 8 GPUs, 6,144 tokens each, FP32 "
         "gradients, in FLOP/byte.",
         fp32_intensity, unit="FLOP/byte",
         hint="4 T FLOPs per parameter over 2(n-1)/n x 4 bytes per parameter.")
