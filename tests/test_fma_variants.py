"""labs/fma_variants.py outside the simulator (its kernels' arithmetic is checked under
the simulator in tests/labs_sim_checks.py, fma_peak_variants; their sm_75 compile in
tests/test_t4_compile.py): names, the FLOP count of a launch, the default switch."""
import pytest

from labs import fma_variants, kernels


def test_unknown_variant_names_the_choices():
    with pytest.raises(ValueError, match="chains16"):
        fma_variants.variant("chains99")


def test_the_shipped_kernel_is_the_default_and_counts_as_before():
    assert kernels.FMA_PEAK_VARIANT == "wide" == fma_variants.VARIANTS[0]
    # the shipped kernel: 16 chains x 64 FMAs a turn, 2 FLOPs each
    assert kernels.peak_flops_per_launch(1000, 3) == 1000 * 3 * 16 * 64 * 2
    assert kernels.peak_flops_per_launch(1000, 3, 512) == 1000 * 3 * 512 * 2


def test_fmas_per_turn_reads_the_kernels_attribute():
    class K:
        fmas_per_turn = 512

    assert fma_variants.fmas_per_turn(K()) == 512
    assert fma_variants.fmas_per_turn(object()) == 16 * 64
