"""out = x.T as the statement describes it: a 32 x 32 tile in shared memory, padded to
33 columns; a block of 32 x 8 threads reads the tile row by row (each warp one 128-byte
row of x), waits at the barrier, and writes it row by row of out (each warp one
128-byte row of out), four rows per thread."""
from numba import cuda, float32

TILE = 32
ROWS = 8          # threads in y; each thread moves TILE // ROWS = 4 rows


@cuda.jit
def transpose(x, out, n):
    tile = cuda.shared.array((32, 33), float32)   # padded: column reads hit 32 banks
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    c0, r0 = cuda.blockIdx.x * TILE, cuda.blockIdx.y * TILE
    for k in range(0, TILE, ROWS):
        r, c = r0 + ty + k, c0 + tx
        if r < n and c < n:
            tile[ty + k, tx] = x[r * n + c]
    cuda.syncthreads()
    for k in range(0, TILE, ROWS):
        r, c = c0 + ty + k, r0 + tx                # out's row r is x's column r
        if r < n and c < n:
            out[r * n + c] = tile[tx, ty + k]


def launch(x, out, n):
    blocks = ((n + TILE - 1) // TILE, (n + TILE - 1) // TILE)
    transpose[blocks, (TILE, ROWS)](x, out, n)
