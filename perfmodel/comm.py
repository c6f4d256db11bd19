"""Communication: the links between GPUs as a roof, and what collectives cost on them.

A :class:`Link` carries its datasheet rate **per direction** (byte/s a GPU can send while
it also receives as much); NVIDIA prints NVLink and PCIe as the bidirectional sum, twice
that, while network adapters (InfiniBand) are quoted per direction. The
alpha-beta model prices one message of S bytes as ``alpha + S / beta``: a fixed start-up
alpha (seconds) and the link's rate beta (byte/s).

Collectives over n GPUs in a ring, S the buffer size in bytes (NCCL-tests' convention:
for all-gather S is the gathered output, for reduce-scatter the input):

- all-reduce (ring): 2(n-1) steps, each moving S/n bytes over every link:
  ``2(n-1) alpha + 2(n-1)/n * S / beta``;
- all-reduce (binomial tree, not pipelined): recursive halving to one GPU, then recursive
  doubling back; each of ceil(log2 n) rounds a way passes a whole buffer:
  ``2 ceil(log2 n) (alpha + S / beta)``;
- all-gather and reduce-scatter (ring): ``(n-1) alpha + (n-1)/n * S / beta``.

Bus bandwidth (NCCL-tests, doc/PERFORMANCE.md) rescales the algorithm bandwidth S / t by
the share of the data each link carries *in a ring*: x 2(n-1)/n for all-reduce, x (n-1)/n
for all-gather and reduce-scatter. For a ring it is the rate each link actually moved; for
any other algorithm (tree, NVLink SHARP) it is the link rate a ring would have needed, and
can exceed the link's own rate.

Data parallelism: each step, every GPU runs its backward pass (about 4 FLOPs per
parameter per token: twice the forward's 2) and all-reduces its gradients. Its
communication intensity is backward FLOPs per byte one GPU sends over its link; the
gradients hide behind the backward pass once it exceeds the ridge F / beta.

>>> round(ring_allreduce_time(1e9, 8, 450e9, alpha=0.0) * 1e3, 2)
3.89
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import _check, machines
from .machines import Figure, Machine

#: Collectives the model prices, with NCCL-tests' bus-bandwidth factor as a function of n.
OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "send_recv")
#: All-reduce algorithms.
ALGORITHMS = ("ring", "tree")
#: The start-up cost of one step of a collective in this model, assumed (an order of
#: magnitude, deliberately pessimistic). NCCL's tuning tables instead model a one-time base
#: latency (about 6.6 us LL to 14 us LL128) plus a per-hop cost on NVLink of about 0.6 us (LL)
#: to 3.4 us (Simple), so NCCL's own estimates for small messages are several times lower.
ALPHA = Figure(5e-6, "order of magnitude assumed by the book (5 us a step, in this model)")

_NV = "NVIDIA {} datasheet: {} GB/s total bidirectional NVLink bandwidth per GPU"
_PCIE = "NVIDIA {} datasheet: PCIe {} x16, {} GB/s bidirectional"
_IB = "NVIDIA {} adapter user manual: InfiniBand {} at {} Gb/s per port, each way"


@dataclass(frozen=True)
class Link:
    """One kind of link: ``per_direction`` is a Figure of byte/s one way (a GPU sends this
    fast while receiving as fast); :meth:`bidirectional` is the sum vendors print."""

    key: str
    label: str
    per_direction: Figure

    @property
    def bandwidth(self) -> float:
        """byte/s each way: the beta of the alpha-beta model."""
        return float(self.per_direction.value)

    def bidirectional(self) -> float:
        """byte/s both ways together (twice :attr:`bandwidth`)."""
        return 2.0 * self.bandwidth

    @property
    def source(self) -> str:
        return self.per_direction.source


def _link(key: str, label: str, per_direction: float, source: str) -> Link:
    return Link(key, label, Figure(float(per_direction), source))


#: Every link, per GPU, each way. NVLink: the datasheet's total over all of a GPU's links,
#: halved; PCIe x16: the datasheet's bidirectional figure, halved, which is the signalling
#: rate of the PCIe specification (8, 16, 32 GT/s a lane x 16 lanes / 8; 128b/130b encoding
#: leaves 98.5 % of it for data); InfiniBand: one port's line rate in bits, over 8.
LINKS = {link.key: link for link in (
    _link("nvlink2", "NVLink 2 (V100)", 150e9, _NV.format("V100 SXM2", 300)),
    _link("nvlink3", "NVLink 3 (A100)", 300e9, _NV.format("A100", 600)),
    _link("nvlink4", "NVLink 4 (H100, H200)", 450e9, _NV.format("H200 SXM", 900)),
    _link("nvlink5", "NVLink 5 (B200)", 900e9, _NV.format("HGX B200", 1800)),
    _link("pcie3", "PCIe 3.0 x16", 16e9, _PCIE.format("T4", "Gen3", 32)),
    _link("pcie4", "PCIe 4.0 x16", 32e9, _PCIE.format("A100", "Gen4", 64)),
    _link("pcie5", "PCIe 5.0 x16", 64e9, _PCIE.format("H200", "Gen5", 128)),
    _link("ib_hdr", "InfiniBand HDR (200 Gb/s)", 25e9, _IB.format("ConnectX-6", "HDR", 200)),
    _link("ib_ndr", "InfiniBand NDR (400 Gb/s)", 50e9, _IB.format("ConnectX-7", "NDR", 400)),
)}

#: Each machine's links: to a peer GPU in the same server, to its host, and out of the
#: server (the NIC a GPU of that generation is paired with in NVIDIA's own servers). The
#: T4 has no NVLink: its peers are reached over PCIe.
_MACHINE_LINKS = {
    "T4": {"peer": "pcie3", "host": "pcie3", "network": None},
    "A100": {"peer": "nvlink3", "host": "pcie4", "network": "ib_hdr"},
    "H100": {"peer": "nvlink4", "host": "pcie5", "network": "ib_ndr"},
    "H200": {"peer": "nvlink4", "host": "pcie5", "network": "ib_ndr"},
    "B200": {"peer": "nvlink5", "host": "pcie5", "network": "ib_ndr"},
}
#: The roles a link plays for a machine.
ROLES = ("peer", "host", "network")


def link(key: str) -> Link:
    """One link by key (see :data:`LINKS`); unknown -> ValueError listing them."""
    return LINKS[_check.choice("key", key, LINKS)]


def link_of(machine: str | Machine, role: str = "peer") -> Link:
    """The link a machine reaches its ``role`` over: "peer" (another GPU in the server),
    "host" (the CPU) or "network" (another server). ValueError for a machine without
    GPU links (the CPU) or without that role (the T4 has no network link here)."""
    name = machines.get(machine).name
    if name not in _MACHINE_LINKS:
        raise ValueError(f"machine must be one of {', '.join(_MACHINE_LINKS)} (a GPU with "
                         f"links); got {name!r}")
    role = _check.choice("role", role, ROLES)
    key = _MACHINE_LINKS[name][role]
    if key is None:
        raise ValueError(f"role {role!r}: {name} has no such link in the model")
    return LINKS[key]


def _beta(bandwidth: float | Link) -> float:
    if isinstance(bandwidth, Link):
        return bandwidth.bandwidth
    return _check.positive("bandwidth", bandwidth)


def message_time(nbytes: float, bandwidth: float | Link, alpha: float = ALPHA.value) -> float:
    """alpha + nbytes / bandwidth: one message of ``nbytes`` bytes over one link (s)."""
    nbytes = _check.non_negative("nbytes", nbytes)
    alpha = _check.non_negative("alpha", alpha)
    return alpha + nbytes / _beta(bandwidth)


def bus_factor(op: str, n: int) -> float:
    """NCCL-tests' bus-bandwidth factor: share of the buffer each link carries.
    all_reduce 2(n-1)/n; all_gather, reduce_scatter (n-1)/n; broadcast, send_recv 1."""
    op = _check.choice("op", op, OPS)
    n = _check.count("n", n)
    if op == "all_reduce":
        return 2.0 * (n - 1) / n
    if op in ("all_gather", "reduce_scatter"):
        return (n - 1) / n
    return 1.0


def algorithm_bandwidth(nbytes: float, seconds: float) -> float:
    """NCCL-tests' algbw: buffer bytes over elapsed seconds (byte/s)."""
    return _check.non_negative("nbytes", nbytes) / _check.positive("seconds", seconds)


def bus_bandwidth(op: str, nbytes: float, seconds: float, n: int) -> float:
    """NCCL-tests' busbw: algbw x :func:`bus_factor` (byte/s), comparable to a link's
    per-direction rate whatever n is."""
    return algorithm_bandwidth(nbytes, seconds) * bus_factor(op, n)


def ring_allreduce_time(nbytes: float, n: int, bandwidth: float | Link,
                        alpha: float = ALPHA.value) -> float:
    """Ring all-reduce of ``nbytes`` over ``n`` GPUs: a reduce-scatter then an all-gather,
    2(n-1) steps of nbytes/n each: 2(n-1) alpha + 2(n-1)/n nbytes / bandwidth (s)."""
    n = _check.count("n", n)
    nbytes = _check.non_negative("nbytes", nbytes)
    alpha = _check.non_negative("alpha", alpha)
    return 2 * (n - 1) * alpha + bus_factor("all_reduce", n) * nbytes / _beta(bandwidth)


def tree_allreduce_time(nbytes: float, n: int, bandwidth: float | Link,
                        alpha: float = ALPHA.value) -> float:
    """All-reduce by a binomial tree, whole messages, not pipelined: ceil(log2 n) rounds of
    recursive halving (half the senders pass a whole buffer each round) to one GPU, then as
    many of recursive doubling back: 2 ceil(log2 n) (alpha + nbytes / bandwidth) (s); 0 for
    n = 1."""
    n = _check.count("n", n)
    nbytes = _check.non_negative("nbytes", nbytes)
    alpha = _check.non_negative("alpha", alpha)
    depth = math.ceil(math.log2(n)) if n > 1 else 0
    return 2 * depth * (alpha + nbytes / _beta(bandwidth))


def ring_gather_time(nbytes: float, n: int, bandwidth: float | Link,
                     alpha: float = ALPHA.value) -> float:
    """Ring all-gather (``nbytes`` the gathered output) or reduce-scatter (``nbytes`` the
    input): n-1 steps of nbytes/n: (n-1) alpha + (n-1)/n nbytes / bandwidth (s)."""
    n = _check.count("n", n)
    nbytes = _check.non_negative("nbytes", nbytes)
    alpha = _check.non_negative("alpha", alpha)
    return (n - 1) * alpha + bus_factor("all_gather", n) * nbytes / _beta(bandwidth)


def collective_time(op: str, nbytes: float, n: int, bandwidth: float | Link,
                    algorithm: str = "ring", alpha: float = ALPHA.value) -> float:
    """Seconds of one collective: ``op`` in all_reduce (``algorithm`` ring or tree),
    all_gather, reduce_scatter (ring)."""
    op = _check.choice("op", op, OPS[:3])
    algorithm = _check.choice("algorithm", algorithm, ALGORITHMS)
    if op == "all_reduce":
        fn = ring_allreduce_time if algorithm == "ring" else tree_allreduce_time
        return fn(nbytes, n, bandwidth, alpha)
    if algorithm != "ring":
        raise ValueError(f"algorithm must be 'ring' for {op}; got {algorithm!r}")
    return ring_gather_time(nbytes, n, bandwidth, alpha)


def step_time(compute_s: float, comm_s: float, overlap: bool = True) -> float:
    """One step's seconds: max(compute, comm) when the two overlap perfectly (the bound),
    compute + comm when they run one after the other."""
    compute_s = _check.non_negative("compute_s", compute_s)
    comm_s = _check.non_negative("comm_s", comm_s)
    return max(compute_s, comm_s) if overlap else compute_s + comm_s


def exposed(compute_s: float, comm_s: float) -> float:
    """Seconds of communication left showing under perfect overlap: max(0, comm - compute)."""
    return step_time(compute_s, comm_s, True) - _check.non_negative("compute_s", compute_s)


#: Backward-pass FLOPs per parameter per token (the forward's 2 FLOPs, twice).
BACKWARD_FLOPS_PER_PARAM_TOKEN = 4.0


def gradient_bytes_per_link(params: float, n: int, bytes_per_value: float = 2.0) -> float:
    """Bytes each GPU sends over its link in a ring all-reduce of ``params`` gradients of
    ``bytes_per_value`` bytes: 2(n-1)/n x params x bytes_per_value."""
    params = _check.positive("params", params)
    b = _check.positive("bytes_per_value", bytes_per_value)
    return bus_factor("all_reduce", n) * params * b


def backward_flops(params: float, tokens: float) -> float:
    """FLOPs of one GPU's backward pass: 4 x params x tokens (tokens on that GPU)."""
    return (BACKWARD_FLOPS_PER_PARAM_TOKEN * _check.positive("params", params)
            * _check.positive("tokens", tokens))


def dp_intensity(tokens: float, n: int, bytes_per_value: float = 2.0) -> float:
    """Communication intensity of data parallelism, FLOP/byte: backward FLOPs per byte of
    gradient one GPU sends. The parameter count cancels: 4 T / (2(n-1)/n b) = 2 T n /
    ((n-1) b), for T tokens a GPU. Needs n >= 2 (one GPU sends nothing)."""
    n = _check.count("n", n, minimum=2)
    return backward_flops(1.0, tokens) / gradient_bytes_per_link(1.0, n, bytes_per_value)


def dp_ridge(flops: float, bandwidth: float | Link) -> float:
    """The ridge of the communication roofline, FLOP/byte: compute rate (FLOP/s) over the
    link's per-direction rate (byte/s)."""
    return _check.positive("flops", flops) / _beta(bandwidth)


def dp_ridge_tokens(flops: float, bandwidth: float | Link, n: int,
                    bytes_per_value: float = 2.0) -> float:
    """Tokens a GPU per step at which the all-reduce of the gradients takes exactly as
    long as the backward pass: T* = F (n-1) b / (2 n beta). Above it the gradients can
    hide behind the backward pass."""
    n = _check.count("n", n, minimum=2)
    return dp_ridge(flops, bandwidth) / dp_intensity(1.0, n, bytes_per_value)


def fit_alpha_beta(nbytes, seconds) -> tuple[float, float]:
    """(alpha, beta) of the line t = alpha + S / beta through measured (S bytes, t seconds)
    pairs, by least squares on relative error (each point weighted 1/t, so the small
    messages that fix alpha count as much as the large ones that fix beta; at least two
    distinct sizes; alpha clipped at 0). Returns seconds and byte/s."""
    s = [_check.non_negative("nbytes", v) for v in _check.items("nbytes", nbytes, minimum=2)]
    t = [_check.positive("seconds", v) for v in _check.items("seconds", seconds, minimum=2)]
    if len(s) != len(t):
        raise ValueError(f"nbytes and seconds must have the same length; got {len(s)} and {len(t)}")
    if len(set(s)) < 2:
        raise ValueError("nbytes must hold at least two distinct sizes")
    slope, intercept = np.polyfit(np.asarray(s, float), np.asarray(t, float), 1,
                                  w=1.0 / np.asarray(t, float))
    if slope <= 0:
        raise ValueError("seconds must grow with nbytes for a link to have a rate")
    return max(0.0, float(intercept)), float(1.0 / slope)


def ring_allreduce_steps(values) -> list[dict]:
    """Run the ring all-reduce on ``values`` (n ranks x n chunks of numbers) one step at a
    time and return every step: ``{"phase": "reduce-scatter" | "all-gather", "step": k,
    "sends": [(from_rank, to_rank, chunk), ...], "values": n x n list after the step,
    "held": n x n list of the ranks whose data each chunk now sums}``. Step 0 is the
    start (phase "start", no sends). In reduce-scatter step k, rank r sends chunk
    (r - k) mod n to rank r + 1, which adds it to its own; after n - 1 steps rank r holds
    the full sum of chunk (r + 1) mod n. All-gather then passes the finished chunks round
    the ring, each copied over the stale one, for n - 1 more steps."""
    rows = _check.items("values", values, minimum=2)
    n = len(rows)
    if n > 64:
        raise ValueError(f"values must hold at most 64 ranks; got {n}")
    vals = []
    for r, row in enumerate(rows):
        row = _check.items(f"values[{r}]", row)
        if len(row) != n:
            raise ValueError(f"values[{r}] must hold {n} chunks (one per rank); got {len(row)}")
        vals.append([_check._number(f"values[{r}]", v) for v in row])
    held = [[{r} for _ in range(n)] for r in range(n)]

    def snap(phase: str, step: int, sends: list) -> dict:
        return {"phase": phase, "step": step, "sends": sends, "values": [list(v) for v in vals],
                "held": [[sorted(h) for h in row] for row in held]}

    out = [snap("start", 0, [])]
    for k in range(n - 1):
        sends = [(r, (r + 1) % n, (r - k) % n) for r in range(n)]
        moved = [(dst, c, vals[src][c], set(held[src][c])) for src, dst, c in sends]
        for dst, c, v, h in moved:
            vals[dst][c] += v
            held[dst][c] |= h
        out.append(snap("reduce-scatter", k + 1, sends))
    for k in range(n - 1):
        sends = [(r, (r + 1) % n, (r + 1 - k) % n) for r in range(n)]
        moved = [(dst, c, vals[src][c], set(held[src][c])) for src, dst, c in sends]
        for dst, c, v, h in moved:
            vals[dst][c] = v
            held[dst][c] = h
        out.append(snap("all-gather", k + 1, sends))
    return out


def tree_ring_crossover(n: int, bandwidth: float | Link, alpha: float = ALPHA.value) -> float:
    """Message size (bytes) below which the tree all-reduce beats the ring on n GPUs:
    with d = ceil(log2 n), 2d(alpha + S/beta) = 2(n-1) alpha + 2(n-1)/n S/beta gives
    S = alpha beta (n - 1 - d) / (d - (n-1)/n); 0 when the tree never wins."""
    n = _check.count("n", n, minimum=2)
    alpha = _check.non_negative("alpha", alpha)
    d = math.ceil(math.log2(n))
    gain = (n - 1) - d
    return alpha * _beta(bandwidth) * gain / (d - (n - 1) / n) if gain > 0 else 0.0
