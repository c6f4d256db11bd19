"""One host, one run: the CPU's own add beside the pinned PCIe round trip (issue 34).

Chapter 5 compares the H200's best pinned round trip for z = x + y (2^28 FP32 elements)
with the host CPU adding the vectors itself. The PCIe lab's recorded CPU figure (0.12 s)
timed ``xc + yc``, which allocates a fresh 1 GB result on every call, page faults
included; the chapter quotes the paradox lab's preallocated CPU add (30.6 ms) instead, from
another day and not provably the same host. This script records, in one run on one host:

- the host CPU's model name and torch's CPU thread count;
- the CPU add into a preallocated output (``torch.add(x, y, out=z)``) and with a fresh
  result per call (``x + y``, what the PCIe lab timed), median of repeats, in seconds;
- the best pinned round trip: x and y from pinned host memory to preallocated device
  buffers, the add, z back to pinned host memory, synchronised, median of repeats.

Needs torch with CUDA, nothing else (no plotly, no numba). About a minute on an H200 host:

    python3 -m labs.pcie_cpu_add_time --out $OUT

writes $OUT/pcie_cpu_add.json. It is a check, not a lab result: the lead decides whether
labs/pcie.py should time the preallocated add and be re-recorded.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import platform
import statistics
import time


def cpu_model() -> str:
    """The host CPU's model name from /proc/cpuinfo ('unknown' where there is none)."""
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def median_seconds(fn, repeats: int) -> float:
    """Median wall time of ``fn`` in seconds over ``repeats`` calls, after one warm-up."""
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder for pcie_cpu_add.json")
    parser.add_argument("--log2n", type=int, default=28, help="elements per vector, as 2**N")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    if not 10 <= args.log2n <= 30:
        raise ValueError(f"log2n must be in 10..30, got {args.log2n}")

    import torch

    if not torch.cuda.is_available():
        raise SystemExit("no CUDA GPU: this script measures the host link")
    n = 2 ** args.log2n
    x, y = torch.rand(n), torch.rand(n)
    z = torch.empty(n)
    cpu_prealloc = median_seconds(lambda: torch.add(x, y, out=z), args.repeats)
    cpu_fresh = median_seconds(lambda: x + y, args.repeats)

    xp, yp, zp = (t.pin_memory() for t in (x, y, z))
    xd, yd, zd = (torch.empty(n, device="cuda") for _ in range(3))

    def round_trip():
        xd.copy_(xp, non_blocking=True)
        yd.copy_(yp, non_blocking=True)
        torch.add(xd, yd, out=zd)
        zp.copy_(zd, non_blocking=True)
        torch.cuda.synchronize()

    trip = median_seconds(round_trip, args.repeats)
    assert torch.equal(zp, x + y), "the round trip's sum is wrong"
    result = {
        "host_cpu": cpu_model(), "torch_threads": torch.get_num_threads(),
        "gpu_name": torch.cuda.get_device_name(0), "torch": torch.__version__,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "n": n, "repeats": args.repeats,
        "cpu_add_preallocated_s": cpu_prealloc, "cpu_add_fresh_result_s": cpu_fresh,
        "pinned_round_trip_s": trip, "round_trip_bytes": 12 * n,
    }
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "pcie_cpu_add.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
