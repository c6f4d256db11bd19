"""Machines: the ceilings of each chip, every figure with its provenance.

A :class:`Machine` holds peak arithmetic rates per compute unit (FLOP/s), bandwidths
per memory level (byte/s) and the fixed launch toll (seconds). Every figure is a
:class:`Figure` that says where it came from: a vendor datasheet, the T4 note's
measurements, or a lab run. Tensor-core peaks are dense (2:4-sparse peaks are twice
these and apply only to weights in that pattern).

>>> t4 = get("T4")
>>> round(t4.ridge("fp32"))
25
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping

from . import _check

#: Compute units, in the order the book shows them.
UNITS = ("fp32", "fp64", "fp16_tensor", "bf16_tensor", "fp8_tensor", "fp4_tensor")
#: Memory levels, from the host link up to L1.
LEVELS = ("pcie", "dram", "l2", "l1")
UNIT_LABELS = {
    "fp32": "FP32 cores", "fp64": "FP64", "fp16_tensor": "FP16 tensor",
    "bf16_tensor": "BF16 tensor", "fp8_tensor": "FP8 tensor", "fp4_tensor": "FP4 tensor",
}
LEVEL_LABELS = {"pcie": "PCIe (host link)", "dram": "DRAM/HBM", "l2": "L2 cache", "l1": "L1 cache"}
#: Hardware facts a Machine may carry in ``extra`` (SI units; from datasheets and
#: whitepapers, or as the card reports itself): threads resident per SM, register file
#: per SM (bytes), L1/shared memory per SM (bytes), L2 cache (bytes).
EXTRA_KEYS = ("max_threads_per_sm", "registers_per_sm_bytes", "l1_shared_per_sm_bytes",
              "shared_per_block_bytes", "shared_per_sm_bytes", "max_blocks_per_sm", "l2_bytes")
#: The occupancy calculator's allocation rules a Machine may carry in ``extra`` (not shown in
#: the hardware tables): registers handed to a warp in multiples of ``register_alloc_unit``;
#: the register file split into ``register_sub_partitions`` equal parts, a warp's registers
#: in one part; shared memory handed to a block in multiples of ``shared_alloc_unit_bytes``,
#: plus ``reserved_shared_per_block_bytes`` the driver keeps for itself (bytes).
ALLOCATION_KEYS = ("register_alloc_unit", "register_sub_partitions", "shared_alloc_unit_bytes",
                   "reserved_shared_per_block_bytes")
#: Every hardware fact a Machine can carry, in the order the book's tables list them:
#: key -> (label, unit). The first five are Machine attributes, the rest EXTRA_KEYS.
HARDWARE = {
    "sms": ("SMs", "count"), "fp32_lanes_per_sm": ("FP32 lanes per SM", "count"),
    "clock_hz": ("boost clock", "Hz"), "power_limit_w": ("power limit (TDP)", "W"),
    "memory_bytes": ("DRAM capacity", "B"), "max_threads_per_sm": ("threads per SM, at most", "count"),
    "registers_per_sm_bytes": ("register file per SM", "B"),
    "l1_shared_per_sm_bytes": ("L1 + shared memory per SM", "B"),
    "shared_per_block_bytes": ("shared memory per block, at most", "B"),
    "shared_per_sm_bytes": ("shared memory per SM, at most", "B"),
    "max_blocks_per_sm": ("blocks resident per SM, at most", "count"),
    "l2_bytes": ("L2 cache", "B"),
}


@dataclass(frozen=True)
class Figure:
    """A number with its provenance: ``value`` in SI units, ``source`` in words."""

    value: float
    source: str

    def __float__(self) -> float:
        return float(self.value)


@dataclass(frozen=True)
class Machine:
    """One chip's ceilings.

    peaks: compute unit -> Figure of FLOP/s; bandwidths: level -> Figure of byte/s;
    launch_overhead: Figure of seconds for one operation launched and waited for.
    sms, fp32_lanes_per_sm and clock_hz (boost clock, Hz) describe the hardware where
    known (0 when not). kind is "gpu" or "cpu". peak_clocks_hz: the SM clock (Hz) a unit's
    peak is quoted at where that is not clock_hz (Hopper's datasheet quotes FP32 at 1.98 GHz
    but its tensor cores at 1.83 GHz; the comment where a machine sets it gives the source).
    """

    name: str
    description: str
    kind: str
    peaks: Mapping[str, Figure]
    bandwidths: Mapping[str, Figure]
    launch_overhead: Figure
    sms: int = 0
    fp32_lanes_per_sm: int = 0
    clock_hz: float = 0.0
    power_limit_w: float = 0.0
    memory: str = ""
    memory_bytes: float = 0.0
    measured: bool = False
    extra: Mapping[str, float] = field(default_factory=dict)
    #: Where each hardware fact (a key of HARDWARE) comes from, in words.
    hardware_sources: Mapping[str, str] = field(default_factory=dict)
    peak_clocks_hz: Mapping[str, float] = field(default_factory=dict)

    def units(self) -> list[str]:
        """The compute units this machine has, in the book's order."""
        return [u for u in UNITS if u in self.peaks]

    def levels(self) -> list[str]:
        """The memory levels with a known bandwidth, in the book's order."""
        return [lvl for lvl in LEVELS if lvl in self.bandwidths]

    def peak_flops(self, unit: str = "fp32") -> float:
        """Peak rate of a compute unit in FLOP/s (dense). Unknown unit -> ValueError."""
        if not isinstance(unit, str) or unit.lower() not in self.peaks:
            raise ValueError(
                f"unit must be one of {', '.join(self.units())} for {self.name}; got {unit!r}")
        return float(self.peaks[unit.lower()].value)

    def peak_clock(self, unit: str = "fp32") -> float:
        """The SM clock (Hz) at which peak_flops(unit) is quoted: clock_hz unless the
        datasheet quotes that unit at another clock. Unknown unit -> ValueError."""
        self.peak_flops(unit)
        return float(self.peak_clocks_hz.get(unit.lower(), self.clock_hz))

    def bandwidth(self, level: str = "dram") -> float:
        """Bandwidth of a memory level in byte/s (bytes read + written per second)."""
        if not isinstance(level, str) or level.lower() not in self.bandwidths:
            raise ValueError(
                f"level must be one of {', '.join(self.levels())} for {self.name}; got {level!r}")
        return float(self.bandwidths[level.lower()].value)

    def ridge(self, unit: str = "fp32", level: str = "dram") -> float:
        """Machine balance in FLOP/byte: peak_flops(unit) / bandwidth(level)."""
        return self.peak_flops(unit) / self.bandwidth(level)

    def source(self, what: str) -> str:
        """Provenance of a unit's peak, a level's bandwidth, or "launch_overhead"."""
        if what == "launch_overhead":
            return self.launch_overhead.source
        if what in self.peaks:
            return self.peaks[what].source
        if what in self.bandwidths:
            return self.bandwidths[what].source
        raise ValueError(f"what must be a unit, a level or 'launch_overhead'; got {what!r}")

    def hardware(self, key: str) -> float:
        """A hardware fact from ``extra`` (see EXTRA_KEYS); unknown or absent -> ValueError."""
        if not isinstance(key, str) or key not in self.extra:
            have = ", ".join(k for k in EXTRA_KEYS if k in self.extra) or "none"
            raise ValueError(f"key must be one of the hardware facts {self.name} has ({have}); "
                             f"got {key!r}")
        return float(self.extra[key])

    def with_clock(self, clock_hz: float) -> "Machine":
        """This machine with every compute peak scaled to another SM clock (Hz)."""
        clock_hz = _check.positive("clock_hz", clock_hz)
        if not self.clock_hz:
            raise ValueError(f"{self.name} has no clock to scale from")
        peaks = {u: Figure(f.value * clock_hz / self.peak_clock(u),
                           f"{f.source}, scaled to {clock_hz / 1e6:.0f} MHz")
                 for u, f in self.peaks.items()}
        return replace(self, name=f"{self.name} @ {clock_hz / 1e6:.0f} MHz", peaks=peaks,
                       clock_hz=clock_hz, peak_clocks_hz={})


def _fig(value: float, source: str) -> Figure:
    return Figure(float(value), source)


_NOTES = 'the T4 note ("How GPUs Actually Run Machine Learning"), measured on a Tesla T4'
_NOTES_CPU = ('the T4 note ("How GPUs Actually Run Machine Learning"), measured on its host '
              "CPU (Intel Xeon, 2.0 GHz, 2 threads, Kaggle)")
_GUIDE = "CUDA C++ Programming Guide, compute capability {}: most shared memory one block can use"
_GUIDE_SM = "CUDA C++ Programming Guide, compute capability {}: most shared memory per SM"
_GUIDE_BLOCKS = "CUDA C++ Programming Guide, compute capability {}: most resident blocks per SM"
_OCC = ("the CUDA occupancy calculator's rules (cuda_occupancy.h, compute capability {}): "
        "registers by the warp in units of 256, in four SM sub-partitions; shared memory in "
        "units of {} B{}")


def _allocation(shared_unit: int, reserved: int) -> dict[str, float]:
    """The occupancy calculator's allocation rules for one compute capability."""
    return {"register_alloc_unit": 256, "register_sub_partitions": 4,
            "shared_alloc_unit_bytes": shared_unit, "reserved_shared_per_block_bytes": reserved}


def _allocation_source(cc: str, shared_unit: int, reserved: int) -> str:
    extra = f", {reserved:,} B of each block's reserved by the driver" if reserved else ""
    return _OCC.format(cc, shared_unit, extra)


def _t4() -> Machine:
    ds = "NVIDIA T4 datasheet"
    return Machine(
        name="T4", description="NVIDIA Tesla T4 (Turing, 70 W, GDDR6)", kind="gpu",
        peaks={"fp32": _fig(8.1e12, ds + " (40 SMs x 64 lanes x 2 x 1.59 GHz)"),
               "fp64": _fig(8.1e12 / 32, "CUDA C++ Programming Guide, arithmetic throughput "
                            "for compute capability 7.5: 2 FP64 results a clock per SM against "
                            "64 FP32 (1/32 of the datasheet's FP32; the T4 datasheet gives none)"),
               "fp16_tensor": _fig(65e12, ds)},
        bandwidths={"pcie": _fig(12.3e9, _NOTES + ", pinned host-to-device copy"),
                    "dram": _fig(320e9, ds + " (256-bit bus x 10 Gb/s)"),
                    "l2": _fig(1.1e12, _NOTES), "l1": _fig(3.9e12, _NOTES)},
        launch_overhead=_fig(20e-6, _NOTES + ": one add launched and waited for"),
        sms=40, fp32_lanes_per_sm=64, clock_hz=1.59e9, power_limit_w=70,
        memory="GDDR6", memory_bytes=16e9,
        # as the card reports itself (the T4 note's table)
        extra={"max_threads_per_sm": 1024, "registers_per_sm_bytes": 256 * 1024,
               "l1_shared_per_sm_bytes": 96 * 1024, "shared_per_block_bytes": 64 * 1024,
               "shared_per_sm_bytes": 64 * 1024, "max_blocks_per_sm": 16,
               "l2_bytes": 4 * 1024 ** 2, **_allocation(256, 0)},
        hardware_sources={
            "sms": _NOTES + ", the card's own report", "fp32_lanes_per_sm": _NOTES,
            "clock_hz": "NVIDIA Turing architecture whitepaper (T4: 1,590 MHz boost)",
            "power_limit_w": ds, "memory_bytes": ds + " (16 GB GDDR6)",
            "max_threads_per_sm": _NOTES + ", the card's own report",
            "registers_per_sm_bytes": _NOTES + " (65,536 32-bit registers an SM)",
            "l1_shared_per_sm_bytes": _NOTES + " (96 KB shared between L1 and shared memory)",
            "shared_per_block_bytes": _GUIDE.format("7.5"),
            "shared_per_sm_bytes": _GUIDE_SM.format("7.5"),
            "max_blocks_per_sm": _GUIDE_BLOCKS.format("7.5"),
            "allocation": _allocation_source("7.5", 256, 0),
            "l2_bytes": _NOTES + ", the card's own report"})


def _a100() -> Machine:
    ds = "NVIDIA A100 SXM 80GB datasheet"
    return Machine(
        name="A100", description="NVIDIA A100 SXM 80GB (Ampere, HBM2e)", kind="gpu",
        peaks={"fp32": _fig(19.5e12, ds), "fp64": _fig(9.7e12, ds),
               "fp16_tensor": _fig(312e12, ds + ", dense"),
               "bf16_tensor": _fig(312e12, ds + ", dense")},
        bandwidths={"pcie": _fig(32e9, "PCIe Gen4 x16, nominal"),
                    "dram": _fig(2.039e12, ds)},
        launch_overhead=_fig(10e-6, "typical synchronised launch, order of magnitude"),
        sms=108, fp32_lanes_per_sm=64, clock_hz=1.41e9, power_limit_w=400,
        memory="HBM2e", memory_bytes=80e9,
        # NVIDIA A100 whitepaper
        extra={"max_threads_per_sm": 2048, "registers_per_sm_bytes": 256 * 1024,
               "l1_shared_per_sm_bytes": 192 * 1024, "shared_per_block_bytes": 163 * 1024,
               "shared_per_sm_bytes": 164 * 1024, "max_blocks_per_sm": 32,
               "l2_bytes": 40 * 1024 ** 2, **_allocation(128, 1024)},
        hardware_sources={
            **{k: "NVIDIA A100 Tensor Core GPU architecture whitepaper"
               for k in ("sms", "fp32_lanes_per_sm", "clock_hz", "max_threads_per_sm",
                         "registers_per_sm_bytes", "l1_shared_per_sm_bytes", "l2_bytes")},
            "power_limit_w": ds, "memory_bytes": ds,
            "shared_per_block_bytes": _GUIDE.format("8.0"),
            "shared_per_sm_bytes": _GUIDE_SM.format("8.0"),
            "max_blocks_per_sm": _GUIDE_BLOCKS.format("8.0"),
            "allocation": _allocation_source("8.0", 128, 1024)})


def _hopper(name: str, dram: float, mem_bytes: float, memory: str, ds: str,
            l2_bytes: float = 50 * 1024 ** 2,
            l2_source: str = "NVIDIA H100 Tensor Core GPU architecture whitepaper") -> Machine:
    wp = "NVIDIA H100 Tensor Core GPU architecture whitepaper"
    if name != "H100":
        wp += f" (the {name} has the H100's SM)"
    return Machine(
        name=name, description=f"NVIDIA {name} SXM (Hopper, {memory})", kind="gpu",
        peaks={"fp32": _fig(66.9e12, ds + " (132 SMs x 128 lanes x 2 x 1.98 GHz)"),
               "fp64": _fig(33.5e12, ds),
               "fp16_tensor": _fig(989e12, ds + ", dense"),
               "bf16_tensor": _fig(989e12, ds + ", dense"),
               "fp8_tensor": _fig(1979e12, ds + ", dense")},
        bandwidths={"pcie": _fig(64e9, "PCIe Gen5 x16, nominal"), "dram": _fig(dram, ds)},
        launch_overhead=_fig(10e-6, "typical synchronised launch, order of magnitude"),
        sms=132, fp32_lanes_per_sm=128, clock_hz=1.98e9, power_limit_w=700,
        memory=memory, memory_bytes=mem_bytes,
        # The tensor peaks are quoted at a lower clock than FP32's. NVIDIA H100 Tensor Core
        # GPU architecture whitepaper: an SM's tensor cores do 1,024 dense FP16 FMAs a clock
        # on the A100 and twice that on the H100, so 989.4 TFLOP/s over 132 SMs x 4,096 FLOPs
        # is a 1.83 GHz clock (FP8: twice the FLOPs a clock, at the same clock).
        peak_clocks_hz={u: 1.83e9 for u in ("fp16_tensor", "bf16_tensor", "fp8_tensor")},
        # NVIDIA H100 whitepaper (the H200 has the same SM); L2 as the card reports it
        extra={"max_threads_per_sm": 2048, "registers_per_sm_bytes": 256 * 1024,
               "l1_shared_per_sm_bytes": 256 * 1024, "shared_per_block_bytes": 227 * 1024,
               "shared_per_sm_bytes": 228 * 1024, "max_blocks_per_sm": 32,
               "l2_bytes": l2_bytes, **_allocation(128, 1024)},
        hardware_sources={
            **{k: wp for k in ("sms", "fp32_lanes_per_sm", "clock_hz", "max_threads_per_sm",
                               "registers_per_sm_bytes", "l1_shared_per_sm_bytes")},
            "power_limit_w": ds, "memory_bytes": ds,
            "shared_per_block_bytes": _GUIDE.format("9.0"),
            "shared_per_sm_bytes": _GUIDE_SM.format("9.0"),
            "max_blocks_per_sm": _GUIDE_BLOCKS.format("9.0"),
            "allocation": _allocation_source("9.0", 128, 1024), "l2_bytes": l2_source})


def _b200() -> Machine:
    ds = "NVIDIA HGX B200 datasheet, per GPU"
    return Machine(
        name="B200", description="NVIDIA B200 (Blackwell, HBM3e)", kind="gpu",
        peaks={"fp32": _fig(75e12, ds), "fp64": _fig(37e12, ds),
               "fp16_tensor": _fig(2.25e15, ds + ", dense"),
               "bf16_tensor": _fig(2.25e15, ds + ", dense"),
               "fp8_tensor": _fig(4.5e15, ds + ", dense"),
               "fp4_tensor": _fig(9e15, ds + ", dense")},
        bandwidths={"pcie": _fig(64e9, "PCIe Gen5 x16, nominal"), "dram": _fig(8e12, ds)},
        launch_overhead=_fig(10e-6, "typical synchronised launch, order of magnitude"),
        sms=148, fp32_lanes_per_sm=128, clock_hz=1.98e9, power_limit_w=1000,
        memory="HBM3e", memory_bytes=180e9,
        extra={"max_threads_per_sm": 2048, "registers_per_sm_bytes": 256 * 1024,
               "shared_per_block_bytes": 227 * 1024, "shared_per_sm_bytes": 228 * 1024,
               "max_blocks_per_sm": 32, **_allocation(128, 1024)},
        hardware_sources={
            "power_limit_w": ds, "memory_bytes": ds,
            **{k: "CUDA C++ Programming Guide, compute capability 10.0"
               for k in ("max_threads_per_sm", "registers_per_sm_bytes")},
            "shared_per_block_bytes": _GUIDE.format("10.0"),
            "shared_per_sm_bytes": _GUIDE_SM.format("10.0"),
            "max_blocks_per_sm": _GUIDE_BLOCKS.format("10.0"),
            "allocation": _allocation_source("10.0", 128, 1024),
            **{k: "an assumption of the model: the datasheet's 75 TFLOP/s FP32 split as "
                  "148 SMs x 128 lanes x 2 x 1.98 GHz (the book uses it only where an exercise says "
                  "it supposes so)"
               for k in ("sms", "fp32_lanes_per_sm", "clock_hz")}})


def _cpu() -> Machine:
    return Machine(
        name="CPU", description="The T4 note's CPU: Intel Xeon 2.0 GHz, 2 threads (Kaggle)",
        kind="cpu",
        peaks={"fp32": _fig(215e9, _NOTES_CPU + ": largest matmuls")},
        bandwidths={"dram": _fig(23e9, _NOTES_CPU + ": largest additions")},
        launch_overhead=_fig(4e-6, _NOTES_CPU + ": 3-6 us per PyTorch op"),
        clock_hz=2.0e9, hardware_sources={"clock_hz": _NOTES_CPU})


_BUILDERS = {
    "t4": _t4, "a100": _a100,
    "h100": lambda: _hopper("H100", 3.35e12, 80e9, "HBM3", "NVIDIA H100 SXM datasheet"),
    "h200": lambda: _hopper("H200", 4.8e12, 141e9, "HBM3e", "NVIDIA H200 SXM datasheet",
                            l2_bytes=60 * 1024 ** 2,
                            l2_source="the card's own report (CUDA device properties, "
                                      "recorded in every H200 lab run's context)"),
    "b200": _b200, "cpu": _cpu,
}
_MACHINES = {key: build() for key, build in _BUILDERS.items()}


def hardware_facts(machine: str | Machine) -> list[tuple[str, str, float, str, str]]:
    """Every hardware fact a machine carries, in the order of HARDWARE: (key, label, value in
    SI units, unit, source). Facts the machine lacks (0 or absent) are left out; a fact
    without a recorded source is a ValueError, so no number reaches a table unsourced."""
    m = get(machine)
    rows = []
    for key, (label, unit) in HARDWARE.items():
        value = float(m.extra.get(key, 0.0)) if key in EXTRA_KEYS else float(getattr(m, key))
        if not value:
            continue
        if key not in m.hardware_sources:
            raise ValueError(f"{m.name}: hardware fact {key!r} has no source")
        rows.append((key, label, value, unit, m.hardware_sources[key]))
    return rows


def names() -> list[str]:
    """Names of the built-in machines, GPUs first."""
    return [m.name for m in _MACHINES.values()]


def get(name: str | Machine) -> Machine:
    """The machine of that name (case-insensitive); a Machine passes through unchanged."""
    if isinstance(name, Machine):
        return name
    if isinstance(name, str) and name.lower() in _MACHINES:
        return _MACHINES[name.lower()]
    raise ValueError(f"machine (name) must be one of {', '.join(names())} or a Machine; "
                     f"got {_check.show(name)}")


def all_machines() -> list[Machine]:
    """Every built-in machine, in the order of :func:`names`."""
    return list(_MACHINES.values())


def measured(name: str, peaks: Mapping[str, float], bandwidths: Mapping[str, float], *,
             source: str, launch_overhead: float | None = None, base: str | Machine | None = None,
             sms: int = 0, fp32_lanes_per_sm: int = 0, clock_hz: float = 0.0) -> Machine:
    """A Machine from measured ceilings (FLOP/s per unit, byte/s per level).

    Figures not given are taken from ``base`` (a datasheet machine) when one is named,
    and keep their datasheet provenance.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string; got {name!r}")
    for argument, mapping in (("peaks", peaks), ("bandwidths", bandwidths)):
        if not isinstance(mapping, Mapping):
            raise TypeError(f"{argument} must be a mapping (unit or level -> value), got "
                            f"{_check.show(mapping)}")
    if not isinstance(source, str):
        raise TypeError(f"source must be text saying where the figures come from, got "
                        f"{_check.show(source)}")
    try:
        base_m = get(base) if base is not None else None
    except ValueError as exc:
        raise ValueError(f"base: {exc}") from None
    p = dict(base_m.peaks) if base_m else {}
    b = dict(base_m.bandwidths) if base_m else {}
    for unit, value in peaks.items():
        _check.choice("peaks unit", unit, UNITS)
        p[unit] = Figure(_check.positive(f"peaks[{unit!r}]", value), source)
    for level, value in bandwidths.items():
        _check.choice("bandwidths level", level, LEVELS)
        b[level] = Figure(_check.positive(f"bandwidths[{level!r}]", value), source)
    if "fp32" not in p or "dram" not in b:
        raise ValueError("a measured machine needs at least an fp32 peak and a dram bandwidth")
    if launch_overhead is not None:
        toll = Figure(_check.non_negative("launch_overhead", launch_overhead), source)
    elif base_m is not None:
        toll = base_m.launch_overhead
    else:
        toll = Figure(10e-6, "typical synchronised launch, order of magnitude")
    return Machine(
        name=name, description=f"{name} ({source})", kind="gpu", peaks=p, bandwidths=b,
        launch_overhead=toll, sms=sms or (base_m.sms if base_m else 0),
        fp32_lanes_per_sm=fp32_lanes_per_sm or (base_m.fp32_lanes_per_sm if base_m else 0),
        clock_hz=clock_hz or (base_m.clock_hz if base_m else 0.0),
        power_limit_w=base_m.power_limit_w if base_m else 0.0,
        memory=base_m.memory if base_m else "", memory_bytes=base_m.memory_bytes if base_m else 0.0,
        measured=True)


def notes_t4() -> Machine:
    """The Tesla T4 as the T4 note measured it, not as the datasheet says: 6.8 TFLOP/s FP32
    (an FMA kernel at the 1,365 MHz the power limit allowed), 230 GB/s DRAM (an add, which
    writes as much as it reads), 1.1 TB/s L2, 3.9 TB/s L1, 12.3 GB/s pinned PCIe, and a toll
    of 20 us for one add launched and waited for. The FP16 tensor peak stays the datasheet's.
    These are the roofs the notes resolve their four-jobs paradox with."""
    return measured("T4 (measured)", {"fp32": 6.8e12},
                    {"dram": 230e9, "l2": 1.1e12, "l1": 3.9e12, "pcie": 12.3e9},
                    source=_NOTES, launch_overhead=20e-6, base="T4")


def _summary(results: Iterable[Mapping], lab: str) -> Mapping | None:
    for r in results:
        if isinstance(r, Mapping) and r.get("lab") == lab:
            return r.get("summary") or {}
    return None


def from_results(*results: Mapping, name: str | None = None) -> Machine:
    """The roofline of a measured GPU, from lab results (dicts with lab/context/summary).

    Uses the ``intensity`` lab's ``fma_flops`` (FP32 peak) and ``copy_bandwidth`` (DRAM),
    from the labs or from the book page's WebGPU measurement (its context has ``api``),
    and where present the ``paradox`` lab's ``launch_sync_s``, the ``pcie`` lab's
    ``pinned_bandwidth`` and the ``clocks`` lab's ``tensor_fp16_flops``. Missing units
    come from the datasheet machine of the same name when the GPU is one of ours.
    """
    if not results:
        raise ValueError("results must hold at least the 'intensity' lab's result")
    intensity = _summary(results, "intensity")
    if intensity is None:
        raise ValueError("results must include the 'intensity' lab's result "
                         "(it holds fma_flops and copy_bandwidth)")
    ctx = next(r.get("context", {}) for r in results if r.get("lab") == "intensity")
    gpu = str(ctx.get("gpu_name", "measured GPU"))
    base = next((m.name for m in all_machines() if m.kind == "gpu" and m.name in gpu.upper()), None)
    peaks = {"fp32": intensity["fma_flops"]}
    bws = {"dram": intensity["copy_bandwidth"]}
    toll = None
    paradox = _summary(results, "paradox")
    if paradox and paradox.get("launch_sync_s"):
        toll = paradox["launch_sync_s"]
    pcie = _summary(results, "pcie")
    if pcie and pcie.get("pinned_bandwidth"):
        bws["pcie"] = pcie["pinned_bandwidth"]
    clocks = _summary(results, "clocks")
    if clocks and clocks.get("tensor_fp16_flops"):
        peaks["fp16_tensor"] = clocks["tensor_fp16_flops"]
    date = str(ctx.get("date", ""))[:10]
    # A result from the book's web page (book-webgpu.js) names its API: say so, since
    # WebGPU shaders reach less than native code on the same GPU.
    how = (f"measured with {ctx['api']} ({ctx.get('runtime', 'in a browser')})"
           if ctx.get("api") else "measured by the book's labs")
    return measured(name or f"{gpu} (measured)", peaks, bws,
                    source=f"{how} on {gpu} {date}".strip(),
                    launch_overhead=toll, base=base, sms=int(ctx.get("sms", 0) or 0))
