"""The paradox: the same GPU is 0.1x to 20x a CPU, depending on the operation and its size.

What it isolates: the three things that decide a speed-up. Matrix multiplication (n from
16 to 4096) and vector addition (a thousand elements to as many as fit) are timed three
ways: on the CPU (torch), on the GPU with the data resident, and on the GPU with the
copies in and out included (each op launched and waited for: host wall clock around the
op and a synchronize). On the CPU and the resident GPU the op writes into an output
allocated once, before timing (``out=``), so the CPU's large add times DRAM, not the page
faults of a fresh 1 GB output. Beside them, the launch toll four ways: a tiny add synchronised
each time, tiny adds queued (one synchronize per thousand), a CUDA graph of them replayed,
and a bare numba launch of an empty kernel.

What the model predicts: t = t0 + max(F/P, D/B) per machine, three numbers each, nothing
fitted: P is the rate of the largest matmul, B the bandwidth of the largest add, t0 the
time of the smallest op of each kind (its toll). The predicted break-even sizes (the first
size at which the GPU is predicted quicker) are set against the measured ones. Large adds
are memory-bound on both machines, so their speed-up is the ratio of bandwidths; large
matmuls are compute-bound, so theirs is the ratio of FLOP rates.

Quick mode stops at n = 2048 and 2^26 elements. On a T4 (quick): about 10 s
(:func:`labs.budget.estimate`, with the T4 note's CPU and naive PCIe round trip: the
adds with their copies 2.2 s, the CPU's matmuls 0.5 s, the launch tolls 0.8 s, start-up and
one compile 5 s); on the H200 it took 5.4 s.
"""
from __future__ import annotations

from perfmodel import machines, ops, roofline

from . import common
from .kernels import kernels

SUMMARY_KEYS = ("launch_sync_s", "launch_queued_s", "launch_graph_s", "breakeven_matmul_n",
                "breakeven_add_n")
MATMUL_N = (16, 32, 64, 128, 192, 256, 384, 512, 1024, 2048, 4096)


def _op(kind: str, n: int):
    return ops.matmul(n) if kind == "matmul" else ops.vector_add(n)


def _sync(fn):
    import torch

    def call():
        fn()
        torch.cuda.synchronize()
    return call


def into(kind: str, x, y):
    """A call of the op that writes into one output allocated here, once: timing it times
    the arithmetic and the memory traffic, not a fresh output's allocation (on the CPU a
    new 1 GB tensor is page faults, first touched by the add itself)."""
    import torch

    out = torch.empty_like(x)
    op = torch.matmul if kind == "matmul" else torch.add
    return lambda: op(x, y, out=out)


def sweep(kind: str, sizes, budget_s: float) -> list[dict]:
    """CPU, GPU-resident and GPU-with-copies seconds of one op at each size. The CPU and
    the resident GPU write into a preallocated output (:func:`into`); the trip with copies
    allocates what a reader's ``(a.cuda() + b.cuda()).cpu()`` allocates."""
    import torch

    rows = []
    for n in sizes:
        # listing-begin: paradox
        shape = (n, n) if kind == "matmul" else (n,)
        xc, yc = torch.rand(shape), torch.rand(shape)
        xg, yg = xc.cuda(), yc.cuda()
        f = (lambda a, b: a @ b) if kind == "matmul" else (lambda a, b: a + b)
        cpu = common.host_time(into(kind, xc, yc), budget_s)
        gpu = common.host_time(_sync(into(kind, xg, yg)), budget_s)
        trip = common.host_time(_sync(lambda: f(xc.cuda(), yc.cuda()).cpu()), budget_s)
        # listing-end: paradox
        op = _op(kind, n)
        rows.append({"kind": kind, "n": n, "flops": op.flops, "bytes": op.bytes,
                     "cpu_s": cpu, "gpu_resident_s": gpu, "gpu_copies_s": trip,
                     "speedup_resident": cpu / gpu, "speedup_copies": cpu / trip})
        del xc, yc, xg, yg
    return rows


def launch_tolls(count: int = 1000) -> dict:
    """Seconds per tiny add: synchronised each time, queued, CUDA-graph replayed; and a
    bare numba launch of an empty kernel (queued)."""
    import torch

    x = torch.ones(1024, device="cuda")
    sync = common.host_time(_sync(lambda: x + x), 0.2, lo=50, hi=2000)

    def queued():
        for _ in range(count):
            x + x
        torch.cuda.synchronize()
    q = common.host_time(queued, 0.5, lo=3, hi=10) / count
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            y = x + x
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(100):
            y = x + x  # noqa: F841
    graph = common.host_time(_sync(g.replay), 0.3, lo=5, hi=200) / 100
    k = kernels()

    def bare():
        for _ in range(count):
            k.empty[1, 32]()
        k.cuda.synchronize()
    bare()  # compile
    return {"sync": sync, "queued": q, "graph": graph,
            "numba_bare": common.host_time(bare, 0.5, lo=3, hi=10) / count}


def model_rows(rows: list[dict]) -> tuple[list[dict], dict]:
    """Predicted times and break-evens from each machine's three measured numbers."""
    mm = [r for r in rows if r["kind"] == "matmul"]
    add = [r for r in rows if r["kind"] == "add"]
    roofs = {}
    for who in ("cpu", "gpu_resident"):
        p = mm[-1]["flops"] / mm[-1][f"{who}_s"]
        b = add[-1]["bytes"] / add[-1][f"{who}_s"]
        roofs[who] = machines.measured(who, {"fp32": p}, {"dram": b}, source="this run")
    tolls = {(kind, who): rs[0][f"{who}_s"] for kind, rs in (("matmul", mm), ("add", add))
             for who in ("cpu", "gpu_resident")}
    out, be = [], {}
    for kind, rs in (("matmul", mm), ("add", add)):
        for r in rs:
            op = _op(kind, r["n"])
            r["model_cpu_s"] = roofline.time(roofs["cpu"], op, overhead=tolls[(kind, "cpu")])
            r["model_gpu_s"] = roofline.time(roofs["gpu_resident"], op,
                                             overhead=tolls[(kind, "gpu_resident")])
        sizes = [r["n"] for r in rs]
        be[kind] = {"measured": common.first_win(sizes, [r["cpu_s"] for r in rs],
                                                 [r["gpu_resident_s"] for r in rs]),
                    "predicted": common.first_win(sizes, [r["model_cpu_s"] for r in rs],
                                                  [r["model_gpu_s"] for r in rs])}
        out.append({"kind": "breakeven", "op": kind, **be[kind]})
    for who, m in roofs.items():
        out.append({"kind": "roofs", "machine": who, "flops": m.peak_flops("fp32"),
                    "bandwidth": m.bandwidth("dram")})
    return out, be


def run(quick: bool = False, max_add: int | None = None) -> dict:
    """The three-way sweeps, the launch tolls and the model; see the module docstring.
    max_add: the largest add (elements; default 2^28, quick 2^26, capped by free memory)."""
    common.require_cuda("paradox")
    top = common.elements_for(4 * (max_add or (2 ** 26 if quick else 2 ** 28)), 4, share=0.1)
    adds = [1000] + common.powers_of_two(2 ** 12, top)[::2]
    if adds[-1] != top:
        adds.append(top)
    mms = [n for n in MATMUL_N if n <= (2048 if quick else 4096)]
    budget = 0.1 if quick else 0.2
    rows = sweep("matmul", mms, budget) + sweep("add", adds, budget)
    extra, be = model_rows(rows)
    tolls = launch_tolls()
    rows += extra + [{"kind": "launch", "how": k, "seconds": v} for k, v in tolls.items()]
    summary = {"launch_sync_s": tolls["sync"], "launch_queued_s": tolls["queued"],
               "launch_graph_s": tolls["graph"], "breakeven_matmul_n": be["matmul"]["measured"],
               "breakeven_add_n": be["add"]["measured"]}
    params = {"quick": quick, "matmul_n": mms, "add_n": adds, "dtype": "fp32",
              "output": "preallocated"}
    return common.record("paradox", params, rows, summary)


def plot(results: list[dict]):
    """Speed-up of the GPU over the CPU against size: matmul left, add right; resident
    (solid) and with the copies (second trace), the model dashed."""
    from . import plotting as p

    fig = p.figure("CPU vs GPU: speed-up against size", cols=2,
                   subtitles=("matmul n x n (FP32)", "vector add (FP32 elements)"))
    for col, kind in ((1, "matmul"), (2, "add")):
        for i, r, name in p.each(results):
            rs = p.rows(r, kind=kind)
            n = p.column(rs, "n")
            for k, (key, what) in enumerate((("gpu_resident_s", "data resident"),
                                             ("gpu_copies_s", "with copies"))):
                sp = [r_["cpu_s"] / r_[key] if r_.get("cpu_s") and r_.get(key) else
                      r_.get("speedup_resident") if what == "data resident" else None for r_ in rs]
                p.points(fig, i, n, sp, f"{name}: {what}", col=col, showlegend=col == 1,
                         mode="markers+lines" if what == "data resident" else "markers",
                         series=k)
            if i == 0 and rs and "model_gpu_s" in rs[0]:
                sp = [r_["model_cpu_s"] / r_["model_gpu_s"] for r_ in rs]
                p.model(fig, n, sp, "model t0 + max(F/P, D/B)", col=col, showlegend=col == 1)
        p.model(fig, [1, 2 ** 30], [1, 1], "break-even", col=col, showlegend=col == 1, dash="dot")
    fig.update_xaxes(range=[1, 3.7], row=1, col=1)
    fig.update_xaxes(range=[2.9, 8.6], row=1, col=2)
    for col, kind in ((1, "matmul"), (2, "add")):
        p.axes(fig, "n" if kind == "matmul" else "elements", "CPU time / GPU time", col=col)
    # a series only one panel holds (the notes' T4 with copies) still gets its legend entry
    shown = set()
    for tr in fig.data:
        tr.showlegend = tr.name not in shown
        shown.add(tr.name)
    return p.finish(fig)
