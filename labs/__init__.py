"""Labs: the book's experiments, measured on a real GPU through numba.cuda and torch.

One module per experiment (``labs/<name>.py``) with ``run(quick=False, ...)`` returning a
result dict ``{lab, context, params, rows, summary}`` (SI units) and ``plot(result)``
drawing the rows against perfmodel's prediction (plotly imported only there).

Without a CUDA GPU, :func:`show` loads the recorded results shipped under
``labs/results/<gpu>/`` and says whose GPU they came from; with one, it runs quick mode.

Kernel challenges (a kernel for the reader to fix, checked and timed against its bound)
live in :mod:`labs.challenges`: ``labs.challenges.show("saxpy")``.
"""
from __future__ import annotations

import importlib
from types import ModuleType

from .results import list_recorded, load, machine_profile, save, validate  # noqa: F401
from .roofline import my_roofline  # noqa: F401  (your GPU's roofline in one call)

#: Every lab, in the order of the book. Labs I: the roofline; Labs II: the machine.
LABS = ("paradox", "intensity", "ops_on_roof", "linear_batch", "fusion", "pcie", "clocks",
        "divergence", "latency", "littles_law", "coalescing", "waves", "attention", "profile", "comm")


def module(name: str) -> ModuleType:
    """The module of one lab; unknown name -> ValueError listing the labs."""
    if name not in LABS:
        raise ValueError(f"lab must be one of {', '.join(LABS)}; got {name!r}")
    return importlib.import_module(f"labs.{name}")


def available() -> list[str]:
    """Labs whose module exists in this checkout."""
    out = []
    for name in LABS:
        try:
            module(name)
        except ModuleNotFoundError:
            continue
        out.append(name)
    return out


def run(name: str, quick: bool = False, **params) -> dict:
    """Run one lab on this machine's GPU and return its result."""
    return module(name).run(quick=quick, **params)


def show(name: str, gpu: str | None = None, reference: str | None = "T4-reference", **options):
    """What a chapter's lab cell calls: a display object with the lab's plot and summary.

    With a CUDA GPU it runs the lab in quick mode; without one it loads the recorded
    run (``gpu``, default: the first recorded real GPU, the H200) and the T4 note's
    reference set, and says so in one line. A lab with a ``show`` of its own (the
    profile lab: ``labs.show("profile", lesson="simt")``) draws itself, given ``options``.
    """
    own = getattr(module(name), "show", None)  # an unknown lab -> ValueError listing the labs
    if own is not None:
        return own(gpu=gpu, **options)
    from .display import LabView
    from .gpu import has_cuda

    if has_cuda() and gpu is None:
        result = run(name, quick=True)
        note = f"Measured just now on your {result['context'].get('gpu_name', 'GPU')} (quick mode)."
        return LabView(name, [result], note)
    recorded = [r for r in list_recorded(name) if not r["context"].get("reference")]
    if gpu is not None:
        recorded = [r for r in recorded if r["context"].get("gpu_slug") == gpu]
    if not recorded:
        raise ValueError(f"no recorded results for lab {name!r}"
                         + (f" on {gpu!r}" if gpu else ""))
    results = [recorded[0]]
    ref = [r for r in list_recorded(name) if r["context"].get("gpu_slug") == reference]
    results += ref
    ctx = recorded[0]["context"]
    note = (f"No CUDA GPU here: showing the recorded run on an {ctx.get('gpu_name')} "
            f"({str(ctx.get('date', ''))[:10]})"
            + (" beside the T4 figures measured in How GPUs Actually Run ML." if ref else "."))
    return LabView(name, results, note)
