"""Why the roof moves: peak = SMs x lanes x 2 x clock, and a power limit that sets the clock.

Top: the T4's FP32-lane and FP16-tensor peaks against the SM clock, with the source notes'
sustained measurements (FMA kernel 6.8 TFLOP/s at 1,365 MHz; cuBLAS FP32 3.5 at 705 MHz;
FP16 tensor 21 at 570 MHz). The clock slider reads both peaks off; the power-limit slider
places each workload at the clock the power model allows it (perfmodel.clocks).
Bottom: the roofline at the chosen clock against the datasheet's.
"""
from __future__ import annotations

from perfmodel import clocks, machines as pm_machines, roofline, units

from . import axes
from .base import Control, Settings, View, with_value
from .style import COLORS

CLOCKS_MHZ = [300, 400, 500, 570, 705, 800, 900, 1000, 1100, 1200, 1300, 1365, 1450, 1590]
POWERS_W = [30, 40, 50, 60, 67, 70, 80, 100, 150]
SHORT = {"fma_fp32": "FMA", "matmul_fp32": "cuBLAS FP32", "matmul_fp16_tensor": "tensor"}
WORKLOADS = {"fma_fp32": ("FMA kernel, FP32 lanes", "fp32"),
             "matmul_fp32": ("matmul, FP32 lanes", "fp32"),
             "matmul_fp16_tensor": ("matmul, FP16 tensor cores", "fp16_tensor")}
INTENSITY = (0.1, 1e4)


class RoofMoves(View):
    """SM clock and power limit to the FP32 and tensor roofs of a T4."""

    name = "roof-moves"
    height = 500
    TOP, BOTTOM = (0.47, 1.0), (0.0, 0.25)
    # between the panels, under the clock axis
    legend = {"orientation": "h", "x": 0.0, "y": 0.375, "xanchor": "left", "yanchor": "top"}
    title = "Why the roof moves (Tesla T4)"

    def __init__(self, clock_mhz: float = 1590, power_limit_w: float = 70):
        self.t4 = pm_machines.get("T4")
        top = self.t4.clock_hz / 1e6
        self.clocks = with_value(CLOCKS_MHZ, clock_mhz, "clock_mhz", 100, top)
        self.powers = with_value(POWERS_W, power_limit_w, "power_limit_w", clocks.T4_IDLE_W + 1, 1000)
        super().__init__(clock_mhz=clock_mhz, power_limit_w=power_limit_w)

    def controls(self) -> list[Control]:
        i = self._initial
        return [Control("clock_mhz", "SM clock", self.clocks, i["clock_mhz"], "slider",
                        lambda c: f"{c:g} MHz"),
                Control("power_limit_w", "power limit", self.powers, i["power_limit_w"], "slider",
                        lambda w: f"{w:g} W")]

    def peak(self, unit: str, clock_mhz: float) -> float:
        """FLOP/s of a T4 unit at an SM clock (MHz): the datasheet peak scaled by the clock."""
        return self.t4.with_clock(clock_mhz * 1e6).peak_flops(unit)

    def _circle_labels(self, model_clock: dict) -> list[str]:
        """The workloads' short names by their circles; circles at one spot share a label."""
        spots = {}
        for k in WORKLOADS:
            spot = (round(model_clock[k]), WORKLOADS[k][1] if WORKLOADS[k][1] != "fp32" else "fp32")
            spots.setdefault(spot, []).append(k)
        out = []
        for k in WORKLOADS:
            group = spots[(round(model_clock[k]), WORKLOADS[k][1])]
            out.append(", ".join(SHORT[j] for j in group) if group[0] == k else "")
        return out

    def traces(self, s: Settings) -> list[dict]:
        c, w = s["clock_mhz"], s["power_limit_w"]
        grid = [200 + 10 * k for k in range(140)]
        fp32 = [clocks.peak(self.t4.sms, self.t4.fp32_lanes_per_sm, g * 1e6) for g in grid]
        tensor = [self.peak("fp16_tensor", g) for g in grid]
        meas = clocks.T4_MEASURED
        model_clock = {k: clocks.t4_workload_clock(k, w) / 1e6 for k in WORKLOADS}
        fast = self.t4.with_clock(c * 1e6)
        out = [
            {"type": "scatter", "mode": "lines", "name": "FP32: 40×64×2×clock",
             "x": grid, "y": fp32, "line": {"color": COLORS["roof"]}, "xaxis": "x", "yaxis": "y"},
            {"type": "scatter", "mode": "lines", "name": "FP16 tensor",
             "x": grid, "y": tensor, "line": {"color": COLORS["parts"]["compute"]},
             "xaxis": "x", "yaxis": "y"},
            {"type": "scatter", "mode": "markers+text", "name": "measured (notes)",
             "x": [v[1] / 1e6 for v in meas.values()], "y": [v[0] for v in meas.values()],
             "text": [f"{SHORT[k]} {units.si(v[0], 'FLOP/s')}, {v[2]:g} W" for k, v in meas.items()],
             "textposition": ["bottom right", "bottom right", "bottom right"], "textfont": {"size": 10},
             "marker": {"symbol": "x", "size": 11, "color": COLORS["accent"]},
             "xaxis": "x", "yaxis": "y"},
            {"type": "scatter", "mode": "lines+markers+text", "name": "chosen clock",
             # both peaks in one label at the top of the line, above every curve and mark
             "x": [c, c, c], "y": [self.peak("fp32", c), self.peak("fp16_tensor", c), 1.15e14],
             "text": ["", "", f"{c:g} MHz: {units.number(self.peak('fp32', c) / 1e12)} and "
                      f"{units.number(self.peak('fp16_tensor', c) / 1e12)} TFLOP/s"],
             "textposition": "bottom right" if c < 1000 else "bottom left", "cliponaxis": False,
             "marker": {"size": [9, 9, 0], "color": COLORS["ridge"]},
             "line": {"color": COLORS["ridge"], "dash": "dot"}, "xaxis": "x", "yaxis": "y",
             "showlegend": False},
            {"type": "scatter", "mode": "markers+text", "name": "model clock under the power limit",
             "x": [model_clock[k] for k in WORKLOADS],
             "y": [self.peak(WORKLOADS[k][1], model_clock[k]) for k in WORKLOADS],
             "text": self._circle_labels(model_clock), "textposition": "top center",
             "textfont": {"size": 10, "color": COLORS["gpu"]},
             "customdata": [WORKLOADS[k][0] for k in WORKLOADS],
             "marker": {"symbol": "circle-open", "size": 14, "color": COLORS["gpu"], "line": {"width": 3}},
             "hovertemplate": "%{customdata}: %{x:.0f} MHz → %{y:.3s}FLOP/s<extra>power model</extra>",
             "xaxis": "x", "yaxis": "y"},
        ]
        lo, hi = INTENSITY
        for unit, color in (("fp32", COLORS["roof"]), ("fp16_tensor", COLORS["parts"]["compute"])):
            for m, dash, label in ((self.t4, "dash", "datasheet"), (fast, "solid", "at the clock")):
                r = m.ridge(unit)
                out.append({"type": "scatter", "mode": "lines", "x": [lo, r, hi],
                            "y": [roofline.attainable(m, lo, unit), m.peak_flops(unit), m.peak_flops(unit)],
                            "name": f"{unit} roof, {label}", "showlegend": False,
                            "line": {"color": color, "dash": dash, "width": 2 if dash == "solid" else 1},
                            "xaxis": "x2", "yaxis": "y2"})
        return out

    def layout(self, s: Settings) -> dict:
        h, w = self.height, self.plot_px()
        return {"xaxis": {"domain": [0, 1], "anchor": "y", "range": [100, 1800],
                          "tickvals": list(range(200, 1601, 200)),
                          "title": {"text": "SM clock (MHz)", "standoff": 2}},
                "yaxis": axes.log_axis("FLOP/s", 6.5e11, 1.2e14, "peak", vertical=True,
                                       length_px=h * (self.TOP[1] - self.TOP[0]),
                                       domain=list(self.TOP), anchor="x"),
                "xaxis2": axes.log_axis("FLOP/B", *INTENSITY,
                                        "intensity (FLOP/byte); dashed: datasheet, solid: at the clock",
                                        length_px=w, domain=[0, 1], anchor="y2"),
                "yaxis2": axes.log_axis("FLOP/s", 3e10, 1e14, "roof", vertical=True,
                                        length_px=h * (self.BOTTOM[1] - self.BOTTOM[0]),
                                        domain=list(self.BOTTOM), anchor="x2")}


def roof_moves(clock_mhz: float = 1590, power_limit_w: float = 70) -> RoofMoves:
    """The T4's FP32 and tensor roofs at an SM clock (``clock_mhz``) and the clocks its
    power model allows each workload under ``power_limit_w`` watts."""
    return RoofMoves(clock_mhz, power_limit_w)
