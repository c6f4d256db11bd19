"""The two ceilings every roofline needs, measured: DRAM bandwidth (a torch device-to-device
copy, bytes read + written per second) and the FP32 FMA rate (``kernels.fma_peak``), plus
a matmul rate through torch (the tensor cores in FP16). Shared by the intensity, clocks,
ops_on_roof and linear_batch labs and by :func:`labs.my_roofline`.
"""
from __future__ import annotations

import statistics
import time

from .gpu import NvmlSampler, cuda_time
from .kernels import BLOCK, kernels, peak_flops_per_launch


def copy_bandwidth(n_floats: int, repeats: int = 20) -> float:
    """Bytes read + written per second by ``dst.copy_(src)`` of n_floats FP32 on the GPU."""
    import torch

    if n_floats < 1:
        raise ValueError(f"n_floats must be >= 1; got {n_floats}")
    src = torch.rand(int(n_floats), device="cuda")
    dst = torch.empty_like(src)
    t = cuda_time(lambda: dst.copy_(src), warmup=3, repeats=repeats)
    del src, dst
    return 2 * 4 * n_floats / t


def fma_grid(blocks_per_sm: int | None = None) -> tuple[int, int]:
    """(blocks, threads) for the FMA-peak kernel: one full wave of resident threads, or
    ``blocks_per_sm`` blocks of BLOCK on every SM (fewer than fit: still one wave)."""
    cuda = kernels().cuda
    dev = cuda.get_current_device()
    fit = max(1, int(dev.MAX_THREADS_PER_MULTIPROCESSOR) // BLOCK)
    if blocks_per_sm is not None and not 1 <= blocks_per_sm <= fit:
        raise ValueError(f"blocks_per_sm must be 1 to {fit} (blocks of {BLOCK} an SM holds); "
                         f"got {blocks_per_sm}")
    blocks = int(dev.MULTIPROCESSOR_COUNT) * (blocks_per_sm or fit)
    return blocks, blocks * BLOCK


def resident_blocks(kernel) -> int:
    """Blocks of BLOCK threads of a numba kernel (already compiled by one launch) that are
    resident on the whole GPU at once: one full wave (the occupancy API)."""
    overload = next(iter(kernel.overloads.values()))
    return int(overload.max_cooperative_grid_blocks(BLOCK))


def graph_seconds(calls, repeats: int = 10) -> float:
    """GPU seconds per call of ``calls`` (zero-argument torch calls), captured once in a
    CUDA graph and replayed: the GPU's time alone, without the host's launch cost (which
    CUDA events around a single small call would measure instead)."""
    import torch

    if not calls:
        raise ValueError("calls must hold at least one callable")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up (library handles, workspaces) off the graph
        for fn in calls:
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for fn in calls:
            fn()
    t = cuda_time(graph.replay, warmup=2, repeats=repeats) / len(calls)
    del graph
    return t


def fma_peak(hold_s: float = 1.0, launch_s: float = 0.01, interval: float = 0.02,
             variant: str | None = None, blocks_per_sm: int | None = None) -> dict:
    """FP32 FMA rate of ``kernels.fma_peak`` held for ``hold_s`` seconds with NVML sampling
    (``variant``: a kernel of labs/fma_variants.py in its place, launched the same way;
    ``blocks_per_sm``: that many blocks an SM instead of all that fit, see fma_grid).

    Each launch is sized to take about ``launch_s`` seconds; returns fma_flops (median of
    the timed launches, FLOP/s), sm_clock_hz and power_w (NVML medians, None without
    NVML), launches, turns and the raw samples.
    """
    if hold_s <= 0 or launch_s <= 0:
        raise ValueError("hold_s and launch_s must be > 0")
    k = kernels()
    if variant is not None:
        from types import SimpleNamespace

        from .fma_variants import variant as variant_kernel

        k = SimpleNamespace(**{**vars(k), "fma_peak": variant_kernel(variant)})
    # listing-begin: fma_peak
    blocks, threads = fma_grid(blocks_per_sm)
    out = k.cuda.device_array(threads, dtype="float32")

    def launch(turns: int):
        return lambda: k.fma_peak[blocks, BLOCK](out, turns)
    # listing-end: fma_peak

    t = cuda_time(launch(16), warmup=2, repeats=3)  # compile, then calibrate
    turns = max(16, int(16 * launch_s / t))
    fn = launch(turns)
    times = []
    with NvmlSampler(interval) as s:
        t_end = time.perf_counter() + hold_s
        while time.perf_counter() < t_end or len(times) < 5:
            times.append(cuda_time(fn, warmup=0, repeats=1))
    from .fma_variants import fmas_per_turn

    flops = peak_flops_per_launch(threads, turns, fmas_per_turn(k.fma_peak))
    return {"fma_flops": flops / statistics.median(times),
            "sm_clock_hz": s.median("sm_clock_hz"), "power_w": s.median("power_w"),
            "launches": len(times), "turns": turns, "threads": threads, "samples": s.samples}


def matmul_rate(n: int, dtype: str = "float16", hold_s: float = 0.0, repeats: int = 10,
                interval: float = 0.02) -> dict:
    """FLOP/s of an n x n x n torch matmul on random data (CUDA events, median); held for
    ``hold_s`` seconds under NVML sampling when hold_s > 0 (clock, power)."""
    import torch

    if n < 1:
        raise ValueError(f"n must be >= 1; got {n}")
    dt = getattr(torch, dtype)
    a = torch.randn(n, n, device="cuda", dtype=dt)
    b = torch.randn(n, n, device="cuda", dtype=dt)
    fn = lambda: a @ b  # noqa: E731
    t = cuda_time(fn, warmup=3, repeats=repeats)
    res = {"flops": 2.0 * n ** 3 / t, "seconds": t, "sm_clock_hz": None, "power_w": None}
    if hold_s > 0:
        times = []
        with NvmlSampler(interval) as s:
            t_end = time.perf_counter() + hold_s
            while time.perf_counter() < t_end:
                times.append(cuda_time(fn, warmup=0, repeats=1))
        res.update(flops=2.0 * n ** 3 / statistics.median(times), seconds=statistics.median(times),
                   sm_clock_hz=s.median("sm_clock_hz"), power_w=s.median("power_w"),
                   samples=s.samples)
    return res
