"""The four-question triage, answered by the model before any kernel is written.

1. Parallelism: how many independent work items? Under about 10,000 a GPU is
   underused; under about 100,000 a data-centre GPU is not saturated (the source notes'
   thresholds).
2. Intensity against the machine's ridge: which roof the op is under.
3. The minimum byte traffic (every input read once, every output written once) over the
   bandwidth: the speed-of-light time (seconds), together with F / P.
4. The access pattern: regular (coalesced) or irregular (gathers, divergence), given by
   the caller since an (F, D) pair cannot know it.
"""
from __future__ import annotations

from typing import NamedTuple

from . import _check, roofline
from .machines import Machine, get
from .ops import Op

#: Fewer independent work items than this leave a GPU underused.
FEW_ITEMS = 10_000
#: Fewer than this will not saturate a modern data-centre GPU.
ENOUGH_ITEMS = 100_000


class Triage(NamedTuple):
    """The four answers: work_items (count) and their verdict; intensity and ridge
    (FLOP/byte), bound and how far from the ridge (factor >= 1); min_bytes (bytes) and
    speed_of_light (seconds); regular access or not."""

    work_items: float
    parallelism: str
    intensity: float
    ridge: float
    bound: str
    factor: float
    min_bytes: float
    speed_of_light: float
    regular: bool


def parallelism(work_items: float) -> str:
    """"too few", "not enough to saturate" or "plenty" for a count of independent items."""
    work_items = _check.non_negative("work_items", work_items)
    if work_items < FEW_ITEMS:
        return "too few"
    if work_items < ENOUGH_ITEMS:
        return "not enough to saturate"
    return "plenty"


def triage(machine: Machine | str, op: Op, unit: str = "fp32", regular: bool = True) -> Triage:
    """Answer the four questions for ``op`` on ``machine`` (compute unit ``unit``)."""
    m = get(machine)
    op = roofline._op(op)
    r = roofline.ridge(m, unit)
    i = op.intensity
    b = roofline.bound(m, op, unit)
    items = op.work_items or 1.0
    return Triage(items, parallelism(items), i, r, b, max(r / i, i / r), op.bytes,
                  roofline.speed_of_light(m, op, unit), bool(regular))
