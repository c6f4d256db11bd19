"""Numbers in a variant's question, written as the book writes them (SI prefixes with the
unit, thousands separators, powers of two as maths)."""
from __future__ import annotations

from perfmodel import units

ARTICLE = {"A100": "an", "H100": "an", "H200": "an", "B200": "a", "T4": "a"}


def si(value: float, unit: str) -> str:
    """8.1e12, "FLOP/s" -> "8.1 TFLOP/s"."""
    return units.si(value, unit, digits=3)


def count(n: float) -> str:
    """65536 -> "65,536"."""
    return f"{int(n):,}"


def pow2(exponent: int) -> str:
    """28 -> "$2^{28}$" (maths: Colab and the book render it)."""
    return f"$2^{{{int(exponent)}}}$"


def sci(x: float) -> str:
    """2e9 -> "$2 \\times 10^{9}$" (maths; never e-notation in a question)."""
    mantissa, exponent = f"{x:.3g}".split("e") if "e" in f"{x:.3g}" else (f"{x:.3g}", "0")
    exp = int(exponent)
    if exp == 0:
        return mantissa
    return (f"${mantissa} \\times 10^{{{exp}}}$" if mantissa != "1" else f"$10^{{{exp}}}$")


def a(machine: str) -> str:
    """"an H200", "a T4"."""
    return f"{ARTICLE.get(machine, 'a')} {machine}"


def dtype(name: str) -> str:
    """"bf16" -> "BF16"."""
    return name.upper()
