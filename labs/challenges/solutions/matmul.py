"""C = A @ B for K = 8: a block of 256 threads owns a tile of 32 rows x 1024 columns.
The tile's 32 rows of A (256 floats, contiguous) go to shared memory, one per thread;
each thread keeps B[:, 4t .. 4t + 3] in 32 registers (eight 16-byte loads) and, for each
of the 32 rows, reads the row's 8 values of A (the same address for every lane: one
broadcast), does 32 FMAs and writes its four outputs with one 16-byte store. Each value
of A and B is read once per tile; N must be a multiple of 1024 and M of 32."""
from numba import cuda, float32

from labs.challenges.harness import load4, store4

K = 8
ROWS = 32
THREADS = 256
COLS = 4 * THREADS


@cuda.jit(fastmath=True)
def matmul(a, b, c):
    at = cuda.shared.array((ROWS, K), float32)
    t = cuda.threadIdx.x
    r0 = cuda.blockIdx.y * ROWS
    n = c.shape[1]
    at[t // K, t % K] = a[r0 + t // K, t % K]
    g = (cuda.blockIdx.x * COLS) // 4 + t          # this thread's 16-byte group of a row
    bf = b.reshape(b.size)
    q = n // 4
    b00, b01, b02, b03 = load4(bf, g)
    b10, b11, b12, b13 = load4(bf, q + g)
    b20, b21, b22, b23 = load4(bf, 2 * q + g)
    b30, b31, b32, b33 = load4(bf, 3 * q + g)
    b40, b41, b42, b43 = load4(bf, 4 * q + g)
    b50, b51, b52, b53 = load4(bf, 5 * q + g)
    b60, b61, b62, b63 = load4(bf, 6 * q + g)
    b70, b71, b72, b73 = load4(bf, 7 * q + g)
    cuda.syncthreads()
    cf = c.reshape(c.size)
    for r in range(ROWS):
        a0, a1, a2, a3 = at[r, 0], at[r, 1], at[r, 2], at[r, 3]
        a4, a5, a6, a7 = at[r, 4], at[r, 5], at[r, 6], at[r, 7]
        o0 = a0 * b00 + a1 * b10 + a2 * b20 + a3 * b30 + a4 * b40 + a5 * b50 + a6 * b60 + a7 * b70
        o1 = a0 * b01 + a1 * b11 + a2 * b21 + a3 * b31 + a4 * b41 + a5 * b51 + a6 * b61 + a7 * b71
        o2 = a0 * b02 + a1 * b12 + a2 * b22 + a3 * b32 + a4 * b42 + a5 * b52 + a6 * b62 + a7 * b72
        o3 = a0 * b03 + a1 * b13 + a2 * b23 + a3 * b33 + a4 * b43 + a5 * b53 + a6 * b63 + a7 * b73
        store4(cf, (r0 + r) * q + g, o0, o1, o2, o3)


def launch(a, b, c):
    m, n = c.shape
    matmul[(n // COLS, m // ROWS), THREADS](a, b, c)
