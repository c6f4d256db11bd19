"""Run under NUMBA_ENABLE_CUDASIM=1 by tests/test_fma_variants.py: every FMA-peak variant
launched on 64 threads with out of 40 floats, two turns; prints JSON {variant: "ok" | error}."""
import json

import numpy as np

from labs import fma_variants
from labs.kernels import kernels

out_json = {}
cuda = kernels().cuda
for name in fma_variants.VARIANTS:
    try:
        kern = fma_variants.variant(name)
        out = cuda.to_device(np.full(40, -7.0, dtype=np.float32))
        kern[1, 64](out, 2)  # 64 threads, 40 outputs: the guard must hold
        got = out.copy_to_host()
        want = fma_variants.expected(name, 40, 2)
        np.testing.assert_allclose(got, want, rtol=1e-5)
        assert fma_variants.fmas_per_turn(kern) == {"chains8": 256, "chains16": 512,
                                                    "unroll64": 512, "interleaved": 256}[name]
        out_json[name] = "ok"
    except Exception as e:  # reported by name
        out_json[name] = f"{type(e).__name__}: {e}"
print(json.dumps(out_json))
