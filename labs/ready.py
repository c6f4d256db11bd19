"""Is this runtime ready for the book's labs? What the notebooks' setup cell reports.

:func:`status` checks, in about a second plus one kernel compile:

- the Python version;
- the GPU, as torch sees it (name and compute capability), and torch's CUDA;
- that numba.cuda compiles, launches and checks a small kernel there;
- that the NVVM which compiles numba's kernels and the nvJitLink which links them come
  from the same CUDA release (PTX from a newer NVVM does not link with an older
  nvJitLink: "Unsupported .version 8.8; current version is '8.7'").

Each problem comes back as one sentence saying what to do. Nothing here imports plotly.
"""
from __future__ import annotations

import importlib.metadata as _md
import platform
import time
from dataclasses import dataclass, field

#: The wheels that carry NVVM (numba's compiler) and nvJitLink (its linker) for CUDA 12.
NVVM_WHEEL, NVJITLINK_WHEEL = "nvidia-cuda-nvcc-cu12", "nvidia-nvjitlink-cu12"

#: What a reader in Colab does to get a GPU.
GET_A_GPU = "Runtime > Change runtime type > T4 GPU, then run this cell again"


def _version(dist: str) -> str | None:
    try:
        return _md.version(dist)
    except _md.PackageNotFoundError:
        return None


def release(version: str | None) -> tuple[int, int] | None:
    """'12.8.93' -> (12, 8); None or text without two numbers -> None."""
    if not version:
        return None
    parts = version.split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return None


def toolchain_problem(nvvm: str | None = None, nvjitlink: str | None = None) -> str | None:
    """One sentence when the installed NVVM and nvJitLink wheels are of different CUDA
    releases (None when they agree, or when either is absent: a system CUDA toolkit is
    then used as a whole). Versions default to the installed wheels'."""
    nvvm = nvvm if nvvm is not None else _version(NVVM_WHEEL)
    nvjitlink = nvjitlink if nvjitlink is not None else _version(NVJITLINK_WHEEL)
    a, b = release(nvvm), release(nvjitlink)
    if a is None or b is None or a == b:
        return None
    return (f"numba's compiler (NVVM, {NVVM_WHEEL} {nvvm}) is newer or older than its "
            f"linker ({NVJITLINK_WHEEL} {nvjitlink}), so kernels will not link: "
            f"run pip install {NVVM_WHEEL}=={nvjitlink} and restart the session.")


@dataclass
class Status:
    """What :func:`status` found: ``facts`` to print, ``problems`` (one sentence each)."""

    facts: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    gpu: bool = False

    def text(self, seconds: float) -> str:
        head = "Ready" if not self.problems else "Set up, with a problem"
        lines = [f"{head} ({seconds:.1f} s): " + "; ".join(self.facts) + "."]
        return "\n".join(lines + [f"- {p}" for p in self.problems])


def _torch_facts(st: Status) -> None:
    try:
        import torch
    except ImportError:
        st.facts.append("torch not installed")
        if _numba_sees_a_gpu():
            st.problems.append("torch is missing, and the labs time library operations with "
                               "it: pip install torch, then restart the session.")
        else:
            st.problems.append(f"No GPU here, so the lab cells show recorded results. For "
                               f"your own measurements in Colab: {GET_A_GPU}.")
        return
    cuda = torch.version.cuda
    if not torch.cuda.is_available():
        st.facts.append(f"torch {torch.__version__}, no GPU in this runtime")
        st.problems.append(f"No GPU here, so the lab cells show recorded results. For your "
                           f"own measurements in Colab: {GET_A_GPU}.")
        return
    p = torch.cuda.get_device_properties(0)
    st.gpu = True
    st.facts.append(f"{p.name} (compute capability {p.major}.{p.minor}, {p.multi_processor_count} SMs)")
    st.facts.append(f"torch {torch.__version__} with CUDA {cuda}")


def _numba_sees_a_gpu() -> bool:
    try:
        from .gpu import numba_cuda

        return bool(numba_cuda().is_available())
    except Exception:  # noqa: BLE001  (no numba, no driver: no GPU for the labs)
        return False


def numba_check(n: int = 4096) -> float:
    """Compile, launch and check a small numba kernel on the GPU; returns the seconds it
    took (the compile dominates). Raises RuntimeError when the result is wrong."""
    import numpy as np

    start = time.perf_counter()
    from .ready_kernel import cuda, twice_plus_one

    x = np.arange(n, dtype=np.float32)
    d_out = cuda.device_array_like(x)
    twice_plus_one[(n + 255) // 256, 256](cuda.to_device(x), d_out)
    got = d_out.copy_to_host()
    if not np.array_equal(got, 2.0 * x + 1.0):
        raise RuntimeError("a numba kernel ran but returned wrong numbers")
    return time.perf_counter() - start


def status() -> Status:
    """Check this runtime (see the module's docstring)."""
    st = Status(facts=[f"Python {platform.python_version()}"])
    _torch_facts(st)
    problem = toolchain_problem()
    if problem:
        st.problems.append(problem)
    elif st.gpu:
        try:
            seconds = numba_check()
            st.facts.append(f"a numba kernel compiled, ran and checked in {seconds:.1f} s")
        except Exception as exc:  # noqa: BLE001  (reported as one sentence)
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            st.problems.append(f"numba could not run a kernel ({first[:200]}); "
                               "restart the session (Runtime > Restart session) and run "
                               "this cell again.")
    return st


def report(start: float | None = None) -> str:
    """The setup cell's closing status; ``start`` is when the cell began (perf_counter)."""
    t0 = time.perf_counter() if start is None else start
    st = status()
    return st.text(time.perf_counter() - t0)
