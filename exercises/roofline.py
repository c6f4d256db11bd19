"""Numeric exercises of the chapter "The roofline" (chapters/04_roofline.md).

Every answer is computed by perfmodel when asked for; the ids match the exercise labels
in the chapter. tests/test_exercises_roofline.py checks each answer against plain
arithmetic from the source documents' figures.
"""
from __future__ import annotations

from perfmodel import _check, machines, ops, roofline

from .registry import register
from .search import first_true

CH = "roofline"
N = 2 ** 24
D = 4096

#: Exercise 2.2 of the Why GPUs Exist chapter: a made-up GPU with 19.5 TFLOP/s FP32 and 900 GB/s.
EX_GPU = machines.measured("exercise GPU", {"fp32": 19.5e12}, {"dram": 900e9},
                           source="made-up figures of exercise 2.2 in Why GPUs Exist")
#: The parallelism notes' machine with a ridge of 40: 40 TFLOP/s FP32 over 1 TB/s.
RIDGE40 = machines.measured("ridge-40 GPU", {"fp32": 40e12}, {"dram": 1e12},
                            source="the parallelism notes' RTX-class example")
#: The lecture notes' imaginary accelerator: C = 100 TFLOP/s, B = 1 TB/s.
IMAGINARY = machines.measured("imaginary accelerator", {"fp32": 100e12}, {"dram": 1e12},
                              source="the lecture notes' imaginary accelerator")
#: The T4 as the T4 note measured it: 6.8 TFLOP/s of FMAs, 230 GB/s when copying.
T4_MEASURED = machines.notes_t4()


def crossover_batch(machine, unit: str = "fp16_tensor", d: int = D, dtype: str = "fp16") -> int:
    """Smallest batch at which a d x d linear layer reaches the machine's ridge for that unit."""
    ridge = machines.get(machine).ridge(unit)
    return first_true(lambda b: ops.linear(b, d, d, dtype).intensity >= ridge)


register("roofline-1", CH,
         "GPU with 19.5 TFLOP/s FP32 and 900 GB/s: a kernel of intensity 4 achieves 2.1 TFLOP/s. "
         "What fraction of its roofline ceiling is that?",
         lambda: 2.1e12 / roofline.attainable(EX_GPU, 4.0), unit="fraction",
         hint="The ceiling is the lower of 19.5 TFLOP/s and 4 x 900 GB/s.")

register("roofline-2", CH,
         "Highest fraction of the T4's FP32 peak that an FP32 sum reduction can reach.",
         lambda: (roofline.attainable("T4", ops.reduction(N).intensity)
                  / machines.get("T4").peak_flops("fp32")), unit="fraction",
         hint="A reduction's intensity is 1/4; multiply by 320 GB/s and divide by 8.1 TFLOP/s.")

register("roofline-3", CH,
         "On a machine with a ridge of 40 FLOP/byte (40 TFLOP/s, 1 TB/s), the highest fraction "
         "of peak FLOP/s an FP32 vector add can reach.",
         lambda: roofline.attainable(RIDGE40, ops.vector_add(N).intensity)
         / RIDGE40.peak_flops("fp32"), unit="fraction",
         hint="(1/12) x 1 TB/s over 40 TFLOP/s.")

register("roofline-4", CH,
         "A kernel does 2 GFLOP and moves 1 GB on an A100 in FP32: its roofline floor time.",
         lambda: roofline.time("A100", ops.Op("exercise kernel", 2e9, 1e9)), unit="s",
         hint="Compare F/P with D/B; the larger one is the floor.")

register("roofline-5", CH,
         "Imaginary accelerator (100 TFLOP/s, 1 TB/s): the 1 TFLOP kernel recomputes its "
         "intermediates instead of storing them, cutting its traffic to 5 GB and doubling its "
         "FLOPs. The lower bound on its time.",
         lambda: roofline.time(IMAGINARY, ops.Op("recomputed", 2e12, 5e9)), unit="s",
         hint="max(F/C, D/B) with the new F and D: which of the two is larger now?")

register("roofline-6", CH,
         "Speed-of-light time of a batch-1 4096 x 4096 FP16 linear layer on an H200 (datasheet).",
         lambda: roofline.time("H200", ops.linear(1, D, D, "fp16"), unit="fp16_tensor"),
         unit="s", hint="Almost all of the bytes are the 2-byte weights; divide by 4.8 TB/s.")

register("roofline-7", CH,
         "Smallest batch at which an 8192 x 8192 FP16 linear layer reaches the H100's dense FP16 "
         "tensor-core ridge.",
         lambda: float(crossover_batch("H100", d=8192)), unit="inputs", rel_tol=0.01,
         close_tol=0.1,
         hint="I(b) = 2 b d^2 / (2 (d^2 + 2 b d)); set it equal to 989 TFLOP/s over 3.35 TB/s.")

#: Exercise 8: a batch of independent 32 x 32 FP32 products, each reading A and B and writing C
#: once (perfect reuse inside one product), on an A100's FP32 lanes (no tensor cores).
SMALL_MM = 32

register("roofline-8", CH,
         "Ceiling on an A100 (19.5 TFLOP/s FP32, 2.039 TB/s) of a batch of independent 32 x 32 "
         "FP32 matrix products, each reading A and B and writing C once.",
         lambda: roofline.attainable("A100", ops.matmul(SMALL_MM).intensity), unit="FLOP/s",
         hint="One product: 2 n^3 FLOPs over 3 n^2 x 4 bytes; is that below or above the "
              "A100's ridge?")

def multiplies_only(machine="H200") -> machines.Machine:
    """``machine`` for a kernel without FMAs: each FP32 instruction is one FLOP, so the
    compute roof is half the datasheet peak; the memory roof is unchanged."""
    m = machines.get(machine)
    return machines.measured(f"{m.name} (no FMAs)", {"fp32": m.peak_flops("fp32") / 2},
                             {"dram": m.bandwidth("dram")},
                             source=f"{m.name} datasheet, FP32 peak halved")


register("roofline-9", CH,
         "Ceiling on an H200 of a kernel made only of FP32 multiplies (no FMAs) at an intensity "
         "of 10 FLOP/byte.",
         lambda: roofline.attainable(multiplies_only("H200"), 10.0), unit="FLOP/s",
         hint="The peak assumes every instruction is an FMA worth 2 FLOPs; compare half of it "
              "with 10 x 4.8 TB/s.")

register("roofline-10", CH,
         "Predicted time of an FP32 add of 2**28 elements on the T4 at the measured copy "
         "bandwidth of 230 GB/s.",
         lambda: roofline.time(T4_MEASURED, ops.vector_add(2 ** 28)), unit="s",
         hint="12 bytes per element over 230 GB/s.")

#: Exercise 11: a 70-billion-parameter model stored in FP8 (1 byte a weight), decoded one
#: token at a time on an H200: every token reads every weight once.
DECODE_PARAMS, DECODE_BYTES_PER_PARAM = 70e9, 1.0


def decode_tokens_per_second(machine: str = "H200", params: float = DECODE_PARAMS,
                             bytes_per_param: float = DECODE_BYTES_PER_PARAM) -> float:
    """Upper bound on tokens per second (1/s) of batch-1 decoding: each token streams
    ``params`` x ``bytes_per_param`` bytes of weights at the machine's DRAM bandwidth."""
    weights = (_check.positive("params", params)
               * _check.positive("bytes_per_param", bytes_per_param))
    return 1.0 / roofline.memory_time(machines.get(machine), ops.Op("decode step", 0.0, weights))


register("roofline-11", CH,
         "Upper bound on tokens per second when an H200 (4.8 TB/s) decodes a 70-billion-"
         "parameter FP8 model at batch 1.",
         decode_tokens_per_second, unit="tokens/s",
         hint="Each token reads every weight once: 70 GB per token at 4.8 TB/s.")

#: Exercise 13: the T4's L2 as the T4 note measured it (1.1 TB/s), as a roof of its own.
register("roofline-13", CH,
         "Ceiling of an FP32 vector add whose three arrays stay in the T4's L2 cache "
         "(1.1 TB/s measured).",
         lambda: roofline.attainable(T4_MEASURED, ops.vector_add(N).intensity, level="l2"),
         unit="FLOP/s",
         hint="The same roofline with the L2's slope: 1/12 FLOP/byte x 1.1 TB/s.")
