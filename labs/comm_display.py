"""How the comm lab shows itself: its bandwidth-by-size plot against the links' roofs and
the alpha-beta model, and a table of its headline figures beside the datasheet.

Kept apart from :mod:`labs.comm` (whose ``run`` the GPU machine imports without plotly);
plotly and the widgets are imported only inside the functions that draw.
"""
from __future__ import annotations

import html

from perfmodel import comm as model
from perfmodel import machines, units

from . import results as _results

#: The machine the model is drawn for when a run names a GPU perfmodel does not know.
DEFAULT_MACHINE = "H200"
#: Each measured path: (row filter, the row key plotted, legend name).
SERIES = (({"kind": "copy", "path": "device to device"}, "bandwidth", "copy within the GPU"),
          ({"kind": "copy", "path": "host to device (pinned)"}, "bandwidth", "host to GPU (pinned)"),
          ({"kind": "copy", "path": "device to host (pinned)"}, "bandwidth", "GPU to host (pinned)"),
          ({"kind": "copy", "path": "peer to peer"}, "bandwidth", "GPU to GPU (send)"),
          ({"kind": "collective", "op": "all_reduce"}, "busbw", "all-reduce, bus bandwidth"),
          ({"kind": "collective", "op": "all_gather"}, "busbw", "all-gather, bus bandwidth"))


#: GPUs the all-reduce model is drawn for when a run measured one GPU (or none): a server.
MODEL_GPUS = 8
#: The model curves are all grey; their dashes tell them apart (host, HBM, all-reduce).
DASHES = ("dot", "dash", "dashdot")


def machine_for(result: dict | None) -> machines.Machine:
    """perfmodel's datasheet machine for a run's GPU (the H200 when unknown or no run)."""
    slug = (result or {}).get("context", {}).get("gpu_slug", DEFAULT_MACHINE)
    try:
        m = machines.get(slug)
        model.link_of(m)
        return m
    except ValueError:
        return machines.get(DEFAULT_MACHINE)


def recorded(gpu: str | None = None) -> list[dict]:
    """Recorded runs of the lab (real GPUs; ``gpu`` a folder name such as "H200")."""
    found = [r for r in _results.list_recorded("comm") if not r["context"].get("reference")]
    return [r for r in found if gpu is None or r["context"].get("gpu_slug") == gpu]


def gpus_measured(result: dict) -> int:
    """How many GPUs the run used (its world size)."""
    return int(result["context"].get("world_size") or result["summary"].get("gpus") or 1)


def largest_copy(result: dict, path: str) -> dict | None:
    """The row of ``path`` (a copy, e.g. "device to device") at its largest message, or None.
    A device copy's best bandwidth can come from a size that fits in L2; the largest one
    (1 GiB) is the DRAM figure."""
    rows = [r for r in result.get("rows", []) if r.get("kind") == "copy" and r.get("path") == path]
    return max(rows, key=lambda r: r["bytes"]) if rows else None


def note(result: dict | None, just_now: bool = False) -> str:
    """The one line above the plot: whose run, and what it could and could not measure."""
    if result is None:
        return ("No run of this lab is recorded yet: the curves are the model's, for an H200's "
                "links; python -m labs.comm records one (torchrun for several GPUs).")
    ctx = result["context"]
    n = gpus_measured(result)
    where = (f"Measured just now on your {ctx.get('gpu_name')} (quick mode)" if just_now else
             f"No CUDA GPU here: showing the run recorded on {n} x {ctx.get('gpu_name')} "
             f"({str(ctx.get('date', ''))[:10]})")
    if n == 1:
        return (where + "; only one GPU was measured, so the copies are shown and the "
                "collectives are the model's alone.")
    return where + f", {n} GPUs under torchrun."


def _sizes() -> list[float]:
    return [float(2 ** k) for k in range(12, 31)]


def _model_curves(m: machines.Machine, n: int) -> list[tuple[str, list[float], list[float]]]:
    """(name, sizes, byte/s) of the alpha-beta model for each path on machine ``m``, in the
    order of :data:`DASHES`."""
    xs = _sizes()
    host, peer = model.link_of(m, "host"), model.link_of(m, "peer")
    out = [(f"model: {host.label}, {units.bandwidth(host.bandwidth)} each way", xs,
            [s / model.message_time(s, host) for s in xs]),
           (f"model: copy in {m.memory or 'DRAM'} (half of {units.bandwidth(m.bandwidth('dram'))}"
            ", read + write)", xs,
            [s / model.message_time(s, m.bandwidth("dram") / 2) for s in xs])]
    if n >= 2:
        out.append((f"model: ring all-reduce on {n} GPUs over {peer.label}, bus bandwidth", xs,
                    [model.bus_bandwidth("all_reduce", s, model.ring_allreduce_time(s, n, peer), n)
                     for s in xs]))
    return out


def plot(results: list[dict]):
    """Bandwidth against message size: each measured path of each run, and the model's
    alpha-beta curves for the first run's GPU (an H200 when no run is given), the
    all-reduce for as many GPUs as the run measured, or MODEL_GPUS when it measured one."""
    from . import plotting as p

    first = results[0] if results else None
    n = gpus_measured(first) if first else 1
    n = n if n >= 2 else MODEL_GPUS    # one GPU measured: the collective is the model's
    fig = p.figure("Bandwidth by message size, against the links' roofs", height=520)
    for (name, xs, ys), dash in zip(_model_curves(machine_for(first), n), DASHES):
        p.model(fig, xs, ys, name, dash=dash)
    for i, r, label in p.each(results):
        for series, (match, key, name) in enumerate(SERIES):
            rs = p.rows(r, **match)
            if rs:
                p.points(fig, i, p.column(rs, "bytes"), p.column(rs, key), f"{label}: {name}",
                         series=series)
    p.axes(fig, "message size (B)", "bandwidth (B/s)")
    return p.finish(fig)


def table_html(result: dict | None) -> str:
    """The run's headline figures beside the model's, plain names and units."""
    m = machine_for(result)
    host, peer = model.link_of(m, "host"), model.link_of(m, "peer")
    s = (result or {}).get("summary", {})
    bw = lambda k: units.bandwidth(s[k]) if k in s else "not measured"  # noqa: E731
    big = largest_copy(result, "device to device") if result else None
    rows = [("Copy within the GPU, largest size (each way)",
             units.bandwidth(big["bandwidth"]) if big else "not measured",
             f"{units.bandwidth(m.bandwidth('dram') / 2)} (half the datasheet DRAM rate)"),
            ("Copy within the GPU, best size (may sit in L2)", bw("device_copy_bandwidth"),
             "above the DRAM figure when the buffer fits in L2"),
            ("Host to GPU, pinned", bw("h2d_bandwidth"), f"{units.bandwidth(host.bandwidth)} "
             f"({host.label}, datasheet, each way)"),
            ("GPU to host, pinned", bw("d2h_bandwidth"), units.bandwidth(host.bandwidth)),
            ("Host link start-up (fitted alpha)",
             units.seconds(s["h2d_alpha_s"]) if "h2d_alpha_s" in s else "not measured",
             f"{units.seconds(model.ALPHA.value)} (assumed)"),
            ("GPU to GPU, one send", bw("peer_bandwidth"),
             f"{units.bandwidth(peer.bandwidth)} ({peer.label}, datasheet, each way)"),
            ("All-reduce, best bus bandwidth", bw("all_reduce_busbw"),
             units.bandwidth(peer.bandwidth)),
            ("All-gather, best bus bandwidth", bw("all_gather_busbw"),
             units.bandwidth(peer.bandwidth))]
    head = html.escape(f"{result['context'].get('gpu_name')}" if result else "no run yet")
    body = "".join(f"<tr><td>{html.escape(a)}</td><td>{html.escape(b)}</td>"
                   f"<td>{html.escape(c)}</td></tr>" for a, b, c in rows)
    cap = ("Look at how far each measured rate sits below its link's datasheet roof."
           if result else "Look at the model column: no measurement is recorded yet.")
    return ('<div class="book-table"><table class="table"><caption>' + html.escape(cap)
            + f"</caption><thead><tr><th>figure</th><th>measured ({head})</th>"
            f"<th>model, {html.escape(m.name)}</th></tr></thead><tbody>{body}</tbody></table></div>")


class CommView:
    """Display object: the note, the plot (static HTML on the site) and the table of
    ``result``; ``others`` (recorded runs shown beside a run made just now) join the plot."""

    def __init__(self, result: dict | None, note_text: str, others: list[dict] = ()):
        self.result, self.note, self.others = result, note_text, list(others)

    def figure(self):
        return plot(([self.result] if self.result else []) + self.others)

    def _repr_mimebundle_(self, include=None, exclude=None):
        from widgets.static import figure_html

        body = (f"<p class='book-lab-note'><em>{html.escape(self.note)}</em></p>"
                + figure_html(self.figure(), name="lab-comm") + table_html(self.result))
        return {"text/html": body, "text/plain": self.note}


def show(gpu: str | None = None, run=None, **_ignored) -> CommView:
    """With a CUDA GPU, run the lab now in quick mode (``run``, the lab's own
    :func:`labs.comm.run`, which calls this; one process: copies only); else the recorded
    run (``gpu`` a folder name), or the model alone when none is recorded."""
    from .gpu import has_cuda

    if has_cuda() and gpu is None:
        if run is None:
            raise ValueError("run must be labs.comm.run to measure on this GPU")
        result = run(quick=True)
        multi = [r for r in recorded() if gpus_measured(r) >= 2][:1]
        text = note(result, just_now=True)
        if multi:
            ctx = multi[0]["context"]
            text += (f" The collectives beside it are the run recorded on "
                     f"{gpus_measured(multi[0])} x {ctx.get('gpu_name')} "
                     f"({str(ctx.get('date', ''))[:10]}).")
        return CommView(result, text, multi)
    found = recorded(gpu)
    if gpu is not None and not found:
        raise ValueError(f"no recorded results for lab 'comm' on {gpu!r}")
    result = found[0] if found else None
    return CommView(result, note(result))
