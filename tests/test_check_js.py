"""The site's answer checker (_static/book-check.js) against the notebook's
(exercises.check): the same words and verdict for every numeric exercise, over thousands
of answers a reader might type: the right answer in every unit and prefix the checker
reads, slips by 10^3 and 10^2, a percentage against a fraction, near misses, and odd text.

The JavaScript runs in Node over the key the site is built with (exercises.registry.site_key,
written into each page by _ext/answer_boxes.py), as the figures' number formats are checked
in Node against Python (tests/test_webgpu.py's pattern). Python's number formats are ported
to the page too ("%.6g", "%.1f" on the double's exact value): they are checked on their own
over ties and extremes.
"""
from __future__ import annotations

import json
import math
import random
import shutil
import subprocess

import pytest

from conftest import ROOT
from exercises import all_exercises, check
from exercises import _reading
from exercises.registry import site_key

JS = ROOT / "_static" / "book-check.js"
EXERCISES = all_exercises()

#: What a reader types whatever the question: odd forms, other units, no number at all.
ODD = ["", "   ", "about four", "4 or 5", "1,024", "1_000", "2.6 x 10^-4", "2.6×10^-4 s",
       "2.6e1 x 10^2", "−3", "-0", "0", "0.0", "nan", "NaN %", "inf", "-Infinity", "1e999",
       "1e-400", "4.2 TB/s", "0.21 ms", "21%", "21 %", "3.2x", "3.2 X", "3 times", "16k",
       "2.5M", ".5", "5.", "+5", "5e", "e5", "0x10", "1/2", "½", "٣", "4.2 tb/s",
       "4.2 T B/s", "4.2 TB/ s", "4.2 TB//s", "4 foo/bar/baz", "12 warps", "12 warp",
       "12 percent", "12 per cent", "12 FLOP per byte", "7 FLOPs/B", "1.2.3", "4,2",
       "00012", "3 µs", "3 μs", "3 us", "3 Ms", "1 hour", "2 days", "5 GHz", "300 W",
       "0.5 kW", "64 KiB", "65536 B", "1 constructor", "1 toString", "1 __proto__",
       "\t7\n", "\u00a012\u00a0", "9.9999", "99.95%", "0.999999 s", "1e21", "123456789012345678901234"]


def _texts(ex, rng: random.Random) -> list[str]:
    """At least 50 answers for one exercise, built from its answer and unit."""
    truth = ex.answer
    out = [repr(truth), f"{truth:.4g}", f"{truth:.3g}", f"{truth:.2g}", f"{truth:,.6f}"]
    for f in (1.005, 0.99, 1.05, 0.92, 1.12, 0.87, 1.2, 3, 1 / 3, 0.5, 10, 0.1, 1e3, 1e-3,
              100, 0.01, 1e6, 1e-6, 1e9, -1, 0):
        out.append(f"{truth * f:.4g}")
    if ex.unit:
        out += [f"{truth:.4g} {ex.unit}", f"{truth * 1e3:.4g} {ex.unit}"]
    for factor in (1, 100, 0.01):
        v = truth * factor
        out += [f"{v:.4g}%", f"{v:.4g} %", f"{v / 100:.4g}", f"{v * 100:.4g}"]
    dim = _reading.unit_of(ex.unit)
    if dim and dim[0] not in ("", "ratio") and not dim[0].startswith("count:"):
        out += [f"{truth * dim[1] / scale:.4g} {unit}" for unit, scale in _spellings(dim[0])]
        out += [f"{truth * dim[1] / scale * slip:.3g} {unit}"
                for unit, scale in _spellings(dim[0])[:6] for slip in (1e3, 1e-3, 100)]
    if dim and dim[0].startswith("count:"):
        out += [f"{truth:.4g} {ex.unit.rstrip('s')}", f"{truth:.4g} {ex.unit}s"]
    out += [f"{truth * rng.uniform(0.5, 1.5):.{rng.randint(1, 8)}g}" for _ in range(8)]
    out += [f"{10 ** rng.uniform(-12, 15):.3g} {rng.choice(['s', 'ms', 'GB/s', '%', 'x', ''])}"
            for _ in range(6)]
    return out + ODD


def _spellings(dim: str) -> list[tuple[str, float]]:
    """Every unit the rules spell with that dimension: each base with each of its
    prefixes, and for a rate each numerator over s, ms and "per second"."""
    def words(d: str) -> list[tuple[str, float]]:
        return [(p + name, scale * (_reading.PREFIXES[p] if p else 1))
                for name, (bd, scale, prefixes) in _reading.BASES.items() if bd == d
                for p in [""] + prefixes]
    if "/" in dim and dim not in ("flop/time",):
        top, bottom = dim.split("/")
        return [(f"{t}/{b}", ts / bs) for t, ts in words(top)
                for b, bs in (("s", 1.0), ("ms", 1e-3), ("h", 3600.0))] + \
               [(f"{t} per second", ts) for t, ts in words(top)[:3]]
    return words(dim) + ([(f"{t}/s", ts) for t, ts in words("flop")] if dim == "flop/time" else [])


@pytest.fixture(scope="module")
def node_judge():
    exe = shutil.which("node") or "/usr/bin/node"
    script = ("const c = require(process.argv[1]);"
              "const d = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "const ch = new c.Checker(d.rules);"
              "console.log(JSON.stringify(d.cases.map(([id, t]) => {"
              " const v = ch.judge(Object.assign({id}, d.exercises[id]), t);"
              " return [v.text, v.status]; })));")

    def run(cases: list[tuple[str, str]]) -> list[list[str]]:
        key = site_key()
        key["cases"] = cases
        out = subprocess.run([exe, "-e", script, str(JS)], input=json.dumps(key),
                             capture_output=True, text=True, check=True, timeout=120)
        return json.loads(out.stdout)
    return run


def node(expr: str):
    exe = shutil.which("node") or "/usr/bin/node"
    script = f"const c = require({json.dumps(str(JS))}); console.log(JSON.stringify({expr}));"
    out = subprocess.run([exe, "-e", script], capture_output=True, text=True, check=True,
                         timeout=60)
    return json.loads(out.stdout)


def test_every_exercise_every_input_same_verdict_in_node_and_python(node_judge):
    rng = random.Random(36)
    cases = [(ex.id, t) for ex in EXERCISES for t in _texts(ex, rng)]
    per = {ex.id: sum(1 for i, _ in cases if i == ex.id) for ex in EXERCISES}
    assert min(per.values()) >= 50 and len(cases) >= 5000, (min(per.values()), len(cases))
    got = node_judge(cases)
    differ = []
    for (id, text), (js_text, js_status) in zip(cases, got):
        v = check(id, text)
        if (str(v), v.status) != (js_text, js_status):
            differ.append(f"{id} {text!r}:\n  python {v.status}: {v}\n  node   {js_status}: {js_text}")
    assert not differ, f"{len(differ)} of {len(cases)} differ:\n" + "\n".join(differ[:20])
    statuses = {s for _, s in got}
    assert statuses == {"right", "close", "wrong", "invalid"}   # every branch was reached


TIES = [0.125, 0.375, 2.5, 0.5, 1.5, 1234.5, 0.0125, 9.995, 99.95, 999999.5, 1e-5, 9.9999e-5,
        1e16, 123456789.0, 5e-324, 1.7976931348623157e308, 1e21, 1e22, 0.1, 1 / 3, 2 / 3,
        6.02214076e23, 1e-100, 4.35e-7, 0.0, -0.0, -2.5, -1e-9]


def test_python_number_formats_ported_exactly():
    rng = random.Random(7)
    values = TIES + [rng.choice([-1, 1]) * 10 ** rng.uniform(-30, 30) for _ in range(400)]
    values += [round(rng.uniform(0, 100), rng.randint(0, 4)) for _ in range(200)]
    got = node(f"{json.dumps(values)}.map(x => [2, 4, 6].map(p => c.g(x, p)))")
    assert got == [[f"{x:.{p}g}" for p in (2, 4, 6)] for x in values]
    small = [x for x in values if abs(x) < 1e15]
    got = node(f"{json.dumps(small)}.map(x => [0, 1, 3].map(d => c.fixed(x, d)))")
    assert got == [[f"{x:.{d}f}" for d in (0, 1, 3)] for x in small]


def test_magnitudes_are_words_a_reader_knows():
    # "about 100 times", never "1e+02"; the unit slip names the factor in words too
    ex = next(e for e in EXERCISES if e.unit == "s")
    v = check(ex.id, ex.answer * 99.7)
    assert "about 100 times too high" in v and "e+" not in v, v
    assert "about 1,000 times too high" in check(ex.id, ex.answer * 1000)
    assert "A factor of 1,000 often means a unit slip" in check(ex.id, ex.answer * 1000)
    assert "about a million times too low" in check(ex.id, ex.answer / 1e6)
    assert "about 2.5 billion times" in check(ex.id, ex.answer * 2.5e9)
    assert node("[c.times(99.6), c.times(1e6), c.times(3.3e13), c.times(2e18), c.times(12345)]") \
        == ["100", "a million", "33 trillion", "10^18", "12,000"]


def test_a_fraction_on_a_percentage_question_is_a_format_slip():
    v = check("simt-2", 0.75)          # 48 threads in two warps of 32 lanes: 48/64 = 75%
    assert v.status == "wrong" and "0.75 reads as 0.75%" in v and "write 75 or 75%" in v, v
    assert "Hint" not in v             # the format, not the reasoning, is wrong
    assert check("simt-2", "75%").status == "right" and check("simt-2", 75).status == "right"
    assert check("simt-2", "0.75%").status == "wrong"   # written as a percentage: 100x low


def test_a_percentage_without_its_sign_on_a_fraction_question_says_so():
    # roofline-3: 1/12 FLOP/byte x 1 TB/s over 40 TFLOP/s = 1/480 of the peak
    assert math.isclose(check.__globals__["get"]("roofline-3").answer, 1 / 480)
    v = check("roofline-3", "0.2083")
    assert v.status == "wrong" and "If you meant 0.2083%, write 0.2083%" in v, v
    assert check("roofline-3", "0.2083%").status == "right"


def test_units_and_prefixes_are_read():
    # a time typed in s, ms, µs, us and ns reads the same; a bandwidth in TB/s, GB/s...
    ex = next(e for e in EXERCISES if e.unit == "s")
    t = ex.answer
    for typed in (f"{t:.6g} s", f"{t * 1e3:.6g} ms", f"{t * 1e6:.6g} µs", f"{t * 1e6:.6g} us",
                  f"{t * 1e9:.6g} ns"):
        assert check(ex.id, typed).status == "right", typed
    bw = next(e for e in EXERCISES if e.unit == "B/s")
    for typed in (f"{bw.answer / 1e12:.6g} TB/s", f"{bw.answer / 1e9:.6g} GB/s",
                  f"{bw.answer / 1e9:.6g} GB per second", f"{bw.answer:.6g} bytes/s"):
        assert check(bw.id, typed).status == "right", typed
    assert "does not measure" in check(bw.id, "4.2 ms")
    assert "not a unit the checker knows" in check(bw.id, "4.2 T$/s")
