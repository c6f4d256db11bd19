"""C = A @ B for K = 8: a block of 256 threads owns a tile of 32 rows x 1024 columns.
The tile's 32 rows of A (256 floats, contiguous) go to shared memory, one per thread;
each thread keeps B[:, 4t .. 4t + 3] in 32 registers (eight 16-byte loads) and, for each
of the 32 rows, reads the row's 8 values of A (the same address for every lane: one
broadcast), does 32 FMAs and writes its four outputs with one 16-byte store. Each value
of A and B is read once per tile. A tile cut by the matrix's edge (or any tile when N is
not a multiple of 4) is done one column per thread, 4-byte accesses, with guards."""
from numba import cuda, float32

from labs.challenges.harness import load4, store4

K = 8
ROWS = 32
THREADS = 256
COLS = 4 * THREADS


@cuda.jit(device=True, inline=True)
def dot8(at, r, b0, b1, b2, b3, b4, b5, b6, b7):
    return (at[r, 0] * b0 + at[r, 1] * b1 + at[r, 2] * b2 + at[r, 3] * b3
            + at[r, 4] * b4 + at[r, 5] * b5 + at[r, 6] * b6 + at[r, 7] * b7)


@cuda.jit(fastmath=True)
def matmul(a, b, c):
    at = cuda.shared.array((ROWS, K), float32)
    t = cuda.threadIdx.x
    r0 = cuda.blockIdx.y * ROWS
    m, n = c.shape
    c0 = cuda.blockIdx.x * COLS
    for i in range(t, ROWS * K, THREADS):   # the tile's rows of A: one value a thread
        if r0 + i // K < m:
            at[i // K, i % K] = a[r0 + i // K, i % K]
    if n % 4 != 0 or r0 + ROWS > m or c0 + COLS > n:   # an edge tile
        cuda.syncthreads()
        for k in range(4):
            j = c0 + t + THREADS * k
            if j < n:
                b0, b1, b2, b3 = b[0, j], b[1, j], b[2, j], b[3, j]
                b4, b5, b6, b7 = b[4, j], b[5, j], b[6, j], b[7, j]
                for r in range(min(ROWS, m - r0)):
                    c[r0 + r, j] = dot8(at, r, b0, b1, b2, b3, b4, b5, b6, b7)
        return
    g = c0 // 4 + t                      # this thread's 16-byte group of a row
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
        store4(cf, (r0 + r) * q + g,
               dot8(at, r, b00, b10, b20, b30, b40, b50, b60, b70),
               dot8(at, r, b01, b11, b21, b31, b41, b51, b61, b71),
               dot8(at, r, b02, b12, b22, b32, b42, b52, b62, b72),
               dot8(at, r, b03, b13, b23, b33, b43, b53, b63, b73))


def launch(a, b, c):
    m, n = c.shape
    matmul[((n + COLS - 1) // COLS, (m + ROWS - 1) // ROWS), THREADS](a, b, c)
