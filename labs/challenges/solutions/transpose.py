"""out = x.T through a 64 x 32 tile in shared memory (padded to 33 columns). A block of
8 x 32 threads reads two 16-byte groups per thread (64 rows of 32 floats, each row one
128-byte piece), waits, and writes two 16-byte groups per thread (32 rows of ``out``, 64
floats each). Column reads of the tile hit 32 different banks. A block whose tile is cut
by the matrix's edge, or any block when n is not a multiple of 4 (16-byte groups would
straddle rows), moves its tile one float at a time with the same tile and guards."""
from numba import cuda, float32

from labs.challenges.harness import load4, store4

ROWS, COLS = 64, 32
PADDED = 33  # COLS + 1 (a shared array's shape must be literal constants)


@cuda.jit
def transpose(x, out, n):
    tile = cuda.shared.array((ROWS, PADDED), float32)
    tx = cuda.threadIdx.x                # 0..7: a group of 4 columns
    ty = cuda.threadIdx.y                # 0..31: a row
    c0 = cuda.blockIdx.x * COLS
    r0 = cuda.blockIdx.y * ROWS
    whole = n % 4 == 0 and r0 + ROWS <= n and c0 + COLS <= n
    q = n // 4                           # 16-byte groups per row
    for h in range(2):
        r = ty + 32 * h
        if whole:
            v0, v1, v2, v3 = load4(x, (r0 + r) * q + c0 // 4 + tx)
            tile[r, 4 * tx] = v0
            tile[r, 4 * tx + 1] = v1
            tile[r, 4 * tx + 2] = v2
            tile[r, 4 * tx + 3] = v3
        else:                            # the edge: a warp on one row, lane = column
            for k in range(4):
                rr, c = (tx + 8 * ty) // 32 + 8 * (k + 4 * h), (tx + 8 * ty) % 32
                if r0 + rr < n and c0 + c < n:
                    tile[rr, c] = x[(r0 + rr) * n + c0 + c]
    cuda.syncthreads()
    for h in range(2):                   # out row c0 + ty holds column c0 + ty of x
        r = 4 * tx + 32 * h
        if whole:
            store4(out, (c0 + ty) * q + r0 // 4 + tx + 8 * h,
                   tile[r, ty], tile[r + 1, ty], tile[r + 2, ty], tile[r + 3, ty])
        else:                            # a warp on one row of out, lane = column
            for k in range(4):
                rr, c = (tx + 8 * ty) % 32 + 32 * h, (tx + 8 * ty) // 32 + 8 * k
                if c0 + c < n and r0 + rr < n:
                    out[(c0 + c) * n + r0 + rr] = tile[rr, c]


def launch(x, out, n):
    transpose[((n + COLS - 1) // COLS, (n + ROWS - 1) // ROWS), (8, 32)](x, out, n)
