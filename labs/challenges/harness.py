"""What every challenge shares on the numba side: the 16-byte loads and stores, warp
shuffles under the CUDA simulator (:mod:`labs.challenges.sim`), a counting array for
structural tests, a one-size correctness check and the timing. The check a student and a
grader run is :mod:`labs.challenges.collect` + :mod:`labs.challenges.judge`.

A challenge module (``labs/challenges/<name>.py``) describes its operation: ``KERNELS``
(the names a submission defines), ``sizes(mode)`` (``"sim"``, ``"quick"``, ``"full"``),
``make_inputs(rng, **size)``, ``expected(inputs)`` (numpy), ``outputs(**size)`` (shape and
dtype of each result), ``launch(ns, arrays)`` (queues the work with the submission's
names), ``op(**size)`` (perfmodel's counts), ``RTOL``/``ATOL`` and ``compile_args()``.
"""
from __future__ import annotations

import importlib.util
import pathlib
import threading
from types import ModuleType

import numpy as np

from ..gpu import has_cuda, numba_cuda
from ..kernels import _vec4_gpu, _vec4_sim, simulated
from .verdict import first_wrong

cuda = numba_cuda()
#: ``load4(a, i)`` -> the four float32 ``a[4i:4i+4]`` in ONE 16-byte load, and
#: ``store4(a, i, v0, v1, v2, v3)``: the labs' vector access (``ld/st.global.v4.f32``; plain
#: Python under the simulator). ``a`` is a C-contiguous float32 array, 16-byte aligned
#: (every allocation is), read in row-major order whatever its shape (so a kernel needs
#: no ``reshape``, which numba runs as a call in every thread); ``i`` counts 16-byte units.
load4, store4 = _vec4_sim() if simulated() else _vec4_gpu()
WARP = 32


# --------------------------------------------------------------- simulator additions

if simulated():
    from . import sim as _sim

    # the fast block scheduler, the warp shuffles, and one access per 16-byte load/store
    _sim.install()
    load4, store4 = _sim.vector(load4), _sim.vector(store4)


class Tally:
    """Records every element access the kernels make to the arrays it wraps, under the
    simulator: ``(array, kind "r"/"w", block, thread, flat index)``. What the structural
    tests read (accesses per element, sectors per warp, paths per warp)."""

    def __init__(self):
        self.events: list[tuple[str, str, tuple, int, int]] = []

    def wrap(self, name: str, host: np.ndarray):
        from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

        tally = self

        class Counted(FakeCUDAArray):
            def _note(self, kind, idx):
                t = threading.current_thread()
                flat = int(np.ravel_multi_index(idx if isinstance(idx, tuple) else (idx,),
                                                self._ary.shape))
                tally.events.append((name, kind, tuple(getattr(t, "blockIdx", (0, 0, 0))),
                                     int(getattr(t, "thread_id", 0)), flat))

            def __getitem__(self, idx):
                self._note("r", idx)
                return super().__getitem__(idx)

            def __setitem__(self, idx, val):
                self._note("w", idx)
                return super().__setitem__(idx, val)

            def reshape(self, *shape):  # a view, counted as the same array
                return Counted(self._ary.reshape(*shape))

        return Counted(host)

    def count(self, name: str, kind: str) -> int:
        return sum(1 for e in self.events if e[0] == name and e[1] == kind)

    def per_warp(self, name: str, kind: str) -> dict:
        """(block, warp) -> flat indices accessed, in order."""
        out: dict = {}
        for a, k, block, thread, flat in self.events:
            if a == name and k == kind:
                out.setdefault((block, thread // WARP), []).append(flat)
        return out

    def per_thread(self, names: tuple[str, ...]) -> dict:
        """(block, thread) -> [(array, kind, flat), ...] in the order they happened."""
        out: dict = {}
        for a, k, block, thread, flat in self.events:
            if a in names:
                out.setdefault((block, thread), []).append((a, k, flat))
        return out

    def sectors_per_useful(self, name: str, kind: str, itemsize: int = 4,
                           sector: int = 32) -> float:
        """32-byte sectors each warp touches, summed over warps, x 32 bytes, over the
        bytes it asked for: 1 when every sector is used whole, 8 for 4-byte values that
        each land in a sector of their own."""
        touched = asked = 0
        for flats in self.per_warp(name, kind).values():
            touched += len({f * itemsize // sector for f in flats})
            asked += len(flats) * itemsize
        return touched * sector / asked if asked else 0.0


# --------------------------------------------------------------------- submissions

class BrokenSubmission(Exception):
    """The submission could not be run: it does not import, lacks a name the challenge
    needs, or its kernels do not compile or launch."""


_RESIDENT: dict = {}


def resident_grid(kernel, threads: int, args: tuple) -> int:
    """Blocks of ``threads`` threads of the numba ``kernel`` (for these ``args``) that are
    resident on the whole GPU at once: one full wave, from the occupancy API, which counts
    the compiled kernel's registers and shared memory (SMs x threads an SM / ``threads``
    where that API is missing). Under the simulator: 2, a small grid that still strides."""
    if threads < 1:
        raise ValueError(f"threads must be >= 1; got {threads}")
    if simulated():
        return 2
    types = tuple(kernel.typeof_pyval(a) for a in args)
    key = (id(kernel), types, threads)
    if key not in _RESIDENT:
        try:
            _RESIDENT[key] = int(kernel.compile(types).max_cooperative_grid_blocks(threads))
        except (AttributeError, TypeError):
            dev = cuda.get_current_device()
            _RESIDENT[key] = int(dev.MULTIPROCESSOR_COUNT) * max(
                1, int(dev.MAX_THREADS_PER_MULTIPROCESSOR) // threads)
    return _RESIDENT[key]


def load_submission(path: str | pathlib.Path, names: tuple[str, ...]) -> ModuleType:
    """Import a student's file as a module; BrokenSubmission names what is wrong."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise BrokenSubmission(f"no such file: {path}")
    spec = importlib.util.spec_from_file_location(f"challenge_submission_{abs(hash(path))}",
                                                  path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # anything the student's file raises at import
        raise BrokenSubmission(f"{path.name} does not import: {type(e).__name__}: {e}") from e
    missing = [n for n in names if not hasattr(module, n)]
    if missing:
        raise BrokenSubmission(f"{path.name} must define {', '.join(names)}; missing: "
                               f"{', '.join(missing)}")
    return module


def missing_names(ns, names: tuple[str, ...]) -> list[str]:
    return [n for n in names if not hasattr(ns, n)]


# ----------------------------------------------------------------------- the check

def device_name() -> str:
    """'CUDA simulator (CPU)' or the GPU's name."""
    if simulated() or not has_cuda():
        return "CUDA simulator (CPU)"
    return str(cuda.get_current_device().name.decode()
               if isinstance(cuda.get_current_device().name, bytes)
               else cuda.get_current_device().name)


def _to_device(inputs: dict, outs: dict, tally: Tally | None):
    """Device arrays for the inputs (scalars passed as they are) and NaN-filled outputs."""
    arrays = {}
    for k, v in inputs.items():
        if isinstance(v, np.ndarray):
            arrays[k] = tally.wrap(k, v.copy()) if tally else cuda.to_device(v)
        else:
            arrays[k] = v
    for k, (shape, dtype) in outs.items():
        host = np.full(shape, np.nan, dtype=dtype)
        arrays[k] = tally.wrap(k, host) if tally else cuda.to_device(host)
    return arrays


def _host(a) -> np.ndarray:
    return a._ary.copy() if hasattr(a, "_ary") else a.copy_to_host()


def prepare(ch: ModuleType, size: dict, seed: int = 0) -> tuple[dict, dict]:
    """(inputs, expected outputs): random inputs of ``size`` and numpy's answer."""
    inputs = ch.make_inputs(np.random.default_rng(seed), **size)
    return inputs, ch.expected(inputs)


def run_once(ch: ModuleType, ns, size: dict, seed: int = 0, tally: Tally | None = None,
             inputs: dict | None = None):
    """Run the submission ``ns`` once on ``inputs`` (default: fresh random ones of
    ``size``): (inputs, device arrays, host copies of the outputs)."""
    if inputs is None:
        inputs = ch.make_inputs(np.random.default_rng(seed), **size)
    arrays = _to_device(inputs, ch.outputs(**size), tally)
    ch.launch(ns, arrays)
    cuda.synchronize()
    return inputs, arrays, {k: _host(arrays[k]) for k in ch.outputs(**size)}


def compare(ch: ModuleType, inputs: dict, got: dict, want: dict | None = None) -> str | None:
    """None when every output matches the numpy reference (``want``, computed from the
    inputs when not given); else the first wrong element."""
    want = ch.expected(inputs) if want is None else want
    for k in want:
        msg = first_wrong(k, got[k], want[k], ch.RTOL, ch.ATOL)
        if msg:
            return msg
    return None


def check(ch: ModuleType, ns, mode: str | None = None, seed: int = 0) -> dict:
    """Correctness of the submission ``ns`` (a module or namespace with ``ch.KERNELS``)
    against numpy on random inputs: on the GPU at quick sizes when there is one, else
    under the simulator at small sizes. ``{"challenge", "passed", "message", "device",
    "sizes", "broken"}``; ``broken`` is True when the submission could not be run."""
    mode = mode or ("sim" if simulated() or not has_cuda() else "quick")
    base = {"challenge": ch.NAME, "device": device_name(), "sizes": ch.sizes(mode),
            "mode": mode}
    missing = missing_names(ns, ch.KERNELS)
    if missing:
        return {**base, "passed": False, "broken": True,
                "message": f"the submission must define {', '.join(ch.KERNELS)}; missing: "
                           f"{', '.join(missing)}"}
    try:
        inputs, _arrays, got = run_once(ch, ns, ch.sizes(mode), seed)
    except Exception as e:  # a compile or launch error: the submission does not run
        return {**base, "passed": False, "broken": True,
                "message": f"the kernels did not run: {type(e).__name__}: "
                           f"{str(e).strip().splitlines()[0][:400] if str(e).strip() else ''}"}
    msg = compare(ch, inputs, got)
    return {**base, "passed": msg is None, "broken": False,
            "message": msg or f"correct: every element of {', '.join(ch.expected(inputs))} "
                              f"matches numpy on random inputs ({base['device']})"}


# ----------------------------------------------------------------------- the timing

def time_submission(ch: ModuleType, ns, quick: bool = False, seed: int = 0,
                    repeats: int = 10, size: dict | None = None,
                    prepared: tuple[dict, dict] | None = None) -> dict:
    """On a GPU: check the submission at the timing size, time ``ch.launch`` with the
    labs' method (:func:`labs.timing.queued_time`: CUDA events after warm-up, median of
    repeats), check the outputs again (a kernel that skips its writes is caught: they
    were reset to NaN before the timed runs) and judge the time against the model
    (:func:`labs.challenges.verdict.verdict`). ``prepared``: (inputs, expected) from
    :func:`prepare` for this size, to time several submissions on the same data."""
    from .. import timing
    from ..common import require_cuda
    from . import verdict as judge

    require_cuda(f"challenge {ch.NAME}")
    mode = "quick" if quick else "full"
    size = size or ch.sizes(mode)
    base = {"challenge": ch.NAME, "device": device_name(), "sizes": size, "mode": mode}
    inputs, want = prepared or prepare(ch, size, seed)
    inputs, arrays, got = run_once(ch, ns, size, inputs=inputs)
    msg = compare(ch, inputs, got, want)
    if msg:
        return {**base, "passed": False, "message": msg, "verdict": None}
    for k, (shape, dtype) in ch.outputs(**size).items():
        arrays[k].copy_to_device(np.full(shape, np.nan, dtype=dtype))
    seconds = timing.queued_time(lambda: ch.launch(ns, arrays), warmup=2, repeats=repeats)
    cuda.synchronize()
    msg = compare(ch, inputs, {k: arrays[k].copy_to_host() for k in ch.outputs(**size)}, want)
    if msg:
        return {**base, "passed": False, "verdict": None,
                "message": f"correct once, wrong after the timed runs: {msg}"}
    v = judge.verdict(ch.op(**size), seconds, judge.roofs(base["device"]), ch.UNIT)
    return {**base, "passed": v["accepted"], "message": v["reason"], "verdict": v}
