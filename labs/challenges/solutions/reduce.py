"""sum(x): each thread adds its share in registers (a grid-stride loop, two independent
16-byte loads a turn), a warp combines its lanes with shuffles, the block its warps
through shared memory, and one atomic per block adds the block's sum."""
import numpy as np
from numba import cuda, float32

from labs.challenges.harness import load4

THREADS = 256
WARPS = THREADS // 32
#: Blocks launched at most: about one wave on an H200 (132 SMs x 8 blocks of 256).
MAX_BLOCKS = 1024
FULL = 0xFFFFFFFF


@cuda.jit
def zero(out):
    out[0] = 0.0


@cuda.jit(device=True, inline=True)
def warp_sum(v):
    for d in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(FULL, v, d)
    return v


@cuda.jit(fastmath=True)
def block_sums(x, out):
    partial = cuda.shared.array(WARPS, float32)
    n = x.size
    groups = n // 4
    stride = cuda.gridsize(1)
    g = cuda.grid(1)
    a = np.float32(0.0)
    b = np.float32(0.0)
    while g + stride < groups:          # two 16-byte loads in flight a turn
        p0, p1, p2, p3 = load4(x, g)
        q0, q1, q2, q3 = load4(x, g + stride)
        a += (p0 + p1) + (p2 + p3)
        b += (q0 + q1) + (q2 + q3)
        g += 2 * stride
    if g < groups:
        p0, p1, p2, p3 = load4(x, g)
        a += (p0 + p1) + (p2 + p3)
    t = cuda.grid(1)
    if t < n - 4 * groups:              # the last n % 4 floats
        a += x[4 * groups + t]
    v = warp_sum(a + b)
    lane, warp = cuda.threadIdx.x % 32, cuda.threadIdx.x // 32
    if lane == 0:
        partial[warp] = v
    cuda.syncthreads()
    if warp == 0:
        v = partial[lane] if lane < WARPS else np.float32(0.0)
        v = warp_sum(v)
        if lane == 0:
            cuda.atomic.add(out, 0, v)


def launch(x, out):
    zero[1, 1](out)
    groups = (x.size + 3) // 4
    blocks = min(MAX_BLOCKS, (groups + THREADS - 1) // THREADS)
    block_sums[blocks, THREADS](x, out)
