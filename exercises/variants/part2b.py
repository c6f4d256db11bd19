"""Variants of numeric exercises in chapters 9 to 11: a benchmark's length, the backward pass
of attention, decoding, and collectives."""
from __future__ import annotations

from perfmodel import comm, machines

from .. import flash as fx
from .. import moves as mx
from . import define
from ._fmt import a, count, si

GIB, MIB = 2 ** 30, 2 ** 20

# --- Chapter 9: why the roof moves ------------------------------------------------------

define(
    "moves-6", title="How long must a benchmark run?",
    defaults={"burst": 41e12, "sustained": 18e12, "window_ms": 50, "excess_pct": 5},
    draw=lambda r: {"burst": r.choice((30e12, 35e12, 41e12, 45e12)),
                    "sustained": r.choice((15e12, 18e12, 21e12, 24e12)),
                    "window_ms": r.choice((20, 30, 50, 80, 100)),
                    "excess_pct": r.choice((1, 2, 5, 10))},
    question=lambda p: (
        f"A benchmark times back-to-back products right after light work. The first "
        f"{p['window_ms']} ms run at a burst rate of {si(p['burst'], 'FLOP/s')} (take it as "
        f"constant), and from then on the card sustains {si(p['sustained'], 'FLOP/s')}. Give "
        f"the **seconds** the benchmark must run for its average rate to overstate the "
        f"sustained rate by at most {p['excess_pct']}%."),
    answer=lambda p: mx.benchmark_seconds(p["excess_pct"] / 100, p["burst"], p["sustained"],
                                          p["window_ms"] * 1e-3))

# --- Chapter 10: FlashAttention -----------------------------------------------------------

define(
    "flash-8", title="Store or recompute",
    defaults={"seq": 8192, "d": 128},
    draw=lambda r: {"seq": r.choice((2048, 4096, 8192, 16384)), "d": r.choice((64, 96, 128, 256))},
    question=lambda p: (
        f"Backward pass on an H200 (989 TFLOP/s FP16 tensor at 1.83 GHz, 4.8 TB/s, 132 SMs "
        f"whose SFUs complete 16 exponentials a clock each), $S = {count(p['seq'])}$, "
        f"$d = {p['d']}$, FP16: give **how many times longer** writing and re-reading the "
        "$S \\times S$ probabilities takes than recomputing them ($QK^\\top$ on the tensor "
        "cores, then the exponentials, one after the other)."),
    answer=lambda p: fx.store_over_recompute("H200", p["seq"], p["d"]))

define(
    "flash-13", title="One token of a long conversation",
    defaults={"heads": 32, "d": 128, "seq": 32768},
    draw=lambda r: {"heads": r.choice((8, 16, 32, 64)), "d": r.choice((64, 128)),
                    "seq": r.choice((4096, 8192, 16384, 32768, 65536, 131072))},
    question=lambda p: (
        f"A model with {p['heads']} key-value heads of $d = {p['d']}$ generates one token at "
        f"batch 1 with a KV cache of {count(p['seq'])} positions in FP16. Give the **least time "
        f"in seconds** an H200 "
        f"({si(machines.get('H200').bandwidth('dram'), 'B/s')}) needs for one layer's "
        "attention."),
    answer=lambda p: p["heads"] * 2 * p["seq"] * p["d"] * 2
    / machines.get("H200").bandwidth("dram"))

define(
    "flash-15", title="The backward pass against the forward",
    defaults={"seq": 8192, "d": 64},
    draw=lambda r: {"seq": r.choice((2048, 4096, 8192, 16384)), "d": r.choice((32, 64, 96, 128))},
    question=lambda p: (
        f"FlashAttention on an H200 (989 TFLOP/s FP16 tensor; 132 SMs whose SFUs complete 16 "
        f"exponentials a clock each, at 1.83 GHz), one head with $S = {count(p['seq'])}$ and "
        f"$d = {p['d']}$, FP16. Counting each pass's $S \\times S \\times d$ tensor-core "
        "products and its $S^2$ exponentials one after the other, give **how many times "
        "longer** the backward pass is than the forward."),
    answer=lambda p: fx.backward_over_forward("H200", p["seq"], p["d"]))

# --- Chapter 11: communication ------------------------------------------------------------

_NV = {"A100": "NVLink 3", "H200": "NVLink 4", "B200": "NVLink 5"}

define(
    "comm-1", title="A ring all-reduce",
    defaults={"gpu": "A100", "n": 8, "gib": 2},
    draw=lambda r: {"gpu": r.choice(tuple(_NV)), "n": r.choice((2, 4, 8)),
                    "gib": r.choice((0.5, 1, 2, 4))},
    question=lambda p: (
        f"{p['n']} {p['gpu']}s joined by {_NV[p['gpu']]} "
        f"({si(comm.link_of(p['gpu']).bandwidth, 'B/s')} each way per GPU) all-reduce "
        f"{p['gib']:g} GiB with a ring, $\\alpha$ = 5 µs a step. Give the **time in seconds**."),
    answer=lambda p: comm.ring_allreduce_time(p["gib"] * GIB, p["n"], comm.link_of(p["gpu"])))

define(
    "comm-2", title="Reading an NCCL-tests line",
    defaults={"n": 16, "mib": 512, "ms": 3.2},
    draw=lambda r: {"n": r.choice((4, 8, 16, 32, 64)), "mib": r.choice((64, 128, 256, 512, 1024)),
                    "ms": r.choice((0.8, 1.6, 2.4, 3.2, 4.8, 6.4))},
    question=lambda p: (
        f"An NCCL-tests run on {p['n']} GPUs reports an all-gather of {p['mib']} MiB (the "
        f"gathered output) in {p['ms']:g} ms. Give the **bus bandwidth in byte/s** it prints."),
    answer=lambda p: comm.bus_bandwidth("all_gather", p["mib"] * MIB, p["ms"] * 1e-3, p["n"]))

define(
    "comm-4", title="Hiding gradients",
    defaults={"gpu": "B200", "n": 8},
    draw=lambda r: {"gpu": r.choice(tuple(_NV)), "n": r.choice((2, 4, 8))},
    question=lambda p: (
        f"{p['n']} {p['gpu']}s ({si(machines.get(p['gpu']).peak_flops('bf16_tensor'), 'FLOP/s')} "
        f"dense BF16 each, {_NV[p['gpu']]} at "
        f"{si(comm.link_of(p['gpu']).bandwidth, 'B/s')} each way) train with data parallelism "
        "and BF16 gradients. Give the **tokens a GPU per step** above which the ring "
        "all-reduce can hide behind the backward pass."),
    answer=lambda p: comm.dp_ridge_tokens(machines.get(p["gpu"]).peak_flops("bf16_tensor"),
                                          comm.link_of(p["gpu"]), p["n"], 2))

define(
    "comm-8", title="The blog's all-reduce, corrected",
    defaults={"n": 4, "mib": 256},
    draw=lambda r: {"n": r.choice((2, 4, 8)), "mib": r.choice((32, 64, 128, 256, 512, 1024))},
    question=lambda p: (
        f"Give the model's **time in seconds** for a ring all-reduce of {p['mib']} MiB on "
        f"{p['n']} H200s over NVLink 4 (18 links of 25 GB/s each way), $\\alpha$ = 5 µs a step."),
    answer=lambda p: comm.ring_allreduce_time(p["mib"] * MIB, p["n"], comm.link_of("H200")))

define(
    "comm-10", title="Communication intensity",
    defaults={"n": 8, "tokens": 6144, "bytes": 4},
    draw=lambda r: {"n": r.choice((2, 4, 8, 16, 64)), "tokens": r.randrange(1024, 16385, 512),
                    "bytes": r.choice((2, 4))},
    question=lambda p: (
        f"{p['n']} GPUs train with data parallelism, {count(p['tokens'])} tokens each per step, "
        f"sending their gradients in {'BF16' if p['bytes'] == 2 else 'FP32'}. Give the "
        "**communication intensity in FLOP/byte** (backward FLOPs over the bytes a GPU sends "
        "in a ring all-reduce)."),
    answer=lambda p: comm.dp_intensity(p["tokens"], p["n"], p["bytes"]))
