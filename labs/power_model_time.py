"""Record the runs that test chapter 9's power model, on one GPU, at its own settings.

    python3 -m labs.power_model_time --out $OUT      # from the repository root
    (or the device runner's step: python3 -m labs.device --out $OUT power_model)

Nothing is changed on the GPU (no power limit, no locked clock): the runs differ only in
the work. It samples the idle board power for 15 s, then holds an FMA loop (FP32 lanes), an
8192^3 FP32 matmul and FP16 tensor-core matmuls of 1024^3 to 8192^3, each for 6 s with 4 s
of rest between, recording the FLOP rate (CUDA events) and the SM clock, board power and
temperature (NVML, median over the second half of each hold, after the power meter has
settled). About 2 minutes on an H200. Writes ``$OUT/<gpu>/power_model.json``; copy it to
``labs/results/<gpu>/power_model.json``. ``labs.power_model.prediction_rows`` then fits the
tensor runs that kept the top clock and predicts the clock of those that did not.
Needs torch, numba-cuda and nvidia-ml-py (pynvml).
"""
from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time


from labs import ceilings, common, results  # noqa: E402
from labs.gpu import NvmlSampler, nvml_problem  # noqa: E402

HOLD_S, REST_S, IDLE_S = 6.0, 4.0, 15.0
TENSOR_SIZES = (1024, 1536, 2048, 3072, 4096, 6144, 8192)


def settled(samples: list[dict], key: str) -> float | None:
    """Median of ``key`` over the second half of the samples (the meter averages ~1 s)."""
    if not samples:
        return None
    t_mid = samples[-1]["t"] / 2
    vals = [s[key] for s in samples if s["t"] >= t_mid and key in s]
    return statistics.median(vals) if vals else None


def row(workload: str, unit: str, res: dict, n: int | None = None) -> dict:
    smp = res.get("samples", [])
    return {"workload": workload, "unit": unit, "n": n, "flops": res["flops"],
            "sm_clock_hz": settled(smp, "sm_clock_hz"), "power_w": settled(smp, "power_w"),
            "temperature_c": settled(smp, "temperature_c"), "hold_s": HOLD_S}


def main(argv: list[str] | None = None) -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="folder for <gpu>/power_model.json")
    a = ap.parse_args(argv)
    common.require_cuda("power_model")
    problem = nvml_problem()
    if problem:
        raise SystemExit(f"power_model: {problem}")
    torch.backends.cuda.matmul.allow_tf32 = False
    ctx = common.context()
    with NvmlSampler(0.05) as s:
        time.sleep(IDLE_S)
    rows = [{"workload": "idle", "unit": None, "n": None, "flops": 0.0,
             "sm_clock_hz": settled(s.samples, "sm_clock_hz"),
             "power_w": settled(s.samples, "power_w"),
             "temperature_c": settled(s.samples, "temperature_c"), "hold_s": IDLE_S}]
    fma = ceilings.fma_peak(hold_s=HOLD_S)
    rows.append(row("FMA kernel, FP32 lanes", "fp32", {**fma, "flops": fma["fma_flops"]}))
    time.sleep(REST_S)
    rows.append(row("matmul FP32", "fp32", ceilings.matmul_rate(8192, "float32", hold_s=HOLD_S),
                    8192))
    for n in TENSOR_SIZES:
        time.sleep(REST_S)
        rows.append(row("matmul FP16 tensor", "fp16_tensor",
                        ceilings.matmul_rate(n, "float16", hold_s=HOLD_S), n))
        print(f"n={n}: {rows[-1]['flops'] / 1e12:.0f} TFLOP/s, "
              f"{(rows[-1]['sm_clock_hz'] or 0) / 1e6:.0f} MHz, {rows[-1]['power_w']} W",
              flush=True)
    limit = ctx.get("power_limit_w")
    summary = {"idle_power_w": rows[0]["power_w"], "idle_clock_hz": rows[0]["sm_clock_hz"],
               "power_limit_w": limit, "max_sm_clock_hz": ctx.get("max_sm_clock_hz")}
    params = {"hold_s": HOLD_S, "rest_s": REST_S, "idle_s": IDLE_S,
              "tensor_sizes": list(TENSOR_SIZES),
              "note": "no GPU setting changed; power and clock are medians over each hold's "
                      "second half"}
    result = common.record("power_model", params, rows, summary, ctx)
    print("saved", results.save(result, a.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
