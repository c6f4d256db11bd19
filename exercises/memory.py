"""Numeric exercises of chapter 8, "The memory hierarchy and coalescing".

Every answer is computed by perfmodel here; tests/test_exercises_memory.py checks each
one against plain arithmetic from the T4 note's numbers.
"""
from __future__ import annotations

from perfmodel import _check, access, hierarchy, machines

from .registry import register

CHAPTER = "memory"

PARTICLES = 2 ** 26            # records in the structure-of-arrays exercise
PARTICLE_BYTES = 32            # eight FP32 fields: x, y, z, mass, vx, vy, vz, charge
TRANSPOSE_N = 8192
REUSE_MB, REUSE_PASSES = 2e6, 50      # a 2 MB (decimal) array, read 50 times
# The T4's staircase as the T4 note measured it (whole GPU, read bandwidth).
T4_STAIRCASE = machines.notes_t4()


SLICE_DEPTH = 8                # K_s: depth of the slices of A and B a tile step stages


def slice_bytes(tile: int, depth: int = SLICE_DEPTH, elem_bytes: float = 4.0,
                buffers: int = 2) -> float:
    """Shared memory a tile step's staged slices take: a T x K_s slice of A and a K_s x T
    slice of B, 2 T K_s s bytes, times ``buffers`` (two: the next pair loads while this one
    is used)."""
    tile = _check.count("tile", tile)
    depth = _check.count("depth", depth)
    elem_bytes = _check.positive("elem_bytes", elem_bytes)
    buffers = _check.count("buffers", buffers)
    return float(buffers * 2 * tile * depth * elem_bytes)


def largest_fp32_tile_t4() -> float:
    """memory-3: the colleague's budget, two square FP32 tiles (slices as deep as the tile)
    in the most shared memory a T4 block can have."""
    return hierarchy.largest_tile(machines.get("T4").hardware("shared_per_block_bytes"),
                                  elem_bytes=4)


# memory-3's thin-slice tile on a T4: edge, threads a block, registers besides the sums.
T4_TILE, T4_TILE_BLOCK, T4_TILE_OTHER_REGS = 128, 256, 40


def t4_tile_sum_registers() -> float:
    """Registers a thread for its share of the T x T FP32 running sums (4 bytes each)."""
    return hierarchy.tile_bytes(T4_TILE, 4, tiles=1) / 4 / T4_TILE_BLOCK


def t4_tile_registers() -> int:
    """Registers a thread of memory-3's tile kernel: its running sums plus the rest."""
    return int(t4_tile_sum_registers()) + T4_TILE_OTHER_REGS


def b200_bf16_ridge_tile() -> float:
    """memory-4: the smallest BF16 tile edge whose T/2 reaches the B200's BF16 ridge."""
    return hierarchy.tile_for_intensity(machines.get("B200").ridge("bf16_tensor"), elem_bytes=2)


def h200_stride4_dram() -> float:
    return hierarchy.strided_bandwidth(machines.get("H200").bandwidth("dram"), 4, 4, piece=64)


POSITION = [0, 4, 8]           # memory-6: x, y, z, the first three fields of each record


def aos_position_time() -> float:
    """memory-6: an A100 reading x, y and z of every particle stored as 32-byte records."""
    moved = hierarchy.struct_bytes_moved(PARTICLES, PARTICLE_BYTES, POSITION, layout="aos")
    return moved / machines.get("A100").bandwidth("dram")


def transpose_naive_over_tiled(elem_bytes: int = 1) -> float:
    """memory-7: naive over tiled transpose traffic, one-byte (FP8) elements by default."""
    return (hierarchy.transpose_bytes(TRANSPOSE_N, elem_bytes, piece=32, tiled=False)
            / hierarchy.transpose_bytes(TRANSPOSE_N, elem_bytes, piece=32, tiled=True))


GATHER_VALUE = 8                  # memory-8: FP64 values (the chapter works FP32)


def gather_slowdown() -> float:
    # out[i] = x[idx[i]] in FP64: the 4-byte index read and the 8-byte store are in order.
    return 1 / hierarchy.gather_fraction(value_bytes=GATHER_VALUE, index_bytes=4, piece=64,
                                         store_bytes=GATHER_VALUE)


def l2_reuse_time() -> float:
    return REUSE_PASSES * REUSE_MB / T4_STAIRCASE.bandwidth("l2")


GROWN_BYTES, GROWN_FIELDS = 40, [0, 4, 8]  # memory-10: a 40-byte record, its x, y and z


def grown_record_aos_over_soa() -> float:
    """AoS over SoA traffic for x, y and z (bytes 0 to 11) of 40-byte records."""
    return (hierarchy.struct_bytes_moved(PARTICLES, GROWN_BYTES, GROWN_FIELDS, layout="aos")
            / hierarchy.struct_bytes_moved(PARTICLES, GROWN_BYTES, GROWN_FIELDS, layout="soa"))


MISALIGN_BYTES = 48           # memory-1: a warp's 32 BF16 values start 48 bytes past a line
MISALIGN_ELEM = 2             # memory-1: bytes a BF16 value
PADDED_ROW = 72               # memory-2: a 64 x 64 float tile, rows padded to 72 words

register("memory-1", CHAPTER,
         "A warp reads 32 consecutive BF16 values that start 48 bytes past a 128-byte line "
         "boundary: share of the moved bytes that is useful, in percent.",
         lambda: 100 * access.contiguous_useful_fraction(MISALIGN_BYTES, MISALIGN_ELEM),
         unit="%", hint="The warp asks for bytes 48 to 111; which 32-byte sectors hold them?")
register("memory-2", CHAPTER,
         "Passes a warp needs to read 32 entries of one column of a 64 x 64 FP32 tile in "
         "shared memory whose rows are padded to 72 words (32 banks of 4 bytes).",
         lambda: float(access.padded_column_ways(PADDED_ROW)), unit="passes",
         hint="Lane k reads word 72k, in bank 72k mod 32 = 8k mod 32.")
register("memory-3", CHAPTER,
         "The largest edge T of two square FP32 tiles that fit in 64 KiB of shared memory "
         "(the colleague's budget).",
         largest_fp32_tile_t4, unit="elements",
         hint="2 x T^2 x 4 bytes <= 65,536 bytes; take the whole number below the root.")
register("memory-4", CHAPTER,
         "The smallest tile edge T whose BF16 step intensity T/2 reaches the B200's dense "
         "BF16 tensor-core ridge (2.25 PFLOP/s over 8 TB/s).",
         b200_bf16_ridge_tile, unit="elements",
         hint="The ridge is about 281 FLOP/byte; T/2 must reach it.")
register("memory-5", CHAPTER,
         "Useful bandwidth on an H200 when a warp reads FP32 values 4 elements apart from "
         "DRAM (64-byte bursts, 4.8 TB/s), in byte/s.",
         h200_stride4_dram, unit="byte/s",
         hint="32 lanes x 16 bytes apart span 512 bytes: 8 bursts for 128 useful bytes.")
register("memory-6", CHAPTER,
         "Time on an A100 (2.039 TB/s) to read x, y and z of 2^26 particles stored as an "
         "array of 32-byte structures, in seconds.",
         aos_position_time, unit="s",
         hint="x, y and z share one 32-byte sector per particle: 32 bytes moved each.")
register("memory-7", CHAPTER,
         "Bytes moved by a naive 8192 x 8192 FP8 transpose (coalesced reads, column-wise "
         "writes, 32-byte sectors, nothing merged) over those of a tiled one.",
         transpose_naive_over_tiled, unit="x",
         hint="Naive: 1 byte read + one 32-byte sector written per element; tiled: 1 + 1.")
register("memory-8", CHAPTER,
         "Predicted slowdown of a random FP64 gather out[i] = x[idx[i]] from DRAM (64-byte "
         "bursts) against the same kernel with the indices in order, counting the 4-byte "
         "index, the 8-byte value and the 8-byte store as useful.",
         gather_slowdown, unit="x",
         hint="Moved: 4 index bytes + a 64-byte burst per value + 8 stored. Useful: 20.")
register("memory-9", CHAPTER,
         "On a T4, time for 50 passes over a 2 MB array that stays in the L2 (1.1 TB/s), in "
         "seconds.",
         l2_reuse_time, unit="s",
         hint="50 x 2 MB at 1.1 TB/s.")
register("memory-10", CHAPTER,
         "Bytes moved to read x, y and z (bytes 0 to 11) of 40-byte records as an array of "
         "structures over those as a structure of arrays.",
         grown_record_aos_over_soa, unit="x",
         hint="Record r starts 8r mod 32 bytes into a sector; at 24 its 12 bytes straddle "
              "two. Count the sectors a warp's 32 records touch.")
