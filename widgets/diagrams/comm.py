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


class OverlapBuckets(Diagram):
    """The backward pass and the gradient all-reduce of data parallelism, bucket by bucket:
    the SMs finish bucket i's gradients at (i + 1) C / B; the link all-reduces bucket i
    once those are ready and bucket i - 1 is sent. C, the backward's seconds, and the
    all-reduce's seconds come from perfmodel.comm for the tokens each GPU holds."""
    name = "overlap-buckets"
    title = "Hiding the gradients' all-reduce behind the backward pass"
    caption = ("Top row: the backward pass on the SMs, producing the gradients in buckets. "
               "Bottom row: the link all-reducing each bucket once it is ready. With few "
               "tokens a GPU the link is the longer row and the step waits for it; with many, "
               "the backward pass is longer and only the last bucket's all-reduce shows.")
    height = 330
    xrange, yrange = (0, 100), (-16, 100)
    #: Tokens per GPU the slider offers.
    TOKENS = (256, 512, 1024, 2048, 4096, 8192)

    def __init__(self, params: float = 7e9, gpus: int = 8, buckets: int = 6,
                 link: str = "nvlink4", machine: str = "H200"):
        from perfmodel import machines

        self.params = with_value([], params, "params", 1e6, 1e13)[0]
        self.gpus = with_value([], gpus, "gpus", 2, 1024, integer=True)[0]
        self.buckets = with_value([], buckets, "buckets", 1, 12, integer=True)[0]
        self.link = comm.link(link)
        self.flops = machines.get(machine).peak_flops("bf16_tensor")
        super().__init__(tokens=2048)

    def controls(self):
        return [Control("tokens", "tokens a GPU", list(self.TOKENS), 2048, "slider",
                        lambda t: f"{t:,}")]

    def times(self, tokens: int) -> dict:
        """Seconds of the backward pass, of the whole all-reduce, and the bucket timeline:
        (start, end) of each bucket's backward and all-reduce, and the step's end."""
        c = comm.backward_flops(self.params, tokens) / self.flops
        a = comm.ring_allreduce_time(self.params * 2.0, self.gpus, self.link)
        nb = self.buckets
        comp = [(i * c / nb, (i + 1) * c / nb) for i in range(nb)]
        sent, end = [], 0.0
        for i in range(nb):
            start = max(comp[i][1], end)
            end = start + a / nb
            sent.append((start, end))
        return {"compute": c, "comm": a, "comp": comp, "sent": sent,
                "step": max(c, end), "sum": c + a}

    def _x(self, t: float, span: float) -> float:
        return 4 + 92 * t / span

    def picture(self, s):
        notes = [label(3, 78, "backward on the SMs", size=12, xanchor="left"),
                 label(3, 42, f"all-reduce over {self.link.label}", size=12, xanchor="left"),
                 label(96, 8, "time \u2192 (the whole width: the two rows one after the other)",
                       size=11, xanchor="right")]
        return [], notes

    def moving(self, s):
        tm = self.times(s["tokens"])
        span = max(tm["sum"], 1e-12)
        comp = [(self._x(a, span), 56, self._x(b, span) - 0.4, 72) for a, b in tm["comp"]]
        sent = [(self._x(a, span), 20, self._x(b, span) - 0.4, 36) for a, b in tm["sent"]]
        end = self._x(tm["step"], span)
        exposed = tm["step"] - tm["compute"]
        text = (f"{s['tokens']:,} tokens a GPU: backward {units.seconds(tm['compute'])}, "
                f"all-reduce {units.seconds(tm['comm'])} in {self.buckets} buckets<br>"
                f"step (backward and all-reduce) {units.seconds(tm['step'])}, of which "
                f"{units.seconds(exposed)} is communication left showing; "
                f"one after the other: {units.seconds(tm['sum'])}")
        return [boxes_trace(comp, FILL["compute"], "backward buckets"),
                boxes_trace(sent, FILL["hot"], "all-reduce buckets"),
                boxes_trace([(end - 0.3, 16, end + 0.3, 80)], FILL["warm"], "step ends"),
                text_trace(0, -8, text, "counters", size=12)]

    def describe(self, s):
        tm = self.times(s["tokens"])
        return (f"Two rows of {self.buckets} bars on a time axis: the backward pass of a "
                f"{self.params / 1e9:.0f}-billion-parameter model on an H200 at "
                f"{s['tokens']:,} tokens a GPU ({units.seconds(tm['compute'])}), and the "
                f"all-reduce of each bucket of BF16 gradients over {self.link.label} among "
                f"{self.gpus} GPUs ({units.seconds(tm['comm'])} in all), each starting once "
                f"its bucket is ready and the previous one is sent. A marker shows where the "
                f"step ends, {units.seconds(tm['step'])}; a slider changes the tokens a GPU.")


def overlap_buckets(params: float = 7e9, gpus: int = 8, buckets: int = 6,
                    link: str = "nvlink4") -> OverlapBuckets:
    """The backward pass and its bucketed gradient all-reduce on a time line, for ``params``
    parameters on ``gpus`` H200s over ``link`` (chapter 11)."""
    return OverlapBuckets(params, gpus, buckets, link)
