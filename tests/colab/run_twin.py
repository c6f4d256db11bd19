"""Execute one Colab twin as Colab would, in the Colab-faithful environment.

    .venv-colab/bin/python tests/colab/run_twin.py TWIN.ipynb WORKDIR OUT.ipynb

Run by tests/test_colab_twins.py with this environment's python (Colab's versions; see
scripts/colab_env.py), ``google.colab`` importable from tests/colab/stub, and git told to
fetch the book's repository address from a local mirror. The kernel starts in WORKDIR
(Colab's /content) without the book on its path: the twin's setup cell must fetch it.
Writes the executed notebook, errors included, to OUT and prints the seconds it took.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time

import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def kernel_manager() -> KernelManager:
    """A python3 kernel reached over Unix sockets in a folder of its own: over TCP, kernels
    started side by side could pick the same free port (ZMQError "Address already in use"
    in a clean-clone run of 2026-12-07)."""
    sockets = os.path.join(tempfile.mkdtemp(prefix="twin-"), "kernel")
    return KernelManager(kernel_name="python3", transport="ipc", ip=sockets)


def main(twin: str, workdir: str, out: str) -> int:
    nb = nbformat.read(twin, as_version=4)
    client = NotebookClient(nb, km=kernel_manager(), timeout=300, kernel_name="python3",
                            allow_errors=True, resources={"metadata": {"path": workdir}})
    start = time.perf_counter()
    try:
        client.execute()
    except CellExecutionError:  # recorded in the notebook; the test reports it
        pass
    nbformat.write(nb, out)
    print(f"{time.perf_counter() - start:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
