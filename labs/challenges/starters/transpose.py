"""out = x.T for an n x n matrix stored flat: reads coalesced, writes n floats apart."""
from numba import cuda


@cuda.jit
def transpose(x, out, n):
    col, row = cuda.grid(2)          # x: consecutive threads on consecutive columns
    if row < n and col < n:
        out[col * n + row] = x[row * n + col]


def launch(x, out, n):
    threads = (32, 8)
    blocks = ((n + 31) // 32, (n + 7) // 8)
    transpose[blocks, threads](x, out, n)
