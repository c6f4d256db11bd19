"""FlashAttention drawn (chapter 10): the loop order with what lives in HBM and what on
chip, one (query block, key block) step at a time with the HBM bytes counted
(perfmodel.softmax.tile_bytes, flash_tiled_bytes); and the online softmax merge of a
running state with a tile's, tile by tile (perfmodel.softmax.steps)."""
from __future__ import annotations

import math

from perfmodel import softmax, units

from ..base import Control, check_choice, with_value
from ..online_softmax import SCORES, VALUES
from ._base import FILL, Diagram, arrow, boxes_trace, label, rect, text_trace, texts_trace


class FlashLoop(Diagram):
    name = "flash-loop"
    title = "FlashAttention's loop: blocks of K and V stream past a resident Q block"
    caption = ("Q, K, V and O live in HBM. For each block of query rows (outer loop) the "
               "kernel keeps Q_i, its output O_i and the running max and sum on chip, and "
               "streams every K_j, V_j block through; the score block S_ij is used on chip "
               "and never written to HBM.")
    height = 420
    xrange, yrange = (0, 100), (0, 100)

    def __init__(self, seq: int = 512, head_dim: int = 64, block: int = 128,
                 dtype_bytes: float = 2.0):
        self.seq = with_value([], seq, "seq", 1, 2 ** 20, integer=True)[0]
        self.d = with_value([], head_dim, "head_dim", 1, 1024, integer=True)[0]
        self.block = with_value([], block, "block", 1, 2 ** 20, integer=True)[0]
        self.e = with_value([], dtype_bytes, "dtype_bytes", 0.5, 8)[0]
        self.nb = math.ceil(self.seq / self.block)
        if self.nb > 8:
            raise ValueError(f"seq / block must be at most 8 blocks to draw; got {self.nb}")
        super().__init__(step=1)

    def controls(self):
        return [Control("step", "step (query block, key block)",
                        list(range(1, self.nb ** 2 + 1)), 1, "slider",
                        lambda k: f"{k}: Q{(k - 1) // self.nb}, K{(k - 1) % self.nb}")]

    def bytes_so_far(self, k: int) -> tuple[float, float]:
        """(read, written) HBM bytes after step k: Q_i read when its row starts, K_j and
        V_j read every step, O_i written when its row ends."""
        i, j = divmod(k - 1, self.nb)
        blk = self.block * self.d * self.e
        read = (i + 1) * blk + k * 2 * blk
        written = (i + (1 if j == self.nb - 1 else 0)) * blk
        return read, written

    # HBM columns: x of Q, K, V, O; block rows from the top
    COLS = {"Q": 4, "K": 14, "V": 24, "O": 34}

    def _cell(self, col: str, b: int):
        x = self.COLS[col]
        h = 64 / self.nb
        return (x, 84 - (b + 1) * h + 0.6, x + 7, 84 - b * h - 0.6)

    def picture(self, s):
        sh = [rect(0, 0, 44, 96, FILL["dram"], "hbm"), rect(50, 0, 100, 96, FILL["chip"], "sram")]
        for col in "QKVO":
            sh += [rect(*self._cell(col, b), FILL["idle"], f"hbm-{col}", width=0.5)
                   for b in range(self.nb)]
        on_chip = [("Q<sub>i</sub>", 53, 66, 64, 80), ("K<sub>j</sub>", 67, 66, 78, 80),
                   ("V<sub>j</sub>", 81, 66, 92, 80),
                   ("S<sub>ij</sub> = Q<sub>i</sub> K<sub>j</sub><sup>T</sup>", 53, 44, 78, 60),
                   ("m, l<br>(max, sum)", 81, 44, 92, 60), ("O<sub>i</sub> (running)", 53, 24, 92, 38)]
        notes = [label(22, 91, "HBM (off chip)"), label(75, 91, "on chip (SRAM, registers)")]
        for col, x in self.COLS.items():
            notes.append(label(x + 3.5, 86.5, col, size=11))
        for what, x0, y0, x1, y1 in on_chip:
            sh.append(rect(x0, y0, x1, y1, FILL["cool"], "onchip"))
            notes.append(label((x0 + x1) / 2, (y0 + y1) / 2, what, size=11))
        tb = softmax.tile_bytes(self.block, self.block, self.d, self.e)
        notes.append(label(75, 6, f"on chip: {tb / 1024:.0f} KiB per block pair", size=11))
        notes.append(arrow(42, 60, 52, 60, name="load"))
        return sh, notes

    def moving(self, s):
        k = s["step"]
        i, j = divmod(k - 1, self.nb)
        read, written = self.bytes_so_far(k)
        total = softmax.flash_tiled_bytes(self.seq, self.d, self.block, self.e)
        done_o = [self._cell("O", b) for b in range(i + (1 if j == self.nb - 1 else 0))]
        streamed = [self._cell("K", j), self._cell("V", j)]
        text = (f"step {k} of {self.nb ** 2}: Q block {i}, K/V block {j}<br>"
                f"HBM read {units.si(read, 'B', 3)}, written {units.si(written, 'B', 3)}; "
                f"at the end {units.si(total, 'B', 3)}")
        return [boxes_trace([self._cell("Q", i)], FILL["hot"], "resident Q block"),
                boxes_trace(streamed, FILL["warm"], "streamed K and V blocks"),
                boxes_trace(done_o, FILL["compute"], "O blocks written"),
                texts_trace([60], [12], [f"pass {i + 1} of {self.nb} over K, V"], "pass"),
                text_trace(0, -6, text, "counters", size=12)]

    yrange = (-12, 100)

    def layout(self, s):
        lay = super().layout(s)
        lay["yaxis"]["range"] = [-12, 100]
        return lay

    def describe(self, s):
        total = softmax.flash_tiled_bytes(self.seq, self.d, self.block, self.e)
        return (f"Left, HBM holds Q, K, V and O as {self.nb} blocks of {self.block} rows each; "
                f"right, on chip, one Q block, one K and one V block, the score block, the "
                f"running max and sum and the output block. The slider steps through the "
                f"{self.nb ** 2} block pairs, query block outer: {units.si(total, 'B', 3)} "
                f"cross HBM in all for a sequence of {self.seq:,} and head dimension {self.d}.")


def _signed(x: float) -> str:
    """A number as the page writes it, with a true minus sign (−0.693, not -0.693)."""
    return units.number(x).replace("-", "\u2212")


class SoftmaxMerge(Diagram):
    name = "softmax-merge"
    title = "The online softmax merge, one tile at a time"
    caption = ("A row of scores read once, a tile at a time: the running state (m, l, u) and "
               "the tile's own are brought to a shared maximum by α and β and added; u / l "
               "after the last tile is the softmax-weighted sum.")
    height = 330
    xrange, yrange = (0, 100), (0, 100)

    def __init__(self, tile: int = 2):
        self.scores, self.values = list(SCORES), list(VALUES)
        check_choice("tile", tile, [1, 2, 4])
        super().__init__(tile=tile, step=1)

    def controls(self):
        return [Control("tile", "tile", [1, 2, 4], self._initial["tile"], "dropdown",
                        lambda t: f"{t} key{'s' if t > 1 else ''}"),
                Control("step", "tiles merged",
                        lambda s: list(range(1, len(self.steps(s)) + 1)), 1, "slider")]

    def steps(self, s):
        return softmax.steps(self.scores, self.values, s["tile"])

    def _key(self, j):
        w = 100 / len(self.scores)
        return (j * w + 0.5, 74, (j + 1) * w - 0.5, 88)

    def picture(self, s):
        sh = [rect(*self._key(j), "rgba(0,0,0,0)", "key", width=1)
              for j in range(len(self.scores))]
        notes = [label(self._key(j)[0] + 100 / len(self.scores) / 2 - 0.5, 81,
                       f"s = {_signed(sc)}<br>v = {_signed(v)}", size=11)
                 for j, (sc, v) in enumerate(zip(self.scores, self.values))]
        for x0, what in ((0, "running state"), (36, "this tile"), (72, "merged")):
            sh.append(rect(x0, 26, x0 + 28, 62, FILL["chip"], "state"))
            notes.append(label(x0 + 14, 57, what, size=11))
        notes += [label(32, 44, "+", size=18), label(68, 44, "→", size=18),
                  label(0, 96, "keys j: score s and value v (done: green, this tile: orange)",
                        size=11, xanchor="left")]
        return sh, notes

    def moving(self, s):
        hist, k = self.steps(s), s["step"]
        cur, prev = hist[k - 1], hist[k - 2] if k > 1 else None
        done = [self._key(j) for j in range(cur["start"])]
        now = [self._key(j) for j in range(cur["start"], cur["stop"])]

        def st(x):
            return (f"m = {units.number(x.m)}<br>l = {units.number(x.l)}<br>"
                    f"u = {units.number(float(x.u))}")

        before = st(prev["state"]) if prev else "empty<br>(m = −∞, l = 0, u = 0)"
        merged = st(cur["state"]) + f"<br>u / l = {units.number(float(cur['output']))}"
        text = (f"α = {units.number(cur['alpha'])} rescales the running state, β = "
                f"{units.number(cur['beta'])} the tile's; keys read: {cur['stop']} of "
                f"{len(self.scores)}, passes over the row: 1<br>direct softmax sum: "
                f"{units.number(float(softmax.direct(self.scores, self.values)))}")
        return [boxes_trace(done, FILL["compute"], "keys merged"),
                boxes_trace(now, FILL["warm"], "this tile's keys"),
                texts_trace([14, 50, 86], [40, 40, 38], [before, st(cur["tile"]), merged],
                            "states", size=12),
                text_trace(0, 10, text, "counters", size=12)]

    def describe(self, s):
        hist = self.steps(s)
        return (f"Eight keys in a row, merged {s['tile']} at a time in {len(hist)} steps: three "
                f"boxes show the running state, the tile's state and the merged state (max m, "
                f"sum l, weighted sum u). The final u / l is "
                f"{units.number(float(hist[-1]['output']))}, the direct softmax-weighted sum.")


def flash_loop(seq: int = 512, head_dim: int = 64, block: int = 128,
               dtype_bytes: float = 2.0) -> FlashLoop:
    """FlashAttention's block loop for ``seq`` positions in blocks of ``block`` rows,
    stepped pair by pair with the HBM bytes counted (chapter 10)."""
    return FlashLoop(seq, head_dim, block, dtype_bytes)


def softmax_merge(tile: int = 2) -> SoftmaxMerge:
    """The online softmax merge over the book's eight-key row, ``tile`` keys at a time
    (chapter 10)."""
    return SoftmaxMerge(tile)
