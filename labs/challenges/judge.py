"""Judge what :mod:`labs.challenges.collect` recorded: never imports or runs the submission.

    python -m labs.challenges.judge NAME OUT.npz --seed S [--machine T4] [--mode sim|gpu]
                                    [--json]

The judge regenerates the inputs from the seed, computes numpy's expected outputs, and
validates the file strictly (missing or extra keys, wrong shapes or dtypes, a meta entry
that is not JSON or whose challenge, seed, mode or sizes differ): any of these is a failed
verdict naming the problem, never an exception. An output of more than ``SAMPLE_ABOVE``
elements (the timing size on a GPU) is recorded and judged at a sample of its positions
(:func:`sample_positions`: both ends and 65,536 positions drawn from the seed, stored
beside it as ``idx{k}_<output>``), so the file stays far below the grader's limit on what
a check may write. The verdict is a dict::

    {"challenge", "correct", "first_wrong", "mechanism": {"passed", "counters", "targets",
     "message"}, "estimate": {"machine", "seconds", "limit", "label": "estimate", ...},
     "share", "passed", "messages"}

Three verdicts, each a function of what was measured: *correct* (every output against
numpy's, at every size of the check), *mechanism* (the simulator's access counters against
the challenge's targets, :mod:`labs.challenges.counters`, with the time the model
estimates from them, :mod:`labs.challenges.estimate`) and *share* (a GPU's timing against
the reference time at its recorded copy and FMA rates: :mod:`labs.challenges.verdict`).
numpy, json and perfmodel only: no numba.

Exit status: 0 when the verdict passes, 1 when it does not (the verdict says why).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import zlib
from types import ModuleType

import numpy as np

from . import counters as mech
from .verdict import first_wrong

#: The modes a collected file can be in.
MODES = ("sim", "gpu")


# ------------------------------------------------------------------- sizes and inputs

def _fallback_small(size: dict) -> dict:
    """A small size that is not a multiple of any block size, and far enough below the
    module's simulator size to tell a grid that grows from one that does not: each count
    of 16 or more a third of it, made odd (333 for 1000, 21 for 64)."""
    return {k: (int(v) // 3) | 1 if int(v) >= 16 else int(v) for k, v in size.items()}


def jittered(size: dict, seed: int) -> dict:
    """``size`` with each count of 16 or more scaled by 1.0625 to 1.5 (the factor set by
    the seed, in steps of 1/16) and made odd, and each smaller count one more: a mid size
    no grid hard-coded for the simulator's size covers (256-thread blocks rounded up for 1000 cover 1024 < 1063),
    different from one seed to the next."""
    factor = 1.0625 + (int(seed) % 8) / 16
    return {k: int(int(v) * factor) | 1 if int(v) >= 16 else int(v) + 1
            for k, v in size.items()}


def check_sizes(ch: ModuleType, mode: str, seed: int = 0) -> list[dict]:
    """The sizes one check runs, in order. A challenge module sets them as
    ``CHECK_SIZES = {"sim": [small, mid], "gpu": [small, mid, timing]}`` (keyword sizes of
    its ``make_inputs``; an entry may also be a function of the seed returning that list,
    e.g. with :func:`jittered`); without it: a small size derived from ``sizes("sim")``
    (odd, about a third of it), then :func:`jittered` ``sizes("sim")``, and on a GPU the
    quick size as well."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    table = getattr(ch, "CHECK_SIZES", None)
    if table:
        entry = table[mode]
        return [dict(s) for s in (entry(int(seed)) if callable(entry) else entry)]
    sim = ch.sizes("sim")
    out = [_fallback_small(sim), jittered(sim, seed)]
    return out + ([ch.sizes("quick")] if mode == "gpu" else [])


def timing_index(ch: ModuleType, mode: str, seed: int = 0) -> int | None:
    """Which of the sizes a GPU times (the last), None under the simulator."""
    return len(check_sizes(ch, mode, seed)) - 1 if mode == "gpu" else None


def all_inputs(ch: ModuleType, sizes: list[dict], seed: int) -> list[dict]:
    """The inputs of every size, in order, all drawn from ONE ``numpy.random.default_rng
    (seed)``: what collect runs on and what the judge recomputes."""
    rng = np.random.default_rng(int(seed))
    return [ch.make_inputs(rng, **size) for size in sizes]


def key(k: int, output: str) -> str:
    """The npz key of output ``output`` at the size of index ``k``."""
    return f"out{k}_{output}"


def index_key(k: int, output: str) -> str:
    """The npz key of the positions a sampled output's values were taken at."""
    return f"idx{k}_{output}"


#: An output of more elements than this is recorded as a sample (on a GPU, the timing
#: size): 2**24 float32 outputs whole would pass the grader's 64 MiB limit on what a check
#: writes. 2**20 float32 are 4 MiB.
SAMPLE_ABOVE = 2 ** 20
#: A sample: this many positions drawn from the check's seed, ...
SAMPLE_DRAWN = 65_536
#: ... and this many elements at each end (where a grid's first and last blocks write).
SAMPLE_EDGE = 4_096


def sample_positions(total: int, seed: int, k: int, output: str) -> np.ndarray | None:
    """The flat positions (sorted, distinct, int64) of output ``output`` (``total``
    elements) at the size of index ``k`` that a check records and judges: None (every
    element) for ``total <= SAMPLE_ABOVE``; else the first and last ``SAMPLE_EDGE`` and
    ``SAMPLE_DRAWN`` drawn uniformly by ``numpy.random.default_rng`` from the seed, the
    size index and the output's name, so collect and the judge draw the same ones."""
    total = int(total)
    if total < 0:
        raise ValueError(f"total must be a count of elements >= 0; got {total}")
    if total <= SAMPLE_ABOVE:
        return None
    rng = np.random.default_rng([int(seed), int(k), zlib.crc32(output.encode())])
    edge = np.arange(SAMPLE_EDGE, dtype=np.int64)
    drawn = rng.integers(0, total, SAMPLE_DRAWN, dtype=np.int64)
    return np.unique(np.concatenate([edge, total - 1 - edge, drawn]))


def describe_size(size: dict) -> str:
    """'n = 999' / 'm = 61, n = 67'."""
    return ", ".join(f"{k} = {v}" for k, v in size.items())


# ---------------------------------------------------------------------------- loading

class Malformed(Exception):
    """The collected file is not what collect writes; the message says what is wrong."""


#: The most a collected file may unpack to, bytes: collect's largest (a GPU check's sampled
#: outputs) is a few MB; a deflated member that unpacks far beyond it is a zip bomb.
UNPACKED_BYTES = 256 * 2 ** 20
#: The most members a collected file may have (a few a size of the check).
MEMBERS = 1_000


def _unpacked_size(path: str) -> None:
    """Malformed when the zip at ``path`` declares more members or unpacked bytes than a
    collected file can hold, or an array larger than its member holds. The declared sizes
    bound what is read: zipfile stops at a member's declared size and refuses one whose data
    does not match it, and no array is allocated beyond the bytes its member holds."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
    except (OSError, zipfile.BadZipFile, ValueError, EOFError) as e:
        raise Malformed(f"the collected file cannot be read as an npz (a zip): "
                        f"{type(e).__name__}") from None
    if len(infos) > MEMBERS:
        raise Malformed(f"the collected file has {len(infos):,} members (at most {MEMBERS:,})")
    total = sum(i.file_size for i in infos)
    if total > UNPACKED_BYTES:
        raise Malformed(f"the collected file unpacks to {total / 2 ** 20:,.0f} MiB (at most "
                        f"{UNPACKED_BYTES / 2 ** 20:,.0f} MiB): refused unread")
    try:
        with zipfile.ZipFile(path) as z:
            for info in infos:
                if info.filename.endswith(".npy"):
                    with z.open(info) as member:
                        _declared_array_fits(member, info.filename, info.file_size)
    except Malformed:
        raise
    except Exception as e:  # a damaged member: named as np.load would name it
        raise Malformed(f"the collected file is damaged: {type(e).__name__}") from None


def _declared_array_fits(member, name: str, size: int) -> None:
    """Malformed when the npy header of ``member`` (a zip member of ``size`` unpacked bytes)
    declares an array larger than the member holds: numpy would allocate the declared
    array before it finds the data missing, so a 100-byte member could ask for terabytes."""
    from numpy.lib import format as npy

    version = npy.read_magic(member)
    if version == (1, 0):
        shape, _, dtype = npy.read_array_header_1_0(member)
    elif version == (2, 0):
        shape, _, dtype = npy.read_array_header_2_0(member)
    else:
        raise Malformed(f"the collected file's member {name} is npy format {version}, "
                        "not the 1.0 or 2.0 collect writes")
    declared = int(np.prod(shape, dtype=object)) * dtype.itemsize
    if declared > size:
        raise Malformed(f"the collected file's member {name} declares {declared:,} bytes "
                        f"of data but holds {size:,}: refused unread")


def _load(npz) -> tuple[dict, dict]:
    """(arrays, meta) from a path or a dict of arrays; Malformed names the problem."""
    if isinstance(npz, dict):
        data = dict(npz)
    else:
        _unpacked_size(str(npz))
        try:
            with np.load(str(npz), allow_pickle=False) as z:
                data = {k: z[k] for k in z.files}
        except (OSError, ValueError, EOFError) as e:
            raise Malformed(f"the collected file cannot be read as an npz without pickles: "
                            f"{type(e).__name__}") from None
        except Exception as e:  # a zip that is not one, a truncated member
            raise Malformed(f"the collected file is damaged: {type(e).__name__}") from None
    if "meta" not in data:
        raise Malformed("the collected file has no meta entry")
    raw = data.pop("meta")
    if isinstance(raw, np.ndarray):
        if raw.dtype.kind != "U" or raw.shape != ():
            raise Malformed("the meta entry is not one string")
        raw = str(raw[()])
    if isinstance(raw, str):
        try:
            meta = json.loads(raw)
        except json.JSONDecodeError:
            raise Malformed("the meta entry is not JSON") from None
    elif isinstance(raw, dict):
        meta = raw
    else:
        raise Malformed("the meta entry is not JSON")
    if not isinstance(meta, dict):
        raise Malformed("the meta entry is not a JSON object")
    return data, meta


def _validate_meta(ch: ModuleType, meta: dict, seed: int, mode: str | None) -> str:
    """The mode; Malformed when the meta does not belong to this check."""
    if meta.get("challenge") != ch.NAME:
        raise Malformed(f"the collected file is for challenge {meta.get('challenge')!r}, "
                        f"not {ch.NAME!r}")
    if meta.get("seed") != int(seed):
        raise Malformed(f"the collected file was made with seed {meta.get('seed')!r}, not "
                        f"{int(seed)}")
    got = meta.get("mode")
    if got not in MODES or (mode is not None and got != mode):
        raise Malformed(f"the collected file's mode is {got!r}; expected "
                        f"{mode or ' or '.join(MODES)!r}")
    sizes = check_sizes(ch, got, seed)
    if meta.get("sizes") != sizes:
        raise Malformed(f"the collected file's sizes are {meta.get('sizes')!r}; the check "
                        f"runs {sizes!r}")
    errors = meta.get("errors", {})
    if not isinstance(errors, dict) or not all(isinstance(v, str) for v in errors.values()):
        raise Malformed("the meta entry's errors are not a map of size index to message")
    for field, kind in (("counters", dict), ("host_transfers", list)):
        if field in meta and not isinstance(meta[field], kind):
            raise Malformed(f"the meta entry's {field} is not a JSON {kind.__name__}")
    launches = meta.get("launches")
    if launches is not None and not (isinstance(launches, int) and launches >= 0):
        raise Malformed("the meta entry's launches is not a count")
    seconds = meta.get("seconds")
    if seconds is not None and not (isinstance(seconds, list) and all(
            isinstance(s, (int, float)) and s > 0 for s in seconds)):
        raise Malformed("the meta entry's seconds are not a list of positive times")
    return got


def samples(ch: ModuleType, sizes: list[dict], seed: int) -> dict:
    """{(k, output): its sample_positions} for every output the check records as a sample."""
    out = {}
    for k, size in enumerate(sizes):
        for name, (shape, _) in ch.outputs(**size).items():
            pos = sample_positions(int(np.prod(shape, dtype=np.int64)), seed, k, name)
            if pos is not None:
                out[k, name] = pos
    return out


def _validate_arrays(ch: ModuleType, data: dict, sizes: list[dict], errors: dict,
                     sampled: dict) -> None:
    """Malformed on a missing or extra key, a wrong shape or dtype, or a sample taken at
    positions other than the check's (``sampled``: :func:`samples`)."""
    want = {}
    for k, size in enumerate(sizes):
        for name, (shape, dtype) in ch.outputs(**size).items():
            pos = sampled.get((k, name))
            if pos is None:
                want[key(k, name)] = (k, tuple(shape), np.dtype(dtype))
            else:
                want[key(k, name)] = (k, pos.shape, np.dtype(dtype))
                want[index_key(k, name)] = (k, pos.shape, np.dtype(np.int64))
    extra = sorted(set(data) - set(want))
    if extra:
        raise Malformed(f"the collected file has entries the check does not make: "
                        f"{', '.join(extra[:5])}")
    for name, (k, shape, dtype) in want.items():
        if name not in data:
            if str(k) in errors:
                continue
            raise Malformed(f"the collected file lacks {name} and gives no error for size "
                            f"{k}")
        a = data[name]
        if not isinstance(a, np.ndarray) or a.shape != shape or a.dtype != dtype:
            raise Malformed(f"{name} is {getattr(a, 'dtype', type(a).__name__)} of shape "
                            f"{getattr(a, 'shape', None)}; expected {dtype} of shape {shape}")
    for (k, name), pos in sampled.items():
        got = data.get(index_key(k, name))
        if got is not None and not np.array_equal(got, pos):
            raise Malformed(f"{index_key(k, name)} is not the positions the check samples")


# ---------------------------------------------------------------------------- judging

def _failed(ch_name: str, reason: str, machine: str) -> dict:
    return {"challenge": ch_name, "correct": False, "first_wrong": reason,
            "mechanism": {"passed": False, "counters": {}, "targets": {},
                          "message": "not judged: " + reason},
            "estimate": None, "share": None, "passed": False, "messages": [reason],
            "machine": machine, "detail": reason, "broken": True}


def judge(name: str, npz, seed: int, machine: str = "T4", mode: str | None = None) -> dict:
    """The verdict on a collected file (a path, or a dict of arrays with ``meta``), for
    inputs from ``seed``; ``mode``: the mode the grader ran collect in (None: the file's).
    Never raises on a bad file: the verdict fails and names the problem."""
    from .catalog import challenge

    ch = challenge(name)
    try:
        data, meta = _load(npz)
        mode = _validate_meta(ch, meta, seed, mode)
        sizes = meta["sizes"]
        errors = meta.get("errors", {})
        sampled = samples(ch, sizes, seed)
        _validate_arrays(ch, data, sizes, errors, sampled)
    except Malformed as e:
        return _failed(name, str(e), machine)
    inputs = all_inputs(ch, sizes, seed)
    wrong = detail = None
    for k, (size, inp) in enumerate(zip(sizes, inputs)):
        detail = errors.get(str(k))
        if detail is None:
            want = ch.expected(inp)
            detail = next((m for m in (_wrong(ch, out, data[key(k, out)], want[out],
                                              sampled.get((k, out))) for out in want)
                           if m), None)
        if detail:
            wrong = f"at {describe_size(size)}: {detail}"
            break
    correct = wrong is None
    if correct:
        messages = [f"correct at every size ({'; '.join(describe_size(s) for s in sizes)})"]
    elif len(errors) == len(sizes) and len(set(errors.values())) == 1:
        messages = [f"cannot run: {detail}"]
    else:
        messages = [f"wrong {wrong}"]
    counters = dict(meta.get("counters") or {})
    if counters and meta.get("launches") is not None:
        counters.setdefault("launches", meta["launches"])
    mechanism = mech.judge_targets(ch, counters, mode)
    messages.append(mechanism["message"])
    est = None
    if mode == "sim" and counters:
        from .estimate import estimate_challenge

        try:
            est = estimate_challenge(ch, counters, machine)
            messages.append(est["text"])
        except (ValueError, TypeError, KeyError) as e:  # counters a forged file mangled
            messages.append(f"no estimate: {type(e).__name__}: {e}")
    share = share_of = None
    if mode == "gpu" and correct and meta.get("seconds"):
        share, text, share_of = _share(ch, sizes[-1], meta)
        messages.append(text)
    passed = correct and mechanism["passed"] and (share is not None or mode != "gpu"
                                                  or not meta.get("seconds"))
    return {"challenge": name, "correct": correct, "first_wrong": wrong,
            "mechanism": mechanism, "estimate": est, "share": share, "share_of": share_of,
            "passed": passed,
            "messages": messages, "machine": machine, "mode": mode,
            "device": meta.get("device"), "detail": detail, "broken": bool(errors),
            "sizes": sizes}


def _wrong(ch: ModuleType, name: str, got: np.ndarray, want: np.ndarray,
           positions: np.ndarray | None) -> str | None:
    """first_wrong of one output, whole or (``positions``) at its sampled positions."""
    if positions is None:
        return first_wrong(name, got, want, ch.RTOL, ch.ATOL)
    return first_wrong(name, got, np.asarray(want).reshape(-1)[positions], ch.RTOL, ch.ATOL,
                       positions=positions, shape=np.shape(want))


def _share(ch: ModuleType, size: dict, meta: dict) -> tuple[float | None, str, str | None]:
    """The timed share of the reference time on the GPU the file names (at its recorded
    copy and FMA rates; the bound at the datasheet's ceilings where none are recorded):
    (share, text, what it is a share of)."""
    from .milestones import ladder_text
    from .verdict import roofs, verdict

    seconds = float(np.median(meta["seconds"]))
    try:
        v = verdict(ch.op(**size), seconds, roofs(str(meta.get("device"))), ch.UNIT)
    except ValueError as e:
        return None, f"no share: {e}", None
    ladder = ladder_text(ch.NAME, v["share"]) if v["share"] is not None else ""
    return v["share"], v["reason"] + (f"\n{ladder}" if ladder else ""), v["term"]


# --------------------------------------------------------------------------- printing

def text(v: dict) -> str:
    """The verdict as a student reads it: one line of status, then each message."""
    status = "PASSED" if v["passed"] else "BROKEN" if v.get("broken") else "FAILED"
    where = v.get("device") or ("CUDA simulator (CPU)" if v.get("mode") == "sim" else "")
    head = f"{v['challenge']}: {status}" + (f" on {where}" if where else "")
    return "\n".join([head] + ["  - " + str(m).replace("\n", "\n    ")
                               for m in v["messages"]])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m labs.challenges.judge",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("name")
    ap.add_argument("npz")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--machine", default="T4", help="perfmodel machine of the estimate")
    ap.add_argument("--mode", choices=MODES, help="the mode collect ran in (default: the "
                                                   "file's)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    from .catalog import NAMES

    if a.name not in NAMES:
        ap.error(f"unknown challenge {a.name!r}; challenges: {', '.join(NAMES)}")
    v = judge(a.name, pathlib.Path(a.npz), a.seed, a.machine, a.mode)
    print(json.dumps(v, default=str, sort_keys=True) if a.json else text(v))
    return 0 if v["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
