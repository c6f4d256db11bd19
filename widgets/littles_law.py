"""Little's law: bytes in flight = bandwidth x latency, and the threads that takes.

The table turns the machine's DRAM bandwidth and a load latency into bytes in flight and
threads needed at three sizes of outstanding loads per thread. The curves show achieved
bandwidth against warps for 1, 2, 4 and 8 independent 16-byte loads per thread (ILP), and
the same points against bytes in flight, where they fall onto one line (perfmodel.little).
"""
from __future__ import annotations

from perfmodel import little, units
from perfmodel.machines import Machine

from .base import Control, Settings, View, gpu_menu, with_value
from . import axes
from .style import COLORS, pow2, table_trace

ILPS = (1, 2, 4, 8)
BYTES_PER_LOAD = 16                       # one float4 load
PER_THREAD = (4, 16, 64)                  # bytes outstanding per thread in the table
WARPS = pow2(0, 14)
LATENCIES_NS = list(range(100, 1001, 100))


class LittlesLaw(View):
    """Latency and bandwidth to bytes in flight, threads needed and achieved bandwidth."""

    name = "littles-law"
    height = 470
    TABLE, TOP, BOTTOM = (0.86, 1.0), (0.49, 0.79), (0.0, 0.27)
    legend = {"x": 0.99, "y": 0.51, "xanchor": "right", "yanchor": "bottom"}

    def __init__(self, machine: str | Machine = "T4", latency_ns: float = 400):
        self.gpus, name = gpu_menu(machine)
        self.latencies = with_value(LATENCIES_NS, latency_ns, "latency_ns", 1, 1e6)
        super().__init__(machine=name, latency_ns=latency_ns)

    def controls(self) -> list[Control]:
        i = self._initial
        return [Control("machine", "machine", list(self.gpus), i["machine"], "dropdown"),
                Control("latency_ns", "load latency", self.latencies, i["latency_ns"], "slider",
                        lambda ns: f"{ns:g} ns")]

    def title_for(self, s: Settings) -> str:
        return f"Little's law on the {s['machine']}"

    def traces(self, s: Settings) -> list[dict]:
        m = self.gpus[s["machine"]]
        bw, lat = m.bandwidth("dram"), s["latency_ns"] * 1e-9
        need = little.bytes_in_flight(bw, lat)
        header = ["B × L"] + [f"threads at {b} B" for b in PER_THREAD]
        cells = [[units.nbytes(need)]] + [[f"{little.threads_needed(bw, lat, b):,.0f}"]
                                          for b in PER_THREAD]
        out = [table_trace(header, cells, list(self.TABLE))]
        for k, ilp in enumerate(ILPS):
            got = [little.bandwidth_vs_warps(w, ilp, BYTES_PER_LOAD, lat, bw) for w in WARPS]
            color = COLORS["ops"][k]
            out.append({"type": "scatter", "mode": "lines", "name": f"ILP {ilp}", "x": WARPS,
                        "y": got, "line": {"color": color}, "xaxis": "x", "yaxis": "y",
                        "hovertemplate": "%{x} warps: %{y:.3s}B/s<extra>ILP " + str(ilp) + "</extra>"})
            out.append({"type": "scatter", "mode": "markers", "name": f"ILP {ilp} (bytes)",
                        "x": [w * little.WARP * ilp * BYTES_PER_LOAD for w in WARPS], "y": got,
                        "marker": {"color": color, "size": 13 - 3 * k}, "xaxis": "x2", "yaxis": "y2",
                        "showlegend": False,
                        "hovertemplate": "%{x:.3s}B in flight: %{y:.3s}B/s<extra></extra>"})
        out.append({"type": "scatter", "mode": "lines+text", "name": "B × L",
                    "x": [need, need], "y": [0, bw * 1.08], "text": [f"B×L = {units.nbytes(need)}", ""],
                    "textposition": "top right", "xaxis": "x2", "yaxis": "y2",
                    "line": {"color": COLORS["ridge"], "dash": "dot"}, "showlegend": False,
                    "hoverinfo": "skip"})
        return out

    def layout(self, s: Settings) -> dict:
        bw = self.gpus[s["machine"]].bandwidth("dram")
        w, h = self.plot_px(), self.height

        def y(dom, anchor):
            return axes.linear_axis("B/s", 0, bw * 1.1, "bandwidth", vertical=True,
                                    length_px=h * (dom[1] - dom[0]), domain=list(dom), anchor=anchor)

        warps = axes.log_axis("", WARPS[0] / 1.2, WARPS[-1] * 1.2, length_px=w, domain=[0, 1],
                              anchor="y")
        warps["title"] = {"text": "warps (32 threads each)", "standoff": 4}
        return {"xaxis": warps,
                "yaxis": y(self.TOP, "x"),
                "xaxis2": axes.log_axis("B", 5e2, 1e8, "bytes in flight", length_px=w,
                                        domain=[0, 1], anchor="y2"),
                "yaxis2": y(self.BOTTOM, "x2")}


def littles_law(machine: str | Machine = "T4", latency_ns: float = 400) -> LittlesLaw:
    """Little's law on a GPU (``machine``) for a DRAM load latency you slide
    (initially ``latency_ns`` nanoseconds)."""
    return LittlesLaw(machine, latency_ns)
