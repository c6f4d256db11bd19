"""Reading what a reader types as an answer: a number, maybe in another unit or prefix
("0.21 ms", "4.2 TB/s", "2.6e-4 s", "21%", "3.2x"), as a number in the exercise's unit.

The unit rules are data (:data:`RULES`): the site's checker (``_static/book-check.js``)
receives them at build time and reads an answer by the same steps; a test runs thousands
of inputs through both (tests/test_check_js.py). Change the steps here and there together.

Steps, for a text answer:

1. The text is trimmed; commas and underscores are dropped ("1,024" -> "1024"), the
   Unicode minus becomes "-", and "x 10^k" / "×10^k" after the number scales it.
2. The number: an optional sign, digits with an optional point and exponent, or "nan",
   "inf", "infinity". No number -> the message names the text.
3. What follows is the unit: "%" (a percentage), "x", "×" or "times" (a ratio), or a unit
   built from named base units with SI or binary prefixes, joined by "/" or "per":
   "TB/s", "GFLOP/s", "FLOP/byte", "µs", "KiB", "tokens/s". A base unit has a dimension
   ("time", "byte", "flop"...); a word the table does not know is a count of that word
   ("warps", "warp"), which matches the same word in the exercise's unit.
4. The unit's dimension must be the exercise unit's (read by the same rules); the number
   is converted by the ratio of their scales. A number without a unit is in the
   exercise's unit.
"""
from __future__ import annotations

import math
import re

#: SI and binary prefixes: symbol -> scale.
PREFIXES: dict[str, float] = {
    "p": 1e-12, "n": 1e-9, "µ": 1e-6, "μ": 1e-6, "u": 1e-6, "m": 1e-3,
    "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
    "Ki": 2.0 ** 10, "Mi": 2.0 ** 20, "Gi": 2.0 ** 30, "Ti": 2.0 ** 40, "Pi": 2.0 ** 50,
}
_SMALL = ["p", "n", "µ", "μ", "u", "m"]
_LARGE = ["k", "M", "G", "T", "P", "E"]
_BYTES = _LARGE + ["K", "Ki", "Mi", "Gi", "Ti", "Pi"]

#: Base units: name -> [dimension, scale in the dimension's SI unit, prefixes it takes].
BASES: dict[str, list] = {
    **{n: ["time", 1.0, _SMALL] for n in ("s", "sec", "second", "seconds")},
    **{n: ["time", 60.0, []] for n in ("min", "minute", "minutes")},
    **{n: ["time", 3600.0, []] for n in ("h", "hr", "hour", "hours")},
    **{n: ["time", 86400.0, []] for n in ("day", "days")},
    **{n: ["byte", 1.0, _BYTES] for n in ("B", "byte", "bytes", "Byte", "Bytes")},
    **{n: ["flop", 1.0, _LARGE] for n in ("FLOP", "FLOPs", "flop")},
    **{n: ["flop/time", 1.0, _LARGE] for n in ("FLOPS", "flops")},
    **{n: ["1/time", 1.0, ["k", "M", "G", "T"]] for n in ("Hz",)},
    **{n: ["power", 1.0, ["m", "k", "M", "G"]] for n in ("W", "watt", "watts")},
    **{n: ["ratio", 1.0, []] for n in ("x", "×", "X", "times")},
}
#: Bare multipliers a reader may put after a plain number ("16k", "2.5M").
MULTIPLIERS: dict[str, float] = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}

RULES = {"prefixes": PREFIXES, "bases": BASES, "multipliers": MULTIPLIERS}

_NUMBER = re.compile(r"^([+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|inf(?:inity)?))",
                     re.I | re.A)
_POWER = re.compile(r"^(?:[x×*·]|times)[ \t]*10[ \t]*\^[ \t]*([+-]?\d+)", re.A)
_PER = re.compile(r"[ \t]+per[ \t]+")
#: The spaces a reader's text is trimmed of (the same in the site's checker).
SPACES = " \t\n\r\f\v\u00a0\u2009\u202f"
_WORD = re.compile(r"^[A-Za-z][A-Za-z-]*$", re.A)


def singular(word: str) -> str:
    """A count word without its plural ending: "warps" -> "warp", "passes" -> "pass",
    "micro-batches" -> "micro-batch"."""
    w = word.lower()
    if re.search(r"(s|x|ch|sh)es$", w):
        return w[:-2]
    if w.endswith("s") and not w.endswith("ss") and len(w) > 2:
        return w[:-1]
    return w


def _base(token: str) -> tuple[str, float] | None:
    """(dimension, scale) of one unit word with its prefix, or None."""
    if token in BASES:
        return BASES[token][0], BASES[token][1]
    for p in sorted(PREFIXES, key=len, reverse=True):
        if token.startswith(p) and token[len(p):] in BASES and p in BASES[token[len(p):]][2]:
            dim, scale, _ = BASES[token[len(p):]]
            return dim, scale * PREFIXES[p]
    if _WORD.match(token):
        return "count:" + singular(token), 1.0
    return None


def unit_of(text: str) -> tuple[str, float] | None:
    """(dimension, scale) of a unit: "TB/s" -> ("byte/time", 1e12); "" -> ("", 1);
    a unit it cannot read -> None. "x", "×" and "times" are a ratio; "%" a percentage."""
    text = _PER.sub("/", text.strip(SPACES))
    if text == "":
        return "", 1.0
    if text == "%" or text.lower() == "percent":
        return "percent", 1.0
    parts = [p.strip(SPACES) for p in text.split("/")]
    if len(parts) > 2 or not all(parts):
        return None
    read = [_base(p) for p in parts]
    if any(r is None for r in read):
        return None
    if len(read) == 1:
        return read[0]
    (d1, s1), (d2, s2) = read
    return f"{d1}/{d2}", s1 / s2


def read(text: str) -> tuple[float, str] | str:
    """A typed answer as (number, unit text), the unit text stripped; or the reason it is
    not a number (a message fragment: 'the text "about four"')."""
    t = text.strip(SPACES).replace(",", "").replace("_", "").replace("−", "-")
    m = _NUMBER.match(t)
    if not m:
        return f'the text "{text.strip(SPACES)}"'
    digits, rest = m[1], t[m.end():].strip(SPACES)
    p = _POWER.match(rest)
    if p and not digits.lstrip("+-")[:1].isalpha():
        # "2.6 x 10^-4": the power joins the number's own exponent, read as one decimal
        mantissa, _, exp = digits.lower().partition("e")
        digits, rest = f"{mantissa}e{int(exp or 0) + int(p[1])}", rest[p.end():].strip(SPACES)
    number = float(digits)
    if rest in MULTIPLIERS:
        number, rest = number * MULTIPLIERS[rest], ""
    return number, rest
