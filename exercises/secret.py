"""The instructor's secret: the key that per-student numbers derive from.

``assign`` creates it once per course (32 random bytes, hex, mode 0600) at
``~/.config/gpu-perf-book/<course>.key`` (``$XDG_CONFIG_HOME`` respected) or at ``--key
PATH``, outside the book's repository, and ``grade`` reads it. A variant's seed is an
HMAC of the assignment, student and exercise ids under the key
(:func:`exercises.variants.seed`), so the book's public code, the notebook and the
student's id are not enough to compute anyone's numbers or answers. ``assignment.json``
records the key's fingerprint (never the key), so ``grade`` refuses another key.
"""
from __future__ import annotations

import hashlib
import os
import pathlib
import re
import secrets
import subprocess

#: The course a key belongs to when none is named.
COURSE = "gpu-perf-book"
#: Bytes of a new key.
KEY_BYTES = 32
_COURSE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def default_path(course: str) -> pathlib.Path:
    """Where the key of ``course`` lives by default: ``~/.config/gpu-perf-book/<course>.key``."""
    if not isinstance(course, str) or not _COURSE.match(course):
        raise ValueError(f"course must be 1 to 64 letters, digits, '.', '_' or '-', got {course!r}")
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return pathlib.Path(base) / "gpu-perf-book" / f"{course}.key"


def _inside_repository(path: pathlib.Path) -> str:
    """The git work tree that holds ``path`` ("" when none)."""
    folder = path.parent
    while not folder.exists():
        folder = folder.parent
    try:
        got = subprocess.run(["git", "-C", str(folder), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return got.stdout.strip() if got.returncode == 0 else ""


def create(path: str | pathlib.Path) -> bytes:
    """The key at ``path``, made (mode 0600, its folder 0700) when there is none yet.
    A path inside a git repository is refused: a key there is one commit from public."""
    if not isinstance(path, (str, pathlib.PurePath)) or not str(path).strip():
        raise ValueError(f"path must be the key file's path, got {path!r}")
    path = pathlib.Path(path).expanduser().resolve()
    repo = _inside_repository(path)
    if repo:
        raise ValueError(f"path: {path} is inside the git repository {repo}; keep the key "
                         "outside any repository (the default is ~/.config/gpu-perf-book/)")
    if path.exists():
        return read(path)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(KEY_BYTES) + "\n")
    return read(path)


def read(path: str | pathlib.Path) -> bytes:
    """The key in the file at ``path`` (hex), or ValueError naming the argument."""
    if not isinstance(path, (str, pathlib.PurePath)) or not str(path).strip():
        raise ValueError(f"path must be the key file's path, got {path!r}")
    try:
        text = pathlib.Path(path).expanduser().read_text().strip()
        key = bytes.fromhex(text)
    except (OSError, ValueError) as exc:
        raise ValueError(f"path: cannot read the instructor's key from {path} ({exc}); "
                         "it is the file `python -m exercises assign` made") from None
    if len(key) < 16:
        raise ValueError(f"path: {path} holds {len(key)} bytes; a key has at least 16")
    return key


def fingerprint(key: bytes) -> str:
    """What assignment.json records of the key: 16 hex digits of a hash of it (a wrong
    key is told apart; the key cannot be recovered)."""
    if not isinstance(key, bytes) or len(key) < 16:
        raise ValueError("key must be at least 16 bytes")
    return hashlib.sha256(b"gpu-perf-book key fingerprint\x1f" + key).hexdigest()[:16]
