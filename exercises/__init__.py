"""The book's exercises with numeric answers, and the checker students call.

Each chapter registers its numeric exercises in ``exercises/<chapter>.py`` with
:func:`register`; every answer is computed by perfmodel, never typed. Modules in this
package are discovered automatically.

>>> from exercises import check
>>> check("roofline-3", 4.2)   # doctest: +SKIP
"""
from .registry import Exercise, Verdict, all_exercises, answer, check, get, register  # noqa: F401
