"""The mechanism counters, from the accesses a kernel made under the simulator, and the
challenge's targets for them. numpy over recorded events (no numba), so every count is
tested on hand-made events.

An access event is ``(array, kind, block, thread, ordinal, flat, itemsize, space)``:
``kind`` "r", "w" or "a" (an atomic read-modify-write); ``block`` a key of the launch
and block (``(launch, blockIdx)``);
``thread`` the thread's linear index in its block; ``ordinal`` which access of that thread
to that array and kind it is (the lanes of a warp doing their k-th access together are one
*warp access*, as one instruction on a GPU; a 16-byte ``load4`` is one access of four
elements); ``flat`` the element's index; ``space`` "global" or "shared".

The counters (each key as the verdict and the targets name it):

- ``sectors.<array>.load`` / ``sectors.<array>.store``: 32-byte sectors each warp access
  touches, x 32 bytes, over the bytes its lanes asked for, summed over warp accesses (1.0
  when every sector is used whole; 8.0 for 4-byte values a sector apart): coalescing.
- ``l2_bytes``: those sectors x 32 bytes, all arrays together (the traffic between the
  SMs and L2); ``bytes.<array>.load|store``: the distinct bytes of each array read or
  written (its footprint: what DRAM must move at least once).
- ``bank_ways``: the most ways of bank conflict of any shared-memory warp access (32 banks
  of 4 bytes; lanes reading the same word share it), ``bank_ways_mean``, per access, and
  ``shared_wavefronts``: the ways summed (128-byte passes shared memory makes).
- ``paths_per_warp``: distinct paths through the kernel's lines among a warp's lanes, the
  mean over warps (1.0 when no warp diverges); ``paths_per_warp_max``.
- ``reads_per_element.<array>`` / ``writes_per_element.<array>``: accesses of a global
  array over its elements (reuse: 1.0 when each element is read once).
- ``atomics.<array>``: atomic operations on a global array per call (each lane's one);
  ``atomics_global``: on every global array, the submission's scratch arrays included.
- ``bytes_in_flight``: the bytes a thread reads in a row before its next store, each
  address once, in the median run (independent loads it can have in flight: ILP).
- ``launches``: kernel launches per call of ``launch``; ``host_bytes``: bytes copied
  between host and device inside ``launch``.
"""
from __future__ import annotations

from collections import defaultdict
from types import ModuleType
import numpy as np

WARP = 32
SECTOR = 32        # bytes
BANKS, BANK_BYTES = 32, 4

Event = tuple  # (array, kind, block, thread, ordinal, flat, itemsize, space)


class Columns:
    """The events as numpy columns, with integer codes for arrays and blocks."""

    def __init__(self, events: list[Event]):
        n = len(events)
        cols = list(zip(*events)) if n else [()] * 8
        self.names = sorted(set(cols[0]))
        code = {a: i for i, a in enumerate(self.names)}
        blocks: dict = {}
        self.array = np.fromiter((code[a] for a in cols[0]), np.int64, n)
        self.kind = np.fromiter(("rwa".index(k) for k in cols[1]), np.int64, n)
        self.block = np.fromiter((blocks.setdefault(b, len(blocks)) for b in cols[2]),
                                 np.int64, n)
        self.thread = np.fromiter(cols[3], np.int64, n)
        self.ordinal = np.fromiter(cols[4], np.int64, n)
        self.flat = np.fromiter(cols[5], np.int64, n)
        self.itemsize = np.fromiter(cols[6], np.int64, n)
        self.shared = np.fromiter((sp == "shared" for sp in cols[7]), bool, n)

    def select(self, mask: np.ndarray) -> dict:
        return {k: getattr(self, k)[mask] for k in ("array", "kind", "block", "thread",
                                                    "ordinal", "flat", "itemsize")}


def _combine(*cols: np.ndarray) -> np.ndarray:
    """One int64 key per row of the non-negative integer columns (mixed radix)."""
    key = np.zeros(len(cols[0]), np.int64)
    for c in cols:
        key = key * (int(c.max()) + 1 if len(c) else 1) + c
    return key


def sectors_per_useful(c: Columns) -> dict:
    """``sectors.<array>.load|store``: over every global warp access (lanes of one warp
    making their k-th load or store of one array together), the distinct 32-byte sectors
    touched x 32 bytes over the bytes the lanes asked for."""
    e = c.select(~c.shared & (c.kind < 2))
    if not len(e["array"]):
        return {}
    ak = e["array"] * 2 + e["kind"]
    group = _combine(ak, e["block"], e["thread"] // WARP, e["ordinal"])
    sector = e["flat"] * e["itemsize"] // SECTOR
    pairs = np.unique(_combine(group, sector))
    radix = int(sector.max()) + 1
    _g, first = np.unique(group, return_index=True)
    ak_of = dict(zip(_g.tolist(), ak[first].tolist()))
    touched = np.bincount([ak_of[g] for g in (pairs // radix).tolist()],
                          minlength=2 * len(c.names))
    asked = np.bincount(ak, weights=e["itemsize"], minlength=2 * len(c.names))
    out = {f"sectors.{c.names[i // 2]}.{'load' if i % 2 == 0 else 'store'}":
           float(touched[i] * SECTOR / asked[i]) for i in range(len(asked)) if asked[i]}
    out["l2_bytes"] = int(touched.sum() * SECTOR)
    foot = np.unique(_combine(ak, e["flat"]))
    radix = int(e["flat"].max()) + 1
    per = np.bincount(foot // radix, minlength=2 * len(c.names))
    size_of = np.zeros(2 * len(c.names), np.int64)
    size_of[ak] = e["itemsize"]
    for i in np.flatnonzero(per):
        out[f"bytes.{c.names[i // 2]}.{'load' if i % 2 == 0 else 'store'}"] = int(
            per[i] * size_of[i])
    return out


def bank_ways(lanes: list[tuple[int, int]]) -> int:
    """Ways of bank conflict of one shared-memory warp access: the most distinct 4-byte
    words any one bank must deliver (the same word to several lanes is one broadcast)."""
    words_in: dict = defaultdict(set)
    for flat, size in lanes:
        first = flat * size // BANK_BYTES
        for word in range(first, first + max(1, size // BANK_BYTES)):
            words_in[word % BANKS].add(word)
    return max((len(w) for w in words_in.values()), default=0)


def bank_counters(c: Columns) -> dict:
    """``bank_ways`` (most) and ``bank_ways_mean`` over shared-memory warp accesses."""
    e = c.select(c.shared & (c.kind < 2))
    groups: dict = defaultdict(list)
    for key, flat, size in zip(zip(e["array"].tolist(), e["kind"].tolist(),
                                   e["block"].tolist(), (e["thread"] // WARP).tolist(),
                                   e["ordinal"].tolist()),
                               e["flat"].tolist(), e["itemsize"].tolist()):
        groups[key].append((flat, size))
    ways = [bank_ways(lanes) for lanes in groups.values()]
    if not ways:
        return {}
    return {"bank_ways": max(ways), "bank_ways_mean": sum(ways) / len(ways),
            "shared_wavefronts": sum(ways)}


def per_element(c: Columns, sizes: dict) -> dict:
    """``reads_per_element.<a>`` and ``writes_per_element.<a>`` for the global arrays
    named in ``sizes`` (array -> its element count), and ``atomics.<a>``: atomic
    operations on each global array."""
    g = ~c.shared
    counts = np.bincount(c.array[g] * 3 + c.kind[g], minlength=3 * len(c.names))
    out = {}
    for array, n in sorted(sizes.items()):
        i = c.names.index(array) if array in c.names else None
        if n:
            out[f"reads_per_element.{array}"] = float(counts[3 * i] / n) if i is not None else 0.0
            out[f"writes_per_element.{array}"] = (float(counts[3 * i + 1] / n)
                                                  if i is not None else 0.0)
    for i, name in enumerate(c.names):
        if counts[3 * i + 2]:
            out[f"atomics.{name}"] = int(counts[3 * i + 2])
    # every global array's, scratch arrays' included (none at all meets any at_most)
    out["atomics_global"] = sum(v for k, v in out.items() if k.startswith("atomics."))
    return out


def bytes_in_flight(c: Columns) -> int:
    """The bytes a thread reads from global memory in a row before its next global store,
    each address once, in the median run over every thread's runs: the independent loads a
    kernel typically has in flight (one burst at the start, or one value read sixteen
    times, does not make its loads independent; a load4 is 16 bytes)."""
    e = c.select(~c.shared & (c.kind < 2))
    if not len(e["kind"]):
        return 0
    thread = _combine(e["block"], e["thread"])
    order = np.argsort(thread, kind="stable")
    thread, kind = thread[order], e["kind"][order]
    start = np.r_[True, thread[1:] != thread[:-1]]
    run = np.cumsum(start | np.r_[False, kind[:-1] == 1])  # a store ends a run
    reads = kind == 0
    key = _combine(run[reads], e["array"][order][reads], e["flat"][order][reads])
    _, first = np.unique(key, return_index=True)  # each address once in a run
    per_run = np.bincount(run[reads][first], weights=e["itemsize"][order][reads][first])
    per_run = per_run[per_run > 0]
    return int(np.median(per_run)) if len(per_run) else 0


def path_counters(paths: dict) -> dict:
    """``paths_per_warp`` (mean) and ``paths_per_warp_max`` from ``paths``: (block, warp)
    -> the set of path signatures its lanes took."""
    if not paths:
        return {}
    n = [len(p) for p in paths.values()]
    return {"paths_per_warp": sum(n) / len(n), "paths_per_warp_max": max(n)}


def count(events: list[Event], array_sizes: dict, paths: dict | None = None,
          launches: int | None = None, host_bytes: int = 0) -> dict:
    """Every counter from one run's events (see the module's docstring)."""
    c = Columns(events)
    out = sectors_per_useful(c)
    out.update(bank_counters(c))
    out.update(per_element(c, array_sizes))
    out["bytes_in_flight"] = bytes_in_flight(c)
    out.update(path_counters(paths or {}))
    if launches is not None:
        out["launches"] = launches
    out["host_bytes"] = host_bytes
    return out


# ---------------------------------------------------------------------------- targets

#: How each counter is said in plain words: (what it counts, its unit after the value).
WORDS = {
    "sectors": ("{kind} of {array}", "sectors of 32 bytes per 32 useful bytes"),
    "bank_ways": ("shared-memory accesses", "ways of bank conflict (the worst warp access)"),
    "bank_ways_mean": ("shared-memory accesses", "ways of bank conflict on average"),
    "paths_per_warp": ("branches", "distinct paths per warp on average"),
    "paths_per_warp_max": ("branches", "distinct paths in the most divergent warp"),
    "reads_per_element": ("reads of {array}", "per element"),
    "writes_per_element": ("writes of {array}", "per element"),
    "atomics": ("atomic operations on {array}", "per call"),
    "atomics_global": ("atomic operations on global memory", "per call, scratch arrays' "
                       "included"),
    "bytes_in_flight": ("loads before a store",
                        "bytes a thread has in flight (its typical run)"),
    "launches": ("kernel launches", "per call"),
    "host_bytes": ("copies to or from the host inside launch", "bytes"),
}


def say(counter: str, value: float) -> str:
    """'stores of out: 8 sectors of 32 bytes per 32 useful bytes'."""
    head, _, rest = counter.partition(".")
    array, _, kind = rest.partition(".")
    what, unit = WORDS.get(head, (counter, ""))
    what = what.format(array=array, kind={"load": "loads", "store": "stores"}.get(kind, kind))
    number = f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"  # 3,001, not 3e+03
    return f"{what}: {number} {unit}".rstrip()


def _target_words(target: dict) -> str:
    if "at_most" in target:
        return f"at most {target['at_most']:.3g}"
    return f"at least {target['at_least']:.3g}"


def targets_of(ch: ModuleType) -> dict:
    """The challenge's targets: its ``MECHANISM`` dict, counter -> ``{"at_most": x}`` or
    ``{"at_least": x}``, with ``"fix"`` (the fix's direction, in the chapter's words);
    ``{}`` when it has none. A malformed entry -> ValueError naming it."""
    table = dict(getattr(ch, "MECHANISM", {}) or {})
    for counter, t in table.items():
        if not isinstance(t, dict) or ("at_most" in t) == ("at_least" in t):
            raise ValueError(f"{ch.NAME}.MECHANISM[{counter!r}] must hold one of at_most or "
                             f"at_least; got {t!r}")
    return table


def judge_targets(ch: ModuleType, counters: dict, mode: str) -> dict:
    """``{"passed", "counters", "targets", "message"}``: every target met or not. A counter
    a target names that was not measured fails (a kernel that never touched the array).
    On a GPU (no counters) the mechanism is left to the simulator and passes here."""
    targets = targets_of(ch)
    base = {"counters": counters, "targets": targets}
    if mode == "sim" and not counters:
        return {**base, "passed": False,
                "message": "mechanism: not measured (the kernels did not run)"}
    if mode == "gpu":
        return {**base, "passed": True,
                "message": "mechanism: judged under the simulator (check without a GPU); "
                           "here the timing judges it"}
    if not targets:
        return {**base, "passed": True, "message": "mechanism: no target set for this "
                                                   "challenge yet"}
    failed, met = [], []
    for counter, t in targets.items():
        value = counters.get(counter)
        if value is None:
            failed.append(f"{counter} was not measured (the kernels never made that access); "
                          f"the target is {_target_words(t)}")
            continue
        ok = value <= t["at_most"] if "at_most" in t else value >= t["at_least"]
        line = f"{say(counter, value)}; the target is {_target_words(t)}"
        if ok:
            met.append(line)
        else:
            fix = t.get("fix")
            failed.append(line + (f": {fix}" if fix else ""))
    if failed:
        return {**base, "passed": False, "message": "mechanism not reached: "
                                                    + "; ".join(failed)}
    return {**base, "passed": True, "message": "mechanism reached: " + "; ".join(met)}
