"""The kernel beside its measurement: the source a lab times, read from ``labs/`` itself.

A listing is a few *parts*, each read at display time (never a second copy):

- a kernel or device function: ``inspect.getsource`` of the Python function underneath
  (``py_func`` of a numba ``CUDADispatcher`` or of the simulator's ``FakeCUDAKernel``; a
  plain function as it is), dedented;
- the launch: the lines of a lab module tagged ``# listing: KEY`` at their end, or the
  lines between ``# listing-begin: KEY`` and ``# listing-end: KEY`` comment lines (the tag
  itself is cut off; the lines are dedented together), so the launch shown is the one
  the lab runs.

Beside the code, what the model counts for it (:class:`Case`): FLOPs and DRAM bytes per
element, the intensity, and the bound on the H200 from its datasheet and from the labs'
recorded run there. ``show(KEY)`` returns a display object: Markdown with fenced
``python`` blocks (highlighted by the book's Sphinx theme on the site, by Jupyter and
Colab in a notebook) inside ``<div class="book-listing" data-listing="KEY">``, which is
how tests/test_site_listings.py finds each listing on the built site and checks that its
code is still the code :func:`parts` reads now.

Importable without plotly, ipywidgets or a GPU; the kernels' factories only build numba
dispatchers (nothing is compiled).
"""
from __future__ import annotations

import html
import importlib
import inspect
import re
import textwrap
from dataclasses import dataclass
from typing import Callable

from perfmodel import machines, ops, roofline, units

#: The end-of-line tag that marks a launch line in a lab's source.
TAG = "# listing:"


def function_of(obj) -> Callable:
    """The Python function under a kernel object: ``py_func`` of a numba dispatcher (or
    the simulator's kernel), the wrapped function of a decorator, or obj itself."""
    fn = getattr(obj, "py_func", obj)
    fn = inspect.unwrap(fn)
    if not inspect.isfunction(fn):
        raise ValueError(f"kernel must be a function or a numba kernel; got {type(obj).__name__}")
    return fn


def source(obj) -> str:
    """The dedented source of a kernel or function, decorators included."""
    return textwrap.dedent(inspect.getsource(function_of(obj))).rstrip() + "\n"


def qualified_name(obj) -> str:
    """``module:qualname`` of a kernel's function, e.g. ``labs.kernels:kernels.<locals>.fma_peak``."""
    fn = function_of(obj)
    return f"{fn.__module__}:{fn.__qualname__}"


def tagged(module: str, key: str) -> str:
    """The lines of ``module`` (a dotted name) tagged for ``key``: each line ending in
    ``# listing: key`` and each region between ``# listing-begin: key`` and
    ``# listing-end: key``, in file order, tags removed, dedented together."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", key or ""):
        raise ValueError(f"key must be a lower-case identifier; got {key!r}")
    lines = inspect.getsource(importlib.import_module(module)).splitlines()
    end_tag = re.compile(rf"\s*{re.escape(TAG)}\s*{key}\s*$")
    begin, end = f"# listing-begin: {key}", f"# listing-end: {key}"
    picked, inside = [], False
    for line in lines:
        stripped = line.strip()
        if stripped == begin:
            if inside:
                raise ValueError(f"{module}: {begin!r} twice without {end!r}")
            inside = True
        elif stripped == end:
            if not inside:
                raise ValueError(f"{module}: {end!r} without {begin!r}")
            inside = False
        elif inside:
            picked.append(line)
        elif end_tag.search(line):
            picked.append(end_tag.sub("", line))
    if inside:
        raise ValueError(f"{module}: {begin!r} is never closed by {end!r}")
    if not picked:
        raise ValueError(f"{module} has no line tagged {TAG} {key}")
    return textwrap.dedent("\n".join(picked)).rstrip() + "\n"


@dataclass(frozen=True)
class Part:
    """One block of a listing: a kernel (``kernel`` returns it) or tagged launch lines."""

    title: str
    kernel: Callable[[], object] | None = None
    module: str | None = None  # for tagged lines: the lab module holding them

    def name(self, key: str) -> str:
        """What the part claims to be: ``module:qualname`` or ``module#key``."""
        return qualified_name(self.kernel()) if self.kernel else f"{self.module}#{key}"

    def code(self, key: str) -> str:
        return source(self.kernel()) if self.kernel else tagged(self.module, key)


@dataclass(frozen=True)
class Case:
    """What the model counts for one launch of the kernel: ``op()`` is the perfmodel Op
    of the whole launch, ``elements`` how many of ``element`` (a float, a thread) it does."""

    label: str
    op: Callable[[], ops.Op]
    elements: float
    element: str = "float"
    unit: str = "fp32"


@dataclass(frozen=True)
class Entry:
    """One listing: its key (the chapter's ``show(key)``), the lab it belongs to, its parts,
    what the model counts for it and a note in words."""

    key: str
    lab: str
    parts: tuple[Part, ...]
    cases: tuple[Case, ...] = ()
    note: str | Callable[[], str] = ""  # after the counts (or in their place)


# ---------------------------------------------------------------------------------------
# The listings, one per lab a chapter shows. Parts return the lab's own kernel objects.

def _k():
    from .kernels import kernels

    return kernels()


def _comm():
    from . import comm

    return comm


def _fixed_block():
    from .kernels import PEAK_BLOCK, _fixed

    return _fixed(PEAK_BLOCK)


def _blocks16():
    from .kernels import _fma_chains

    return _fma_chains().blocks16


def _knob():
    from .kernels import make_knob

    return make_knob(1)


def _diverge():
    from .divergence import kernels

    return kernels().diverge


def _path_loop():
    from .divergence import PATH_CONSTANTS, _loop

    return _loop(*PATH_CONSTANTS[0])


def _chase_kernel():
    from .memkernels import chase_kernel

    return chase_kernel()


def _chase_walk():
    from .memkernels import chase

    return chase()


def _read_kernel():
    from .coalescing import ILP
    from .memkernels import read_kernel, strided_load

    return read_kernel(ILP, strided_load())


def _stream_body():
    from .coalescing import ILP
    from .memkernels import stream_body, strided_load

    return stream_body(ILP, strided_load())


def _strided_load():
    from .memkernels import strided_load

    return strided_load()


def _fma_grid():
    from .ceilings import fma_grid

    return fma_grid


def _op_seconds():
    from .ops_on_roof import op_seconds

    return op_seconds


def clock_peak_note() -> str:
    """The FMA-peak kernel's bound in words: the clock peak, SMs x FP32 lanes x 2 x the SM
    clock, beside the share the recorded H200 run reached of it at the clock NVML read."""
    from .results import load

    h = machines.get("H200")
    sheet = h.sms * h.fp32_lanes_per_sm * 2 * h.clock_hz
    text = (f"Its bound is the clock peak, SMs x FP32 lanes x 2 FLOPs x the SM clock: "
            f"{h.sms} x {h.fp32_lanes_per_sm} x 2 x {units.si(h.clock_hz, 'Hz')} = "
            f"{units.flops(sheet)} on the H200 (datasheet).")
    try:
        run = load("clocks", "H200")
    except (OSError, ValueError):
        return text
    s, ctx = run["summary"], run["context"]
    peak = ctx["sms"] * h.fp32_lanes_per_sm * 2 * s["fma_clock_hz"]
    return (text + f" The recorded run ({str(ctx.get('date', ''))[:10]}) held "
            f"{units.flops(s['fma_sustained_flops'])} at {units.si(s['fma_clock_hz'], 'Hz')}: "
            f"{units.number(s['fma_sustained_flops'] / peak)} of the clock peak at that clock.")


N = 2 ** 26  # a representative buffer (256 MiB of FP32): per-element counts do not depend on it
_TURNS = 1024  # FMA-peak loop turns per launch (the lab calibrates ~10 ms)
_ITERS = 2 ** 16  # the divergence lab's loop length (full mode)

ENTRIES: dict[str, Entry] = {e.key: e for e in (
    Entry("paradox", "paradox",
          (Part("The two operations timed, on the GPU (labs/paradox.py)", module="labs.paradox"),),
          (Case("add, n floats", lambda: ops.vector_add(N), N),
           Case("matmul 4096 x 4096", lambda: ops.matmul(4096), 4096 ** 2, "output element"))),
    Entry("intensity", "intensity",
          (Part("The intensity knob (labs/kernels.py, make_knob)", _knob),
           Part("Its launch (labs/intensity.py)", module="labs.intensity")),
          tuple(Case(f"k = {k}", (lambda k=k: ops.elementwise(N, 2 * k, 1, 1)), N)
                for k in (1, 16, 128))),
    Entry("ops_on_roof", "ops_on_roof",
          (Part("Three of the library calls timed (labs/ops_on_roof.py)", module="labs.ops_on_roof"),
           Part("How each is timed", _op_seconds)),
          (Case("add", lambda: ops.vector_add(N), N),
           Case("a*b+c", lambda: ops.elementwise(N, 2, 3, 1), N),
           Case("sum", lambda: ops.reduction(N), N))),
    Entry("fusion", "fusion",
          (Part("The fused kernel (labs/kernels.py)", lambda: _k().scale_shift_relu),
           Part("Its launch (labs/fusion.py)", module="labs.fusion")),
          (Case("fused, FP16 in and out", lambda: ops.scale_shift_relu(N, fused=True), N, "value"),
           Case("as three kernels", lambda: ops.scale_shift_relu(N, fused=False), N, "value"))),
    Entry("divergence", "divergence",
          (Part("The divergence kernel (labs/divergence.py)", _diverge),
           Part("Each path's loop", _path_loop),
           Part("Its launch", module="labs.divergence")),
          (Case(f"iters = {_ITERS:,}", lambda: ops.Op("paths", 2 * _ITERS * N, 4 * N, "fp32", N),
                N, "thread"),)),
    Entry("latency", "latency",
          (Part("The chase (labs/memkernels.py)", _chase_kernel),
           Part("Its walk", _chase_walk),
           Part("Its launch: one thread (labs/latency.py)", module="labs.latency")),
          note=("Each step is one 4-byte load whose address is the previous load's value, "
                "and no FLOPs: the roofline gives no bound here, since one thread has one "
                "load in flight. The time per step is the latency of wherever the chain lives.")),
    Entry("coalescing", "coalescing",
          (Part("The strided read (labs/memkernels.py)", _read_kernel),
           Part("Its loop", _stream_body),
           Part("Its load", _strided_load),
           Part("Its launch (labs/coalescing.py)", module="labs.coalescing")),
          (Case("stride 1", lambda: ops.Op("read", N, 4 * N, "fp32", N), N),
           Case("stride 8 or more (a 32-byte sector per float)",
                lambda: ops.Op("read", N, 32 * N, "fp32", N), N))),
    Entry("fma_peak", "clocks",
          (Part("The FMA-peak kernel (labs/kernels.py)", lambda: _k().fma_peak),
           Part("Its loop: 16 chains, a block of PEAK_BLOCK = 64 FMAs each per turn",
                _blocks16),
           Part("One block", _fixed_block),
           Part("Its launch (labs/ceilings.py)", module="labs.ceilings"),
           Part("One full wave of resident threads", _fma_grid)),
          (Case(f"turns = {_TURNS:,}",
                lambda: ops.Op("fma_peak", 2 * 16 * 64 * _TURNS * N, 4 * N, "fp32", N),
                N, "thread"),),
          note=clock_peak_note),
    Entry("comm", "comm",
          (Part("The transfers and collectives timed (labs/comm.py)", lambda: _comm()._collectives),
           Part("How each is timed: CUDA events around a run of calls, the slowest rank's median",
                lambda: _comm()._per_call)),
          note=("No FLOPs here: each call moves bytes over a link, and the model is "
                "perfmodel.comm's alpha + S / beta for the link's datasheet rate each way; the "
                "bus bandwidth of a row is its bytes over its time times NCCL-tests' factor, "
                "2(n-1)/n for an all-reduce and (n-1)/n for an all-gather.")),
    Entry("attention", "attention",
          (Part("The fused attention call timed (labs/attention.py)", module="labs.attention"),),
          (Case("S = 4,096, d = 64, one head, FP16",
                lambda: ops.attention(4096, 64, flash=True, dtype="fp16"), 4096, "query row",
                unit="fp16_tensor"),)),
)}


def entry(key: str) -> Entry:
    if key not in ENTRIES:
        raise ValueError(f"listing must be one of {', '.join(ENTRIES)}; got {key!r}")
    return ENTRIES[key]


def parts(key: str) -> list[tuple[str, str, str]]:
    """(title, claimed name, code) for each part of listing ``key``, read now."""
    e = entry(key)
    return [(p.title, p.name(key), p.code(key)) for p in e.parts]


def _measured_h200():
    from .results import load

    try:
        recorded = [load(lab, "H200") for lab in ("intensity", "clocks")]
    except (OSError, ValueError):
        return None
    return machines.from_results(*recorded, name="H200 (measured)")


def counts(key: str) -> list[dict]:
    """What the model counts for listing ``key``: one dict per case with flops and bytes
    per element, intensity (FLOP/byte), and per machine its bound ("memory"/"compute")
    and attainable FLOP/s (the H200's datasheet; its recorded run where there is one)."""
    out = []
    sheet, meas = machines.get("H200"), _measured_h200()
    for c in entry(key).cases:
        op = c.op()
        row = {"label": c.label, "element": c.element, "unit": c.unit,
               "flops": op.flops / c.elements, "bytes": op.bytes / c.elements,
               "intensity": op.intensity, "machines": []}
        for m, how in ((sheet, "datasheet"), (meas, "measured")):
            if m is None:
                continue
            try:
                p = m.peak_flops(c.unit)
            except ValueError:
                continue
            row["machines"].append({"how": how, "bound": roofline.bound(m, op, c.unit),
                                    "attainable": roofline.attainable(m, op.intensity, c.unit),
                                    "peak": p, "bandwidth": m.bandwidth("dram")})
        out.append(row)
    return out


def _count(x: float) -> str:
    """A count per element for people: exact with thousands separators when whole
    (8,192, not 8,190), else 3 significant figures."""
    return f"{int(x):,}" if float(x).is_integer() and abs(x) < 1e12 else units.number(x)


def _count_line(row: dict) -> str:
    """One case in words: the counts, then the bound on the H200 by each set of roofs."""
    f = _count(row["flops"])
    text = (f"{row['label']}: {f} FLOP{'' if f == '1' else 's'} and "
            f"{_count(row['bytes'])} bytes of DRAM traffic per {row['element']} "
            f"(intensity {units.number(row['intensity'])} FLOP/byte)")
    ms = row["machines"]
    if not ms:
        return text + "."
    rates = ", ".join(f"{units.flops(m['attainable'])} by its {m['how']} roofs" for m in ms)
    if len({m["bound"] for m in ms}) == 1:
        return text + f"; {ms[0]['bound']}-bound on the H200, at most {rates}."
    each = "; ".join(f"{m['bound']}-bound by its {m['how']} roofs, at most "
                     f"{units.flops(m['attainable'])}" for m in ms)
    return text + f"; on the H200, {each}."


def markdown(key: str) -> str:
    """Listing ``key`` as Markdown: a titled ``python`` block per part, then the counts."""
    e = entry(key)
    ps = parts(key)
    out = [f'<div class="book-listing" data-listing="{html.escape(key)}" '
           f'data-parts="{len(ps)}">', ""]
    for title, name, code in ps:
        out += [f'<span class="book-listing-part" data-name="{html.escape(name)}"></span>', "",
                f"**{title}**", "", "```python", code.rstrip("\n"), "```", ""]
    lines = [_count_line(r) for r in counts(key)]
    if lines:
        out += ["What the model counts for it:", ""] + [f"- {s}" for s in lines] + [""]
    note = e.note() if callable(e.note) else e.note
    if note:
        out += [note, ""]
    out += ["</div>", ""]
    return "\n".join(out)


class Listing:
    """Display object: Markdown (fenced ``python`` blocks) for the site, Jupyter and Colab."""

    def __init__(self, key: str):
        self.key = entry(key).key

    def _repr_mimebundle_(self, include=None, exclude=None):
        text = "\n\n".join(code for _t, _n, code in parts(self.key))
        return {"text/markdown": markdown(self.key), "text/plain": text}


def show(key: str) -> Listing:
    """What a chapter's cell calls: ``labs.listing.show("fma_peak")``."""
    return Listing(key)
