"""Warp 2p takes the even elements of the span 64p .. 64p + 63 and warp 2p + 1 the odd
ones: every warp is converged, and the kernel runs at the FMA rate."""
import numpy as np
from numba import cuda

THREADS = 256
A0, B0 = np.float32(0.999), np.float32(0.001)
A1, B1 = np.float32(0.998), np.float32(0.002)


@cuda.jit(device=True, inline=True)
def steps32(v, a, b):
    for _ in range(32):
        v = v * a + b
    return v


@cuda.jit(device=True)
def element(t, n):
    warp, lane = t // 32, t % 32
    return 64 * (warp // 2) + 2 * lane + warp % 2


@cuda.jit(fastmath=True)
def paths(x, out):
    e = element(cuda.grid(1), x.size)
    if e < x.size:
        u = x[e]
        w = x[e] + np.float32(1.0)
        if e % 2 == 0:
            for _ in range(4):
                u = steps32(u, A0, B0)
                w = steps32(w, A0, B0)
        else:
            for _ in range(4):
                u = steps32(u, A1, B1)
                w = steps32(w, A1, B1)
        out[e] = u + w


def launch(x, out):
    paths[(x.size + THREADS - 1) // THREADS, THREADS](x, out)
