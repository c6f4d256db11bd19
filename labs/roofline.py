"""Your GPU's roofline in one call: :func:`my_roofline`."""
from __future__ import annotations

from . import ceilings, common


def my_roofline(name: str | None = None, buffer_bytes: float = 2 ** 28):
    """Measure this GPU's two roofs in quick mode and return a perfmodel ``Machine``.

    Runs a torch device-to-device copy of ``buffer_bytes`` (bytes read + written per
    second: the DRAM roof) and the FMA-peak kernel held for half a second (the FP32 roof),
    then ``perfmodel.machines.from_results`` builds the machine (figures not measured come
    from the datasheet machine of the same name, when the GPU is one of perfmodel's). A few
    seconds on any GPU; the roofline explorer accepts the result as one more machine.
    """
    from perfmodel import machines

    common.require_cuda("intensity")
    n = common.elements_for(buffer_bytes, 4)
    ctx = common.context()
    peak = ceilings.fma_peak(hold_s=0.5)
    summary = {"copy_bandwidth": ceilings.copy_bandwidth(n), "fma_flops": peak["fma_flops"]}
    result = common.record("intensity", {"quick": True, "n_floats": n}, [], summary, ctx)
    return machines.from_results(result, name=name)
