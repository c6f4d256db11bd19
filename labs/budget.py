"""How long each lab's quick mode takes on a T4 (Colab's free GPU), estimated from the model.

``estimate(name)`` walks through what the lab's ``run(quick=True)`` does, with the lab's
own quick-mode sizes (its module constants), and prices each step with
:func:`perfmodel.roofline.time` on a T4 plus fixed costs: ``{"seconds": total, "parts":
{what: seconds}}``. Each lab's docstring states the total ("On a T4 (quick): about N s");
a test recomputes it and holds every lab under a minute.

The T4 here is perfmodel's (``machines.get("T4")``: 40 SMs, 1024 threads an SM) at the
rates the source notes measured on one (:func:`perfmodel.machines.notes_t4` and
``labs/results/T4-reference``: FP32 FMA 6.8 TFLOP/s, FP16 tensor-core matmul 21 TFLOP/s at
its power limit, streaming 230 GB/s, pinned PCIe 12.3 GB/s, the naive and best PCIe round
trips, the CPU's add), all below the datasheet's, so the estimate errs long. What is not
measured on a T4 is an assumption, named as such below: the compile times (numba's
measured here on a 2-core CPU with Colab's toolchain, then doubled; torch.compile's a
guess), the start-up, and cuBLAS's slow path for odd matrix sizes (the H200's 5x).
Nothing here imports torch; it is arithmetic over perfmodel.
"""
from __future__ import annotations

import math

from perfmodel import machines, ops, roofline

from . import attention, clocks, coalescing, comm, divergence, intensity, latency, linear_batch
from . import littles_law, ops_on_roof, paradox, pcie, waves
from .results import load

GIB = 2 ** 30
#: Device memory of a Colab T4 as torch sees it (15 GiB: ECC on), less what the CUDA
#: context and torch's allocator hold before a lab starts (about half a GiB): assumed.
T4_FREE_BYTES = 14.5 * GIB
#: The first CUDA work of a lab in a fresh process: context, cuBLAS and cuDNN handles,
#: torch's allocator (assumed; a second lab in the same notebook pays less).
START_S = 3.0
#: One numba kernel's first compile (type inference, NVVM, nvJitLink), Colab's toolchain:
#: tests/colab/compile_sm75.py measured 0.02-1.4 s per kernel on a 2-core CPU (2026-12-01),
#: 5.3 s for the two-group knob; doubled here for a slower notebook CPU.
NUMBA_COMPILE_S = 2.0
KNOB2_COMPILE_S = 10.6
#: torch.compile of one small function, first time (Inductor and Triton): a guess; the
#: H200's whole quick fusion run took 14.3 s on a many-core host.
TORCH_COMPILE_S = 15.0
#: The spin :func:`labs.timing.queued_time` queues ahead of each timed launch, on a T4.
SPIN_S = 500_000 / 1.59e9
#: cuBLAS on an n that is not a multiple of 8 (odd: about 5x, even: about 3x slower):
#: measured on the H200 (labs/waves.py), assumed the same on a T4.
ODD_SLOWDOWN, EVEN_SLOWDOWN = 5.0, 3.0
#: Labs not estimated here, and why.
NOT_ESTIMATED = {"profile": "runs the labs' kernels under Nsight Compute (ncu), which "
                            "Colab does not provide; it falls back to the recorded counters"}


def t4() -> machines.Machine:
    """The T4 the estimates run on: perfmodel's T4 as the source notes measured it
    (:func:`perfmodel.machines.notes_t4`: 6.8 TFLOP/s FP32, 230 GB/s, 12.3 GB/s pinned
    PCIe, 20 us a synchronised launch), with the FP16 tensor-core rate the notes measured
    under its power limit (``labs/results/T4-reference/clocks.json``, 21 TFLOP/s) instead
    of the datasheet's 65."""
    tensor = load("clocks", "T4-reference")["summary"]["tensor_fp16_flops"]
    return machines.measured("T4 (sustained)", {"fp16_tensor": tensor}, {},
                             base=machines.notes_t4(),
                             source="the source notes' T4 (labs/results/T4-reference)")


class _Budget:
    """Seconds by part, added up."""

    def __init__(self):
        self.parts: dict[str, float] = {}
        self.m = t4()
        self.extra = machines.get("T4").extra     # threads an SM, L2 bytes (datasheet)

    def add(self, what: str, seconds: float) -> None:
        self.parts[what] = self.parts.get(what, 0.0) + float(seconds)

    def op(self, op, unit: str = "fp32") -> float:
        """Seconds of one launch of ``op`` on the T4: toll + max(F/P, D/B)."""
        return roofline.time(self.m, op, unit, overhead=self.m.launch_overhead.value)

    def bytes(self, nbytes: float) -> float:
        return nbytes / self.m.bandwidth("dram")

    def total(self) -> dict:
        return {"seconds": sum(self.parts.values()), "parts": dict(self.parts)}


def _host_time(dt: float, budget_s: float, lo: int = 3, hi: int = 50) -> float:
    """Seconds :func:`labs.common.host_time` spends on a call of ``dt`` seconds: one call
    to size the repeats, then max(lo, min(hi, budget / dt)) timed calls."""
    return dt * (1 + max(lo, min(hi, budget_s / max(dt, 1e-7))))


def _elements(target_bytes: float, share: float, itemsize: int = 4) -> int:
    """What :func:`labs.common.elements_for` gives on a T4 (multiples ignored)."""
    return int(min(target_bytes, share * T4_FREE_BYTES) // itemsize)


def _copy(b: _Budget, n_floats: int, calls: int = 23) -> None:
    """:func:`labs.ceilings.copy_bandwidth`: 3 warm-up and 20 timed copies of n floats."""
    b.add("copy bandwidth", calls * b.bytes(8.0 * n_floats))


def _fma_peak(b: _Budget, hold_s: float) -> None:
    """:func:`labs.ceilings.fma_peak`: compile, calibrate, hold."""
    b.add("compile numba kernels", NUMBA_COMPILE_S)
    b.add("FMA peak held", hold_s + 5 * 0.01)


def _paradox(b: _Budget) -> None:
    cpu = machines.get("CPU")
    top = _elements(4 * 2 ** 26, 0.1)
    adds = [1000] + [2 ** j for j in range(12, int(math.log2(top)) + 1)][::2]
    if adds[-1] != top:
        adds.append(top)
    naive = load("pcie", "T4-reference")
    trip_s_per_byte = naive["summary"]["naive_round_trip_s"] / (3 * 4 * naive["params"]["n"])
    for kind, sizes in (("matmul", [n for n in paradox.MATMUL_N if n <= 2048]), ("add", adds)):
        for n in sizes:
            op = ops.matmul(n) if kind == "matmul" else ops.vector_add(n)
            t_cpu = roofline.time(cpu, op, overhead=cpu.launch_overhead.value)
            t_gpu = b.op(op)
            t_trip = t_gpu + trip_s_per_byte * op.bytes
            for what, dt in (("CPU", t_cpu), ("GPU resident", t_gpu), ("GPU with copies", t_trip)):
                b.add(f"{kind}: {what}", _host_time(dt, 0.1))
            b.add("host data", 2 * op.bytes / 3 / cpu.bandwidth("dram"))
    toll = b.m.launch_overhead.value
    b.add("launch tolls", _host_time(toll, 0.2, 50, 2000) + _host_time(1000 * toll, 0.5, 3, 10)
          + _host_time(100 * toll, 0.3, 5, 200) + _host_time(1000 * toll, 0.5, 3, 10))
    b.add("compile numba kernels", NUMBA_COMPILE_S)


def _intensity(b: _Budget) -> None:
    n = _elements(2 ** 30, 0.2)
    _copy(b, n)
    _fma_peak(b, 1.0)
    b.add("compile numba kernels", NUMBA_COMPILE_S + KNOB2_COMPILE_S)  # the two knobs
    for k in intensity.K_QUICK:
        op = ops.Op("knob", 2.0 * k * n, 8.0 * n)
        b.add("knob sweep", len(intensity.LAUNCHES) * 7 * b.op(op))
    b.add("host data", b.bytes(4.0 * n))


def _ops_on_roof(b: _Budget) -> None:
    n = _elements(2 ** 28, 0.05)
    _copy(b, n)
    _fma_peak(b, 0.5)
    rows, cols = n // 4096, 4096
    catalogue = [(ops.vector_add(n), "fp32"), (ops.relu(n), "fp32"),
                 (ops.elementwise(n, 2, 3, 1), "fp32"), (ops.reduction(n), "fp32"),
                 (ops.softmax(rows, cols), "fp32"), (ops.layernorm(rows, cols, passes=1), "fp32")]
    for m in (256, 1024, 4096):
        catalogue += [(ops.matmul(m, dtype="fp32"), "fp32"),
                      (ops.matmul(m, dtype="fp16"), "fp16_tensor")]
    hw, c = 128 * 128, 64
    catalogue += [(ops.Op("conv", 2 * 32 * hw * c * 64 * 9, 2 * 2 * 32 * c * hw, "fp16"),
                   "fp16_tensor"),
                  (ops.attention(4096, 64, flash=True, dtype="fp16", heads=8 * 16), "fp16_tensor"),
                  (ops.linear(256, 4096, 4096), "fp16_tensor")]
    # ceilings.graph_seconds: 3 calls to warm up, 3 captured, 12 replays of 3
    b.add("catalogue", sum((3 + 3 + 36) * b.op(op, unit) for op, unit in catalogue))
    b.add("host data", b.bytes(4.0 * 4 * n))


def _linear_batch(b: _Budget) -> None:
    _copy(b, _elements(2 ** 28, 0.2))
    b.add("FP16 matmul rate", 13 * b.op(ops.matmul(4096, dtype="fp16"), "fp16_tensor"))
    l2 = b.extra["l2_bytes"]
    weights = max(2, -(-3 * l2 // (2 * linear_batch.D ** 2)))
    for j in range(11):   # batch 1 .. 1024
        t = b.op(ops.linear(2 ** j, linear_batch.D, linear_batch.D), "fp16_tensor")
        b.add("batch sweep", (2 + 2 * weights * 13) * t)


def _fusion(b: _Budget) -> None:
    n = _elements(4 * 2 ** 26, 0.05)
    b.add("torch.compile (two functions)", 2 * TORCH_COMPILE_S)
    _copy(b, n)
    for make, dtype in ((ops.scale_shift_relu, "fp16"), (ops.sin2_cos2, "fp32")):
        for fused in (False, True):
            b.add("chains", (13 + 2) * b.op(make(n, fused=fused, dtype=dtype)))


def _pcie(b: _Budget) -> None:
    n = _elements(4 * 2 ** 26, 0.1)
    ref = load("pcie", "T4-reference")
    scale = n / ref["params"]["n"]
    s = ref["summary"]
    cpu = machines.get("CPU")
    pageable = s["naive_round_trip_s"] * scale / 3      # one array across, pageable
    for dt in (pageable, pageable, b.op(ops.vector_add(n)), pageable, 3 * pageable):
        b.add("naive stages", _host_time(dt, 0.5, 3, 10))
    b.add("pinned copies", _host_time(s["best_round_trip_s"] * scale, 0.5, 3, 10)
          + 14 * 4.0 * n / b.m.bandwidth("pcie") + 3 * 4.0 * n / cpu.bandwidth("dram"))
    b.add("CPU add", _host_time(s["cpu_add_s"] * scale, 0.5, 3, 10))
    b.add("host data", 2 * 4.0 * n / cpu.bandwidth("dram"))


def _clocks(b: _Budget) -> None:
    hold, idle = 2.0, 3.0
    _fma_peak(b, hold)
    for m, unit, dt in ((4096, "fp32", "fp32"), (8192, "fp16_tensor", "fp16")):
        b.add("held matmuls", 13 * b.op(ops.matmul(m, dtype=dt), unit) + hold)
    t = b.op(ops.matmul(2048, dtype="fp16"), "fp16_tensor")
    count = int(max(20, min(400, 0.3 / t)))
    b.add("bursts", 8 * t + 2 * count * (t + clocks.SPIN_NS * 1e-9))
    b.add("preludes (idle, then streaming)", idle + idle / 3)
    b.add("compile numba kernels", NUMBA_COMPILE_S)   # spin


def _divergence(b: _Budget) -> None:
    m = b.m
    iters = 2 ** 14
    threads_per_sm = b.extra["max_threads_per_sm"]
    one_pass = threads_per_sm * iters / m.fp32_lanes_per_sm / m.clock_hz  # FMA-bound wave
    passes = len(divergence.PATHS) + sum(divergence.PATHS)   # between: 1 each; within: P
    ks = len(set(divergence.KS_QUICK) | {1}) + 1                           # + the floor
    b.add("timed launches", 7 * one_pass * (passes + ks))
    b.add("compile numba kernels", 2 * NUMBA_COMPILE_S)


def _latency(b: _Budget) -> None:
    lat = load("latency", "T4-reference")["summary"]["latency_ns"]["dram"] * 1e-9
    limit = min(latency.MAX_CHAIN_BYTES, T4_FREE_BYTES // 3)
    for size in (s for s in latency.SIZES_QUICK if s <= limit):
        b.add("chains built", b.bytes(3.0 * size) + size / latency.LINE_BYTES * 32
              / b.m.bandwidth("dram"))
        b.add("chases", 4 * (2048 * lat + b.bytes(4.0 * b.extra["l2_bytes"])))
    b.add("compile numba kernels", NUMBA_COMPILE_S)


def _littles_law(b: _Budget) -> None:
    ref = load("latency", "T4-reference")["summary"]["latency_ns"]["dram"] * 1e-9
    one_sm = load("littles_law", "T4-reference")["summary"]["one_sm_bandwidth"]
    n = _elements(2 ** 30, 0.25)
    positions = n // 4
    _copy(b, min(n, 2 ** 28), calls=13)
    sms, warps_per_sm = b.m.sms, b.extra["max_threads_per_sm"] // 32

    def launch(threads: int, ilp: int, cap: float) -> float:
        iters = max(1, min(128, positions // (threads * ilp)))
        in_flight = threads * ilp * littles_law.LOAD_BYTES
        return threads * ilp * iters * littles_law.LOAD_BYTES / min(cap, in_flight / ref)

    bw = b.m.bandwidth("dram")
    for ilp in littles_law.ILPS:
        for j in range(int(math.log2(sms * warps_per_sm)) + 1):
            b.add("grid sweep", 5 * launch(32 * 2 ** j, ilp, bw) + 3 * SPIN_S)
    for ilp in (4, 8):
        for j in range(6):
            b.add("one-SM sweep", 5 * launch(32 * 2 ** j, ilp, one_sm) + 3 * SPIN_S)
    chain = max(16 * b.extra["l2_bytes"], 2 ** 26)
    b.add("chases", b.bytes(3.0 * chain) + 4 * 512 * ref
          + len(littles_law.loaded_points(warps_per_sm, True)) * 3 * 128 * 4 * ref)
    b.add("compile numba kernels", 6 * NUMBA_COMPILE_S)  # 4 reads, chase, loaded chase


def _coalescing(b: _Budget) -> None:
    m = b.m
    threads = 2 ** int(math.log2(m.sms * b.extra["max_threads_per_sm"]))
    n_dram = 2 ** int(math.log2(_elements(2 ** 30, 0.25)))
    for s in coalescing.STRIDES_QUICK:
        for place, total, bw in (("l2", 2 ** 29, m.bandwidth("l2")), ("dram", 0, m.bandwidth("dram"))):
            want = total // (4 * min(s, 8)) if place == "l2" else n_dram // s
            iters = max(1, want // (threads * coalescing.ILP))
            useful = iters * threads * coalescing.ILP * 4
            t = useful / (bw * coalescing.predicted_fraction(s, place))
            b.add("strided reads", 7 * t + 5 * SPIN_S)
    gather = min(2 ** 26, n_dram // 4)
    b.add("gathers", 7 * b.bytes(gather * (8 + coalescing.GATHER_MOVED)) + 10 * SPIN_S)
    side = 8192 * 8192 * 4
    b.add("torch view", 7 * b.bytes(side * (16 + 2 + 1)) + 15 * SPIN_S)
    b.add("host data", b.bytes(4.0 * n_dram + 4.0 * gather))
    b.add("compile numba kernels", 4 * NUMBA_COMPILE_S)


def _waves(b: _Budget) -> None:
    for n in waves.FINE_QUICK + waves.COARSE_QUICK:
        slow = ODD_SLOWDOWN if n % 2 else EVEN_SLOWDOWN if n % 8 else 1.0
        t = slow * b.op(ops.matmul(n, dtype="fp16"), "fp16_tensor")
        b.add("matmuls", len(waves.LAYOUTS) * (8 * t + 5 * SPIN_S))


def _attention(b: _Budget) -> None:
    m = b.m
    h, d = attention.BATCH * attention.HEADS, attention.HEAD_DIM
    for s in attention.SEQS_QUICK:
        flops = 4.0 * h * s * s * d
        square = attention.square_fits(T4_FREE_BYTES, s)
        naive = max(flops / m.peak_flops("fp16_tensor"), b.bytes(4 * h * s * s * 2))
        fused = flops / m.peak_flops("fp16_tensor") + b.bytes(4 * h * s * d * 2)
        tiled = flops / m.peak_flops("fp32") + b.bytes(6 * h * s * s * 4)
        per_call = fused * 2 + tiled + (2 * naive + naive * 2 if square else 0)
        ref = 4.0 * attention.CHECK_ROWS * s * d * h / m.peak_flops("fp64")
        impls = 4 + (2 if square else 0)
        b.add("implementations", 2 * (6 * per_call + 3 * SPIN_S * impls + impls * ref))


#: Pinning host memory (page-locking it for the GPU's copy engines), seconds a GiB: assumed.
PIN_S_PER_GIB = 0.5


def _comm(b: _Budget) -> None:
    """One GPU (Colab's T4): each size's three copies, each timed as the lab's
    ``_per_call`` does (three untimed calls, then its repeats of a run of calls lasting
    at least the quick target)."""
    sizes = comm.sizes(quick=True)
    toll = b.m.launch_overhead.value
    for path, seconds in ((comm.COPIES[0], lambda s: toll + 2 * s / b.m.bandwidth("dram")),
                          (comm.COPIES[1], lambda s: toll + s / b.m.bandwidth("pcie")),
                          (comm.COPIES[2], lambda s: toll + s / b.m.bandwidth("pcie"))):
        for s in sizes:
            t = seconds(s)
            calls = min(1000, max(1, int(comm.TARGET_S[True] / t)))
            b.add(path, 3 * t + comm.REPEATS[True] * calls * t)
    b.add("buffers", PIN_S_PER_GIB * max(sizes) / GIB + 2 * max(sizes) / b.m.bandwidth("dram"))


_LABS = {"paradox": _paradox, "intensity": _intensity, "ops_on_roof": _ops_on_roof,
         "linear_batch": _linear_batch, "fusion": _fusion, "pcie": _pcie, "clocks": _clocks,
         "divergence": _divergence, "latency": _latency, "littles_law": _littles_law,
         "coalescing": _coalescing, "waves": _waves, "attention": _attention, "comm": _comm}
ESTIMATED = tuple(_LABS)


def estimate(name: str) -> dict:
    """``{"seconds": total, "parts": {what: seconds}}``: the lab's quick mode on a T4,
    start-up and first compiles included (see the module docstring)."""
    if name not in _LABS:
        raise ValueError(f"name must be one of {', '.join(_LABS)}; got {name!r}"
                         + (f" ({NOT_ESTIMATED[name]})" if name in NOT_ESTIMATED else ""))
    b = _Budget()
    b.add("start-up", START_S)
    _LABS[name](b)
    return b.total()


def stated(seconds: float) -> int:
    """The whole seconds a docstring states for an estimate (rounded up)."""
    return int(math.ceil(seconds))
