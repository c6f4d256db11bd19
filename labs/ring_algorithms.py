"""Three all-reduces written with point-to-point messages only, for :mod:`labs.ring`.

Each takes one contiguous CPU tensor ``x`` (the same shape on every rank) and replaces it,
in place, by the element-wise sum over all ranks, using ``dist.send``/``dist.recv`` and
``dist.isend``. Each is self-contained (it imports what it needs inside its body), because
:mod:`labs.ring` ships a function to its worker processes as source text: that is what lets
a function written in a notebook cell run in processes that never saw the notebook.

- :func:`naive_allreduce`, the starter: every rank sends its whole buffer to rank 0, which
  adds them and sends the sum back. Correct, but rank 0's link carries (n-1) buffers each
  way while the others carry one.
- :func:`tree_allreduce`: a binomial-tree reduce to rank 0, then a binomial-tree broadcast:
  2 ceil(log2 n) rounds, a whole buffer per round.
- :func:`ring_allreduce`, the reference: a reduce-scatter then an all-gather round a ring,
  2(n-1) steps of one n-th of the buffer each, chapter 11's algorithm.
"""
from __future__ import annotations


def naive_allreduce(x) -> None:
    """Gather to rank 0, add, send the sum back (the starter: correct, unbalanced)."""
    import torch
    import torch.distributed as dist

    n, rank = dist.get_world_size(), dist.get_rank()
    if rank == 0:
        incoming = torch.empty_like(x)
        for src in range(1, n):
            dist.recv(incoming, src)
            x += incoming
        for dst in range(1, n):
            dist.send(x, dst)
    else:
        dist.send(x, 0)
        dist.recv(x, 0)


def tree_allreduce(x) -> None:
    """Binomial-tree reduce to rank 0, then binomial-tree broadcast from it."""
    import torch
    import torch.distributed as dist

    n, rank = dist.get_world_size(), dist.get_rank()
    incoming = torch.empty_like(x)
    d = 1
    while d < n:  # reduce: at distance d, rank r + d hands its partial sum to rank r
        if rank % (2 * d) == 0 and rank + d < n:
            dist.recv(incoming, rank + d)
            x += incoming
        elif rank % (2 * d) == d:
            dist.send(x, rank - d)
        d *= 2
    while d > 1:  # broadcast: the same pairs, in reverse order, copy the sum back out
        d //= 2
        if rank % (2 * d) == 0 and rank + d < n:
            dist.send(x, rank + d)
        elif rank % (2 * d) == d:
            dist.recv(x, rank - d)


def ring_allreduce(x) -> None:
    """Ring all-reduce: n - 1 reduce-scatter steps, then n - 1 all-gather steps."""
    import torch
    import torch.distributed as dist

    n, rank = dist.get_world_size(), dist.get_rank()
    chunks = list(torch.tensor_split(x.view(-1), n))  # views into x; sizes may differ by one
    right, left = (rank + 1) % n, (rank - 1) % n

    def step(send_i: int, recv_i: int, add: bool) -> None:
        """Send chunk send_i to the right, receive chunk recv_i from the left."""
        req = dist.isend(chunks[send_i], right) if chunks[send_i].numel() else None
        if chunks[recv_i].numel():
            incoming = torch.empty_like(chunks[recv_i])
            dist.recv(incoming, left)
            if add:
                chunks[recv_i] += incoming
            else:
                chunks[recv_i].copy_(incoming)
        if req is not None:
            req.wait()

    for k in range(n - 1):  # reduce-scatter: afterwards rank r holds chunk (r + 1) summed
        step((rank - k) % n, (rank - k - 1) % n, add=True)
    for k in range(n - 1):  # all-gather: the finished chunks travel once round the ring
        step((rank + 1 - k) % n, (rank - k) % n, add=False)


#: Name -> function, in the order the lab times them.
ALGORITHMS = {"naive": naive_allreduce, "tree": tree_allreduce, "ring": ring_allreduce}
