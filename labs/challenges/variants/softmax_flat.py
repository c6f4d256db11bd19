"""The softmax reference with no reshape in the kernel (``load4`` reads the 2-D rows in
row-major order; numba runs a reshape as a call in every thread). As the reference:
row softmax reading each row once: 256 threads a row, 16 values each in registers
(four 16-byte loads, 4 KB apart so a warp's loads are whole 512-byte pieces). Each warp
finds its maximum mw with five xor shuffles (no exp), so each value's exp(x - mw) is
computed once and kept in place of x; the warp sums them with five more shuffles. One
barrier a row: each warp's (mw, lw) goes to shared memory (two slots, by the row's
parity, so the next row's pairs never overwrite ones still being read), every thread
merges the eight pairs itself (M = max mw, L = sum lw exp(mw - M)), and
y = exp(x - mw) exp(mw - M) / L is written from the registers with four 16-byte stores.
The grid is one wave of resident blocks, each walking rows r, r + G, r + 2G, ... and
loading its next row before it reduces and writes this one: a block's 16 KB of loads
are in flight all the time, not only between a block's start and its first shuffle.
Rows must have COLS = 4096 floats."""
import math

from numba import cuda, float32

from labs.challenges.harness import load4, resident_grid, store4

THREADS = 256
WARPS = THREADS // 32
COLS = 4096
FULL = 0xFFFFFFFF
ZERO = float32(0.0)


@cuda.jit(device=True, inline=True)
def warp_max(v):
    for d in (16, 8, 4, 2, 1):
        v = max(v, cuda.shfl_xor_sync(FULL, v, d))
    return v


@cuda.jit(device=True, inline=True)
def warp_sum(v):
    for d in (16, 8, 4, 2, 1):
        v += cuda.shfl_xor_sync(FULL, v, d)
    return v


@cuda.jit(fastmath=True)
def softmax(x, y):
    ms = cuda.shared.array((2, WARPS), float32)
    ls = cuda.shared.array((2, WARPS), float32)
    rows, t, warp = x.shape[0], cuda.threadIdx.x, cuda.threadIdx.x // 32
    row = cuda.blockIdx.x
    base = row * (COLS // 4) + t         # this thread's groups: base + 256 k, k < 4
    a0 = a1 = a2 = a3 = b0 = b1 = b2 = b3 = ZERO
    c0 = c1 = c2 = c3 = d0 = d1 = d2 = d3 = ZERO
    if row < rows:
        a0, a1, a2, a3 = load4(x, base)
        b0, b1, b2, b3 = load4(x, base + THREADS)
        c0, c1, c2, c3 = load4(x, base + 2 * THREADS)
        d0, d1, d2, d3 = load4(x, base + 3 * THREADS)
    p0 = p1 = p2 = p3 = q0 = q1 = q2 = q3 = ZERO
    r0 = r1 = r2 = r3 = s0 = s1 = s2 = s3 = ZERO
    slot = 0
    while row < rows:
        nxt = row + cuda.gridDim.x
        nbase = nxt * (COLS // 4) + t
        if nxt < rows:                   # the next row's loads, in flight meanwhile
            p0, p1, p2, p3 = load4(x, nbase)
            q0, q1, q2, q3 = load4(x, nbase + THREADS)
            r0, r1, r2, r3 = load4(x, nbase + 2 * THREADS)
            s0, s1, s2, s3 = load4(x, nbase + 3 * THREADS)
        m = max(max(max(a0, a1), max(a2, a3)), max(max(b0, b1), max(b2, b3)))
        m = max(m, max(max(max(c0, c1), max(c2, c3)), max(max(d0, d1), max(d2, d3))))
        m = warp_max(m)                  # every lane holds its warp's maximum
        a0, a1, a2, a3 = math.exp(a0 - m), math.exp(a1 - m), math.exp(a2 - m), math.exp(a3 - m)
        b0, b1, b2, b3 = math.exp(b0 - m), math.exp(b1 - m), math.exp(b2 - m), math.exp(b3 - m)
        c0, c1, c2, c3 = math.exp(c0 - m), math.exp(c1 - m), math.exp(c2 - m), math.exp(c3 - m)
        d0, d1, d2, d3 = math.exp(d0 - m), math.exp(d1 - m), math.exp(d2 - m), math.exp(d3 - m)
        l = warp_sum(((a0 + a1) + (a2 + a3)) + ((b0 + b1) + (b2 + b3))
                     + ((c0 + c1) + (c2 + c3)) + ((d0 + d1) + (d2 + d3)))
        if t % 32 == 0:
            ms[slot, warp] = m
            ls[slot, warp] = l
        cuda.syncthreads()
        big = ms[slot, 0]
        for k in range(1, WARPS):        # the row's maximum, from the eight warps'
            big = max(big, ms[slot, k])
        total = ZERO
        for k in range(WARPS):           # the row's sum, each warp's rescaled to big
            total += ls[slot, k] * math.exp(ms[slot, k] - big)
        sc = math.exp(m - big) / total
        store4(y, base, a0 * sc, a1 * sc, a2 * sc, a3 * sc)
        store4(y, base + THREADS, b0 * sc, b1 * sc, b2 * sc, b3 * sc)
        store4(y, base + 2 * THREADS, c0 * sc, c1 * sc, c2 * sc, c3 * sc)
        store4(y, base + 3 * THREADS, d0 * sc, d1 * sc, d2 * sc, d3 * sc)
        a0, a1, a2, a3, b0, b1, b2, b3 = p0, p1, p2, p3, q0, q1, q2, q3
        c0, c1, c2, c3, d0, d1, d2, d3 = r0, r1, r2, r3, s0, s1, s2, s3
        row, base, slot = nxt, nbase, 1 - slot


def launch(x, y):
    rows = x.shape[0]
    softmax[min(rows, resident_grid(softmax, THREADS, (x, y))), THREADS](x, y)
