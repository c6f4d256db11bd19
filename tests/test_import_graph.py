"""No import circles among the book's modules.

Every ``import`` and ``from ... import`` in perfmodel, widgets, labs and exercises, those
inside functions included (a deferred import is still a dependency), is an edge from the
importing module to the module it names: ``from pkg import name`` names ``pkg.name`` when
that is a module, else ``pkg``. A circle is a strongly connected group of two or more
modules. A package's ``__init__`` that re-exports its submodules is an edge from the
package to them, so a submodule must not import its own package's ``__init__`` back
(``from . import x`` with x a module is fine: it names x).

Also: the model knows nothing of the others (perfmodel imports no widgets, labs or
exercises), as DESIGN.md says."""
from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("perfmodel", "widgets", "labs", "exercises")


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, pathlib.Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def edges(mods: dict[str, pathlib.Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = node.module or ""
                targets = [f"{origin}.{a.name}" if f"{origin}.{a.name}" in mods else origin
                           for a in node.names]
            else:
                continue
            graph[mod] |= {t for t in targets if t in mods and t != mod}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of two or more modules (Tarjan's algorithm)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles():
    found = circles(edges(modules()))
    assert found == [], "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_model_imports_nothing_of_the_book():
    graph = edges(modules())
    leaks = {m: sorted(t for t in ts if not t.startswith("perfmodel"))
             for m, ts in graph.items() if m.startswith("perfmodel")}
    assert {m: t for m, t in leaks.items() if t} == {}
