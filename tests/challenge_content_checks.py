"""Run under NUMBA_ENABLE_CUDASIM=1 (by tests/test_challenge_content.py, in a process of
its own): every challenge's starter, reference, textbook solution and a host-side numpy
"kernel" through the engine's collect (simulator) and judge. Prints one JSON object on its
last line: "<name>/<kernel>" -> {"verdict", "counters", "errors"}."""
from __future__ import annotations

import json
import os
import sys
import traceback
from types import SimpleNamespace

import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

import labs.challenges as ch  # noqa: E402
from labs.challenges.collect import collect  # noqa: E402
from labs.challenges.judge import judge  # noqa: E402

SEED = 11
F32 = np.float32


class _HostGrid:
    """ilp's ``scale[grid](x, out)``, done on the host whatever the grid."""

    def __init__(self, fn):
        self.fn = fn

    def __getitem__(self, _config):
        return self.fn


def host_kernels() -> dict:
    """name -> a namespace with the challenge's names whose launch works on the host."""
    def saxpy(a, x, y, out):
        out.copy_to_device(a * x.copy_to_host() + y.copy_to_host())

    def fuse(x, out):
        out.copy_to_device(np.maximum(x.copy_to_host() * F32(1.5) + F32(0.5), F32(0)))

    def regroup(x, out):
        out.copy_to_device(ch.challenge("regroup").expected({"x": x.copy_to_host()})["out"])

    def reduce(x, out):
        out.copy_to_device(np.array([x.copy_to_host().sum(dtype=np.float64)], F32))

    def ilp(x, out):
        out.copy_to_device(F32(2) * x.copy_to_host())

    def transpose(x, out, n):
        out.copy_to_device(np.ascontiguousarray(x.copy_to_host().reshape(n, n).T).ravel())

    def matmul(a, b, c):
        c.copy_to_device((a.copy_to_host() @ b.copy_to_host()).astype(F32))

    def softmax(x, y):
        h = x.copy_to_host().astype(np.float64)
        e = np.exp(h - h.max(axis=1, keepdims=True))
        y.copy_to_device((e / e.sum(axis=1, keepdims=True)).astype(F32))

    fns = {"saxpy": saxpy, "fuse": fuse, "regroup": regroup, "reduce": reduce,
           "transpose": transpose, "matmul": matmul, "softmax": softmax}
    out = {}
    for name in ch.NAMES:
        names = {k: None for k in ch.challenge(name).KERNELS}
        if name == "ilp":
            names["scale"] = _HostGrid(ilp)
        else:
            names["launch"] = fns[name]
        out[name] = SimpleNamespace(**names)
    return out


def main() -> int:
    import importlib

    result = {}
    hosts = host_kernels()
    for name in ch.NAMES:
        subs = {"starter": ch.starter(name), "reference": ch.reference(name),
                "textbook": importlib.import_module(f"labs.challenges.textbooks.{name}"),
                "host": hosts[name]}
        for kind, ns in subs.items():
            key = f"{name}/{kind}"
            try:
                arrays, meta = collect(name, ns, SEED, compile_check=False)
                v = judge(name, {**arrays, "meta": json.dumps(meta)}, SEED)
                result[key] = {"verdict": v, "counters": meta["counters"],
                               "errors": meta["errors"]}
            except Exception:  # reported to the test, which names it
                result[key] = {"error": traceback.format_exc()[-1500:]}
            print(key, flush=True, file=sys.stderr)
    print(json.dumps(result, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
