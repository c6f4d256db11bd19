"""Run the "Measure this device" WGSL shaders on a real GPU without a browser.

The lent H200 machine has Vulkan but no browser (and no Node). This script runs the two
shaders of ``_static/book-webgpu.js`` there through wgpu-native (wgpu-py; the WebGPU
implementation Firefox is built on, not Chrome's Dawn), checks them as the page does, and
times them both ways the page does (timestamp queries, and queue completion less an empty
dispatch). Two steps:

    python -m labs.webgpu_on_device bundle DIR   # here: shaders + FMA reference via Node
    python3 -m labs.webgpu_on_device run DIR OUT  # there: DIR/bundle.json -> OUT/*.json
    (run-small: the same at CPU sizes, to try it on SwiftShader's Vulkan first)

The result has the page's schema (an ``intensity`` lab result), so
``perfmodel.machines.from_results`` reads it. Units: bytes, seconds, FLOP, byte/s, FLOP/s.
Copies run at the page's sizes (4 to 256 MiB), then the FMA shader, then one 1 GiB copy
beyond the page (marked so; not in the summary).

Recorded on the lent H200 (labs/results/webgpu/H200.json, driver 580.159.04, wgpu-py
0.32.0): every check passed; copy of 256 MiB 4.13 TB/s, FMA 43.0 TFLOP/s at the page's
1,048,576 invocations x 16,384 iterations (44.2 at four times the invocations). The 1 GiB
copy, from a buffer created with its data, ran at 1.65-1.67 TB/s in three runs, and in the
two where it came before the FMA runs it also slowed the first of them (7.5 and 12
TFLOP/s); 1 GiB buffers created empty copied at 4.08 TB/s. Not explained; the page never
goes past 256 MiB. The stored file's gpu_name and runtime labels were reformatted after the
run ("NVIDIA  NVIDIA H200" and "(wgpu-native)" before); no measured value was touched.
"""
from __future__ import annotations

import datetime
import json
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
JS = ROOT / "_static" / "book-webgpu.js"
FMA_ITERATIONS = (4096, 16384)


def bundle(folder: pathlib.Path) -> None:
    """Write folder/bundle.json: the shaders, their constants and the FMA reference
    (computed by the page's own JavaScript) for each of FMA_ITERATIONS."""
    refs = ", ".join(f'"{n}": Array.from(w.fmaReference({n}))' for n in FMA_ITERATIONS)
    script = (f"const w = require({json.dumps(str(JS))}); console.log(JSON.stringify("
              "{copy_wgsl: w.COPY_WGSL, fma_wgsl: w.FMA_WGSL, wg: w.WG, m: w.FMA_M, c: w.FMA_C,"
              " tolerance: w.FMA_TOLERANCE, copy_max_bytes: w.DEFAULTS.copyMaxBytes,"
              " flops_per_invocation_iteration:"
              " w.fmaFlops(1, 1) / w.WG, reference: {" + refs + "}}));")
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bundle.json").write_text(out.stdout)


def run(folder: pathlib.Path, out_dir: pathlib.Path, small: bool = False) -> dict:
    import numpy as np
    import wgpu

    b = json.loads((folder / "bundle.json").read_text())
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    info = dict(adapter.info)
    limit = min(adapter.limits["max-storage-buffer-binding-size"],
                adapter.limits["max-buffer-size"], 2 ** 22 if small else 2 ** 30)
    device = adapter.request_device_sync(
        required_features=["timestamp-query"],
        required_limits={"max-storage-buffer-binding-size": limit, "max-buffer-size": limit})
    q = device.queue
    U = wgpu.BufferUsage
    qs = device.create_query_set(type="timestamp", count=2)
    resolve = device.create_buffer(size=16, usage=U.QUERY_RESOLVE | U.COPY_SRC)

    def pipeline(code):
        return device.create_compute_pipeline(
            layout="auto", compute={"module": device.create_shader_module(code=code),
                                    "entry_point": "main"})

    def wait():
        q.read_buffer(resolve)  # returns once everything submitted before it has finished

    def timed(encode):
        """(timestamp seconds, wall seconds) of one pass."""
        enc = device.create_command_encoder()
        p = enc.begin_compute_pass(timestamp_writes={
            "query_set": qs, "beginning_of_pass_write_index": 0, "end_of_pass_write_index": 1})
        encode(p)
        p.end()
        enc.resolve_query_set(qs, 0, 2, resolve, 0)
        t0 = time.perf_counter()
        q.submit([enc.finish()])
        ts = np.frombuffer(q.read_buffer(resolve), dtype=np.uint64)
        wall = time.perf_counter() - t0
        return float(ts[1] - ts[0]) / 1e9, wall

    empty = pipeline("@compute @workgroup_size(1) fn main() {}")

    def encode_empty(p):
        p.set_pipeline(empty)
        p.dispatch_workgroups(1)

    overhead = min(timed(encode_empty)[1] for _ in range(20))
    rows = []
    copy = pipeline(b["copy_wgsl"])

    def copy_row(size: int) -> dict:
        words = np.random.default_rng(size).integers(1, 2 ** 32, size // 4, dtype=np.uint32) | 1
        src = device.create_buffer_with_data(data=words, usage=U.STORAGE)
        dst = device.create_buffer(size=size, usage=U.STORAGE | U.COPY_SRC)
        group = device.create_bind_group(layout=copy.get_bind_group_layout(0), entries=[
            {"binding": 0, "resource": {"buffer": src, "offset": 0, "size": size}},
            {"binding": 1, "resource": {"buffer": dst, "offset": 0, "size": size}}])
        wgs = max(1, min(-(-size // 16 // b["wg"]), 16384))
        reps = max(1, min(2048, int(2 ** 33 // size)))   # about 8 GiB read per pass

        def encode(p, n=reps):
            p.set_pipeline(copy)
            p.set_bind_group(0, group)
            for _ in range(n):
                p.dispatch_workgroups(wgs)

        timed(encode)
        times = [timed(encode) for _ in range(5)]
        ok = bool(np.array_equal(np.frombuffer(q.read_buffer(dst), dtype=np.uint32), words))
        ts = min(t for t, _ in times) / reps
        wall = (min(w for _, w in times) - overhead) / reps
        print(f"copy {size / 2 ** 20:.0f} MiB: {2 * size / ts / 1e12:.3f} TB/s (timestamps), "
              f"{2 * size / wall / 1e12:.3f} TB/s (queue), check {ok}", flush=True)
        src.destroy()
        dst.destroy()
        return {"kind": "copy", "buffer_bytes": size, "bytes": 2 * size,
                "dispatches": reps, "workgroups": wgs, "seconds": ts,
                "bandwidth": 2 * size / ts, "wall_seconds": wall,
                "wall_bandwidth": 2 * size / wall, "check": ok}

    # the page's sizes (4 to 256 MiB), then its FMA; a 1 GiB copy last, beyond the page
    size = 4 * 2 ** 20
    while size <= min(limit, b["copy_max_bytes"]):
        rows.append(copy_row(size))
        size *= 4
    fma = pipeline(b["fma_wgsl"])
    for wgs in ((32,) if small else (4096, 16384)):
        for iters in FMA_ITERATIONS[:1] if small else FMA_ITERATIONS:
            n = wgs * b["wg"]
            params = device.create_buffer_with_data(
                data=np.array([b["m"], b["c"]], np.float32).tobytes()
                + np.array([iters, 0], np.uint32).tobytes(), usage=U.UNIFORM)
            out = device.create_buffer(size=4 * n, usage=U.STORAGE | U.COPY_SRC)
            group = device.create_bind_group(layout=fma.get_bind_group_layout(0), entries=[
                {"binding": 0, "resource": {"buffer": params, "offset": 0, "size": 16}},
                {"binding": 1, "resource": {"buffer": out, "offset": 0, "size": 4 * n}}])

            def encode(p):
                p.set_pipeline(fma)
                p.set_bind_group(0, group)
                p.dispatch_workgroups(wgs)

            timed(encode)
            times = [timed(encode) for _ in range(5)]
            got = np.frombuffer(q.read_buffer(out), dtype=np.float32)
            want = np.tile(np.array(b["reference"][str(iters)], np.float32), n // 1024)
            err = float(np.max(np.abs(got - want) / np.abs(want)))
            flops = n * iters * b["flops_per_invocation_iteration"]
            ts = min(t for t, _ in times)
            wall = min(w for _, w in times) - overhead
            rows.append({"kind": "fma", "workgroups": wgs, "invocations": n, "iterations": iters,
                         "flops": flops, "seconds": ts, "flop_rate": flops / ts,
                         "wall_seconds": wall, "wall_flop_rate": flops / wall,
                         "check": err <= b["tolerance"], "worst_relative_error": err})
            print(f"fma {wgs} workgroups x {iters}: {flops / ts / 1e12:.2f} TFLOP/s "
                  f"(timestamps), {flops / wall / 1e12:.2f} (queue), worst error {err:.2g}",
                  flush=True)
    if limit >= 4 * b["copy_max_bytes"]:
        rows.append(dict(copy_row(4 * b["copy_max_bytes"]), beyond_the_page=True))
    copies = [r for r in rows if r["kind"] == "copy" and r["check"]
              and not r.get("beyond_the_page")]
    fmas = [r for r in rows if r["kind"] == "fma" and r["check"]]
    vendor, device_name = str(info.get("vendor", "")), str(info.get("device", ""))
    name = device_name if device_name.startswith(vendor) else f"{vendor} {device_name}".strip()
    result = {
        "lab": "intensity",
        "context": {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                    "gpu_name": name or "unknown", "api": "WebGPU",
                    "adapter": {k: str(v) for k, v in info.items()},
                    "runtime": f"wgpu-py {wgpu.__version__} over wgpu-native, no browser",
                    "timing": "timestamp queries", "empty_dispatch_s": overhead},
        "params": {"quick": False, "copy_buffer_bytes": [r["buffer_bytes"] for r in copies],
                   "repeats": 5},
        "rows": rows,
        "summary": {"copy_bandwidth": copies[-1]["bandwidth"],
                    "fma_flops": max(r["flop_rate"] for r in fmas)} if copies and fmas else {}}
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "webgpu-h200.json").write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    if sys.argv[1:2] == ["bundle"] and len(sys.argv) == 3:
        bundle(pathlib.Path(sys.argv[2]))
    elif sys.argv[1] in ("run", "run-small") and len(sys.argv) == 4:
        run(pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), small=sys.argv[1] == "run-small")
    else:
        sys.exit(__doc__)
