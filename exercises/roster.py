"""Rosters as a learning-management system exports them, and submissions matched to students.

A roster is a text file of ids, one a line, or a CSV with a header (Canvas, Moodle,
Gradescope exports): quoted ``"Lovelace, Ada"`` names with commas are one field, and the
id is the column the instructor names (``--id-column "SIS User ID"``, ``email``, or a
1-based number); without one, the first of :data:`ID_COLUMNS` the header has, else the
first column. E-mail addresses are ids like any other.
"""
from __future__ import annotations

import csv
import errno
import io
import json
import os
import pathlib
import re
import stat

#: Header names taken as the id column when none is named, in this order.
ID_COLUMNS = ("student", "student id", "sis user id", "sis id", "id", "email", "e-mail",
              "login id", "sis login id", "username", "user")
_STUDENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@+-]{0,127}$")


def check_student(student: object) -> str:
    """A student id: 1 to 128 letters, digits, '.', '_', '-', '@' or '+' (an e-mail address
    is one), starting with a letter or digit; else ValueError saying so."""
    if not isinstance(student, str) or not _STUDENT.match(student.strip()):
        raise ValueError("student id must be 1 to 128 letters, digits, '.', '_', '-', '@' or "
                         f"'+', starting with a letter or digit; got {student!r}"[:300])
    return student.strip()


def _column(header: list[str], column: str | int | None) -> int:
    names = [h.strip().lower() for h in header]
    if isinstance(column, int) and not isinstance(column, bool):
        if not 1 <= column <= len(header):
            raise ValueError(f"column must be 1 to {len(header)}, got {column}")
        return column - 1
    if isinstance(column, str) and column.strip():
        key = column.strip().lower()
        if key.isdigit():
            return _column(header, int(key))
        if key not in names:
            raise ValueError(f"column {column!r} is not in the roster's header "
                             f"({', '.join(h.strip() for h in header)})")
        return names.index(key)
    if column is not None:
        raise ValueError(f"column must be a header name or a 1-based number, got {column!r}")
    for want in ID_COLUMNS:
        if want in names:
            return names.index(want)
    return 0


def read_roster(path: str | pathlib.Path, column: str | int | None = None) -> list[str]:
    """The student ids of a roster file, in its order (see the module's docstring). A
    header is recognised by a known id column name or by ``column`` naming one; Canvas's
    "Points Possible" row, blank lines and ``#`` comments are skipped; an id that appears
    twice -> ValueError naming it."""
    if not isinstance(path, (str, pathlib.PurePath)) or not str(path).strip():
        raise ValueError(f"path must be the roster file, got {path!r}")
    try:
        text = pathlib.Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"path: cannot read the roster {path} ({exc})") from None
    rows = [r for r in csv.reader(io.StringIO(text))
            if r and any(c.strip() for c in r) and not r[0].lstrip().startswith("#")]
    if not rows:
        return []
    first = [c.strip().lower() for c in rows[0]]
    named = isinstance(column, str) and column.strip() and not column.strip().isdigit()
    has_header = bool(named or any(c in ID_COLUMNS for c in first))
    at = _column(rows[0], column) if has_header or column is not None else 0
    ids: list[str] = []
    for r in rows[1:] if has_header else rows:
        if r[0].strip().lower() == "points possible" or len(r) <= at:
            continue
        cell = r[at].strip()
        if cell:
            ids.append(check_student(cell))
    seen: set[str] = set()
    twice = [i for i in ids if i in seen or seen.add(i)]
    if twice:
        raise ValueError(f"{path}: the student id {twice[0]!r} appears twice (choose another "
                         "id column?)")
    return ids


#: Largest notebook a submission may be, bytes.
NOTEBOOK_BYTES = 50 * 2 ** 20


def read_notebook(path: str | pathlib.Path, max_bytes: int = NOTEBOOK_BYTES) -> bytes:
    """The bytes of a submitted notebook, read only when ``path`` is a regular file (not a
    symbolic link, a FIFO, a device or a folder: one unpacked from a student's archive
    could hang the grader or feed it without end) of at most ``max_bytes``. ValueError
    says what it is instead, or why it cannot be opened (missing, unreadable)."""
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise ValueError(f"max_bytes must be a positive whole number of bytes, "
                         f"not {max_bytes!r}")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise ValueError("it is a symbolic link, not a notebook file") from None
        raise ValueError(f"notebook path {str(path)!r} cannot be opened: "
                         f"{e.strerror or e}") from None
    except (TypeError, ValueError) as e:    # not a path at all, or one with a NUL byte
        raise ValueError(f"notebook path {path!r} is not a file name: {e}") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise ValueError("it is not a regular file (a folder, a FIFO or a device)")
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ValueError(f"the file is larger than {max_bytes // 2 ** 20} MiB")
    return data


def notebook_student(path: pathlib.Path, key: str = "exercises") -> str | None:
    """The student a notebook was made for, as its own metadata says (None when it says
    nothing or cannot be read)."""
    try:
        meta = json.loads(read_notebook(path)).get("metadata", {}).get(key, {})
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    who = meta.get("student") if isinstance(meta, dict) else None
    return who if isinstance(who, str) and who else None


def match(found: dict[str, pathlib.Path], roster: list[str],
          key: str = "exercises") -> tuple[dict[str, pathlib.Path], list[str]]:
    """Submissions by student: a file whose name is on the roster is that student's; one
    whose name is not (``alice_1001_2002_week3-alice.ipynb`` from Canvas) goes to the
    student its notebook's metadata names, when that student is on the roster and has no
    other submission, with a warning; else it stays under its own name (and the grader
    flags a student not on the roster). Returns (matched, warnings)."""
    if not isinstance(found, dict) or not all(
            isinstance(k, str) and isinstance(v, pathlib.PurePath) for k, v in found.items()):
        raise TypeError(f"found must map names to notebook paths, got {found!r}"[:200])
    if isinstance(roster, (str, bytes)) or not isinstance(roster, (list, tuple)) \
            or not all(isinstance(s, str) for s in roster):
        raise TypeError(f"roster must be a list of student ids, got {roster!r}"[:200])
    if not isinstance(key, str) or not key:
        raise TypeError(f"key must be the notebook metadata's key, got {key!r}"[:200])
    out: dict[str, pathlib.Path] = {}
    warnings: list[str] = []
    on = set(roster)
    for name, path in found.items():
        if name in on or not roster:
            out[name] = path
    for name, path in found.items():
        if name in on or not roster:
            continue
        who = notebook_student(path, key)
        if who in on and who not in out:
            out[who] = path
            warnings.append(f"{path.name}: not a roster id; graded as {who}, the student "
                            "its notebook was made for")
        elif who in on:
            warnings.append(f"{path.name}: made for {who}, who handed in {out[who].name} "
                            "too; graded under its own name")
            out[name] = path
        else:
            out[name] = path
    return out, warnings
