"""Chapter 8's numeric answers against plain arithmetic from the T4 note's numbers
(nothing here calls perfmodel: each expected value is worked by hand)."""
import math

from pytest import approx

from exercise_checks import chapter_checks

KB, MB = 1024, 1024 ** 2
H200_BW = 4.8e12              # H200 datasheet HBM3e, byte/s
H200_BF16 = 989e12            # H200 dense BF16 tensor cores, FLOP/s

EXPECTED = {
    # bytes 4 .. 131 lie in sectors 0 .. 4 (0-31, 32-63, 64-95, 96-127, 128-159): 128 of 160.
    # 32 BF16 values at bytes 48..111: sectors 32-63, 64-95, 96-127, so 64 of 96 bytes useful
    "memory-1": 100 * 64 / 96,
    # lane k reads word 72k, bank 8k mod 32: 4 banks, 8 lanes each -> 8 passes.
    "memory-2": 8,
    # The colleague's square tiles in 64 KiB (CUDA guide, cc 7.5), FP32:
    # 2 x T^2 x 4 <= 65,536 -> T^2 <= 8,192 -> T = 90 (90^2 = 8,100; 91^2 = 8,281).
    "memory-3": 90,
    # B200 ridge 2.25e15 / 8e12 = 281.25 FLOP/B; T/2 >= 281.25 -> T >= 562.5 -> 563.
    "memory-4": 563,
    # stride 4: 32 lanes x 16 B = 512 B = 8 bursts of 64 B for 128 useful B -> 1/4 of 4.8 TB/s.
    "memory-5": H200_BW * 128 / 512,
    # x, y, z (bytes 0-11) in one 32-byte sector per particle: 2^26 x 32 B at 2.039 TB/s.
    "memory-6": 2 ** 26 * 32 / 2.039e12,
    # FP8: naive (1 + 32) B per element, tiled (1 + 1) B: 33 / 2.
    "memory-7": 33 / 2,
    # in order: 4 + 4 + 4 = 12 B moved and useful; random: 4 + 64 + 4 = 72 B moved: 72 / 12.
    # FP64: (4 + 64 + 8) moved for (4 + 8 + 8) useful.
    "memory-8": 76 / 20,
    # 50 x 2 MB at 1.1 TB/s (the source notes' measured T4 L2).
    "memory-9": 50 * 2e6 / 1.1e12,
    # 40-byte records, x, y, z = bytes 40r .. 40r+11. 40r mod 32 = 8r mod 32: 0, 8, 16, 24.
    # At 24 the 12 bytes run into the next sector, so 4 records touch 5 sectors and a warp's
    # 32 records all 40 sectors of their 1,280 bytes: AoS 40 B per particle; SoA 3 x 4 = 12 B.
    "memory-10": 40 / 12,
}


ROUNDED = [  # answers rounded as a reader would give them: right
    ("memory-1", 67),
    ("memory-3", 90),
    ("memory-5", 1.2e12),
    ("memory-6", 1.05e-3),
    ("memory-8", 3.8),
    ("memory-10", 3.3),
]
OFF = [  # wrong answers: not yet
    ("memory-7", 4.5),       # the FP32 ratio
    ("memory-7", 8.5),       # FP16
    ("memory-3", 128),       # FP16 square tiles (and the thin-slice tile's edge)
    ("memory-6", 2 ** 26 * 12 / 2.039e12),   # only the 12 useful bytes
    ("memory-8", 68 / 8),     # the lab's gather, without the store
    ("memory-8", 6),          # the FP32 gather the chapter works, not the FP64 one
    ("memory-2", 32),         # the unpadded tile
    ("memory-2", 2),          # the text's 34-word rows, not these
    ("memory-10", 32 / 12),   # the aligned 32-byte record's ratio, not the 40-byte one
]

(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "memory", EXPECTED, rounded=ROUNDED, off=OFF)


def test_worked_numbers_of_the_chapter():
    # Seed 003: in order 240 GB/s, gathered 14 GB/s on the T4: about 17 times slower.
    assert 240 / 14 == approx(17, rel=0.01)
    # Seed 003's staircase: L1 about 14x DRAM (3.9 / 0.27), L2 about 4x (1.1 / 0.27).
    assert round(3.9 / 0.27) == 14 and round(1.1 / 0.27) == 4
    # The chapter divides by the note's unrounded 275 GB/s read (as chapter 7 does): the same
    # ratios at the precision it prints them.
    assert round(3.9 / 0.275) == 14 and round(1.1 / 0.275) == 4
    from exercises.latency import T4_READ_BW
    assert T4_READ_BW == 275e9
    # Seed 002: a 32 x 32 FP32 tile reaches T/s = 8 FLOP/byte.
    assert 32 / 4 == 8
    assert math.isqrt(49152 // 8) == 78
    # The lab's gather sums the values (no store): 4 + 64 = 68 B moved for 8 useful.
    assert 68 / 8 == 8.5


def test_memory_10_by_enumerating_sectors():
    # Every 32-byte sector that one warp's x, y, z reads (bytes 40r .. 40r+11, r < 32) touch.
    touched = {b // 32 for r in range(32) for b in range(40 * r, 40 * r + 12)}
    assert len(touched) == 40                    # all 40 sectors of the warp's 1,280 bytes
    straddle = [r for r in range(32) if (40 * r) // 32 != (40 * r + 11) // 32]
    assert len(straddle) == 8 and all((40 * r) % 32 == 24 for r in straddle)
    aos_per_particle = len(touched) * 32 / 32
    soa_per_particle = 3 * 4                     # three contiguous arrays, nothing wasted
    from exercises import answer
    assert answer("memory-10") == approx(aos_per_particle / soa_per_particle)
    # against the aligned 32-byte record read for 12 bytes: 32 / 12
    assert aos_per_particle / soa_per_particle == approx(10 / 3)
    assert 32 / 12 == approx(8 / 3)


def test_memory_3_thin_slice_tile_on_a_t4():
    # T = 128, K_s = 8, two buffers: 2 x 2 x 128 x 8 x 4 B = 16 KiB of shared memory.
    from exercises import memory
    assert memory.slice_bytes(128, 8, 4) == 2 * 2 * 128 * 8 * 4 == 16 * 1024
    # 128^2 FP32 sums over 256 threads: 64 registers each; with 40 more, 104.
    assert memory.t4_tile_sum_registers() == 128 * 128 / 256 == 64
    assert memory.t4_tile_registers() == 104
    # 65,536 registers / (104 x 256) = 2.46 -> 2 blocks; T/4 = 32 > 8.1e12 / 320e9 = 25.3.
    assert 65536 // (104 * 256) == 2
    assert 128 / 4 > 8.1e12 / 320e9
