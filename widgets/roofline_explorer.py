"""Roofline explorer: a machine's roof for one compute unit, with operations as dots.

Each dot is one operation at its arithmetic intensity: the filled marker sits on the
roof (attainable = min(P, I x B)), the open one below it is where the model puts the op
once its launch toll is paid (F / (t0 + max(F/P, D/B))). Each slider moves its own
dot(s); the other shape parameters of that dot are fixed and named in its legend entry.
"""
from __future__ import annotations

from perfmodel import ops, roofline, units
from perfmodel.machines import UNIT_LABELS, Machine

from . import axes
from .base import Control, Settings, View, check_choice, gpu_menu, with_value
from .style import COLORS, int_label, pow2

#: Shapes fixed for the dots whose other parameter has the slider.
TILED_N = 4096          # matrix size of the tiled-matmul dot
LINEAR_D = 4096         # d_in = d_out of the linear layer
FLASH_D = 64            # head dim of the flash-attention dot
NAIVE_S = 4096          # sequence length of the naive-attention dot
X_RANGE = (1e-2, 1e5)   # FLOP/byte shown

#: Hover of a dot on the roof, and of its open twin (the same op with its launch toll).
HOVER = ["<b>%{fullData.name}</b><br>F = %{customdata[0]:.3s}FLOP<br>D = %{customdata[1]:.3s}B"
         "<br>I = %{x:.3g} FLOP/B<br>%{customdata[2]}-bound, ceiling %{y:.3s}FLOP/s<extra></extra>",
         "<b>%{fullData.name}</b><br>with the launch toll: %{y:.3s}FLOP/s<extra></extra>"]


def _dots() -> list[tuple[str, str, object]]:
    """(slider name, legend label, op builder (value, dtype) -> Op) for every dot. A label
    with a ``{}`` takes the slider's value: the attention dots name both their shapes, the
    one the slider moves and the one held, so the legend follows the sliders."""
    return [
        ("vector_n", "vector add", lambda n, dt: ops.vector_add(n, dt)),
        ("matmul_n", "matmul, naive", lambda n, dt: ops.matmul(n, "none", dtype=dt)),
        ("matmul_n", "matmul, perfect reuse", lambda n, dt: ops.matmul(n, "perfect", dtype=dt)),
        ("tile", f"matmul {TILED_N}, tiled", lambda t, dt: ops.matmul(TILED_N, "tiled", t, dt)),
        ("batch", f"linear {LINEAR_D}x{LINEAR_D}", lambda b, dt: ops.linear(b, LINEAR_D, LINEAR_D, dt)),
        ("seq", "attention, flash<br>S={:,}, d=" + str(FLASH_D),
         lambda s, dt: ops.attention(s, FLASH_D, flash=True, dtype=dt)),
        ("head_dim", "attention, naive<br>S=" + f"{NAIVE_S:,}" + ", d={}",
         lambda d, dt: ops.attention(NAIVE_S, d, flash=False, dtype=dt)),
    ]


class RooflineExplorer(View):
    """The roofline of a chosen machine and unit with the book's operations on it."""

    name = "roofline-explorer"
    height = 360
    # beside the plot: inside it, some setting of the sliders always puts a dot under it
    legend = {"x": 1.02, "y": 1.0, "xanchor": "left", "yanchor": "top"}
    right_px = 150

    def __init__(self, machine: str | Machine = "T4", unit: str = "fp32",
                 machines: list[Machine] | None = None, vector_n: int = 2 ** 20,
                 matmul_n: int = 1024, tile: int = 32, batch: int = 1, seq: int = 4096,
                 head_dim: int = 64):
        if machines is not None and (isinstance(machines, (str, bytes))
                                     or not hasattr(machines, "__iter__")):
            raise TypeError(f"machines must be a list of Machine objects, got {machines!r}"[:200])
        self.machines, name = gpu_menu(machine, list(machines or []))
        unit = check_choice("unit", unit, self.machines[name].units(), lambda u: u)
        self.shapes = {
            "vector_n": with_value(pow2(10, 28, 3), vector_n, "vector_n", 1, 2 ** 34, integer=True),
            "matmul_n": with_value(pow2(4, 14), matmul_n, "matmul_n", 1, 2 ** 16, integer=True),
            "tile": with_value(pow2(3, 8), tile, "tile", 1, TILED_N, integer=True),
            "batch": with_value(pow2(0, 10), batch, "batch", 1, 2 ** 16, integer=True),
            "seq": with_value(pow2(8, 16), seq, "seq", 1, 2 ** 20, integer=True),
            "head_dim": with_value(pow2(5, 8), head_dim, "head_dim", 1, 1024, integer=True),
        }
        super().__init__(machine=name, unit=unit, vector_n=vector_n, matmul_n=matmul_n,
                         tile=tile, batch=batch, seq=seq, head_dim=head_dim)

    def controls(self) -> list[Control]:
        i = self._initial
        labels = {"vector_n": "vector length n", "matmul_n": "matmul size n",
                  "tile": f"tile T (matmul {TILED_N})", "batch": "linear-layer batch",
                  "seq": "attention sequence S", "head_dim": "attention head dim d"}
        return [
            Control("machine", "machine", list(self.machines), i["machine"], "dropdown"),
            Control("unit", "precision", lambda s: self.units(s["machine"], i["unit"]),
                    i["unit"], "dropdown",
                    lambda u: f"{UNIT_LABELS[u]} ({roofline.unit_dtype(u)} data)"),
        ] + [Control(k, labels[k], self.shapes[k], i[k], "slider", int_label)
             for k in self.shapes]

    def units(self, machine: str, keep: str) -> list[str]:
        """The machine's units, less any that repeat an earlier one's peak and data width
        (BF16 tensor where it equals FP16 tensor), except ``keep``."""
        m = self.machines[machine]
        out, seen = [], set()
        for u in m.units():
            key = (m.peak_flops(u), ops.dtype_bytes(roofline.unit_dtype(u)))
            if key not in seen or u == keep:
                out.append(u)
            seen.add(key)
        return out

    def title_for(self, s: Settings) -> str:
        return f"Roofline: {s['machine']}, {UNIT_LABELS[s['unit']]}"

    @staticmethod
    def dot_slider(index: int) -> str:
        """The slider that moves dot ``index``."""
        return _dots()[index][0]

    def op(self, s: Settings, index: int):
        """The Op of dot ``index`` at settings s (what the tests compare against)."""
        key, _, build = _dots()[index]
        return build(s[key], roofline.unit_dtype(s["unit"]))

    def traces(self, s: Settings) -> list[dict]:
        m = self.machines[s["machine"]]
        unit = s["unit"]
        peak, ridge = m.peak_flops(unit), m.ridge(unit)
        lo, hi = X_RANGE
        floor = peak / 1e6
        out = [
            {"type": "scatter", "name": f"roof ({UNIT_LABELS[unit]}, DRAM)", "mode": "lines",
             "x": [lo, ridge, hi], "y": [roofline.attainable(m, lo, unit), peak, peak],
             "line": {"color": COLORS["roof"], "width": 3},
             "hovertemplate": "%{x:.3g} FLOP/B → %{y:.3s}FLOP/s<extra>roof</extra>"},
            {"type": "scatter", "name": f"ridge {units.number(ridge)} FLOP/B", "mode": "lines+text",
             "x": [ridge, ridge], "y": [floor, peak], "text": [f"ridge {units.number(ridge)}", ""],
             "textposition": "top right", "line": {"color": COLORS["ridge"], "dash": "dot"},
             "hoverinfo": "skip", "showlegend": False},
        ]
        toll = m.launch_overhead.value
        for k, (key, label, _) in enumerate(_dots()):
            label = label.format(s[key])
            op = self.op(s, k)
            ceiling = roofline.attainable(m, op.intensity, unit)
            with_toll = roofline.achieved(m, op, unit, overhead=toll)
            row = [op.flops, op.bytes, roofline.bound(m, op, unit)]
            out.append({"type": "scatter", "name": label, "mode": "lines+markers",
                        "x": [op.intensity, op.intensity], "y": [ceiling, with_toll],
                        "marker": {"symbol": ["circle", "circle-open"], "size": [11, 9],
                                   "color": COLORS["ops"][k], "line": {"width": 2}},
                        "line": {"color": COLORS["ops"][k], "dash": "dot", "width": 1},
                        "customdata": [row, None], "hovertemplate": HOVER})
        return out

    def step_words(self, c: Control, s: Settings, traces: list[dict], moved: list[int],
                   layout: dict) -> str:
        """A slider step in words, from the model: for each dot the slider moves, its
        intensity, the roof's ceiling there and what bounds it ("attention, flash:
        intensity 1,820 FLOP/byte, 8.1 TFLOP/s attainable, compute-bound")."""
        m, unit = self.machines[s["machine"]], s["unit"]
        said = []
        for k, (key, label, _) in enumerate(_dots()):
            if key != c.name:
                continue
            op = self.op(s, k)
            said.append(f"{label.format(s[key]).split('<br>')[0]}: intensity "
                        f"{units.number(op.intensity)} FLOP/byte, "
                        f"{units.flops(roofline.attainable(m, op.intensity, unit))} attainable, "
                        f"{roofline.bound(m, op, unit)}-bound")
        return "; ".join(said)

    def layout(self, s: Settings) -> dict:
        m = self.machines[s["machine"]]
        peak = m.peak_flops(s["unit"])
        return {"xaxis": axes.log_axis("FLOP/B", *X_RANGE, "arithmetic intensity (FLOP/byte)",
                                       length_px=self.plot_px()),
                "yaxis": axes.log_axis("FLOP/s", peak / 1e6, peak * 3, "attainable FLOP/s",
                                       vertical=True, length_px=self.height)}


def roofline_explorer(machine: str | Machine = "T4", unit: str = "fp32",
                      machines: list[Machine] | None = None, **shapes) -> RooflineExplorer:
    """The roofline explorer: ``machine`` (a name or Machine) and compute ``unit`` to start
    with, ``machines`` extra Machine objects for the dropdown (e.g. a measured one from
    ``perfmodel.machines.from_results``); shapes: vector_n, matmul_n, tile, batch, seq,
    head_dim (initial slider values)."""
    return RooflineExplorer(machine, unit, machines, **shapes)
