"""Run a submission at every size of its check and record what it did: the ONLY part of a
check that runs student code (in grading, inside a sandbox). It never decides pass or fail;
:mod:`labs.challenges.judge` does, from the file this writes.

    python -m labs.challenges.collect NAME SUBMISSION.py --seed S --out OUT.npz [--gpu] [--time]

Without ``--gpu`` the kernels run under numba's CUDA simulator (:mod:`labs.challenges.sim`:
every access, path and launch recorded, host copies inside ``launch`` refused) at the
check's simulator sizes; with ``--gpu`` on the GPU at the same small sizes plus the timing
size, and with ``--time`` the timing size is also timed (CUDA events, median of repeats).
Inputs come from ``numpy.random.default_rng(S)`` (:func:`labs.challenges.judge.all_inputs`).
Each output is the head of a buffer followed by ``PAD`` elements of canary
(:func:`padded`): the simulator stops at an index past an output's end, a GPU does not, so
there a changed canary after the launches is the error "wrote past the end of <output>".

The file holds ``out{k}_<output>`` for each size k that ran (above
:data:`labs.challenges.judge.SAMPLE_ABOVE` elements, the values at the positions
:func:`labs.challenges.judge.sample_positions` draws from the seed, and those positions as
``idx{k}_<output>``: the timing size whole would pass the grader's output limit), and
``meta``, one JSON string:
challenge, seed, mode ("sim" or "gpu"), sizes, counters (simulator: the mechanism counters
of the largest size, :mod:`labs.challenges.counters`), launches (per call of ``launch``),
host_transfers, errors (size index -> message: an import or compile error, an exception,
a refused host transfer), seconds (``--time``), device, compiled (whether the kernels were
compiled for sm_75 too, :mod:`labs.challenges.compile`). Exit status 0 once it is written.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
from types import FunctionType, ModuleType

import numpy as np

#: Under the simulator, the counters come from this size index (the largest: the last).
COUNT_AT = -1
#: Elements of canary after each output (more than one block of the largest, 1,024
#: threads): a GPU does not check indices, so a kernel without a bounds check writes into
#: them, where a change is seen after the launches.
PAD = 4096
#: The canary's byte, in every byte of the pad (as float32 about -2.9e-16: a value no
#: challenge's output takes).
CANARY = 0xA5
#: What an index past the end means, in the simulator's message and the GPU's alike.
OVERHANG = ("the last block overhangs it, so each thread must check its index "
            "(if i < x.size)")


class Overrun(Exception):
    """A kernel wrote into the canary after an output: past the end of that array."""


def padded(shape: tuple, dtype) -> tuple[np.ndarray, np.ndarray]:
    """(buffer, output): a flat host buffer of ``prod(shape) + PAD`` elements, and its
    first ``prod(shape)`` as an array of ``shape`` (a view, NaN for floats: never written
    yet);
    the ``PAD`` elements after them are canary bytes."""
    size = int(np.prod(shape, dtype=np.int64))
    buffer = np.empty(size + PAD, dtype=dtype)
    buffer[:size] = np.nan if np.dtype(dtype).kind in "fc" else 0
    buffer[size:].view(np.uint8)[:] = CANARY
    return buffer, buffer[:size].reshape(shape)


def overrun(name: str, pad: np.ndarray) -> str | None:
    """None while ``pad`` (the host copy of an output's ``PAD`` elements after its end)
    holds the canary; else what the kernel did."""
    if (np.ascontiguousarray(pad).view(np.uint8) == CANARY).all():
        return None
    return f"wrote past the end of {name} ({OVERHANG})"


def overruns(buffers: dict, to_host=np.asarray) -> None:
    """Overrun for the first output (of ``buffers``: name -> (padded buffer, its output's
    size), host or device arrays) whose canary changed; ``to_host``: a device array's
    pad as a numpy array."""
    for name, (buffer, size) in buffers.items():
        why = overrun(name, to_host(buffer[size:]))
        if why:
            raise Overrun(why)


def _scrub(msg: str, path: pathlib.Path | None) -> str:
    """A message without the grader's path to the file (a student never sees it)."""
    msg = " ".join(str(msg).split())
    if path is not None:
        for p in (str(path.resolve()), str(path), path.name):
            msg = msg.replace(p, "the submission")
    return msg[:500]


def _error(e: BaseException, path: pathlib.Path | None) -> str:
    from .sim import HostTransfer

    if isinstance(e, (HostTransfer, Overrun)):
        return _scrub(str(e), path)
    from .compile import hint

    text = str(e).strip().splitlines()
    first = text[0] if text else ""
    advice = hint(first)
    if isinstance(e, IndexError) and "out of bounds" in first:
        advice = f"a thread indexed past the end of an array: {OVERHANG}"
    msg = f"the kernels did not run: {type(e).__name__}: {first}"
    return _scrub(msg + (f" ({advice})" if advice else ""), path)


def _load(name: str, submission) -> tuple[ModuleType | None, pathlib.Path | None, str | None]:
    """(module, its file, None) or (None, file, why it cannot run)."""
    from .catalog import challenge
    from .harness import BrokenSubmission, load_submission, missing_names

    ch = challenge(name)
    if isinstance(submission, (str, pathlib.Path)):
        path = pathlib.Path(submission)
        if not path.is_file():
            return None, path, f"no such file: {path.name}"
        try:
            return load_submission(path, ch.KERNELS), path, None
        except BrokenSubmission as e:
            return None, path, _scrub(str(e), path)
        except SystemExit:  # an exit at import: the file is still written
            return None, path, "the submission exits when imported (sys.exit or exit())"
    missing = missing_names(submission, ch.KERNELS)
    if missing:
        return None, None, (f"the submission must define {', '.join(ch.KERNELS)}; missing: "
                            f"{', '.join(missing)}")
    file = getattr(submission, "__file__", None)
    return submission, pathlib.Path(file) if file else None, None


def _run_sim(ch: ModuleType, ns, size: dict, inputs: dict, trace: set[str] | None,
             salt: int = 0) -> tuple[dict, dict]:
    """(outputs, record) of one call of launch under the simulator, recorded (the paths
    traced unless ``trace`` is None)."""
    from . import counters
    from .sim import Recorder, patch_allocations

    rec = Recorder(trace_files=trace, trace=trace is not None, salt=salt)
    with rec:
        undo = patch_allocations(rec)
        try:
            arrays, sizes = {}, {}
            for k, v in inputs.items():
                if isinstance(v, np.ndarray):
                    arrays[k], sizes[k] = rec.wrap(k, v.copy()), v.size
                    rec.inputs.add(k)
                else:
                    arrays[k] = v
            pads = {}
            for k, (shape, dtype) in ch.outputs(**size).items():
                buffer, host = padded(shape, dtype)  # the simulator checks host's bounds
                arrays[k], sizes[k], pads[k] = rec.wrap(k, host), host.size, (buffer,
                                                                             host.size)
            with rec.launching():
                try:
                    ch.launch(ns, arrays)
                except Exception as e:
                    e.host_transfers = rec.host_transfers
                    raise
        finally:
            undo()
    overruns(pads)
    outs = {k: np.array(arrays[k]._ary) for k in ch.outputs(**size)}
    record = {"launches": rec.launches, "kernels": sorted(set(rec.launch_names)),
              "host_transfers": rec.host_transfers,
              "threads": rec.threads, "elements": max(sizes.values(), default=0),
              "counters": counters.count(rec.events, sizes, rec.paths, rec.launches,
                                         sum(h["bytes"] for h in rec.host_transfers))}
    return outs, record


class _GpuGuard:
    """On a GPU, inside launch: launches counted, host copies refused (as the recorder
    does under the simulator)."""

    def __init__(self):
        from numba.cuda.cudadrv import devicearray
        from numba.cuda import dispatcher

        self.devicearray, self.dispatcher = devicearray, dispatcher
        self.launches, self.transfers = 0, []

    def __enter__(self):
        from numba import cuda

        from .sim import HostTransfer

        da, guard = self.devicearray.DeviceNDArray, self
        self.saved = (da.copy_to_host, da.copy_to_device, cuda.to_device,
                      self.dispatcher.CUDADispatcher.call)

        def refuse(what, nbytes):
            guard.transfers.append({"what": what, "bytes": int(nbytes)})
            raise HostTransfer(f"work done outside a kernel: launch {what} ({int(nbytes)} "
                               f"bytes); every step must run in a kernel on the device")

        da.copy_to_host = lambda self, *a, **k: refuse("copied an array to the host "
                                                       "(copy_to_host)", self.nbytes)
        da.copy_to_device = lambda self, ary, *a, **k: refuse(
            "copied host data into an array (copy_to_device)", self.nbytes)
        cuda.to_device = lambda ary, *a, **k: refuse(
            "copied host data to the device (cuda.to_device)", getattr(ary, "nbytes", 0))
        call = self.saved[3]

        def counted(disp, *a, **k):
            guard.launches += 1
            return call(disp, *a, **k)

        self.dispatcher.CUDADispatcher.call = counted
        return self

    def __exit__(self, *exc):
        from numba import cuda

        da = self.devicearray.DeviceNDArray
        da.copy_to_host, da.copy_to_device, cuda.to_device = self.saved[:3]
        self.dispatcher.CUDADispatcher.call = self.saved[3]
        return False


def _run_gpu(ch: ModuleType, ns, size: dict, inputs: dict, timed: bool) -> tuple[dict, dict]:
    """(outputs, record) of one call of launch on the GPU (and, ``timed``, of the timed
    repeats). Each output is the head of a padded device buffer (:func:`padded`): a
    changed canary after the launches is an :class:`Overrun`."""
    from .harness import cuda

    arrays = {k: cuda.to_device(v) if isinstance(v, np.ndarray) else v
              for k, v in inputs.items()}
    buffers = {}
    for k, (shape, dtype) in ch.outputs(**size).items():
        buffer, host = padded(shape, dtype)
        device = cuda.to_device(buffer)
        buffers[k] = (device, host.size)
        arrays[k] = device[:host.size].reshape(host.shape)
    with _GpuGuard() as g:
        ch.launch(ns, arrays)
        cuda.synchronize()
    overruns(buffers, lambda pad: pad.copy_to_host())
    outs = {k: arrays[k].copy_to_host() for k in ch.outputs(**size)}
    record = {"launches": g.launches, "host_transfers": g.transfers}
    if timed:  # outputs reset to NaN, timed, and the last run's outputs are the ones judged
        from .. import timing

        for k, (shape, dtype) in ch.outputs(**size).items():
            arrays[k].copy_to_device(np.full(shape, np.nan, dtype=dtype))
        record["seconds"] = [float(timing.queued_time(lambda: ch.launch(ns, arrays),
                                                      warmup=2, repeats=10))]
        cuda.synchronize()
        overruns(buffers, lambda pad: pad.copy_to_host())
        outs = {k: arrays[k].copy_to_host() for k in ch.outputs(**size)}
    return outs, record


def collect(name: str, submission, seed: int, gpu: bool = False, time: bool = False,
            compile_check: bool | None = None) -> tuple[dict, dict]:
    """(arrays, meta) for ``submission`` (a file path, or a module or namespace with the
    challenge's names) at every size of the check. Under the simulator this process must
    have ``NUMBA_ENABLE_CUDASIM=1`` set before numba.cuda was imported (``main`` does).
    ``compile_check``: also compile the kernels for sm_75 where NVVM is installed (None:
    when the submission is a file and the simulator runs)."""
    from .catalog import challenge
    from .harness import device_name
    from .judge import all_inputs, check_sizes, index_key, key, sample_positions, timing_index

    ch = challenge(name)
    mode = "gpu" if gpu else "sim"
    sizes = check_sizes(ch, mode, seed)
    meta: dict = {"challenge": name, "seed": int(seed), "mode": mode, "sizes": sizes,
                  "counters": {}, "launches": 0, "host_transfers": [], "errors": {},
                  "device": device_name(), "compiled": None}
    arrays: dict = {}
    ns, path, why = _load(name, submission)
    compiling = None
    if why is None and compile_check is not False and path is not None and not gpu:
        from . import compile as sm75

        try:  # in its own process, while the simulator runs
            compiling = sm75.start(name, path, seed)
        except OSError:  # a sandbox that starts no process: no compile, the check goes on
            compiling = None
    if why is not None:
        meta["errors"] = {str(k): why for k in range(len(sizes))}
        return arrays, meta
    trace = {str(path.resolve())} if path is not None else set()
    threads, launched = [], set()
    for k, (size, inp) in enumerate(zip(sizes, all_inputs(ch, sizes, seed))):
        try:
            if gpu:
                outs, record = _run_gpu(ch, ns, size, inp,
                                        time and k == timing_index(ch, mode, seed))
            else:
                counted = k == len(sizes) + COUNT_AT  # paths traced at that size only
                outs, record = _run_sim(ch, ns, size, inp, trace if counted else None,
                                        salt=seed)
        except SystemExit:
            meta["errors"][str(k)] = "launch exits (sys.exit or exit()) instead of returning"
            continue
        except Exception as e:  # anything the submission does: recorded, never raised
            meta["errors"][str(k)] = _error(e, path)
            meta["host_transfers"] += getattr(e, "host_transfers", [])
            continue
        for out, a in outs.items():
            pos = sample_positions(a.size, seed, k, out)
            if pos is None:
                arrays[key(k, out)] = a
            else:  # a large output: its values at the check's positions, and those
                arrays[key(k, out)], arrays[index_key(k, out)] = a.reshape(-1)[pos], pos
        meta["launches"] = record["launches"]
        launched.update(record.get("kernels", ()))
        meta["host_transfers"] += record["host_transfers"]
        if "seconds" in record:
            meta["seconds"] = record["seconds"]
        if not gpu:
            threads.append(record["threads"])
        if not gpu and k == len(sizes) + COUNT_AT:
            # a grid that grows with the size (or covers it: 16 elements a thread at most),
            # or one fixed grid (a wave of the simulator's 2 SMs)
            scales = len(set(threads)) > 1 or 16 * record["threads"] >= record["elements"]
            meta["counters"] = {**record["counters"], "threads": record["threads"],
                                "grid_scales": int(scales), "size": size}
    if compiling is not None:
        report = sm75.finish(compiling)
        meta["compiled"] = report["compiled"]
        if not report["error"]:
            report["error"] = _uncompiled(launched, report)
        if report["error"]:  # what a GPU cannot compile is refused at every size
            meta["errors"] = {str(k): report["error"] for k in range(len(sizes))}
            meta["counters"] = {}
            arrays.clear()
    return arrays, meta


def _uncompiled(launched: set, report: dict) -> str | None:
    """Why the simulator's verdict cannot stand when the compile ran ``launch`` and did
    not compile every kernel the simulator launched (a launch that stopped, or chose other
    kernels, when handed numpy arrays as the compile hands them), else None."""
    note = str(report.get("note") or "")
    ran = report["compiled"] is True or note.startswith("launch stopped")
    missing = sorted(launched - set(report.get("kernels") or ())) if ran else []
    if not missing:
        return None
    why = note or "launch ran other kernels there"
    return (f"not compiled for a GPU (sm_75): {', '.join(missing)}: the compile check calls "
            f"launch with the check's arrays as numpy arrays, and {why[0].lower()}{why[1:]}; "
            "launch must run the same kernels there as under the simulator")


def failed(name: str, seed: int, why: str, mode: str = "sim") -> dict:
    """What collect records when nothing could run: every size's error is ``why``."""
    from .catalog import challenge
    from .judge import check_sizes

    sizes = check_sizes(challenge(name), mode, seed)
    return {"meta": {"challenge": name, "seed": int(seed), "mode": mode, "sizes": sizes,
                     "counters": {}, "launches": 0, "host_transfers": [],
                     "errors": {str(k): why for k in range(len(sizes))}, "device": None}}


#: The modules the one file is written with (numpy's savez, zipfile, json) and the
#: interpreter's builtins: a submission that replaced one of their functions could rewrite
#: the counters or the outputs on their way out, in its own process. The policy
#: (exercises/policy.py) refuses the code that does it; this is the line behind it.
WRITERS = ("numpy", "zipfile", "json", "io", "zlib", "struct", "binascii", "builtins")
#: The check's own modules: this one (``__main__`` when run with -m) and the book's
#: (``__main__.write`` replaced through sys.modules forged a pass, a seventh hostile
#: student's, in code the policy now refuses).
OWN = ("__main__", "labs")


class Untouched:
    """What the writers' and the check's own modules hold now (each name's object, and a
    function's code), to tell later whether a submission replaced any of it:
    :meth:`changed` names the first name that is no longer the same."""

    def __init__(self):
        self.ids = {name: self._ids(mod) for name, mod in self._modules()}
        self.kept = [mod for _, mod in self._modules()]  # (their ids stay theirs)

    @staticmethod
    def _modules():
        return [(name, mod) for name, mod in list(sys.modules.items())
                if mod is not None and name.split(".")[0] in WRITERS + OWN]

    @staticmethod
    def _ids(mod) -> dict:
        out = {}
        for k, v in list(vars(mod).items()):
            out[k] = id(v)
            code = getattr(v, "__code__", None) if isinstance(v, FunctionType) else None
            if code is not None:
                out[f"{k}.__code__"] = id(code)
        return out

    def changed(self) -> str | None:
        for name, mod in self._modules():
            now, then = self._ids(mod), self.ids.get(name, {})
            for k, i in then.items():
                if now.get(k) != i:
                    return f"{name}.{k}"
        return None


def write(path: str | pathlib.Path, arrays: dict, meta: dict) -> pathlib.Path:
    """The one npz file: the output arrays and ``meta`` as a JSON string."""
    path = pathlib.Path(path)
    with open(path, "wb") as f:
        np.savez(f, meta=np.array(json.dumps(meta, sort_keys=True, default=str)), **arrays)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m labs.challenges.collect",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("name")
    ap.add_argument("submission")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpu", action="store_true", help="run on the GPU (default: simulator)")
    ap.add_argument("--time", action="store_true", help="with --gpu: time the timing size")
    ap.add_argument("--no-compile", action="store_true",
                    help="skip the sm_75 compile (simulator only)")
    a = ap.parse_args(argv)
    if a.time and not a.gpu:
        ap.error("--time needs --gpu")
    if not a.gpu:
        if "numba.cuda" in sys.modules and os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
            ap.error("numba.cuda was imported before the simulator could be chosen")
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    from .catalog import NAMES

    if a.name not in NAMES:
        ap.error(f"unknown challenge {a.name!r}; challenges: {', '.join(NAMES)}")
    before = Untouched()
    # what runs after the submission, bound here: a name it rebinds is not looked up again
    changed, fail, writer, out = before.changed, failed, write, a.out
    arrays, meta = collect(a.name, a.submission, a.seed, gpu=a.gpu, time=a.time,
                           compile_check=False if a.no_compile else None)
    replaced = changed()
    if replaced:
        arrays = {}
        meta = fail(a.name, a.seed, f"the submission replaced {replaced}, a function the "
                    "check's own file is written with: nothing it computed is kept",
                    "gpu" if a.gpu else "sim")["meta"]
    writer(out, arrays, meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
