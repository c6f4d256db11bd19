"""Even elements take path A, odd ones path B: thread t works on element t, so every
warp diverges. Change ``element`` so that each warp's lanes take one path."""
import numpy as np
from numba import cuda

THREADS = 256
A0, B0 = np.float32(0.999), np.float32(0.001)   # path A: v <- v * A0 + B0
A1, B1 = np.float32(0.998), np.float32(0.002)   # path B


@cuda.jit(device=True, inline=True)
def steps32(v, a, b):
    for _ in range(32):                 # a constant count: unrolled
        v = v * a + b
    return v


@cuda.jit(device=True)
def element(t, n):
    return t                            # your turn: regroup


@cuda.jit(fastmath=True)
def paths(x, out):
    e = element(cuda.grid(1), x.size)
    if e < x.size:
        u = x[e]
        w = x[e] + np.float32(1.0)
        if e % 2 == 0:                  # path A
            for _ in range(4):
                u = steps32(u, A0, B0)
                w = steps32(w, A0, B0)
        else:                           # path B
            for _ in range(4):
                u = steps32(u, A1, B1)
                w = steps32(w, A1, B1)
        out[e] = u + w


def launch(x, out):
    paths[(x.size + THREADS - 1) // THREADS, THREADS](x, out)
