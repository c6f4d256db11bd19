"""Row softmax reading each row once, as the statement describes it: a block of 256
threads a row, 16 values per thread in registers (four 16-byte loads), each thread's own
maximum m and sum l, the pairs merged across the warp with shuffles and across the
block's eight warps through shared memory, and y written from the registers."""
import math

from numba import cuda, float32

from labs.challenges.harness import load4, store4

THREADS = 256
WARPS = THREADS // 32
COLS = 4096
FULL = 0xFFFFFFFF


@cuda.jit(device=True, inline=True)
def merge(m1, l1, m2, l2):
    m = max(m1, m2)
    return m, l1 * math.exp(m1 - m) + l2 * math.exp(m2 - m)


@cuda.jit(fastmath=True)
def softmax(x, y):
    ms = cuda.shared.array(WARPS, float32)
    ls = cuda.shared.array(WARPS, float32)
    row, t = cuda.blockIdx.x, cuda.threadIdx.x
    xf, yf = x.reshape(x.size), y.reshape(y.size)
    base = row * (COLS // 4) + t         # this thread's groups: base + 256 k, k < 4
    a0, a1, a2, a3 = load4(xf, base)
    b0, b1, b2, b3 = load4(xf, base + THREADS)
    c0, c1, c2, c3 = load4(xf, base + 2 * THREADS)
    d0, d1, d2, d3 = load4(xf, base + 3 * THREADS)
    m = max(max(max(a0, a1), max(a2, a3)), max(max(b0, b1), max(b2, b3)))
    m = max(m, max(max(max(c0, c1), max(c2, c3)), max(max(d0, d1), max(d2, d3))))
    l = (math.exp(a0 - m) + math.exp(a1 - m) + math.exp(a2 - m) + math.exp(a3 - m)
         + math.exp(b0 - m) + math.exp(b1 - m) + math.exp(b2 - m) + math.exp(b3 - m)
         + math.exp(c0 - m) + math.exp(c1 - m) + math.exp(c2 - m) + math.exp(c3 - m)
         + math.exp(d0 - m) + math.exp(d1 - m) + math.exp(d2 - m) + math.exp(d3 - m))
    for d in (16, 8, 4, 2, 1):           # merge the warp's 32 pairs
        m, l = merge(m, l, cuda.shfl_xor_sync(FULL, m, d), cuda.shfl_xor_sync(FULL, l, d))
    if t % 32 == 0:
        ms[t // 32] = m
        ls[t // 32] = l
    cuda.syncthreads()
    m, l = ms[0], ls[0]
    for k in range(1, WARPS):            # merge the block's eight pairs
        m, l = merge(m, l, ms[k], ls[k])
    inv = float32(1.0) / l
    store4(yf, base, math.exp(a0 - m) * inv, math.exp(a1 - m) * inv,
           math.exp(a2 - m) * inv, math.exp(a3 - m) * inv)
    store4(yf, base + THREADS, math.exp(b0 - m) * inv, math.exp(b1 - m) * inv,
           math.exp(b2 - m) * inv, math.exp(b3 - m) * inv)
    store4(yf, base + 2 * THREADS, math.exp(c0 - m) * inv, math.exp(c1 - m) * inv,
           math.exp(c2 - m) * inv, math.exp(c3 - m) * inv)
    store4(yf, base + 3 * THREADS, math.exp(d0 - m) * inv, math.exp(d1 - m) * inv,
           math.exp(d2 - m) * inv, math.exp(d3 - m) * inv)


def launch(x, y):
    softmax[x.shape[0], THREADS](x, y)
