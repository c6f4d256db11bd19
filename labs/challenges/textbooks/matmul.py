"""C = A @ B (K = 8) as the statement describes it: a block of 256 threads owns a tile
of 32 rows x 256 columns of C. The tile's 32 rows of A (256 floats) are copied to shared
memory once, one float per thread; thread t keeps column j of B (K = 8 floats) in
registers, then for each of the 32 rows reads the row's 8 values of A from shared memory
(one address for the whole warp: a broadcast) and writes C[i, j]."""
from numba import cuda, float32

K = 8
ROWS = 32
THREADS = 256


@cuda.jit
def matmul(a, b, c):
    at = cuda.shared.array((32, 8), float32)       # (ROWS, K)
    t = cuda.threadIdx.x
    m, n = c.shape
    r0 = cuda.blockIdx.y * ROWS
    j = cuda.blockIdx.x * THREADS + t
    if r0 + t // K < m:
        at[t // K, t % K] = a[r0 + t // K, t % K]
    cuda.syncthreads()
    if j < n:
        b0, b1, b2, b3 = b[0, j], b[1, j], b[2, j], b[3, j]
        b4, b5, b6, b7 = b[4, j], b[5, j], b[6, j], b[7, j]
        for r in range(min(ROWS, m - r0)):
            c[r0 + r, j] = (at[r, 0] * b0 + at[r, 1] * b1 + at[r, 2] * b2 + at[r, 3] * b3
                            + at[r, 4] * b4 + at[r, 5] * b5 + at[r, 6] * b6 + at[r, 7] * b7)


def launch(a, b, c):
    m, n = c.shape
    matmul[((n + THREADS - 1) // THREADS, (m + ROWS - 1) // ROWS), THREADS](a, b, c)
