"""Chapter 6's numeric answers against plain arithmetic from the source notes' numbers and
the numbers the questions give (nothing here calls perfmodel: each value is worked by hand)."""
from exercise_checks import chapter_checks

EXPECTED = {
    # ceil(10,000,000 / 512) = 19,532 blocks, each 512 / 32 = 16 warps.
    "simt-1": 19532 * 16,
    # 48 threads fill two warps: 48 of 64 lanes.
    "simt-2": 100 * 48 / 64,
    # mixed warps issue 100 + 40 = 140; sorted warps 0.25 x 100 + 0.75 x 40 = 55.
    "simt-3": 140 / 55,
    # useful 55 of 140 lane slots.
    # the first 2^20 / 16 = 65,536 threads are busy: 2,048 of the 32,768 warps
    "simt-4": 100 * 2048 / 32768,
    # one busy in 1,024: 32 / 1,024 of the warps hold a busy lane.
    "simt-5": 100 * 32 / 1024,
    # the notes' floor: 20,000 dependent multiply-adds x 3.5 ns.
    # 8,192 steps x 4 cycles / 1.5 GHz = 21.85 us
    "simt-6": 8192 * 4 / 1.5e9,
    # 1 - 0.995^32 of the warps hold a lane on the rare path.
    "simt-7": 100 * (1 - 0.995 ** 32),
    # random: 20 x (1 - 0.005^32) + 200 x (1 - 0.995^32); sorted: 0.005 x 200 + 0.995 x 20 = 20.9.
    "simt-8": (20 * (1 - 0.005 ** 32) + 200 * (1 - 0.995 ** 32)) / 20.9,
    # (31 x 100 + 1,000) useful of 32 x 1,000 lane-iterations.
    "simt-9": 100 * (31 * 100 + 1000) / (32 * 1000),
    # 65,536 / (96 x 256) = 2.67 -> 2 blocks = 512 of 1,024 threads.
    "simt-10": 100 * 512 / 1024,
    # 65,536 / (40 x 128) = 12.8 -> 12 blocks of 128 = 1,536 of 2,048 threads.
    "simt-11": 100 * 1536 / 2048,
    # 2 x 200 + 14 x 40 = 960 of 16 x 200 = 3,200 warp-slots between barriers.
    "simt-13": 100 * 960 / 3200,
}


ROUNDED = [  # answers rounded as a reader would give them: right
    ("simt-1", 312_512),
    ("simt-3", 2.55),
    ("simt-4", 6.3),
    ("simt-5", 3.125),
    ("simt-6", 21.8e-6),
    ("simt-7", 14.8),
    ("simt-8", 2.38),
    ("simt-9", 12.8),
    ("simt-10", 50),
    ("simt-11", 75),
    ("simt-13", 30),
]
OFF = [  # wrong answers: not yet
    ("simt-5", 100 / 1024),
    ("simt-4", 100),                        # every 16th thread: every warp stays busy
    ("simt-6", 8192 * 4 / 1.5e9 / 4096),    # the chain shared out over the idle threads
    ("simt-10", 100 * 682 / 1024),
    ("simt-13", 100 * 960 / (16 * 40)),     # slots counted at the fast warps' length
]

(test_every_exercise_is_checked, test_answer_matches_hand_arithmetic,
 test_checker_verdicts) = chapter_checks(
    "simt", EXPECTED, rounded=ROUNDED, off=OFF)


def test_occupancy_solution_figures():
    """The figures simt-10's and simt-11's solutions add beside the registered answers."""
    from perfmodel import simt

    # simt-10: three blocks of 256 on a T4 leave 65,536 // 768 = 85 registers a thread by
    # plain division; registers come in 256s a warp (multiples of 8 a thread), so 80 is the
    # most: 80 x 32 = 2,560 a warp, 16,384 // 2,560 = 6 warps a quarter, 24 warps, 3 blocks.
    assert 65_536 // (3 * 256) == 85
    assert simt.occupancy("T4", 80, 256) == 768 / 1024
    assert simt.occupancy("T4", 81, 256) == 512 / 1024   # 2,592 -> 2,816: 5 a quarter
    assert simt.occupancy("T4", 85, 256) == 512 / 1024
    # simt-11 in blocks of 64: 40 x 32 = 1,280 a warp, 16,384 // 1,280 = 12 a quarter,
    # 48 warps = 24 blocks of 2 warps, 1,536 of 2,048 threads (plain division said 25).
    assert simt.resident_threads("H200", 40, 64) == 24 * 64
    assert simt.occupancy("H200", 40, 64) == 1536 / 2048
