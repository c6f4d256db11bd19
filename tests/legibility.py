"""What a reader can read: plotly's text boxes in every figure of a built page.

:data:`PROBE` runs in the page and returns, for each ``.book-figure``, its box and its
text boxes (tick labels, titles, legend items, annotations, slider and menu labels) with
their text and the points the traces draw (markers, and samples along lines). Python
then judges: :func:`problems` lists text that leaves its figure (or, drawn inside a
plot area that clips it, that area), text that overlaps other text, ticks in plotly's
"B" for billion or e-notation, and legends that cover drawn points. tests/test_figures_legible.py runs it
over the site; scripts/legibility_report.py prints it for one page.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# Text smaller than this (px) is not meant to be read (plotly's hidden slider tick labels).
MIN_FONT_PX = 5
# Two boxes overlap when they share more than this many pixels each way.
SLACK_PX = 1.5
# A tick in plotly's default exponent format: "10B" for ten billion (bytes? FLOPs?).
BILLIONS = re.compile(r"^[-\d.,]+\s*B$")
# e-notation or powers of ten: "1e+15", "10^15", "10¹⁵", "×10".
ENOTATION = re.compile(r"\d[eE][-+]?\d|\^\d|×\s*10|10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]")

PROBE = r"""
() => {
  function box(el) {
    const r = el.getBoundingClientRect();
    return {x0: r.left, y0: r.top, x1: r.right, y1: r.bottom};
  }
  function visible(el) {
    for (let e = el; e && e.nodeType === 1; e = e.parentNode) {
      const s = getComputedStyle(e);
      if (s.display === "none" || s.visibility === "hidden" || parseFloat(s.opacity) === 0) return false;
    }
    return true;
  }
  const out = [];
  document.querySelectorAll(".book-figure").forEach((holder, index) => {
    const gd = holder.querySelector(".js-plotly-plot");
    if (!gd) return;
    const texts = [];
    gd.querySelectorAll("svg text").forEach(t => {
      const s = (t.textContent || "").replace(/\u200b/g, "").trim();
      if (!s || !visible(t)) return;
      if (t.closest(".hoverlayer")) return;
      const size = parseFloat(getComputedStyle(t).fontSize) || 0;
      let kind = "text";
      for (const [sel, k] of [[".xtick,.ytick,.x2tick,.y2tick", "tick"], [".legend", "legend"],
                              [".g-gtitle,.gtitle", "title"], [".g-xtitle,.g-ytitle,.xtitle,.ytitle,[class*=title]", "axis title"],
                              [".annotation", "annotation"], [".slider-container,.slider-group", "slider"],
                              [".updatemenu-container,.updatemenu-button", "menu"]]) {
        if (t.closest(sel)) { kind = k; break; }
      }
      // plotly writes 10^15 as "10" and a raised "15" (a tspan shifted by dy)
      const power = kind === "tick" && t.querySelector("tspan[dy^='-']:not(.line)") !== null;
      // text drawn under a clip path (a trace's text with cliponaxis) is cut at the edge
      // of its plot area: record that area, so the part cut off counts as clipped
      let clip = null;
      const sub = t.closest(".subplot");
      if (sub) {
        let clipped = false;
        for (let e = t; e && e !== sub; e = e.parentNode) {
          if (e.getAttribute && e.getAttribute("clip-path")) { clipped = true; break; }
        }
        const name = Array.from(sub.classList).find(c => c !== "subplot");
        const drag = name && gd.querySelector(".draglayer ." + name + " .nsewdrag");
        if (clipped && drag) clip = box(drag);
      }
      texts.push({text: s, kind: kind, size: size, power: power, clip: clip, ...box(t)});
    });
    const points = [];
    gd.querySelectorAll(".scatterlayer .trace").forEach(tr => {
      if (!visible(tr)) return;
      tr.querySelectorAll("path.point").forEach(p => {
        const b = box(p); points.push({x: (b.x0 + b.x1) / 2, y: (b.y0 + b.y1) / 2, marker: true});
      });
      tr.querySelectorAll("path.js-line").forEach(p => {
        const n = p.getTotalLength ? p.getTotalLength() : 0;
        if (!n) return;
        const m = p.getScreenCTM();
        for (let k = 0; k <= 40; k++) {
          const q = p.getPointAtLength(n * k / 40);
          points.push({x: m.a * q.x + m.c * q.y + m.e, y: m.b * q.x + m.d * q.y + m.f});
        }
      });
    });
    const legend = gd.querySelector(".legend .bg");
    out.push({index: index, id: holder.id, ...box(gd), texts: texts, points: points,
              legend: legend && visible(legend) ? box(legend) : null});
  });
  return out;
}
"""


@dataclass
class Box:
    x0: float
    y0: float
    x1: float
    y1: float

    def inside(self, outer: "Box", slack: float = SLACK_PX) -> bool:
        return (self.x0 >= outer.x0 - slack and self.y0 >= outer.y0 - slack and
                self.x1 <= outer.x1 + slack and self.y1 <= outer.y1 + slack)

    def overlaps(self, other: "Box", slack: float = SLACK_PX) -> bool:
        dx = min(self.x1, other.x1) - max(self.x0, other.x0)
        dy = min(self.y1, other.y1) - max(self.y0, other.y0)
        return dx > slack and dy > slack

    def holds(self, x: float, y: float) -> bool:
        return self.x0 < x < self.x1 and self.y0 < y < self.y1


def _box(d: dict) -> Box:
    return Box(d["x0"], d["y0"], d["x1"], d["y1"])


def problems(figure: dict) -> list[str]:
    """What a reader cannot read in one probed figure (empty when all is legible)."""
    out = []
    frame = _box(figure)
    texts = [t for t in figure["texts"] if t["size"] >= MIN_FONT_PX]
    for t in texts:
        if not _box(t).inside(frame):
            out.append(f"clipped {t['kind']} {t['text']!r}")
        elif t.get("clip") and not _box(t).inside(_box(t["clip"])):
            out.append(f"cut at the plot's edge: {t['kind']} {t['text']!r}")
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if _box(a).overlaps(_box(b)):
                out.append(f"overlap: {a['kind']} {a['text']!r} and {b['kind']} {b['text']!r}")
    for t in texts:
        if t["kind"] != "tick":
            continue
        if BILLIONS.match(t["text"]):
            out.append(f"billion: tick {t['text']!r} (write G with the unit)")
        elif ENOTATION.search(t["text"]) or t.get("power"):
            out.append(f"e-notation: tick {t['text']!r}")
    markers = [p for p in figure["points"] if p.get("marker")]
    for t in texts:
        if t["kind"] in ("text", "annotation"):
            inner = Box(t["x0"] + 1, t["y0"] + 1, t["x1"] - 1, t["y1"] - 1)
            under = sum(inner.holds(p["x"], p["y"]) for p in markers)
            if under:
                out.append(f"{t['kind']} {t['text']!r} covers {under} drawn point(s)")
    if figure.get("legend"):
        legend = _box(figure["legend"])
        covered = sum(legend.holds(p["x"], p["y"]) for p in figure["points"])
        if covered:
            out.append(f"legend covers {covered} drawn point(s)")
    return out
