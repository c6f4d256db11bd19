"""numba's CUDA simulator, made fast enough to check a kernel at several sizes and made
to record what the mechanism counters read (:mod:`labs.challenges.counters`).

:func:`install` (idempotent; only with ``NUMBA_ENABLE_CUDASIM=1``) replaces, in the
simulator:

- the block scheduler: the stock one polls every thread in a loop that holds the GIL; here
  each thread waits on one condition, a barrier (``syncthreads``) releases when every
  live thread of the block waits on it, and a warp shuffle when all 32 lanes of the warp
  wait on it. When every live thread waits and nothing can be released (a shuffle inside
  a branch some lanes skip, a barrier some threads never reach) the launch stops at once
  with that reason, instead of after a time-out;
- the warp shuffles the simulator lacks (``shfl_sync``, ``shfl_up_sync``,
  ``shfl_down_sync``, ``shfl_xor_sync``; full mask);
- ``cuda.shared.array``'s call-site lookup (a frame, not a formatted stack) and the
  in-kernel array's attribute lookup (a cached set, not ``dir()`` on every ``x.size``).

:class:`Recorder` then records, while it is active, every element access to the arrays it
wraps (and to every shared array), each thread's path through the kernel's source lines,
and the launches, and refuses host copies inside ``launch`` (work done outside a kernel).
Every access of every block of every launch is recorded (the check's sizes are small; see
:mod:`labs.challenges.judge`); the paths, which cost a trace of every line, are sampled:
the first :data:`TRACED_BLOCKS` blocks of each launch and its last (the tail block, where
a bounds check splits a warp). A kernel whose divergence differs from block to block in
the blocks between is under-counted; the challenges' kernels treat every block alike.
"""
from __future__ import annotations

import sys
import threading
from collections import defaultdict

import numpy as np

WARP = 32
#: Paths are traced in the first this-many blocks of each launch and in its last: the
#: divergence counters sample blocks (every access is still recorded in every block).
TRACED_BLOCKS = 2


class HostTransfer(Exception):
    """Data crossed between host and device inside ``launch``: work done outside a kernel."""


class WholeArray(TypeError):
    """A kernel used a whole device array at once (``x.sum()``, ``np.asarray(x)``, a
    ufunc): a GPU thread reads and writes an array one element at a time, and only those
    accesses are counted."""


#: What a kernel, or launch on the host, may read of a device array without touching its
#: elements: its metadata.
METADATA = frozenset({"shape", "size", "ndim", "dtype", "strides", "itemsize", "nbytes",
                      "flags"})


#: What numpy looks up on an object it turns into an array (np.asarray, np.sum, ...).
ASARRAY = frozenset({"__array__", "__array_struct__", "__array_interface__"})


def _whole(name: str, what: str) -> WholeArray:
    return WholeArray(f"{what} of the device array {name} inside a kernel: a thread reads "
                      f"and writes an array one element at a time ({name}[i]); whole-array "
                      "numpy work on it is not a kernel's, and the simulator counts nothing "
                      "of it")


class BlockError(RuntimeError):
    """A block that cannot go on (a deadlock), named by the block."""


class _Abort(Exception):
    """Raised in a simulated thread when its block is stopped."""


# ------------------------------------------------------------------ the block scheduler

def _classes():
    from numba.cuda.simulator import kernel

    class Thread(kernel.BlockThread):
        """A simulated CUDA thread whose waits go through its block's condition."""

        def __init__(self, f, manager, blockIdx, threadIdx, debug):
            super().__init__(f, manager, blockIdx, threadIdx, debug)
            rec = _ACTIVE
            self.key = (rec.launches if rec else 0, tuple(blockIdx))
            self.traced = rec is not None and bool(rec.trace_files) and manager.sampled
            self.ordinals: dict = {}
            self.vec: dict | None = None
            self.atomic = 0
            self.path = 0
            self.go = threading.Event()
            self.shfl_result = None

        def run(self):
            m = self._manager
            rec = _ACTIVE
            try:
                if self.traced:
                    sys.settrace(rec.tracer(self))
                threading.Thread.run(self)
            except _Abort:
                pass
            except BlockError as e:  # about the block, not this thread
                self.exception = (e, sys.exc_info()[2])
            except Exception as e:
                msg = f"tid={list(self.threadIdx)} ctaid={list(self.blockIdx)}: {e}"
                try:
                    err = type(e)(msg)
                except Exception:  # an exception type that wants other arguments
                    err = RuntimeError(f"{type(e).__name__}: {msg}")
                self.exception = (err, sys.exc_info()[2])
            finally:
                sys.settrace(None)
                m.exited(self)

        def syncthreads(self):
            self._manager.wait(self, "sync")

    class Manager:
        """Runs one block: every thread started, then joined; waits as described above."""

        def __init__(self, f, grid_dim, block_dim, debug):
            self._grid_dim, self._block_dim = grid_dim, block_dim
            self._f, self._debug = f, debug
            self.block_state = np.zeros(block_dim, dtype=np.bool_)
            self.cond = threading.Condition()
            self.waiting: dict = {}
            self.live = 0
            self.abort_reason: str | None = None
            self.lanes: dict = defaultdict(int)
            self.posted: dict = defaultdict(dict)
            self.sampled = True
            self.in_turn = self.greenlets = False
            self.n_sync = 0
            self.shuffling: dict = {}

        def _sample(self, grid_point) -> bool:
            """Whether this block's paths are traced: a launch's first and last blocks and
            about TRACED_BLOCKS others, chosen by the recorder's salt (the check's seed,
            which the submission cannot read), so a kernel cannot keep its divergence to
            the blocks that are not traced (tracing is the costly part of a check)."""
            flat = int(np.ravel_multi_index(tuple(grid_point), self._grid_dim))
            last = int(np.prod(self._grid_dim)) - 1
            if flat == 0 or flat == last:
                return True
            rec = _ACTIVE
            salt, launch = (rec.salt, rec.launches) if rec is not None else (0, 0)
            every = max(1, (last - 1) // TRACED_BLOCKS)
            return hash((salt, launch, flat)) % every == 0

        def run(self, grid_point, *args):
            def target():
                self._f(*args)

            self.sampled = self._sample(grid_point)
            if not needs_threads(self._f):
                return self._run_in_turn(grid_point, args)
            if _greenlet() is not None:
                return self._run_greenlets(grid_point, args)
            threads = [Thread(target, self, grid_point, p, self._debug)
                       for p in np.ndindex(*self._block_dim)]
            self.live = len(threads)
            for t in threads:
                self.lanes[t.thread_id // WARP] += 1
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            rec = _ACTIVE
            if rec is not None:
                rec.block_done(grid_point, threads)
            for t in threads:
                if t.exception:
                    raise t.exception[0].with_traceback(t.exception[1])
            if self.abort_reason:
                raise RuntimeError(f"ctaid={list(grid_point)}: {self.abort_reason}")

        def _run_in_turn(self, grid_point, args) -> None:
            """A block of a kernel that never waits for another thread (no barrier, no
            shuffle): its threads one after another in ONE Python thread, each with its
            own indices, counts and path; any order of threads is one a GPU could run."""
            from numba.cuda.simulator.kernelapi import Dim3

            bx, by, _bz = self._block_dim

            def body():
                w = threading.current_thread()
                rec = _ACTIVE
                tracer = rec.tracer(w) if w.traced else None
                for p in np.ndindex(*self._block_dim):
                    w.threadIdx = Dim3(*p)
                    w.thread_id = p[0] + bx * (p[1] + by * p[2])
                    w.ordinals, w.vec, w.atomic, w.path = {}, None, 0, 0
                    if tracer is not None:
                        sys.settrace(tracer)
                    try:
                        self._f(*args)
                    finally:
                        sys.settrace(None)
                    if tracer is not None:
                        rec.paths[(w.key, w.thread_id // WARP)].add(w.path)

            self.live, self.in_turn = 1, True
            w = Thread(body, self, grid_point, (0, 0, 0), self._debug)
            w.start()
            w.join()
            if w.exception:
                raise w.exception[0].with_traceback(w.exception[1])

        def _run_greenlets(self, grid_point, args) -> None:
            """A block whose threads wait for each other, each thread a greenlet in ONE
            Python thread: a thread runs until it waits (a barrier, a shuffle) or ends;
            then what can be released is (a barrier every live thread waits at, a warp
            whose 32 lanes wait at a shuffle), and a round where nothing can is a
            deadlock, reported at once. Switching greenlets costs far less than waking
            an OS thread."""
            from numba.cuda.simulator.kernelapi import Dim3

            gl = _greenlet()
            bx, by, _bz = self._block_dim
            fields = ("threadIdx", "thread_id", "ordinals", "vec", "atomic", "path")

            def body():
                w = threading.current_thread()
                rec = _ACTIVE
                if w.traced:
                    sys.settrace(rec.tracer(w))
                main = gl.getcurrent()
                self.main = main

                def one():
                    try:
                        self._f(*args)
                    except Exception as e:
                        return ("error", e, sys.exc_info()[2])
                    return ("done",)

                states = []
                for p in np.ndindex(*self._block_dim):
                    st = {"threadIdx": Dim3(*p), "thread_id": p[0] + bx * (p[1] + by * p[2]),
                          "ordinals": {}, "vec": None, "atomic": 0, "path": 0,
                          "g": gl.greenlet(one), "send": None}
                    states.append(st)
                ready, waiting = list(states), {}
                live = len(states)
                try:
                    while True:
                        for st in ready:
                            for f in fields:
                                setattr(w, f, st[f])
                            got = st["g"].switch(st["send"]) if st["send"] is not None \
                                else st["g"].switch()
                            for f in fields:
                                st[f] = getattr(w, f)
                            if got[0] == "done":
                                live -= 1
                                if w.traced:
                                    rec.paths[(w.key, st["thread_id"] // WARP)].add(st["path"])
                            elif got[0] == "error":  # Thread.run names this thread's indices
                                raise got[1].with_traceback(got[2])
                            else:
                                waiting[id(st)] = (st, got)
                        ready = []
                        if not waiting:
                            break
                        warps: dict = defaultdict(list)
                        for st, got in waiting.values():
                            if got[0] == "shfl":
                                warps[st["thread_id"] // WARP].append((st, got))
                        for warp, lanes in warps.items():
                            if len(lanes) == WARP:
                                value = {s_["thread_id"] % WARP: g_[1] for s_, g_ in lanes}
                                for s_, g_ in lanes:
                                    src = g_[2]
                                    s_["send"] = (value[src] if 0 <= src < WARP
                                                  else value[s_["thread_id"] % WARP],)
                                    del waiting[id(s_)]
                                    ready.append(s_)
                        if not ready and len(waiting) == live and all(
                                g_[0] == "sync" for _s, g_ in waiting.values()):
                            for s_, _g in waiting.values():
                                s_["send"] = (None,)
                                ready.append(s_)
                            waiting = {}
                        if not ready:
                            if warps:
                                raise BlockError(
                                    f"ctaid={list(grid_point)}: warp {min(warps)}: not every "
                                    f"lane reached the shuffle (a shuffle inside a branch only "
                                    f"some lanes take, or after some lanes returned?); all 32 "
                                    f"lanes of a warp must call it")
                            raise BlockError(
                                f"ctaid={list(grid_point)}: not every thread reached "
                                f"cuda.syncthreads() (a barrier inside a branch, or after an "
                                f"early return?)")
                finally:
                    # Every greenlet ends here, in the thread that made it: one left
                    # suspended (a block stopped by an error or a deadlock), or this
                    # thread's main greenlet, collected later from another thread, can
                    # crash the interpreter (seen: SIGSEGV while garbage-collecting).
                    sys.settrace(None)
                    for st in states:
                        if not st["g"].dead:
                            st["g"].throw(gl.GreenletExit)
                    states.clear()
                    self.main = None

            self.live, self.greenlets = 1, True
            w = Thread(body, self, grid_point, (0, 0, 0), self._debug)
            w.start()
            w.join()
            if w.exception:
                raise w.exception[0].with_traceback(w.exception[1])

        # (all below with self.cond held, except wait and exited, which take it)
        def _stop(self, reason: str) -> None:
            self.abort_reason = self.abort_reason or reason
            for t in self.waiting:
                t.go.set()
            self.waiting.clear()

        def _release(self, threads) -> None:
            for t in threads:
                del self.waiting[t]
                t.go.set()

        def _settle(self, warp: int | None = None) -> None:
            """Release what can be released (a barrier every live thread waits at; the
            shuffle of ``warp`` once its 32 lanes wait at it); stop the block on a
            deadlock (every live thread waiting, none released)."""
            if self.abort_reason or not self.waiting:
                return
            lanes = self.shuffling.get(warp) if warp is not None else None
            if lanes is not None and len(lanes) == WARP:
                values = self.posted.pop(warp)
                for t in lanes:
                    src, own = values[t.thread_id % WARP][1], values[t.thread_id % WARP][0]
                    t.shfl_result = values[src][0] if 0 <= src < WARP else own
                del self.shuffling[warp]
                self._release(lanes)
                return
            if self.n_sync and self.n_sync == self.live:
                self.n_sync = 0
                self._release([t for t, w in self.waiting.items() if w == "sync"])
                return
            if len(self.waiting) == self.live:
                if self.shuffling:
                    self._stop(f"warp {min(self.shuffling)}: not every lane reached the "
                               f"shuffle (a shuffle inside a branch only some lanes take, or "
                               f"after some lanes returned?); all 32 lanes of a warp must "
                               f"call it")
                else:
                    self._stop("not every thread reached cuda.syncthreads() (a barrier "
                               "inside a branch, or after an early return?)")

        def wait(self, t, what) -> None:
            if self.greenlets:  # back to the block's scheduler until released
                if what == "sync":
                    self.main.switch(("sync",))
                    return
                raise RuntimeError("a shuffle waits through Manager.shuffle")
            if self.in_turn:  # needs_threads missed a wait: say so, never skip a barrier
                raise RuntimeError("the simulator ran this kernel's threads one after "
                                   "another, but it waits for other threads; name the "
                                   "barrier or shuffle in the kernel or a device function")
            with self.cond:
                if self.abort_reason or t.abort:
                    raise _Abort()
                t.go.clear()
                self.waiting[t] = what
                if what == "sync":
                    self.n_sync += 1
                    self._settle()
                else:
                    self.shuffling.setdefault(what[1], []).append(t)
                    self._settle(what[1])
            t.go.wait()
            if self.abort_reason:
                raise _Abort()

        def exited(self, t) -> None:
            with self.cond:
                self.live -= 1
                if t.exception:
                    self._stop("another thread of the block failed")
                self._settle()

        def shuffle(self, t, value, src: int):
            if self.greenlets:
                return self.main.switch(("shfl", value, int(src)))[0]
            if self.in_turn:
                self.wait(t, "shfl")  # (raises: see wait)
            if self.lanes[t.thread_id // WARP] != WARP:
                raise RuntimeError(f"warp shuffles need whole warps of 32 threads; this block "
                                   f"has {self.block_state.size}")
            with self.cond:
                self.posted[t.thread_id // WARP][t.thread_id % WARP] = (value, int(src))
            self.wait(t, ("shfl", t.thread_id // WARP))
            return t.shfl_result

    return Thread, Manager


#: What makes a thread wait for others: with none of these names, a kernel's threads can
#: run one after another (:func:`needs_threads`).
WAITS = frozenset({"syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or",
                   "syncwarp", "shfl_sync", "shfl_up_sync", "shfl_down_sync",
                   "shfl_xor_sync", "ballot_sync", "all_sync", "any_sync", "eq_sync",
                   "match_any_sync", "match_all_sync", "this_grid", "cg", "Barrier"})
_NEEDS: dict = {}


def _names(code) -> set[str]:
    out = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            out |= _names(const)
    return out


def needs_threads(fn, _seen: set | None = None) -> bool:
    """Whether the Python function ``fn`` (a kernel's), or a function or device function
    it names, waits for other threads (a barrier, a shuffle, a warp vote)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return True
    if code in _NEEDS:
        return _NEEDS[code]
    seen = set() if _seen is None else _seen
    if code in seen:
        return False
    seen.add(code)
    names = _names(code)
    found = bool(names & WAITS)
    glob = dict(getattr(fn, "__globals__", {}))
    for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or ()):
        try:
            glob[name] = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        names.add(name)
    for name in names - WAITS:
        if found:
            break
        g = glob.get(name)
        inner = getattr(g, "fn", None) or getattr(g, "py_func", None) or g
        if callable(inner) and hasattr(inner, "__code__") and inner is not fn:
            found = needs_threads(inner, seen)
    if _seen is None:
        _NEEDS[code] = found
    return found


def _atomic(fn):
    """An atomic of the simulator, recorded as ONE access of kind "a" (not a read and a
    write)."""
    def wrapped(self, *args):
        rec, target = _ACTIVE, getattr(args[0], "_item", None) if args else None
        name = getattr(target, "_name", None)
        if rec is not None and name in rec.inputs:
            raise TypeError(f"cuda.atomic.{fn.__name__} on {name}, an input: a kernel reads "
                            f"its inputs ({name}[i]); an atomic writes them, and is not "
                            "counted as a read")
        t = threading.current_thread()
        t.atomic = 1
        try:
            return fn(self, *args)
        finally:
            t.atomic = 0

    return wrapped


def _shuffle(value, lane_of):
    t = threading.current_thread()
    return t._manager.shuffle(t, value, lane_of(t.thread_id % WARP))


_INSTALLED = False
_GREENLET: list = []


def _greenlet():
    """The greenlet module where it is installed (the fast scheduler), else None (OS
    threads)."""
    if not _GREENLET:
        try:
            import greenlet
        except ImportError:
            greenlet = None
        _GREENLET.append(greenlet)
    return _GREENLET[0]
_SHARED_LOCK = threading.Lock()


def install() -> None:
    """Put the scheduler, the shuffles and the faster look-ups into the simulator."""
    global _INSTALLED
    if _INSTALLED:
        return
    from numba.cuda.simulator import kernel, kernelapi
    from numba.cuda.simulator.cudadrv import devicearray

    _thread, manager = _classes()
    kernel.BlockManager = manager
    fake = kernelapi.FakeCUDAModule
    fake.shfl_down_sync = lambda self, mask, v, d: _shuffle(v, lambda ln: ln + d)
    fake.shfl_up_sync = lambda self, mask, v, d: _shuffle(v, lambda ln: ln - d)
    fake.shfl_xor_sync = lambda self, mask, v, d: _shuffle(v, lambda ln: ln ^ d)
    fake.shfl_sync = lambda self, mask, v, src: _shuffle(v, lambda ln: src)
    fake._challenge_shuffles = True

    def shared_array(self, shape, dtype):
        from numba.core import types
        from numba.np import numpy_support

        if isinstance(dtype, types.Type):
            dtype = numpy_support.as_dtype(dtype)
        if shape == 0:  # the launch's dynamic shared memory, recorded as a static one is
            count = self._dynshared_size // dtype.itemsize
            res = np.frombuffer(self._dynshared.data, dtype=dtype, count=count)
            rec = _ACTIVE
            return rec.wrap_shared("shared@dynamic", res) if rec is not None else res
        frame = sys._getframe(1)
        site = (frame.f_code.co_filename, frame.f_lineno)
        with _SHARED_LOCK:  # (the stock simulator races here: two threads, two arrays)
            res = self._allocations.get(site)
            if res is None:
                res = np.zeros(shape, dtype)
                rec = _ACTIVE
                if rec is not None:
                    res = rec.wrap_shared(f"shared@{site[1]}", res)
                self._allocations[site] = res
        return res

    kernelapi.FakeCUDAShared.array = shared_array
    attrs = set(dir(np.ndarray))
    within = devicearray.FakeWithinKernelCUDAArray

    views = ("reshape", "ravel", "transpose", "T")

    def getattr_(self, name):  # a cached set, and views of counted arrays stay counted
        item = self._item
        counted = "_rec" in vars(item)  # an array the recorder counts (not numba's own)
        own = any(name in vars(c) for c in type(item).__mro__[:-2])  # (harness.Tally's)
        if name in views and (counted or own):
            got = getattr(item, name)  # a counting array's own view (x.T too): counted
            if callable(got):
                return lambda *a, **k: within(got(*a, **k))
            return within(got)
        if name in attrs:
            if counted and name not in METADATA:
                # x.sum(), np.asarray(x) (its __array__), x.copy(): work the counters miss
                raise _whole(item._name, "np.asarray" if name in ASARRAY else name)
            return getattr(item._ary, name)
        try:
            return item.__getitem__(name)
        except Exception as e:
            raise AttributeError(name) from e

    plain_ufunc = within.__array_ufunc__

    def ufunc_(self, ufunc, method, *args, **kwargs):
        if "_rec" in vars(self._item):
            raise _whole(self._item._name, f"np.{ufunc.__name__}")
        return plain_ufunc(self, ufunc, method, *args, **kwargs)

    within.__getattr__ = getattr_
    within.__array_ufunc__ = ufunc_
    for op in ("add", "sub", "and_", "or_", "xor", "max", "min", "exch", "inc", "dec",
               "cas", "nanmax", "nanmin", "compare_and_swap"):
        if hasattr(kernelapi.FakeCUDAAtomic, op):
            setattr(kernelapi.FakeCUDAAtomic, op, _atomic(getattr(kernelapi.FakeCUDAAtomic, op)))
    call = kernel.FakeCUDAKernel.__call__

    def launched(self, *args):
        rec = _ACTIVE
        if rec is not None and rec.in_launch and not self._device:
            for a in args:  # numba copies a numpy argument to the device (and back)
                if isinstance(a, np.ndarray) and a.ndim:
                    rec.refuse(f"passed a host (numpy) array to {self.fn.__name__}, which "
                               "copies it to the device", a.nbytes)
                if isinstance(a, devicearray.FakeCUDAArray) and "_rec" not in vars(a):
                    raise TypeError(f"launch passed {self.fn.__name__} an array the check "
                                    "does not count (cuda.mapped_array or the like): use "
                                    "the inputs, the outputs and cuda.device_array")
        if rec is not None and not self._device:
            rec.launch(self, *kernel.normalize_kernel_dimensions(self.grid_dim,
                                                                 self.block_dim))
        return call(self, *args)

    kernel.FakeCUDAKernel.__call__ = launched
    _INSTALLED = True


# ---------------------------------------------------------------------- the recorder

#: The recorder recording now (Recorder.__enter__), or None. Kept in a name that starts with
#: an underscore, which a submission cannot reach (exercises/policy.py): a public
#: ``Recorder.active`` let a student who found this module through numba's
#: FunctionIdentity(...).module rewrite the recorded accesses.
_ACTIVE = None


def _in_kernel() -> bool:
    return hasattr(threading.current_thread(), "_manager")


class Recorder:
    """Records accesses, paths and launches while it is entered (one at a time).

    >>> rec = Recorder(trace_files={kernel_file})
    >>> x = rec.wrap("x", host_array)          # a device array whose accesses count
    >>> with rec.launching():                   # host copies refused in here
    ...     launch(x, out)
    >>> rec.events, rec.paths, rec.launches
    """

    def __init__(self, trace_files: set[str] | None = None, trace: bool = True,
                 salt: int = 0):
        self.events: list = []
        self.paths: dict = defaultdict(set)
        self.launches = 0
        self.launch_names: list[str] = []
        self.host_transfers: list[dict] = []
        self.trace_files = set(trace_files or ())
        self.trace = trace
        self.in_launch = False
        self.scratch = 0
        self.threads = 0
        self.inputs: set[str] = set()  # the arrays a kernel may only read (no atomics)
        self.salt = int(salt)          # chooses the blocks whose paths are traced

    def __enter__(self):
        global _ACTIVE
        if _ACTIVE is not None:
            raise RuntimeError("a Recorder is already active")
        install()
        _ACTIVE = self
        return self

    def __exit__(self, *exc):
        global _ACTIVE
        _ACTIVE = None
        return False

    # -- launches and host copies
    def launch(self, kernel, grid=(1,), block=(1,)) -> None:
        """Count one launch of ``kernel`` (its grid and block: the threads it starts)."""
        self.threads = max(self.threads, int(np.prod(tuple(grid)) * np.prod(tuple(block))))
        self.launches += 1
        self.launch_names.append(kernel.fn.__name__)
        code = getattr(kernel.fn, "__code__", None)
        if code is not None and self.trace:
            self.trace_files.add(code.co_filename)

    def refuse(self, what: str, nbytes: int) -> None:
        """Record a host transfer inside launch and raise HostTransfer."""
        self.host_transfers.append({"what": what, "bytes": int(nbytes)})
        raise HostTransfer(f"work done outside a kernel: launch {what} ({int(nbytes)} "
                           f"bytes); every step must run in a kernel on the device")

    class _Launching:
        def __init__(self, rec):
            self.rec = rec

        def __enter__(self):
            self.rec.in_launch = True
            self.rec.launches = 0
            self.rec.launch_names = []

        def __exit__(self, *exc):
            self.rec.in_launch = False
            return False

    def launching(self):
        """A context for one call of ``launch``: launches counted from 0, host copies
        refused."""
        return Recorder._Launching(self)

    # -- paths
    def tracer(self, thread):
        files = self.trace_files

        # A path is the sequence of bytecode offsets a thread runs, not of lines: the two
        # sides of a conditional expression on one line are two paths, as on a GPU.
        def local(frame, event, arg):
            if event == "opcode":
                thread.path = hash((thread.path, frame.f_code.co_firstlineno, frame.f_lasti))
            return local

        def global_(frame, event, arg):
            if frame.f_code.co_filename not in files:
                return None
            frame.f_trace_opcodes = True
            return local

        return global_

    def block_done(self, grid_point, threads) -> None:
        for t in threads:
            if t.traced:
                self.paths[(t.key, t.thread_id // WARP)].add(t.path)

    # -- accesses
    def note(self, t, name: str, kind: str, flat: int, itemsize: int, space: str) -> None:
        """Record thread ``t``'s access (see :mod:`labs.challenges.counters`)."""
        atomic = t.atomic
        if atomic:
            if atomic == 2:
                return
            t.atomic, kind = 2, "a"
        k = (name, kind)
        if t.vec is not None and k in t.vec:
            ordinal = t.vec[k]
        else:
            ordinal = t.ordinals.get(k, 0)
            t.ordinals[k] = ordinal + 1
            if t.vec is not None:
                t.vec[k] = ordinal
        self.events.append((name, kind, t.key, t.thread_id, ordinal, flat, itemsize, space))

    def wrap(self, name: str, host: np.ndarray):
        """A simulator device array over ``host`` whose element accesses are recorded."""
        return _counted_class()(host, self, name, host)

    def wrap_shared(self, name: str, array: np.ndarray):
        return _SharedCounted(array, self, name)


def vector(fn):
    """``fn`` (a simulated 16-byte load or store) as ONE access per array: its element
    accesses share an ordinal, as the one instruction they are on a GPU."""
    def wrapped(*args):
        t = threading.current_thread()
        if not hasattr(t, "vec") or t.vec is not None:
            return fn(*args)
        t.vec = {}
        try:
            return fn(*args)
        finally:
            t.vec = None

    wrapped.__name__ = getattr(fn, "__name__", "vector")
    wrapped.__doc__ = fn.__doc__
    return wrapped


class _Layout:
    """Where a view's elements sit in its base buffer, in elements: ``offset`` of
    element (0, ...), ``strides``, ``shape``; for :meth:`flat`."""

    __slots__ = ("offset", "strides", "shape", "ndim")

    def __init__(self, view: np.ndarray, base_addr: int):
        size = view.itemsize
        self.offset = (view.__array_interface__["data"][0] - base_addr) // size
        self.strides = tuple(s // size for s in view.strides)
        self.shape = view.shape
        self.ndim = view.ndim

    def flat(self, idx) -> int | None:
        """The base buffer's element index of ``view[idx]`` (ints only), else None."""
        if self.ndim == 1:
            if idx.__class__ is int or isinstance(idx, np.integer):
                i = int(idx)
                return self.offset + (i + self.shape[0] if i < 0 else i) * self.strides[0]
            if not (isinstance(idx, tuple) and len(idx) == 1):
                return None
            idx = idx
        if not isinstance(idx, tuple) or len(idx) != self.ndim:
            return None
        off = self.offset
        for i, n, s in zip(idx, self.shape, self.strides):
            if not (i.__class__ is int or isinstance(i, np.integer)):
                return None
            i = int(i)
            off += (i + n if i < 0 else i) * s
        return off


_COUNTED = None


def _counted_class():
    global _COUNTED
    if _COUNTED is not None:
        return _COUNTED
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

    class Counted(FakeCUDAArray):
        """A simulator device array recording each element access to the recorder."""

        def __init__(self, ary, rec, name, base, stream=0):
            super().__init__(ary, stream)
            addr = base.__array_interface__["data"][0]
            self.__dict__.update(_rec=rec, _name=name, _base=base, _addr=addr,
                                 _layout=_Layout(ary, addr), _size=ary.itemsize)

        def _view(self, ary):
            if not np.may_share_memory(ary, self._base):  # a reshape that had to copy
                raise _whole(self._name, "a reshape that copies (of a transposed view)")
            return Counted(ary, self._rec, self._name, self._base)

        def _host_guard(self, what: str, nbytes: int) -> None:
            rec = self._rec
            if rec.in_launch and _ACTIVE is rec and not _in_kernel():
                rec.refuse(what, nbytes)

        def __getitem__(self, idx):
            t = threading.current_thread()
            if hasattr(t, "key"):
                flat = self._layout.flat(idx)
                if flat is not None:
                    self._rec.note(t, self._name, "r", flat, self._size, "global")
                    return self._ary[idx]
            ret = self._ary[idx]
            if isinstance(ret, np.ndarray):
                return self._view(ret)
            self._host_guard(f"read {self._name}[{idx}] on the host", self._size)
            return ret

        def __setitem__(self, idx, val):
            t = threading.current_thread()
            if hasattr(t, "key"):
                flat = self._layout.flat(idx)
                if flat is not None:
                    self._rec.note(t, self._name, "w", flat, self._size, "global")
            else:
                self._host_guard(f"wrote {self._name} from the host", self._size)
            self._ary[idx] = val

        def copy_to_host(self, ary=None, stream=0):
            self._host_guard(f"copied {self._name} to the host (copy_to_host)",
                             self._ary.nbytes)
            return super().copy_to_host(ary, stream)

        def copy_to_device(self, ary, stream=0):
            self._host_guard(f"copied host data into {self._name} (copy_to_device)",
                             self._ary.nbytes)
            return super().copy_to_device(ary, stream)

        def __array__(self, dtype=None, copy=None):
            if _in_kernel():
                raise _whole(self._name, "np.asarray")
            self._host_guard(f"read {self._name} as a numpy array on the host",
                             self._ary.nbytes)
            return np.asarray(self._ary, dtype=dtype)

        def __getattr__(self, name):
            # numpy's own methods and attributes (x.sum(), x.copy(), x.data) and what
            # np.asarray looks up (__array_struct__ before __array__): whole-array work on
            # the host, refused inside launch; the metadata is free
            if name in ASARRAY or (not name.startswith("_") and name not in METADATA
                                   and hasattr(self._ary, name)):
                if _in_kernel():
                    raise _whole(self._name, name)
                what = (f"read {self._name} as a numpy array on the host" if name in ASARRAY
                        else f"used {self._name}.{name} on the host")
                self._host_guard(what, self._ary.nbytes)
            return super().__getattr__(name)

        def __repr__(self):  # what a GPU's device array prints: no values
            return (f"<device array {self._name}: shape {self._ary.shape}, "
                    f"{self._ary.dtype}>")

        __str__ = __repr__

        def view(self, *args, **kwargs):
            return self._view(self._ary.view(*args, **kwargs))

        def split(self, section, stream=0):
            return [self._view(a) for a in np.split(self._ary, range(section, len(self._ary),
                                                                      section))]

        def reshape(self, *shape, **kw):
            return self._view(self._ary.reshape(*shape, **kw))

        def transpose(self, axes=None):
            return self._view(np.transpose(self._ary, axes=axes))

        def ravel(self, order="C"):
            return self._view(self._ary.ravel(order))

        def bind(self, stream=0):
            return self

    def host_op(op: str):
        plain = getattr(FakeCUDAArray, op)

        def guarded(self, *args):
            if _in_kernel():
                raise _whole(self._name, f"the operator {op}")
            self._host_guard(f"computed with {self._name} on the host ({op})",
                             self._ary.nbytes)
            return plain(self, *args)

        return guarded

    for op in ("__add__", "__sub__", "__mul__", "__floordiv__", "__truediv__", "__mod__",
               "__pow__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
        setattr(Counted, op, host_op(op))
    Counted.__hash__ = object.__hash__  # (defining __eq__ would drop it)
    _COUNTED = Counted
    return Counted


class _SharedCounted:
    """A shared-memory array (numpy) whose element accesses are recorded as "shared"."""

    __slots__ = ("_ary", "_rec", "_name", "_layout", "_size")

    def __init__(self, ary, rec, name):
        self._ary, self._rec, self._name = ary, rec, name
        self._layout = _Layout(ary, ary.__array_interface__["data"][0])
        self._size = ary.itemsize

    def __getitem__(self, idx):
        flat = self._layout.flat(idx)
        if flat is not None:
            self._rec.note(threading.current_thread(), self._name, "r", flat, self._size,
                           "shared")
        return self._ary[idx]

    def __setitem__(self, idx, val):
        flat = self._layout.flat(idx)
        if flat is not None:
            self._rec.note(threading.current_thread(), self._name, "w", flat, self._size,
                           "shared")
        self._ary[idx] = val

    def __getattr__(self, name):
        return getattr(self._ary, name)

    def __len__(self):
        return len(self._ary)


def patch_allocations(rec: Recorder):
    """While ``rec`` records: the arrays a submission makes for itself
    (``cuda.device_array``, ``device_array_like``) are recorded as ``scratch0``, ...; and
    ``cuda.to_device`` inside launch is refused. Returns a function that undoes it."""
    from numba import cuda

    saved = {k: getattr(cuda, k) for k in ("device_array", "device_array_like", "to_device")}

    def scratch(host):
        name = f"scratch{rec.scratch}"
        rec.scratch += 1
        return rec.wrap(name, host)

    def device_array(shape, dtype=np.float64, *a, **kw):
        return scratch(np.zeros(shape, dtype))

    def device_array_like(ary, stream=0):
        return scratch(np.zeros(ary.shape, ary.dtype))

    def to_device(ary, stream=0, copy=True, to=None):
        if rec.in_launch:
            rec.refuse("copied host data to the device (cuda.to_device; for a scratch "
                       "array, cuda.device_array, cleared in a kernel)",
                       getattr(ary, "nbytes", 0))
        return saved["to_device"](ary, stream, copy, to)

    cuda.device_array, cuda.device_array_like, cuda.to_device = (device_array,
                                                                 device_array_like, to_device)

    def undo():
        for k, v in saved.items():
            setattr(cuda, k, v)

    return undo
