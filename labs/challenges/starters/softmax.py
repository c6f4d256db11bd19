"""Row softmax in three passes over each row (a block of 256 threads per row)."""
import math

from numba import cuda, float32

THREADS = 256


@cuda.jit(device=True)
def block_combine(v, scratch, take_max):
    """Every thread's v combined over the block (max or sum), through shared memory."""
    t = cuda.threadIdx.x
    scratch[t] = v
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            if take_max:
                scratch[t] = max(scratch[t], scratch[t + step])
            else:
                scratch[t] += scratch[t + step]
        cuda.syncthreads()
        step //= 2
    out = scratch[0]
    cuda.syncthreads()
    return out


@cuda.jit
def softmax(x, y):
    scratch = cuda.shared.array(THREADS, float32)
    row, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(-math.inf)
    for j in range(t, cols, THREADS):                # pass 1: the maximum
        m = max(m, x[row, j])
    m = block_combine(m, scratch, True)
    s = float32(0.0)
    for j in range(t, cols, THREADS):                # pass 2: the sum
        s += math.exp(x[row, j] - m)
    s = block_combine(s, scratch, False)
    for j in range(t, cols, THREADS):                # pass 3: write
        y[row, j] = math.exp(x[row, j] - m) / s


def launch(x, y):
    softmax[x.shape[0], THREADS](x, y)
