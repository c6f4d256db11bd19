"""Numeric exercises of the chapter "Arithmetic intensity" (chapters/03_intensity.md).

Every answer is computed by perfmodel when asked for; nothing is typed twice. The ids
match the exercise labels in the chapter. tests/test_exercises_intensity.py checks each
answer against plain arithmetic from the Why GPUs Exist chapter's counting rules.
"""
from __future__ import annotations

from perfmodel import _check, machines, ops

from .registry import register
from .search import first_true

CH = "intensity"
#: Any large size: per-element intensities do not depend on it.
N = 2 ** 24
#: The skinny GEMM of the interview drill and the linear layers: 4096 x 4096 weights.
D = 4096


def knob_op(n: int, k: int, dtype: str = "fp32") -> ops.Op:
    """The intensity-knob kernel: each float is read, gets k multiply-adds, is written back."""
    return ops.elementwise(n, flops_per_element=2 * k, reads=1, writes=1, dtype=dtype,
                           name=f"knob k={k}")


def knob_turn(machine) -> float:
    """The k (multiply-adds per float) at which the knob kernel reaches a machine's FP32 ridge."""
    m = machines.get(machine)
    per_k = knob_op(N, 1).intensity          # FLOP/byte added by each multiply-add
    return m.ridge("fp32") / per_k


#: The drill's transfers: a cubic by Horner's rule (3 FMAs), softplus log(1 + exp(x)) (exp
#: and log about 10 operations each, and one add), a 5x5 convolution (25 FMAs per output).
HORNER_FMAS, SOFTPLUS_FLOPS, CONV5_FMAS = 3, 21, 25
#: The skinny GEMM's batch: 32 sequences decoded at once, in BF16.
SKINNY_BATCH = 48

register("intensity-1", CH,
         "Arithmetic intensity of y[i] = ((a x[i] + b) x[i] + c) x[i] + d (Horner's rule) in "
         "FP32 with no reuse.",
         lambda: ops.elementwise(N, 2 * HORNER_FMAS, reads=1, writes=1).intensity,
         unit="FLOP/byte", hint="Three multiply-adds per element; count the read of x and the "
                                "write of y.")

register("intensity-2", CH,
         "Arithmetic intensity of y[i] = log(1 + exp(x[i])) in FP32, counting exp and log as "
         "about 10 operations each.",
         lambda: ops.elementwise(N, SOFTPLUS_FLOPS, reads=1, writes=1).intensity,
         unit="FLOP/byte", rel_tol=0.2, close_tol=0.4,
         hint="exp and log are short special-function sequences; bytes as for any one-in, "
              "one-out map.")

register("intensity-3", CH,
         "Arithmetic intensity of a 5x5, one-channel convolution in FP32 with shared-memory "
         "tiling (each input loaded once).",
         lambda: ops.elementwise(N, 2 * CONV5_FMAS, reads=1, writes=1).intensity,
         unit="FLOP/byte",
         hint="25 multiply-adds per output; with tiling, one 4-byte load and one 4-byte store.")

register("intensity-4", CH,
         "Arithmetic intensity of C = A B with A 48x4096 and B 4096x4096 in BF16 "
         "(read A and B once, write C once).",
         lambda: ops.gemm(SKINNY_BATCH, D, D, "bf16").intensity, unit="FLOP/byte",
         hint="The 4096 x 4096 weights dominate the bytes; two bytes per number.")

def stencil7(n: int, reuse: bool) -> ops.Op:
    """A 3D 7-point FP32 stencil, u' = (u + its six neighbours) / 7: 6 adds and a multiply
    per point; without reuse each point loads 7 values, with perfect reuse 1; one store."""
    return ops.elementwise(n, flops_per_element=7, reads=1 if reuse else 7, writes=1,
                           name=f"7-point stencil ({'perfect' if reuse else 'no'} reuse)")


#: Exercise 5's grid: STENCIL_EDGE points a side, in FP32.
STENCIL_EDGE = 1536


def stencil7_planes_bytes(edge: int = STENCIL_EDGE, dtype: str = "fp32") -> float:
    """Bytes of the three edge x edge planes (below, current, above) that a z-sweep of the
    3D 7-point stencil must keep on chip to load each input from DRAM only once."""
    edge = _check.count("edge", edge)
    return 3 * float(edge) ** 2 * ops.dtype_bytes(dtype)


register("intensity-5", CH,
         "Bytes of on-chip storage a plane-by-plane sweep of a 1536^3 FP32 3D 7-point stencil "
         "needs for perfect reuse (three 1536 x 1536 planes).",
         stencil7_planes_bytes, unit="bytes",
         hint="The plane below, the current one and the plane above: 3 x 1536 x 1536 x 4 bytes.")

register("intensity-6", CH,
         "Arithmetic intensity of an out-of-place FP64 scale y = a * x (one read, one write).",
         lambda: ops.elementwise(N, 1, reads=1, writes=1, dtype="fp64").intensity,
         unit="FLOP/byte", hint="One multiply per element; 8 bytes read, 8 bytes written.")

register("intensity-7", CH,
         "Smallest tile edge T at which the tile intensity T/s of an FP32 tiled matmul reaches "
         "the H100's FP32 ridge (66.9 TFLOP/s over 3.35 TB/s, datasheet).",
         lambda: machines.get("H100").ridge("fp32") * ops.dtype_bytes("fp32"), unit="elements",
         hint="Set T / 4 equal to 66.9 TFLOP/s over 3.35 TB/s.")

register("intensity-8", CH,
         "Factor by which NVFP4 weights (with their block scales) cut the bytes of a batch-1 "
         "4096 x 4096 linear layer compared with FP16.",
         lambda: ops.linear(1, D, D, "fp16").bytes / ops.linear(1, D, D, "nvfp4").bytes,
         unit="x", hint="An NVFP4 value is 4 bits plus one 8-bit scale per 16 values.")

register("intensity-9", CH,
         "Shortest sequence length S at which FlashAttention (d = 64, FP8 inputs and outputs) "
         "reaches the H100's dense FP8 tensor-core ridge.",
         lambda: float(first_true(lambda s: ops.attention(s, 64, flash=True, dtype="fp8").intensity
                              >= machines.get("H100").ridge("fp8_tensor"))),
         unit="tokens", rel_tol=0.01, close_tol=0.1,
         hint="In FP8 the flash intensity is S; the ridge is 1,979 TFLOP/s over 3.35 TB/s.")

register("intensity-10", CH,
         "Multiply-adds per float k at which the intensity-knob kernel reaches the B200's "
         "datasheet FP32 ridge.",
         lambda: knob_turn("B200"), unit="FMA per float",
         hint="Each multiply-add adds 2 FLOPs per 8 bytes moved, so I = k/4.")

register("intensity-11", CH,
         "Bytes moved by an out-of-place ReLU on 2**30 values stored in MXFP8 (input and output, "
         "block scales included).",
         lambda: ops.relu(2 ** 30, "mxfp8").bytes, unit="bytes",
         hint="MXFP8 is one byte per value plus one 8-bit scale per 32 values.")
