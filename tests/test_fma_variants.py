"""The FMA-peak variants (labs/fma_variants.py) compute what their chains say, under numba's
CUDA simulator in a subprocess (the simulator must be on before numba.cuda is imported)."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def outcomes() -> dict:
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "fma_variants_sim.py")],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", ["chains8", "chains16", "unroll64", "interleaved"])
def test_variant_correct_under_simulator(outcomes, name):
    assert outcomes.get(name) == "ok", outcomes.get(name)


def test_unknown_variant_names_the_choices():
    from labs import fma_variants

    with pytest.raises(ValueError, match="chains16"):
        fma_variants.variant("chains99")


def test_expected_is_the_chain_arithmetic():
    import numpy as np

    from labs import fma_variants
    from labs.kernels import FMA_A, FMA_B

    # thread 0 of chains16: 16 chains starting at 0, 0.05, ..., 0.75, each 32 FMAs a turn
    got = fma_variants.expected("chains16", 1, 1)[0]
    want = 0.0
    for c in range(16):
        v = np.float32(c) * np.float32(0.05)
        for _ in range(32):
            v = np.float32(v * FMA_A + FMA_B)
        want += float(v)
    assert got == pytest.approx(want, rel=1e-6)
