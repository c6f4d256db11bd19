"""Collectives on any machine: an all-reduce across N CPU processes, checked, timed and fitted.

What it isolates: chapter 11's alpha-beta model of a collective, on the one machine every
reader has. N processes on this computer (``torch.multiprocessing`` spawn) join one
``torch.distributed`` group over the gloo backend (TCP on the loopback address
127.0.0.1, a free port); an all-reduce written with point-to-point sends and receives runs
in every process. Nothing here touches a GPU: the "link" is the operating system's loopback
and the "GPUs" are CPU processes, so the alpha and beta it fits are this computer's, not an
NVLink's.

- :func:`check` runs your all-reduce against ``dist.all_reduce`` on awkward sizes and says
  what is wrong (a wrong sum, a rank left out, a deadlock, a built-in collective used, or
  more traffic on one rank's link than a ring's 2(n-1)/n of the buffer).
- :func:`time_algorithms` times all-reduces over message sizes (the slowest rank's time,
  median over repeats), gloo's own ``dist.all_reduce`` among them.
- :func:`fit` fits t = alpha * steps + bytes_moved / beta by least squares, with each
  algorithm's own count of steps and of bytes on its busiest rank's path (:func:`counts`).

Every wait is bounded: the process group's timeout bounds each receive, and the parent
kills its own worker processes if they outlive a deadline. Record a run with
``python -m labs.ring --out labs/results`` (it writes ``cpu-gloo/ring.json``).
"""
from __future__ import annotations

import argparse
import datetime
import inspect
import json
import math
import os
import platform
import socket
import statistics
import tempfile
import textwrap
import time
import traceback

import numpy as np

from perfmodel import comm as model

from . import common
from .ring_algorithms import ALGORITHMS, naive_allreduce, ring_allreduce, tree_allreduce  # noqa: F401

#: Point-to-point calls a solution may use (their bytes are counted).
P2P_SEND, P2P_RECV = ("send", "isend"), ("recv", "irecv")
#: Built-in collectives a solution must not call (the checker flags them).
COLLECTIVES = ("all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor",
               "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single",
               "gather", "scatter")
#: Element counts :func:`check` tries on n ranks: tiny, not a multiple of n, and larger.
CHECK_SIZES = (1, 7, 1000, 4099)
#: Message sizes in bytes the lab times (powers of four), full and quick.
SIZES = {False: [4 ** k for k in range(6, 13)], True: [4 ** 6, 4 ** 8]}  # 4 KiB..16 MiB
REPEATS = {False: 7, True: 2}
#: How long one worker may wait for a message, and the parent for its workers' start-up.
TIMEOUT_S, STARTUP_S = 20.0, 120.0
CONTEXT = {"gpu_name": "none: CPU processes over TCP loopback (gloo)", "gpu_slug": "cpu-gloo",
           "backend": "gloo", "transport": "TCP loopback 127.0.0.1"}


# ----------------------------------------------------------------------------------------
# The model's counts
# ----------------------------------------------------------------------------------------

def counts(algorithm: str, n: int, nbytes: float) -> tuple[int, float]:
    """(steps, bytes) on the busiest rank's critical path for one all-reduce of ``nbytes``
    on ``n`` ranks: the ring 2(n-1) steps of S/n each way; the binomial tree
    2 ceil(log2 n) rounds of S; the naive root 2(n-1) messages of S one after another.
    gloo's own all-reduce is counted as a ring ("gloo"), the rate a ring would have needed."""
    if algorithm not in ("ring", "tree", "naive", "gloo"):
        raise ValueError(f"algorithm must be ring, tree, naive or gloo; got {algorithm!r}")
    if not isinstance(n, int) or n < 2:
        raise ValueError(f"n must be an integer >= 2; got {n!r}")
    if not nbytes >= 0:
        raise ValueError(f"nbytes must be >= 0; got {nbytes!r}")
    if algorithm == "tree":
        rounds = 2 * math.ceil(math.log2(n))
        return rounds, rounds * float(nbytes)
    steps = 2 * (n - 1)
    if algorithm == "naive":
        return steps, steps * float(nbytes)
    return steps, steps / n * float(nbytes)


def fit(rows: list[dict]) -> tuple[float, float]:
    """(alpha seconds a step, beta byte/s) of t = alpha * steps + bytes / beta through rows
    with ``steps``, ``bytes_moved`` and ``seconds``, by least squares on relative error
    (each row weighted 1/t, so small messages count as much as large ones). Needs two
    distinct byte counts; a fit whose beta comes out <= 0 -> ValueError."""
    if len(rows) < 2:
        raise ValueError(f"rows must hold at least two timings; got {len(rows)}")
    a = np.array([[r["steps"], r["bytes_moved"]] for r in rows], float)
    t = np.array([r["seconds"] for r in rows], float)
    if np.any(t <= 0) or len(set(a[:, 1])) < 2:
        raise ValueError("rows need positive seconds and at least two distinct byte counts")
    (alpha, inv_beta), *_ = np.linalg.lstsq(a / t[:, None], np.ones_like(t), rcond=None)
    if inv_beta <= 0:
        raise ValueError("time does not grow with the bytes moved: no rate to fit")
    return max(0.0, float(alpha)), float(1.0 / inv_beta)


# ----------------------------------------------------------------------------------------
# The worker processes
# ----------------------------------------------------------------------------------------

def _source(fn) -> tuple[str, str]:
    """(source text, name) of a function, to rebuild it in a fresh process."""
    if not callable(fn) or not hasattr(fn, "__name__"):
        raise ValueError(f"fn must be a function; got {fn!r}")
    try:
        return textwrap.dedent(inspect.getsource(fn)), fn.__name__
    except (OSError, TypeError) as err:
        raise ValueError(f"fn's source cannot be read ({err}); define it with def in a "
                         "module or a notebook cell") from None


def _nbytes(t) -> int:
    return int(t.numel() * t.element_size())


class _Counter:
    """Patches torch.distributed's point-to-point calls to count bytes, and its collectives
    to record their use; the checker keeps the originals."""

    def __init__(self, dist):
        self.dist, self.sent, self.received, self.collectives = dist, 0, 0, set()
        self.orig = {k: getattr(dist, k) for k in P2P_SEND + P2P_RECV + COLLECTIVES}
        for k in P2P_SEND + P2P_RECV + COLLECTIVES:
            setattr(dist, k, self._wrap(k))

    def _wrap(self, name: str):
        real = self.orig[name]

        def wrapped(tensor, *args, **kwargs):
            if name in P2P_SEND:
                self.sent += _nbytes(tensor)
            elif name in P2P_RECV:
                self.received += _nbytes(tensor)
            else:
                self.collectives.add(name)
            return real(tensor, *args, **kwargs)
        return wrapped

    def reset(self) -> None:
        self.sent, self.received, self.collectives = 0, 0, set()


def _check_cases(fn, dist, torch, counter: _Counter, rank: int, n: int) -> list[dict]:
    out = []
    for numel in CHECK_SIZES:
        base = (torch.arange(numel, dtype=torch.float32) % 97) + 1
        x = base * (rank + 1)
        expected = x.clone()
        counter.orig["all_reduce"](expected)
        counter.reset()
        mine = x.clone()
        report = {"rank": rank, "numel": numel, "itemsize": 4}
        try:
            fn(mine)
        except Exception as err:  # the student's code: report it, stop this worker's cases
            report["error"] = f"{type(err).__name__}: {err}".strip()[:400]
            out.append(report)
            break
        bad = torch.nonzero(mine != expected).flatten()
        report.update(ok=not len(bad), unchanged=bool(torch.equal(mine, x)),
                      sent=counter.sent, received=counter.received,
                      collectives=sorted(counter.collectives))
        if len(bad):
            i = int(bad[0])
            report.update(index=i, got=float(mine[i]), expected=float(expected[i]))
        out.append(report)
    return out


def _time_cases(fns: dict, dist, torch, rank: int, n: int, sizes, reps: int) -> list[dict]:
    rows = []
    for name, fn in fns.items():
        for nbytes in sizes:
            x = torch.ones(int(nbytes) // 4, dtype=torch.float32)
            times = []
            for i in range(reps + 1):  # the first call warms up and is not kept
                x.fill_(1.0)
                dist.barrier()
                t0 = time.perf_counter()
                fn(x)
                dt = torch.tensor([time.perf_counter() - t0], dtype=torch.float64)
                dist.all_reduce(dt, op=dist.ReduceOp.MAX)  # the slowest rank's time
                if i:
                    times.append(float(dt))
            steps, moved = counts(name if name in ("ring", "tree", "naive") else "gloo",
                                  n, nbytes)
            rows.append({"algorithm": name, "ranks": n, "bytes": int(nbytes),
                         "seconds": statistics.median(times), "spread_s": max(times) - min(times),
                         "steps": steps, "bytes_moved": moved})
    return rows


def _worker(rank: int, n: int, port: int, outdir: str, task: dict) -> None:
    """One rank: join the gloo group, rebuild the functions from source, run the task,
    write ``rank<r>.json`` to ``outdir`` (errors included, so the parent can report them)."""
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    out: dict = {"rank": rank}
    try:
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                                world_size=n,
                                timeout=datetime.timedelta(seconds=task["timeout_s"]))
        fns = {}
        for label, (source, name) in task["functions"].items():
            ns = {"torch": torch, "dist": dist}
            exec(compile(source, f"<{name}>", "exec"), ns)  # noqa: S102 (the reader's code)
            fns[label] = ns[name]
        if task["mode"] == "check":
            out["cases"] = _check_cases(fns["yours"], dist, torch, _Counter(dist), rank, n)
        else:
            if task.get("gloo"):
                fns["gloo"] = dist.all_reduce
            out["rows"] = _time_cases(fns, dist, torch, rank, n, task["sizes"], task["reps"])
    except Exception as err:  # reported to the parent, never swallowed
        out["error"] = f"{type(err).__name__}: {err}"[:400]
        out["trace"] = traceback.format_exc()[-1500:]
    with open(os.path.join(outdir, f"rank{rank}.json"), "w") as f:
        json.dump(out, f)
    try:
        dist.destroy_process_group()
    except Exception:  # the group may never have formed
        pass


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def launch(n: int, task: dict, deadline_s: float) -> list[dict]:
    """Run ``task`` in ``n`` spawned processes; each rank's report, rank order. Kills its
    own workers and raises TimeoutError if they outlive ``deadline_s`` seconds."""
    import torch.multiprocessing as mp

    if not isinstance(n, int) or not 2 <= n <= 16:
        raise ValueError(f"n must be an integer from 2 to 16; got {n!r}")
    with tempfile.TemporaryDirectory(prefix="ring-") as outdir:
        ctx = mp.start_processes(_worker, args=(n, free_port(), outdir, task), nprocs=n,
                                 join=False, start_method="spawn")
        end, crashed = time.monotonic() + deadline_s, ""
        try:
            while not ctx.join(timeout=0.5):
                if time.monotonic() > end:
                    raise TimeoutError(f"the {n} workers ran past {deadline_s:.0f} s")
        except mp.ProcessException as err:  # a worker died outside Python's reach
            crashed = f" ({err})"
        finally:
            for p in ctx.processes:  # only our own children, by their process objects
                if p.is_alive():
                    p.kill()
                    p.join(5)
        reports = []
        for r in range(n):
            path = os.path.join(outdir, f"rank{r}.json")
            reports.append(json.load(open(path)) if os.path.exists(path)
                           else {"rank": r, "error": "wrote no report" + crashed})
    return reports


# ----------------------------------------------------------------------------------------
# Check
# ----------------------------------------------------------------------------------------

def verdict(n: int, reports: list[dict]) -> tuple[bool, str]:
    """(passed, what to say) from each rank's check report (:func:`check`'s workers)."""
    errors = [(r["rank"], r.get("error") or c.get("error")) for r in reports
              for c in (r.get("cases") or [{}]) if r.get("error") or c.get("error")]
    if errors:
        # A rank that gave up waiting is the first sign of a deadlock; under load its
        # partner's report can come first, as gloo's "connection closed by peer".
        timed = [(r, e) for r, e in errors
                 if any(w in e.lower() for w in ("timeout", "timed out", "connection closed"))]
        rank, err = timed[0] if timed else errors[0]
        if timed:
            return False, (f"Rank {rank} waited past the time limit for a message that never "
                           "came: a receive without a matching send, or two ranks each waiting "
                           f"for the other (a deadlock). ({err})")
        return False, f"Rank {rank} raised {err}"
    cases = [c for r in reports for c in r["cases"]]
    used = sorted({k for c in cases for k in c.get("collectives", [])})
    if used:
        return False, (f"It calls dist.{', dist.'.join(used)}: build the all-reduce from "
                       "dist.send / dist.recv / dist.isend / dist.irecv only.")
    wrong = [c for c in cases if not c["ok"]]
    if wrong:
        sizes = sorted({c["numel"] for c in wrong})
        if all(s % n for s in sizes):
            return False, (f"Right when the size divides by {n}, wrong for {sizes[0]} elements "
                           f"on {n} ranks: look at the chunk boundaries (torch.tensor_split "
                           "gives chunks whose sizes differ by one).")
        c = wrong[0]
        ok_ranks = sorted({d["rank"] for d in cases if d["ok"] and d["numel"] == c["numel"]})
        if ok_ranks:
            return False, (f"For {c['numel']} elements ranks {ok_ranks} hold the sum and rank "
                           f"{c['rank']} does not: the sum is not handed back to every rank (a "
                           f"ring's all-gather phase, a tree's broadcast). (Element {c['index']}: got {c['got']:g}, expected "
                           f"{c['expected']:g}.)")
        if all(d["unchanged"] for d in wrong):
            return False, ("The buffers came back unchanged: write the sum into x in place "
                           "(x += ..., x.copy_(...)), not into a new tensor.")
        return False, (f"Rank {c['rank']}, {c['numel']} elements, element {c['index']}: got "
                       f"{c['got']:g}, expected {c['expected']:g} (the sum over ranks).")
    big = max(c["numel"] for c in cases)
    at_big = [c for c in cases if c["numel"] == big]
    buf = big * at_big[0]["itemsize"]
    worst = max(at_big, key=lambda c: max(c["sent"], c["received"]))
    most = max(worst["sent"], worst["received"])
    ring = 2 * (n - 1) * math.ceil(big / n) * at_big[0]["itemsize"]
    if most > ring:
        return True, (f"Correct on {n} ranks, but rank {worst['rank']}'s link carried "
                      f"{most / buf:.2f} buffers one way, where a ring carries "
                      f"2(n-1)/n = {2 * (n - 1) / n:.2f} on every rank: "
                      f"{most / ring:.1f}x the ring's traffic on the busiest link.")
    return True, (f"Correct on {n} ranks, and no rank's link carried more than "
                  f"2(n-1)/n = {2 * (n - 1) / n:.2f} buffers each way: a ring's traffic.")


def check(fn, ranks: tuple[int, ...] = (2, 4), timeout_s: float = TIMEOUT_S) -> bool:
    """Run ``fn`` (an in-place all-reduce of one tensor) on each number of ``ranks`` CPU
    processes against ``dist.all_reduce``; print what is right or wrong; True if correct
    (False, with one line saying why, where this Python has no torch)."""
    task = {"mode": "check", "functions": {"yours": _source(fn)}, "timeout_s": float(timeout_s)}
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        # Colab ships torch; a runtime without it can read the chapter but not run this.
        print("Not checked: this Python has no torch (pip install torch, CPU build); the "
              "check runs your all-reduce over torch.distributed on CPU processes.")
        return False
    passed = True
    for n in ranks:
        ok, text = verdict(n, launch(n, task, STARTUP_S + 2 * timeout_s))
        print(("PASS  " if ok else "FAIL  ") + text)
        passed &= ok
    return passed


# ----------------------------------------------------------------------------------------
# Time and fit
# ----------------------------------------------------------------------------------------

def time_algorithms(fns: dict | None = None, n: int = 4, quick: bool = False,
                    gloo: bool = True, timeout_s: float = TIMEOUT_S) -> list[dict]:
    """Time each all-reduce in ``fns`` (label -> function; default the naive, tree and ring
    of :mod:`labs.ring_algorithms`), and gloo's own with ``gloo``, on ``n`` processes over
    :data:`SIZES`. Rows: algorithm, ranks, bytes, seconds (slowest rank, median), steps,
    bytes_moved. Timing is this computer's, noisy, and never a GPU's."""
    fns = dict(ALGORITHMS) if fns is None else fns
    for label in fns:
        if label not in ("ring", "tree", "naive"):
            raise ValueError(f"fns keys must be ring, tree or naive (how to count); got {label!r}")
    task = {"mode": "time", "functions": {k: _source(f) for k, f in fns.items()},
            "sizes": SIZES[quick], "reps": REPEATS[quick], "gloo": gloo,
            "timeout_s": float(timeout_s)}
    reports = launch(n, task, STARTUP_S + 600.0)
    for r in reports:
        if r.get("error"):
            raise RuntimeError(f"rank {r['rank']}: {r['error']}\n{r.get('trace', '')}")
    return reports[0]["rows"]


def summarize(rows: list[dict]) -> dict:
    """Fitted alpha (s a step) and beta (byte/s) per algorithm and rank count (left out
    where the rows cannot fix them), and each one's best bus bandwidth, as flat keys."""
    out = {}
    for alg in sorted({r["algorithm"] for r in rows}):
        for n in sorted({r["ranks"] for r in rows}):
            mine = [r for r in rows if r["algorithm"] == alg and r["ranks"] == n]
            try:
                alpha, beta = fit(mine)
                out[f"{alg}_{n}_alpha_s"], out[f"{alg}_{n}_beta"] = alpha, beta
            except ValueError:  # too few sizes, or noise hid the rate: no fit, say nothing
                pass
            busbw = [model.bus_bandwidth("all_reduce", r["bytes"], r["seconds"], n)
                     for r in mine]
            if busbw:
                out[f"{alg}_{n}_best_busbw"] = max(busbw)
    return out


def run(quick: bool = False, ranks: tuple[int, ...] = (2, 4)) -> dict:
    """The whole lab: time every algorithm at each number of ranks; a result dict."""
    rows = [row for n in ranks for row in time_algorithms(n=n, quick=quick)]
    ctx = dict(CONTEXT, date=datetime.datetime.now(datetime.timezone.utc).isoformat(),
               cpu=platform.processor() or platform.machine(), cpu_count=os.cpu_count(),
               python=platform.python_version(), torch=_torch_version(),
               load_average_1min=os.getloadavg()[0],
               note="CPU processes on one computer over TCP loopback: no GPU, no NVLink.")
    return common.record("ring", {"quick": quick, "ranks": list(ranks),
                                  "sizes": SIZES[quick], "repeats": REPEATS[quick]},
                         rows, summarize(rows), ctx)


def _torch_version() -> str:
    import torch

    return str(torch.__version__)


def main(argv: list[str] | None = None) -> int:
    from . import results

    ap = argparse.ArgumentParser(prog="python -m labs.ring", description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="two small sizes, two repeats")
    ap.add_argument("--ranks", type=int, nargs="+", default=[2, 4], help="process counts")
    ap.add_argument("--out", default=None, help="results folder (default labs/results)")
    a = ap.parse_args(argv)
    result = run(quick=a.quick, ranks=tuple(a.ranks))
    print(json.dumps(result["summary"], indent=1))
    print("saved", results.save(result, a.out))
    return 0


if __name__ == "__main__":
    import importlib

    raise SystemExit(importlib.import_module("labs.ring").main())
