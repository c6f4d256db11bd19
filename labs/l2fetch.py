"""The L2's fetch granularity: how many bytes the L2 asks DRAM for on a miss, a setting of
the CUDA context (``cudaLimitMaxL2FetchGranularity``), not a property of the memory.

HBM3's burst is 32 bytes (a 32-bit pseudo-channel, burst length 8); by default the L2 of a
Hopper GPU fetches 64 bytes around each missed sector, and the CUDA runtime lets a process
ask for 0 to 128 (a hint the driver may round). The setting holds for the calling
process's context only and lapses when it exits: nothing on the GPU is changed for anyone
else, and no tool outside the process (never nvidia-smi) is involved.

:func:`set_granularity` sets it in this process and reads it back, through whichever of
these the machine has, tried in order: cuda-python's runtime bindings
(``cudaDeviceSetLimit``), the CUDA runtime library through ctypes (preferring the copy
torch already loaded, so it acts on the same primary context), and the driver's
``cuCtxSetLimit`` through ctypes. Each attempt's failure is kept, so a record says why.
Nothing here imports torch or numba; the caller makes the CUDA context first.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os

#: cudaLimitMaxL2FetchGranularity (runtime) and CU_LIMIT_MAX_L2_FETCH_GRANULARITY (driver).
LIMIT = 0x05
#: What the CUDA runtime accepts (bytes).
MIN_BYTES, MAX_BYTES = 0, 128


def _check(value_bytes: int) -> int:
    if isinstance(value_bytes, bool) or int(value_bytes) != value_bytes or \
            not MIN_BYTES <= int(value_bytes) <= MAX_BYTES:
        raise ValueError(f"value_bytes must be an integer from {MIN_BYTES} to {MAX_BYTES}; "
                         f"got {value_bytes!r}")
    return int(value_bytes)


def _cuda_python(value: int | None) -> int:
    try:
        from cuda.bindings import runtime as rt
    except ImportError:
        from cuda import cudart as rt          # older cuda-python
    limit = rt.cudaLimit.cudaLimitMaxL2FetchGranularity
    if value is not None:
        (err,) = rt.cudaDeviceSetLimit(limit, value)
        if int(err) != 0:
            raise RuntimeError(f"cudaDeviceSetLimit returned {err}")
    err, got = rt.cudaDeviceGetLimit(limit)
    if int(err) != 0:
        raise RuntimeError(f"cudaDeviceGetLimit returned {err}")
    return int(got)


def runtime_candidates() -> list[str]:
    """Paths of libcudart to try: the one already loaded in this process (torch's), then
    the system's and the pip wheels'."""
    found = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if line.strip() else ""
                if "libcudart" in os.path.basename(path) and path not in found:
                    found.append(path)
    except OSError:
        pass
    lib = ctypes.util.find_library("cudart")
    for cand in ([lib] if lib else []) + sorted(glob.glob("/usr/local/cuda/lib64/libcudart.so*")):
        if cand not in found:
            found.append(cand)
    try:
        import site
        for base in site.getsitepackages():
            for cand in sorted(glob.glob(os.path.join(base, "nvidia", "**", "libcudart.so*"),
                                         recursive=True)):
                if cand not in found:
                    found.append(cand)
    except Exception:                              # noqa: BLE001 - a missing site is fine
        pass
    return found


def _ctypes_limit(lib, set_name: str, get_name: str, value: int | None) -> int:
    """Set (unless value is None) and read back the limit through a C library's pair of
    functions ``set_name(limit, value)`` and ``get_name(&value, limit)``."""
    if value is not None:
        rc = getattr(lib, set_name)(ctypes.c_int(LIMIT), ctypes.c_size_t(value))
        if rc != 0:
            raise RuntimeError(f"{set_name} returned {rc}")
    got = ctypes.c_size_t(0)
    rc = getattr(lib, get_name)(ctypes.byref(got), ctypes.c_int(LIMIT))
    if rc != 0:
        raise RuntimeError(f"{get_name} returned {rc}")
    return int(got.value)


def _ctypes_runtime(value: int | None) -> int:
    errors = []
    for path in runtime_candidates():
        try:
            return _ctypes_limit(ctypes.CDLL(path), "cudaDeviceSetLimit", "cudaDeviceGetLimit",
                                 value)
        except Exception as exc:                   # noqa: BLE001 - try the next copy
            errors.append(f"{path}: {exc}")
    raise RuntimeError("no usable libcudart: " + ("; ".join(errors) or "none found"))


def _ctypes_driver(value: int | None) -> int:
    return _ctypes_limit(ctypes.CDLL("libcuda.so.1"), "cuCtxSetLimit", "cuCtxGetLimit", value)


METHODS = (("cuda-python cudaDeviceSetLimit", _cuda_python),
           ("ctypes libcudart cudaDeviceSetLimit", _ctypes_runtime),
           ("ctypes libcuda cuCtxSetLimit", _ctypes_driver))


def _first(value: int | None) -> dict:
    errors = {}
    for name, fn in METHODS:
        try:
            return {"method": name, "readback_bytes": fn(value), "errors": errors}
        except Exception as exc:                   # noqa: BLE001 - recorded
            errors[name] = f"{type(exc).__name__}: {exc}"
    raise RuntimeError("could not reach cudaLimitMaxL2FetchGranularity: "
                       + "; ".join(f"{k}: {v}" for k, v in errors.items()))


def get_granularity() -> dict:
    """{method, readback_bytes, errors}: the current setting of this process's context."""
    return _first(None)


def set_granularity(value_bytes: int) -> dict:
    """Ask for an L2 fetch granularity of ``value_bytes`` (0-128) in this process's context
    and read it back: {method, requested_bytes, readback_bytes, errors}. Raises
    RuntimeError (every method's reason) when no method works."""
    value = _check(value_bytes)
    out = _first(value)
    return {**out, "requested_bytes": value}
