"""Scratch: does the knob's streaming rate depend on where its buffer lands?

    python3 scripts/explore_knob_variance.py

For buffers of 1, 2 and 4 GiB, four fresh allocations each: the knob at k = 1 in both
launch shapes and at k = 128 (persistent), and a torch copy of a fresh pair of buffers of
the same size, each timed twice (median of 10 launches).
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from labs import ceilings  # noqa: E402
from labs.gpu import cuda_time  # noqa: E402
from labs.intensity import LAUNCHES, knob_launch  # noqa: E402
from labs.kernels import kernels  # noqa: E402

cuda = kernels().cuda
P = ceilings.fma_peak(hold_s=1.0)["fma_flops"]
print(f"P = {P / 1e12:.2f} TFLOP/s", flush=True)
for gib in (1, 2, 4):
    n = gib * 2 ** 28
    for rep in range(4):
        data = torch.rand(n, device="cuda")
        x = cuda.as_cuda_array(data)
        fresh, _ = knob_launch(x, n, *LAUNCHES["fresh"])
        pers, _ = knob_launch(x, n, *LAUNCHES["persistent"])
        cols = []
        for _ in range(2):
            tf = cuda_time(lambda: fresh(1), warmup=2, repeats=10)
            tp = cuda_time(lambda: pers(1), warmup=2, repeats=10)
            t128 = cuda_time(lambda: pers(128), warmup=2, repeats=10)
            cols.append((8 * n / tf / 1e12, 8 * n / tp / 1e12, t128 / (2 * 128 * n / P)))
        src = torch.rand(n, device="cuda")
        dst = torch.empty_like(src)
        tc = [cuda_time(lambda: dst.copy_(src), warmup=3, repeats=10) for _ in range(2)]
        bc = [8 * n / t / 1e12 for t in tc]
        print(f"{gib} GiB #{rep}: copy {bc[0]:.3f} {bc[1]:.3f} TB/s | "
              + " | ".join(f"fresh {a:.3f} pers {b:.3f} TB/s k128/F/P {c:.3f}" for a, b, c in cols)
              + f" | fresh/copy {cols[0][0] / bc[0]:.3f}", flush=True)
        del data, x, src, dst
        torch.cuda.empty_cache()
