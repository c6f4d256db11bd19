"""The ring all-reduce drawn (chapter 11): n GPUs in a ring, each holding its buffer cut
into n chunks; a reduce-scatter (each step every GPU passes one chunk to its neighbour,
which adds it) then an all-gather (the finished chunks go round once more), stepped one
move at a time from perfmodel.comm.ring_allreduce_steps, with the bytes each GPU has sent
counted."""
from __future__ import annotations

from perfmodel import comm, units

from ..base import Control, with_value
from ._base import FILL, Diagram, boxes_trace, label, rect, text_trace, texts_trace


class RingAllReduce(Diagram):
    name = "ring-allreduce"
    title = "Ring all-reduce: a reduce-scatter, then an all-gather"
    caption = ("Each GPU's buffer is cut into one chunk per GPU. In the reduce-scatter every "
               "GPU passes one chunk to its right-hand neighbour, which adds it to its own; "
               "after n - 1 steps each GPU owns one fully summed chunk. The all-gather passes "
               "the finished chunks round the ring for n - 1 more steps.")
    height = 360
    xrange, yrange = (0, 100), (-14, 100)

    def __init__(self, gpus: int = 4, nbytes: float = 1e9):
        self.n = with_value([], gpus, "gpus", 2, 6, integer=True)[0]
        self.nbytes = with_value([], nbytes, "nbytes", 1, 2 ** 40)[0]
        self.steps = comm.ring_allreduce_steps(
            [[float(10 ** r)] * self.n for r in range(self.n)])
        super().__init__(step=0)

    def controls(self):
        last = len(self.steps) - 1
        return [Control("step", "step", list(range(last + 1)), 0, "slider",
                        lambda k: "start" if k == 0 else
                        f"{k}: {self.steps[k]['phase']}")]

    # GPU g's column and chunk c's cell
    def _gpu(self, g: int) -> tuple[float, float, float, float]:
        w = 100 / self.n
        return (g * w + 2, 10, (g + 1) * w - 2, 84)

    def _cell(self, g: int, c: int) -> tuple[float, float, float, float]:
        x0, _, x1, _ = self._gpu(g)
        h = 60 / self.n
        return (x0 + 3, 74 - (c + 1) * h + 1, x1 - 3, 74 - c * h - 1)

    def picture(self, s):
        sh, notes = [], []
        for g in range(self.n):
            sh.append(rect(*self._gpu(g), FILL["chip"], "gpu"))
            x0, _, x1, _ = self._gpu(g)
            notes.append(label((x0 + x1) / 2, 79, f"GPU {g}", size=12))
            sh += [rect(*self._cell(g, c), "rgba(0,0,0,0)", "chunk", width=1)
                   for c in range(self.n)]
        notes.append(label(0, 94, f"each GPU sends to GPU + 1; GPU {self.n - 1} sends to GPU 0",
                           size=11, xanchor="left"))
        return sh, notes

    def moving(self, s):
        k = s["step"]
        st = self.steps[k]
        full, partial, own = [], [], []
        xs, ys, texts = [], [], []
        for g in range(self.n):
            for c in range(self.n):
                held = st["held"][g][c]
                box = self._cell(g, c)
                (full if len(held) == self.n else partial if len(held) > 1 else own).append(box)
                xs.append((box[0] + box[2]) / 2)
                ys.append((box[1] + box[3]) / 2)
                texts.append("all" if len(held) == self.n else "+".join(str(h) for h in held))
        sent = [self._cell(src, c) for src, _, c in st["sends"]]
        chunk, steps = self.nbytes / self.n, 2 * (self.n - 1)
        text = (f"step {k} of {steps}: {st['phase']}<br>each GPU has sent {k} of its {steps} "
                f"chunks of {units.nbytes(chunk)}: {units.nbytes(k * chunk)} of "
                f"{units.nbytes(steps * chunk)}, 2(n-1)/n of its {units.nbytes(self.nbytes)}")
        return [boxes_trace(own, FILL["idle"], "own data only"),
                boxes_trace(partial, FILL["warm"], "partly summed"),
                boxes_trace(full, FILL["compute"], "fully summed"),
                boxes_trace(sent, FILL["hot"], "sent this step"),
                texts_trace(xs, ys, texts, "contributors", size=11),
                text_trace(0, -8, text, "counters", size=12)]

    def describe(self, s):
        return (f"{self.n} GPUs side by side, each with {self.n} chunks of its buffer. A slider "
                f"steps through {self.n - 1} reduce-scatter steps, after which each GPU holds "
                f"one chunk summed over every GPU, then {self.n - 1} all-gather steps that "
                f"copy the summed chunks to every GPU. Each chunk is labelled with the GPUs "
                f"whose data it sums; each GPU sends {2 * (self.n - 1)} chunks in all, "
                f"{2 * (self.n - 1)}/{self.n} of its buffer.")


def ring_allreduce(gpus: int = 4, nbytes: float = 1e9) -> RingAllReduce:
    """The ring all-reduce on ``gpus`` GPUs (2 to 6) of a ``nbytes`` buffer, stepped move
    by move (chapter 11)."""
    return RingAllReduce(gpus, nbytes)
