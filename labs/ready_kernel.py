"""The small kernel labs.ready launches to show numba.cuda works (a module of its own so
that numba's CUDA simulator, which swaps the ``cuda`` a kernel's globals name, runs it)."""
from __future__ import annotations

from .gpu import numba_cuda

cuda = numba_cuda()


@cuda.jit
def twice_plus_one(x, out):
    """out[i] = 2 x[i] + 1."""
    i = cuda.grid(1)
    if i < x.size:
        out[i] = 2.0 * x[i] + 1.0
