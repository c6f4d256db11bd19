"""The occupancy model against the CUDA occupancy calculator's rules, worked by hand.

The limits are typed here from the CUDA C++ Programming Guide's table of compute capabilities
(sm_75: 32 warps, 16 blocks, 64 KiB shared memory an SM; sm_90: 64 warps, 32 blocks, 228 KiB an
SM, 227 KiB a block) and the occupancy calculator's allocation rules (cuda_occupancy.h:
registers by the warp in units of 256, four sub-partitions each holding whole warps; shared
memory in units of 256 B on sm_75 and 128 B on sm_90, plus 1 KiB a block reserved from sm_80).
Each case says which limit binds; every limit binds at least once on each architecture.
"""
import pytest

from perfmodel import little, machines, simt

KIB = 1024
# compute capability -> (warps per SM, blocks per SM, shared per SM, shared unit, reserved)
RULES = {"T4": (32, 16, 64 * KIB, 256, 0), "H200": (64, 32, 228 * KIB, 128, KIB),
         "A100": (64, 32, 164 * KIB, 128, KIB), "B200": (64, 32, 228 * KIB, 128, KIB)}


def _up(x, unit):
    return -(-x // unit) * unit


def calculator(gpu, regs, block, smem=0):
    """The calculator's rules written out again: blocks per SM under each limit."""
    warps_sm, blocks_sm, smem_sm, unit, reserved = RULES[gpu]
    warps = -(-block // 32)
    per_warp = _up(regs * 32, 256)
    reg_warps = 4 * ((65536 // 4) // per_warp)
    alloc = _up(smem + reserved, unit)
    return {"warps": warps_sm // warps, "registers": reg_warps // warps,
            "shared memory": smem_sm // alloc if alloc else None, "blocks": blocks_sm}


# (gpu, registers a thread, block, shared bytes a block, resident blocks, binding limit)
CASES = [
    # sm_75 (T4)
    ("T4", 32, 256, 0, 4, "warps"),            # 1,024 threads: the warp slots
    ("T4", 80, 256, 0, 3, "registers"),        # 2,560 a warp, 6 a quarter, 24 warps
    ("T4", 85, 256, 0, 2, "registers"),        # 2,720 -> 2,816 a warp, 5 a quarter: 20 warps
    ("T4", 96, 256, 0, 2, "registers"),        # 3,072 a warp, 5 a quarter
    ("T4", 32, 32, 0, 16, "blocks"),           # 16 one-warp blocks: half the 32 warp slots
    ("T4", 32, 256, 40 * KIB, 1, "shared memory"),   # 64 KiB holds one 40 KiB block
    ("T4", 32, 128, 16 * KIB, 4, "shared memory"),   # 64 / 16 = 4 (warps would allow 8)
    # sm_90 (H200)
    ("H200", 32, 256, 0, 8, "warps"),
    ("H200", 40, 128, 0, 12, "registers"),     # 1,280 a warp, 12 a quarter: 48 warps
    ("H200", 40, 64, 0, 24, "registers"),      # still 48 warps: the block size does not help
    ("H200", 64, 256, 0, 4, "registers"),
    ("H200", 168, 128, 0, 3, "registers"),     # 5,376 a warp: 3 a quarter, 12 warps
    ("H200", 21, 1, 0, 32, "blocks"),          # the profile lab's lone pointer chaser
    ("H200", 32, 32, 0, 32, "blocks"),
    ("H200", 32, 256, 100 * KIB, 2, "shared memory"),  # 101 KiB a block: two in 228 KiB
    ("H200", 32, 128, 227 * KIB, 1, "shared memory"),  # the largest block: 227 + 1 = 228 KiB
    ("H200", 32, 64, 6 * KIB, 32, "blocks"),   # 7 KiB a block would allow 32: a tie
]


@pytest.mark.parametrize("gpu, regs, block, smem, blocks, binds", CASES)
def test_published_rules(gpu, regs, block, smem, blocks, binds):
    by_hand = calculator(gpu, regs, block, smem)
    model = simt.occupancy_limits(gpu, regs, block, smem)
    for k, v in by_hand.items():
        if v is not None:
            assert model[k] == v, k
    assert simt.resident_blocks(gpu, regs, block, smem) == blocks
    assert model[binds] == blocks
    warps_sm = RULES[gpu][0]
    assert simt.occupancy(gpu, regs, block, smem) == pytest.approx(
        blocks * -(-block // 32) / warps_sm)


def test_every_limit_binds_on_each_architecture():
    for gpu in ("T4", "H200"):
        bound = {b for g, *_rest, b in CASES if g == gpu}
        assert bound == set(simt.OCCUPANCY_LIMITS), gpu


def test_ties_name_the_first_limit():
    assert simt.occupancy_limiter("H200", 32, 64, 6 * KIB) == "warps"   # warps 32 = blocks 32
    assert simt.occupancy_limiter("H200", 21, 1) == "blocks"
    assert simt.occupancy_limiter("T4", 85, 256) == "registers"


def test_the_one_thread_chaser_is_held_to_half_the_warp_slots():
    # The recorded Nsight Compute run reports 50% as the chaser's occupancy limit.
    assert simt.occupancy("H200", 21, 1) == pytest.approx(0.5)


def test_machine_facts_match_the_programming_guide():
    for gpu, (warps_sm, blocks_sm, smem_sm, unit, reserved) in RULES.items():
        m = machines.get(gpu)
        assert m.hardware("max_threads_per_sm") == 32 * warps_sm
        assert m.hardware("max_blocks_per_sm") == blocks_sm
        assert m.hardware("shared_per_sm_bytes") == smem_sm
        assert m.hardware("shared_alloc_unit_bytes") == unit
        assert m.hardware("reserved_shared_per_block_bytes") == reserved
    assert machines.get("H200").hardware("shared_per_block_bytes") == 227 * KIB
    assert machines.get("B200").hardware("shared_per_block_bytes") == 227 * KIB


def test_little_uses_the_same_register_rule():
    assert little.resident_warps("T4", 85) == 20
    assert little.resident_warps("H200", 40) == 48
    assert little.resident_warps("H200", 16) == 64          # the warp slots bind


@pytest.mark.parametrize("call, name", [
    (lambda: simt.occupancy_limits("H200", 256, 128), "registers_per_thread"),
    (lambda: simt.occupancy_limits("H200", 32, 2048), "block"),
    (lambda: simt.occupancy_limits("H200", 32, 128, 228 * KIB), "shared_bytes"),
    (lambda: simt.occupancy_limits("T4", 32, 128, -1), "shared_bytes"),
    (lambda: simt.occupancy_limits("CPU", 32, 128), "key"),
])
def test_bad_input_names_the_problem(call, name):
    with pytest.raises(ValueError, match=name):
        call()
