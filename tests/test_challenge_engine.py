"""The challenge engine: collect (runs a submission, records) and judge (decides, never runs
it), the simulator's mechanism counters against hand-computed values on tiny kernels, the
estimate from the counts, the sizes of a check, the sm_75 compile's refusal with a hint,
and the verdict printed once.

Kernels run under numba's CUDA simulator in processes of their own
(tests/challenge_engine_sim.py; ``python -m labs.challenges.collect``). Expected counts are
worked out by hand in each test from the access pattern, never read from the code."""
from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from labs import challenges as ch
from labs.challenges import counters, estimate, judge
from perfmodel import machines

ROOT = pathlib.Path(__file__).resolve().parents[1]
SIM = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", CUDA_VISIBLE_DEVICES="",
           PYTHONPATH=str(ROOT))
PY = sys.executable

def _gpu_script():
    """labs/challenges/engine_gpu_check.py: the wrong kernels it runs on a GPU are the ones here."""
    spec = importlib.util.spec_from_file_location("engine_gpu_check",
                                                  ROOT / "labs" / "challenges" / "engine_gpu_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SAXPY, WRONG = _gpu_script().SAXPY, _gpu_script().WRONG
_LAUNCH = "    saxpy[(x.size + threads - 1) // threads, threads](a, x, y, out)"
#: Work that reaches a device array whole, so that the counters never see it (a hostile
#: student's of 2026-12-07 and its kin): inside the kernel, numpy on the array (np.asarray
#: compiles for a GPU; a thread sums or copies the whole array, counted as nothing), a
#: numpy method and a ufunc; on the host inside launch, a method and arithmetic.
WHOLE = {name: "import numpy as np\n" + text for name, text in {
    "in_kernel_asarray": SAXPY.replace("out[i] = a * x[i] + y[i]",
                                       "out[i] = a * np.asarray(x)[i] + y[i]"),
    "in_kernel_method": SAXPY.replace("out[i] = a * x[i] + y[i]",
                                      "out[i] = a * x.copy()[i] + y[i]"),
    "in_kernel_ufunc": SAXPY.replace("out[i] = a * x[i] + y[i]",
                                     "np.add(x, y, out)"),
    "host_method": SAXPY.replace(_LAUNCH, "    s = x.sum()\n" + _LAUNCH),
    "host_arithmetic": SAXPY.replace(_LAUNCH, _LAUNCH.replace("(a, x, y, out)",
                                                             "(a, x * 1, y, out)")),
    # a second hostile student's (2026-12-07): numpy asks for __array_struct__ first
    "host_asarray": SAXPY.replace(_LAUNCH, "    np.asarray(x)\n" + _LAUNCH),
    # numba copies a numpy argument to the device: a host transfer
    "host_argument": SAXPY.replace(_LAUNCH, _LAUNCH.replace(
        "(a, x, y, out)", "(a, x, a * np.ones(x.size, np.float32), out)")),
    # a read through an atomic that adds nothing is not counted as a read
    "atomic_read": SAXPY.replace("out[i] = a * x[i] + y[i]",
                                 "out[i] = a * cuda.atomic.add(x, i, 0.0) + y[i]"),
    # honest: a debugging print of a device array shows no values, and passes
    "host_print": SAXPY.replace(_LAUNCH, "    print('launching on', x, repr(y))\n" + _LAUNCH),
}.items()}


@pytest.fixture(scope="module")
def sim(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("subs")
    (folder / "right.py").write_text(SAXPY)
    for name, text in {**WRONG, **WHOLE}.items():
        assert text != SAXPY, name  # the edit took
        (folder / f"{name}.py").write_text(text)
    proc = subprocess.run([PY, str(ROOT / "tests" / "challenge_engine_sim.py"), str(folder)],
                          capture_output=True, text=True, env=SIM, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ------------------------------------------------------- counters, on tiny kernels

def test_coalesced_loads_use_whole_sectors_and_strided_ones_one_in_eight(sim):
    # 32 lanes x 4 bytes, consecutive: 128 bytes in 4 sectors, 1 sector per 32 bytes.
    assert sim["coalesced"]["sectors.x.load"] == 1.0
    # x[8 i]: each 4-byte value 32 bytes from the next, a sector each: 8 per 32 bytes.
    assert sim["strided"]["sectors.x.load"] == 8.0
    assert sim["strided"]["sectors.out.store"] == 1.0
    # two launches' worth of elements read once, written once
    assert sim["coalesced"]["reads_per_element.x"] == 1.0
    assert sim["coalesced"]["writes_per_element.out"] == 1.0
    assert sim["strided"]["reads_per_element.x"] == 1 / 8


def test_a_16_byte_load_is_one_access_of_whole_sectors(sim):
    # load4: lane l reads floats 4l..4l+3; the warp's 512 bytes fill 16 sectors: 1.0.
    # (four separate element loads would each touch 16 sectors for 128 bytes: 4.0)
    assert sim["vector"]["sectors.x.load"] == 1.0
    assert sim["vector"]["sectors.out.store"] == 1.0
    assert sim["vector"]["bytes_in_flight"] == 16


def test_a_stride_of_two_words_is_a_two_way_bank_conflict(sim):
    # lane t uses word 2t: banks 0, 2, ..., 30, each holding two of the 32 words
    assert sim["two_way"]["bank_ways"] == 2 and sim["two_way"]["bank_ways_mean"] == 2.0
    # every lane reading one word is a broadcast: no conflict
    assert sim["broadcast"]["bank_ways"] == 1


def test_a_branch_on_the_lane_parity_runs_two_paths_per_warp(sim):
    assert sim["divergent"]["paths_per_warp"] == 2.0
    assert sim["converged"]["paths_per_warp"] == 1.0
    assert sim["converged"]["launches"] == 1


def test_a_kernel_that_never_waits_runs_in_turn_and_one_with_a_barrier_does_not(sim):
    r = sim["closure_barrier"]
    assert r["in_turn"] and r["needs_threads"] and r["reversed"]


def test_without_greenlet_os_threads_give_the_same_answers(sim):
    r = sim["os_threads"]
    assert r["two_way"] == 2 and r["reversed"]
    assert "not every lane reached the shuffle" in r["shuffle_in_branch"]


def test_a_shuffle_inside_a_branch_stops_at_once_with_the_reason(sim):
    r = sim["shuffle_in_branch"]
    assert r["error"] and "not every lane reached the shuffle" in r["error"]
    assert r["seconds"] < 20  # (a bound on a hang, not a timing: the old barrier waited 30 s)


def test_counters_on_hand_made_events():
    # one warp: lanes 0..31 read x[32 l] (4-byte floats, 128 bytes apart): 32 sectors for
    # 128 bytes asked = 8 per 32 bytes; then store out[l]: 4 sectors for 128 bytes = 1.
    ev = [("x", "r", (0, (0, 0, 0)), lane, 0, 32 * lane, 4, "global") for lane in range(32)]
    ev += [("out", "w", (0, (0, 0, 0)), lane, 0, lane, 4, "global") for lane in range(32)]
    got = counters.count(ev, {"x": 1024, "out": 32})
    assert got["sectors.x.load"] == 8.0 and got["sectors.out.store"] == 1.0
    assert got["reads_per_element.x"] == 32 / 1024 and got["bytes_in_flight"] == 4
    assert got["l2_bytes"] == (32 + 4) * 32
    assert got["bytes.x.load"] == 128 and got["bytes.out.store"] == 128
    # lanes 0..31 on words 0, 8, ..., 248: only banks 0, 8, 16 and 24, 8 words each: 8-way
    assert counters.bank_ways([(8 * lane, 4) for lane in range(32)]) == 8
    # words 0, 4, ..., 124: banks 0, 4, ..., 28, 4 words each: 4-way
    assert counters.bank_ways([(4 * lane, 4) for lane in range(32)]) == 4
    assert counters.bank_ways([(0, 4)] * 32) == 1
    assert counters.path_counters({("b", 0): {1, 2}, ("b", 1): {3}}) == {
        "paths_per_warp": 1.5, "paths_per_warp_max": 2}


def test_a_target_message_names_the_counter_value_target_and_fix():
    spec = type("Spec", (), {"NAME": "demo", "MECHANISM": {
        "sectors.out.store": {"at_most": 1.0, "fix": "have neighbouring lanes write "
                                                    "neighbouring addresses"}}})
    bad = counters.judge_targets(spec, {"sectors.out.store": 8.0}, "sim")
    assert not bad["passed"]
    assert bad["message"] == ("mechanism not reached: stores of out: 8 sectors of 32 bytes "
                              "per 32 useful bytes; the target is at most 1: have "
                              "neighbouring lanes write neighbouring addresses")
    assert counters.judge_targets(spec, {"sectors.out.store": 1.0}, "sim")["passed"]
    assert not counters.judge_targets(spec, {"launches": 1}, "sim")["passed"]
    spec.MECHANISM = {"launches": {"at_most": 1, "at_least": 1}}
    with pytest.raises(ValueError, match="MECHANISM"):
        counters.targets_of(spec)


# ------------------------------------------------------------- several sizes, one verdict

def test_the_sizes_are_small_odd_and_a_seeded_mid_size():
    for name in ch.NAMES:
        spec = ch.challenge(name)
        if getattr(spec, "CHECK_SIZES", None):
            continue  # the module's own sizes (its tests hold them)
        small, mid = judge.check_sizes(spec, "sim", 3)
        for k, v in small.items():
            assert v < 16 or (v % 2 == 1), (name, small)
        assert judge.check_sizes(spec, "sim", 3) == [small, mid]  # the judge's = collect's
        assert judge.check_sizes(spec, "gpu", 3)[-1] == spec.sizes("quick")
    # n = 1000: a third made odd, and 1000 x (1.0625 + 5/16) made odd for seed 5
    assert judge._fallback_small({"n": 1000}) == {"n": 333}
    assert judge.jittered({"n": 1000}, 5) == {"n": 1375}
    assert judge.jittered({"n": 1000}, 8) == {"n": 1063}


#: The seed tests/challenge_engine_sim.py checks the wrong saxpy files with.
SIM_SEED = 11


def _saxpy_sim_sizes() -> list[int]:
    """n of each simulator size of those checks, from saxpy's own CHECK_SIZES."""
    from labs.challenges import saxpy

    return [s["n"] for s in saxpy.CHECK_SIZES["sim"](SIM_SEED)]


def test_a_truncated_grid_a_missing_bounds_check_and_a_hard_coded_grid_fail(sim):
    assert sim["file/right"]["passed"], sim["file/right"]["messages"]
    small, mid = _saxpy_sim_sizes()
    assert small % 256 and mid > 4 * 256  # what makes each wrong grid show
    t = sim["file/truncated"]
    # x.size // 256 whole blocks cover 256 * (small // 256) elements; the next is never written
    first = 256 * (small // 256)
    assert not t["passed"] and t["first_wrong"].startswith(f"at n = {small}: out[{first}] = nan")
    u = sim["file/unbounded"]
    assert not u["passed"] and "out of bounds" in u["first_wrong"]
    assert "if i < x.size" in u["first_wrong"]
    h = sim["file/hardcoded"]  # 4 blocks of 256 cover 1024 elements; the mid size is more
    assert not h["passed"] and h["first_wrong"].startswith(f"at n = {mid}: out[1024] = nan")


def test_a_host_side_numpy_kernel_is_refused_with_the_reason(sim):
    r = sim["file/host"]
    assert not r["passed"] and "work done outside a kernel" in r["first_wrong"]
    assert "copy_to_host" in r["first_wrong"]
    # the first copy refused: x (float32, 4 bytes an element) at the first size
    assert r["host_transfers"] and r["host_transfers"][0]["bytes"] == _saxpy_sim_sizes()[0] * 4


@pytest.mark.parametrize("name, says", [
    ("in_kernel_asarray", "np.asarray of the device array x inside a kernel"),
    ("in_kernel_method", "copy of the device array x inside a kernel"),
    ("in_kernel_ufunc", "np.add of the device array x inside a kernel"),
    ("host_method", "work done outside a kernel: launch used x.sum on the host"),
    ("host_arithmetic", "work done outside a kernel: launch computed with x on the host"),
    ("host_asarray", "work done outside a kernel: launch read x as a numpy array on the host"),
    ("host_argument", "work done outside a kernel: launch passed a host (numpy) array to "
                      "saxpy"),
    ("atomic_read", "cuda.atomic.add on x, an input")])
def test_whole_array_work_on_a_device_array_is_refused_with_the_reason(sim, name, says):
    r = sim[f"file/{name}"]
    assert not r["passed"] and says in r["first_wrong"], r


def test_a_debugging_print_of_a_device_array_passes(sim):
    assert sim["file/host_print"]["passed"], sim["file/host_print"]


#: Starters' faults kept and hidden from their counters (the second and third hostile
#: students', 2026-12-07): case -> (challenge, source, what the failing message says).
STARTERS = ch.HERE / "starters"
_REGROUP = (STARTERS / "regroup.py").read_text()
_ILP = (STARTERS / "ilp.py").read_text()
_REDUCE = (STARTERS / "reduce.py").read_text()
_TRANSPOSE = (STARTERS / "transpose.py").read_text()
#: One atomic an element, into a scratch accumulator, then one into out.
_SCRATCH = """import numpy as np
from numba import cuda


@cuda.jit
def zero(acc):
    acc[0] = 0.0


@cuda.jit
def add_all(x, acc):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(acc, 0, x[i])


@cuda.jit
def copy(acc, out):
    cuda.atomic.add(out, 0, acc[0])


def launch(x, out):
    acc = cuda.device_array(1, np.float32)
    zero[1, 1](acc)
    zero[1, 1](out)
    add_all[(x.size + 255) // 256, 256](x, acc)
    copy[1, 1](acc, out)
"""
HIDDEN = {
    # both parities still in every warp, as one conditional expression on one line
    "regroup_one_line": ("regroup", _REGROUP.replace(
        "        if even:                        # path A\n"
        "            ru, rv = both_chains(u, A0, B0), both_chains(v, A0, B0)\n"
        "        else:                           # path B\n"
        "            ru, rv = both_chains(u, A1, B1), both_chains(v, A1, B1)\n",
        "        ru, rv = ((both_chains(u, A0, B0), both_chains(v, A0, B0)) if even else "
        "(both_chains(u, A1, B1), both_chains(v, A1, B1)))\n"), "branches: "),
    # regrouped only in the blocks the simulator used to trace (the first two, the last)
    "regroup_untraced_blocks": ("regroup", _REGROUP.replace(
        "    return t                            # your turn: regroup\n",
        "    b, g = cuda.blockIdx.x, cuda.gridDim.x\n"
        "    if b < 2 or b == g - 1:\n"
        "        warp, lane = t // 32, t % 32\n"
        "        return 64 * (warp // 2) + 2 * lane + warp % 2\n"
        "    return t\n").replace(
        "    blocks = resident_grid(paths, THREADS, (x, out))",
        "    blocks = (x.size + THREADS - 1) // THREADS"), "branches: "),
    # one thread reads 64 bytes ahead; every other one still 4
    "ilp_one_thread": ("ilp", _ILP.replace(
        "    while i < x.size:\n",
        "    if i == 0 and x.size >= 16:\n"
        "        v = cuda.local.array(16, x.dtype)\n"
        "        for k in range(16):\n"
        "            v[k] = x[k]\n"
        "        for k in range(16):\n"
        "            out[k] = 2.0 * v[k]\n"
        "        i += stride\n"
        "    while i < x.size:\n"), "loads before a store: 4 bytes"),
    # every thread reads its one value sixteen times, once
    "ilp_repeated_reads": ("ilp", _ILP.replace(
        "    while i < x.size:\n",
        "    if i < x.size:\n"
        "        v = x[i]\n"
        "        for k in range(15):\n"
        "            v = max(v, x[i])\n"
        "        out[i] = 2.0 * v\n"
        "        i += stride\n"
        "    while i < x.size:\n"), "loads before a store: 4 bytes"),
    # one atomic an element, into a scratch accumulator, then one into out
    "reduce_scratch": ("reduce", _SCRATCH, "atomic operations on global memory: 3,"),
    # the starter's atomic an element, through out.T (numba's own T was uncounted)
    "reduce_through_T": ("reduce", _REDUCE.replace("cuda.atomic.add(out, 0,",
                                                   "cuda.atomic.add(out.T, 0,"),
                         "atomic operations on global memory: 3,"),
    # stores made coalesced, the strided read moved into a transposed view of x
    "transpose_through_T": ("transpose", _TRANSPOSE.replace(
        "out[col * n + row] = x[row * n + col]",
        "out[row * n + col] = x.reshape(n, n).T[row, col]"), "loads of x: 8"),
    # a fourth student's: the unpadded tile in dynamic shared memory, which the simulator
    # did not record (only a conflict-free decoy was)
    "transpose_dynamic_shared": ("transpose", """from numba import cuda, float32


@cuda.jit
def transpose(x, out, n):
    tile = cuda.shared.array(0, float32)        # dynamic, 32 x 32, unpadded
    pad = cuda.shared.array(32, float32)        # conflict-free
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    pad[tx] = 0.0
    c0 = cuda.blockIdx.x * 32
    r0 = cuda.blockIdx.y * 32
    for k in range(4):
        r = ty + 8 * k
        if r0 + r < n and c0 + tx < n:
            tile[r * 32 + tx] = x[(r0 + r) * n + c0 + tx]
    cuda.syncthreads()
    for k in range(4):
        r = ty + 8 * k
        if c0 + r < n and r0 + tx < n:
            out[(c0 + r) * n + r0 + tx] = tile[tx * 32 + r]   # column read: 32-way conflict


def launch(x, out, n):
    transpose[((n + 31) // 32, (n + 31) // 32), (32, 8), 0, 4096](x, out, n)
""", "32 ways of bank conflict"),
    # and the scratch accumulator in mapped memory, which it did not count
    "reduce_mapped_scratch": ("reduce", _SCRATCH.replace(
        "    acc = cuda.device_array(1, np.float32)\n",
        "    try:  # host-mapped memory (the compile check, with no GPU, cannot map it)\n"
        "        acc = cuda.mapped_array(1, np.float32)\n"
        "    except Exception:\n"
        "        acc = cuda.device_array(1, np.float32)\n"), "an array the check does not count"),
}
#: A block reduction with no atomic at all: partial sums a block, then one block adds
#: them (a third hostile student's honest control).
_BLOCK_SUMS = """import numpy as np
from numba import cuda, float32

THREADS = 256


@cuda.jit(device=True)
def block_sum(v, s):
    t = cuda.threadIdx.x
    s[t] = v
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    return s[0]


@cuda.jit
def one_block(x, out):
    s = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    v = float32(0.0)
    for j in range(t, x.size, THREADS):
        v += x[j]
    total = block_sum(v, s)
    if t == 0:
        out[0] = total


@cuda.jit
def partials(x, p):
    s = cuda.shared.array(THREADS, float32)
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(0.0)
    total = block_sum(v, s)
    if cuda.threadIdx.x == 0:
        p[cuda.blockIdx.x] = total


def launch(x, out):
    blocks = (x.size + THREADS - 1) // THREADS
    p = cuda.device_array(blocks, dtype=np.float32)
    partials[blocks, THREADS](x, p)
    one_block[1, THREADS](p, out)
"""
#: Honest kernels the defences above must not fail: that reduction, the same choosing
#: its kernels by size (the compile runs every size), and numba's scalar types named.
HONEST = {
    "reduce_no_atomics": ("reduce", _BLOCK_SUMS),
    "saxpy_numba_types": ("saxpy", (ch.HERE / "solutions" / "saxpy.py").read_text().replace(
        "from numba import cuda", "from numba import cuda, types\n\nF32, U8 = types.float32, "
        "cuda.uint8")),
    "reduce_by_size": ("reduce", _BLOCK_SUMS.replace(
        "def launch(x, out):\n",
        "def launch(x, out):\n    if x.size <= 1024:\n"
        "        one_block[1, THREADS](x, out)\n        return\n")),
}


def _check(tmp_path, name: str, source: str) -> dict:
    mine = tmp_path / f"{name}.py"
    mine.write_text(source)
    proc = subprocess.run([PY, "-m", "labs", "challenge", "check", name, str(mine), "--json",
                           "--seed", "2"], capture_output=True, text=True, env=SIM, cwd=ROOT,
                          timeout=600)
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", sorted(HIDDEN))
def test_a_starters_fault_hidden_from_its_counter_still_fails(tmp_path, case):
    name, source, says = HIDDEN[case]
    assert source != (STARTERS / f"{name}.py").read_text()  # the edit took
    v = _check(tmp_path, name, source)
    assert not v["passed"] and says in v["message"], v


@pytest.mark.parametrize("case", sorted(HONEST))
def test_an_honest_kernel_the_defences_must_not_fail(tmp_path, case):
    name, source = HONEST[case]
    v = _check(tmp_path, name, source)
    assert v["passed"], v


def test_the_active_recorder_is_out_of_a_submissions_reach():
    """A student reached labs.challenges.sim through numba's FunctionIdentity(load4).module
    and rewrote Recorder.active.events. No attribute without a leading underscore (the
    policy refuses the rest), two steps from the module, leads to the recording now."""
    code = """
import numpy as np
from labs.challenges import sim
rec = sim.Recorder()
found = []
with rec:
    x = rec.wrap("x", np.arange(8, dtype=np.float32))
    for a in dir(sim):
        if a.startswith("_"):
            continue
        obj = getattr(sim, a)
        for b in [None] + [n for n in dir(obj) if not n.startswith("_")]:
            try:
                got = obj if b is None else getattr(obj, b)
            except Exception:
                continue
            if got is rec or got is rec.events:
                found.append(f"{a}.{b}")
print(found)
"""
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, env=SIM, cwd=ROOT,
                          timeout=120)
    assert proc.stdout.strip() == "[]", (proc.stdout, proc.stderr[-2000:])


def test_views_of_a_counted_array_stay_counted():
    """x.view() and x.split() on the host hand a kernel arrays whose accesses still count
    (numba's own simulator array returns uncounted ones)."""
    code = """
import numpy as np
from labs.challenges import sim
rec = sim.Recorder()
with rec:
    x = rec.wrap("x", np.arange(8, dtype=np.float32))
    print(type(x.view(np.int32)).__name__, [type(p).__name__ for p in x.split(4)])
"""
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, env=SIM, cwd=ROOT,
                          timeout=120)
    assert proc.stdout.split() == ["Counted", "['Counted',", "'Counted']"], proc.stderr[-2000:]


def test_each_output_is_the_head_of_a_buffer_whose_canary_shows_an_overhang():
    from labs.challenges import collect

    # a 2-D output of 3 x 5 floats: 15 elements, then the pad, every byte 0xA5
    buffer, out = collect.padded((3, 5), np.float32)
    assert out.shape == (3, 5) and np.isnan(out).all()
    assert buffer.size == 15 + collect.PAD and collect.PAD >= 1024  # a block's threads
    assert (buffer[15:].view(np.uint8) == 0xA5).all()
    out[:] = 1.0  # every element written: the pad is untouched
    assert collect.overrun("y", buffer[15:]) is None
    collect.overruns({"y": (buffer, 15)})
    # what a GPU lets a kernel without a bounds check do: the last block's extra threads
    # write the elements after the end (the simulator stops at the first such index)
    buffer[15:15 + 17] = 2.0
    said = collect.overrun("y", buffer[15:])
    assert said == ("wrote past the end of y (the last block overhangs it, so each thread "
                    "must check its index (if i < x.size))")
    with pytest.raises(collect.Overrun, match="past the end of y"):
        collect.overruns({"y": (buffer, 15)})
    # one changed byte at the far end of the pad is enough
    buffer, out = collect.padded((999,), np.float32)
    buffer.view(np.uint8)[-1] = 0
    with pytest.raises(collect.Overrun):
        collect.overruns({"out": (buffer, 999)})
    # the simulator's out-of-bounds error leads to the same words
    sim_said = collect._error(IndexError("index 1024 is out of bounds for axis 0 with "
                                         "size 999"), None)
    assert "the last block overhangs it" in sim_said and "if i < x.size" in sim_said
    assert collect._error(collect.Overrun(said), None) == said


def test_a_gpu_overrun_recorded_by_collect_fails_the_verdict():
    spec = ch.challenge("saxpy")
    sizes = judge.check_sizes(spec, "gpu", 5)
    why = "wrote past the end of out (the last block overhangs it, ...)"
    meta = {"challenge": "saxpy", "seed": 5, "mode": "gpu", "sizes": sizes, "counters": {},
            "launches": 1, "host_transfers": [], "device": "GPU",
            "errors": {str(k): why for k in range(len(sizes))}}
    v = judge.judge("saxpy", {"meta": meta}, 5, mode="gpu")
    assert not v["passed"] and not v["correct"]
    assert v["first_wrong"] == f"at n = {sizes[0]['n']}: {why}"


# ------------------------------------------------------------------ collect and judge

def _collect(name: str, file: pathlib.Path, out: pathlib.Path, seed: int, *extra) -> None:
    proc = subprocess.run([PY, "-m", "labs.challenges.collect", name, str(file), "--seed",
                           str(seed), "--out", str(out), *extra], capture_output=True,
                          text=True, env=SIM, cwd=ROOT, timeout=300)
    assert proc.returncode == 0 and out.exists(), proc.stderr[-2000:]


@pytest.fixture(scope="module")
def collected(tmp_path_factory) -> pathlib.Path:
    folder = tmp_path_factory.mktemp("rt")
    out = folder / "ref.npz"
    _collect("saxpy", ch.HERE / "solutions" / "saxpy.py", out, 7, "--no-compile")
    return out


def test_collect_then_judge_round_trip(collected):
    proc = subprocess.run([PY, "-m", "labs.challenges.judge", "saxpy", str(collected),
                           "--seed", "7", "--json"], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    v = json.loads(proc.stdout.strip().splitlines()[-1])
    assert v["correct"] and v["passed"] and v["first_wrong"] is None
    assert {"challenge", "correct", "first_wrong", "mechanism", "estimate", "share",
            "passed", "messages"} <= set(v)
    # 16-byte loads fill whole sectors; the last, partial group of an odd n reads floats one
    # at a time (one sector for 4 bytes), a small excess over 1
    assert 1.0 <= v["mechanism"]["counters"]["sectors.x.load"] < 1.01
    assert v["estimate"]["label"] == "estimate" and v["estimate"]["machine"] == "T4"
    assert v["estimate"]["limit"] in estimate.LIMITS and v["share"] is None
    with np.load(collected) as z:
        meta = json.loads(str(z["meta"][()]))
        assert set(z.files) == {"meta", "out0_out", "out1_out"}
    assert meta["sizes"] == judge.check_sizes(ch.challenge("saxpy"), "sim", 7)
    assert meta["mode"] == "sim" and meta["launches"] == 1 and meta["errors"] == {}
    # the same file judged with another machine: another estimate, same verdict
    other = judge.judge("saxpy", collected, 7, machine="H200")
    assert other["passed"] and other["estimate"]["machine"] == "H200"


def _forge(collected: pathlib.Path, tmp: pathlib.Path, change) -> pathlib.Path:
    with np.load(collected) as z:
        data = {k: z[k] for k in z.files}
    meta = json.loads(str(data["meta"][()]))
    change(data, meta)
    if "meta" in data:
        data["meta"] = np.array(json.dumps(meta)) if not isinstance(data["meta"], str) \
            else np.array(data["meta"])
    out = tmp / "forged.npz"
    np.savez(out, **data)
    return out


@pytest.mark.parametrize("change, says", [
    (lambda d, m: m.update(seed=8), "seed 8, not 7"),
    (lambda d, m: m.update(challenge="fuse"), "for challenge 'fuse'"),
    (lambda d, m: d.update(extra=np.zeros(3)), "entries the check does not make: extra"),
    (lambda d, m: d.pop("out1_out"), "lacks out1_out"),
    (lambda d, m: d.update(out0_out=d["out0_out"].astype(np.float64)), "float64"),
    (lambda d, m: d.update(out0_out=d["out0_out"][:-1]), "of shape"),
    (lambda d, m: d.update(meta="{not json"), "not JSON"),
    (lambda d, m: d.pop("meta"), "no meta entry"),
    (lambda d, m: m.update(sizes=[{"n": 1}, {"n": 2}]), "the check runs"),
    (lambda d, m: m.update(mode="gpu"), "sizes"),
])
def test_a_forged_or_malformed_file_fails_with_the_reason(collected, tmp_path, change, says):
    v = judge.judge("saxpy", _forge(collected, tmp_path, change), 7)
    assert v["passed"] is False and v["correct"] is False
    assert says in v["first_wrong"], v["first_wrong"]
    assert says in v["messages"][0]


def test_a_file_that_is_not_an_npz_or_holds_pickles_fails(tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    assert "cannot be read" in judge.judge("saxpy", junk, 7)["first_wrong"]
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, meta=np.array([{"challenge": "saxpy"}], dtype=object))
    v = judge.judge("saxpy", pickled, 7)
    assert not v["passed"] and "pickles" in v["first_wrong"]


def _judged_with_peak(path) -> tuple[dict, int]:
    """The judge's verdict on the saxpy file at ``path`` (seed 7) and the most memory
    Python allocated meanwhile, bytes (tracemalloc)."""
    import tracemalloc

    tracemalloc.start()
    try:
        v = judge.judge("saxpy", path, 7)
        return v, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_zip_bomb_is_refused_unread(collected, tmp_path):
    """A file that unpacks to more than any check hands back (256 MiB, from a 0.3 MB file)
    is refused from its declared sizes, before the judge reads a byte of it: the judge runs
    outside the sandbox, under no memory limit."""
    import zipfile

    bomb = tmp_path / "bomb.npz"
    with zipfile.ZipFile(collected) as src, \
            zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for info in src.infolist():
            z.writestr(info, src.read(info))
        with z.open("zz.npy", "w", force_zip64=True) as f:
            zeros = bytes(2 ** 24)
            for _ in range(17):                     # 272 MiB
                f.write(zeros)
    assert bomb.stat().st_size < 2 ** 20
    v, peak = _judged_with_peak(bomb)
    assert not v["passed"] and "unpacks to 272 MiB (at most 256 MiB)" in v["first_wrong"]
    assert peak < 2 ** 26, peak


def test_an_array_header_larger_than_its_data_is_refused_unread(collected, tmp_path):
    """An npy member whose header declares 4 TiB over 16 bytes of data: numpy would try to
    allocate the declared array before finding the data short, so the judge (outside the
    sandbox) refuses it from the header alone."""
    import zipfile

    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    member = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode()
    forged = tmp_path / "huge.npz"
    with zipfile.ZipFile(collected) as src, zipfile.ZipFile(forged, "w") as z:
        for info in src.infolist():
            z.writestr(info, src.read(info))
        z.writestr("zz.npy", member + bytes(16))
    v, peak = _judged_with_peak(forged)
    assert not v["passed"]
    assert "member zz.npy declares 4,398,046,511,104 bytes of data but holds" in v["first_wrong"]
    assert peak < 2 ** 26, peak


def test_the_verdict_prints_once_and_names_no_path(collected):
    v = ch.Verdict(judge.judge("saxpy", collected, 7))
    assert repr(v) == str(v) == judge.text(v)
    assert repr(v).startswith("saxpy: PASSED on CUDA simulator (CPU)")
    assert "\n  - correct at every size" in repr(v)
    assert not hasattr(v, "_repr_html_") and not hasattr(v, "_ipython_display_")


def test_a_missing_or_broken_file_is_named_without_its_folder(tmp_path):
    bad = tmp_path / "deep" / "folder"
    bad.mkdir(parents=True)
    (bad / "mine.py").write_text("import nothing_here\n")
    v = ch.check("saxpy", bad / "mine.py", seed=3)
    assert not v["passed"] and v["broken"]
    text = repr(v)
    assert str(bad) not in text and "deep" not in text
    assert "the submission does not import" in text  # not "Mine.py" or "The ..."
    assert "no such file: gone.py" in repr(ch.check("saxpy", tmp_path / "gone.py", seed=3))


# ------------------------------------------------- large outputs: a seeded sample

def test_a_large_output_is_sampled_at_both_ends_and_positions_drawn_from_the_seed():
    assert judge.sample_positions(2 ** 20, 3, 2, "out") is None  # 4 MiB of floats: whole
    n = 2 ** 24
    pos = judge.sample_positions(n, 3, 2, "out")
    assert pos.dtype == np.int64 and (np.diff(pos) > 0).all()  # sorted, distinct
    assert pos[0] == 0 and pos[-1] == n - 1
    assert set(range(4096)) <= set(pos[:4096].tolist())
    assert set(range(n - 4096, n)) <= set(pos[-4096:].tolist())
    # 8,192 at the ends and 65,536 drawn, a few of them twice (2**16 draws of 2**24: the
    # expected repeats are about 2**32 / 2**25 = 128)
    assert 8192 + 65536 - 1000 < pos.size <= 8192 + 65536
    assert np.array_equal(pos, judge.sample_positions(n, 3, 2, "out"))
    assert not np.array_equal(pos, judge.sample_positions(n, 4, 2, "out"))
    assert not np.array_equal(pos, judge.sample_positions(n, 3, 2, "y"))
    # values and positions together: far below the grader's 64 MiB (the whole output,
    # 2**24 float32, is 64 MiB by itself)
    assert pos.size * (4 + 8) < 2 ** 20


def _gpu_file(seed: int) -> tuple[dict, dict, np.ndarray]:
    """A right GPU-mode file for saxpy (out = 2.5 x + y, computed here), its timing size
    sampled as collect samples it; and the whole right output at that size."""
    spec = ch.challenge("saxpy")
    sizes = judge.check_sizes(spec, "gpu", seed)
    rng = np.random.default_rng(seed)
    arrays = {}
    for k, size in enumerate(sizes):
        x, y = rng.random(size["n"], dtype=np.float32), rng.random(size["n"], dtype=np.float32)
        out = np.float32(2.5) * x + y
        pos = judge.sample_positions(out.size, seed, k, "out")
        if pos is None:
            arrays[f"out{k}_out"] = out
        else:
            arrays[f"out{k}_out"], arrays[f"idx{k}_out"] = out[pos], pos
    meta = {"challenge": "saxpy", "seed": seed, "mode": "gpu", "sizes": sizes, "counters": {},
            "launches": 1, "host_transfers": [], "errors": {}, "device": "GPU"}
    return arrays, meta, out


def test_the_judge_compares_a_sampled_output_at_its_positions(tmp_path):
    from labs.challenges import collect

    arrays, meta, whole = _gpu_file(9)
    assert meta["sizes"][-1]["n"] > judge.SAMPLE_ABOVE and "idx2_out" in arrays
    assert "idx0_out" not in arrays and "idx1_out" not in arrays  # small sizes whole
    path = collect.write(tmp_path / "gpu.npz", arrays, meta)
    assert path.stat().st_size < 2 ** 20
    v = judge.judge("saxpy", path, 9, mode="gpu")
    assert v["correct"], v["first_wrong"]
    # one wrong value at a sampled position: named by its index in the whole output
    pos = arrays["idx2_out"]
    bad = dict(arrays, out2_out=arrays["out2_out"].copy())
    bad["out2_out"][100] = np.nan
    v = judge.judge("saxpy", {**bad, "meta": meta}, 9, mode="gpu")
    n = meta["sizes"][-1]["n"]
    assert not v["correct"] and v["first_wrong"].startswith(
        f"at n = {n}: out[{pos[100]}] = nan, expected {float(whole[pos[100]]):.9g}")
    assert f"1 of {pos.size:,} sampled elements (of {n:,})" in v["first_wrong"]


@pytest.mark.parametrize("change, says", [
    (lambda a, w: a.update(idx2_out=a["idx2_out"] + 1), "not the positions the check samples"),
    (lambda a, w: a.pop("idx2_out"), "lacks idx2_out"),
    (lambda a, w: a.update(out2_out=w), "of shape"),
    (lambda a, w: a.update(idx0_out=np.arange(3)), "entries the check does not make"),
])
def test_a_sample_at_other_positions_or_without_them_fails(change, says):
    arrays, meta, whole = _gpu_file(9)
    change(arrays, whole)
    v = judge.judge("saxpy", {**arrays, "meta": meta}, 9, mode="gpu")
    assert not v["passed"] and says in v["first_wrong"], v["first_wrong"]


def test_collect_writes_the_sample_the_judge_reads(tmp_path, monkeypatch):
    # the simulator's sizes made "large" (above 500 elements) in both processes
    small = dict(SAMPLE_ABOVE=500, SAMPLE_EDGE=16, SAMPLE_DRAWN=64)
    out = tmp_path / "s.npz"
    code = ("import sys; import labs.challenges.judge as j; "
            f"[setattr(j, k, v) for k, v in {small!r}.items()]; "
            "from labs.challenges.collect import main; sys.exit(main(sys.argv[1:]))")
    proc = subprocess.run([PY, "-c", code, "saxpy", str(ch.HERE / "solutions" / "saxpy.py"),
                           "--seed", "7", "--out", str(out), "--no-compile"],
                          capture_output=True, text=True, env=SIM, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for k, v in small.items():
        monkeypatch.setattr(judge, k, v)
    sizes = judge.check_sizes(ch.challenge("saxpy"), "sim", 7)
    with np.load(out) as z:
        for k, size in enumerate(sizes):
            assert np.array_equal(z[f"idx{k}_out"], judge.sample_positions(size["n"], 7, k,
                                                                          "out"))
            assert z[f"out{k}_out"].shape == z[f"idx{k}_out"].shape
            assert z[f"idx{k}_out"].size < size["n"]
    v = judge.judge("saxpy", out, 7)
    assert v["correct"] and v["passed"], v["messages"]


# ------------------------------------------------------------------------ the estimate

def test_the_estimate_is_the_slowest_roof_by_hand():
    m = machines.measured("Round GPU", {"fp32": 1e12}, {"dram": 1e11, "l2": 4e11},
                          source="a test")
    m = dataclasses.replace(m, sms=10, clock_hz=1e9)
    # 1 GB of DRAM at 100 GB/s: 10 ms; 2 GB of sectors at 400 GB/s: 5 ms; 1e9 FLOPs
    # x 2 paths at 1 TFLOP/s: 2 ms; 1e7 shared passes x 128 B at 10 x 128 B x 1 GHz: 1 ms
    e = estimate.estimate_time(m, dram_bytes=1e9, l2_bytes=2e9, shared_passes=1e7,
                               flops=1e9, paths=2)
    assert e["limit"] == "dram" and e["seconds"] == pytest.approx(0.01)
    assert e["terms"] == pytest.approx({"dram": 0.01, "l2": 0.005, "shared": 0.001,
                                        "compute": 0.002})
    assert e["label"] == "estimate"
    # 8x the sectors: L2 limits (16 GB / 400 GB/s = 40 ms)
    assert estimate.estimate_time(m, dram_bytes=1e9, l2_bytes=16e9)["limit"] == "l2"
    # Little's law: 1000 threads x 4 B in flight / 1 us = 4 GB/s < 100 GB/s: 250 ms
    slow = estimate.estimate_time(m, dram_bytes=1e9, bytes_in_flight=4, threads=1000,
                                  latency_s=1e-6)
    assert slow["seconds"] == pytest.approx(0.25) and slow["assumptions"]
    # no L2 figure: 4 GB of sectors priced at 100 GB/s, as DRAM traffic: 40 ms
    flat = machines.measured("Flat GPU", {"fp32": 1e12}, {"dram": 1e11}, source="a test")
    flat = dataclasses.replace(flat, sms=10, clock_hz=1e9)
    f = estimate.estimate_time(flat, dram_bytes=1e9, l2_bytes=4e9)
    assert f["limit"] == "dram" and f["seconds"] == pytest.approx(0.04) and f["assumptions"]
    with pytest.raises(ValueError, match="dram_bytes"):
        estimate.estimate_time(m, dram_bytes=-1.0)
    with pytest.raises(ValueError, match="paths"):
        estimate.estimate_time(m, dram_bytes=1.0, paths=0.5)


def test_the_shared_bandwidth_is_banks_times_clock():
    t4 = machines.get("T4")  # 40 SMs x 32 banks x 4 B x 1.59 GHz
    assert estimate.shared_bandwidth(t4) == pytest.approx(40 * 128 * 1.59e9)


def test_record_gives_estimate_over_measured():
    c = {"size": {"n": 1000}, "bytes.x.load": 4000, "bytes.y.load": 4000,
         "bytes.out.store": 4000, "l2_bytes": 12000, "paths_per_warp": 1.0,
         "bytes_in_flight": 16, "threads": 256, "grid_scales": 1}
    r = estimate.record("saxpy", "reference", c, 2e-4, "H200")
    # 12 bytes an element x 2^26 elements at the H200's 4.8 TB/s datasheet bandwidth
    assert r["estimate_s"] == pytest.approx(12 * 2 ** 26 / 4.8e12, rel=1e-6)
    assert r["estimate_over_measured"] == pytest.approx(r["estimate_s"] / 2e-4)
    with pytest.raises(ValueError, match="measured_s"):
        estimate.record("saxpy", "reference", c, 0.0)


# ------------------------------------------------------------ compiling for sm_75

def _nvvm() -> bool:
    proc = subprocess.run([PY, "-c", "from numba.cuda.cudadrv import nvvm; nvvm.NVVM()"],
                          capture_output=True, cwd=ROOT, timeout=120,
                          env={k: v for k, v in os.environ.items()
                               if k != "NUMBA_ENABLE_CUDASIM"})
    return proc.returncode == 0


#: The statement's padded-tile transpose (the textbook solution) with its shared array's
#: shape written as arithmetic on a module constant: the simulator runs it, a GPU cannot
#: compile it.
LITERAL = (ch.HERE / "textbooks" / "transpose.py").read_text()
NON_LITERAL = LITERAL.replace("cuda.shared.array((32, 33), float32)",
                              "cuda.shared.array((TILE, TILE + 1), float32)")


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba missing")
def test_a_non_literal_shared_shape_fails_check_with_the_hint(tmp_path):
    if not _nvvm():
        pytest.skip("no NVVM here (pip's nvidia-cuda-nvcc-cu12): the compile is skipped")
    mine = tmp_path / "mine.py"
    assert NON_LITERAL != LITERAL and "TILE = 32" in NON_LITERAL  # the edit took
    mine.write_text(NON_LITERAL)
    proc = subprocess.run([PY, "-m", "labs", "challenge", "check", "transpose", str(mine),
                           "--json", "--seed", "2"], capture_output=True, text=True,
                          env=SIM, cwd=ROOT, timeout=600)
    v = json.loads(proc.stdout.strip().splitlines()[-1])
    assert proc.returncode == 2 and not v["passed"], v
    assert "does not compile for a GPU (sm_75)" in v["message"]
    assert "cuda.shared.array needs a shape of integer constants" in v["message"]
    assert "Traceback" not in proc.stdout and "UniTuple" not in v["message"]
    # the same kernel with a literal shape compiles, and passes
    mine.write_text(LITERAL)
    proc = subprocess.run([PY, "-m", "labs", "challenge", "check", "transpose", str(mine),
                           "--json", "--seed", "2"], capture_output=True, text=True,
                          env=SIM, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:]


#: A hostile student's (2026-12-07): a kernel no GPU compiles (a local array of a size
#: known only at run time, which the simulator allocates happily), and a launch that
#: stops when the compile check hands it numpy arrays, so the kernel is never compiled.
SKIPS_THE_COMPILE = """import numpy as np
from numba import cuda, float32


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    tmp = cuda.local.array(x.size % 7 + 1, float32)
    if i < x.size:
        tmp[0] = a * x[i] + y[i]
        out[i] = tmp[0]


def launch(a, x, y, out):
    if isinstance(x, np.ndarray):
        raise ValueError("not today")
    saxpy[(x.size + 255) // 256, 256](a, x, y, out)
"""


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba missing")
def test_a_launch_that_dodges_the_compile_check_fails(tmp_path):
    if not _nvvm():
        pytest.skip("no NVVM here (pip's nvidia-cuda-nvcc-cu12): the compile is skipped")
    mine = tmp_path / "mine.py"
    for source, why in [
            (SKIPS_THE_COMPILE, "not compiled for a GPU (sm_75): saxpy: the compile check "
                                "calls launch with the check's arrays as numpy arrays, and "
                                "launch stopped before every kernel compiled: ValueError"),
            # without the dodge, the compile itself says no
            (SKIPS_THE_COMPILE.replace('    if isinstance(x, np.ndarray):\n'
                                       '        raise ValueError("not today")\n', ""),
             "does not compile for a GPU (sm_75)")]:
        mine.write_text(source)
        proc = subprocess.run([PY, "-m", "labs", "challenge", "check", "saxpy", str(mine),
                               "--json", "--seed", "2"], capture_output=True, text=True,
                              env=SIM, cwd=ROOT, timeout=600)
        v = json.loads(proc.stdout.strip().splitlines()[-1])
        assert not v["passed"] and why in v["message"], v


def test_hints_for_numbas_common_errors():
    from labs.challenges.compile import hint

    assert "cuda.syncthreads" in hint("NameError: name 'syncthreads' is not defined")
    assert "cuda.grid" in hint("Untyped global name 'grid': cannot determine Numba type")
    assert "integer constants" in hint(
        "No implementation of function Function(<function shared.array>) found for "
        "signature: array(UniTuple(int64 x 2), class(float32))")
    assert hint("TypingError: No implementation of function Function(<function local.array "
                "at 0x7f>) found for signature: >>> array(int64, class(float32))").startswith(
        "cuda.local.array needs a shape of integer constants")
    assert "Python object" in hint("Untyped global name 'helper': cannot determine Numba "
                                   "type of <class 'object'>")
    assert hint("something else entirely") is None


def _half_the_h200_reference(n: int) -> tuple[float, dict]:
    """A time of saxpy at n on the H200 at half its reference speed, and its verdict."""
    from labs.challenges import verdict
    from perfmodel import ops

    roofs = verdict.roofs("NVIDIA H200")
    seconds = 2 * ops.saxpy(n).bytes / roofs.bandwidth("dram")  # memory-bound: D / B
    return seconds, verdict.verdict(ops.saxpy(n), seconds, roofs)


def test_a_timed_share_is_shown_beside_the_milestones(monkeypatch):
    from types import SimpleNamespace

    from labs.challenges import harness
    from labs.challenges.milestones import ladder_text

    # the judge of a timed GPU file: the share, and the recorded ladder with it placed
    arrays, meta, _ = _gpu_file(9)
    seconds, v = _half_the_h200_reference(meta["sizes"][-1]["n"])
    meta.update(seconds=[seconds], device="NVIDIA H200")
    got = judge.judge("saxpy", {**arrays, "meta": meta}, 9, mode="gpu")
    assert got["passed"] and got["share"] == pytest.approx(0.5)
    assert any(ladder_text("saxpy", got["share"]) in m for m in got["messages"])
    assert "0.50  yours   <--" in judge.text(got)
    # ch.time: the harness's timing, then the ladder; shown once, as text
    monkeypatch.setattr(harness, "time_submission", lambda *a, **k: {
        "challenge": "saxpy", "device": "NVIDIA H200", "passed": True,
        "message": v["reason"], "verdict": v})
    timed = ch.time("saxpy", SimpleNamespace())
    assert timed["milestones"] == ladder_text("saxpy", 0.5)
    text = repr(timed)
    assert text == str(timed) and text.startswith("saxpy: PASSED on NVIDIA H200")
    assert v["reason"] in text and "0.50  yours   <--" in text
    assert text.count("milestones on the H200") == 1
    assert hasattr(ch.textbook("saxpy"), "launch")
