"""Data parallelism's roofline: the backward pass's FLOP/s a GPU can keep, with perfect
overlap, against its communication intensity (perfmodel.comm).

One roof per link: attainable = min(F, I_comm x beta), with F the GPU's dense BF16 rate and
beta the link's per-direction rate. A dot on each roof marks the chosen tokens a GPU; the
slider moves the dots along the intensity axis, the GPUs dropdown changes how many bytes
each GPU sends per FLOP. Left of a link's ridge the all-reduce outlasts the backward pass.
"""
from __future__ import annotations

from perfmodel import comm, machines, units

from . import axes
from .base import Control, Settings, View, check_choice, with_value
from .style import COLORS, int_label, pow2

#: The links drawn, fastest first (keys of perfmodel.comm.LINKS).
LINKS = ("nvlink4", "pcie5", "ib_ndr")
GPUS = (2, 8, 64)
TOKENS = pow2(8, 16)                 # 256 .. 65,536 tokens a GPU
X_RANGE = (1e2, 1e6)                 # FLOP/byte shown
GRADIENT_BYTES = 2.0                 # BF16 gradients
UNIT = "bf16_tensor"


class CommRoofline(View):
    """Tokens a GPU and GPUs to the backward pass's attainable FLOP/s under each link."""

    name = "comm-roofline"
    height = 380
    # inside, below the flat roofs on the right, where no line ever runs
    legend = {"x": 0.99, "y": 0.03, "xanchor": "right", "yanchor": "bottom"}

    def __init__(self, machine: str = "H200", gpus: int = 8, tokens: int = 2048):
        names = [m for m in machines.names() if machines.get(m).kind == "gpu"
                 and UNIT in machines.get(m).units()]
        self.machine = machines.get(check_choice("machine", machine, names))
        self.tokens = with_value(TOKENS, tokens, "tokens", 1, 2 ** 24, integer=True)
        self.gpus = with_value(GPUS, gpus, "gpus", 2, 4096, integer=True)
        super().__init__(gpus=gpus, tokens=tokens)
        self.title = (f"Data parallelism's roofline: {self.machine.name}, dense BF16, "
                      "gradients all-reduced in a ring")

    def controls(self) -> list[Control]:
        i = self._initial
        return [Control("gpus", "GPUs", self.gpus, i["gpus"], "dropdown", lambda n: f"{n:,}"),
                Control("tokens", "tokens a GPU", self.tokens, i["tokens"], "slider", int_label)]

    def flops(self) -> float:
        """The roof: the GPU's dense BF16 rate, FLOP/s."""
        return self.machine.peak_flops(UNIT)

    def intensity(self, s: Settings) -> float:
        """Backward FLOPs per byte of gradient a GPU sends, FLOP/byte."""
        return comm.dp_intensity(s["tokens"], s["gpus"], GRADIENT_BYTES)

    def traces(self, s: Settings) -> list[dict]:
        f, i = self.flops(), self.intensity(s)
        out = []
        for k, key in enumerate(LINKS):
            link = comm.link(key)
            ridge = comm.dp_ridge(f, link)
            color = COLORS["ops"][k]
            xs = [X_RANGE[0], ridge, X_RANGE[1]]
            out.append({"type": "scatter", "mode": "lines",
                        "name": f"{link.label}: ridge {units.number(ridge, 3)} FLOP/B",
                        "x": xs, "y": [min(f, x * link.bandwidth) for x in xs],
                        "line": {"color": color, "width": 3},
                        "hovertemplate": "%{x:.3g} FLOP/B: %{y:.3s}FLOP/s<extra>"
                                         f"{link.label}</extra>"})
            attainable = min(f, i * link.bandwidth)
            side = "hidden" if attainable >= f else "exposed"
            out.append({"type": "scatter", "mode": "markers",
                        "name": f"{link.label} at {s['tokens']:,} tokens ({side})",
                        "showlegend": False, "x": [i], "y": [attainable],
                        "marker": {"color": color, "size": 13,
                                   "line": {"color": COLORS["accent"], "width": 2}},
                        "hovertemplate": "I = %{x:.3g} FLOP/B: %{y:.3s}FLOP/s<extra>"
                                         f"{link.label}</extra>"})
        return out

    def layout(self, s: Settings) -> dict:
        f = self.flops()
        return {"xaxis": axes.log_axis("FLOP/B", *X_RANGE, "communication intensity (FLOP/byte)",
                                       length_px=self.plot_px()),
                "yaxis": axes.log_axis("FLOP/s", f / 300, f * 2,
                                       "backward FLOP/s a GPU keeps", vertical=True,
                                       length_px=self.height)}


def comm_roofline(machine: str = "H200", gpus: int = 8, tokens: int = 2048) -> CommRoofline:
    """Data parallelism's roofline on ``machine`` (a GPU of perfmodel with dense BF16
    tensor cores): attainable backward FLOP/s = min(F, I_comm x beta) under NVLink 4,
    PCIe 5 and InfiniBand NDR, with the communication intensity of ``tokens`` tokens a GPU
    on ``gpus`` GPUs (BF16 gradients, ring all-reduce) marked on each roof."""
    return CommRoofline(machine, gpus, tokens)
