"""SAXPY as a student who followed the statement first writes it: the starter's body
filled in, one element per thread, 4-byte loads and stores."""
from numba import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


def launch(a, x, y, out):
    threads = 256
    blocks = (x.size + threads - 1) // threads
    saxpy[blocks, threads](a, x, y, out)
