"""How a lab shows itself in a chapter: a one-line note, its plot against the model
(static HTML on the site, plotly in Jupyter) and its summary table."""
from __future__ import annotations

import html

from perfmodel import units


def format_value(key: str, value) -> str:
    """Format a summary value by its key's unit suffix (SI in, human out)."""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {format_value(key, v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(format_value(key, v) for v in value)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return str(value)
    k = key.lower()
    if "_hz" in k:
        return units.si(value, "Hz")
    if k.endswith("_w"):
        return f"{value:.0f} W"
    if "bytes" in k:
        return units.nbytes(value)
    if k.endswith("_s") or k.endswith("seconds"):
        return units.seconds(value)
    if "bandwidth" in k:
        return units.bandwidth(value)
    if k.endswith("flops") or k.endswith("_peak"):
        return units.flops(value)
    if isinstance(value, int) or (k.endswith("_n") and float(value).is_integer()):
        return f"{int(value):,}"
    return f"{value:.4g}"


class LabView:
    """Display object for one lab: results[0] is the run shown, the rest references."""

    def __init__(self, name: str, results: list[dict], note: str):
        self.name, self.results, self.note = name, results, note

    def figure(self):
        from . import module

        return module(self.name).plot(self.results)

    def summary_html(self) -> str:
        """The runs' summaries side by side: one row per figure, one column per run."""
        keys: list[str] = []
        for r in self.results:
            keys += [k for k in r["summary"] if k not in keys]
        heads = []
        for r in self.results:
            who = r["context"].get("gpu_name", "?")
            heads.append(who + (" (reference)" if r["context"].get("reference") else ""))
        rows = []
        for k in keys:
            cells = "".join(f"<td>{html.escape(format_value(k, r['summary'][k]))}</td>"
                            if k in r["summary"] else "<td>&ndash;</td>" for r in self.results)
            rows.append(f"<tr><td><code>{html.escape(k)}</code></td>{cells}</tr>")
        head = "".join(f"<th>{html.escape(h)}</th>" for h in heads)
        return ('<div class="book-table"><table class="table"><thead><tr><th>figure</th>'
                f"{head}</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>")

    def _repr_mimebundle_(self, include=None, exclude=None):
        from widgets.static import figure_html

        body = (f"<p><em>{html.escape(self.note)}</em></p>"
                + figure_html(self.figure(), name=f"lab-{self.name}") + self.summary_html())
        return {"text/html": body, "text/plain": self.note}
