"""Variants of numeric exercises in chapters 6 to 10: SIMT, latency, memory, the moving
roof and FlashAttention."""
from __future__ import annotations

from perfmodel import clocks, hierarchy, little, machines, simt, softmax

from . import define
from ._fmt import a, count, pow2, sci, si

GPUS = ("T4", "A100", "H100", "H200", "B200")

# --- Chapter 6: SIMT ---------------------------------------------------------------------

define(
    "simt-1", title="Warps of a launch",
    defaults={"n": 10_000_000, "block": 512},
    draw=lambda r: {"n": r.randrange(100_000, 10_000_001, 1000),
                    "block": r.choice((64, 96, 128, 192, 256, 512, 1024))},
    question=lambda p: (
        f"A kernel is launched over {count(p['n'])} elements, one thread each, in blocks of "
        f"{p['block']} threads. Give the **number of warps** the launch creates."),
    answer=lambda p: float(simt.launch_warps(p["n"], p["block"])))

define(
    "simt-7", title="A rare branch",
    defaults={"p": 0.005},
    draw=lambda r: {"p": r.choice((0.001, 0.002, 0.003, 0.01, 0.02, 0.03, 0.05))},
    question=lambda p: (
        f"Each lane of a 32-lane warp independently takes a rare branch with probability "
        f"{100 * p['p']:g}%. Give the **share of warps, in percent**, that must run the rare "
        "path."),
    answer=lambda p: 100 * simt.rare_path_warps(p["p"]))

define(
    "simt-10", title="Occupancy from registers",
    defaults={"gpu": "T4", "regs": 96, "block": 256},
    draw=lambda r: {"gpu": r.choice(("T4", "H200")), "regs": r.randrange(40, 169, 8),
                    "block": r.choice((128, 256, 512))},
    question=lambda p: (
        f"A kernel needs {p['regs']} registers per thread and runs in blocks of {p['block']} "
        f"threads on {a(p['gpu'])} (65,536 registers per SM, at most "
        f"{count(machines.get(p['gpu']).hardware('max_threads_per_sm'))} threads per SM; only "
        "whole blocks fit; a warp's registers come in units of 256, each quarter of the "
        "register file holding whole warps). Give the SM's **occupancy in percent**."),
    answer=lambda p: 100 * simt.occupancy(p["gpu"], p["regs"], p["block"]))

# --- Chapter 7: latency ------------------------------------------------------------------

define(
    "latency-1", title="Bytes in flight",
    defaults={"gpu": "A100", "ns": 337},
    draw=lambda r: {"gpu": r.choice(GPUS), "ns": r.randrange(300, 801, 20)},
    question=lambda p: (
        f"Give the **bytes** {a(p['gpu'])} must keep in flight to sustain its datasheet "
        f"{si(machines.get(p['gpu']).bandwidth('dram'), 'B/s')} when a DRAM load takes "
        f"{p['ns']} ns."),
    answer=lambda p: little.bytes_in_flight(machines.get(p["gpu"]).bandwidth("dram"),
                                            p["ns"] * 1e-9))

define(
    "latency-4", title="What a modest crowd sustains",
    defaults={"gpu": "H200", "ns": 337, "warps": 16, "load": 16},
    draw=lambda r: {"gpu": r.choice(("A100", "H100", "H200")), "ns": r.randrange(300, 701, 10),
                    "warps": r.choice((4, 8, 12, 16)), "load": r.choice((4, 8, 16))},
    question=lambda p: (
        f"A kernel keeps {p['warps']} warps on each of {a(p['gpu'])}'s "
        f"{machines.get(p['gpu']).sms} SMs ({si(machines.get(p['gpu']).bandwidth('dram'), 'B/s')}"
        f"), and every thread has one {p['load']}-byte load open; a load takes {p['ns']} ns. "
        "Give the **share of the DRAM bandwidth it sustains, in percent**."),
    answer=lambda p: 100 * min(1.0, machines.get(p["gpu"]).sms * p["warps"] * 32 * p["load"]
                               / (p["ns"] * 1e-9) / machines.get(p["gpu"]).bandwidth("dram")))

define(
    "latency-5", title="What the register budget keeps in flight",
    defaults={"gpu": "H200", "regs": 72, "loads": 8},
    draw=lambda r: {"gpu": r.choice(("T4", "H200")), "regs": r.randrange(33, 200),
                    "loads": r.choice((1, 2, 4, 8))},
    question=lambda p: (
        f"Every thread of a kernel needs {p['regs']} registers and keeps {p['loads']} "
        f"independent 16-byte loads open. Give the **bytes in flight** on one {p['gpu']} SM "
        f"(65,536 registers, at most "
        f"{machines.get(p['gpu']).hardware('max_threads_per_sm') // 32:.0f} warps; a warp's "
        "registers come in units of 256, each quarter of the register file holding whole "
        "warps) with as many warps as fit."),
    answer=lambda p: little.in_flight(little.resident_warps(p["gpu"], p["regs"]), p["loads"], 16))

# --- Chapter 8: memory -------------------------------------------------------------------

define(
    "memory-3", title="Tiles in shared memory",
    defaults={"kib": 64, "elem": 4},
    draw=lambda r: {"kib": r.choice((16, 32, 48, 64, 96, 100, 164, 228)), "elem": r.choice((2, 4))},
    question=lambda p: (
        f"Give the **largest edge $T$** (in elements) of two square "
        f"{'FP32' if p['elem'] == 4 else 'FP16'} tiles that fit together in {p['kib']} KiB of "
        "shared memory."),
    answer=lambda p: float(hierarchy.largest_tile(p["kib"] * 1024, elem_bytes=p["elem"])))

define(
    "memory-6", title="Positions from an array of structures",
    defaults={"gpu": "A100", "log2n": 26, "record": 32},
    draw=lambda r: {"gpu": r.choice(("A100", "H100", "H200", "B200")),
                    "log2n": r.randrange(20, 29), "record": r.choice((32, 48, 64, 128))},
    question=lambda p: (
        f"Particles are stored as an array of {p['record']}-byte structures whose first three "
        f"fields are the FP32 coordinates $x$, $y$, $z$. Give the **time in seconds** "
        f"{a(p['gpu'])} ({si(machines.get(p['gpu']).bandwidth('dram'), 'B/s')}) takes to read "
        f"$x$, $y$ and $z$ of {pow2(p['log2n'])} particles (32-byte sectors)."),
    answer=lambda p: (hierarchy.struct_bytes_moved(2 ** p["log2n"], p["record"], [0, 4, 8],
                                                   layout="aos")
                      / machines.get(p["gpu"]).bandwidth("dram")))

# --- Chapter 9: why the roof moves ----------------------------------------------------

define(
    "moves-11", title="A training job at the datasheet peak",
    defaults={"gpu": "H200", "flops": 1e21},
    draw=lambda r: {"gpu": r.choice(("A100", "H100", "H200", "B200")),
                    "flops": r.choice((1, 2, 3, 5)) * 10.0 ** r.choice((20, 21, 22))},
    question=lambda p: (
        f"Give the **hours** that {sci(p['flops'])} FLOPs of BF16 matrix multiplication take on "
        f"one {p['gpu']} at its BF16 datasheet peak of "
        f"{si(machines.get(p['gpu']).peak_flops('bf16_tensor'), 'FLOP/s')}."),
    answer=lambda p: p["flops"] / machines.get(p["gpu"]).peak_flops("bf16_tensor") / 3600)

# --- Chapter 10: FlashAttention -----------------------------------------------------------

define(
    "flash-3", title="Naive attention's memory",
    defaults={"heads": 32, "seq": 32768, "d": 128},
    draw=lambda r: {"heads": r.choice((8, 12, 16, 32)), "seq": r.choice((4096, 8192, 16384, 32768)),
                    "d": r.choice((64, 128))},
    question=lambda p: (
        f"Give naive attention's **peak memory in bytes** beside $Q$, $K$ and $V$ (the scores "
        f"and the probabilities together, plus the output) for {p['heads']} heads, "
        f"$S = {count(p['seq'])}$, $d = {p['d']}$, in FP16."),
    answer=lambda p: hierarchy.attention_extra_bytes(p["seq"], p["d"], 1, p["heads"], 2.0))

# --- More variants: a block size, a strided read, a cache reused, a clock, flash memory,
# causal blocks ---------------------------------------------------------------------------

define(
    "simt-2", title="A block that is not a multiple of 32",
    defaults={"threads": 48},
    draw=lambda r: {"threads": r.choice([t for t in range(33, 1000) if t % 32])},
    question=lambda p: (
        f"A kernel is launched in blocks of {p['threads']} threads. Give the **share of the "
        "issued lanes that hold a thread, in percent** (each block's warps are issued whole)."),
    answer=lambda p: 100 * simt.block_lane_use(p["threads"]))

define(
    "memory-5", title="A strided read from DRAM",
    defaults={"gpu": "H200", "stride": 4, "elem": 4},
    draw=lambda r: {"gpu": r.choice(("A100", "H100", "H200", "B200")),
                    "stride": r.choice((2, 3, 4, 8, 16, 32)), "elem": r.choice((4, 8))},
    question=lambda p: (
        f"A warp reads {'FP32' if p['elem'] == 4 else 'FP64'} values {p['stride']} elements "
        f"apart from the DRAM of {a(p['gpu'])} "
        f"({si(machines.get(p['gpu']).bandwidth('dram'), 'B/s')}), which moves whole 64-byte "
        "bursts. Give the **useful bandwidth in byte/s**."),
    answer=lambda p: hierarchy.strided_bandwidth(machines.get(p["gpu"]).bandwidth("dram"),
                                                 p["stride"], p["elem"], piece=64))

define(
    "memory-9", title="Passes over an array that stays in the L2",
    defaults={"passes": 50, "mb": 2.0},
    draw=lambda r: {"passes": r.randrange(10, 201, 10), "mb": r.choice((0.5, 1.0, 1.5, 2.0, 3.0))},
    question=lambda p: (
        f"On a T4, a kernel makes {p['passes']} passes over a {p['mb']:g} MB array that stays in "
        f"the L2 cache, which the T4 note measured at "
        f"{si(machines.notes_t4().bandwidth('l2'), 'B/s')}. Give the **time in seconds**."),
    answer=lambda p: p["passes"] * p["mb"] * 1e6 / machines.notes_t4().bandwidth("l2"))

define(
    "moves-1", title="A peak from its parts",
    defaults={"gpu": "B200", "mhz": 1650},
    draw=lambda r: {"gpu": r.choice(("T4", "A100", "H200")), "mhz": r.randrange(900, 2001, 15)},
    question=lambda p: (
        f"Give the **peak FP32 rate in FLOP/s** of {a(p['gpu'])} at a clock of "
        f"{count(p['mhz'])} MHz ({machines.get(p['gpu']).sms} SMs × "
        f"{machines.get(p['gpu']).fp32_lanes_per_sm} FP32 lanes, one FMA per lane per cycle)."),
    answer=lambda p: clocks.peak(machines.get(p["gpu"]).sms,
                                 machines.get(p["gpu"]).fp32_lanes_per_sm, p["mhz"] * 1e6))

define(
    "flash-4", title="The fused kernel's memory",
    defaults={"heads": 32, "seq": 32768, "d": 128},
    draw=lambda r: {"heads": r.choice((8, 12, 16, 32)), "seq": r.choice((4096, 8192, 16384, 32768)),
                    "d": r.choice((64, 128))},
    question=lambda p: (
        f"A fused attention kernel keeps, beside $Q$, $K$ and $V$, the FP16 output and one FP32 "
        f"log-sum-exp per row and head. Give its **extra memory in bytes** for {p['heads']} "
        f"heads, $S = {count(p['seq'])}$, $d = {p['d']}$."),
    answer=lambda p: hierarchy.attention_extra_bytes(p["seq"], p["d"], 1, p["heads"], 2.0,
                                                     flash=True))

define(
    "flash-11", title="Blocks a causal mask skips",
    defaults={"seq": 4096, "block": 128},
    draw=lambda r: {"seq": r.choice((1024, 2048, 4096, 8192, 16384, 32768)),
                    "block": r.choice((64, 128, 256))},
    question=lambda p: (
        f"Causal attention with $S = {count(p['seq'])}$ in square blocks of {p['block']}: give "
        "the **fraction of (query block, key block) pairs** the kernel can skip because every "
        "score in them is masked."),
    answer=lambda p: softmax.causal_skipped_fraction(p["seq"], p["block"]))
