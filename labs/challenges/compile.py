"""Compile a submission's kernels for a T4 (sm_75) with no GPU, so that the simulator
never calls correct what a GPU cannot compile.

    python -m labs.challenges.compile NAME SUBMISSION.py     # prints one JSON line

Where NVVM is installed (pip's nvidia-cuda-nvcc-cu12, as in CI and on Colab), the
submission's ``launch`` is called on numpy stand-ins of the check's smallest size with
every launch intercepted: each kernel is compiled for the argument types it was given,
exactly as a launch would compile it (``numba.cuda.dispatcher._Kernel`` with its own
options), and linked to an sm_75 cubin, as ``tests/colab/compile_sm75.py`` does; nothing
runs. The device's compute capability and the driver's version are stood in for, as
there. Without NVVM it reports ``compiled: null`` and the check goes on.

numba's common errors get one line of advice (:func:`hint`) in place of a traceback.
Runs in a process of its own (numba.cuda proper, not the simulator): :func:`start` /
:func:`finish` from :mod:`labs.challenges.collect`, alongside the simulator's run.
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import warnings

CC = (7, 5)
#: What a CUDA 12.8 driver reports to cuDriverGetVersion (cuda.core then links with
#: nvJitLink).
DRIVER_VERSION = 12080
#: The names a kernel reaches through ``cuda.``; used bare, they are a missing prefix.
CUDA_NAMES = ("grid", "gridsize", "threadIdx", "blockIdx", "blockDim", "gridDim",
              "syncthreads", "shared", "local", "atomic", "laneid", "warpsize",
              "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "const",
              "activemask", "ballot_sync", "all_sync", "any_sync", "threadfence")


def hint(message: str) -> str | None:
    """One line of advice for numba's common compile errors in ``message``, or None."""
    m = re.search(r"(?:Untyped global name|name) '(\w+)'(?: is not defined)?", message)
    if m and m.group(1) in CUDA_NAMES:
        return (f"{m.group(1)} needs the cuda. prefix inside a kernel: "
                f"cuda.{m.group(1)}")
    if re.search(r"shared\.array|array\(UniTuple|array\(int64|array\(Tuple|"
                 r"shape must be|constant", message) and "array" in message:
        kind = "local" if re.search(r"local\.array", message) else "shared"
        return (f"cuda.{kind}.array needs a shape of integer constants: literals such as "
                "(32, 33), or module-level ints such as (TILE, TILE_PAD) with TILE_PAD = "
                "TILE + 1 computed outside the kernel (not TILE + 1 inside the call, and "
                "not a size read from an array)")
    if m:
        return (f"{m.group(1)} is a Python object the kernel cannot use: a kernel sees "
                f"only numbers, arrays and module-level constants; pass it as an argument")
    if re.search(r"cannot determine Numba type|reflected list|pyobject|non-precise type",
                 message):
        return ("the kernel uses a Python object (a list, a dict, a class instance): inside "
                "a kernel use only numbers, arrays and module-level constants")
    if "float64" in message:
        return ("a float64 value where the kernel needs float32: write float32 constants "
                "(numba.float32(0.5)) or use the array's own values")
    return None


def _stand_in() -> None:
    """numba-cuda compiles for CC and cuda.core links with nvJitLink, with no driver; the
    calls a launch makes for the device answer as a T4 would (no GPU is touched)."""
    import cuda.bindings.driver as drv
    import numba.cuda.codegen as codegen
    import numba.cuda.dispatcher as dispatcher
    from numba import cuda

    drv.cuDriverGetVersion = lambda: (drv.CUresult.CUDA_SUCCESS, DRIVER_VERSION)

    class Device:
        compute_capability = CC
        id = 0
        name = "T4 (compile only)"
        MULTIPROCESSOR_COUNT = 40
        MAX_THREADS_PER_MULTIPROCESSOR = 1024

    dispatcher.get_current_device = lambda: Device()
    cuda.get_current_device = lambda: Device()
    codegen.CUDACodeLibrary._ensure_cc = lambda self, want: CC if want is None else want


def _compile(kernel, args) -> None:
    """Compile ``kernel`` for the types of ``args`` and link it for sm_75."""
    from numba.cuda import dispatcher

    types = tuple(kernel.typeof_pyval(a) for a in args)
    lib = dispatcher._Kernel(kernel.py_func, types, **kernel.targetoptions)._codelibrary
    lib.get_cubin(cc=CC)


def _is_compile_error(e: BaseException) -> bool:
    """Whether ``e`` came from compiling or linking (numba's typing and lowering errors,
    NVVM's, the linker's), not from the submission's own Python."""
    from numba.core.errors import NumbaError

    if isinstance(e, NumbaError):
        return True
    names = {c.__name__ for c in type(e).__mro__}
    return bool(names & {"NvvmError", "NvvmSupportError", "LinkerError", "CudaAPIError",
                         "NvrtcError"})


def compile_submission(name: str, path: pathlib.Path, seed: int = 0) -> dict:
    """``{"compiled": True|False|None, "error": None|str, "kernels": [...]}`` for the
    submission at ``path`` (this process: numba.cuda proper, no GPU needed), its launch
    called at every simulator size of the check with ``seed``."""
    import numpy as np

    try:
        from numba.cuda.cudadrv import nvvm

        nvvm.NVVM()
    except Exception:  # no NVVM here: nothing to say
        return {"compiled": None, "error": None, "kernels": []}
    _stand_in()
    from numba import cuda
    from numba.cuda import dispatcher

    from . import harness
    from .catalog import challenge
    from .judge import all_inputs, check_sizes

    harness.resident_grid = lambda kernel, threads, args: 2
    ch = challenge(name)
    try:
        ns = harness.load_submission(path, ch.KERNELS)
    except harness.BrokenSubmission as e:  # the simulator's run reports this
        return {"compiled": None, "error": None, "kernels": [], "note": str(e)}
    done: dict = {}

    def call(config, *args):
        kernel = config.dispatcher
        key = (id(kernel), tuple(str(kernel.typeof_pyval(a)) for a in args))
        if key not in done:
            done[key] = kernel.py_func.__name__
            _compile(kernel, args)

    cuda.device_array = lambda shape, dtype=np.float64, *a, **k: np.zeros(shape, dtype)
    cuda.device_array_like = lambda a, *r, **k: np.zeros_like(a)
    cuda.to_device = lambda a, *r, **k: np.array(a)
    cuda.synchronize = lambda: None
    dispatcher._LaunchConfiguration.__call__ = call
    warnings.simplefilter("ignore")
    sizes = check_sizes(ch, "sim", seed)
    try:
        # every size of the check: a launch may choose its kernels by size
        for size, inputs in zip(sizes, all_inputs(ch, sizes, seed)):
            arrays = dict(inputs)
            for k, (shape, dtype) in ch.outputs(**size).items():
                arrays[k] = np.zeros(shape, dtype)
            ch.launch(ns, arrays)
    except Exception as e:
        if not _is_compile_error(e):  # the submission's own error: the simulator says it
            return {"compiled": None, "error": None, "kernels": sorted(done.values()),
                    "note": f"launch stopped before every kernel compiled: "
                            f"{type(e).__name__}"}
        text = " ".join(f"{type(e).__name__}: {e}".split())
        advice = hint(text)
        first = text[:300]
        return {"compiled": False, "kernels": sorted(done.values()),
                "error": (f"does not compile for a GPU (sm_75): {advice}" if advice else
                          f"does not compile for a GPU (sm_75): {first}")}
    return {"compiled": True, "error": None, "kernels": sorted(done.values())}


def start(name: str, path: pathlib.Path, seed: int = 0) -> subprocess.Popen:
    """Start compiling in a process of its own (numba.cuda proper, not the simulator)."""
    root = pathlib.Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])
    return subprocess.Popen([sys.executable, "-m", "labs.challenges.compile", name,
                             str(pathlib.Path(path).resolve()), str(int(seed))],
                            stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=str(root))


def finish(proc: subprocess.Popen, timeout_s: float = 120.0) -> dict:
    """The started compile's report; a compile that does not finish or report -> a report
    saying so (compiled None: the check goes on without it)."""
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"compiled": None, "error": None, "note": "the sm_75 compile timed out"}
    lines = out.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        return {"compiled": None, "error": None,
                "note": "the sm_75 compile did not report: " + " ".join(err.split())[-200:]}


def compile_file(name: str, path: pathlib.Path, timeout_s: float = 120.0,
                 seed: int = 0) -> dict:
    """:func:`start` then :func:`finish`."""
    return finish(start(name, path, seed), timeout_s)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (2, 3):
        print("usage: python -m labs.challenges.compile NAME SUBMISSION.py [SEED]",
              file=sys.stderr)
        return 2
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        print("the compile needs numba.cuda proper: unset NUMBA_ENABLE_CUDASIM",
              file=sys.stderr)
        return 2
    seed = int(argv[2]) if len(argv) == 3 else 0
    print(json.dumps(compile_submission(argv[0], pathlib.Path(argv[1]), seed), default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
