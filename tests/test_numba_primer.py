"""Chapter 1's numba primer is real code: the `vadd` listing shown on the page runs under
numba's CUDA simulator and adds; its bounds check is what keeps the last block in bounds;
`cuda.grid(1)` is the sum its comment says; and the helper glossary beside it states the
labs' own constants.

The listing is read from the chapter (the fenced ``python`` block that defines ``vadd``)
and run in a subprocess with NUMBA_ENABLE_CUDASIM=1, so the simulator is on before
numba.cuda is first imported. Only its size is changed (a million threads would take the
simulator minutes): 1,000 elements, not a multiple of the 256 threads of a block, so the
last block overhangs the arrays.
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "chapters" / "01_why_gpus.md"


def primer_listing() -> str:
    """The python block of chapter 1 that defines the numba ``vadd``."""
    blocks = re.findall(r"^```python\n(.*?)^```", CHAPTER.read_text(), re.M | re.S)
    found = [b for b in blocks if "@cuda.jit" in b and "def vadd" in b]
    assert len(found) == 1, f"expected one numba vadd listing, found {len(found)}"
    return found[0]


def _run_simulated(code: str) -> dict:
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, text=True,
                         capture_output=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _small(listing: str, n: int = 1000) -> str:
    small, count = re.subn(r"^n = [\d_]+$", f"n = {n}", listing, flags=re.M)
    assert count == 1, "the listing should set its size once, as `n = ...`"
    return small


CHECK = """
import json
import numpy as np
{listing}
ok_sum = bool(np.array_equal(result, a.copy_to_host() + b.copy_to_host()))
print(json.dumps({{"n": n, "blocks": blocks, "threads": threads, "sum": ok_sum}}))
"""


def test_the_numba_vadd_on_the_page_adds_under_the_simulator():
    got = _run_simulated(CHECK.format(listing=_small(primer_listing())))
    assert got["n"] == 1000 and got["threads"] == 256
    assert got["blocks"] == 4            # ceil(1000 / 256): the fourth block overhangs
    assert got["sum"]


def test_without_its_bounds_check_the_last_block_writes_past_the_end():
    """The test can fail: remove the `if` and the overhanging threads index out of range."""
    listing = _small(primer_listing())
    unguarded, count = re.subn(r"^(\s*)if idx < c\.size:.*\n\s*(c\[idx\].*)$", r"\1\2",
                               listing, flags=re.M)
    assert count == 1
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    out = subprocess.run([sys.executable, "-c", "import numpy as np\n" + unguarded], cwd=ROOT,
                         env=env, text=True, capture_output=True, timeout=300)
    assert out.returncode != 0 and "IndexError" in out.stderr


def test_cuda_grid_is_the_sum_in_the_listings_comment():
    code = textwrap.dedent("""
        import json
        import numpy as np
        from numba import cuda

        @cuda.jit
        def both(out):
            i = cuda.grid(1)
            out[i, 0] = i
            out[i, 1] = cuda.threadIdx.x + cuda.blockDim.x * cuda.blockIdx.x

        out = np.zeros((3 * 8, 2), dtype=np.int64)
        both[3, 8](out)
        print(json.dumps(out.tolist()))
    """)
    rows = _run_simulated(code)
    assert [r[0] for r in rows] == list(range(24))
    assert all(r[0] == r[1] for r in rows)


def test_the_helper_glossary_states_the_labs_constants():
    """The Going-further box says f1 is v <- 0.999 v + 0.001, fma4 unrolls in blocks of 32,
    and load4/store4 move floats 4i to 4i+3: the lab's constants and its simulator twin."""
    from labs import kernels

    text = CHAPTER.read_text()
    box = text[text.index("Going further: the helpers"):]
    box = box[:box.index("\n:::\n")]
    assert "0.999" in box and "0.001" in box and "blocks of 32" in box
    assert (kernels.FMA_A, kernels.FMA_B) == (np.float32(0.999), np.float32(0.001))
    assert kernels.UNROLL == 32 and kernels.VEC == 4
    load4, store4 = kernels._vec4_sim()
    x = list(range(12))
    assert load4(x, 1) == (4, 5, 6, 7)
    store4(x, 2, -1, -2, -3, -4)
    assert x[8:] == [-1, -2, -3, -4]
