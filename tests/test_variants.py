"""Per-student variants: every variant's answer against plain arithmetic from datasheet
figures (typed here, not read from perfmodel), the chapter's own numbers giving the
registry's answer, and seeds that differ by student and exercise but never by run.

The variants come from the registry (``variants.ids()``): a chapter that drops an
exercise drops its variant here too; a new variant needs its hand formula below."""
from __future__ import annotations

import math

import pytest

from exercises import answer, variants

# Datasheet figures: FP32 and dense FP16/BF16 tensor FLOP/s, DRAM byte/s, SMs.
FP32 = {"T4": 8.1e12, "A100": 19.5e12, "H100": 66.9e12, "H200": 66.9e12, "B200": 75e12}
TENSOR16 = {"A100": 312e12, "H100": 989e12, "H200": 989e12, "B200": 2250e12}
DRAM = {"T4": 320e9, "A100": 2.039e12, "H100": 3.35e12, "H200": 4.8e12, "B200": 8e12}
SMS = {"A100": 108, "H100": 132, "H200": 132}
MAX_THREADS = {"T4": 1024, "H200": 2048}   # per SM
REGISTERS = 65536                          # 32-bit registers per SM (T4 and Hopper)
BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}


def _crossover(ridge: float, d: int) -> int:
    # I(b) = 2 b d^2 / (2 (d^2 + 2 b d)) = b d / (d + 2 b) >= ridge  <=>  b >= ridge d / (d - 2 ridge)
    return math.ceil(ridge * d / (d - 2 * ridge) - 1e-9)


def _occupancy(p):
    # registers by the warp in 256s, the file in four quarters of whole warps
    per_warp = -(-p["regs"] * 32 // 256) * 256
    warps = 4 * (REGISTERS // 4 // per_warp)
    blocks = min(warps // (p["block"] // 32), MAX_THREADS[p["gpu"]] // p["block"])
    return 100 * blocks * p["block"] / MAX_THREADS[p["gpu"]]


HAND = {
    "roofline-1": lambda p: p["achieved"] / min(p["peak"], p["intensity"] * p["bw"]),
    "roofline-2": lambda p: (DRAM[p["gpu"]] / 4) / FP32[p["gpu"]],   # 1 add per 4-byte read
    "roofline-3": lambda p: (p["bw"] / 12) / p["peak"],              # 1 add per 12 bytes
    "roofline-4": lambda p: max(p["flops"] / FP32[p["gpu"]], p["bytes"] / DRAM[p["gpu"]]),
    "roofline-5": lambda p: max(p["flops"] / p["peak"], p["bytes"] / p["bw"]),
    "roofline-6": lambda p: max(2 * p["d"] ** 2 / TENSOR16[p["gpu"]],
                                2 * (p["d"] ** 2 + 2 * p["d"]) / DRAM[p["gpu"]]),
    "roofline-7": lambda p: _crossover(TENSOR16[p["gpu"]] / DRAM[p["gpu"]], p["d"]),
    "roofline-10": lambda p: 12 * 2 ** p["log2n"] / p["bw"],
    "parallelism-1": lambda p: 1 / ((1 - p["share"]) + p["share"] / p["gain"]),
    "parallelism-5": lambda p: p["speedup"] / p["cores"],
    "parallelism-7": lambda p: p["serial"] + (1 - p["serial"]) * p["units"],
    "intensity-2": lambda p: p["ops"] / (2 * BYTES[p["dtype"]]),
    "intensity-4": lambda p: 2 * p["m"] * p["n"] * p["k"] / (
        BYTES[p["dtype"]] * (p["m"] * p["k"] + p["k"] * p["n"] + p["m"] * p["n"])),
    "triage-1": lambda p: 8 * p["edge"] ** 2 / DRAM[p["gpu"]],      # read 4 B, write 4 B a point
    "triage-4": lambda p: p["kernels"] * 2 * p["gb"] * 1e9 / p["bw"],
    # every BF16 element read once, one 4-byte total written per row
    "triage-5": lambda p: (2 * math.prod(p["shape"]) + 4 * math.prod(p["shape"][:2]))
    / DRAM[p["gpu"]],
    "simt-1": lambda p: math.ceil(p["n"] / p["block"]) * math.ceil(p["block"] / 32),
    "simt-7": lambda p: 100 * (1 - (1 - p["p"]) ** 32),
    "simt-10": _occupancy,
    "latency-1": lambda p: DRAM[p["gpu"]] * p["ns"] * 1e-9,
    # bytes in flight over the latency, as a share (percent, at most 100) of the bandwidth
    "latency-4": lambda p: 100 * min(1, SMS[p["gpu"]] * p["warps"] * 32 * p["load"]
                                     / (p["ns"] * 1e-9) / DRAM[p["gpu"]]),
    "latency-5": lambda p: (min(MAX_THREADS[p["gpu"]] // 32,
                                4 * (REGISTERS // 4 // (-(-p["regs"] * 32 // 256) * 256)))
                            * 32 * p["loads"] * 16),
    "memory-3": lambda p: math.isqrt(p["kib"] * 1024 // (2 * p["elem"])),
    # x, y, z: bytes 0-11 of a record that starts at a multiple of 16, one 32-byte sector each
    "memory-6": lambda p: 32 * 2 ** p["log2n"] / DRAM[p["gpu"]],
    "moves-11": lambda p: p["flops"] / TENSOR16[p["gpu"]] / 3600,
    "flash-3": lambda p: p["heads"] * (2 * p["seq"] ** 2 + p["seq"] * p["d"]) * 2,
    "simt-2": lambda p: 100 * p["threads"] / (32 * math.ceil(p["threads"] / 32)),
    # 32 lanes stride x elem bytes apart: every 64-byte burst holds 64 / (stride x elem)
    # useful values while the stride is under a burst, one value a burst beyond it.
    "memory-5": lambda p: DRAM[p["gpu"]] * (1 / p["stride"] if p["stride"] * p["elem"] <= 64
                                             else p["elem"] / 64),
    "memory-9": lambda p: p["passes"] * p["mb"] * 1e6 / 1.1e12,       # the T4 note's L2
    "moves-1": lambda p: ({"T4": 40 * 64, "A100": 108 * 64, "H200": 132 * 128,
                           "B200": 148 * 128}[p["gpu"]]
                          * 2 * p["mhz"] * 1e6),
    "flash-4": lambda p: p["heads"] * (p["seq"] * p["d"] * 2 + 4 * p["seq"]),
    # nb blocks a side; the nb (nb - 1) / 2 pairs above the diagonal are all masked
    "flash-11": lambda p: (lambda nb: (nb - 1) / (2 * nb))(p["seq"] // p["block"]),
    # --- chapters 9-11 (part2b) ---
    # (B w + S (D - w)) / D = (1 + e) S  ->  D = w (B - S) / (e S)
    "moves-6": lambda p: (p["window_ms"] * 1e-3 * (p["burst"] - p["sustained"])
                          / (p["excess_pct"] / 100 * p["sustained"])),
    # per score: 4 bytes stored and re-read, against 2d tensor FLOPs plus one exponential
    # on 132 SMs x 16 SFU lanes at the 1.83 GHz the tensor peak is quoted at
    "flash-8": lambda p: (4 / 4.8e12) / (2 * p["d"] / 989e12 + 1 / (132 * 16 * 1.83e9)),
    "flash-13": lambda p: p["heads"] * 2 * p["seq"] * p["d"] * 2 / DRAM["H200"],
    # per score: 2d tensor FLOPs a product at 989 TFLOP/s, one exponential on 132 x 16 SFU
    # lanes at 1.83 GHz; backward five products, forward two, each one set of exponentials
    "flash-15": lambda p: ((5 * 2 * p["d"] / 989e12 + 1 / (132 * 16 * 1.83e9))
                           / (2 * 2 * p["d"] / 989e12 + 1 / (132 * 16 * 1.83e9))),
    # NVLink 3/4/5 each way: 12 x 25, 18 x 25, 18 x 50 GB/s; 2(n-1) steps of 5 us
    "comm-1": lambda p: (2 * (p["n"] - 1) * 5e-6 + 2 * (p["n"] - 1) / p["n"] * p["gib"] * 2 ** 30
                         / {"A100": 300e9, "H200": 450e9, "B200": 900e9}[p["gpu"]]),
    "comm-2": lambda p: p["mib"] * 2 ** 20 / (p["ms"] * 1e-3) * (p["n"] - 1) / p["n"],
    # T* = F (n-1) b / (2 n beta), b = 2 bytes
    "comm-4": lambda p: (TENSOR16[p["gpu"]] * (p["n"] - 1) * 2
                         / (2 * p["n"] * {"A100": 300e9, "H200": 450e9, "B200": 900e9}[p["gpu"]])),
    "comm-8": lambda p: (2 * (p["n"] - 1) * 5e-6
                         + 2 * (p["n"] - 1) / p["n"] * p["mib"] * 2 ** 20 / 450e9),
    "comm-10": lambda p: 2 * p["tokens"] * p["n"] / ((p["n"] - 1) * p["bytes"]),
}
IDS = variants.ids()
STUDENTS = [f"student-{k}" for k in range(40)]


def test_there_are_variants_and_each_has_a_hand_formula():
    assert len(IDS) >= 20
    assert set(IDS) <= set(HAND), f"add a hand formula for {sorted(set(IDS) - set(HAND))}"


@pytest.mark.parametrize("id", IDS)
def test_each_students_answer_is_the_hand_arithmetic(id):
    for student in STUDENTS:
        inst = variants.instance(id, "hw1", student)
        assert inst.answer == pytest.approx(HAND[id](inst.params), rel=1e-6), (student, inst.params)
        assert inst.exercise.answer == inst.answer and inst.exercise.hint == ""


@pytest.mark.parametrize("id", IDS)
def test_the_chapters_numbers_give_the_registrys_answer(id):
    inst = variants.default_instance(id)
    assert inst.answer == pytest.approx(answer(id), rel=1e-12)
    assert inst.answer == pytest.approx(HAND[id](inst.params), rel=1e-6)


@pytest.mark.parametrize("id", IDS)
def test_numbers_differ_between_students_not_between_runs(id):
    drawn = [variants.instance(id, "hw1", s) for s in STUDENTS]
    again = [variants.instance(id, "hw1", s) for s in STUDENTS]
    assert [d.params for d in drawn] == [d.params for d in again]
    distinct = {repr(sorted(d.params.items())) for d in drawn}
    assert len(distinct) >= 4, f"{id}: only {len(distinct)} versions among {len(STUDENTS)}"
    defaults = variants.get(id).defaults
    assert all(d.params != defaults for d in drawn), "a student got the chapter's own numbers"
    # The question states the student's numbers: two different versions read differently.
    texts = {d.question for d in drawn}
    assert len(texts) == len(distinct)


def test_seed_depends_on_assignment_student_and_exercise():
    s = variants.seed("hw1", "ada", "roofline-3")
    assert s == variants.seed("hw1", "ada", "ROOFLINE-3")
    assert len({s, variants.seed("hw2", "ada", "roofline-3"), variants.seed("hw1", "bo", "roofline-3"),
                variants.seed("hw1", "ada", "roofline-4")}) == 4
    with pytest.raises(ValueError, match="student"):
        variants.seed("hw1", "", "roofline-3")


def test_an_exercise_without_variants_is_the_chapters():
    plain = next(e.id for e in __import__("exercises").all_exercises() if e.id not in IDS)
    inst = variants.instance(plain, "hw1", "ada")
    assert not inst.varied and inst.answer == answer(plain) and inst.params == {}
