"""Warp 2p takes the even elements of the span 64p .. 64p + 63 and warp 2p + 1 the odd
ones: every warp is converged, and the kernel runs at the FMA rate. Nothing else
changes: ``paths`` is the starter's kernel, word for word, compiled with this
``element`` in place of the starter's."""
import types

from numba import cuda

from labs.challenges.starters import regroup as starter

THREADS = starter.THREADS


@cuda.jit(device=True)
def element(t, n):
    warp, lane = t // 32, t % 32
    return 64 * (warp // 2) + 2 * lane + warp % 2


_body = starter.paths.py_func
paths = cuda.jit(fastmath=True)(types.FunctionType(
    _body.__code__, {**_body.__globals__, "element": element}, _body.__name__))


def launch(x, out):
    paths[(x.size + THREADS - 1) // THREADS, THREADS](x, out)
