"""Variants of the roofline chapter's numeric exercises (chapters/04_roofline.md)."""
from __future__ import annotations

from perfmodel import machines, ops, roofline

from ..roofline import crossover_batch
from . import define
from ._fmt import a, pow2, sci, si

GPUS = ("T4", "A100", "H100", "H200", "B200")
BIG_GPUS = ("A100", "H100", "H200", "B200")  # with FP16 tensor cores worth a layer's batch


def _made_up(p: dict, name: str) -> machines.Machine:
    return machines.measured(name, {"fp32": p["peak"]}, {"dram": p["bw"]},
                             source="a made-up GPU of an exercise variant")


def _ceiling_fraction(p: dict) -> float:
    return p["achieved"] / roofline.attainable(_made_up(p, "exercise GPU"), p["intensity"])


define(
    "roofline-1", title="Reading a ceiling",
    defaults={"peak": 19.5e12, "bw": 900e9, "intensity": 4.0, "achieved": 2.1e12},
    draw=lambda r: (lambda p: {**p, "achieved": round(
        r.uniform(0.3, 0.9) * min(p["peak"], p["intensity"] * p["bw"]) / 1e11) * 1e11})({
        "peak": r.randrange(100, 401, 5) * 1e11, "bw": r.randrange(500, 2001, 50) * 1e9,
        "intensity": float(r.choice((1, 2, 4, 8)))}),
    question=lambda p: (
        f"A GPU has {si(p['bw'], 'B/s')} of bandwidth and {si(p['peak'], 'FLOP/s')} of FP32 "
        f"(made-up figures). A kernel of intensity {p['intensity']:g} FLOP/byte runs at "
        f"{si(p['achieved'], 'FLOP/s')}. Find the ceiling the roofline allows it and give the "
        "**fraction of that ceiling** the kernel reaches (a number between 0 and 1)."),
    answer=_ceiling_fraction)

define(
    "roofline-2", title="Grading a reduction",
    defaults={"gpu": "T4"},
    draw=lambda r: {"gpu": r.choice(GPUS)},
    question=lambda p: (
        f"What is the highest **fraction of {a(p['gpu'])}'s FP32 peak** (datasheet: "
        f"{si(machines.get(p['gpu']).peak_flops('fp32'), 'FLOP/s')}, "
        f"{si(machines.get(p['gpu']).bandwidth('dram'), 'B/s')}) that an FP32 sum reduction "
        "can reach? Give a number between 0 and 1, then say which metric you would report "
        "instead."),
    answer=lambda p: (roofline.attainable(p["gpu"], ops.reduction(2 ** 24).intensity)
                      / machines.get(p["gpu"]).peak_flops("fp32")))

define(
    "roofline-3", title="A vector add against a ridge",
    defaults={"peak": 40e12, "bw": 1e12},
    draw=lambda r: {"peak": r.randrange(20, 81, 5) * 1e12,
                    "bw": r.choice((0.5, 1.0, 1.5, 2.0, 3.0, 4.0)) * 1e12},
    question=lambda p: (
        f"A machine has {si(p['peak'], 'FLOP/s')} of FP32 over {si(p['bw'], 'B/s')} (a ridge "
        f"of {p['peak'] / p['bw']:.3g} FLOP/byte). Is an FP32 vector add memory- or "
        "compute-bound on it? Give the **highest fraction of the peak FLOP/s** it can use "
        "(a number between 0 and 1)."),
    answer=lambda p: (roofline.attainable(_made_up(p, "ridge GPU"), ops.vector_add(2 ** 24).intensity)
                      / p["peak"]))

define(
    "roofline-4", title="The interview opener",
    defaults={"gpu": "A100", "flops": 2e9, "bytes": 1e9},
    draw=lambda r: {"gpu": r.choice(BIG_GPUS), "flops": r.randrange(1, 10) * 10 ** r.choice((9, 10, 11)),
                    "bytes": r.randrange(1, 10) * 1e9},
    question=lambda p: (
        f"A kernel performs {sci(p['flops'])} FLOPs and moves {sci(p['bytes'])} bytes in FP32 on "
        f"{a(p['gpu'])} (datasheet). Is it limited by compute or by memory? Give its "
        "**roofline floor time in seconds**."),
    answer=lambda p: roofline.time(p["gpu"], ops.Op("exercise kernel", p["flops"], p["bytes"])))

define(
    "roofline-5", title="When cutting bytes stops paying",
    defaults={"peak": 100e12, "bw": 1e12, "bytes": 5e9, "flops": 2e12},
    draw=lambda r: {"peak": r.choice((50, 100, 200)) * 1e12, "bw": r.choice((1, 2)) * 1e12,
                    "bytes": r.randrange(2, 21) * 1e9,
                    "flops": r.choice((1.5, 2, 3, 4)) * 1e12},
    question=lambda p: (
        f"An imaginary accelerator has {si(p['peak'], 'FLOP/s')} and {si(p['bw'], 'B/s')}. A "
        f"kernel of $10^{{12}}$ FLOPs recomputes its intermediates instead of storing them: "
        f"its traffic falls to {si(p['bytes'], 'B')} and its work rises to "
        f"{si(p['flops'], 'FLOP')}. Give the **lower bound on its time in seconds**, and say "
        "what cutting the bytes further would achieve."),
    answer=lambda p: roofline.time(_made_up(p, "imaginary accelerator"),
                                   ops.Op("recomputed", p["flops"], p["bytes"])))

define(
    "roofline-6", title="Decoding a linear layer",
    defaults={"gpu": "H200", "d": 4096},
    draw=lambda r: {"gpu": r.choice(BIG_GPUS), "d": r.choice((2048, 4096, 8192))},
    question=lambda p: (
        f"Predict the time of a batch-1 {p['d']}×{p['d']} FP16 linear layer on {a(p['gpu'])} "
        f"from its datasheet ({si(machines.get(p['gpu']).bandwidth('dram'), 'B/s')}, "
        f"{si(machines.get(p['gpu']).peak_flops('fp16_tensor'), 'FLOP/s')} of FP16 tensor "
        "cores), ignoring the launch toll. Give the **time in seconds**."),
    answer=lambda p: roofline.time(p["gpu"], ops.linear(1, p["d"], p["d"], "fp16"),
                                   unit="fp16_tensor"))

define(
    "roofline-7", title="When does a batch fill the tensor cores?",
    defaults={"gpu": "H100", "d": 8192},
    draw=lambda r: {"gpu": r.choice(BIG_GPUS), "d": r.choice((2048, 4096, 8192))},
    question=lambda p: (
        f"From what **batch size** on is a {p['d']}×{p['d']} FP16 linear layer compute-bound on "
        f"{a(p['gpu'])} (dense FP16 tensor cores, "
        f"{si(machines.get(p['gpu']).peak_flops('fp16_tensor'), 'FLOP/s')}; "
        f"{si(machines.get(p['gpu']).bandwidth('dram'), 'B/s')})? Give the smallest whole batch."),
    answer=lambda p: float(crossover_batch(p["gpu"], d=p["d"])))

define(
    "roofline-10", title="A large add at a measured bandwidth",
    defaults={"log2n": 28, "bw": 230e9},
    draw=lambda r: {"log2n": r.randrange(24, 31), "bw": r.randrange(180, 301, 10) * 1e9},
    question=lambda p: (
        f"Predict the **time in seconds** of an FP32 add $c = a + b$ of {pow2(p['log2n'])} "
        f"elements on a GPU whose measured copy bandwidth is {si(p['bw'], 'B/s')}."),
    answer=lambda p: roofline.time(
        machines.measured("measured GPU", {"fp32": 8.1e12}, {"dram": p["bw"]},
                          source="a measured copy bandwidth of an exercise variant"),
        ops.vector_add(2 ** p["log2n"])))
