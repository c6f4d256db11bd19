"""Plain copy kernels of the same launch shape as a challenge's kernels: the honest
comparison for a milestone ("a copy launched the same way reaches this share of the
reference time"). Each moves the bytes the challenge's model counts and does nothing
else; none is
a solution. ``COPIES[name]`` is a namespace with the challenge's ``launch`` signature.
numba only; :mod:`labs.challenges.on_device` times them on a GPU."""
from __future__ import annotations

from types import SimpleNamespace

from numba import cuda, float32

THREADS = 256


@cuda.jit
def copy1(x, out):
    """One float per thread, 4-byte accesses: the shape of an elementwise kernel."""
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i]


@cuda.jit
def read1(x, out):
    """Reads every float once on a grid-stride loop, writes one float per block (the
    reduction's shape without its arithmetic; the sum is not a sum)."""
    i, stride = cuda.grid(1), cuda.gridsize(1)
    s = float32(0.0)
    while i < x.size:
        s = max(s, x[i])
        i += stride
    if cuda.threadIdx.x == 0:
        out[0] = s


@cuda.jit
def tile_copy(x, out, n):
    """A 32 x 32 tile per block of 32 x 8 threads, four rows per thread, copied in place:
    the transpose's launch shape with both sides coalesced."""
    c = cuda.blockIdx.x * 32 + cuda.threadIdx.x
    for k in range(0, 32, 8):
        r = cuda.blockIdx.y * 32 + cuda.threadIdx.y + k
        if r < n and c < n:
            out[r * n + c] = x[r * n + c]


@cuda.jit
def fill_rows(a, b, c):
    """Writes a tile of 32 rows x 256 columns of C per block, one column per thread: the
    thin product's shape and its compulsory traffic (C written once) with no products."""
    j = cuda.blockIdx.x * THREADS + cuda.threadIdx.x
    r0 = cuda.blockIdx.y * 32
    m, n = c.shape
    if j < n:
        v = b[0, j]
        for r in range(min(32, m - r0)):
            c[r0 + r, j] = v


@cuda.jit
def row_copy(x, y):
    """One block of 256 threads per row, 16 floats per thread: the softmax's shape."""
    row = cuda.blockIdx.x
    for j in range(cuda.threadIdx.x, x.shape[1], THREADS):
        y[row, j] = x[row, j]


def _grid(n: int) -> int:
    return (n + THREADS - 1) // THREADS


class _FullGrid:
    """Stands in for the ilp challenge's ``scale``: whatever grid the challenge's launch
    asks for, it launches one thread per float (the comparison is more warps)."""

    def __getitem__(self, _config):
        return lambda x, out: copy1[_grid(x.size), THREADS](x, out)


COPIES = {
    "fuse": SimpleNamespace(launch=lambda x, out: copy1[_grid(x.size), THREADS](x, out)),
    "ilp": SimpleNamespace(scale=_FullGrid()),
    "reduce": SimpleNamespace(launch=lambda x, out: read1[1024, THREADS](x, out)),
    "transpose": SimpleNamespace(launch=lambda x, out, n: tile_copy[
        ((n + 31) // 32, (n + 31) // 32), (32, 8)](x, out, n)),
    "matmul": SimpleNamespace(launch=lambda a, b, c: fill_rows[
        (_grid(c.shape[1]), (c.shape[0] + 31) // 32), THREADS](a, b, c)),
    "softmax": SimpleNamespace(launch=lambda x, y: row_copy[x.shape[0], THREADS](x, y)),
}
