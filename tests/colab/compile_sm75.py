"""Compile and link every numba kernel a lab can launch on a compute-capability 7.5 GPU (a
T4) to an sm_75 cubin, with the toolchain this interpreter has, and no GPU.

    .venv-colab/bin/python tests/colab/compile_sm75.py [--only NAME] [--out FILE]

Run by ``tests/test_t4_compile.py`` with ``.venv-colab`` (Colab's numba-cuda 0.22, NVVM and
nvJitLink 12.8). Prints (or writes) one JSON object:

- ``kernels``: per launch in :func:`launches` for cc (7, 5): lab, kernel, argument types,
  ok, seconds (type inference + NVVM + nvJitLink, cold), cubin bytes, the SM the cubin's
  ELF header names, whether the PTX holds ``cp.async``, and the error if any;
- ``sm80_only``: the kernels that need sm_80 (:func:`labs.memkernels.pipeline_read_kernel`,
  ``cp.async``) compiled for sm_75 all the same: each must FAIL to link, which shows that
  a kernel using an sm_80 feature cannot pass here;
- ``choices``: which streaming read the Little's-law lab picks at cc 7.5 and at 9.0;
- ``uncovered``: kernel definitions (``@cuda.jit`` without ``device=True`` in labs/*.py)
  that :func:`launches` does not compile and that are not sm_80-only;
- ``toolchain``: the versions used.

How a kernel is compiled: exactly as numba-cuda's dispatcher does at a launch
(``numba.cuda.dispatcher._Kernel`` with the kernel's own target options: fastmath,
max_registers, LTO where nvJitLink is present), but with the "current device" answering
compute capability (7, 5), then ``CUDACodeLibrary.get_cubin(cc=(7, 5))``, which links with
nvJitLink (through cuda.core's Linker). The argument types are what
``dispatcher.typeof_pyval`` gives for stand-ins of the real arguments (numpy arrays of
the same dtype, rank and layout as the device arrays; Python ints; numpy scalars).

Without a driver, two calls need a stand-in: the device's compute capability (the
dispatcher asks the current device) and ``cuDriverGetVersion`` (cuda.core asks it to pick
nvJitLink over the driver's linker; it answers 12.8, what Colab's cuda-compat-12-8
driver reports). Nothing is launched.
"""
from __future__ import annotations

import argparse
import ast
import importlib
import importlib.metadata as md
import json
import pathlib
import struct
import sys
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

CC = (7, 5)
#: What Colab's driver (570.x with cuda-compat-12-8) reports to cuDriverGetVersion.
DRIVER_VERSION = 12080


def _stand_in_device(cc) -> None:
    """Make numba-cuda compile for ``cc`` and cuda.core link with nvJitLink, no GPU."""
    import cuda.bindings.driver as drv
    import numba.cuda.codegen as codegen
    import numba.cuda.dispatcher as dispatcher

    drv.cuDriverGetVersion = lambda: (drv.CUresult.CUDA_SUCCESS, DRIVER_VERSION)

    class Device:
        compute_capability = tuple(cc)
        id = 0

    dispatcher.get_current_device = lambda: Device()
    codegen.CUDACodeLibrary._ensure_cc = lambda self, want: tuple(cc) if want is None else want


def launches(cc) -> list[tuple[str, str, object, tuple]]:
    """(lab, name, dispatcher, stand-in args) of every numba kernel the labs launch on a GPU
    of compute capability ``cc``, one entry per distinct argument-type list. Each entry names
    the call site it mirrors; cc-dependent choices come from the labs' own functions."""
    import numpy as np

    from labs import coalescing, divergence, kernels, littles_law, memkernels

    f32, f64 = np.zeros(64, np.float32), np.zeros(64, np.float64)
    f16, i32, i64 = np.zeros(64, np.float16), np.zeros(64, np.int32), np.zeros(64, np.int64)
    u32 = np.zeros(64, np.uint32)
    k = kernels.kernels()
    out: list[tuple[str, str, object, tuple]] = [
        # ceilings.fma_peak (intensity, clocks, ops_on_roof): fma_peak[blocks, BLOCK](out, turns)
        ("intensity", "fma_peak", k.fma_peak, (f32, 16)),
        # intensity.knob_launch: knob[blocks, BLOCK](x, k), both launch shapes
        ("intensity", "knob (1 group, fresh threads)", kernels.make_knob(1), (f32, 4)),
        ("intensity", "knob (2 groups, persistent)", kernels.make_knob(2), (f32, 4)),
        # clocks.burst: spin[1, 1](out, j, np.uint64(ns)), out uint64 (count, 3)
        ("clocks", "spin", k.spin, (np.zeros((4, 3), np.uint64), 0, np.uint64(20_000))),
        # paradox.launch_tolls: empty[1, 32]()
        ("paradox", "empty", k.empty, ()),
        # fusion.fused_versions (where torch.compile is unavailable)
        ("fusion", "scale_shift_relu", k.scale_shift_relu, (f16, f16.copy())),
        ("fusion", "sin2_cos2", k.sin2_cos2, (f32, f32.copy())),
    ]
    # labs/fma_variants_time.py, through ceilings.fma_peak(variant=...): as fma_peak
    from labs import fma_variants

    out += [("intensity", f"fma_peak variant {n}", fma_variants.variant(n), (f32, 16))
            for n in fma_variants.VARIANTS[1:]]
    d = divergence.kernels()
    out += [("divergence", "diverge", d.diverge, (f32, 4, True, 1024)),
            ("divergence", "one_in_k", d.one_in_k, (f32, 32, 1024))]
    # latency.Chaser.measure (latency, littles_law): kernel[1, 1](chain, node, warm, steps, out)
    out.append(("latency", "chase", memkernels.chase_kernel(), (u32, 0, 0, 2048, i64)))
    # littles_law.Streamer.time: kern[blocks, tpb, 0, shared](x, x, base, iters, 1, out)
    pipelined = littles_law.choose_pipelined(None, f"{cc[0]}.{cc[1]}")
    for ilp in littles_law.ILPS:
        kern, _shared = littles_law.read_kernel_for(ilp, pipelined)
        out.append(("littles_law", f"stream read, L = {ilp}"
                    + (" (cp.async pipeline)" if pipelined else " (16-byte loads)"),
                    kern, (f32, f32, 0, 128, 1, f64)))
    if pipelined:  # one_sm also times the batch read where the pipeline is the main one
        for ilp in (4, 8):
            kern, _shared = littles_law.read_kernel_for(ilp, False)
            out.append(("littles_law", f"stream read, L = {ilp} (16-byte loads)", kern,
                        (f32, f32, 0, 128, 1, f64)))
    # littles_law._loaded: kern[blocks + 1, tpb](chain, node, steps, x, iters, 50, flag, out, sums)
    out.append(("littles_law", "loaded chase", memkernels.loaded_chase_kernel(4),
                (u32, 0, 512, f32, 8, 50, np.zeros(1, np.int32), np.zeros(4, np.int64), f64)))
    # coalescing._strided / _gather / _torch_view
    out += [("coalescing", "strided read", memkernels.read_kernel(coalescing.ILP,
                                                                 memkernels.strided_load()),
             (f32, f32, 0, 8, 2, f64)),
            ("coalescing", "gather read", memkernels.read_kernel(coalescing.ILP,
                                                                memkernels.gather_load()),
             (f32, i32, 0, 8, 1, f64))]
    square = np.zeros((16, 16), np.float32)
    walk = coalescing.walk_kernel()
    out += [("coalescing", "walk rows of a.t() (a view)", walk, (square.T, f64)),
            ("coalescing", "walk rows of a contiguous copy", walk, (square, f64))]
    # profile.py's transpose lesson: naive / tiled / tiled_unpadded[(n/32, n/32), (32, 8)](a, out)
    square64 = np.zeros((64, 64), np.float32)
    out += [("profile", f"transpose {k.py_func.__name__}", k, (square64, square64.copy()))
            for k in memkernels.transpose_kernels()]
    out += challenge_launches()
    try:  # labs.ready (the notebooks' setup cell): twice_plus_one[blocks, 256](x, out)
        from labs import ready_kernel
    except ModuleNotFoundError:
        pass
    else:
        out.append(("setup cell", "twice_plus_one", ready_kernel.twice_plus_one,
                    (f32, f32.copy())))
    return out


def challenge_launches() -> list[tuple[str, str, object, tuple]]:
    """Every kernel challenge's kernels, starter and reference, with the stand-in
    arguments the challenge names (``compile_args``: the dtypes, ranks and scalars its
    ``launch`` passes)."""
    from labs import challenges

    out = []
    for name in challenges.NAMES:
        spec = challenges.challenge(name)
        textbook = challenges.textbook(name)
        for kind, module in (("starter", challenges.starter(name)),
                             ("reference", challenges.reference(name)),
                             ("textbook", textbook)):
            if module is None:
                continue
            for kernel, args in spec.compile_args():
                if hasattr(module, kernel):
                    out.append((f"challenge {name}", f"{kind}: {kernel}",
                                getattr(module, kernel), args))
    # labs.challenges.on_device: the variants timed beside the weakest references
    from labs.challenges.on_device import VARIANTS

    for name, variants in VARIANTS.items():
        spec = challenges.challenge(name)
        for label, module_name in variants.items():
            module = importlib.import_module(module_name)
            for kernel, args in spec.compile_args():
                if hasattr(module, kernel):
                    out.append(("challenge variants", f"{name} {label}: {kernel}",
                                getattr(module, kernel), args))
    # labs.challenges.on_device: the plain copies of each challenge's launch shape
    import numpy as np

    from labs.challenges import copies

    f32, sq = np.zeros(64, np.float32), np.zeros((64, 64), np.float32)
    out += [("challenge copies", "copy1", copies.copy1, (f32, f32.copy())),
            ("challenge copies", "read1", copies.read1, (f32, f32.copy())),
            ("challenge copies", "tile_copy", copies.tile_copy, (f32, f32.copy(), 8)),
            ("challenge copies", "fill_rows", copies.fill_rows, (sq, sq.copy(), sq.copy())),
            ("challenge copies", "row_copy", copies.row_copy, (sq, sq.copy()))]
    return out


def sm80_only() -> list[tuple[str, object, tuple]]:
    """Kernels that need compute capability 8.0 (``cp.async``), with their launch args."""
    import numpy as np

    from labs import littles_law, memkernels

    f32, f64 = np.zeros(64, np.float32), np.zeros(64, np.float64)
    return [(f"pipeline read, L = {ilp}" + (", chained" if chained else ""),
             memkernels.pipeline_read_kernel(ilp, chained), (f32, f32, 0, 128, 1, f64))
            for ilp in littles_law.ILPS for chained in (False, True)]


def compile_one(kernel, args, cc) -> dict:
    """Compile ``kernel`` for the argument types of ``args`` as a launch would, and link it
    to a cubin for ``cc``; returns what happened."""
    from numba.cuda import dispatcher

    t0 = time.perf_counter()
    argtypes = tuple(kernel.typeof_pyval(a) for a in args)
    rec = {"signature": [str(t) for t in argtypes]}
    try:
        compiled = dispatcher._Kernel(kernel.py_func, argtypes, **kernel.targetoptions)
        lib = compiled._codelibrary
        ptx = lib.get_asm_str(cc=cc)
        cubin = lib.get_cubin(cc=cc)
        code = bytes(getattr(cubin, "code", cubin))
        rec.update(ok=True, cubin_bytes=len(code), ptx_target=_ptx_target(ptx),
                   cubin_sm=_cubin_sm(code), cp_async="cp.async" in ptx,
                   lto=bool(kernel.targetoptions.get("lto")),
                   max_registers=kernel.targetoptions.get("max_registers"))
    except Exception as e:  # report, do not stop: every kernel gets its line
        rec.update(ok=False, error=f"{type(e).__name__}: {str(e).strip()[:600]}",
                   where=traceback.format_exc(limit=3)[-600:])
    rec["seconds"] = round(time.perf_counter() - t0, 2)
    return rec


def _ptx_target(ptx: str) -> str | None:
    return next((line.split()[1] for line in ptx.splitlines() if line.startswith(".target")),
                None)


def _cubin_sm(code: bytes) -> int | None:
    """The SM an ELF cubin is for (EF_CUDA_SM: the low byte of e_flags), or None."""
    if code[:4] != b"\x7fELF" or len(code) < 52:
        return None
    return struct.unpack_from("<I", code, 48)[0] & 0xFF


def kernel_sites(root: pathlib.Path = ROOT) -> set[tuple[str, int]]:
    """(file, first line) of every kernel definition in labs/**/*.py (the kernel
    challenges' starters and solutions included): a function decorated with ``cuda.jit``
    (bare or called) without ``device=True``."""
    sites = set()
    for path in sorted((root / "labs").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.FunctionDef):
                continue
            for dec in node.decorator_list:
                call = dec if isinstance(dec, ast.Call) else None
                target = call.func if call else dec
                if not (isinstance(target, ast.Attribute) and target.attr == "jit"
                        and isinstance(target.value, ast.Name) and target.value.id == "cuda"):
                    continue
                device = any(kw.arg == "device" and isinstance(kw.value, ast.Constant)
                             and kw.value.value is True for kw in (call.keywords if call else []))
                if not device:
                    first = min(d.lineno for d in node.decorator_list)
                    sites.add((str(path.resolve()), first))
    return sites


def _site(kernel) -> tuple[str, int]:
    code = kernel.py_func.__code__
    return str(pathlib.Path(code.co_filename).resolve()), code.co_firstlineno


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="compile only the launches whose kernel name holds this")
    ap.add_argument("--out", help="write the JSON here instead of stdout")
    args = ap.parse_args(argv)

    from labs.gpu import numba_cuda

    numba_cuda()  # the labs' own import path (with its numpy fix), before any kernel is built
    _stand_in_device(CC)
    from labs import littles_law

    report: dict = {"cc": list(CC), "toolchain": {
        d: _version(d) for d in ("numba", "numba-cuda", "numpy", "llvmlite", "cuda-core",
                                 "cuda-bindings", "nvidia-cuda-nvcc-cu12",
                                 "nvidia-nvjitlink-cu12")}}
    report["toolchain"]["python"] = sys.version.split()[0]
    todo = launches(CC)
    if args.only:
        todo = [t for t in todo if args.only in t[1]]
    report["kernels"] = []
    for lab, name, kernel, kargs in todo:
        rec = {"lab": lab, "kernel": name, **compile_one(kernel, kargs, CC)}
        report["kernels"].append(rec)
        print(f"{'ok ' if rec['ok'] else 'FAIL'} {rec['seconds']:6.2f} s  {lab}: {name}",
              file=sys.stderr)
    hard = [] if args.only else sm80_only()
    report["sm80_only"] = [{"kernel": name, **compile_one(kernel, kargs, CC)}
                           for name, kernel, kargs in hard[:1]]
    pipeline = {id(k) for _name, k, _a in sm80_only()}
    report["choices"] = {}
    for cc in ("7.5", "9.0"):
        pipelined = littles_law.choose_pipelined(None, cc)
        chosen = [littles_law.read_kernel_for(ilp, pipelined)[0] for ilp in littles_law.ILPS]
        report["choices"][cc] = {"pipelined": pipelined,
                                 "sm80_only_chosen": sum(id(k) in pipeline for k in chosen)}
    covered = {_site(k) for _lab, _name, k, _a in launches(CC)}
    covered |= {_site(k) for _name, k, _a in sm80_only()}
    report["uncovered"] = sorted(f"{pathlib.Path(f).relative_to(ROOT)}:{line}"
                                 for f, line in kernel_sites() - covered)
    text = json.dumps(report, indent=1)
    if args.out:
        pathlib.Path(args.out).write_text(text)
    else:
        print(text)
    return 0


def _version(dist: str) -> str | None:
    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return None


if __name__ == "__main__":
    raise SystemExit(main())
