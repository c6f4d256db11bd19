"""C = A @ B (A: M x K, B: K x N): one output per thread, read straight from memory."""
from numba import cuda, float32


@cuda.jit
def matmul(a, b, c):
    j, i = cuda.grid(2)                  # j: column of C, i: row
    if i < c.shape[0] and j < c.shape[1]:
        acc = float32(0.0)
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]     # 2K loads per output
        c[i, j] = acc


def launch(a, b, c):
    threads = (32, 8)
    blocks = ((c.shape[1] + 31) // 32, (c.shape[0] + 7) // 8)
    matmul[blocks, threads](a, b, c)
