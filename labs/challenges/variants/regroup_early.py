"""The regroup reference with each pair's first step moved to the end of the turn before:
ptxas waits for every load still on order at the first use of any loaded register
(``labs/kernels.py``, the FMA knob), so in the reference the next pair's loads, issued at
the top of a turn, are waited for by that turn's first multiply-add. Here the loaded
values are first used at the end of the turn (one step of each of their chains), after
the turn's 508 other multiply-adds; the turn itself runs 127 steps a chain."""
import numpy as np
from numba import cuda

from labs.challenges.harness import resident_grid
from labs.challenges.solutions.regroup import element
from labs.challenges.starters.regroup import A0, A1, B0, B1, ONE, THREADS, ZERO, steps32


@cuda.jit(device=True, inline=True)
def steps31(v, a, b):
    for _ in range(31):
        v = v * a + b
    return v


@cuda.jit(device=True, inline=True)
def rest(u, w, a, b):
    """Steps 2 .. 128 of an element's two chains, then their sum."""
    u = steps31(steps32(steps32(steps32(u, a, b), a, b), a, b), a, b)
    w = steps31(steps32(steps32(steps32(w, a, b), a, b), a, b), a, b)
    return u + w


@cuda.jit(fastmath=True)
def paths(x, out):
    n, stride = np.uint64(x.size), np.uint64(cuda.gridsize(1))
    e = np.uint64(element(cuda.grid(1), x.size))
    f = e + stride
    even = e % np.uint64(2) == np.uint64(0)
    x0 = x[e] if e < n else ZERO
    y0 = x[f] if f < n else ZERO
    if even:                            # step 1 of the first pair: waits for its loads here
        u, w, v, z = x0 * A0 + B0, (x0 + ONE) * A0 + B0, y0 * A0 + B0, (y0 + ONE) * A0 + B0
    else:
        u, w, v, z = x0 * A1 + B1, (x0 + ONE) * A1 + B1, y0 * A1 + B1, (y0 + ONE) * A1 + B1
    while e < n:
        g = f + stride
        h = g + stride
        nu = x[g] if g < n else ZERO
        nv = x[h] if h < n else ZERO
        if even:
            ru, rv = rest(u, w, A0, B0), rest(v, z, A0, B0)
            u, w, v, z = nu * A0 + B0, (nu + ONE) * A0 + B0, nv * A0 + B0, (nv + ONE) * A0 + B0
        else:
            ru, rv = rest(u, w, A1, B1), rest(v, z, A1, B1)
            u, w, v, z = nu * A1 + B1, (nu + ONE) * A1 + B1, nv * A1 + B1, (nv + ONE) * A1 + B1
        out[e] = ru
        if f < n:
            out[f] = rv
        e, f = g, h


def launch(x, out):
    blocks = resident_grid(paths, THREADS, (x, out))
    paths[min(blocks, (x.size + THREADS - 1) // THREADS), THREADS](x, out)
