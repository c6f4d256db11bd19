"""Warp 2p takes the even elements of the span 64p .. 64p + 63 and warp 2p + 1 the odd
ones, so every warp is converged; ``element`` divides only by 32 and 2 (shifts and
masks). The grid is one wave of resident blocks, and each thread walks its elements
e, e + T, e + 2T, ... (T, the grid's thread count, is a multiple of 64, so every one has
e's parity, and so does every lane of its warp). The branch on the parity stays: it is
the same for all 32 lanes, so it costs one jump, and each side's multiply-adds carry
their path's constants in the instruction itself (an FFMA with one register and one
immediate operand). Picking a and b into registers with a select instead makes every
FFMA read three registers, and warps that take turns every cycle get little from the
register-reuse cache: on the H200 that version reached 61% of the bound. A thread takes
its elements two at a time (four independent chains), and while it runs their 512
multiply-adds the loads of its next two are already in flight, so no warp waits for
DRAM after its first.

Every index is unsigned (uint64). With a signed index numba adds Python's wraparound to
each load and store (a negative index counts from the end: a sign shift, two masks and
a 64-bit add); an unsigned one cannot be negative, so the loop's own instructions fell
from about 71 to 44 per 512 FFMAs (sm_90 SASS). On the H200 (2026-12-04,
labs/results/H200/regroup_variants.json, three runs each on the same inputs) the signed
version reached 0.804 of the bound and this one 0.869; taking four elements a turn, 0.84
(twice the code a path, for two paths that alternate between warps)."""
import numpy as np
from numba import cuda

from labs.challenges.starters import regroup as starter
from labs.challenges.harness import resident_grid

THREADS = starter.THREADS
A0, B0, A1, B1 = starter.A0, starter.B0, starter.A1, starter.B1
steps32 = starter.steps32


@cuda.jit(device=True)
def element(t, n):
    warp, lane = t // 32, t % 32
    return 64 * (warp // 2) + 2 * lane + warp % 2


@cuda.jit(device=True, inline=True)
def both_chains(u, a, b):
    """The element's two chains of 128 multiply-adds, unrolled: (u, a, b) -> u' + w'."""
    w = u + np.float32(1.0)
    u = steps32(steps32(steps32(steps32(u, a, b), a, b), a, b), a, b)
    w = steps32(steps32(steps32(steps32(w, a, b), a, b), a, b), a, b)
    return u + w


@cuda.jit(fastmath=True)
def paths(x, out):
    n, stride = np.uint64(x.size), np.uint64(cuda.gridsize(1))
    e = np.uint64(element(cuda.grid(1), x.size))
    f = e + stride                        # a thread's elements come in pairs (e, f)
    even = e % np.uint64(2) == np.uint64(0)   # the same for every lane of the warp
    zero = np.float32(0.0)
    u = x[e] if e < n else zero
    v = x[f] if f < n else zero
    while e < n:
        g = f + stride                    # the next pair, same parity as e
        h = g + stride
        nu = x[g] if g < n else zero      # its loads, in flight meanwhile
        nv = x[h] if h < n else zero
        if even:                          # path A: its constants are literals
            ru, rv = both_chains(u, A0, B0), both_chains(v, A0, B0)
        else:                             # path B
            ru, rv = both_chains(u, A1, B1), both_chains(v, A1, B1)
        out[e] = ru
        if f < n:
            out[f] = rv
        e, f, u, v = g, h, nu, nv


def launch(x, out):
    blocks = resident_grid(paths, THREADS, (x, out))
    paths[min(blocks, (x.size + THREADS - 1) // THREADS), THREADS](x, out)
