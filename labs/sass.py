"""SASS, the GPU's own instructions: take it from a compiled numba kernel, record it with
its context, and find the loops in it.

PTX is a virtual instruction set that ``ptxas`` still rewrites (it unrolls, schedules and
picks the real opcodes), so the instructions a loop issues are counted on SASS. On a GPU,
:func:`capture` returns a kernel's SASS from numba's ``inspect_sass()`` (which runs the
toolkit's ``nvdisasm``), or, where that fails, from ``cuobjdump -sass`` on the kernel's
cubin. :func:`record_text` puts a header of ``#`` lines (GPU, driver, numba, date, how it
was taken) above the listing, so the file says where it came from.

Nothing else here needs a GPU: :func:`instructions` reads either tool's listing,
:func:`loops` finds each backward branch and the instructions it repeats, and
:func:`loop_summary` counts them by opcode, :func:`register_count` reads a kernel's
registers a thread. Imports neither torch nor plotly.
"""
from __future__ import annotations

import dataclasses
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
from collections import Counter

#: One instruction line: ``/*0070*/  @!P0 BRA `(.L_x_2) ;`` (nvdisasm) or
#: ``/*0070*/  @!P0 BRA 0x70 ;`` (cuobjdump).
_INSTR = re.compile(r"/\*(?P<addr>[0-9a-fA-F]{4,})\*/\s+(?P<pred>@!?U?P\w+\s+)?"
                    r"(?P<op>[A-Z][A-Z0-9_.]*)(?P<args>[^;]*);")
_LABEL = re.compile(r"^\s*(?P<name>\.L_[\w]+):")
_TARGET_LABEL = re.compile(r"`\((?P<name>\.L_[\w]+)\)")
_TARGET_ADDR = re.compile(r"\b0x(?P<addr>[0-9a-fA-F]+)\b")
#: Opcodes that end a loop turn by jumping back.
BRANCHES = ("BRA", "JMP")


@dataclasses.dataclass(frozen=True)
class Instruction:
    """One SASS instruction: byte address, predicate ('' if none), opcode with its
    modifiers (``ISETP.NE.AND``), and its operand text."""
    address: int
    predicate: str
    opcode: str
    operands: str

    @property
    def base(self) -> str:
        """The opcode without modifiers: ``ISETP.NE.AND`` -> ``ISETP``."""
        return self.opcode.split(".", 1)[0]


def instructions(text: str) -> tuple[list[Instruction], dict[str, int]]:
    """Every instruction of a SASS listing in order, and the address of each label
    (nvdisasm's ``.L_x_N:`` lines; the next instruction's address)."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a SASS listing (str); got {type(text).__name__}")
    out: list[Instruction] = []
    labels: dict[str, int] = {}
    pending: list[str] = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        lab = _LABEL.match(line)
        if lab:
            pending.append(lab["name"])
            continue
        m = _INSTR.search(line)
        if not m:
            continue
        ins = Instruction(int(m["addr"], 16), (m["pred"] or "").strip(), m["op"],
                          m["args"].strip())
        for name in pending:
            labels[name] = ins.address
        pending = []
        out.append(ins)
    return out, labels


def _target(ins: Instruction, labels: dict[str, int]) -> int | None:
    m = _TARGET_LABEL.search(ins.operands)
    if m:
        return labels.get(m["name"])
    m = _TARGET_ADDR.search(ins.operands)
    return int(m["addr"], 16) if m else None


def loops(text: str) -> list[list[Instruction]]:
    """The loops of a SASS listing: for every branch that jumps back (to its own address
    or before), the instructions from its target to the branch itself, in address order.
    Innermost loops come out as they are; an enclosing loop includes its inner ones."""
    ins, labels = instructions(text)
    found = []
    for i, x in enumerate(ins):
        if x.base not in BRANCHES:
            continue
        t = _target(x, labels)
        if t is None or t > x.address:
            continue
        body = [y for y in ins[: i + 1] if y.address >= t]
        if body:
            found.append(body)
    return found


def loop_summary(body: list[Instruction], work: str = "FFMA") -> dict:
    """Counts for one loop: instructions a turn, ``work`` instructions a turn (the steps
    the turn does), instructions per step, and the opcodes (base names) with counts."""
    if not body:
        raise ValueError("body must hold at least one instruction")
    ops = Counter(x.base for x in body)
    steps = ops.get(work, 0)
    return {"instructions": len(body), "steps": steps,
            "instructions_per_step": len(body) / steps if steps else None,
            "opcodes": dict(ops.most_common()), "work": work,
            "first_address": body[0].address, "last_address": body[-1].address}


_REGCOUNT = re.compile(r"EIATTR_REGCOUNT\b.*?index@\([^)]*\)\s*/\*[0-9a-fA-F]+\*/\s*"
                       r"\.word\s+0x(?P<n>[0-9a-fA-F]+)", re.S)


def register_count(listing: str) -> int | None:
    """Registers a thread of the kernel uses, from the ``EIATTR_REGCOUNT`` attribute of its
    ``nvdisasm`` listing (the word after the kernel's index); None where the listing has
    none (``cuobjdump -sass`` prints no attributes)."""
    if not isinstance(listing, str):
        raise ValueError(f"listing must be SASS text; got {type(listing).__name__}")
    m = _REGCOUNT.search(listing)
    return int(m["n"], 16) if m else None


def work_loops(text: str, work: str = "FFMA") -> list[dict]:
    """:func:`loop_summary` of every loop that holds a ``work`` instruction and no inner
    loop holding one (the loops whose turn is the repeated work), in address order."""
    bodies = [b for b in loops(text) if any(x.base == work for x in b)]
    inner = []
    for b in bodies:
        span = (b[0].address, b[-1].address)
        if not any(o is not b and span[0] <= o[0].address and o[-1].address <= span[1]
                   and (o[0].address, o[-1].address) != span for o in bodies):
            inner.append(b)
    return [loop_summary(b, work) for b in inner]


def excerpt(text: str, first: int, last: int, context: int = 0,
            max_lines: int | None = None) -> str:
    """The listing's instruction lines with addresses in [first, last] (plus ``context``
    instructions either side), encodings and comments cut, one per line; past
    ``max_lines``, the first and last halves with one line saying how many were left out."""
    ins, _ = instructions(text)
    idx = [i for i, x in enumerate(ins) if first <= x.address <= last]
    if not idx:
        raise ValueError(f"no instruction between 0x{first:x} and 0x{last:x}")
    lo, hi = max(0, idx[0] - context), min(len(ins), idx[-1] + context + 1)
    lines = [f"/*{x.address:04x}*/ {(x.predicate + ' ') if x.predicate else ''}"
             f"{x.opcode} {x.operands};".replace(" ;", ";") for x in ins[lo:hi]]
    if max_lines is not None and len(lines) > max_lines >= 2:
        k = max_lines // 2
        lines = lines[:k] + [f"/* ... {len(lines) - 2 * k} more instructions ... */"] + lines[-k:]
    return "\n".join(lines)


# ------------------------------------------------------------------ on a GPU

def _cuobjdump_sass(kernel) -> str:
    """SASS from ``cuobjdump -sass`` on the kernel's cubin (the fallback)."""
    exe = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    if not os.path.exists(exe):
        raise RuntimeError("cuobjdump not found")
    overload = next(iter(kernel.overloads.values()))
    library = getattr(overload, "_codelibrary", None) or overload.library
    cubin = library.get_cubin()
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp, "kernel.cubin")
        path.write_bytes(cubin)
        out = subprocess.run([exe, "-sass", str(path)], capture_output=True, text=True,
                             timeout=120)
    if out.returncode != 0:
        raise RuntimeError(f"cuobjdump failed: {out.stderr.strip()[-500:]}")
    return out.stdout


def capture(kernel) -> tuple[str, str]:
    """(SASS of a compiled numba kernel for the current GPU, how it was taken). The kernel
    must have been launched (compiled) once. Tries ``kernel.inspect_sass()`` (with the
    toolkit's bin directory on PATH for nvdisasm), then ``cuobjdump -sass``."""
    if not getattr(kernel, "overloads", None):
        raise ValueError("kernel must be a numba CUDA kernel that has been compiled")
    cuda_bin = "/usr/local/cuda/bin"
    if os.path.isdir(cuda_bin) and cuda_bin not in os.environ.get("PATH", ""):
        os.environ["PATH"] = os.environ.get("PATH", "") + os.pathsep + cuda_bin
    errors = []
    try:
        sig = next(iter(kernel.overloads))
        text = kernel.inspect_sass(sig)
        if isinstance(text, dict):
            text = next(iter(text.values()))
        if _INSTR.search(text or ""):
            return text, "numba kernel.inspect_sass() (nvdisasm)"
        errors.append("inspect_sass() returned no instructions")
    except Exception as exc:                      # noqa: BLE001 - recorded, then the fallback
        errors.append(f"inspect_sass(): {type(exc).__name__}: {exc}")
    try:
        return _cuobjdump_sass(kernel), "cuobjdump -sass on the kernel's cubin"
    except Exception as exc:                      # noqa: BLE001
        errors.append(f"cuobjdump: {type(exc).__name__}: {exc}")
    raise RuntimeError("; ".join(errors))


def record_text(listings: dict[str, tuple[str, str]], ctx: dict, note: str) -> str:
    """A SASS record: ``#`` header lines (what, the GPU and software context, ``note``),
    then each kernel's listing under a ``# kernel: NAME (taken with: HOW)`` line."""
    head = [f"# {note}"]
    for key in ("gpu_name", "compute_capability", "driver", "cuda_runtime", "numba",
                "numba_cuda", "torch", "date"):
        if ctx.get(key) is not None:
            head.append(f"# {key}: {ctx[key]}")
    parts = ["\n".join(head)]
    for name, (text, how) in listings.items():
        parts.append(f"# kernel: {name} (taken with: {how})\n{text.rstrip()}")
    return "\n\n".join(parts) + "\n"


def kernel_listing(record: str, name: str) -> str:
    """The listing of kernel ``name`` in a :func:`record_text` record."""
    chunks = re.split(r"^# kernel: ", record, flags=re.M)
    for chunk in chunks[1:]:
        if chunk.split(" ", 1)[0] == name:
            return chunk.split("\n", 1)[1] if "\n" in chunk else ""
    raise ValueError(f"no kernel {name!r} in the SASS record")


def header(record: str) -> dict[str, str]:
    """The ``# key: value`` lines above the first kernel of a record."""
    out = {}
    for line in record.split("# kernel: ", 1)[0].splitlines():
        m = re.match(r"^# (\w+): (.*)$", line)
        if m:
            out[m[1]] = m[2].strip()
    return out
