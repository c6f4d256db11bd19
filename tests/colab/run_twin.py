"""Execute one Colab twin as Colab would, in the Colab-faithful environment.

    .venv-colab/bin/python tests/colab/run_twin.py TWIN.ipynb WORKDIR OUT.ipynb

Run by tests/test_colab_twins.py with this environment's python (Colab's versions; see
scripts/colab_env.py), ``google.colab`` importable from tests/colab/stub, and git told to
fetch the book's repository address from a local mirror. The kernel starts in WORKDIR
(Colab's /content) without the book on its path: the twin's setup cell must fetch it.
Writes the executed notebook, errors included, to OUT and prints the seconds it took.
"""
from __future__ import annotations

import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def main(twin: str, workdir: str, out: str) -> int:
    nb = nbformat.read(twin, as_version=4)
    client = NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": workdir}})
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
