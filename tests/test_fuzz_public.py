"""Nothing raises on odd input: every public function of perfmodel, exercises and widgets,
called with hypothesis-drawn arguments, either returns or raises ValueError or TypeError
whose message names an argument (DESIGN.md's contract for bad input).

Each call starts from arguments that make sense (a parameter's default, or a plausible
value chosen by its name) and replaces one of them with an odd value: None, a boolean,
zero, a negative, NaN, infinity, 1e308, an integer too large for a float, text, a list,
an unknown name. The functions are found by walking the packages, so a new public
function is fuzzed without being listed here. The few that write files or run the book
are left out below, each with the test that covers it.
"""
from __future__ import annotations

import importlib
import inspect
import math
import os
import pkgutil
import resource
import signal
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import exercises
import perfmodel
import perfmodel._check
import widgets

SECONDS = 20                 # per call: a hang fails the test instead of stalling it
MEMORY = 3 * 2 ** 30         # per call: more than this is a MemoryError in the test
# Public callables left out, and why.
LEFT_OUT = {
    "exercises.assign.assign": "writes an assignment folder; tests/test_assign_grade.py",
    "exercises.assign.glued_values": "executes chapters; tests/test_assign_grade.py",
    "exercises.assign.questions": "may execute chapters; tests/test_assign_grade.py",
    "exercises.grade.grade": "writes a gradebook folder; tests/test_assign_grade.py",
    "exercises.registry.register": "adds to the registry for every later test",
    "exercises.variants.define": "adds to the variants for every later test",
    "exercises.assign.challenge_questions": "runs the challenges' command line; tests/test_grade_challenges.py",
    "exercises.challenges.environment": "builds a check's process environment; tests/test_grade_challenges.py",
    "exercises.challenges.contained": "starts a limited process; tests/test_grade_challenges.py",
    "exercises.challenges.run_check": "runs a submission in a limited process; tests/test_grade_challenges.py",
    "exercises.challenges.check_challenge": "runs a submission in a limited process; tests/test_grade_challenges.py",
    "exercises.challenges.names": "runs the challenges' command line; tests/test_grade_challenges.py",
    "exercises.challenges.info": "runs the challenges' command line; tests/test_grade_challenges.py",
    "exercises.challenges.verdict": "reads the grader's own Run and Limits records; tests/test_grade_challenges.py",
    "exercises.challenges.cell_source": "reads the grader's own Challenge record; tests/test_grade_challenges.py",
}
ODD = [None, True, False, 0, -1, 0.5, -2.5, 1e308, -1e308, 5e-324, math.inf, -math.inf,
       math.nan, 10 ** 400, "", "nope", "1e3", [], [1.0, 2.0], [[1.0], [2.0, 3.0]], {},
       {"a": 1}, (1, 2), complex(1, 1), b"x", object()]
# Plausible values by parameter name (a default, when a parameter has one, comes first).
PLAUSIBLE = {
    "machine": "T4", "name": "T4", "gpu": "H200", "unit": "fp32", "dtype": "fp32",
    "level": "dram", "reuse": "perfect", "layout": "aos", "split": "contiguous",
    "key": "registers_per_sm_bytes", "id": "roofline-3", "value": 0.5, "exercise": "roofline-3",
    "assignment": "hw1", "student": "ada", "what": "student id", "scores": [0.1, 0.5, 0.2],
    "values": [1.0, 2.0, 3.0], "lengths": [10, 20], "fractions": [0.25, 0.75], "trips": [3, 5],
    "fmt": ".2f", "text": "answer_x = 1", "source": "answer_roofline_3 = 0.5", "ids": ["roofline-3"],
    "varied": [], "history": [], "p": 0.01, "serial_fraction": 0.05, "probability": 0.01,
    "intensity": 4.0, "bandwidth": 320e9, "latency": 400e-9, "seconds": 1e-3,
    "stride": 2, "offsets": [0, 4], "kernels": [(1, 1, 1.0)], "tile": 32, "fused": True,
    "flash": False, "caption": "", "columns": None, "rows": [{"a": "1"}],
}


def _public(pkg) -> list[tuple[str, object]]:
    mods = [pkg] + [importlib.import_module(m.name)
                    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")
                    if not any(part.startswith("_") for part in m.name.split("."))]
    found = {}
    for mod in mods:
        for name, obj in vars(mod).items():
            if name.startswith("_") or not callable(obj) or getattr(obj, "__module__", "") != mod.__name__:
                continue
            if inspect.isclass(obj) and issubclass(obj, BaseException):
                continue
            found[f"{mod.__name__}.{name}"] = obj
    return sorted((k, v) for k, v in found.items() if k not in LEFT_OUT)


FUNCTIONS = _public(perfmodel) + _public(exercises) + _public(widgets)


def _signature(fn):
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _plausible(param: inspect.Parameter):
    if param.default is not inspect.Parameter.empty:
        return param.default
    if param.name in PLAUSIBLE:
        return PLAUSIBLE[param.name]
    n = param.name.lower()
    if any(w in n for w in ("fraction", "share", "prob")):
        return 0.25
    if n.endswith(("_bytes", "bytes")) or "size" in n or n in ("n", "m", "k", "count", "seq",
                                                                 "head_dim", "d", "batch"):
        return 64
    return 2


def _params(fn):
    sig = _signature(fn)
    if sig is None:
        return None
    return [p for p in sig.parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


@pytest.fixture(autouse=True, scope="module")
def _in_a_scratch_folder(tmp_path_factory):
    """Run every call from an empty folder: a function given odd text as a file name
    writes there, never into the book's root (where a stray notebook or markdown file
    breaks a concurrent book build, whose warnings are errors)."""
    before = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("fuzz-cwd"))
    yield
    os.chdir(before)


def test_there_is_something_to_fuzz():
    names = [n for n, _ in FUNCTIONS]
    for must in ("perfmodel.ops.vector_add", "exercises.registry.check", "widgets.roofline_explorer.roofline_explorer"):
        assert must in names
    assert len(FUNCTIONS) > 150


class _TooSlow(Exception):
    pass


def _alarm(signum, frame):
    raise _TooSlow()


def _vsize() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * resource.getpagesize()


def _call(fn, kwargs):
    """fn(**kwargs) -> (result, ValueError/TypeError or None). Any other exception fails
    the test; so does a call past SECONDS or one asking for more than MEMORY more bytes
    (an address-space limit during the call: a MemoryError, never the machine's OOM)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = _vsize() + MEMORY
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    old = signal.signal(signal.SIGALRM, _alarm)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    signal.alarm(SECONDS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(**kwargs), None
    except (ValueError, TypeError) as exc:
        return None, exc
    except _TooSlow:
        pytest.fail(f"{fn.__qualname__}({_show(kwargs)}) ran past {SECONDS} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _show(kwargs) -> str:
    return ", ".join(f"{k}={perfmodel._check.show(v)}" for k, v in kwargs.items())


@pytest.mark.parametrize("qualname,fn", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_odd_input_returns_or_names_the_argument(qualname, fn, data):
    params = _params(fn)
    if params is None:
        pytest.skip(f"{qualname}: no signature to fuzz")
    kwargs = {p.name: _plausible(p) for p in params}
    odd_name = None
    if params and data.draw(st.booleans(), label="make one argument odd"):
        odd_name = data.draw(st.sampled_from([p.name for p in params]), label="which")
        kwargs[odd_name] = data.draw(st.one_of(
            st.sampled_from(ODD),
            st.floats(allow_nan=True, allow_infinity=True),
            st.integers(min_value=-2 ** 70, max_value=2 ** 70),
            st.text(max_size=12)), label="odd value")
    _, exc = _call(fn, kwargs)
    if exc is None:
        return
    message = str(exc)
    names = list(_signature(fn).parameters)  # *args and **kwargs by their names too
    # A message that quotes the odd text names it too ("no numeric exercise 'nope'"), and a
    # validator names the argument it checks by its ``name`` ("machine must be one of ...").
    quoted = isinstance(kwargs.get(odd_name), str) and repr(kwargs[odd_name]) in message
    quoted = quoted or any(isinstance(kwargs.get(k), str) and kwargs[k] and kwargs[k] in message
                           for k in ("name", "what"))
    assert quoted or any(n in message for n in names), (
        f"{qualname}({_show(kwargs)}) raised "
        f"{type(exc).__name__} without naming an argument ({names}): {message!r}")


# --- The three failures the issue found, each now a named error or a plain answer --------

def test_check_of_a_huge_answer_says_wrong_and_never_overflows():
    from exercises import check

    for value in (1e308, -1e308, 5e-324, 10 ** 400, "1e308"):
        verdict = check("roofline-3", value)
        assert verdict.status in ("wrong", "invalid"), (value, verdict)


def test_an_infinite_size_is_a_value_error_naming_n():
    from perfmodel import ops

    for n in (math.inf, -math.inf, math.nan, 10 ** 400, 2.5):
        with pytest.raises(ValueError, match=r"\bn\b"):
            ops.vector_add(n)


def test_an_unknown_lab_lists_the_labs():
    import labs

    with pytest.raises(ValueError) as info:
        labs.show("nope")
    for name in labs.LABS:
        assert name in str(info.value)
