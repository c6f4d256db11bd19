"""Even elements take path A, odd ones path B. Thread t works on element t (and on
t + T, t + 2T, ...: T, the grid's threads, is a multiple of 64), so every warp has lanes
on both paths. Change ``element`` so that the 32 lanes of a warp take one path."""
import numpy as np
from numba import cuda

from labs.challenges.harness import resident_grid

THREADS = 256
A0, B0 = np.float32(0.999), np.float32(0.001)   # path A: v <- v * A0 + B0
A1, B1 = np.float32(0.998), np.float32(0.002)   # path B
ONE, ZERO = np.float32(1.0), np.float32(0.0)


@cuda.jit(device=True)
def element(t, n):
    return t                            # your turn: regroup


@cuda.jit(device=True, inline=True)
def steps32(v, a, b):
    for _ in range(32):                 # a constant count: unrolled
        v = v * a + b
    return v


@cuda.jit(device=True, inline=True)
def both_chains(u, a, b):
    """The element's two chains of 128 multiply-adds: (u, a, b) -> u' + w'."""
    w = u + ONE
    u = steps32(steps32(steps32(steps32(u, a, b), a, b), a, b), a, b)
    w = steps32(steps32(steps32(steps32(w, a, b), a, b), a, b), a, b)
    return u + w


@cuda.jit(fastmath=True)
def paths(x, out):
    # Indices are unsigned (uint64): numba adds Python's negative-index wraparound to
    # every access through a signed one.
    n, stride = np.uint64(x.size), np.uint64(cuda.gridsize(1))
    e = np.uint64(element(cuda.grid(1), x.size))
    f = e + stride                      # a thread's elements come in pairs (e, f)
    even = e % np.uint64(2) == np.uint64(0)   # the parity of all of them (stride: 64k)
    u = x[e] if e < n else ZERO
    v = x[f] if f < n else ZERO
    while e < n:
        g = f + stride                  # the next pair: its loads are in flight
        h = g + stride                  # while this pair's chains run
        nu = x[g] if g < n else ZERO
        nv = x[h] if h < n else ZERO
        if even:                        # path A
            ru, rv = both_chains(u, A0, B0), both_chains(v, A0, B0)
        else:                           # path B
            ru, rv = both_chains(u, A1, B1), both_chains(v, A1, B1)
        out[e] = ru
        if f < n:
            out[f] = rv
        e, f, u, v = g, h, nu, nv


def launch(x, out):
    # One wave of resident blocks (no more than the elements need), each thread
    # walking its elements with the grid's stride.
    blocks = resident_grid(paths, THREADS, (x, out))
    paths[min(blocks, (x.size + THREADS - 1) // THREADS), THREADS](x, out)
