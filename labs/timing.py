"""GPU time of one kernel launch without the launch's own CPU cost in it.

:func:`labs.gpu.cuda_time` records a start event, then launches: while Python and the
driver prepare the launch (10-40 us for a numba kernel with several arguments) the GPU
sits idle between the two events, and that idle time is counted. For kernels of a few
hundred microseconds that is a bias of several percent, the same size as the effects the
memory labs measure. :func:`queued_time` first puts a short spin (``torch.cuda._sleep``)
on the stream, so the start event, the launch and the stop event are all queued while
the GPU is still busy: the events then bracket the kernel alone.
"""
from __future__ import annotations

from typing import Callable

from .gpu import cuda_time

#: GPU cycles of spin queued before each timed launch (about 0.25 ms at 2 GHz): longer
#: than the CPU needs to queue the events and one numba launch.
SLEEP_CYCLES = 500_000


def queued_time(launch: Callable[[], object], warmup: int = 2, repeats: int = 10,
                sleep_cycles: int = SLEEP_CYCLES) -> float:
    """Median seconds of ``launch()`` on the GPU, each repeat queued behind a spin so that
    the CPU's launch cost stays outside the events. ``launch`` must queue its work on the
    current torch stream (numba's default stream is the same legacy stream)."""
    import torch

    if warmup < 0 or repeats < 1 or sleep_cycles < 0:
        raise ValueError(f"need warmup >= 0, repeats >= 1, sleep_cycles >= 0; got "
                         f"{warmup}, {repeats}, {sleep_cycles}")
    sleep = getattr(torch.cuda, "_sleep", None)
    spin = (lambda: sleep(int(sleep_cycles))) if sleep is not None and sleep_cycles else None
    return cuda_time(launch, warmup=warmup, repeats=repeats, before=spin)
