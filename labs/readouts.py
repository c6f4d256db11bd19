"""What a reader sees of a lab's result: one curated table per lab, in one place.

Each lab has a :class:`Readout`: a function from one run's result to its rows and one
sentence on what to look at. A :class:`Row` is a plain name with its unit, the measured
value and the model's value for the machine that was measured, both formatted for people
(:mod:`perfmodel.units`), and an optional short note (where the model's figure comes from).
The model's values are computed here by perfmodel, from the run's context (SMs, clocks)
and the datasheet machine of the same GPU (:func:`datasheet`), or from the run's own
measured roofs where the lab's model uses them. A figure with no model counterpart says
"measured only". The raw summary keys stay in the JSON; they never reach the page.

The profile lab writes its own lesson tables (:func:`labs.profile.table`, drawn by its own
``show``), in the same form: a caption on what to look at, plain names, the model beside
each counter. :data:`OWN_TABLES` names it.

>>> from labs import results
>>> rows = READOUTS["pcie"].rows(results.load("pcie", "H200"))
>>> rows[0].name
'Pinned host-to-device copy'
"""
from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass
from typing import Callable

from perfmodel import clocks, hierarchy, little, machines, ops, roofline, simt, units

from .references import datasheet, measured_profile, reference_copy  # noqa: F401

#: The model column of a figure the model does not predict.
MEASURED_ONLY = "measured only"
#: The model column when the GPU measured has no datasheet machine in perfmodel.
NO_DATASHEET = "no datasheet figures for this GPU"


@dataclass(frozen=True)
class Row:
    """One line of a readout: ``name`` (plain words, the unit in brackets where the value
    does not carry it), ``measured`` (formatted; None when this run has no such figure),
    ``model`` (formatted, or MEASURED_ONLY / NO_DATASHEET), ``note`` (optional, short)."""

    name: str
    measured: str | None
    model: str
    note: str = ""


@dataclass(frozen=True)
class Readout:
    """A lab's readout: ``rows(result)`` -> list of Row; ``look``: one sentence on what to
    look at in the table."""

    rows: Callable[[dict], list[Row]]
    look: str


# ----------------------------------------------------------------------------- helpers

def copy_share(row: dict, copy: float) -> float | None:
    """A memory-bound op's measured FLOP/s over the copy's slope at its intensity,
    flops / (I x copy): its bytes per second over the copy's. None without those fields."""
    intensity, flops = row.get("intensity"), row.get("flops")
    if not _num(intensity) or not _num(flops) or not intensity or not _num(copy):
        return None
    return flops / (intensity * copy)


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _fmt(fn: Callable[[float], str], x) -> str | None:
    """fn(x), or None where x is missing (this run has no such figure)."""
    return fn(x) if _num(x) else None


def _hz(x: float) -> str:
    return units.si(x, "Hz")


def _watts(x: float) -> str:
    return units.si(x, "W")


def _rows(result: dict, **match) -> list[dict]:
    return [r for r in result.get("rows", [])
            if all(r.get(k) == v for k, v in match.items())]


def _model(m: machines.Machine | None, fn: Callable[[machines.Machine], str]) -> str:
    """A datasheet-based model value, or NO_DATASHEET for a GPU perfmodel does not know."""
    if m is None:
        return NO_DATASHEET
    try:
        return fn(m)
    except ValueError:   # the machine lacks that unit or level
        return NO_DATASHEET


def _sms(result: dict, m: machines.Machine | None) -> int:
    return int(result.get("context", {}).get("sms") or result.get("params", {}).get("sms")
               or (m.sms if m else 0))


# ------------------------------------------------------------------------ the labs

def _paradox(r: dict) -> list[Row]:
    s, m = r["summary"], datasheet(r)
    predicted = {x.get("op"): x.get("predicted") for x in _rows(r, kind="breakeven")}

    # the toll each kind of operation paid, launched and waited for (the T4 note's rows)
    paid = {x.get("how"): x.get("seconds") for x in _rows(r, kind="launch")}

    def breakeven(op: str, make, sizes) -> str:
        if predicted.get(op) is not None:
            return f"n = {units.count(predicted[op])}"
        if m is not None and m.name == "T4":
            # the T4's host is the lab note's CPU: both machines as that note measured them,
            # the GPU paying the toll this kind of operation paid (chapter 1 does the same)
            toll = paid.get("sync (matmul)" if op == "matmul" else "sync")
            n = roofline.breakeven(make, sizes, machines.get("CPU"), machines.notes_t4(),
                                   fast_overhead=toll)
            return f"n = {units.count(n)}" if n else "never"
        return MEASURED_ONLY

    from .paradox import MATMUL_N

    adds = [1000] + [4 ** k for k in range(6, 15)]
    n_mm = _fmt(lambda n: f"n = {units.count(n)}", s.get("breakeven_matmul_n"))
    n_add = _fmt(lambda n: f"n = {units.count(n)}", s.get("breakeven_add_n"))
    return [
        Row("Launch toll: one small op launched and waited for", _fmt(units.seconds,
            s.get("launch_sync_s")), _model(m, lambda m: units.seconds(m.launch_overhead.value)),
            "model: the machine's launch toll in perfmodel"),
        Row("Per op, a thousand queued before one wait", _fmt(units.seconds,
            s.get("launch_queued_s")), MEASURED_ONLY),
        Row("Per op, replayed from a CUDA graph", _fmt(units.seconds, s.get("launch_graph_s")),
            MEASURED_ONLY),
        Row("Smallest n x n matmul from which the GPU stays faster than the CPU", n_mm,
            breakeven("matmul", ops.matmul, MATMUL_N),
            "model: t0 + max(F/P, D/B) for each machine, from its measured roofs"),
        Row("Smallest vector add (elements) from which the GPU stays faster than the CPU", n_add,
            breakeven("add", ops.vector_add, adds)),
    ]


def _intensity(r: dict) -> list[Row]:
    s, m = r["summary"], datasheet(r)
    sms, lanes, clock = _sms(r, m), s.get("fp32_lanes_per_sm"), s.get("fma_clock_hz")
    if sms and lanes and clock:
        at_clock = units.flops(clocks.peak(sms, int(lanes), clock))
        how = f"model: {sms} SMs x {int(lanes)} lanes x 2 x the clock it ran at"
    else:
        at_clock, how = MEASURED_ONLY, "the clock was not recorded"
    return [
        Row("DRAM bandwidth, device-to-device copy (bytes read + written)",
            _fmt(units.bandwidth, s.get("copy_bandwidth")),
            _model(m, lambda m: units.bandwidth(m.bandwidth("dram"))), "model: datasheet"),
        Row("The knob kernel streaming at k = 1", _fmt(units.bandwidth, s.get("stream_bandwidth")),
            _model(m, lambda m: units.bandwidth(m.bandwidth("dram"))), "model: datasheet"),
        Row("FP32 rate of the FMA kernel, held", _fmt(units.flops, s.get("fma_flops")),
            at_clock, how),
        Row("SM clock while it ran", _fmt(_hz, clock),
            _model(m, lambda m: _hz(m.clock_hz)), "model: datasheet boost clock"),
        Row("Ridge point (FLOP per byte)", _fmt(units.number, s.get("ridge_measured")),
            _model(m, lambda m: units.number(m.ridge("fp32"))),
            "model: datasheet FP32 peak over DRAM bandwidth"),
    ]


def _elementwise_share(r: dict) -> str | None:
    """The elementwise ops' mean share of the copy's slope (the book's measured copy of the
    GPU where it has one, else the run's own), or where a run gives only the
    lowest and highest shares (the T4 reference), that range."""
    copy = reference_copy(r) if measured_profile(r) is not None else None
    shares = [copy_share(x, copy) for x in _rows(r, kind="op")
              if x.get("op") in ("add", "ReLU", "multiply-add")] if copy else []
    shares = [x for x in shares if x is not None]
    if shares:      # judged against the book's measured copy of this GPU
        return units.percent(sum(shares) / len(shares))
    mean = r["summary"].get("elementwise_roof_fraction")
    if _num(mean):
        return units.percent(mean)
    ends = [x["fraction_of_roof"] for x in _rows(r, kind="op")
            if str(x.get("op", "")).startswith("elementwise (") and _num(x.get("fraction_of_roof"))]
    if len(ends) == 2:
        return f"{units.percent(min(ends))} to {units.percent(max(ends))}"
    return None


def _ops_on_roof(r: dict) -> list[Row]:
    """The run's FP16 burst and the element-wise ops' shares. The run's own copy and FMA
    rates are left out: they are this run's reference lines (drawn in its plot), and the
    page quotes the book's one measured H200 (``labs.machine_profile``) for those quantities."""
    from .ops_on_roof import datasheet_share

    s, m = r["summary"], datasheet(r)
    shares = [datasheet_share(x, m) for x in _rows(r, kind="op")
              if x.get("op") in ("add", "ReLU", "multiply-add")]
    shares = [x for x in shares if x is not None]
    return [
        Row("FP16 rate of the best matmul (tensor cores)",
            _fmt(units.flops, s.get("tensor_fp16_flops")),
            _model(m, lambda m: units.flops(m.peak_flops("fp16_tensor"))),
            "model: datasheet, dense; a short burst"),
        Row("Share of the datasheet bound, elementwise ops (add, ReLU, multiply-add)",
            units.percent(sum(shares) / len(shares)) if shares else None, units.percent(1.0),
            "the bound: the datasheet's bandwidth, which no correct kernel passes"),
        Row("Elementwise ops (add, ReLU, multiply-add): share of the copy's rate",
            _elementwise_share(r), units.percent(1.0),
            "the copy is a reference line, not a bound: above 100%, the op streamed "
            "faster than that copy"),
    ]


def _linear_batch(r: dict) -> list[Row]:
    from .linear_batch import D, model_bend

    s, m = r["summary"], datasheet(r)
    p16, copy = s.get("fp16_matmul_flops"), reference_copy(r)
    bend = model_bend(p16, copy) if _num(p16) and _num(copy) else None
    weights = s.get("weight_bandwidth")
    one = [x["seconds"] for x in _rows(r, kind="linear", batch=1) if _num(x.get("seconds"))]
    if not _num(weights) and one:   # a run that gives only its times (the T4 reference)
        weights = ops.linear(1, D, D, "fp16").bytes / one[0]
    return [
        Row("FP16 rate of a large matmul (tensor cores)", _fmt(units.flops, p16),
            _model(m, lambda m: units.flops(m.peak_flops("fp16_tensor"))),
            "model: datasheet, dense"),
        Row(f"Weights read per second at batch 1 ({D} x {D} FP16)",
            _fmt(units.bandwidth, weights),
            _model(m, lambda m: units.bandwidth(m.bandwidth("dram"))),
            "model: the datasheet's DRAM bandwidth, the bound, since batch 1 does little "
            "but read the weights"),
        Row("Batch where the layer turns compute-bound", _fmt(units.number,
            s.get("bend_batch_measured")),
            units.number(bend) if bend else MEASURED_ONLY,
            "model: where the layer's intensity meets the ridge of this run's FP16 "
            "matmul over the measured copy"),
    ]


def _fusion(r: dict) -> list[Row]:
    s = r["summary"]
    n = int(r.get("params", {}).get("n") or 2 ** 20)
    how = s.get("fused_with")

    def bytes_ratio(make, dtype: str) -> str:
        return units.ratio(make(n, fused=False, dtype=dtype).bytes
                           / make(n, fused=True, dtype=dtype).bytes)

    note = "model: bytes moved unfused over fused" + (f"; fused by {how}" if how else "")
    return [
        Row("relu(x*1.5+0.5), FP16: one fused kernel over three",
            _fmt(units.ratio, s.get("scale_shift_relu_speedup")),
            bytes_ratio(ops.scale_shift_relu, "fp16"), note),
        Row("sin(x)^2 + cos(x)^2, FP32: one fused kernel over five",
            _fmt(units.ratio, s.get("sin2_cos2_speedup")),
            bytes_ratio(ops.sin2_cos2, "fp32"), note),
    ]


def _pcie(r: dict) -> list[Row]:
    s, m = r["summary"], datasheet(r)
    pinned, n = s.get("pinned_bandwidth"), r.get("params", {}).get("n")
    add = next((x["seconds"] for x in _rows(r, kind="stage", stage="add on the GPU")), 0.0)
    best = (units.seconds(ops.pcie_round_trip_bytes(int(n)) / pinned + add)
            if _num(pinned) and n else MEASURED_ONLY)
    return [
        Row("Pinned host-to-device copy", _fmt(units.bandwidth, pinned),
            _model(m, lambda m: units.bandwidth(m.bandwidth("pcie"))),
            "model: perfmodel's host link for this GPU"),
        Row("Pageable host-to-device copy", _fmt(units.bandwidth, s.get("pageable_bandwidth")),
            MEASURED_ONLY),
        Row("Round trip of z = x + y, the naive way", _fmt(units.seconds,
            s.get("naive_round_trip_s")), MEASURED_ONLY),
        Row("Round trip, pinned memory and asynchronous copies", _fmt(units.seconds,
            s.get("best_round_trip_s")), best,
            "model: 12 bytes an element over the pinned copy's bandwidth, plus the add"),
        Row("The CPU doing the add itself", _fmt(units.seconds, s.get("cpu_add_s")),
            MEASURED_ONLY,
            "" if r["context"].get("reference") or "cpu_add" in r.get("params", {}) else
            "this run wrote a fresh 1 GB result each call, page faults included; the lab "
            "now adds into an output allocated once (chapter 5's lab note)"),
    ]


def _clocks(r: dict) -> list[Row]:
    s, m = r["summary"], datasheet(r)
    limit = r["context"].get("power_limit_w") or (m.power_limit_w if m else None)

    def at_clock(unit: str, clock) -> str:
        if not _num(clock):
            return MEASURED_ONLY
        return _model(m, lambda m: units.flops(m.with_clock(clock).peak_flops(unit)))

    boost = _model(m, lambda m: _hz(m.clock_hz))
    cap = _watts(limit) if _num(limit) else MEASURED_ONLY
    rows = []
    for label, unit, rate, clock, power in (
            ("FMA kernel (FP32 lanes)", "fp32", "fma_sustained_flops", "fma_clock_hz",
             "fma_power_w"),
            ("FP32 matmul (TF32 off)", "fp32", "matmul_fp32_flops", "matmul_fp32_clock_hz",
             None),
            ("FP16 matmul (tensor cores)", "fp16_tensor", "tensor_fp16_flops", "tensor_clock_hz",
             "tensor_power_w")):
        rows.append(Row(f"{label}, held for seconds: rate", _fmt(units.flops, s.get(rate)),
                        at_clock(unit, s.get(clock)),
                        "model: datasheet peak scaled to the clock it ran at"))
        rows.append(Row(f"{label}: SM clock", _fmt(_hz, s.get(clock)), boost,
                        "model: datasheet boost clock"))
        if power:
            rows.append(Row(f"{label}: board power", _fmt(_watts, s.get(power)), cap,
                            "model: at most the power limit"))
    rows += [
        Row("Highest SM clock the card reports", _fmt(_hz, s.get("max_sm_clock_hz")), boost,
            "model: datasheet boost clock"),
        Row("SM clock at a burst's first matmul, after idling",
            _fmt(_hz, s.get("burst_clock_hz_after_idle")), MEASURED_ONLY),
        Row("SM clock at a burst's first matmul, after streaming memory",
            _fmt(_hz, s.get("burst_clock_hz_after_stream")), MEASURED_ONLY),
    ]
    return rows


def _divergence(r: dict) -> list[Row]:
    s = r["summary"]
    out = []
    for split, key, words in (("within", "within_warp_slowdown", "split through every warp"),
                              ("between", "between_warp_slowdown", "split between warps")):
        for p in (2, 4, 8):
            out.append(Row(f"{p} paths {words}: time over one path",
                           _fmt(units.ratio, s.get(key, {}).get(str(p))),
                           units.ratio(simt.divergence_passes(p, split)),
                           "model: passes each warp makes" if p == 2 else ""))
    out.append(Row("One busy thread in 32: time over every thread busy",
                   _fmt(units.ratio, s.get("one_in_32_vs_all")),
                   units.ratio(simt.busy_warp_fraction(32)),
                   "model: share of warps holding a busy thread"))
    return out


def _latency(r: dict) -> list[Row]:
    s = r["summary"]
    ns, cyc = s.get("latency_ns", {}), s.get("latency_cycles", {})

    def both(level: str) -> str | None:
        if not _num(ns.get(level)):
            return None
        text = units.seconds(ns[level] * 1e-9)
        return text + (f" ({units.number(cyc[level])} cycles)" if _num(cyc.get(level)) else "")

    note = "the staircase model takes its steps from these plateaus"
    return [Row("One dependent load served by the L1", both("l1"), MEASURED_ONLY, note),
            Row("One dependent load served by the L2", both("l2"), MEASURED_ONLY),
            Row("One dependent load served by DRAM", both("dram"), MEASURED_ONLY)]


def _littles_law(r: dict) -> list[Row]:
    s, m = r["summary"], datasheet(r)
    sat = s.get("saturation_bandwidth")
    idle = next((x["latency_ns"] for x in _rows(r, experiment="idle_latency")
                 if _num(x.get("latency_ns"))), None)
    law = (units.nbytes(little.bytes_in_flight(sat, idle * 1e-9))
           if _num(sat) and _num(idle) else MEASURED_ONLY)
    return [
        Row("Streaming read at saturation (bytes read per second)", _fmt(units.bandwidth, sat),
            _model(m, lambda m: units.bandwidth(m.bandwidth("dram"))),
            "model: datasheet DRAM bandwidth"),
        Row("Latency of one load on an idle GPU", _fmt(lambda x: units.seconds(x * 1e-9), idle),
            MEASURED_ONLY, "this lab's own pointer chase, the law's latency"),
        Row("Bytes in flight that reach 90% of saturation",
            _fmt(units.nbytes, s.get("bytes_in_flight_at_saturation")), law,
            "model: Little's law, saturation bandwidth x idle latency"),
        Row("Every warp on one SM: its best bandwidth", _fmt(units.bandwidth,
            s.get("one_sm_bandwidth")), MEASURED_ONLY),
    ]


def _coalescing(r: dict) -> list[Row]:
    from .coalescing import PLACEMENTS

    s, m = r["summary"], datasheet(r)
    by = s.get("useful_bandwidth_by_stride", {})
    out = []
    for place, words in (("l2", "the L2"), ("dram", "DRAM")):
        bw = by.get(place, {})
        level = _model(m, lambda m: units.bandwidth(m.bandwidth(place)))
        out.append(Row(f"From {words}, stride\u00a01: useful bandwidth",
                       _fmt(units.bandwidth, bw.get("1")),
                       MEASURED_ONLY if level == NO_DATASHEET and place == "l2" else level,
                       "model: datasheet" if place == "dram" else ""))
        for stride in (2, 8, 16, 32):
            share = (bw[str(stride)] / bw["1"]
                     if _num(bw.get(str(stride))) and _num(bw.get("1")) else None)
            out.append(Row(f"From {words}, stride\u00a0{stride}: share of stride\u00a01",
                           _fmt(units.percent, share),
                           units.percent(simt.useful_fraction(stride, 4, PLACEMENTS[place])),
                           f"model: the 128 bytes a warp asks for over the "
                           f"{PLACEMENTS[place]}-byte pieces it touches" if stride == 2 else ""))
    frac = hierarchy.gather_fraction(4.0, 4.0, PLACEMENTS["dram"])
    stride1 = by.get("dram", {}).get("1")
    if _num(stride1):       # the same run's coalesced read, as the lab's own prediction
        gather_model = units.bandwidth(stride1 * frac)
        basis = "model: this run's stride-1 DRAM read x 8 useful bytes of 68 moved"
    else:
        gather_model = _model(m, lambda m: units.bandwidth(m.bandwidth("dram") * frac))
        basis = "model: datasheet DRAM x 8 useful bytes of 68 moved"
    out.append(Row("Random gather x[idx[i]]: useful bandwidth (index and value)",
                   _fmt(units.bandwidth, s.get("gather_bandwidth")), gather_model, basis))
    return out


def _waves(r: dict) -> list[Row]:
    from .waves import model_fraction

    s, m, par = r["summary"], datasheet(r), r.get("params", {})
    unit = "bf16_tensor" if s.get("dtype") == "bfloat16" else "fp16_tensor"
    sms = _sms(r, m)
    fine = sorted((x for x in r.get("rows", []) if x.get("sweep") == "fine"
                   and x.get("layout") == "packed"), key=lambda x: x["n"])
    eights = [x for x in fine if x["n"] % 8 == 0]

    def spread(rows) -> tuple[str | None, str]:
        if len(rows) < 2:
            return None, MEASURED_ONLY
        rates = [x["flops"] for x in rows]
        model = [model_fraction(x["n"], sms) for x in rows] if sms else None
        return (units.ratio(max(rates) / min(rates)),
                units.ratio(max(model) / min(model)) if model else MEASURED_ONLY)

    lo, hi = (fine[0]["n"], fine[-1]["n"]) if fine else (None, None)
    span = f" (n = {units.count(lo)} to {units.count(hi)})" if fine else ""
    all_m, all_model = spread(fine)
    e_m, e_model = spread(eights)
    words = "BF16" if unit == "bf16_tensor" else "FP16"
    tile = par.get("tile") or [256, 128]
    return [
        Row(f"Best {words} matmul rate in the sweeps", _fmt(units.flops, s.get("best_flops")),
            _model(m, lambda m: units.flops(m.peak_flops(unit))), "model: datasheet, dense"),
        Row(f"Fine sweep{span}: fastest n over slowest", all_m or _fmt(
            units.ratio, s.get("fine_sweep_max_over_min")), all_model,
            f"model: {tile[0]} x {tile[1]} tiles, one per SM; n off a multiple of 8 also "
            "loses the library's fastest kernels, which the model leaves out"),
        Row("The same, multiples of 8 only", e_m, e_model),
    ]


def _attention(r: dict) -> list[Row]:
    s, m, par = r["summary"], datasheet(r), r.get("params", {})
    d, b, h = int(par.get("head_dim", 64)), int(par.get("batch", 1)), int(par.get("heads", 16))
    seqs = sorted({int(k) for part in ("naive_peak_bytes", "sdpa_peak_bytes", "speedup")
                   for k in s.get(part, {})})
    shown = sorted({seqs[0], seqs[len(seqs) // 2], seqs[-1]}) if seqs else []

    def speedup(seq: int) -> str:
        def ratio(m):
            naive = roofline.time(m, ops.attention(seq, d, flash=False, dtype="fp16", heads=h),
                                  unit="fp16_tensor")
            fused = roofline.time(m, ops.attention(seq, d, flash=True, dtype="fp16", heads=h),
                                  unit="fp16_tensor")
            return units.ratio(naive / fused)
        return _model(m, ratio)

    out = []
    for seq in shown:
        k, sl = str(seq), f"S = {units.count(seq)}"
        out += [
            Row(f"{sl}: naive attention's extra memory", _fmt(units.nbytes,
                s.get("naive_peak_bytes", {}).get(k)),
                units.nbytes(hierarchy.attention_extra_bytes(seq, d, b, h, 2, flash=False)),
                "model: the S x S scores and probabilities, plus the output"
                if seq == shown[0] else ""),
            Row(f"{sl}: fused SDPA's extra memory", _fmt(units.nbytes,
                s.get("sdpa_peak_bytes", {}).get(k)),
                units.nbytes(hierarchy.attention_extra_bytes(seq, d, b, h, 2, flash=True)),
                "model: the output and one float a row" if seq == shown[0] else ""),
            Row(f"{sl}: fused over naive, speed-up", _fmt(units.ratio,
                s.get("speedup", {}).get(k)), speedup(seq),
                "model: roofline times on the datasheet machine" if seq == shown[0] else ""),
        ]
    return out


#: Every lab drawn through :class:`labs.display.LabView`, with its readout.
READOUTS: dict[str, Readout] = {
    "paradox": Readout(_paradox, "Look at the launch toll and the break-even sizes: a GPU "
                       "wins only once an operation is large enough to hide the toll of "
                       "its launch."),
    "intensity": Readout(_intensity, "Look at the FMA rate beside SMs x lanes x 2 x the clock "
                         "it ran at, and the copy beside the datasheet: those two measured "
                         "roofs set the ridge where the knob's time starts to rise."),
    "ops_on_roof": Readout(_ops_on_roof, "Look at the elementwise ops: with almost no "
                           "arithmetic they stream at about the copy's rate, while the measured "
                           "rates sit below the datasheet's bounds."),
    "linear_batch": Readout(_linear_batch, "Look at the batch where the layer turns "
                            "compute-bound: below it, extra inputs ride on weights already "
                            "read, so they cost almost nothing."),
    "fusion": Readout(_fusion, "Look at each speed-up beside the ratio of bytes: fusing "
                      "saves the trips to memory, and that ratio bounds what it can win."),
    "pcie": Readout(_pcie, "Look at the round trips beside the CPU's own add: for one FLOP "
                    "in 12 bytes, crossing the host link costs more than doing the work."),
    "clocks": Readout(_clocks, "Look at each held rate beside the datasheet peak scaled to "
                      "the clock it ran at: where they agree, the gap to the datasheet is the "
                      "clock, and the clock is set by power."),
    "divergence": Readout(_divergence, "Look at the two splits: paths dealt through every "
                          "warp cost one pass each, paths given to whole warps cost nothing "
                          "extra."),
    "latency": Readout(_latency, "Look at the steps from one level to the next: each load "
                       "that misses a level waits several times longer, and nothing here "
                       "overlaps them."),
    "littles_law": Readout(_littles_law, "Look at the bytes in flight beside Little's law: "
                           "the memory saturates only once bandwidth x latency bytes are on "
                           "order, and in practice more, since a busy memory answers more "
                           "slowly than an idle one."),
    "coalescing": Readout(_coalescing, "Look at the shares of stride 1 beside the model: "
                          "the waste stops growing once every lane has a piece of its own, "
                          "32-byte sectors in the L2 and 64-byte bursts from DRAM."),
    "waves": Readout(_waves, "Look at the two spreads: among multiples of 8 the steps come "
                     "from tiles and waves; the whole sweep's spread is mostly the library "
                     "leaving its fastest kernels, which the tile model does not know."),
    "attention": Readout(_attention, "Look at how each memory grows with S: the naive "
                         "kernel's as S squared, the fused kernel's in step with S."),
}
#: Labs that draw their own readers' tables (their module's ``show``), not through READOUTS.
OWN_TABLES = {"profile": "labs.profile.table: one table a lesson, the model under each counter",
              "comm": "labs.comm_display.table_html: each link's best rate beside its roof"}


# -------------------------------------------------------------------------- the table

#: Inline styles, so the table reads the same on the site, in Jupyter and in Colab:
#: values stay on one line; notes are muted by opacity, which follows light and dark.
_NOWRAP = ' style="white-space: nowrap"'
_MUTED = ' style="opacity: 0.75"'


def _label(result: dict) -> str:
    ctx = result["context"]
    name = str(ctx.get("gpu_name", "GPU"))
    if ctx.get("reference"):
        return f"{name} (reference)"
    date = str(ctx.get("date", ""))[:10]
    return f"{name}, {date}" if date else name


def _label_html(result: dict) -> str:
    """The run's label for a column head, its date kept on one line."""
    head, _, date = _label(result).rpartition(", ")
    if not head or result["context"].get("reference"):
        return html.escape(_label(result))
    return f"{html.escape(head)}, <span{_NOWRAP}>{html.escape(date)}</span>"


def table_html(name: str, results: list[dict]) -> str:
    """The readout of lab ``name`` for its runs, side by side (results[0] the run shown, the
    rest references): one row per figure, a measured and a model column per run, the
    sentence on what to look at as the caption. A reference without a figure leaves its
    cells empty and marked; a reference with none of the figures gets no columns."""
    if name not in READOUTS:
        raise ValueError(f"name must be a lab with a readout ({', '.join(READOUTS)}); "
                         f"got {name!r}")
    if not results:
        raise ValueError("results must hold at least one run")
    readout = READOUTS[name]
    per_run = [{row.name: row for row in readout.rows(r)} for r in results]
    order = list(dict.fromkeys(n for rows in per_run for n in rows))
    keep = [i for i, rows in enumerate(per_run)
            if i == 0 or any(row.measured is not None for row in rows.values())]
    dropped = [_label(results[i]) for i in range(len(results)) if i not in keep]
    order = [n for n in order if any(n in per_run[i] and per_run[i][n].measured is not None
                                     for i in keep)]
    missing: list[str] = []
    body, seen = [], set()
    for n in order:
        notes = [x for x in dict.fromkeys(per_run[i][n].note for i in keep
                                          if n in per_run[i] and per_run[i][n].note)
                 if x not in seen]    # a note is said once a table, at its first row
        seen.update(notes)
        head = html.escape(n) + "".join(f"<br><small{_MUTED}>{html.escape(x)}</small>"
                                        for x in notes)
        cells = ""
        for i in keep:
            row = per_run[i].get(n)
            if row is None or row.measured is None:
                missing.append(_label(results[i]))
                cells += ('<td class="book-empty" title="no figure in this run">*</td>'
                          '<td class="book-empty"></td>')
                continue
            model = html.escape(row.model)
            if row.model in (MEASURED_ONLY, NO_DATASHEET):
                model = f"<em>{model}</em>"
            cells += f"<td{_NOWRAP}>{html.escape(row.measured)}</td><td{_NOWRAP}>{model}</td>"
        body.append(f"<tr><td>{head}</td>{cells}</tr>")
    top = "".join(f'<th colspan="2">{_label_html(results[i])}</th>' for i in keep)
    sub = "<th>measured</th><th>model</th>" * len(keep)
    foot = []
    if missing:
        foot.append(f"* No figure for that row in the {' or '.join(dict.fromkeys(missing))} "
                    "run.")
    if dropped:
        foot.append(f"The {' and '.join(dropped)} run records none of these figures.")
    # the footnote is a row of the table, so it takes the table's colours in light and dark
    foot_html = (f'<tfoot><tr><td colspan="{1 + 2 * len(keep)}"><small{_MUTED}>'
                 f'{html.escape(" ".join(foot))}</small></td></tr></tfoot>' if foot else "")
    return ('<div class="book-table book-readout"><table class="table"><caption>'
            + html.escape(readout.look) + "</caption><thead><tr><th rowspan=\"2\">quantity</th>"
            + top + "</tr><tr>" + sub + "</tr></thead><tbody>" + "".join(body)
            + "</tbody>" + foot_html + "</table></div>")


def staircase_figures(results_dir=None) -> dict:
    """The memory staircase's recorded figures, as :func:`widgets.diagrams.memory_staircase`
    takes them, keyed by the datasheet machine each run was measured on: ``latencies``
    {machine: {level: seconds}} from the latency lab (one dependent load served by that
    level) and ``bandwidths`` {machine: {level: byte/s}} from the coalescing lab (stride-1
    reads from a buffer that stays in the L2 and from one that cannot). A real run comes
    before a reference set of the same GPU (:func:`labs.results.list_recorded`'s order)."""
    from .results import list_recorded

    found: dict = {"latencies": {}, "bandwidths": {}}
    for key, lab, pick in (
            ("latencies", "latency",
             lambda s: {k: v * 1e-9 for k, v in s.get("latency_ns", {}).items()}),
            ("bandwidths", "coalescing",
             lambda s: {k: v["1"] for k, v in s.get("useful_bandwidth_by_stride", {}).items()
                        if "1" in v})):
        for r in list_recorded(lab, results_dir):
            m = datasheet(r)
            figures = {k: v for k, v in pick(r.get("summary", {})).items() if _num(v) and v > 0}
            if m is not None and figures and m.name not in found[key]:
                found[key][m.name] = figures
    return found
