"""What a chapter's "Your turn" cell shows for a challenge: the statement, the starting
kernel, the model's counts and reference time, the milestones on the H200, how to check it (a
code block a reader can copy) and the starter's own verdict on a CPU (its counters
against the target and the estimate, from the engine's collect and judge under numba's
CUDA simulator, computed when the page is built). No title: the chapter's heading is
the title. Plain text, markdown and HTML.

>>> import labs.challenges
>>> labs.challenges.show("saxpy")
"""
from __future__ import annotations

import html
import inspect
import re

from .catalog import challenge, kernel_source, model_line, starter_path
from .milestones import sentence

#: The seed of the starter's verdict on the page (any seed gives the same counters).
PAGE_SEED = 0
#: Seconds the starter's simulated check may take on the page before it is left out.
PAGE_LIMIT_S = 120


def statement(name: str) -> str:
    """The statement's paragraphs (the module docstring without its "Sizes:" note, which
    is for developers: the model line says the size)."""
    paragraphs = inspect.cleandoc(challenge(name).__doc__ or "").split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs if not p.startswith("Sizes:"))


def how_to(name: str) -> str:
    """How to work on the challenge, as code a reader copies into a notebook cell."""
    lines = [(f"ch.write_starter({name!r})", f"writes my_{name}.py: edit it"),
             (f"ch.check({name!r}, 'my_{name}.py')",
              "any machine: correct? the mechanism? the estimate"),
             (f"ch.time({name!r}, 'my_{name}.py')",
              "on a GPU: share of the reference time, milestones")]
    width = max(len(code) for code, _ in lines) + 2
    body = "".join(f"{code:{width}}# {note}\n" for code, note in lines)
    return (f"import labs.challenges as ch\n{body}"
            f"# or in a shell: python -m labs challenge check {name} my_{name}.py\n")


def starter_verdict(name: str, machine: str = "T4") -> str:
    """The engine's verdict on the untouched starter under numba's CUDA simulator (its
    correctness, counters against the target, and estimate on ``machine``), as the text
    a student's check prints: collected in a process of its own (the simulator even where
    this process has a GPU), judged here."""
    from .elsewhere import collect_elsewhere
    from .judge import judge, text

    collected = collect_elsewhere(name, starter_path(name), PAGE_SEED, PAGE_LIMIT_S)
    return text(judge(name, collected, PAGE_SEED, machine))


def _inline_code(text: str, markdown: bool) -> str:
    """The statement's ``code`` spans as markdown `code` or HTML <code> (escaped)."""
    if markdown:
        return re.sub(r"``(.+?)``", r"`\1`", text)
    return re.sub(r"``(.+?)``", r"<code>\1</code>", html.escape(text))


class ChallengeView:
    """A challenge as a chapter cell shows it (see the module's docstring)."""

    def __init__(self, name: str, gpu: str | None = None, verdict: bool = True):
        ch = challenge(name)
        self.name, self.title = name, ch.TITLE
        self.statement = statement(name)
        self.source = kernel_source(name)
        self.model = model_line(name, gpu)
        self.milestones = sentence(name)
        self.how = how_to(name)
        self.verdict = starter_verdict(name) if verdict else ""

    def _verdict_intro(self) -> str:
        return ("The starter as it is, checked on a CPU under numba's CUDA simulator (what "
                "`check` prints for it):")

    def __str__(self) -> str:
        parts = [self.statement, self.source, self.model, self.milestones,
                 "How to work on it:\n" + self.how]
        if self.verdict:
            parts.append(self._verdict_intro() + "\n" + self.verdict)
        return "\n\n".join(parts) + "\n"

    def _repr_markdown_(self) -> str:
        parts = [_inline_code(self.statement, True), f"```python\n{self.source}```",
                 self.model, self.milestones, f"How to work on it:\n\n```python\n{self.how}```"]
        if self.verdict:
            parts.append(f"{self._verdict_intro()}\n\n```text\n{self.verdict}\n```")
        return "\n\n".join(parts) + "\n"

    def _repr_html_(self) -> str:
        para = "".join(f"<p>{_inline_code(p, False)}</p>" for p in self.statement.split("\n\n"))
        verdict = (f"<p>{html.escape(self._verdict_intro().replace('`', ''))}</p>"
                   f"<pre class='challenge-verdict'><code>{html.escape(self.verdict)}"
                   f"</code></pre>" if self.verdict else "")
        return (f"<div class='challenge'>{para}"
                f"<pre><code class='language-python'>{html.escape(self.source)}</code></pre>"
                f"<p>{html.escape(self.model)}</p><p>{html.escape(self.milestones)}</p>"
                f"<p>How to work on it:</p><pre><code class='language-python'>"
                f"{html.escape(self.how)}</code></pre>{verdict}</div>")


def show(name: str, gpu: str | None = None, verdict: bool = True) -> ChallengeView:
    """The displayable challenge a chapter cell ends with: the statement, the starter's
    source, the model's counts and time (on ``gpu``, by default the GPU in hand or else
    the H200), the milestones, how to work on it, and (``verdict``) the starter's own
    verdict on a CPU."""
    return ChallengeView(name, gpu, verdict)
