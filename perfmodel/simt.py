"""Warps as the unit of cost: divergence passes and coalescing sectors."""
from __future__ import annotations

import numpy as np

from . import _check

WARP = 32


def divergence_passes(paths: int, split: str, warp: int = WARP) -> int:
    """Passes each warp makes when threads take one of ``paths`` equal-length paths.

    split="between": whole warps take one path each (1 pass); "within": the paths are
    dealt lane by lane through every warp (min(paths, warp) passes).
    """
    p = _check.count("paths", paths)
    split = _check.choice("split", split, ("between", "within"))
    return 1 if split == "between" else min(
        p, _check.count("warp", warp, maximum=_check.MAX_LANES))


def warp_paths(paths: int, split: str, warps: int, warp: int = WARP) -> np.ndarray:
    """The path each lane takes: an array of shape (warps, warp) of path numbers."""
    p = _check.count("paths", paths)
    split = _check.choice("split", split, ("between", "within"))
    w = _check.count("warps", warps, maximum=2 ** 20)
    lanes = np.arange(_check.count("warp", warp, maximum=_check.MAX_LANES))
    if w * len(lanes) > 2 ** 24:
        raise ValueError(f"warps x warp must be at most 2**24 lanes, got {w * len(lanes):,}")
    if split == "between":
        return np.repeat((np.arange(w) % p)[:, None], len(lanes), axis=1)
    return np.tile(lanes % p, (w, 1))


def busy_warp_fraction(k: int, warp: int = WARP) -> float:
    """Fraction of warps holding a busy lane when one thread in every k is busy."""
    k = _check.count("k", k)
    return min(1.0, _check.count("warp", warp, maximum=_check.MAX_LANES) / k)


def one_in_k_time(k: int, t_all: float, t_floor: float, warp: int = WARP) -> float:
    """Predicted time with one busy thread in k: max(t_all x busy warps, t_floor) seconds."""
    return max(_check.positive("t_all", t_all) * busy_warp_fraction(k, warp),
               _check.non_negative("t_floor", t_floor))


def lane_addresses(stride: int | str, elem_bytes: int = 4, lanes: int = WARP,
                   seed: int = 0, span: int = 1 << 26) -> np.ndarray:
    """Byte addresses of one warp's loads: lane x stride x elem_bytes, or random in a span."""
    n = _check.count("lanes", lanes, maximum=_check.MAX_LANES)
    e = _check.count("elem_bytes", elem_bytes)
    if stride == "random":
        rng = np.random.default_rng(seed)
        return np.sort(rng.choice(span // e, size=n, replace=False)) * e
    return np.arange(n) * _check.count("stride", stride) * e


def sectors(stride: int | str, elem_bytes: int = 4, sector: int = 32, lanes: int = WARP) -> int:
    """Distinct ``sector``-byte pieces one warp's request touches (32 B in the caches,
    64 B bursts from DRAM)."""
    addr = lane_addresses(stride, elem_bytes, lanes)
    return int(len(np.unique(addr // _check.count("sector", sector))))


def useful_fraction(stride: int | str, elem_bytes: int = 4, sector: int = 32,
                    lanes: int = WARP) -> float:
    """Bytes asked for over bytes moved: lanes x elem_bytes / (sectors x sector)."""
    moved = sectors(stride, elem_bytes, sector, lanes) * sector
    return (_check.count("lanes", lanes, maximum=_check.MAX_LANES)
            * _check.count("elem_bytes", elem_bytes)) / moved


def busy_lanes(k: int, warps: int, warp: int = WARP) -> np.ndarray:
    """Which threads work when one thread in every k does: bool array (warps, warp),
    thread t = w x warp + lane busy when t % k == 0."""
    k = _check.count("k", k)
    w = _check.count("warps", warps, maximum=2 ** 20)
    n = _check.count("warp", warp, maximum=_check.MAX_LANES)
    if w * n > 2 ** 24:
        raise ValueError(f"warps x warp must be at most 2**24 threads, got {w * n:,}")
    return (np.arange(w * n).reshape(w, n) % k) == 0


def touched_sectors(stride: int | str, elem_bytes: int = 4, sector: int = 32,
                    lanes: int = WARP) -> np.ndarray:
    """Sorted indices (address // sector) of the distinct sectors one warp's request touches."""
    addr = lane_addresses(stride, elem_bytes, lanes)
    return np.unique(addr // _check.count("sector", sector))


# --- Chapter 6 ("Warps, SIMT and divergence"): branches, loops, blocks and registers. ---

def warps_per_block(threads: int, warp: int = WARP) -> int:
    """Warps a block of ``threads`` threads occupies: ceil(threads / warp)."""
    t, w = _check.count("threads", threads), _check.count("warp", warp, maximum=_check.MAX_LANES)
    return -(-t // w)


def launch_warps(n: int, block: int, warp: int = WARP) -> int:
    """Warps created by a launch covering ``n`` items with blocks of ``block`` threads:
    ceil(n / block) blocks of warps_per_block(block) warps."""
    n, b = _check.count("n", n), _check.count("block", block)
    return -(-n // b) * warps_per_block(b, warp)


def block_lane_use(threads: int, warp: int = WARP) -> float:
    """Share of the lanes a block's warps issue for that hold a thread: threads / (warps x warp)."""
    t = _check.count("threads", threads)
    return t / (warps_per_block(t, warp) * _check.count("warp", warp, maximum=_check.MAX_LANES))


def _lengths(lengths) -> list[float]:
    ls = [_check.non_negative(f"lengths[{i}]", x)
          for i, x in enumerate(_check.items("lengths", lengths))]
    if not ls:
        raise ValueError("lengths must hold at least one path length, got none")
    return ls


def warp_issue(lengths, present) -> float:
    """Instructions one warp issues at a branch: the sum of the lengths of the paths at least
    one of its lanes takes (each such path runs once, the other lanes masked off)."""
    ls = _lengths(lengths)
    taken = set()
    for p in _check.items("present", present):
        taken.add(_check.count("present path", p, minimum=0))
    if not taken or max(taken) >= len(ls):
        raise ValueError(f"present must name paths 0 .. {len(ls) - 1}, got {sorted(taken)}")
    return float(sum(ls[p] for p in taken))


def sorted_issue(fractions, lengths) -> float:
    """Instructions per warp, on average, when work is grouped so every warp takes one path:
    sum of fraction x length (the fractions of the work on each path add up to 1)."""
    fs = [_check.fraction(f"fractions[{i}]", f)
          for i, f in enumerate(_check.items("fractions", fractions))]
    ls = _lengths(lengths)
    if len(fs) != len(ls) or abs(sum(fs) - 1) > 1e-9:
        raise ValueError(f"fractions must give one share per path and add up to 1, got {fs}")
    return float(sum(f * x for f, x in zip(fs, ls)))


def mixed_over_sorted(fractions, lengths) -> float:
    """Slowdown when every warp holds lanes on every path, against warps sorted by path."""
    return warp_issue(lengths, range(len(_lengths(lengths)))) / sorted_issue(fractions, lengths)


def lane_efficiency(fractions, lengths) -> float:
    """Useful lane-instructions over lane slots issued, every path present in every warp:
    sorted_issue / warp_issue."""
    return 1 / mixed_over_sorted(fractions, lengths)


def rare_path_warps(p: float, warp: int = WARP) -> float:
    """Chance a warp holds at least one lane on a path each lane takes independently with
    probability ``p``: 1 - (1 - p)^warp."""
    return 1 - (1 - _check.fraction("p", p)) ** _check.count("warp", warp, maximum=_check.MAX_LANES)


def random_branch_issue(p: float, taken: float, other: float, warp: int = WARP) -> float:
    """Expected instructions per warp for a data-dependent if/else that each lane takes with
    probability ``p`` independently: taken x P(some lane takes it) + other x P(some lane
    does not)."""
    p = _check.fraction("p", p)
    t, o = _check.non_negative("taken", taken), _check.non_negative("other", other)
    return t * rare_path_warps(p, warp) + o * rare_path_warps(1 - p, warp)


def random_branch_slowdown(p: float, taken: float, other: float, warp: int = WARP) -> float:
    """random_branch_issue over the same branch with the lanes sorted by path."""
    return random_branch_issue(p, taken, other, warp) / sorted_issue([p, 1 - p], [taken, other])


def loop_efficiency(trips) -> float:
    """One warp whose lanes run loops of ``trips`` iterations: the warp runs until its longest
    lane finishes, so useful lane-iterations / (lanes x longest) of its slots work."""
    ts = [_check.non_negative(f"trips[{i}]", t) for i, t in enumerate(_check.items("trips", trips))]
    if not ts or max(ts) == 0:
        raise ValueError("trips must hold at least one loop with a positive trip count")
    return sum(ts) / (len(ts) * max(ts))


def dependent_chain_time(steps: int, latency: float) -> float:
    """Seconds one warp needs for ``steps`` dependent instructions of ``latency`` seconds each:
    the floor no amount of idle hardware lowers."""
    return _check.count("steps", steps) * _check.positive("latency", latency)


MAX_REGISTERS_PER_THREAD = 255   #: the most 32-bit registers one thread may use (sm_75 to sm_100)
#: The four limits on the blocks an SM holds, in the order occupancy_limits reports them.
OCCUPANCY_LIMITS = ("warps", "registers", "shared memory", "blocks")


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def registers_per_warp(machine, registers_per_thread: int) -> int:
    """Registers the SM hands one warp: registers_per_thread x 32, rounded up to the
    machine's allocation unit (256 from sm_75 to sm_100, so per-thread counts act as
    multiples of 8)."""
    from . import machines

    m = machines.get(machine)
    r = _check.count("registers_per_thread", registers_per_thread,
                     maximum=MAX_REGISTERS_PER_THREAD)
    return _round_up(r * WARP, int(m.hardware("register_alloc_unit")))


def register_limited_warps(machine, registers_per_thread: int) -> int:
    """Warps one SM's register file holds at ``registers_per_thread`` registers a thread,
    before any block or thread limit: the file is split into sub-partitions (four), each
    holding whole warps of registers_per_warp, so sub-partitions x floor(file / sub-partitions
    / registers_per_warp)."""
    from . import machines

    m = machines.get(machine)
    per_warp = registers_per_warp(m, registers_per_thread)
    parts = int(m.hardware("register_sub_partitions"))
    regs = int(m.hardware("registers_per_sm_bytes")) // 4
    return parts * ((regs // parts) // per_warp)


def shared_per_block_allocated(machine, shared_bytes: int) -> int:
    """Bytes of shared memory the SM sets aside for one block asking for ``shared_bytes``:
    the request plus the driver's reserve (1 KiB from sm_80 on), rounded up to the
    allocation unit (256 B on sm_75, 128 B from sm_80). A block asking for more than
    the per-block limit does not launch: ValueError."""
    from . import machines

    m = machines.get(machine)
    s = _check.count("shared_bytes", shared_bytes, minimum=0)
    limit = int(m.hardware("shared_per_block_bytes"))
    if s > limit:
        raise ValueError(f"shared_bytes must be at most {limit:,} B a block on {m.name} "
                         f"(the per-block limit), got {s:,}")
    return _round_up(s + int(m.hardware("reserved_shared_per_block_bytes")),
                     int(m.hardware("shared_alloc_unit_bytes")))


def occupancy_limits(machine, registers_per_thread: int, block: int = 256,
                     shared_bytes: int = 0) -> dict[str, int]:
    """Blocks of ``block`` threads one SM could hold under each of its four limits, as the
    CUDA occupancy calculator counts them: "warps" (the SM's warp slots), "registers"
    (:func:`register_limited_warps` in whole blocks), "shared memory" (the SM's most shared
    memory over :func:`shared_per_block_allocated`) and "blocks" (the SM's block slots).
    The smallest binds."""
    from . import machines

    m = machines.get(machine)
    b = _check.count("block", block)
    limit = int(m.hardware("max_threads_per_sm"))
    if b > min(limit, 1024):
        raise ValueError(f"block must be at most {min(limit, 1024)} threads on {m.name}, "
                         f"got {block!r}")
    warps = warps_per_block(b)
    smem = shared_per_block_allocated(m, shared_bytes)
    return {"warps": limit // WARP // warps,
            "registers": register_limited_warps(m, registers_per_thread) // warps,
            "shared memory": (int(m.hardware("shared_per_sm_bytes")) // smem) if smem
            else 2 ** 31 - 1,
            "blocks": int(m.hardware("max_blocks_per_sm"))}


def occupancy_limiter(machine, registers_per_thread: int, block: int = 256,
                      shared_bytes: int = 0) -> str:
    """Which of OCCUPANCY_LIMITS binds (the first, in that order, when several tie)."""
    lim = occupancy_limits(machine, registers_per_thread, block, shared_bytes)
    return min(OCCUPANCY_LIMITS, key=lambda k: (lim[k], OCCUPANCY_LIMITS.index(k)))


def resident_blocks(machine, registers_per_thread: int, block: int = 256,
                    shared_bytes: int = 0) -> int:
    """Blocks one SM holds at once: the smallest of :func:`occupancy_limits`."""
    return min(occupancy_limits(machine, registers_per_thread, block, shared_bytes).values())


def resident_threads(machine, registers_per_thread: int, block: int = 256,
                     shared_bytes: int = 0) -> int:
    """Threads one SM can hold with ``registers_per_thread`` 32-bit registers and
    ``shared_bytes`` of shared memory a block, in whole blocks of ``block``: every limit of
    :func:`occupancy_limits` (warp slots, registers with their allocation granularity,
    shared memory, block slots)."""
    return resident_blocks(machine, registers_per_thread, block, shared_bytes) * block


def occupancy(machine, registers_per_thread: int, block: int = 256,
              shared_bytes: int = 0) -> float:
    """Theoretical occupancy, as the occupancy calculator and Nsight Compute define it: the
    resident warps (:func:`resident_blocks` x warps a block) over the SM's warp slots. A
    block of fewer than 32 threads still takes a whole warp slot."""
    from . import machines

    m = machines.get(machine)
    warps = resident_blocks(m, registers_per_thread, block, shared_bytes) * warps_per_block(block)
    return warps / (m.hardware("max_threads_per_sm") / WARP)


def registers_for_full_occupancy(machine) -> int:
    """The most 32-bit registers per thread that still lets an SM hold its full thread limit."""
    from . import machines

    m = machines.get(machine)
    return int(m.hardware("registers_per_sm_bytes")) // 4 // int(m.hardware("max_threads_per_sm"))


# --- What a profiler counts: lanes per instruction and achieved occupancy. ---

def active_lanes(paths: int, split: str, warp: int = WARP) -> float:
    """Average lanes switched on per instruction a warp issues inside ``paths`` equal
    branches: the warp's lanes shared out over the passes it makes,
    warp / divergence_passes (32 between warps, 32/P through every warp)."""
    return _check.count("warp", warp, maximum=_check.MAX_LANES) / divergence_passes(paths, split, warp)


def busy_lanes_per_busy_warp(k: int, warp: int = WARP) -> float:
    """Lanes switched on per instruction inside the branch when one thread in every ``k``
    takes it: the busy threads over the warps holding one, warp / k while k <= warp (every
    warp holds some), 1 beyond (a busy warp holds a single busy lane)."""
    k, w = _check.count("k", k), _check.count("warp", warp, maximum=_check.MAX_LANES)
    return w / k if k <= w else 1.0


def launch_occupancy(machine, blocks: int, block: int, registers_per_thread: int) -> float:
    """Achieved occupancy a launch shape allows: resident warps per busy SM over the SM's
    warp slots. The ``blocks`` are dealt evenly over the SMs (a launch with fewer blocks
    than SMs leaves SMs idle, and each busy one holds a block); an SM holds at most the
    blocks its limits allow (:func:`resident_blocks`, no shared memory). Exact for
    launches whose blocks are fewer than the SMs or a multiple of them, in one wave."""
    from . import machines

    m = machines.get(machine)
    n, b = _check.count("blocks", blocks), _check.count("block", block)
    fit = resident_blocks(m, registers_per_thread, b)
    if fit < 1:
        raise ValueError(f"a block of {b} threads with {registers_per_thread} registers each "
                         f"does not fit on one {m.name} SM")
    per_sm = min(fit, max(1.0, n / m.sms))
    return per_sm * warps_per_block(b) / (m.hardware("max_threads_per_sm") / WARP)
