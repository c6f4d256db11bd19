"""Reading an answer out of a notebook cell as data, never by running it.

An assignment's answer cell holds one line, ``answer_roofline_3 = 0.0021``. The grader
(and the notebook's own check cell, so that both say the same thing) reads the number
from the cell's source: the right-hand side may be a number, a string holding one, or
arithmetic on numbers (``2.1e12 / 3.6e12``, ``12 * 2**28``), evaluated here in floating
point by walking the syntax tree. Names, calls, attribute access and anything else are
refused with a message saying why; nothing in the cell is ever executed.
"""
from __future__ import annotations

import ast
import math
import operator
from dataclasses import dataclass

#: Longest answer cell read (characters); an answer is one short line.
MAX_SOURCE = 10_000
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
           ast.Pow: operator.pow}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def variable(id: str) -> str:
    """The variable an exercise's answer cell assigns: "why-gpus-5" -> "answer_why_gpus_5"."""
    if not isinstance(id, str) or not id.strip():
        raise ValueError(f"id must be an exercise id like 'roofline-3', got {id!r}")
    return "answer_" + "".join(c if c.isalnum() else "_" for c in id.strip().lower())


@dataclass(frozen=True)
class Reading:
    """What an answer cell says: ``value`` (a finite float, or None) with ``status``
    "answered", "empty" (no answer yet) or "invalid", and a ``message`` for the student
    when it is not a number; ``text`` is the right-hand side as written."""

    status: str
    value: float | None = None
    message: str = ""
    text: str = ""


class _NotANumber(Exception):
    pass


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool) or v is None:
            raise _NotANumber(f"{v!r} is not a number")
        if isinstance(v, (int, float)):
            return float(v)
        if isinstance(v, str):
            text = v.strip().replace(",", "").replace("_", "")
            try:
                return float(text)
            except ValueError:
                raise _NotANumber(f"the text {v!r} is not a number (give the number alone, "
                                  "without its unit)") from None
        if isinstance(v, complex):
            raise _NotANumber(f"{v!r} is a complex number")
        raise _NotANumber(f"{v!r} is not a number")
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.Name):
        raise _NotANumber(f"it uses the name `{node.id}`; write the number itself (the "
                          "grader reads numbers and arithmetic on them, it runs no code)")
    if isinstance(node, ast.Call):
        raise _NotANumber("it calls a function; write the number itself (the grader reads "
                          "numbers and arithmetic on them, it runs no code)")
    raise _NotANumber(f"`{ast.unparse(node)[:60]}` is not a number or arithmetic on numbers")


def read_answer(source: object, id: str) -> Reading:
    """The number an answer cell gives for exercise ``id``, read from its source without
    running it (see the module's docstring). Never raises for odd input."""
    name = variable(id)
    if isinstance(source, list):  # nbformat allows a list of lines
        source = "".join(str(s) for s in source)
    if not isinstance(source, str):
        return Reading("invalid", message="the answer cell has no text")
    if len(source) > MAX_SOURCE:
        return Reading("invalid", message=f"the answer cell is longer than {MAX_SOURCE:,} "
                                          f"characters; it should hold one line, `{name} = ...`")
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return Reading("invalid", message=f"the answer cell is not valid Python "
                                          f"({type(exc).__name__}: {getattr(exc, 'msg', exc)})",
                       text=source.strip()[:200])
    assigns = [s for s in tree.body if _assigned(s) == name]
    others = [s for s in tree.body if _assigned(s) != name]
    if not assigns:
        return Reading("invalid" if tree.body else "empty",
                       message=f"the answer cell does not assign `{name} = ...`"
                       if tree.body else "the answer cell is empty",
                       text=source.strip()[:200])
    node = assigns[-1].value
    text = ast.get_source_segment(source, node) or ast.unparse(node)
    if others:
        return Reading("invalid", message=f"the answer cell holds more than `{name} = ...` "
                                          "(the grader reads one assignment of a number and "
                                          "runs no code)", text=source.strip()[:200])
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return Reading("empty", message="no answer yet (replace the `...`)", text=text)
    try:
        value = _evaluate(node)
    except _NotANumber as exc:
        return Reading("invalid", message=f"`{name}` is not a number: {exc}", text=text[:200])
    except (ArithmeticError, ValueError, TypeError, RecursionError, MemoryError) as exc:
        return Reading("invalid", message=f"computing `{text[:60]}` raises "
                                          f"{type(exc).__name__} ({exc})", text=text[:200])
    if isinstance(value, complex):  # (-8) ** 0.5
        return Reading("invalid", message=f"`{name}` is the complex number {value}, not a "
                                          "real number", text=text[:200])
    if not math.isfinite(value):
        return Reading("invalid", message=f"`{name}` is {value}, not a finite number",
                       text=text[:200])
    return Reading("answered", value, text=text[:200])


def _assigned(stmt: ast.stmt) -> str | None:
    """The one plain name a statement assigns (``x = ...`` or ``x: float = ...``)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
            and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
        return stmt.target.id
    return None
