"""Submissions that misbehave, for checking that a grader contains them: SAXPY kernels
with the starter's names (``saxpy``, ``launch``) that a student might hand in by mistake.
``tests/test_grade_challenges.py`` grades them under the CUDA simulator and
``exercises/gpu_grading_demo.py`` on a GPU (``python -m labs.device grade``); both take them from here, so the two
grade the same code. Each is the text of a submitted cell."""

#: A kernel that never ends: every thread spins on ``i += 0``. The grader's time limit
#: (or its CPU limit, when the host spins in ``cuCtxSynchronize``) must stop it.
HANG = '''from numba import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    while i >= 0:          # never ends
        i += 0


def launch(a, x, y, out):
    saxpy[(x.size + 255) // 256, 256](a, x, y, out)
'''

#: A kernel that writes 2**24 elements past the end of ``out``: the simulator's index
#: check names it "out of bounds"; on a GPU the write lands outside the process's memory
#: (CUDA_ERROR_ILLEGAL_ADDRESS on the H200), where a write just past the end might land in
#: memory the process owns and go unnoticed.
OUT_OF_BOUNDS = '''from numba import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    out[i + (1 << 24)] = a * x[i] + y[i]          # far past the end of out


def launch(a, x, y, out):
    saxpy[(x.size + 255) // 256, 256](a, x, y, out)
'''
