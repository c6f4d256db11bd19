"""Honest kernels in the styles students write, one challenge at a time: the grader's static
policy (:func:`exercises.policy.review`) must let each one through, or an honest student
gets 0 points ("held for review") and stops trusting the grader.

Each snippet is a whole kernel cell as a student hands it in (the challenge's marker line
first): a plausible, honest solution, not necessarily a fast one. The policy is never
asked to run anything, so these tests take milliseconds.

The snippets under "held until 2026-12-07" are honest styles the policy held for review
until an honest-student sweep found them. Cells that the policy holds and should go on
holding are in the hostile tests (tests/test_grade_challenges.py,
tests/test_grader_hostile.py), not here; one honest style that stays held (str.format on a
name) has its own test here, with the hint its reason gives.
"""
from __future__ import annotations

import ast
import json
import os
import pathlib
import subprocess
import sys

import pytest

from exercises import policy
from exercises.challenges import marker
from labs.challenges import challenge

ROOT = pathlib.Path(__file__).resolve().parents[1]
REGROUP_STARTER = (ROOT / "labs" / "challenges" / "starters" / "regroup.py").read_text()
#: The one line of the regroup starter a student edits (the body of ``element``).
REGROUP_LINE = "    return t                            # your turn: regroup\n"


def regroup(body: str, imports: str | None = None) -> str:
    """The regroup starter with ``element``'s body replaced (and, when given, the
    harness import line), as a student edits the cell."""
    assert REGROUP_LINE in REGROUP_STARTER, "the regroup starter changed: update REGROUP_LINE"
    text = REGROUP_STARTER.replace(REGROUP_LINE, body)
    if imports is not None:
        old = "from labs.challenges.harness import resident_grid\n"
        assert old in text
        text = text.replace(old, imports)
    return text


# --------------------------------------------------------------------------- saxpy

SAXPY_EXPLICIT_INDEX = '''"""SAXPY: out[i] = a * x[i] + y[i], one element per thread."""
import numpy as np
from numba import cuda

THREADS = 256


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < x.shape[0]:
        out[i] = a * x[i] + y[i]


def launch(a, x, y, out):
    n = x.shape[0]
    assert y.shape == x.shape and out.shape == x.shape, f"shapes differ: {x.shape} {y.shape}"
    assert x.dtype == np.float32, x.dtype
    blocks = (n + THREADS - 1) // THREADS
    saxpy[blocks, THREADS](a, x, y, out)
'''

SAXPY_SIGNATURE_FMA = '''import math

import numba.cuda as cuda

THREADS = 128
MAX_BLOCKS = 4096


# a grid-stride loop, so any grid covers any n
@cuda.jit("void(float32, float32[::1], float32[::1], float32[::1])", fastmath=True)
def saxpy(a, x, y, out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, x.size, stride):
        out[i] = cuda.fma(a, x[i], y[i])


def launch(a, x, y, out):
    blocks = min(MAX_BLOCKS, math.ceil(x.size / THREADS))
    saxpy[blocks, THREADS](a, x, y, out)
'''

# (numba.cuda.grid(1) inside the kernel would be as honest, and the policy passes it, but
# the simulator runs it as plain Python: "module 'numba.cuda' has no attribute 'grid'")
SAXPY_QUALIFIED_HARNESS = '''from __future__ import annotations

import numba
from numba import cuda

from labs.challenges.harness import load4, store4


@numba.cuda.jit(fastmath=True)
def saxpy(a, x, y, out):
    """Thread i: floats 4i .. 4i + 3 (one 16-byte load of x and one of y)."""
    i = cuda.grid(1)
    n = x.size
    if 4 * i + 3 < n:
        x0, x1, x2, x3 = load4(x, i)
        y0, y1, y2, y3 = load4(y, i)
        store4(out, i, a * x0 + y0, a * x1 + y1, a * x2 + y2, a * x3 + y3)
    elif 4 * i < n:                      # the last, partial group
        for j in range(4 * i, n):
            out[j] = a * x[j] + y[j]


def launch(a: float, x, y, out) -> None:
    threads: int = 256
    groups = (x.size + 3) // 4
    saxpy[(groups + threads - 1) // threads, threads](a, x, y, out)
'''

# runs on a GPU only: under the simulator `from numba.cuda import grid` is an ImportError
SAXPY_FROM_NUMBA_CUDA = '''from numba.cuda import grid, jit


@jit
def saxpy(a, x, y, out):
    i = grid(1)
    if i < len(x):
        out[i] = a * x[i] + y[i]


def launch(a, x, y, out):
    threads = 256
    saxpy[(len(x) + threads - 1) // threads, threads](a, x, y, out)
'''

SAXPY_TYPED_SIGNATURE = '''from numba import cuda, float32, void


@cuda.jit(void(float32, float32[:], float32[:], float32[:]))
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


def launch(a, x, y, out):
    threads = 256
    blocks = -(-x.size // threads)       # ceil
    print(f"saxpy: {blocks} blocks of {threads} threads for n = {x.size:,}")
    saxpy[blocks, threads](a, x, y, out)
'''

SAXPY_STREAM = '''import numba as nb
import numpy as np
from numba import cuda

BLOCK = 256


@nb.cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = np.float32(a) * x[i] + y[i]


def launch(a, x, y, out):
    stream = cuda.stream()
    grid = (x.size + BLOCK - 1) // BLOCK
    saxpy[grid, BLOCK, stream](a, x, y, out)
    stream.synchronize()
'''

# ---------------------------------------------------------------------------- fuse

FUSE_DEVICE_FUNCTION = '''"""relu(1.5 x + 0.5) in one kernel: one read and one write an element."""
from numba import cuda, float32

SCALE = float32(1.5)
SHIFT = float32(0.5)


@cuda.jit(device=True)
def relu(v):
    return v if v > float32(0.0) else float32(0.0)


@cuda.jit
def fused(x, out):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = relu(x[i] * SCALE + SHIFT)


def launch(x, out):
    threads = 256
    blocks = (x.size + threads - 1) // threads
    fused[blocks, threads](x, out)
'''

FUSE_NUMPY_NAMES_WHILE = '''from numpy import float32
from numba import cuda

A = float32(1.5)
B = float32(0.5)
ZERO = float32(0)
THREADS, MAX_BLOCKS = 256, 1024


@cuda.jit
def fused(x, out):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < x.size:
        out[i] = max(x[i] * A + B, ZERO)
        i += stride


def launch(x, out):
    fused[min(MAX_BLOCKS, (x.size + THREADS - 1) // THREADS), THREADS](x, out)
'''

FUSE_VECTOR_SCRATCH_DICT = '''import numpy as np
from numba import cuda

from labs.challenges.harness import load4, store4

THREADS = 256
S, B, Z = np.float32(1.5), np.float32(0.5), np.float32(0.0)
_launches = {}   # blocks per size, worked out once


@cuda.jit(device=True, inline=True)
def f(v):
    return max(v * S + B, Z)


@cuda.jit
def fused(x, out):
    i = cuda.grid(1)
    n = x.size
    if 4 * i + 3 < n:
        v0, v1, v2, v3 = load4(x, i)
        store4(out, i, f(v0), f(v1), f(v2), f(v3))
    elif 4 * i < n:
        for j in range(4 * i, n):
            out[j] = f(x[j])


def launch(x, out):
    if x.size not in _launches:
        _launches[x.size] = ((x.size + 3) // 4 + THREADS - 1) // THREADS
    fused[_launches[x.size], THREADS](x, out)
'''

# ---------------------------------------------------------------------------- reduce

REDUCE_SHARED_TREE = '''import numpy as np
from numba import cuda, float32

THREADS = 256
BLOCKS = 256


@cuda.jit
def zero(out):
    if cuda.grid(1) == 0:
        out[0] = np.float32(0.0)


@cuda.jit
def block_sum(x, out):
    cache = cuda.shared.array(THREADS, dtype=float32)
    tid = cuda.threadIdx.x
    s = float32(0.0)
    i = cuda.grid(1)
    while i < x.size:                      # grid-stride: each thread sums its share
        s += x[i]
        i += cuda.gridsize(1)
    cache[tid] = s
    cuda.syncthreads()
    half = THREADS // 2
    while half > 0:                        # tree in shared memory
        if tid < half:
            cache[tid] += cache[tid + half]
        cuda.syncthreads()
        half //= 2
    if tid == 0:
        cuda.atomic.add(out, 0, cache[0])  # one atomic per block


def launch(x, out):
    zero[1, 1](out)
    blocks = min(BLOCKS, (x.size + THREADS - 1) // THREADS)
    block_sum[blocks, THREADS](x, out)
'''

REDUCE_WARP_SHUFFLE = '''import numba
from numba import cuda

from labs.challenges.harness import WARP, load4

THREADS = 256
WARPS = THREADS // WARP
MASK = 0xffffffff


@cuda.jit(device=True, inline=True)
def warp_reduce(v):
    offset = WARP // 2
    while offset > 0:
        v += cuda.shfl_down_sync(MASK, v, offset)
        offset //= 2
    return v


@cuda.jit
def zero(out):
    out[0] = 0


@cuda.jit
def block_sums(x, out):
    sums = cuda.shared.array(WARPS, dtype=numba.float32)
    groups = x.size // 4
    s = numba.float32(0.0)
    for g in range(cuda.grid(1), groups, cuda.gridsize(1)):
        a, b, c, d = load4(x, g)
        s += (a + b) + (c + d)
    t = cuda.grid(1)
    if t < x.size - 4 * groups:            # the last x.size % 4 floats
        s += x[4 * groups + t]
    lane = cuda.threadIdx.x % WARP
    warp = cuda.threadIdx.x // WARP
    s = warp_reduce(s)
    if lane == 0:
        sums[warp] = s
    cuda.syncthreads()
    if warp == 0:
        s = sums[lane] if lane < WARPS else numba.float32(0.0)
        s = warp_reduce(s)
        if lane == 0:
            cuda.atomic.add(out, 0, s)


def launch(x, out):
    zero[1, 1](out)
    blocks = min(1024, ((x.size + 3) // 4 + THREADS - 1) // THREADS)
    block_sums[blocks, THREADS](x, out)
'''

REDUCE_NUMBA_TYPES = '''from numba import cuda, types

THREADS = 128


@cuda.jit(types.void(types.float32[::1]))
def zero(out):
    out[0] = 0.0


@cuda.jit(types.void(types.float32[::1], types.float32[::1]))
def add_all(x, out):
    part = cuda.shared.array(THREADS, types.float32)
    t = cuda.threadIdx.x
    acc = types.float32(0.0)
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[i]
    part[t] = acc
    cuda.syncthreads()
    if t == 0:
        total = types.float32(0.0)
        for k in range(THREADS):
            total += part[k]
        cuda.atomic.add(out, 0, total)


def launch(x, out):
    zero[1, 1](out)
    add_all[64, THREADS](x, out)
'''

# ------------------------------------------------------------------------------ ilp

ILP_SCALAR_UNROLLED = '''from numba import cuda, float32

TWO = float32(2.0)


@cuda.jit
def scale(x, out):
    n = x.size
    stride = cuda.gridsize(1)
    i = cuda.grid(1)
    while i + 3 * stride < n:          # four independent loads, then four stores
        a = x[i]
        b = x[i + stride]
        c = x[i + 2 * stride]
        d = x[i + 3 * stride]
        out[i] = TWO * a
        out[i + stride] = TWO * b
        out[i + 2 * stride] = TWO * c
        out[i + 3 * stride] = TWO * d
        i += 4 * stride
    while i < n:
        out[i] = TWO * x[i]
        i += stride
'''

ILP_LOCAL_ARRAY = '''import numpy as np
from numba import cuda, float32

from labs.challenges.harness import load4, store4

UNROLL = 4
TWO = np.float32(2.0)


@cuda.jit
def scale(x, out):
    buf = cuda.local.array((UNROLL, 4), dtype=float32)
    groups = x.size // 4
    g, stride = cuda.grid(1), cuda.gridsize(1)
    while g + (UNROLL - 1) * stride < groups:
        for k in range(UNROLL):            # all the loads first ...
            buf[k, 0], buf[k, 1], buf[k, 2], buf[k, 3] = load4(x, g + k * stride)
        for k in range(UNROLL):            # ... then the stores
            store4(out, g + k * stride, TWO * buf[k, 0], TWO * buf[k, 1],
                   TWO * buf[k, 2], TWO * buf[k, 3])
        g += UNROLL * stride
    while g < groups:
        a0, a1, a2, a3 = load4(x, g)
        store4(out, g, TWO * a0, TWO * a1, TWO * a2, TWO * a3)
        g += stride
    t = cuda.grid(1)
    if t < x.size - 4 * groups:
        out[4 * groups + t] = TWO * x[4 * groups + t]
'''

# ------------------------------------------------------------------------- transpose

TRANSPOSE_PADDED_TILE = '''"""out = x.T through a padded shared tile (32 x 33): no conflicts."""
from numba import cuda, float32

TILE = 32
PADDED = TILE + 1      # a shared array's shape must be constants
ROWS = 8               # threads in y: each moves TILE // ROWS rows


@cuda.jit
def transpose(x, out, n):
    tile = cuda.shared.array(shape=(TILE, PADDED), dtype=float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    bx, by = cuda.blockIdx.x, cuda.blockIdx.y
    for k in range(0, TILE, ROWS):
        r, c = by * TILE + ty + k, bx * TILE + tx
        if r < n and c < n:
            tile[ty + k, tx] = x[r * n + c]
    cuda.syncthreads()
    for k in range(0, TILE, ROWS):
        r, c = bx * TILE + ty + k, by * TILE + tx
        if r < n and c < n:
            out[r * n + c] = tile[tx, ty + k]


def launch(x, out, n):
    assert x.size == n * n, (x.size, n)
    tiles = (n + TILE - 1) // TILE
    transpose[(tiles, tiles), (TILE, ROWS)](x, out, n)
'''

TRANSPOSE_LITERAL_SHAPE_2D = '''import math

from numba import cuda
from numba import float32 as f32

TILE = 16


@cuda.jit
def transpose(x, out, n):
    tile = cuda.shared.array((16, 17), f32)   # (TILE, TILE + 1)
    col, row = cuda.grid(2)
    if row < n and col < n:
        tile[cuda.threadIdx.y, cuda.threadIdx.x] = x[row * n + col]
    cuda.syncthreads()
    r = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.y
    c = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.x
    if r < n and c < n:
        out[r * n + c] = tile[cuda.threadIdx.x, cuda.threadIdx.y]


def launch(x, out, n):
    blocks = (math.ceil(n / TILE), math.ceil(n / TILE))
    transpose[blocks, (TILE, TILE)](x, out, n)
'''

# --------------------------------------------------------------------------- softmax

SOFTMAX_ONLINE_SHARED = '''import math

from numba import cuda, float32

THREADS = 256
NEG_INF = float("-inf")


@cuda.jit
def softmax(x, y):
    """One block a row: each thread an online (max, sum) over its columns, merged in
    shared memory, then one more pass to write y."""
    sm = cuda.shared.array(THREADS, dtype=float32)
    sl = cuda.shared.array(THREADS, dtype=float32)
    row, t = cuda.blockIdx.x, cuda.threadIdx.x
    cols = x.shape[1]
    m = float32(NEG_INF)
    s = float32(0.0)
    for j in range(t, cols, THREADS):
        v = x[row, j]
        if v > m:
            s = s * math.exp(m - v) + float32(1.0)
            m = v
        else:
            s += math.exp(v - m)
    sm[t] = m
    sl[t] = s
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            m1, m2 = sm[t], sm[t + step]
            mm = max(m1, m2)
            sl[t] = sl[t] * math.exp(m1 - mm) + sl[t + step] * math.exp(m2 - mm)
            sm[t] = mm
        cuda.syncthreads()
        step //= 2
    m, s = sm[0], sl[0]
    for j in range(t, cols, THREADS):
        y[row, j] = math.exp(x[row, j] - m) / s


def launch(x, y):
    rows, cols = x.shape
    assert y.shape == (rows, cols)
    softmax[rows, THREADS](x, y)
'''

SOFTMAX_REGISTERS_SHUFFLE = '''from math import exp, inf

import numpy as np
from numba import cuda, float32

from labs.challenges.harness import WARP

THREADS = 256
WARPS = THREADS // WARP
PER_THREAD = 16          # 4096 columns / 256 threads
FULL = 0xFFFFFFFF


@cuda.jit(device=True)
def warp_max(v):
    for d in (16, 8, 4, 2, 1):
        v = max(v, cuda.shfl_xor_sync(FULL, v, d))
    return v


@cuda.jit(device=True)
def warp_sum(v):
    for d in (16, 8, 4, 2, 1):
        v += cuda.shfl_xor_sync(FULL, v, d)
    return v


@cuda.jit
def softmax(x, y):
    vals = cuda.local.array(PER_THREAD, dtype=float32)
    red = cuda.shared.array(WARPS, dtype=float32)
    row, t = cuda.blockIdx.x, cuda.threadIdx.x
    lane, warp = t % WARP, t // WARP
    m = float32(-inf)
    for k in range(PER_THREAD):            # the row, read once, into registers
        vals[k] = x[row, t + k * THREADS]
        m = max(m, vals[k])
    m = warp_max(m)
    if lane == 0:
        red[warp] = m
    cuda.syncthreads()
    m = red[0]
    for w in range(1, WARPS):
        m = max(m, red[w])
    cuda.syncthreads()
    s = np.float32(0.0)
    for k in range(PER_THREAD):
        vals[k] = exp(vals[k] - m)
        s += vals[k]
    s = warp_sum(s)
    if lane == 0:
        red[warp] = s
    cuda.syncthreads()
    s = float32(0.0)
    for w in range(WARPS):
        s += red[w]
    for k in range(PER_THREAD):
        y[row, t + k * THREADS] = vals[k] / s


def launch(x, y):
    softmax[x.shape[0], THREADS](x, y)
'''

# --------------------------------------------------------------------------- regroup

REGROUP_DIVMOD = regroup(
    "    warp, lane = divmod(t, 32)\n"
    "    return 64 * (warp // 2) + 2 * lane + warp % 2\n")

REGROUP_BITS_WARP = regroup(
    '    """Warp w takes the elements {64 (w // 2) + 2 lane + w % 2}: one parity a warp."""\n'
    "    w = t // WARP\n"
    "    lane = t & (WARP - 1)\n"
    "    return (w >> 1) * 2 * WARP + 2 * lane + (w & 1)\n",
    imports="from labs.challenges.harness import WARP, resident_grid\n")

# ---------------------------------------------------------------------------- matmul

MATMUL_SHARED_TILES = '''from numba import cuda, float32

TILE = 16


@cuda.jit
def matmul(a, b, c):
    sa = cuda.shared.array((TILE, TILE), dtype=float32)
    sb = cuda.shared.array((TILE, TILE), dtype=float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col = cuda.blockIdx.x * TILE + tx
    row = cuda.blockIdx.y * TILE + ty
    m, n = c.shape
    depth = a.shape[1]
    acc = float32(0.0)
    for k0 in range(0, depth, TILE):
        sa[ty, tx] = a[row, k0 + tx] if row < m and k0 + tx < depth else float32(0.0)
        sb[ty, tx] = b[k0 + ty, col] if k0 + ty < depth and col < n else float32(0.0)
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    if row < m and col < n:
        c[row, col] = acc


def launch(a, b, c):
    m, n = c.shape
    assert a.shape[1] == b.shape[0], f"inner sizes differ: {a.shape} @ {b.shape}"
    grid = ((n + TILE - 1) // TILE, (m + TILE - 1) // TILE)
    matmul[grid, (TILE, TILE)](a, b, c)
'''

MATMUL_COLUMN_IN_REGISTERS = '''import numpy as np
from numba import cuda, float32, int32

K = 8
ROWS = 32            # rows of C per block
THREADS = 256


@cuda.jit("void(float32[:, ::1], float32[:, ::1], float32[:, ::1])")
def matmul(a, b, c):
    bcol = cuda.local.array(K, dtype=float32)
    j = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    r0 = cuda.blockIdx.y * ROWS
    m, n = c.shape
    if j >= n:
        return
    for k in range(K):                   # this thread's column of B, kept
        bcol[k] = b[k, j]
    for r in range(r0, min(r0 + ROWS, m)):
        acc = float32(0.0)
        for k in range(K):
            acc = cuda.fma(a[r, k], bcol[k], acc)
        c[r, j] = acc


def launch(a, b, c):
    m, n = c.shape
    blocks = (int32((n + THREADS - 1) // THREADS), int32((m + ROWS - 1) // ROWS))
    assert a.dtype == b.dtype == c.dtype == np.float32
    matmul[blocks, THREADS](a, b, c)
'''

#: challenge -> {style: cell body}: each must pass the policy.
HONEST = {
    "saxpy": {"explicit-index-assert-fstring": SAXPY_EXPLICIT_INDEX,
              "numba.cuda-as-cuda-signature-fma": SAXPY_SIGNATURE_FMA,
              "import-numba-qualified-harness-hints": SAXPY_QUALIFIED_HARNESS,
              "from-numba.cuda-import-grid-jit": SAXPY_FROM_NUMBA_CUDA,
              "void-float32-signature-print": SAXPY_TYPED_SIGNATURE,
              "numba-as-nb-stream": SAXPY_STREAM},
    "fuse": {"device-function-grid-stride": FUSE_DEVICE_FUNCTION,
             "from-numpy-import-float32-while": FUSE_NUMPY_NAMES_WHILE,
             "load4-store4-underscore-dict": FUSE_VECTOR_SCRATCH_DICT},
    "reduce": {"shared-tree-one-atomic": REDUCE_SHARED_TREE,
               "warp-shuffle-harness-WARP": REDUCE_WARP_SHUFFLE,
               "from-numba-import-types": REDUCE_NUMBA_TYPES},
    "ilp": {"scalar-unrolled-four": ILP_SCALAR_UNROLLED,
            "local-array-load4": ILP_LOCAL_ARRAY},
    "transpose": {"padded-tile-shape-keywords": TRANSPOSE_PADDED_TILE,
                  "literal-shape-grid2-math-ceil": TRANSPOSE_LITERAL_SHAPE_2D},
    "softmax": {"online-pairs-shared-float-inf": SOFTMAX_ONLINE_SHARED,
                "registers-local-array-shuffles": SOFTMAX_REGISTERS_SHUFFLE},
    "regroup": {"divmod": REGROUP_DIVMOD,
                "bit-ops-harness-WARP-docstring-braces": REGROUP_BITS_WARP},
    "matmul": {"shared-tiles-ternary-loads": MATMUL_SHARED_TILES,
               "column-in-registers-signature-fma": MATMUL_COLUMN_IN_REGISTERS},
}


# ------------------------------------------- held until 2026-12-07 (false positives)
# Honest cells the policy held for review until 2026-12-07 (an honest-student sweep
# found them). Each is the snippet above it in a style students use, changed in one place
# (the line named in its comment).

# `from numba.types import float32, int32`: numba.types is numba.core.types (a
# redirect), which the policy already allows as `from numba import types` and as
# `from numba.core.types import float32`.
HELD_NUMBA_TYPES_FROM = '''from numba import cuda
from numba.types import float32, int32

THREADS = 256


@cuda.jit
def zero(out):
    out[0] = float32(0.0)


@cuda.jit
def add_all(x, out):
    part = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    acc = float32(0.0)
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[i]
    part[t] = acc
    cuda.syncthreads()
    half = int32(THREADS // 2)
    while half > 0:
        if t < half:
            part[t] += part[t + half]
        cuda.syncthreads()
        half //= 2
    if t == 0:
        cuda.atomic.add(out, 0, part[0])


def launch(x, out):
    zero[1, 1](out)
    add_all[min(256, (x.size + THREADS - 1) // THREADS), THREADS](x, out)
'''

# `import numba.types as nbt`: the same module, imported by its own name.
HELD_NUMBA_TYPES_IMPORT = '''import numba.types as nbt
from numba import cuda


@cuda.jit(nbt.void(nbt.float32, nbt.float32[:], nbt.float32[:], nbt.float32[:]))
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


def launch(a, x, y, out):
    saxpy[(x.size + 255) // 256, 256](a, x, y, out)
'''

# `from numba.cuda.libdevice import fast_expf`: the policy allows `from numba.cuda
# import libdevice` and `cuda.libdevice.fast_expf`, not the module by its own name.
HELD_LIBDEVICE_FROM = '''from numba import cuda, float32
from numba.cuda.libdevice import fast_expf, fmaxf

THREADS = 256


@cuda.jit(device=True)
def block_reduce(v, scratch, take_max):
    t = cuda.threadIdx.x
    scratch[t] = v
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            if take_max:
                scratch[t] = fmaxf(scratch[t], scratch[t + step])
            else:
                scratch[t] += scratch[t + step]
        cuda.syncthreads()
        step //= 2
    out = scratch[0]
    cuda.syncthreads()
    return out


@cuda.jit(fastmath=True)
def softmax(x, y):
    scratch = cuda.shared.array(THREADS, float32)
    row, t = cuda.blockIdx.x, cuda.threadIdx.x
    m = float32(-3.0e38)
    for j in range(t, x.shape[1], THREADS):
        m = fmaxf(m, x[row, j])
    m = block_reduce(m, scratch, True)
    s = float32(0.0)
    for j in range(t, x.shape[1], THREADS):
        s += fast_expf(x[row, j] - m)
    s = block_reduce(s, scratch, False)
    for j in range(t, x.shape[1], THREADS):
        y[row, j] = fast_expf(x[row, j] - m) / s


def launch(x, y):
    softmax[x.shape[0], THREADS](x, y)
'''

# `import numba.cuda.libdevice as libdevice`: the same module, imported by name.
HELD_LIBDEVICE_IMPORT = '''import numba.cuda.libdevice as libdevice
from numba import cuda, float32

FULL = 0xFFFFFFFF


@cuda.jit(fastmath=True)
def softmax(x, y):
    part = cuda.shared.array((2, 8), float32)
    row, t = cuda.blockIdx.x, cuda.threadIdx.x
    lane, warp = t % 32, t // 32
    m = float32(-3.0e38)
    for j in range(t, x.shape[1], 256):
        m = max(m, x[row, j])
    for d in (16, 8, 4, 2, 1):
        m = max(m, cuda.shfl_xor_sync(FULL, m, d))
    if lane == 0:
        part[0, warp] = m
    cuda.syncthreads()
    for w in range(8):
        m = max(m, part[0, w])
    s = float32(0.0)
    for j in range(t, x.shape[1], 256):
        s += libdevice.fast_expf(x[row, j] - m)
    for d in (16, 8, 4, 2, 1):
        s += cuda.shfl_xor_sync(FULL, s, d)
    if lane == 0:
        part[1, warp] = s
    cuda.syncthreads()
    s = float32(0.0)
    for w in range(8):
        s += part[1, w]
    for j in range(t, x.shape[1], 256):
        y[row, j] = libdevice.fast_expf(x[row, j] - m) / s


def launch(x, y):
    softmax[x.shape[0], 256](x, y)
'''

# `from labs.challenges import harness` then `harness.load4(...)`: the statements name
# load4 and store4 "from labs.challenges.harness"; this imports the module, not the names.
HELD_HARNESS_MODULE = '''import numpy as np
from numba import cuda

from labs.challenges import harness

THREADS = 256
S, B, Z = np.float32(1.5), np.float32(0.5), np.float32(0.0)


@cuda.jit
def fused(x, out):
    i = cuda.grid(1)
    n = x.size
    if 4 * i + 3 < n:
        v0, v1, v2, v3 = harness.load4(x, i)
        harness.store4(out, i, max(v0 * S + B, Z), max(v1 * S + B, Z),
                       max(v2 * S + B, Z), max(v3 * S + B, Z))
    elif 4 * i < n:
        for j in range(4 * i, n):
            out[j] = max(x[j] * S + B, Z)


def launch(x, out):
    fused[((x.size + 3) // 4 + THREADS - 1) // THREADS, THREADS](x, out)
'''

# `if __name__ == "__main__":` self-test with np.random: the block never runs under the
# grader (the cell is imported under another name), but np.random is refused.
HELD_SELF_TEST_NP_RANDOM = '''import numpy as np
from numba import cuda

THREADS = 256


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


def launch(a, x, y, out):
    saxpy[(x.size + THREADS - 1) // THREADS, THREADS](a, x, y, out)


if __name__ == "__main__":          # a quick check of my own
    rng = np.random.default_rng(0)
    x = rng.random(1000, dtype=np.float32)
    y = rng.random(1000, dtype=np.float32)
    d_out = cuda.device_array_like(x)
    launch(np.float32(2.5), cuda.to_device(x), cuda.to_device(y), d_out)
    assert np.allclose(d_out.copy_to_host(), 2.5 * x + y)
    print("ok")
'''

# `cuda.select_device(0)`: the first line of many numba tutorials' cells.
HELD_SELECT_DEVICE = '''from numba import cuda

cuda.select_device(0)


@cuda.jit
def scale(x, out):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i + stride < x.size:         # two loads in flight a turn
        a = x[i]
        b = x[i + stride]
        out[i] = 2.0 * a
        out[i + stride] = 2.0 * b
        i += 2 * stride
    if i < x.size:
        out[i] = 2.0 * x[i]
'''

# `from typing import Tuple`: type hints on the host side of the cell.
HELD_TYPING = '''from typing import Tuple

from numba import cuda

TILE = 32
PADDED = 33


def grid_for(n: int) -> Tuple[Tuple[int, int], Tuple[int, int]]:
    tiles = (n + TILE - 1) // TILE
    return (tiles, tiles), (TILE, 8)


@cuda.jit
def transpose(x, out, n):
    tile = cuda.shared.array((TILE, PADDED), dtype=cuda.float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    for k in range(0, TILE, 8):
        r, c = cuda.blockIdx.y * TILE + ty + k, cuda.blockIdx.x * TILE + tx
        if r < n and c < n:
            tile[ty + k, tx] = x[r * n + c]
    cuda.syncthreads()
    for k in range(0, TILE, 8):
        r, c = cuda.blockIdx.x * TILE + ty + k, cuda.blockIdx.y * TILE + tx
        if r < n and c < n:
            out[r * n + c] = tile[tx, ty + k]


def launch(x, out, n: int) -> None:
    blocks, threads = grid_for(n)
    transpose[blocks, threads](x, out, n)
'''

# `FMT.format(...)`: a debug message kept as a module constant (a literal string). It
# stays held: telling a constant from a string built as the code runs needs the name's
# scope, and a hostile student built '{0._rec}' that way; the reason says "write an
# f-string", which does the same job.
FORMAT_ON_A_NAME = '''from numba import cuda

FMT = "matmul: grid {grid}, block {block}"
THREADS = 256


@cuda.jit
def matmul(a, b, c):
    j, i = cuda.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        acc = a[i, 0] * b[0, j]
        for k in range(1, a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


def launch(a, b, c, verbose=False):
    grid = ((c.shape[1] + 31) // 32, (c.shape[0] + 7) // 8)
    if verbose:
        print(FMT.format(grid=grid, block=(32, 8)))
    matmul[grid, (32, 8)](a, b, c)
'''

# `import numpy.typing as npt`: type hints on launch (npt has ArrayLike, DTypeLike,
# NBitBase and NDArray, no module).
HELD_NUMPY_TYPING = '''import numpy as np
import numpy.typing as npt
from numba import cuda, float32

ROWS, K, THREADS = 32, 8, 256


@cuda.jit
def matmul(a, b, c):
    at = cuda.shared.array((32, 8), float32)
    t = cuda.threadIdx.x
    m, n = c.shape
    r0 = cuda.blockIdx.y * ROWS
    j = cuda.blockIdx.x * THREADS + t
    if r0 + t // K < m:
        at[t // K, t % K] = a[r0 + t // K, t % K]
    cuda.syncthreads()
    if j < n:
        for r in range(min(ROWS, m - r0)):
            acc = float32(0.0)
            for k in range(K):
                acc += at[r, k] * b[k, j]
            c[r0 + r, j] = acc


def launch(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32],
           c: npt.NDArray[np.float32]) -> None:
    m, n = c.shape
    matmul[((n + THREADS - 1) // THREADS, (m + ROWS - 1) // ROWS), THREADS](a, b, c)
'''

# `import time`: a self-timing block of the student's own, never run by the grader.
HELD_TIME_SELF_TIMING = '''import time

import numpy as np
from numba import cuda

TWO = np.float32(2.0)


@cuda.jit
def scale(x, out):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i + 3 * stride < x.size:
        a, b, c, d = x[i], x[i + stride], x[i + 2 * stride], x[i + 3 * stride]
        out[i], out[i + stride] = TWO * a, TWO * b
        out[i + 2 * stride], out[i + 3 * stride] = TWO * c, TWO * d
        i += 4 * stride
    while i < x.size:
        out[i] = TWO * x[i]
        i += stride


if __name__ == "__main__":
    x = cuda.to_device(np.arange(1 << 20, dtype=np.float32))
    out = cuda.device_array_like(x)
    scale[80, 256](x, out)
    cuda.synchronize()
    t0 = time.perf_counter()
    scale[80, 256](x, out)
    cuda.synchronize()
    print(f"{(time.perf_counter() - t0) * 1e3:.3f} ms")
'''

#: challenge -> {style: cell body}: honest, and held by the policy until 2026-12-07.
ONCE_HELD = {
    "reduce": {"from-numba.types-import": HELD_NUMBA_TYPES_FROM},
    "saxpy": {"import-numba.types-as": HELD_NUMBA_TYPES_IMPORT,
              "main-block-self-test-np.random": HELD_SELF_TEST_NP_RANDOM},
    "softmax": {"from-numba.cuda.libdevice-import": HELD_LIBDEVICE_FROM,
                "import-numba.cuda.libdevice-as": HELD_LIBDEVICE_IMPORT},
    "fuse": {"from-labs.challenges-import-harness": HELD_HARNESS_MODULE},
    "ilp": {"cuda.select_device": HELD_SELECT_DEVICE,
            "main-block-time.perf_counter": HELD_TIME_SELF_TIMING},
    "transpose": {"from-typing-import-Tuple": HELD_TYPING},
    "matmul": {"numpy.typing-hints": HELD_NUMPY_TYPING},
}


def _cases(table: dict) -> list:
    return [pytest.param(name, body, id=f"{name}/{style}")
            for name, styles in table.items() for style, body in styles.items()]


def cell(name: str, body: str) -> str:
    """The kernel cell as the grader reads it: the challenge's marker line, then the body."""
    return f"{marker(name)}\n{body}"


def _top_level_names(body: str) -> set[str]:
    names = set()
    for node in ast.parse(body).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Assign):
            names.update(n.id for t in node.targets for n in ast.walk(t)
                         if isinstance(n, ast.Name))
    return names


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name, body", _cases(HONEST) + _cases(ONCE_HELD))
def test_each_snippet_is_a_whole_submission(name, body):
    """Every snippet defines what its challenge calls (a submission, not a fragment)."""
    missing = set(challenge(name).KERNELS) - _top_level_names(body)
    assert not missing, f"{name}: the snippet does not define {sorted(missing)}"


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name, body", _cases(HONEST))
def test_an_honest_style_passes_the_policy(name, body):
    assert policy.review(cell(name, body)) is None


@pytest.mark.timeout(30)
def test_every_challenge_has_honest_styles():
    assert set(HONEST) == {"saxpy", "fuse", "reduce", "ilp", "transpose", "softmax",
                           "regroup", "matmul"}
    assert all(len(styles) >= 2 for styles in HONEST.values())


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name, body", _cases(ONCE_HELD))
def test_a_style_once_held_passes_the_policy(name, body):
    assert policy.review(cell(name, body)) is None


@pytest.mark.timeout(30)
def test_format_on_a_name_stays_held_with_the_f_string_hint():
    assert policy.review(cell("matmul", FORMAT_ON_A_NAME)) == \
        "str.format on a string built as the code runs (write an f-string)"


@pytest.mark.timeout(120)
def test_the_modules_numba_cuda_holds_are_the_policys_list():
    """The modules inside cuda.cg, cuda.random, cuda.libdevice and cuda.fp16 (read in a
    process of numba-cuda's own, without the simulator: fp16 imports only there) are the
    ones the policy refuses after them (cuda.random.np, cuda.fp16.sys...)."""
    code = ("import importlib, json, types\n"
            "out = {}\n"
            "for a in ('cg', 'random', 'libdevice', 'fp16'):\n"
            "    m = importlib.import_module('numba.cuda.' + a)\n"
            "    out[a] = sorted(k for k in dir(m) if not k.startswith('_')\n"
            "                    and isinstance(getattr(m, k), types.ModuleType))\n"
            "print(json.dumps(out))\n")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=100, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    held = json.loads(run.stdout.strip().splitlines()[-1])
    assert set(held) == policy.CUDA_MODULES
    assert set().union(*held.values()) == policy.CUDA_MODULE_MODULES, held


@pytest.mark.timeout(60)
def test_the_verdict_does_not_depend_on_what_the_grader_imported():
    """`from numba import types` passes in a fresh process (numba.types is then
    numba.core.types) and is held once anything has imported numba.types by name (the
    attribute becomes the redirect module "numba.types", outside REACHABLE)."""
    code = ("import numba.types\n"
            "from exercises import policy\n"
            f"print(policy.review({REDUCE_NUMBA_TYPES!r}))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=50)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "None", run.stdout
