"""The divergence lab's numba kernels, checked under numba's CUDA simulator (in a child
process; see tests/labs2_sim.py)."""
from labs2_sim import run_checks


def test_divergence_kernels_under_the_simulator():
    run_checks("sim_labs2_divergence.py")
