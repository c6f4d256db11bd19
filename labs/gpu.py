"""What every lab shares on the GPU side: is there a GPU, the run's context, CUDA-event
timing, numba.cuda with its known fix, in-kernel timers, and an NVML sampler.

Nothing here imports plotly or ipywidgets (the GPU machine has neither)."""
from __future__ import annotations

import datetime as _dt
import importlib.metadata as _md
import os
import platform
import statistics
import threading
import time as _time
from typing import Callable

import numpy as np

from .results import slug


def has_cuda() -> bool:
    """True when torch sees a CUDA GPU (False when torch is missing)."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return False
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def _version(pkg: str) -> str | None:
    try:
        return _md.version(pkg)
    except _md.PackageNotFoundError:
        return None


def _nvml():
    try:
        import pynvml
        pynvml.nvmlInit()
        return pynvml, pynvml.nvmlDeviceGetHandleByIndex(0)
    except Exception:  # no NVML on this machine: the context says so
        return None, None


#: Resident threads per SM by compute capability, where torch's properties lack the field
#: (CUDA programming guide, "Compute Capabilities" table).
_THREADS_PER_SM = {(7, 0): 2048, (7, 2): 2048, (7, 5): 1024, (8, 0): 2048, (8, 6): 1536,
                   (8, 7): 1536, (8, 9): 1536, (9, 0): 2048}
WARP_SIZE = 32


def device_limits(props=None) -> dict:
    """What the labs size their work by, from torch's device properties (or any object
    with the same attributes, such as a stand-in in a test): ``name``, ``sms``,
    ``compute_capability`` as (major, minor), ``max_threads_per_sm``, ``warps_per_sm``
    and ``memory_bytes`` (total device memory, bytes). A T4 (7.5): 40 SMs, 1024 threads
    (32 warps) an SM, 15 GiB; an H200 (9.0): 132 SMs, 2048 threads (64 warps) an SM."""
    if props is None:
        import torch

        props = torch.cuda.get_device_properties(0)
    cc = (int(props.major), int(props.minor))
    threads = getattr(props, "max_threads_per_multi_processor", None) or _THREADS_PER_SM.get(cc)
    if not threads:
        raise ValueError(f"max_threads_per_multi_processor unknown for compute capability {cc}")
    return {"name": str(getattr(props, "name", "")), "sms": int(props.multi_processor_count),
            "compute_capability": cc, "max_threads_per_sm": int(threads),
            "warps_per_sm": int(threads) // WARP_SIZE, "memory_bytes": int(props.total_memory)}


def compute_capability(value) -> tuple[int, int]:
    """(major, minor) from '7.5', (7, 5) or 7.5; anything else -> ValueError."""
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return int(value[0]), int(value[1])
    try:
        major, minor = (int(p) for p in str(value).split(".")[:2])
    except ValueError:
        raise ValueError(f"compute_capability must look like '7.5' or (7, 5); got {value!r}")
    return major, minor


def nvml_problem() -> str | None:
    """None when NVML (the ``pynvml`` module of ``nvidia-ml-py``) answers for GPU 0; else
    one sentence saying what is missing and what to do."""
    try:
        import pynvml
    except ImportError:
        return ("NVML is not installed, so the SM clock and board power cannot be read: "
                "pip install nvidia-ml-py, then restart the session")
    try:
        pynvml.nvmlInit()
        pynvml.nvmlDeviceGetHandleByIndex(0)
    except Exception as e:  # no driver library, or a GPU NVML cannot see
        return f"NVML did not answer ({str(e).splitlines()[0][:120]}), so the SM clock and board power cannot be read"
    return None


def context() -> dict:
    """The run's context: GPU, SMs, compute capability, clocks, driver, versions, date."""
    ctx = {"date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
           "python": platform.python_version(), "numpy": np.__version__,
           "torch": _version("torch"), "numba": _version("numba"),
           "numba_cuda": _version("numba-cuda"), "host": platform.node()}
    if not has_cuda():
        ctx.update(gpu_name="none (CPU only)", gpu_slug="cpu")
        return ctx
    import torch
    p = torch.cuda.get_device_properties(0)
    lim = device_limits(p)
    ctx.update(gpu_name=p.name, gpu_slug=slug(p.name), sms=p.multi_processor_count,
               compute_capability=f"{p.major}.{p.minor}", memory_bytes=p.total_memory,
               max_threads_per_sm=lim["max_threads_per_sm"], warps_per_sm=lim["warps_per_sm"],
               l2_bytes=getattr(p, "L2_cache_size", None), cuda_runtime=torch.version.cuda)
    nv, h = _nvml()
    ctx["nvml"] = nv is not None
    if nv is not None:
        for key, fn in (("sm_clock_hz", lambda: nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM) * 1e6),
                        ("max_sm_clock_hz", lambda: nv.nvmlDeviceGetMaxClockInfo(h, nv.NVML_CLOCK_SM) * 1e6),
                        ("memory_clock_hz", lambda: nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_MEM) * 1e6),
                        ("power_limit_w", lambda: nv.nvmlDeviceGetPowerManagementLimit(h) / 1e3),
                        ("temperature_c", lambda: nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU)),
                        ("driver", lambda: nv.nvmlSystemGetDriverVersion())):
            try:
                v = fn()
                ctx[key] = v.decode() if isinstance(v, bytes) else v
            except Exception:
                ctx[key] = None
    return ctx


def cuda_time(fn: Callable[[], object], warmup: int = 3, repeats: int = 20,
              before: Callable[[], object] | None = None) -> float:
    """Median seconds of ``fn()`` on the GPU, timed with CUDA events after warm-up.

    Each repeat is timed on its own pair of events; the median is robust to stragglers.
    ``before`` (optional) is called ahead of each start event, outside the timed span
    (:func:`labs.timing.queued_time` queues a spin there).
    """
    import torch

    for _ in range(max(0, warmup)):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(max(1, repeats)):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        if before is not None:
            before()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e-3)
    return statistics.median(times)


def wall_time(fn: Callable[[], object], warmup: int = 3, repeats: int = 20) -> float:
    """Median host seconds of ``fn()`` (for CPU work and synchronised round trips)."""
    for _ in range(max(0, warmup)):
        fn()
    times = []
    for _ in range(max(1, repeats)):
        t = _time.perf_counter()
        fn()
        times.append(_time.perf_counter() - t)
    return statistics.median(times)


def numba_cuda():
    """numba.cuda, after the one-line fix numba-cuda 0.30.4 needs on numpy >= 2.4
    (np.row_stack was removed; numba-cuda still calls it at the first compile)."""
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    from numba import cuda

    return cuda


def free_memory_bytes() -> int:
    """Free device memory in bytes (0 without a GPU)."""
    if not has_cuda():
        return 0
    import torch

    free, _total = torch.cuda.mem_get_info()
    return int(free)


def _timer_intrinsic(register: str):
    """A numba.cuda intrinsic that reads a 64-bit PTX special register (inline PTX)."""
    from llvmlite import ir
    from numba import types
    from numba.cuda.extending import intrinsic

    @intrinsic
    def _read(typingctx):
        sig = types.uint64()

        def codegen(context, builder, signature, args):
            fty = ir.FunctionType(ir.IntType(64), [])
            asm = ir.InlineAsm(fty, f"mov.u64 $0, %{register};", "=l", side_effect=True)
            return builder.call(asm, [])

        return sig, codegen

    return _read


_TIMERS: dict = {}


def clock64():
    """Device function reading the SM's cycle counter (%clock64); use inside kernels."""
    numba_cuda()
    if "clock64" not in _TIMERS:
        _TIMERS["clock64"] = _timer_intrinsic("clock64")
    return _TIMERS["clock64"]


def globaltimer():
    """Device function reading the GPU's nanosecond timer (%globaltimer)."""
    numba_cuda()
    if "globaltimer" not in _TIMERS:
        _TIMERS["globaltimer"] = _timer_intrinsic("globaltimer")
    return _TIMERS["globaltimer"]


class NvmlSampler:
    """Samples SM clock (Hz) and board power (W) every ``interval`` seconds in a thread.

    >>> with NvmlSampler() as s: work()
    >>> s.median("sm_clock_hz")
    """

    def __init__(self, interval: float = 0.02):
        self.interval = interval
        self.samples: list[dict] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self):
        nv, h = _nvml()
        if nv is not None:
            self._thread = threading.Thread(target=self._loop, args=(nv, h), daemon=True)
            self._thread.start()
        return self

    def _loop(self, nv, h):
        t0 = _time.perf_counter()
        while not self._stop.is_set():
            row = {"t": _time.perf_counter() - t0}
            try:
                row["sm_clock_hz"] = nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM) * 1e6
                row["power_w"] = nv.nvmlDeviceGetPowerUsage(h) / 1e3
                row["temperature_c"] = nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU)
            except Exception:
                pass
            self.samples.append(row)
            self._stop.wait(self.interval)

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread:
            self._thread.join()
        return False

    def median(self, key: str) -> float | None:
        vals = [s[key] for s in self.samples if key in s]
        return statistics.median(vals) if vals else None
