"""The diagrams' boxes drawn as few paths (widgets/diagrams/_base.py: boxes_trace): every
line a path draws is an edge of one of its boxes, each path closes where it began, boxes
in rows and grids share one path, and count_boxes counts the boxes in either form."""
from __future__ import annotations

import pytest

from widgets.diagrams._base import boxes_trace, count_boxes, grid


def _paths(trace: dict) -> list[list[tuple[float, float]]]:
    out, cur = [], []
    for x, y in zip(trace["x"], trace["y"]):
        if x is None:
            out.append(cur)
            cur = []
        else:
            cur.append((x, y))
    return [p for p in out + [cur] if p]


def _along_edges(a, b, boxes) -> bool:
    """Whether segment a-b (axis-aligned) is covered by edges of the boxes together (a
    line may run along several boxes' edges in turn)."""
    if a[1] == b[1]:                                   # horizontal: edges at that y
        lo, hi = sorted((a[0], b[0]))
        spans = sorted((x0, x1) for x0, y0, x1, y1 in boxes if a[1] in (y0, y1))
    else:                                              # vertical: edges at that x
        lo, hi = sorted((a[1], b[1]))
        spans = sorted((y0, y1) for x0, y0, x1, y1 in boxes if a[0] in (x0, x1))
    reach = lo
    for s, e in spans:
        if s <= reach + 1e-9:
            reach = max(reach, e)
    return reach >= hi - 1e-9


@pytest.mark.parametrize("count,start", [(12, 0), (108, 0), (108, 40), (7, 3), (1, 0)])
def test_grid_cells_are_one_path_along_their_own_edges(count, start):
    cells = grid(count, 0, 0, 100, 60)[start:]
    tr = boxes_trace(cells, "red", "cells")
    paths = _paths(tr)
    assert count_boxes(tr) == len(cells)
    # a grid's cells in order: rows joined, so far fewer paths than cells
    assert len(paths) <= 2
    for p in paths:
        assert p[0] == p[-1]                          # closed where it began
        for a, b in zip(p, p[1:]):
            assert a[0] == b[0] or a[1] == b[1]       # no slanted line
            assert _along_edges(a, b, cells), (a, b)


def test_boxes_apart_are_paths_apart():
    boxes = [(0, 0, 1, 1), (5, 5, 6, 6), (1, 0, 2, 1)]
    tr = boxes_trace(boxes, "red", "apart")
    assert len(_paths(tr)) == 3
    assert count_boxes(tr) == 3
    assert tr["line"]["simplify"] is False


def test_count_boxes_reads_the_one_path_per_box_form_and_no_boxes():
    old = {"x": [0, 1, 1, 0, 0, None, 2, 3, 3, 2, 2, None],
           "y": [0, 0, 1, 1, 0, None, 0, 0, 1, 1, 0, None]}
    assert count_boxes(old) == 2
    assert count_boxes(boxes_trace([], "red", "none")) == 0
