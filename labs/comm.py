"""Communication: the links a GPU talks over, timed from 4 KiB to 1 GiB, beside their roofs.

What it isolates: the time to move one message over each link the machine has, across
message sizes. On one GPU: a device-to-device copy (the GPU's own memory) and pinned
copies over the host link, each way. On two or more GPUs (launched by ``torchrun``, one
process a GPU, NCCL): a peer-to-peer send from rank 0 to rank 1, an all-reduce and an
all-gather, each with NCCL-tests' algorithm and bus bandwidth.

What the model predicts (:mod:`perfmodel.comm`): a message of S bytes takes
alpha + S / beta. Small messages pay alpha alone, large ones approach the link's rate
beta; the bus bandwidth of a large all-reduce approaches the per-direction NVLink rate.

Launch, recording JSON under ``--out`` (default labs/results)::

    python -m labs.comm --quick                                      # one GPU
    torchrun --standalone --nproc_per_node=8 -m labs.comm --out DIR  # eight GPUs
    NCCL_ALGO=Ring torchrun --standalone --nproc_per_node=8 -m labs.comm  # the ring alone

Quick mode times every other power of two (4 KiB, 16 KiB, ... 1 GiB) with fewer repeats.
On a T4 (quick): about 6 s (:func:`labs.budget.estimate`: the three copies at the T4
note's rates, the pinned buffer, start-up). Its plot and table live in :mod:`labs.comm_display`.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

from perfmodel import comm as model

from . import common, results

SUMMARY_KEYS = ("gpus", "device_copy_bandwidth", "h2d_bandwidth", "d2h_bandwidth",
                "h2d_alpha_s", "peer_bandwidth", "all_reduce_busbw", "all_gather_busbw",
                "all_reduce_small_s")
#: Smallest and largest message, bytes.
SIZE_MIN, SIZE_MAX = 4 * 1024, 1024 ** 3
#: Seconds of back-to-back operations each timed repeat aims at (full, quick).
TARGET_S = {False: 20e-3, True: 5e-3}
REPEATS = {False: 7, True: 3}
#: The paths timed on one GPU, as the rows name them.
COPIES = ("device to device", "host to device (pinned)", "device to host (pinned)")


def sizes(quick: bool = False, max_bytes: int = SIZE_MAX) -> list[int]:
    """Message sizes in bytes: every power of two from 4 KiB to ``max_bytes`` (at most
    1 GiB); quick mode keeps every other one (4 KiB, 16 KiB, ...)."""
    max_bytes = int(max_bytes)
    if not SIZE_MIN <= max_bytes <= SIZE_MAX:
        raise ValueError(f"max_bytes must be in [{SIZE_MIN}, {SIZE_MAX}]; got {max_bytes}")
    out = common.powers_of_two(SIZE_MIN, max_bytes)
    return out[::2] if quick else out


def launch(env: dict | None = None) -> dict:
    """How this process was launched: rank, world_size, local_rank (torchrun sets RANK,
    WORLD_SIZE and LOCAL_RANK; a plain ``python`` run is rank 0 of 1)."""
    env = os.environ if env is None else env
    out = {"torchrun": "RANK" in env and "WORLD_SIZE" in env}
    for key, default in (("RANK", 0), ("WORLD_SIZE", 1), ("LOCAL_RANK", 0)):
        raw = env.get(key, default) if out["torchrun"] else default
        try:
            out[key.lower()] = int(raw)
        except (TypeError, ValueError):
            raise ValueError(f"environment variable {key} must be an integer; got {raw!r}")
    if out["world_size"] < 1 or not 0 <= out["rank"] < out["world_size"]:
        raise ValueError(f"need 0 <= RANK < WORLD_SIZE; got RANK={out['rank']}, "
                         f"WORLD_SIZE={out['world_size']}")
    return out


def topology() -> str:
    """``nvidia-smi topo -m`` as printed (which link joins each pair of GPUs), or one
    sentence saying why it could not be read."""
    try:
        p = subprocess.run(["nvidia-smi", "topo", "-m"], capture_output=True, text=True,
                           timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"nvidia-smi topo -m could not run: {exc}"
    return p.stdout.strip() if p.returncode == 0 else f"nvidia-smi topo -m failed: {p.stderr.strip()}"


def copy_row(path: str, nbytes: int, seconds: float) -> dict:
    """One timed copy: bytes moved over seconds (byte/s)."""
    return {"kind": "copy", "path": path, "bytes": int(nbytes), "seconds": float(seconds),
            "bandwidth": model.algorithm_bandwidth(nbytes, seconds)}


def collective_row(op: str, nbytes: int, seconds: float, n: int) -> dict:
    """One timed collective with NCCL-tests' algbw (bytes / s) and busbw (algbw x the
    op's factor: 2(n-1)/n for all_reduce, (n-1)/n for all_gather)."""
    return {"kind": "collective", "op": op, "gpus": int(n), "bytes": int(nbytes),
            "seconds": float(seconds), "algbw": model.algorithm_bandwidth(nbytes, seconds),
            "busbw": model.bus_bandwidth(op, nbytes, seconds, n)}


def summarize(rows: list[dict], gpus: int) -> dict:
    """The headline figures: best bandwidth of each path, the host link's alpha from a
    fit of alpha + S / beta, the smallest all-reduce's time (SI units)."""
    out: dict = {"gpus": int(gpus)}
    best = lambda rs, key: max(r[key] for r in rs)  # noqa: E731
    for path, key in zip(COPIES + ("peer to peer",), ("device_copy_bandwidth", "h2d_bandwidth",
                                                      "d2h_bandwidth", "peer_bandwidth")):
        rs = [r for r in rows if r.get("kind") == "copy" and r.get("path") == path]
        if rs:
            out[key] = best(rs, "bandwidth")
        if path == COPIES[1] and len(rs) >= 2:
            out["h2d_alpha_s"] = model.fit_alpha_beta([r["bytes"] for r in rs],
                                                      [r["seconds"] for r in rs])[0]
    for op in ("all_reduce", "all_gather"):
        rs = [r for r in rows if r.get("kind") == "collective" and r.get("op") == op]
        if rs:
            out[f"{op}_busbw"] = best(rs, "busbw")
            if op == "all_reduce":
                out["all_reduce_small_s"] = min(rs, key=lambda r: r["bytes"])["seconds"]
    return out


# ----------------------------------------------------------------------- on the GPU

def _per_call(fn, quick: bool, dist=None) -> float:
    """Median seconds of one ``fn()`` on the GPU: CUDA events around a run of calls long
    enough to time (after warm-up), median of repeats. Under torch.distributed every rank
    uses the same number of calls and the slowest rank's time is returned."""
    import torch

    fn(), fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    stop.record()
    stop.synchronize()
    probe = torch.tensor([start.elapsed_time(stop) * 1e-3], device="cuda")
    if dist is not None:
        dist.all_reduce(probe, op=dist.ReduceOp.MAX)
    calls = int(min(1000, max(1, TARGET_S[quick] / max(float(probe.item()), 1e-7))))
    times = []
    for _ in range(REPEATS[quick]):
        if dist is not None:
            dist.barrier()
        torch.cuda.synchronize()
        start.record()
        for _ in range(calls):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e-3 / calls)
    t = torch.tensor([statistics.median(times)], device="cuda")
    if dist is not None:
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return float(t.item())


def _copies(size_list: list[int], quick: bool) -> list[dict]:
    """Device-to-device and pinned host copies of every size (one GPU)."""
    import torch

    top = max(size_list)
    src = torch.empty(top, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    host = torch.empty(top, dtype=torch.uint8, pin_memory=True)
    rows = []
    for s in size_list:
        a, b, h = src[:s], dst[:s], host[:s]
        for path, fn in zip(COPIES, (lambda: b.copy_(a), lambda: b.copy_(h, non_blocking=True),
                                     lambda: h.copy_(a, non_blocking=True))):
            rows.append(copy_row(path, s, _per_call(fn, quick)))
    return rows


def _collectives(size_list: list[int], quick: bool, rank: int, n: int, dist) -> list[dict]:
    """Peer-to-peer (rank 0 to rank 1), all-reduce and all-gather of every size."""
    import torch

    rows = []
    top = max(size_list)
    buf = torch.zeros(top // 4, dtype=torch.float32, device="cuda")
    out = torch.empty_like(buf)
    for s in size_list:
        elems = (s // 4) // n * n          # a multiple of n FP32 values
        nbytes = 4 * elems
        x = buf[:elems]
        if n >= 2:
            if rank == 0:
                fn = lambda: dist.send(x, dst=1)  # noqa: E731
            elif rank == 1:
                fn = lambda: dist.recv(x, src=0)  # noqa: E731
            else:
                fn = lambda: None  # noqa: E731
            t = _per_call(fn, quick, dist)
            rows.append(copy_row("peer to peer", nbytes, t))
        t = _per_call(lambda: dist.all_reduce(x), quick, dist)
        rows.append(collective_row("all_reduce", nbytes, t, n))
        part = x[:elems // n]
        t = _per_call(lambda: dist.all_gather_into_tensor(out[:elems], part), quick, dist)
        rows.append(collective_row("all_gather", nbytes, t, n))
    return rows


def check_all_reduce(dist, rank: int, n: int) -> bool:
    """Correctness before speed: each rank contributes its rank; the sum is n(n-1)/2."""
    import torch

    t = torch.full((1024,), float(rank), device="cuda")
    dist.all_reduce(t)
    return bool(torch.all(t == n * (n - 1) / 2).item())


def run(quick: bool = False, max_bytes: int | None = None) -> dict:
    """Every link this machine has, over message sizes 4 KiB .. 1 GiB (capped by free
    GPU memory). Under torchrun with two or more processes, the collectives too; the
    result is complete on rank 0 (other ranks return theirs without the one-GPU copies)."""
    import torch

    common.require_cuda("comm")
    how = launch()
    dist = None
    if how["torchrun"]:
        import torch.distributed as dist

        torch.cuda.set_device(how["local_rank"])
        dist.init_process_group(backend="nccl")
    n, rank = how["world_size"], how["rank"]
    free = torch.cuda.mem_get_info()[0]
    cap = min(max_bytes or SIZE_MAX, SIZE_MAX)
    while cap > SIZE_MIN and 3 * cap > 0.5 * free:
        cap //= 2
    if dist is not None:  # every rank must time the same sizes: the smallest cap wins
        agreed = torch.tensor([cap], dtype=torch.int64, device="cuda")
        dist.all_reduce(agreed, op=dist.ReduceOp.MIN)
        cap = int(agreed.item())
    size_list = sizes(quick, cap)
    try:
        rows = _copies(size_list, quick) if rank == 0 else []
        correct = None
        if dist is not None and n >= 2:
            correct = check_all_reduce(dist, rank, n)
            rows += _collectives(size_list, quick, rank, n, dist)
        if dist is not None:
            dist.barrier()
    finally:
        if dist is not None:
            dist.destroy_process_group()
    ctx = _context(how)
    params = {"quick": quick, "sizes": size_list, "launched_by": "torchrun" if how["torchrun"]
              else "python", "world_size": n, "all_reduce_correct": correct}
    return common.record("comm", params, rows, summarize(rows, n), ctx)


def nccl_settings(env: dict | None = None) -> dict:
    """NCCL_ALGO and NCCL_PROTO as this process sees them (None where unset, when NCCL picks
    the algorithm itself): a bus bandwidth means a link's rate only for the ring."""
    env = os.environ if env is None else env
    return {"nccl_algo": env.get("NCCL_ALGO"), "nccl_proto": env.get("NCCL_PROTO")}


def _context(how: dict) -> dict:
    """The labs' run context plus what a link measurement needs: GPUs in the machine and
    in the run, their names, NCCL's version, the NCCL_ALGO and NCCL_PROTO settings (None
    when unset: NCCL then picks, e.g. NVLink SHARP on an 8-GPU HGX H100/H200) and the
    topology matrix."""
    import torch

    from .gpu import context

    ctx = context()
    ctx.update(gpu_count=torch.cuda.device_count(), world_size=how["world_size"],
               gpus=[torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())],
               topology=topology(), **nccl_settings())
    try:
        v = torch.cuda.nccl.version()
        ctx["nccl"] = ".".join(str(x) for x in v) if isinstance(v, (tuple, list)) else str(v)
    except Exception as exc:  # noqa: BLE001 (a torch built without NCCL: say so)
        ctx["nccl"] = f"unavailable ({exc})"
    return ctx


def show(gpu: str | None = None, **options):
    """What a chapter's cell calls (``labs.show("comm")``): see :func:`labs.comm_display.show`."""
    from .comm_display import show as _show

    return _show(gpu=gpu, run=run, **options)


def plot(results_: list[dict]):
    """Bandwidth by message size against the model: see :func:`labs.comm_display.plot`."""
    from .comm_display import plot as _plot

    return _plot(results_)


def main(argv: list[str] | None = None) -> int:
    """``python -m labs.comm`` / ``torchrun ... -m labs.comm``: run, and on rank 0 save
    the JSON and print its path and summary."""
    ap = argparse.ArgumentParser(prog="python -m labs.comm", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="every other power of two, fewer repeats")
    ap.add_argument("--out", default=None, help="results folder (default labs/results)")
    ap.add_argument("--max-bytes", type=int, default=None,
                    help=f"largest message in bytes (default and most {SIZE_MAX})")
    a = ap.parse_args(argv)
    if a.max_bytes is not None and not SIZE_MIN <= a.max_bytes <= SIZE_MAX:
        ap.error(f"--max-bytes must be in [{SIZE_MIN}, {SIZE_MAX}]; got {a.max_bytes}")
    try:
        res = run(quick=a.quick, max_bytes=a.max_bytes)
    except common.NoGPUError as exc:
        print(f"python -m labs.comm: {exc}", file=sys.stderr)
        return 2
    if launch()["rank"] == 0:
        path = results.save(res, a.out)
        print(f"comm: {len(res['rows'])} rows on {res['context']['world_size']} GPU(s) -> {path}")
        for k, v in res["summary"].items():
            print(f"    {k} = {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
