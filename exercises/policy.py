"""What the grader lets a kernel submission use before it runs it: defence in depth beside
the sandbox (:mod:`exercises.sandbox`).

The sandbox keeps a submission away from the grader's files, the network and every other
student; it cannot keep it away from the process it runs in. The challenge's ``collect``
runs the student's code in its own process, so that code can patch the recorder, or
write the file the grader reads itself (the seed and the output's path are on its command
line) and leave. A kernel needs none of the tools that takes, so a submission that names
one is held for review: no points, and the instructor reads the kept file.

Read with :mod:`ast`, never run: the submission may import only ``numpy``, ``numba``
(and their submodules), ``math``, ``time``, type-hint names from ``typing``
(:data:`TYPING_NAMES`) and the harness's helpers (``from labs.challenges.harness import
load4, store4, WARP, resident_grid``, or the harness by name; the regroup starter uses
``resident_grid``), may reach no module outside :data:`REACHABLE` through attributes,
nor go deeper than ``cuda.name.name``, nor use a module as a value, and may not name ``os``, ``sys``, ``open``, ``eval``,
``__import__`` and the rest of :data:`NAMES`, numpy's file writers and readers
(:data:`ATTRIBUTES`), or any attribute that starts with an underscore (``__globals__``,
``__subclasses__``, ``_savez``: the ways around a list of names), nor import a module
with such a part in its path (``numpy.lib._npyio_impl``), nor assign or delete an
attribute of anything (``np.asanyarray = f`` replaces the function numpy's file writer
calls on the recorder's counters). It is a list, not a
proof: the sandbox and the kept files stay the defence behind it.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from types import ModuleType

#: Modules a submission may import (and their submodules).
MODULES = frozenset({"numpy", "numba", "math", "time"})
#: The one module of the book a submission may import from, and what.
HARNESS = "labs.challenges.harness"
HARNESS_NAMES = frozenset({"load4", "store4", "WARP", "resident_grid"})
#: What a launch's type hints may import by name from typing (never ``import typing``:
#: its get_type_hints evaluates text).
TYPING_NAMES = frozenset({"Any", "Optional", "Tuple", "Union", "Sequence", "List", "Dict"})
#: Names a submission may not use: the process, files, code made from text, modules
#: reached by name, and the names that reach any attribute or namespace by a string.
NAMES = frozenset({
    "os", "sys", "subprocess", "builtins", "open", "eval", "exec", "compile", "__import__",
    "importlib", "ctypes", "pickle", "signal", "threading", "multiprocessing",
    "getattr", "setattr", "delattr", "globals", "locals", "vars", "breakpoint",
    "__builtins__", "__loader__", "__spec__"})
#: Attributes a submission may not use, nor import by name from an allowed module
#: (``from numba.core.config import sys``): numpy's file writers and readers; the modules
#: of NAMES and the other modules that reach the interpreter's modules, frames or memory
#: (``np.os``, ``numba.core.utils.inspect``, ``np.ctypeslib``); and the attributes of
#: frames and generators that lead to another function's globals (``g.gi_frame.f_back``).
#: Any attribute that starts with an underscore is refused too (``np.lib.npyio._savez``,
#: ``f.__globals__``).
ATTRIBUTES = frozenset({"save", "savez", "savez_compressed", "savetxt", "tofile",
                        "fromfile", "memmap", "open_memmap", "write_array", "load",
                        "loadtxt", "genfromtxt", "fromregex", "DataSource",
                        "modules", "gc", "inspect", "traceback", "io", "shutil",
                        "pathlib", "tempfile", "runpy", "marshal", "weakref", "ctypeslib",
                        "socket", "json", "zipfile", "code", "codeop", "linecache",
                        "gi_frame", "cr_frame", "ag_frame", "tb_frame", "f_back", "f_globals",
                        "f_locals", "f_builtins", "f_code", "gi_code", "cr_code", "ag_code",
                        "tb_next", "operator", "attrgetter", "methodcaller", "functools",
                        "pydoc", "locate", "pkgutil", "resolve_name", "import_module",
                        # numba's host-side escapes: gdb attached to the process runs any
                        # code; objmode and njit run Python or compiled code on the host
                        "gdb", "gdb_init", "gdb_breakpoint", "jit_module", "objmode",
                        "njit", "cfunc", "carray", "farray", "format_map",
                        # Cython's Python 2 names for a function's dunders: every numpy.random
                        # function is a cyfunction, and np.random.seed.func_globals is its
                        # module's globals, __builtins__ among them (a seventh hostile
                        # student's forged pass); and the like for methods
                        "func_globals", "func_code", "func_closure", "func_dict",
                        "func_defaults", "im_func", "im_self", "im_class",
                        # AttributeError.obj: the module whose attribute was missing, as a
                        # value (try: numba.nope / except AttributeError as e: e.obj)
                        "obj",
                        # the last steps of the routes above: numba's pickle loader,
                        # cProfile.run(text), enum's alias of builtins
                        "cloudpickle", "loads", "cProfile", "profile", "bltns"}) \
    | (NAMES - {"open", "compile"})
#: A str.format field that reads an attribute or an item whose name starts with an
#: underscore ("{0.__globals__[_ACTIVE]}"): the same reach as the attribute, by text.
FORMAT_FIELD = re.compile(r"\{[^{}]*[.\[]\s*_")
#: The modules a submission may reach, by import or as an attribute of one: numpy.ma,
#: numba.core.utils and the like re-export operator, sys and inspect (a student read the
#: recorder with ``utils.operator.attrgetter("_rec.events")``), so a chain of attributes
#: that reaches any other module is refused, and a module is never used as a value.
REACHABLE = frozenset({"numpy", "math", "numba", "numba.cuda", "numba.core.types",
                       "numba.types", "numpy.random", "numpy.linalg", "numpy.typing", "time"})
#: numba.types is numba.core.types under another name: resolved as that.
CANONICAL = {"numba.types": "numba.core.types"}
#: The members of numba.cuda a kernel uses that are modules (``cuda.libdevice.fast_expf``),
#: and the modules they hold in turn (``cuda.random.np``, ``cuda.fp16.sys``,
#: ``cuda.cg.types``): a chain after ``cuda.`` is at most two names, and its second is
#: never one of these (tests/test_policy_honest_styles.py keeps the list equal to
#: numba-cuda's). numba.cuda is never imported here: it is read by name.
CUDA_MODULES = frozenset({"cg", "random", "libdevice", "fp16"})
CUDA_MODULE_MODULES = frozenset({"nvvmutils", "types", "config", "cuda", "math", "np", "sys"})
#: What a kernel and its launch use of numba.cuda (the first attribute after ``cuda.``).
CUDA_NAMES = frozenset({
    "jit", "grid", "gridsize", "threadIdx", "blockIdx", "blockDim", "gridDim", "laneid",
    "warpsize", "syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or",
    "syncwarp", "shared", "local", "const", "atomic", "device_array", "device_array_like",
    "to_device", "synchronize", "shfl_sync", "shfl_up_sync", "shfl_down_sync",
    "shfl_xor_sync", "all_sync", "any_sync", "eq_sync", "ballot_sync", "activemask",
    "lanemask_lt", "match_any_sync", "match_all_sync", "fma", "cbrt", "brev", "clz", "ffs",
    "popc", "selp", "fp16", "libdevice", "threadfence", "threadfence_block",
    "threadfence_system", "stream", "default_stream", "event", "is_available", "detect",
    "get_current_device", "select_device", "event_elapsed_time", "pinned_array",
    "mapped_array", "managed_array", "random", "cg",
    "nanosleep", "boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "intp", "uintp", "float16", "float32", "float64", "complex64", "complex128",
    "void"})


def _import(node: ast.AST) -> str | None:
    """What an import statement brings in that the policy does not allow, or None."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            parts = alias.name.split(".")
            if parts[0] not in MODULES or any(p.startswith("_") for p in parts):
                return f"import {alias.name}"
        return None
    if node.level:
        return f"a relative import (from {'.' * node.level}{node.module or ''})"
    module = node.module or ""
    if module == "labs.challenges" and [a.name for a in node.names] == ["harness"]:
        return None                # the harness as a name: its four helpers only (_reaches)
    if module == "typing" and all(a.name in TYPING_NAMES for a in node.names):
        return None
    if module == HARNESS:
        extra = [a.name for a in node.names if a.name not in HARNESS_NAMES]
        return f"from {HARNESS} import {', '.join(extra)}" if extra else None
    parts = module.split(".")
    if module != "__future__" and (parts[0] not in MODULES
                                   or any(p.startswith("_") for p in parts)):
        return f"from {module} import ..."
    for alias in node.names:       # what comes in by name is checked as an attribute is
        if alias.name == "*" or alias.name.startswith("_") or alias.name in ATTRIBUTES:
            return f"from {module} import {alias.name}"
    return None


def _submodule(obj: object, a: str) -> str | None:
    """The name of the submodule ``a`` of the package ``obj`` where one exists but is not
    imported in this process (``numba.testing``: a call such as ``numba.test()`` imports it,
    and then it is an attribute), else None."""
    if not isinstance(obj, ModuleType) or not hasattr(obj, "__path__"):
        return None
    try:
        return f"{obj.__name__}.{a}" if importlib.util.find_spec(f"{obj.__name__}.{a}") else None
    except Exception:               # (a broken or odd package: no submodule found)
        return None


def _module(name: str) -> ModuleType:
    return importlib.import_module(CANONICAL.get(name, name))  # the grader's own


def _cuda_rest(target: str, attrs: list[str]) -> list[str] | None:
    """The names after ``numba.cuda`` of the chain ``attrs`` of the module ``target``
    (None when the chain does not pass through numba.cuda)."""
    if target == "numba.cuda" or target.startswith("numba.cuda."):
        return target.split(".")[2:] + attrs
    if target == "numba" and attrs[:1] == ["cuda"]:
        return attrs[1:]
    return None


def _cuda_name(attrs: list[str]) -> str | None:
    """What a chain of attributes after ``cuda`` uses that a kernel does not, or None."""
    if attrs and attrs[0] not in CUDA_NAMES:
        return f"cuda.{attrs[0]}, which a kernel does not use"
    if len(attrs) > 2:
        return f"cuda.{'.'.join(attrs[:3])}: a kernel reaches at most cuda.name.name"
    if len(attrs) == 2 and attrs[0] in CUDA_MODULES and attrs[1] in CUDA_MODULE_MODULES:
        return f"the module cuda.{attrs[0]}.{attrs[1]}"
    return None


def _ends_on_module(target: str, attrs: list[str]) -> bool:
    """Whether the chain ``attrs`` of the module ``target`` is itself a module."""
    rest = _cuda_rest(target, attrs)
    if rest is not None:
        return not rest or (len(rest) == 1 and rest[0] in CUDA_MODULES)
    if target == HARNESS:
        return not attrs
    obj = _module(target)
    for i, a in enumerate(attrs):
        if obj.__name__ == "numba" and a == "cuda":
            return _ends_on_module("numba.cuda", attrs[i + 1:])
        try:
            obj = getattr(obj, a)
        except Exception:            # a name that does not exist here: a submodule not
            return _submodule(obj, a) is not None   # imported yet is a module all the same
    return isinstance(obj, ModuleType)


def _reaches(target: str, attrs: list[str]) -> str | None:
    """The module outside REACHABLE that the attributes ``attrs`` of the module ``target``
    lead to (resolved in this process, numba.cuda by name only), or None."""
    rest = _cuda_rest(target, attrs)
    if rest is not None and target != "numba":
        return _cuda_name(rest)
    if target == HARNESS:
        return None if len(attrs) <= 1 and set(attrs) <= HARNESS_NAMES else \
            "of the harness, a kernel uses only load4, store4, WARP and resident_grid"
    obj = _module(target)
    for i, a in enumerate(attrs):
        if obj.__name__ == "numba" and a == "cuda":  # (imported by name: no mode chosen)
            return _cuda_name(attrs[i + 1:])
        try:
            obj = getattr(obj, a)
        except Exception:            # a name that does not exist fails when it runs,
            sub = _submodule(obj, a)  # unless a call imports it first (numba.testing)
            return None if sub is None or sub in REACHABLE else f"the module {sub}"
        if not isinstance(obj, ModuleType):
            return None
        if obj.__name__ not in REACHABLE:
            return f"the module {obj.__name__}"
    return None


def _aliases(tree: ast.AST) -> tuple[dict[str, str], str | None]:
    """The names the imports bind to modules (name -> module), and the first import of
    a module outside REACHABLE, or None."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                rest = _cuda_rest(a.name, [])
                if rest is not None and rest and (_cuda_name(rest) or len(rest) > 1
                                                  or rest[0] not in CUDA_MODULES):
                    return aliases, f"import {a.name}"
                if rest is None and a.name not in REACHABLE:
                    return aliases, f"import {a.name}"
                if a.asname:
                    aliases[a.asname] = a.name
                else:
                    aliases[a.name.split(".")[0]] = a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module == "labs.challenges":
            aliases[node.names[0].asname or "harness"] = HARNESS
        elif isinstance(node, ast.ImportFrom) and node.module not in REACHABLE and \
                _cuda_rest(node.module or "", []) is None:
            if node.module not in (HARNESS, "__future__", "typing"):
                return aliases, f"from {node.module} import ..."
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if node.module == "numba" and a.name == "cuda":
                    aliases[a.asname or a.name] = "numba.cuda"
                    continue
                rest = _cuda_rest(node.module, [a.name])
                if rest is not None:
                    if _cuda_name(rest):
                        return aliases, f"from {node.module} import {a.name}"
                    if len(rest) == 1 and a.name in CUDA_MODULES:   # from numba.cuda import cg
                        aliases[a.asname or a.name] = f"numba.cuda.{a.name}"
                    continue
                obj = getattr(_module(node.module), a.name, None)
                sub = _submodule(_module(node.module), a.name) if obj is None else None
                if sub is not None and sub not in REACHABLE:   # from numba import testing
                    return aliases, f"from {node.module} import {a.name}"
                if isinstance(obj, ModuleType):
                    if obj.__name__ not in REACHABLE:
                        return aliases, f"from {node.module} import {a.name}"
                    aliases[a.asname or a.name] = obj.__name__
    return aliases, None


def _walls(tree: ast.AST) -> str | None:
    """What the code reaches beyond the modules it may use, in a few words, or None."""
    aliases, found = _aliases(tree)
    if found:
        return found
    parent = {id(c): n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in aliases:
            up = parent.get(id(node))
            if not (isinstance(up, ast.Attribute) and up.value is node):
                return f"the module {node.id} as a value"
        if isinstance(node, ast.Attribute):
            attrs, root = [], node
            while isinstance(root, ast.Attribute):
                attrs.insert(0, root.attr)
                root = root.value
            if isinstance(root, ast.Name) and root.id in aliases:
                where = _reaches(aliases[root.id], attrs)
                if where:
                    return f"{ast.unparse(node)[:80]} ({where})"
                up = parent.get(id(node))
                if not (isinstance(up, ast.Attribute) and up.value is node) and \
                        _ends_on_module(aliases[root.id], attrs):
                    # c = numba.cuda; c.cloudpickle.loads(...): the chain's end as a value
                    return f"the module {ast.unparse(node)[:80]} as a value"
    return None


class InvalidSource(ValueError):
    """A submission that is not valid Python: ``lineno`` (or None) and ``msg``."""

    def __init__(self, lineno: int | None, msg: str):
        self.lineno, self.msg = lineno, msg
        super().__init__(f"source is not valid Python: {msg}"
                         + (f" at line {lineno}" if lineno else ""))


def review(source: str) -> str | None:
    """None when ``source`` (a submission's Python text) keeps to the policy; else the
    first thing it uses that the policy does not allow, in a few words ("os", "import
    socket", "np.savez", "__globals__"). Text that is not Python raises :class:`InvalidSource`
    (a ValueError naming ``source``, with the line and what is wrong)."""
    if not isinstance(source, str):
        raise TypeError(f"source must be a submission's text, got {type(source).__name__}")
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as e:       # ValueError: a null byte in the text
        raise InvalidSource(getattr(e, "lineno", None), getattr(e, "msg", str(e))) from e
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found = _import(node)
        elif isinstance(node, ast.Name):
            found = node.id if node.id in NAMES else None
        elif isinstance(node, ast.Attribute):
            private = node.attr.startswith("_")
            found = ast.unparse(node)[:80] if private or node.attr in ATTRIBUTES else None
            if not found and isinstance(node.ctx, (ast.Store, ast.Del)):
                # np.asanyarray = f: a module's function replaced (numpy's file writer calls
                # it on the recorder's counters); a kernel sets no attribute of anything
                change = "a deletion of" if isinstance(node.ctx, ast.Del) else "an assignment to"
                found = f"{change} {ast.unparse(node)[:80]}"
        elif isinstance(node, ast.Match):
            # a class pattern reads attributes named as plain strings (case object(
            # __globals__=g): a student reached the recorder and sys this way)
            found = "a match statement"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                FORMAT_FIELD.search(node.value):
            found = "a format field that reads an underscore name"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "format" and not isinstance(node.func.value, ast.Constant):
            found = "str.format on a string built as the code runs (write an f-string)"
        else:
            found = None
        if found:
            return found
    return _walls(tree)
