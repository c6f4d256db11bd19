"""The mechanism counters, from the accesses a kernel made under the simulator, and the
challenge's targets for them. Pure Python over recorded events (no numba), so every count
is tested on hand-made events.

An access event is ``(array, kind, block, thread, ordinal, flat, itemsize, space)``:
``kind`` "r" or "w"; ``block`` a key of the launch and block (``(launch, blockIdx)``);
``thread`` the thread's linear index in its block; ``ordinal`` which access of that thread
to that array and kind it is (the lanes of a warp doing their k-th access together are one
*warp access*, as one instruction on a GPU; a 16-byte ``load4`` is one access of four
elements); ``flat`` the element's index; ``space`` "global" or "shared".

The counters (each key as the verdict and the targets name it):

- ``sectors.<array>.load`` / ``sectors.<array>.store``: 32-byte sectors each warp access
  touches, x 32 bytes, over the bytes its lanes asked for, summed over warp accesses (1.0
  when every sector is used whole; 8.0 for 4-byte values a sector apart): coalescing.
- ``bank_ways``: the most ways of bank conflict of any shared-memory warp access (32 banks
  of 4 bytes; lanes reading the same word share it), and ``bank_ways_mean``, per access.
- ``paths_per_warp``: distinct paths through the kernel's lines among a warp's lanes, the
  mean over warps (1.0 when no warp diverges); ``paths_per_warp_max``.
- ``reads_per_element.<array>`` / ``writes_per_element.<array>``: accesses of a global
  array over its elements (reuse: 1.0 when each element is read once).
- ``bytes_in_flight``: the most bytes a thread reads in a row before its next store
  (independent loads it can have in flight: ILP).
- ``launches``: kernel launches per call of ``launch``; ``host_bytes``: bytes copied
  between host and device inside ``launch``.
"""
from __future__ import annotations

from collections import defaultdict
from types import ModuleType
from typing import Iterable

WARP = 32
SECTOR = 32        # bytes
BANKS, BANK_BYTES = 32, 4

Event = tuple  # (array, kind, block, thread, ordinal, flat, itemsize, space)


def warp_accesses(events: Iterable[Event], space: str = "global") -> dict:
    """(array, kind, block, warp, ordinal) -> [(flat, itemsize), ...]: the warp accesses."""
    groups: dict = defaultdict(list)
    for array, kind, block, thread, ordinal, flat, itemsize, sp in events:
        if sp == space:
            groups[(array, kind, block, thread // WARP, ordinal)].append((flat, itemsize))
    return groups


def sectors_per_useful(groups: dict) -> dict:
    """``sectors.<array>.load|store`` for every array in the warp accesses ``groups``."""
    touched: dict = defaultdict(int)
    asked: dict = defaultdict(int)
    for (array, kind, *_rest), lanes in groups.items():
        name = f"sectors.{array}.{'load' if kind == 'r' else 'store'}"
        touched[name] += len({flat * size // SECTOR for flat, size in lanes})
        asked[name] += sum(size for _flat, size in lanes)
    return {k: touched[k] * SECTOR / asked[k] for k in sorted(touched) if asked[k]}


def bank_ways(lanes: list[tuple[int, int]]) -> int:
    """Ways of bank conflict of one shared-memory warp access: the most distinct 4-byte
    words any one bank must deliver (the same word to several lanes is one broadcast)."""
    words_in: dict = defaultdict(set)
    for flat, size in lanes:
        first = flat * size // BANK_BYTES
        for word in range(first, first + max(1, size // BANK_BYTES)):
            words_in[word % BANKS].add(word)
    return max((len(w) for w in words_in.values()), default=0)


def bank_counters(groups: dict) -> dict:
    """``bank_ways`` (most) and ``bank_ways_mean`` over shared-memory warp accesses."""
    ways = [bank_ways(lanes) for lanes in groups.values()]
    if not ways:
        return {}
    return {"bank_ways": max(ways), "bank_ways_mean": sum(ways) / len(ways)}


def per_element(events: Iterable[Event], sizes: dict) -> dict:
    """``reads_per_element.<a>`` and ``writes_per_element.<a>`` for the global arrays
    named in ``sizes`` (array -> its element count)."""
    count: dict = defaultdict(int)
    for array, kind, _b, _t, _o, _f, _i, space in events:
        if space == "global" and array in sizes:
            count[(array, kind)] += 1
    out = {}
    for array, n in sorted(sizes.items()):
        if n:
            out[f"reads_per_element.{array}"] = count[(array, "r")] / n
            out[f"writes_per_element.{array}"] = count[(array, "w")] / n
    return out


def bytes_in_flight(events: Iterable[Event]) -> int:
    """The most bytes any thread reads from global memory in a row before its next global
    store: the independent loads it can have in flight (a load4 is 16 bytes)."""
    run: dict = defaultdict(int)
    most = 0
    for _array, kind, block, thread, _o, _f, itemsize, space in events:
        if space != "global":
            continue
        if kind == "r":
            run[(block, thread)] += itemsize
            most = max(most, run[(block, thread)])
        else:
            run[(block, thread)] = 0
    return most


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
    out = sectors_per_useful(warp_accesses(events, "global"))
    out.update(bank_counters(warp_accesses(events, "shared")))
    out.update(per_element(events, array_sizes))
    out["bytes_in_flight"] = bytes_in_flight(events)
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
    "bytes_in_flight": ("loads before a store", "bytes a thread has in flight at most"),
    "launches": ("kernel launches", "per call"),
    "host_bytes": ("copies to or from the host inside launch", "bytes"),
}


def say(counter: str, value: float) -> str:
    """'stores of out: 8 sectors of 32 bytes per 32 useful bytes'."""
    head, _, rest = counter.partition(".")
    array, _, kind = rest.partition(".")
    what, unit = WORDS.get(head, (counter, ""))
    what = what.format(array=array, kind={"load": "loads", "store": "stores"}.get(kind, kind))
    return f"{what}: {value:.3g} {unit}".rstrip()


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
