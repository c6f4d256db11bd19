"""What the profiler says: Nsight Compute's counters on the Part II kernels, beside the model.

What it isolates: the mechanism each lab infers from a time, read directly off the
hardware's counters. Small launches of the labs' own kernels (:mod:`labs.profile_worker`)
run under ``ncu``, one lesson at a time, one profiled launch per case:

- ``simt`` (the divergence lab): active lanes per instruction, split through every warp
  or between warps, and with one busy thread in k;
- ``latency`` (the latency and Little's-law labs): the lone pointer chaser, and the
  streaming read at 2 to 64 warps per SM: achieved occupancy, and the DRAM bandwidth
  those warps' bytes in flight buy;
- ``memory`` (the coalescing lab): sectors per load request and DRAM bytes per value
  read against the stride, the gathers, and a set that lives in the L2 beside one that
  streams from DRAM (the staircase);
- ``compute`` (the intensity lab): FMA-pipe utilisation and DRAM throughput for the
  FMA-peak kernel and the intensity knob on either side of the ridge.

What the model predicts (perfmodel): 32/P lanes per instruction (``simt.active_lanes``),
32/k with one busy thread in k up to 32 (``simt.busy_lanes_per_busy_warp``); the sectors
a warp's request touches at stride s (``simt.sectors``) and the bytes DRAM moves per value
in 64-byte bursts (``simt.useful_fraction``, ``hierarchy.gather_fraction``); the occupancy
a launch shape and its registers allow (``simt.launch_occupancy``, ``simt.occupancy``);
Little's law for the bandwidth (``little.achieved_bandwidth`` with the recorded idle
latency and saturation of the Little's-law lab); and the roofline with the recorded
measured roofs of the intensity lab for the FMA pipe and the DRAM.

Where ``ncu`` is missing or may not read the counters, :func:`run` raises
:class:`labs.ncu.NcuUnavailable` with one sentence and :func:`show` falls back to the
counters recorded on the H200. Every row records the exact ncu metrics it was computed
from; the result's context records ncu's version.
"""
from __future__ import annotations

import html
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

from perfmodel import access, hierarchy, little, machines, roofline, simt

from . import common, ncu
from .results import list_recorded, load

LESSONS = ("simt", "latency", "memory", "compute")
#: Lessons run only when named, each recorded apart (EXTRA_RECORDS): the naive and the tiled
#: transpose, where the cost of scattered stores shows (sectors from L1 to the L2); and the
#: latency lesson's kernels again with what the warp schedulers did (``stalls``).
EXTRA_LESSONS = ("transpose", "stalls")
#: The record an extra lesson is kept in (labs/results/<gpu>/<name>.json).
EXTRA_RECORDS = {"transpose": "profile_transpose", "stalls": "profile_stalls"}
ALL_LESSONS = LESSONS + EXTRA_LESSONS
#: What a warp scheduler does while its warps wait on DRAM (Nsight Compute's Scheduler and
#: Warp State sections): {counter: the ncu metric it is}.
STALL_METRICS = {
    "issue_share": "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "ready_warps": "smsp__warps_eligible.avg.per_cycle_active",
    "load_wait_cycles": "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
}
#: ncu metrics each lesson collects (exact names, as passed to ``ncu --metrics``).
COMMON_METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.avg.per_second",
                  "launch__registers_per_thread")
METRICS = {
    "simt": ("smsp__inst_executed.sum", "smsp__thread_inst_executed.sum",
             "smsp__thread_inst_executed_per_inst_executed.ratio"),
    "latency": ("smsp__inst_executed.sum", "smsp__thread_inst_executed.sum",
                "sm__warps_active.avg.pct_of_peak_sustained_active",
                "sm__maximum_warps_per_active_cycle_pct",
                "dram__bytes_read.sum", "dram__bytes_read.sum.per_second"),
    "memory": ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
               "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
               "lts__t_sectors_srcunit_tex_op_read.sum",
               "dram__bytes_read.sum", "dram__bytes_read.sum.per_second",
               "lts__t_bytes.sum.per_second",
               "dram__throughput.avg.pct_of_peak_sustained_elapsed",
               "lts__throughput.avg.pct_of_peak_sustained_elapsed",
               "dram__bytes.sum.peak_sustained", "dram__cycles_elapsed.avg.per_second"),
    "compute": ("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
                "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
                "sm__inst_executed_pipe_fma.sum",
                "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "sm__cycles_elapsed.avg",
                "dram__bytes.sum", "dram__bytes.sum.per_second",
                "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                "dram__bytes.sum.peak_sustained", "dram__cycles_elapsed.avg.per_second"),
    "transpose": ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
                  "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                  "lts__t_sectors_srcunit_tex_op_write.sum",
                  "dram__bytes_read.sum", "dram__bytes_write.sum",
                  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                  "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                  "smsp__inst_executed_op_shared_ld.sum"),
}
METRICS["stalls"] = METRICS["latency"] + tuple(STALL_METRICS.values())
#: Counters, in the order the tables list them: (plain name, unit of the value).
COUNTERS = {
    "lanes_per_instruction": ("active lanes per instruction", "lanes"),
    "achieved_occupancy": ("achieved occupancy", "fraction"),
    "occupancy_limit": ("occupancy the launch allows", "fraction"),
    "dram_bandwidth": ("DRAM bandwidth", "byte/s"),
    "sectors_per_request": ("sectors per load request", "sectors"),
    "dram_bytes_per_value": ("DRAM bytes per value read", "byte"),
    "dram_throughput": ("DRAM throughput, share of peak", "fraction"),
    "l2_throughput": ("L2 throughput, share of peak", "fraction"),
    "fma_pipe_busy": ("FMA pipe busy", "fraction"),
    "fma_lane_use": ("FP32 lanes doing FMAs", "fraction"),
    "store_sectors_per_request": ("sectors per store request", "sectors"),
    "l2_store_sectors": ("store sectors sent from L1 to the L2", "count"),
    "dram_bytes_read": ("DRAM bytes read", "byte"),
    "dram_bytes_written": ("DRAM bytes written", "byte"),
    "kernel_time": ("kernel time", "s"),
    "shared_load_passes": ("shared-memory passes per load request", "passes"),
    "issue_share": ("cycles a scheduler issued an instruction", "fraction"),
    "ready_warps": ("warps ready to issue, per scheduler per cycle", "warps"),
    "load_wait_cycles": ("warp cycles spent waiting on a load, per instruction issued", "cycles"),
}
#: Which counters each lesson's table shows.
TABLE_COUNTERS = {
    "simt": ("lanes_per_instruction",),
    # (every warp runs all 32 lanes here: the lanes column said nothing in chapter 7)
    "latency": ("achieved_occupancy", "dram_bandwidth"),
    "memory": ("sectors_per_request", "dram_bytes_per_value", "dram_throughput",
               "l2_throughput"),
    "compute": ("fma_pipe_busy", "fma_lane_use", "dram_bandwidth", "dram_throughput"),
    "transpose": ("kernel_time", "store_sectors_per_request", "l2_store_sectors",
                  "dram_bytes_read", "dram_bytes_written", "shared_load_passes"),
    "stalls": ("achieved_occupancy", "issue_share", "ready_warps", "load_wait_cycles",
               "dram_bandwidth"),
}
#: The summary of a run of LESSONS (a run of EXTRA_LESSONS summarises their own counters).
SUMMARY_KEYS = ("ncu_version",) + tuple(
    c for c in COUNTERS if c not in TABLE_COUNTERS["transpose"] and c not in STALL_METRICS)
#: Seconds one lesson's ncu run may take before it is stopped.
LESSON_TIMEOUT_S = 240
ROOT = pathlib.Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ the model's inputs

def references(gpu_slug: str) -> dict:
    """Recorded results of this GPU the model reads its measured inputs from: the
    intensity lab (roofs), the Little's-law lab (idle latency, saturation). Missing ones
    are left out (their rows then carry no prediction)."""
    out = {}
    for lab in ("intensity", "littles_law"):
        try:
            out[lab] = load(lab, gpu_slug)
        except ValueError:
            pass
    return out


def machine_for(gpu_slug: str):
    """perfmodel's datasheet machine of this GPU (SM count, register file, thread limit),
    or None for a GPU perfmodel does not know."""
    try:
        return machines.get(gpu_slug)
    except ValueError:
        return None


def _little_inputs(refs: dict) -> tuple[float, float] | None:
    r = refs.get("littles_law")
    row = next((x for x in r["rows"] if x.get("experiment") == "model"), None) if r else None
    return (row["latency_s"], row["saturation_bandwidth"]) if row else None


def _roofs(refs: dict):
    r = refs.get("intensity")
    return machines.from_results(r) if r else None


def predictions(case: dict, machine, refs: dict, sms: int | None = None) -> dict:
    """The model's value for each counter of one profiled case, with a few words on where
    it comes from: {counter: (value, basis)}. Counters the model says nothing about, or
    whose inputs are missing, are absent."""
    out: dict = {}
    lesson = case["lesson"]
    regs = case.get("registers_per_thread")
    if lesson == "simt":
        if "paths" in case:
            p, split = case["paths"], case["split"]
            out["lanes_per_instruction"] = (
                simt.active_lanes(p, split),
                f"32 lanes / {simt.divergence_passes(p, split)} pass"
                + ("es" if simt.divergence_passes(p, split) > 1 else ""))
        else:
            out["lanes_per_instruction"] = (simt.busy_lanes_per_busy_warp(case["k"]),
                                            f"32 / {case['k']} busy lanes a warp")
    elif lesson in ("latency", "stalls"):
        if machine is not None and regs:
            out["achieved_occupancy"] = (
                simt.launch_occupancy(machine, case["blocks"], case["block"], regs),
                "warps per SM the launch puts there / 64")
            # the theoretical occupancy: a block of one thread meets the SM's block slots
            limiter = simt.occupancy_limiter(machine, regs, case["block"])
            out["occupancy_limit"] = (simt.occupancy(machine, regs, case["block"]),
                                      f"{regs} registers a thread, blocks of {case['block']}: "
                                      f"the {limiter} limit binds")
        if "steps" in case:
            out["lanes_per_instruction"] = (1.0, "one thread")
        else:
            out["lanes_per_instruction"] = (32.0, "no branch splits a warp")
        inputs = _little_inputs(refs)
        if "warps_per_sm" in case and inputs and sms:
            latency_s, peak = inputs
            flight = little.in_flight(case["warps_per_sm"] * sms, case["loads_per_thread"],
                                      case["load_bytes"])
            out["dram_bandwidth"] = (little.achieved_bandwidth(flight, latency_s, peak),
                                     f"min(saturation, {flight / 2 ** 20:.2f} MiB in flight "
                                     f"/ {latency_s * 1e9:.0f} ns)")
    elif lesson == "memory":
        if "stride" in case:
            s = case["stride"]
            out["sectors_per_request"] = (float(simt.sectors(s, 4, 32)),
                                          f"32 lanes {4 * s} bytes apart, 32-byte sectors")
            if case["placement"] == "dram":
                out["dram_bytes_per_value"] = (4.0 / simt.useful_fraction(s, 4, 64),
                                               "64-byte bursts a request touches / 32")
                roofs = _roofs(refs)
                if s == 1 and roofs is not None:
                    b = roofs.bandwidth("dram")
                    out["dram_bandwidth"] = (b, "the copy bandwidth (intensity lab)")
            else:
                out["dram_bytes_per_value"] = (case["buffer_bytes"] / case["positions"],
                                               "the set read once from DRAM, then the L2")
        else:
            seq = case["order"] == "sequential"
            other = simt.sectors(1, 4, 32) if seq else simt.sectors("random", 4, 32)
            out["sectors_per_request"] = ((simt.sectors(1, 4, 32) + other) / 2,
                                          "index request and value request, averaged")
            moved = 8.0 if seq else 8.0 / hierarchy.gather_fraction(4, 4, 64)
            out["dram_bytes_per_value"] = (moved, "4-byte index + 4-byte value" if seq
                                           else "4-byte index + a 64-byte burst")
    elif lesson == "transpose":
        naive = "naive" in case.get("case", "")
        if not naive:
            pad = 32 if "unpadded" in case.get("case", "") else 33
            out["shared_load_passes"] = (float(access.padded_column_ways(pad)),
                                         f"a column of a 32 x {pad} float tile")
        per_req = float(simt.sectors(case["side"], 4, 32) if naive else simt.sectors(1, 4, 32))
        out["store_sectors_per_request"] = (
            per_req, "32 lanes a row apart: a sector each" if naive
            else "32 lanes on consecutive floats: 128 bytes")
        out["l2_store_sectors"] = (case["elements"] / 32 * per_req,
                                   "a request per 32 values stored x sectors a request")
        out["dram_bytes_read"] = (float(case["bytes"]), "the matrix, read once")
        out["dram_bytes_written"] = (float(case["bytes"]), "the result, written once")
    elif lesson == "compute":
        roofs = _roofs(refs)
        if roofs is not None:
            p, b = roofs.peak_flops("fp32"), roofs.bandwidth("dram")
            if "intensity" in case:
                i = case["intensity"]
                out["fma_pipe_busy"] = (roofline.attainable(roofs, i) / p,
                                        f"min(1, {i:g} / ridge {p / b:.1f}) FLOP/byte")
                out["fma_lane_use"] = out["fma_pipe_busy"]
                out["dram_bandwidth"] = (roofline.attainable(roofs, i) / i,
                                         "min(copy bandwidth, FMA peak / intensity)")
            else:
                out["fma_pipe_busy"] = (1.0, "compute-bound: an FMA every cycle")
                out["fma_lane_use"] = out["fma_pipe_busy"]
    return out


# ------------------------------------------------------------------ what ncu counted

def _get(kernel: dict, name: str):
    return kernel["metrics"].get(name)


def _div(a, b):
    return a / b if a is not None and b else None


def measurements(case: dict, kernel: dict, sms: int | None) -> dict:
    """The counters of one profiled launch: {counter: (value, ncu metric formula)}.
    ``kernel`` is one entry of :func:`labs.ncu.parse_csv` (metrics in SI units)."""
    g = lambda name: _get(kernel, name)  # noqa: E731
    out: dict = {}
    inst, tinst = g("smsp__inst_executed.sum"), g("smsp__thread_inst_executed.sum")
    if _div(tinst, inst) is not None:
        out["lanes_per_instruction"] = (tinst / inst, "smsp__thread_inst_executed.sum / "
                                        "smsp__inst_executed.sum")
    if g("sm__warps_active.avg.pct_of_peak_sustained_active") is not None:
        out["achieved_occupancy"] = (g("sm__warps_active.avg.pct_of_peak_sustained_active"),
                                     "sm__warps_active.avg.pct_of_peak_sustained_active")
    if g("sm__maximum_warps_per_active_cycle_pct") is not None:
        out["occupancy_limit"] = (g("sm__maximum_warps_per_active_cycle_pct"),
                                  "sm__maximum_warps_per_active_cycle_pct")
    req = g("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
    sec = g("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
    if _div(sec, req) is not None:
        out["sectors_per_request"] = (sec / req, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
                                      " / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
    if "positions" in case and g("dram__bytes_read.sum") is not None:
        out["dram_bytes_per_value"] = (g("dram__bytes_read.sum") / case["positions"],
                                       "dram__bytes_read.sum / values read")
    if case["lesson"] == "compute" and g("dram__bytes.sum.per_second") is not None:
        out["dram_bandwidth"] = (g("dram__bytes.sum.per_second"), "dram__bytes.sum.per_second")
    elif g("dram__bytes_read.sum.per_second") is not None:
        out["dram_bandwidth"] = (g("dram__bytes_read.sum.per_second"),
                                 "dram__bytes_read.sum.per_second")
    for counter, metric in STALL_METRICS.items():
        if g(metric) is not None:
            out[counter] = (g(metric), metric)
    if g("dram__throughput.avg.pct_of_peak_sustained_elapsed") is not None:
        out["dram_throughput"] = (g("dram__throughput.avg.pct_of_peak_sustained_elapsed"),
                                  "dram__throughput.avg.pct_of_peak_sustained_elapsed")
    if g("lts__throughput.avg.pct_of_peak_sustained_elapsed") is not None:
        out["l2_throughput"] = (g("lts__throughput.avg.pct_of_peak_sustained_elapsed"),
                                "lts__throughput.avg.pct_of_peak_sustained_elapsed")
    if g("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active") is not None:
        out["fma_pipe_busy"] = (g("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"),
                                "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active")
    if case["lesson"] == "transpose":
        sreq = g("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")
        ssec = g("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
        if _div(ssec, sreq) is not None:
            out["store_sectors_per_request"] = (
                ssec / sreq, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum / "
                "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")
        for counter, metric in (("l2_store_sectors", "lts__t_sectors_srcunit_tex_op_write.sum"),
                                ("dram_bytes_read", "dram__bytes_read.sum"),
                                ("dram_bytes_written", "dram__bytes_write.sum"),
                                ("kernel_time", "gpu__time_duration.sum")):
            if g(metric) is not None:
                out[counter] = (g(metric), metric)
        # wavefronts are the passes the shared memory made; one warp instruction, one request
        waves = g("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")
        inst = g("smsp__inst_executed_op_shared_ld.sum")
        if waves and inst:
            out["shared_load_passes"] = (
                waves / inst, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum / "
                "smsp__inst_executed_op_shared_ld.sum")
    ffma = g("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum")
    cycles = g("sm__cycles_elapsed.avg")
    if ffma is not None and cycles and sms:
        lanes = common.fp32_lanes_per_sm(case.get("compute_capability", "9.0"))
        out["fma_lane_use"] = (ffma / (sms * lanes * cycles),
                               f"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum / "
                               f"({sms} SMs x {lanes} lanes x sm__cycles_elapsed.avg)")
    return out


def dram_peak(kernel: dict) -> float | None:
    """ncu's DRAM peak in byte/s: bytes per DRAM cycle at peak x DRAM cycles per second."""
    a = _get(kernel, "dram__bytes.sum.peak_sustained")
    b = _get(kernel, "dram__cycles_elapsed.avg.per_second")
    return a * b if a and b else None


#: Fields of a row that are not the profiled case's own parameters.
ROW_FIELDS = ("counter", "unit", "measured", "predicted", "ratio", "metric", "basis",
              "ncu_kernel", "duration_s", "sm_clock_hz", "ncu_registers_per_thread",
              "dram_peak")


def predict_rows(rows: list[dict], machine, refs: dict, sms: int | None) -> list[dict]:
    """Set ``predicted``, ``basis`` and ``ratio`` of every row from the model, using the
    case parameters each row carries (so a recorded run can be set against a revised
    model without the GPU; the measured values are left as they are)."""
    out = []
    for row in rows:
        case = {k: v for k, v in row.items() if k not in ROW_FIELDS}
        pred = predictions(case, machine, refs, sms)
        if "dram_bandwidth" in pred and row.get("dram_peak"):
            pred["dram_throughput"] = (pred["dram_bandwidth"][0] / row["dram_peak"],
                                       f"predicted bandwidth / ncu's DRAM peak "
                                       f"({row['dram_peak'] / 1e12:.2f} TB/s)")
        p, basis = pred.get(row["counter"], (None, None))
        out.append({**row, "predicted": p, "basis": basis, "ratio": _div(row["measured"], p)})
    return out


def rows_for(case: dict, kernel: dict, machine, refs: dict, sms: int | None) -> list[dict]:
    """One row per counter of one profiled launch: measured, predicted, their ratio, the
    ncu metrics it came from and the model's basis."""
    meas = measurements(case, kernel, sms)
    params = {k: v for k, v in case.items() if k not in ROW_FIELDS}
    rows = []
    for counter in COUNTERS:
        if counter not in meas:
            continue
        value, formula = meas[counter]
        rows.append({**params, "counter": counter, "unit": COUNTERS[counter][1],
                     "measured": value, "predicted": None, "ratio": None, "metric": formula,
                     "basis": None, "ncu_kernel": kernel["name"][:120],
                     "duration_s": _get(kernel, "gpu__time_duration.sum"),
                     "sm_clock_hz": _get(kernel, "sm__cycles_elapsed.avg.per_second"),
                     "ncu_registers_per_thread": _get(kernel, "launch__registers_per_thread"),
                     "dram_peak": dram_peak(kernel)})
    return predict_rows(rows, machine, refs, sms)


def repredict(result: dict) -> dict:
    """A recorded profile with its predictions recomputed by the current model (the
    model's inputs: perfmodel's machine and the recorded labs of the same GPU)."""
    ctx = result["context"]
    slug = ctx.get("gpu_slug", "")
    rows = predict_rows(result["rows"], machine_for(slug), references(slug), ctx.get("sms"))
    return {**result, "rows": rows}


# ------------------------------------------------------------------ running ncu

def _ncu_once(exe: str, lesson: str, metrics: list[str], quick: bool, raw_dir: str | None):
    """One ncu run of the worker: (return code, ncu's CSV text, all other output, cases)."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, f"{lesson}.csv")
        manifest = os.path.join(tmp, f"{lesson}.json")
        target = [sys.executable, "-m", "labs.profile_worker", lesson, manifest]
        cmd = ncu.command(exe, metrics, target + (["--quick"] if quick else []), log)
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=LESSON_TIMEOUT_S)
        text = pathlib.Path(log).read_text() if os.path.exists(log) else ""
        if raw_dir:
            os.makedirs(raw_dir, exist_ok=True)
            for path in (log, manifest):
                if os.path.exists(path):
                    shutil.copy(path, raw_dir)
        cases = json.loads(pathlib.Path(manifest).read_text()) if os.path.exists(manifest) else None
    return proc.returncode, text, proc.stdout + proc.stderr, cases


def _profile_lesson(exe: str, lesson: str, metrics: list[str], quick: bool,
                    raw_dir: str | None) -> tuple[list[dict], list[dict], list[str]]:
    """Run the worker for one lesson under ncu: (cases, kernels matched in order, metrics
    ncu refused). A run that fails naming some of the metrics is tried once more without
    them."""
    refused: list[str] = []
    for _attempt in range(2):
        rc, text, other, cases = _ncu_once(exe, lesson, metrics, quick, raw_dir)
        if ncu.locked(text + other):
            raise ncu.NcuUnavailable(ncu.unavailable_sentence(text + other))
        if rc == 0 and cases is not None:
            break
        errors = "\n".join(ln for ln in (text + other).splitlines() if "ERROR" in ln)
        named = [m for m in metrics if m in errors]
        if not named:
            break
        refused += named
        metrics = [m for m in metrics if m not in named]
    if rc != 0 or cases is None:
        raise RuntimeError(f"ncu on lesson {lesson!r} failed (exit {rc}):\n"
                           f"{(other + text)[-3000:]}")
    kernels = ncu.parse_csv(text)
    if len(kernels) != len(cases):
        raise RuntimeError(f"lesson {lesson!r}: ncu profiled {len(kernels)} launches for "
                           f"{len(cases)} cases")
    for case, kern in zip(cases, kernels):
        if case["kernel"] not in kern["name"]:
            raise RuntimeError(f"lesson {lesson!r}: case {case['case']!r} expected kernel "
                               f"{case['kernel']!r}, ncu saw {kern['name'][:80]!r}")
    return cases, kernels, refused


def run(quick: bool = False, lessons=None, raw_dir: str | None = None,
        ncu_path: str | None = None) -> dict:
    """Profile every lesson's kernels under ncu and set each counter beside the model.

    lessons: names in LESSONS (default all); raw_dir: where to keep ncu's CSV and the
    worker's manifests (default $LABS_PROFILE_RAW, else nowhere). Raises NoGPUError
    without a GPU and :class:`labs.ncu.NcuUnavailable` (one sentence) without a usable ncu.
    """
    lessons = tuple(lessons or LESSONS)
    bad = [x for x in lessons if x not in ALL_LESSONS]
    if bad:
        raise ValueError(f"lessons must be some of {', '.join(ALL_LESSONS)}; got {bad}")
    common.require_cuda("profile")
    exe = ncu.find(ncu_path)
    if exe is None:
        raise ncu.NcuUnavailable(ncu.unavailable_sentence())
    raw_dir = raw_dir or os.environ.get("LABS_PROFILE_RAW") or None
    ver = ncu.version(exe)
    try:
        offered, query_text = ncu.query(exe)
    except subprocess.TimeoutExpired:      # the list only annotates the record
        offered, query_text = set(), ""
    if raw_dir:
        os.makedirs(raw_dir, exist_ok=True)
        pathlib.Path(raw_dir, "query_metrics.txt").write_text(query_text)
    ctx = common.context()
    ctx["ncu_version"] = ver
    ctx["ncu_path"] = exe
    slug, sms = ctx.get("gpu_slug", ""), ctx.get("sms")
    machine, refs = machine_for(slug), references(slug)
    rows, used, dropped, unlisted = [], {}, {}, {}
    for lesson in lessons:
        wanted = list(dict.fromkeys(COMMON_METRICS + METRICS[lesson]))
        cases, kernels, refused = _profile_lesson(exe, lesson, wanted, quick, raw_dir)
        used[lesson] = [m for m in wanted if m not in refused]
        dropped[lesson] = refused
        unlisted[lesson] = [m for m in used[lesson] if offered and ncu.base_name(m) not in offered]
        for case, kern in zip(cases, kernels):
            case["compute_capability"] = ctx.get("compute_capability", "9.0")
            rows += rows_for(case, kern, machine, refs, sms)
    summary: dict = {"ncu_version": ver}
    for counter in COUNTERS:
        vals = {r["case"]: r["measured"] for r in rows if r["counter"] == counter}
        if vals:
            summary[counter] = vals
    params = {"quick": quick, "lessons": list(lessons), "metrics": used,
              "metrics_refused": dropped,
              "metrics_not_in_query_list": unlisted, "worker": "labs/profile_worker.py",
              "ncu_options": ncu.command("ncu", ["METRICS"], ["PROGRAM"], "LOG")[1:-3],
              "model_inputs": {lab: {"gpu": r["context"].get("gpu_name"),
                                     "date": r["context"].get("date")}
                               for lab, r in refs.items()}}
    return common.record("profile", params, rows, summary, ctx)


# ------------------------------------------------------------------ the book's tables

def _fmt(value, unit: str) -> str:
    from perfmodel import units

    if value is None:
        return "&ndash;"
    if unit == "fraction":
        return f"{100 * value:.1f}%"
    if unit == "byte/s":
        return units.bandwidth(value)
    if unit == "byte":
        return f"{value / 1e6:,.0f} MB" if value >= 1e6 else f"{value:.3g} B"
    if unit == "lanes":
        return f"{value:.2f}"
    if unit == "s":
        return units.seconds(value)
    if unit == "passes":
        return f"{value:.1f}"
    if unit == "count":
        return f"{value / 1e6:,.1f} M"
    if unit == "cycles":
        return f"{value:,.0f}"

    return f"{value:,.2f}"


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def caption(result: dict, lesson: str) -> str:
    """One sentence on what to look at in a lesson's table, its figures computed from the
    result shown (so it stays true of a reader's own run)."""
    rows = [r for r in result["rows"] if r.get("lesson") == lesson and r.get("ratio")]

    def ratios(counter):
        return [r["ratio"] for r in rows if r["counter"] == counter]

    if lesson == "simt":
        return ("Look at the lanes: split through every warp, each path runs with only its "
                "own lanes switched on, so the model expects 32/P lanes per instruction; "
                "split between warps, all 32.")
    if lesson == "latency":
        text = ("Look at the occupancy and the bandwidth: the launch shape sets how many "
                "warps an SM holds, and Little's law, bytes in flight over the idle latency, "
                "the bandwidth they can buy")
        occ = ratios("achieved_occupancy")
        if occ:
            worst = max(abs(1 - x) for x in occ)
            text += f"; here the occupancy is within {_pct(worst)} of the shape"
        short = [1 - x for x in ratios("dram_bandwidth") if x < 0.97]
        if short:
            text += (f" and below saturation the bandwidth falls {_pct(min(short))} to "
                     f"{_pct(max(short))} short of the law, since a busy memory answers more "
                     "slowly than an idle one")
        return text + "."
    if lesson == "stalls":
        def measured(counter):
            return [r["measured"] for r in result["rows"]
                    if r.get("lesson") == lesson and r["counter"] == counter]

        issue, eligible = measured("issue_share"), measured("ready_warps")
        text = ("Look at the schedulers: however many warps an SM holds, they are almost all "
                "waiting on a load")
        if issue and eligible:
            text += (f"; a scheduler issues in at most {_pct(max(issue))} of its cycles and "
                     f"has at most {max(eligible):.2f} warps ready a cycle")
        return text + (", and the cycles its warps wait on loads per instruction issued grow "
                       "as the memory fills.")
    if lesson == "memory":
        worst = max((abs(1 - x) for c in ("sectors_per_request", "dram_bytes_per_value")
                     for x in ratios(c)), default=None)
        text = ("Look at the sectors and the DRAM bytes: the model charges one 32-byte sector "
                "per lane once lanes sit 32 bytes apart, and one 64-byte DRAM burst per value "
                "once they sit 64 apart")
        if worst is not None:
            text += f"; every counter here is within {_pct(worst)} of that charge"
        return text + ", and the set that fits in the L2 keeps DRAM nearly idle."
    if lesson == "transpose":
        sent = {r["case"].split()[0] + ("-unpadded" if "unpadded" in r["case"] else ""):
                r["measured"] for r in result["rows"]
                if r.get("lesson") == lesson and r["counter"] == "l2_store_sectors"}
        times = ""
        if sent.get("naive") and sent.get("tiled"):
            times = f", {sent['naive'] / sent['tiled']:.1f} times the tiled kernel's,"
        return ("Look at the stores: every kernel reads and writes each byte of DRAM about "
                "once, but the naive one sends the L2 a sector for every value it stores"
                + times + " and that traffic, not DRAM, sets its time; without padding, the "
                "tiled kernel's column reads from shared memory take many passes each.")
    return ("Look at which unit is busy: the roofline puts the FMA pipe at its peak for the "
            "FMA kernel and far past the ridge, the DRAM at its peak at the foot; the FMA "
            "pipe's busy share also counts the integer multiply-adds of the index "
            "arithmetic, which the count of FP32 FMAs leaves out.")


def _in_table(row: dict) -> bool:
    """Rows a lesson's table shows: its counters that the model predicts, and in the memory
    lesson the DRAM and L2 throughputs of every kernel (the staircase: the set in the L2
    against the sets streamed from DRAM), and in the stalls lesson every counter of its table,
    the schedulers' included, which the model does not predict."""
    if row["counter"] not in TABLE_COUNTERS[row["lesson"]]:
        return False
    if row["lesson"] == "stalls":
        return True
    if row["counter"] in ("dram_throughput", "l2_throughput") and row["lesson"] == "memory":
        return True
    if row["counter"] == "kernel_time":
        return True
    return row.get("predicted") is not None


def ncu_name(version_line: str) -> str:
    """'Version 2025.3.1.0 (build ...)' -> 'Nsight Compute 2025.3.1.0'."""
    m = re.search(r"Version\s+(\S+)", version_line or "")
    return f"Nsight Compute {m[1]}" if m else "Nsight Compute"


def _cell(row: dict | None) -> str:
    if row is None:
        return "<td>&ndash;</td>"
    unit = COUNTERS[row["counter"]][1]
    text = _fmt(row["measured"], unit)
    if row.get("predicted") is not None:
        title = html.escape(row.get("basis") or "", quote=True)
        text += (f'<br><small title="{title}">model {_fmt(row["predicted"], unit)}'
                 f" &middot; {row['ratio']:.2f}&times;</small>")
    return f"<td>{text}</td>"


def table(result: dict, lesson: str) -> str:
    """The curated HTML table of one lesson: one row per kernel, one column per counter,
    each cell the measured value with the model's value and their ratio beneath (plain
    names and units; the exact ncu metrics listed under the table)."""
    if lesson not in ALL_LESSONS:
        raise ValueError(f"lesson must be one of {', '.join(ALL_LESSONS)}; got {lesson!r}")
    rows = [r for r in result["rows"] if r.get("lesson") == lesson and _in_table(r)]
    counters = [c for c in TABLE_COUNTERS[lesson] if any(r["counter"] == c for r in rows)]
    cases = list(dict.fromkeys(r["case"] for r in rows))
    at = {(r["case"], r["counter"]): r for r in rows}
    body = "".join(f"<tr><td>{html.escape(case)}</td>"
                   + "".join(_cell(at.get((case, c))) for c in counters) + "</tr>"
                   for case in cases)
    formulas = {}
    for r in rows:
        formulas.setdefault(COUNTERS[r["counter"]][0], r["metric"])
    metrics = "; ".join(f"{html.escape(k)}: <code>{html.escape(v)}</code>"
                        for k, v in formulas.items())
    ctx = result["context"]
    head = "".join(f"<th>{html.escape(COUNTERS[c][0])}</th>" for c in counters)
    return ('<div class="book-table"><table class="table"><caption>'
            + html.escape(caption(result, lesson)) + f"</caption><thead><tr><th>kernel</th>{head}"
            "</tr></thead><tbody>" + body + "</tbody></table>"
            f"<p><small>Measured by {html.escape(ncu_name(ctx.get('ncu_version', '')))} on "
            f"an {html.escape(str(ctx.get('gpu_name', '?')))} "
            f"({html.escape(str(ctx.get('date', ''))[:10])})"
            + ("; under each value, the model's and measured / model"
               if any(r.get("predicted") is not None for r in rows) else "")
            + f". Metrics: {metrics}.</small></p></div>")


class ProfileView:
    """Display object: a one-line note, then the lesson's table (every lesson's, and the
    plot of every counter against the model, when no lesson is named)."""

    def __init__(self, result: dict, note: str, lesson: str | None = None):
        self.result, self.note, self.lesson = result, note, lesson

    def html(self) -> str:
        lessons = [self.lesson] if self.lesson else [
            x for x in LESSONS if any(r.get("lesson") == x for r in self.result["rows"])]
        body = f"<p class='book-lab-note'><em>{html.escape(self.note)}</em></p>"
        if not self.lesson:
            from widgets.static import figure_html

            body += figure_html(plot([self.result]), name="lab-profile")
        return body + "".join(table(self.result, x) for x in lessons)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": self.html(), "text/plain": self.note}


def recorded(gpu: str | None = None, lesson: str | None = None) -> dict:
    """The recorded profile of ``gpu`` (default: the first real GPU recorded, the H200);
    for a lesson in EXTRA_LESSONS, its own record (ValueError when none is recorded)."""
    name = EXTRA_RECORDS.get(lesson, "profile")
    found = [r for r in list_recorded(name) if not r["context"].get("reference")]
    if gpu is not None:
        found = [r for r in found if r["context"].get("gpu_slug") == gpu]
    if not found:
        raise ValueError("no recorded profile" + (f" on {gpu!r}" if gpu else ""))
    return found[0]


def show(lesson: str | None = None, gpu: str | None = None, **_ignored) -> ProfileView:
    """What a chapter's cell calls (through ``labs.show("profile", lesson=...)``): with a
    CUDA GPU and a working ncu, profile the lesson's kernels now (quick mode); otherwise
    say why in one sentence and show the recorded H200 counters."""
    if lesson is not None and lesson not in ALL_LESSONS:
        raise ValueError(f"lesson must be one of {', '.join(ALL_LESSONS)}; got {lesson!r}")
    from .gpu import has_cuda

    why = None
    if has_cuda() and gpu is None:
        try:
            result = run(quick=True, lessons=(lesson,) if lesson else None)
            name = result["context"].get("gpu_name", "GPU")
            return ProfileView(result, f"Profiled just now on your {name} with "
                               f"{result['context']['ncu_version']} (quick mode).", lesson)
        except ncu.NcuUnavailable as exc:
            why = str(exc)
    result = recorded(gpu, lesson)
    ctx = result["context"]
    note = why or (f"No CUDA GPU here: showing the counters Nsight Compute recorded on an "
                   f"{ctx.get('gpu_name')} ({str(ctx.get('date', ''))[:10]}).")
    return ProfileView(result, note, lesson)


def plot(results: list[dict]):
    """Every counter that has a prediction, as measured / model (1 = the model exactly):
    one row per counter, one dot per kernel (its case in the hover), coloured by lesson."""
    from . import plotting as p

    fig = p.figure("What the profiler says, against the model")
    rows = []
    for i, r, name in p.each(results):
        for k, lesson in enumerate(LESSONS):
            rs = [x for x in r["rows"] if x.get("lesson") == lesson and x.get("ratio")]
            counters = [COUNTERS[x["counter"]][0] for x in rs]
            rows += [c for c in dict.fromkeys(counters) if c not in rows]
            p.points(fig, i, p.column(rs, "ratio"), counters, f"{name}: {lesson}",
                     mode="markers", series=k, text=p.column(rs, "case"),
                     hovertemplate="%{text}<br>%{y}: %{x:.3f} of the model<extra></extra>")
    if rows:
        p.model(fig, [1.0, 1.0], [rows[0], rows[-1]], "model (measured = predicted)")
    p.axes(fig, "measured / model (1 = the model exactly)", "", xlog=False, ylog=None, xunit="")
    fig.update_yaxes(type="category", categoryorder="array", categoryarray=rows,
                     autorange="reversed")
    fig.update_layout(height=120 + 30 * len(rows), margin=dict(l=210))
    return p.finish(fig)
