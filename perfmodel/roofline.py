"""The roofline: attainable = min(P, I x B), and the time model t = t0 + max(F/P, D/B).

P is the peak of the compute unit the operation uses (FLOP/s), B the DRAM bandwidth
(byte/s), I the operation's intensity (FLOP/byte), t0 the launch toll (s). Host-device
copies over PCIe are serial with the kernel and add D_pcie / B_pcie.
"""
from __future__ import annotations

from typing import Callable, Iterable

from . import _check
from .machines import Machine, get
from .ops import Op


def attainable(machine: Machine | str, intensity: float, unit: str = "fp32",
               level: str = "dram") -> float:
    """Attainable FLOP/s at an intensity (FLOP/byte): min(peak, intensity x bandwidth)."""
    m = get(machine)
    i = _check.positive("intensity", intensity, allow_inf=True)
    return min(m.peak_flops(unit), i * m.bandwidth(level))


def ridge(machine: Machine | str, unit: str = "fp32", level: str = "dram") -> float:
    """The ridge point (machine balance) in FLOP/byte."""
    return get(machine).ridge(unit, level)


def bound(machine: Machine | str, op: Op, unit: str = "fp32") -> str:
    """"memory" when the op's intensity is below the ridge, else "compute"."""
    _op(op)
    return "memory" if op.intensity < ridge(machine, unit) else "compute"


def compute_time(machine: Machine | str, op: Op, unit: str = "fp32") -> float:
    """F / P in seconds."""
    return _op(op).flops / get(machine).peak_flops(unit)


def memory_time(machine: Machine | str, op: Op) -> float:
    """D / B in seconds (DRAM)."""
    return _op(op).bytes / get(machine).bandwidth("dram")


def time(machine: Machine | str, op: Op, unit: str = "fp32", overhead: float = 0.0,
         pcie_bytes: float = 0.0) -> float:
    """Predicted seconds: overhead + max(F/P, D/B) + pcie_bytes / B_pcie.

    overhead is the launch toll t0 in seconds (0 gives the speed-of-light time);
    pcie_bytes are bytes copied between host and device around the kernel.
    """
    t0 = _check.non_negative("overhead", overhead)
    pcie = _check.non_negative("pcie_bytes", pcie_bytes)
    m = get(machine)
    t = t0 + max(compute_time(m, op, unit), memory_time(m, op))
    if pcie:
        t += pcie / m.bandwidth("pcie")
    return t


def speed_of_light(machine: Machine | str, op: Op, unit: str = "fp32") -> float:
    """The floor: max(F/P, D/B) in seconds, no toll."""
    return time(machine, op, unit)


def fraction_of_roof(machine: Machine | str, op: Op, seconds: float, unit: str = "fp32") -> float:
    """Achieved FLOP/s of a measured time over the attainable FLOP/s at the op's intensity."""
    t = _check.positive("seconds", seconds)
    op = _op(op)
    return (op.flops / t) / attainable(machine, op.intensity, unit)


def breakeven(make_op: Callable[[int], Op], sizes: Iterable[int], slow: Machine | str,
              fast: Machine | str, unit: str = "fp32", slow_overhead: float | None = None,
              fast_overhead: float | None = None, fast_pcie: Callable[[int], float] | None = None
              ) -> int | None:
    """The first size at which ``fast`` is predicted quicker than ``slow`` (None if never).

    Each machine pays its own launch toll unless an overhead is given; ``fast_pcie``
    maps a size to the bytes that must cross the host link for the fast machine.
    """
    a, b = _machine("slow", slow), _machine("fast", fast)
    if not callable(make_op):
        raise TypeError(f"make_op must be a function of a size returning an Op, got "
                        f"{_check.show(make_op)}")
    if fast_pcie is not None and not callable(fast_pcie):
        raise TypeError(f"fast_pcie must be a function of a size (bytes), got "
                        f"{_check.show(fast_pcie)}")
    ta0 = a.launch_overhead.value if slow_overhead is None else _check.non_negative(
        "slow_overhead", slow_overhead)
    tb0 = b.launch_overhead.value if fast_overhead is None else _check.non_negative(
        "fast_overhead", fast_overhead)
    for n in _check.items("sizes", sizes):
        op = make_op(n)
        pcie = fast_pcie(n) if fast_pcie else 0.0
        if time(b, op, unit, tb0, pcie) < time(a, op, unit, ta0):
            return n
    return None


def _machine(argument: str, value) -> Machine:
    """machines.get, its message naming the argument."""
    try:
        return get(value)
    except ValueError as exc:
        raise ValueError(f"{argument}: {exc}") from None


def _op(op: Op) -> Op:
    if not isinstance(op, Op):
        raise ValueError(f"op must be a perfmodel.ops.Op, got {type(op).__name__}")
    return op


#: The data type an operation's arrays have when it runs on a compute unit (the book's
#: "precision" knob): FP32 cores on fp32 data, tensor cores on their own formats. FP4
#: tensor work is counted in NVFP4, whose bytes include the block scales.
UNIT_DTYPES = {"fp32": "fp32", "fp64": "fp64", "fp16_tensor": "fp16", "bf16_tensor": "bf16",
               "fp8_tensor": "fp8", "fp4_tensor": "nvfp4"}


def unit_dtype(unit: str) -> str:
    """The dtype of the data an op runs on ``unit`` with (see UNIT_DTYPES)."""
    return UNIT_DTYPES[_check.choice("unit", unit, UNIT_DTYPES)]


def unit_for(machine: Machine | str, dtype: str, tensor: bool = True) -> str:
    """The compute unit an op in ``dtype`` runs on: the dtype's tensor unit when ``tensor``
    (a matrix product) and the machine has one, the FP64 unit for fp64, else FP32 cores
    (narrow data is widened to FP32 for elementwise arithmetic)."""
    m = get(machine)
    d = _check.choice("dtype", dtype, ("fp64", "fp32", "fp16", "bf16", "fp8", "mxfp8",
                                       "fp4", "nvfp4"))
    if d == "fp64":
        return "fp64" if "fp64" in m.peaks else "fp32"
    family = {"mxfp8": "fp8", "nvfp4": "fp4"}.get(d, d)
    if tensor and f"{family}_tensor" in m.peaks:
        return f"{family}_tensor"
    return "fp32"


def pcie_time(machine: Machine | str, nbytes: float) -> float:
    """Seconds to move ``nbytes`` bytes over the host link: nbytes / B_pcie."""
    return _check.non_negative("nbytes", nbytes) / get(machine).bandwidth("pcie")


def achieved(machine: Machine | str, op: Op, unit: str = "fp32", overhead: float = 0.0,
             pcie_bytes: float = 0.0) -> float:
    """Predicted FLOP/s the op reaches once its time includes the toll (and any copies):
    F / time(...). With overhead 0 it is the attainable rate at the op's intensity."""
    return _op(op).flops / time(machine, op, unit, overhead, pcie_bytes)
