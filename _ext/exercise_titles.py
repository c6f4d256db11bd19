"""Sphinx extension: exercise titles in the book's one style (exercises/titles.py),

    Exercise 4.3: Where the H100's FP8 ridge sits (roofline-3)

where sphinx-exercise on its own writes "Exercise 4.3 (Where the H100's FP8 ridge
sits)". Chapters give the title as the directive's argument and the id as its
``:label:``. The number comes from Sphinx's numfig ("Exercise %s:" here); a post-transform
that runs after sphinx-exercise's own drops its parentheses round the title and adds the
id. Solutions read "Solution to Exercise 4.3: Where the H100's FP8 ridge sits".
"""
from __future__ import annotations

import pathlib
import sys

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from exercises.titles import heading  # noqa: E402

PRIORITY = 25  # after sphinx-exercise's ResolveTitlesInExercises (20) and ...Solutions (21)


def _unwrap(parent: nodes.Element) -> bool:
    """Drop sphinx-exercise's " (" ... ")" round a title inside ``parent``; True if found."""
    kids = parent.children
    texts = [i for i, k in enumerate(kids) if isinstance(k, nodes.Text)]
    opening = next((i for i in texts if str(kids[i]).endswith(" (")), None)
    if opening is None or not str(kids[-1]).endswith(")"):
        return False
    last = kids[-1]
    parent.replace(last, nodes.Text(str(last)[:-1]))
    first = kids[opening]
    # In HTML the number is written before the title's children (its own trailing space);
    # in LaTeX it is the title's first child, and the title needs a space after it.
    parent.replace(first, nodes.Text(str(first)[:-2] + (" " if opening else "")))
    return True


class ExerciseTitles(SphinxPostTransform):
    default_priority = PRIORITY

    def run(self) -> None:
        try:
            from sphinx_exercise.nodes import exercise_enumerable_node, solution_node
        except ImportError:  # pragma: no cover - the book always loads sphinx-exercise
            return
        for node in self.document.findall(exercise_enumerable_node):
            title = node.children[0] if node.children else None
            if not isinstance(title, nodes.title):
                continue
            label = node.get("label", "")
            if _unwrap(title) and label:
                title += nodes.Text(" ")
            if label:  # heading()'s "(`label`)"
                title += nodes.Text("(")
                title += nodes.literal(label, label)
                title += nodes.Text(")")
        for node in self.document.findall(solution_node):
            title = node.children[0] if node.children else None
            if not isinstance(title, nodes.title):
                continue
            for ref in title.findall(nodes.reference):
                kids = ref.children
                k = next((i for i, c in enumerate(kids) if isinstance(c, nodes.Text)
                          and str(c) == " ("), None)
                if k is not None and str(kids[-1]) == ")":
                    ref.replace(kids[-1], nodes.Text(""))
                    ref.replace(kids[k], nodes.Text(": "))


def _numfig(app, config) -> None:
    fmt = dict(config.numfig_format or {})
    fmt["exercise"] = heading("%s", "a title")[0]  # "Exercise %s:"
    config.numfig_format = fmt


def setup(app):
    app.connect("config-inited", _numfig, priority=900)
    app.add_post_transform(ExerciseTitles)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
