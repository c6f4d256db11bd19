"""SAXPY: out[i] = a * x[i] + y[i]. Fill in the kernel's body."""
from numba import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        pass  # your turn: out[i] = ...


def launch(a, x, y, out):
    threads = 256
    blocks = (x.size + threads - 1) // threads
    saxpy[blocks, threads](a, x, y, out)
