"""The online softmax (FlashAttention's core): a running state (m, l, u) per query row.

For scores s_j and values v_j over a set A of keys:
m = max s_j, l = sum exp(s_j - m), u = sum exp(s_j - m) v_j; the output is u / l.
Two states merge with m' = max(m_A, m_B), alpha = exp(m_A - m'), beta = exp(m_B - m'):
l' = alpha l_A + beta l_B, u' = alpha u_A + beta u_B. Masked scores are -inf; a state
with no valid score is (-inf, 0, 0) and merging it changes nothing (no NaN).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import _check


class State(NamedTuple):
    """Running maximum m, denominator l, weighted sum u (scalar or vector)."""

    m: float
    l: float
    u: np.ndarray | float


def _as_floats(name: str, value) -> np.ndarray:
    """An array of floats, or ValueError/TypeError naming the argument."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be numbers (a list or an array), got "
                         f"{_check.show(value)}") from None


def _state(name: str, value, allow_nan: bool = False) -> "State":
    """A State (or an (m, l, u) triple of numbers), or TypeError naming the argument."""
    try:
        m, l_, u = value
        st = State(float(m), float(l_), u if np.ndim(u) else float(u))
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"{name} must be a softmax State (m, l, u), got "
                        f"{_check.show(value)}") from None
    if not allow_nan and (math.isnan(st.m) or math.isnan(st.l) or st.l < 0):
        raise ValueError(f"{name} must have a maximum m that is a number and l >= 0, "
                         f"got {_check.show(value)}")
    return st


def _arrays(scores, values):
    s = _as_floats("scores", scores).reshape(-1)
    v = _as_floats("values", values)
    if v.ndim == 0 or v.shape[0] != s.shape[0]:
        raise ValueError(f"values must have one row per score: {s.shape[0]} scores, "
                         f"values of shape {v.shape}")
    if np.isnan(s).any() or np.isposinf(s).any():
        raise ValueError("scores must be finite or -inf (masked); got NaN or +inf")
    return s, v


def _zero_like(v: np.ndarray):
    z = np.zeros(v.shape[1:]) if v.ndim > 1 else 0.0
    return z


def state(scores, values) -> State:
    """(m, l, u) of one set of scores and their values (values: one scalar or row per score)."""
    s, v = _arrays(scores, values)
    valid = np.isfinite(s)
    if not valid.any():
        return State(-math.inf, 0.0, _zero_like(v))
    m = float(s[valid].max())
    w = np.where(valid, np.exp(np.where(valid, s - m, 0.0)), 0.0)
    u = np.tensordot(w, v, axes=(0, 0))
    return State(m, float(w.sum()), u if np.ndim(u) else float(u))


def factors(a: State, b: State) -> tuple[float, float, float]:
    """(m', alpha, beta) for merging a and b; an empty state gets factor 0."""
    a, b = _state("a", a), _state("b", b)
    m = max(a.m, b.m)
    if m == -math.inf:
        return m, 0.0, 0.0
    alpha = 0.0 if a.m == -math.inf else math.exp(a.m - m)
    beta = 0.0 if b.m == -math.inf else math.exp(b.m - m)
    return m, alpha, beta


def merge(a: State, b: State) -> State:
    """The state of the union of two disjoint sets of keys."""
    a, b = _state("a", a), _state("b", b)
    m, alpha, beta = factors(a, b)
    u = alpha * np.asarray(a.u) + beta * np.asarray(b.u)
    return State(m, alpha * a.l + beta * b.l, u if np.ndim(u) else float(u))


def output(st: State):
    """u / l: the softmax-weighted sum. A state with no valid score -> ValueError."""
    st = _state("st", st)
    if st.l == 0:
        raise ValueError("the softmax of a row with no valid (unmasked) score is undefined")
    out = np.asarray(st.u) / st.l
    return out if np.ndim(out) else float(out)


def direct(scores, values):
    """The softmax-weighted sum computed in one go (the reference)."""
    return output(state(scores, values))


def steps(scores, values, tile: int) -> list[dict]:
    """Process the row ``tile`` scores at a time; one dict per tile with the tile's
    state, alpha, beta, the running state and the running output (None while empty)."""
    s, v = _arrays(scores, values)
    t = _check.count("tile", tile)
    run = State(-math.inf, 0.0, _zero_like(v))
    out = []
    for start in range(0, len(s), t):
        part = state(s[start:start + t], v[start:start + t])
        _, alpha, beta = factors(run, part)
        run = merge(run, part)
        out.append({"start": start, "stop": min(start + t, len(s)), "tile": part,
                    "alpha": alpha, "beta": beta, "state": run,
                    "output": output(run) if run.l > 0 else None})
    return out


def online(scores, values, tile: int):
    """The softmax-weighted sum computed tile by tile with the online merge."""
    hist = steps(scores, values, tile)
    return output(hist[-1]["state"])


# --- Chapter 10 (FlashAttention): the unguarded merge, tile memory, tiled traffic. ---

def unguarded_factors(a: State, b: State) -> tuple[float, float, float]:
    """(m', alpha, beta) by the bare formulas exp(m_A - m'), exp(m_B - m'), with no test for
    an empty state: when both states are empty, -inf - (-inf) is NaN and so are the factors.
    The pitfall that :func:`factors` avoids; shown in chapter 10."""
    a, b = _state("a", a, allow_nan=True), _state("b", b, allow_nan=True)
    with np.errstate(invalid="ignore"):
        m = float(np.maximum(a.m, b.m))
        alpha = float(np.exp(np.float64(a.m) - m))
        beta = float(np.exp(np.float64(b.m) - m))
    return m, alpha, beta


def unguarded_state(scores, values) -> State:
    """:func:`state` by the bare formulas m = max s, l = sum exp(s - m), u = sum exp(s - m) v,
    with no test for a tile whose every score is masked: there m = -inf, each s - m is
    -inf - (-inf) = NaN, and so are l and u, before any merge."""
    s, v = _arrays(scores, values)
    m = float(s.max())
    with np.errstate(invalid="ignore"):
        w = np.exp(s - m)
        u = np.tensordot(w, v, axes=(0, 0))
    return State(m, float(w.sum()), u if np.ndim(u) else float(u))


def unguarded_merge(a: State, b: State) -> State:
    """:func:`merge` without the empty-state guard (NaN once two empty states meet)."""
    a, b = _state("a", a, allow_nan=True), _state("b", b, allow_nan=True)
    m, alpha, beta = unguarded_factors(a, b)
    with np.errstate(invalid="ignore"):
        u = alpha * np.asarray(a.u) + beta * np.asarray(b.u)
        l_ = alpha * a.l + beta * b.l
    return State(m, float(l_), u if np.ndim(u) else float(u))


def tile_bytes(block_q: int, block_k: int, head_dim: int, dtype_bytes: float = 2.0,
               acc_bytes: float = 4.0) -> float:
    """On-chip bytes one FlashAttention block holds: a Q tile (block_q x d), a K and a V
    tile (block_k x d each) in the input type; the block_q x block_k score tile, the
    block_q x d output accumulator and the running m and l (one each per row) in the
    accumulator type."""
    bq, bk = _check.count("block_q", block_q), _check.count("block_k", block_k)
    d = _check.count("head_dim", head_dim)
    s = _check.positive("dtype_bytes", dtype_bytes)
    a = _check.positive("acc_bytes", acc_bytes)
    return float((bq * d + 2 * bk * d) * s + (bq * bk + bq * d + 2 * bq) * a)


def flash_tiled_bytes(seq: int, head_dim: int, block_q: int, dtype_bytes: float = 2.0,
                      heads: int = 1) -> float:
    """DRAM bytes of tiled attention when K and V are re-read from DRAM for every block of
    ``block_q`` query rows (no help from the L2): Q read and O written once (2 S d
    elements), K and V read ceil(S / block_q) times (2 S d elements each time)."""
    s_len, d = _check.count("seq", seq), _check.count("head_dim", head_dim)
    bq = _check.count("block_q", block_q)
    e = _check.positive("dtype_bytes", dtype_bytes)
    h = _check.count("heads", heads)
    blocks = math.ceil(s_len / bq)
    return float(h * (2 * s_len * d + blocks * 2 * s_len * d) * e)


def flash_tiled_intensity(seq: int, head_dim: int, block_q: int,
                          dtype_bytes: float = 2.0) -> float:
    """4 S^2 d FLOPs over :func:`flash_tiled_bytes`: about 2 block_q / dtype_bytes once S
    is many blocks long, S / dtype_bytes when one block covers the sequence."""
    s_len, d = _check.count("seq", seq), _check.count("head_dim", head_dim)
    return 4.0 * s_len ** 2 * d / flash_tiled_bytes(s_len, d, block_q, dtype_bytes)


def causal_skipped_fraction(seq: int, block: int) -> float:
    """Fraction of (query block, key block) pairs a causal kernel skips because every
    score in them is masked (square blocks of ``block`` rows, key block above the
    diagonal): n (n - 1) / 2 of n^2, with n = ceil(seq / block)."""
    s_len, b = _check.count("seq", seq), _check.count("block", block)
    n = math.ceil(s_len / b)
    return n * (n - 1) / 2 / n ** 2


# --- The I/O analysis of FlashAttention (Dao et al. 2022, Algorithm 1 and Theorem 2). ---

def fa_block_sizes(sram_bytes: float, head_dim: int, dtype_bytes: float = 2.0) -> tuple[int, int]:
    """(B_r, B_c): the query-block rows and key-block rows FlashAttention's Algorithm 1 picks
    for an on-chip memory of ``sram_bytes``: M = sram_bytes / dtype_bytes elements,
    B_c = ceil(M / 4d) (a Q, K, V and O block of d-wide rows must fit together) and
    B_r = min(B_c, d)."""
    m = _check.positive("sram_bytes", sram_bytes) / _check.positive("dtype_bytes", dtype_bytes)
    d = _check.count("head_dim", head_dim)
    if m < 4 * d:
        raise ValueError(f"sram_bytes={sram_bytes:g} holds fewer than 4 rows of d={d} elements")
    b_c = _check.whole("sram_bytes and dtype_bytes", m / (4 * d))
    return min(b_c, d), b_c


def io_advantage(sram_bytes: float, head_dim: int, dtype_bytes: float = 2.0) -> float:
    """How many times fewer DRAM accesses FlashAttention's bound needs than the standard
    pipeline, for sequences much longer than d: Theta(S^2) against Theta(S^2 d^2 / M),
    a ratio of M / d^2 with M the on-chip memory in elements (constants dropped)."""
    m = _check.positive("sram_bytes", sram_bytes) / _check.positive("dtype_bytes", dtype_bytes)
    d = _check.count("head_dim", head_dim)
    return m / d ** 2


def decode_intensity(dtype_bytes: float = 2.0) -> float:
    """FLOP per byte of attention for ONE new query against a KV cache of S positions:
    4 S d FLOPs (the scores and the weighted sum) over 2 S d cached elements read,
    2 / dtype_bytes (1 in FP16), whatever S and d."""
    return 2.0 / _check.positive("dtype_bytes", dtype_bytes)


# --- The exponentials against the tensor cores (FlashAttention-3's point). ---

#: Exponentials (exp2, one MUFU instruction each) an SM completes per clock: the CUDA C++
#: Programming Guide's arithmetic-throughput table gives 16 a clock an SM for compute
#: capabilities 5.x to 9.0 (the special function units, SFUs).
EXP_PER_CLOCK_PER_SM = 16


def exp_rate(machine, clock_hz: float | None = None) -> float:
    """Exponentials per second the whole chip's SFUs complete: SMs x 16 x clock (Hz); the
    clock is the machine's boost clock unless ``clock_hz`` is given."""
    from . import machines

    m = machines.get(machine)
    if not (m.sms and m.clock_hz):
        raise ValueError(f"machine must know its SMs and clock to count SFU throughput; "
                         f"{m.name} does not")
    clock = m.clock_hz if clock_hz is None else _check.positive("clock_hz", clock_hz)
    return m.sms * EXP_PER_CLOCK_PER_SM * clock


def matmul_flops_per_score(head_dim: int) -> float:
    """Tensor-core FLOPs attention spends per score: 2d for the score (a row of Q against a
    row of K) and 2d for its share of P V, 4d in all, beside one exponential."""
    return 4.0 * _check.count("head_dim", head_dim)


def exp_bound_fraction(machine, head_dim: int, unit: str = "fp16_tensor",
                       overlap: bool = False) -> float:
    """The largest share of the tensor-core peak attention can reach when its exponentials
    run on the SFUs: with t_mm = 4d / tensor peak and t_exp = 1 / exp_rate per score, the
    SFUs counted at the clock the peak is quoted at (both run on the SM's clock),
    t_mm / (t_mm + t_exp) when the two take turns (overlap=False), t_mm / max(t_mm, t_exp)
    when one hides the other (FlashAttention-3's ping-pong scheduling). Other softmax work
    (maxima, scaling) is ignored, so a real kernel sits lower."""
    from . import machines

    m = machines.get(machine)
    t_mm = matmul_flops_per_score(head_dim) / m.peak_flops(unit)
    t_exp = 1.0 / exp_rate(m, m.peak_clock(unit))
    if not isinstance(overlap, bool):
        raise ValueError(f"overlap must be True or False, got {overlap!r}")
    return t_mm / (max(t_mm, t_exp) if overlap else t_mm + t_exp)
