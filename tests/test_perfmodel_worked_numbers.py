"""The source notes' worked numbers. Every expected value is the notes' own figure or
plain arithmetic on the notes' inputs, never a number copied from perfmodel."""
import math

import pytest

from perfmodel import little, machines, ops, parallel, roofline, softmax, waves

approx = pytest.approx


def test_t4_ridge_is_about_25():
    # 000: 8.1e12 FLOP/s / 320e9 B/s ~ 25 FLOP/byte
    assert machines.get("T4").ridge("fp32") == approx(8.1e12 / 320e9)
    assert round(machines.get("T4").ridge("fp32")) == 25


def test_t4_ridge_with_measured_roofs_is_about_30():
    # 003: measured 6.8 TFLOP/s FMA and 230 GB/s -> "about 30"
    m = machines.measured("T4 measured", {"fp32": 6.8e12}, {"dram": 230e9}, source="notes")
    assert m.ridge("fp32") == approx(29.6, abs=0.1)
    assert round(m.ridge("fp32") / 10) * 10 == 30


def test_t4_peak_from_the_hardware_table():
    # 003: 40 SMs x 64 lanes x 2 x 1.59 GHz = 8.14 TFLOP/s
    t4 = machines.get("T4")
    assert t4.sms * t4.fp32_lanes_per_sm * 2 * t4.clock_hz == approx(8.14e12, rel=1e-3)


def test_hopper_ridges():
    # 003 table / H200.md: H100 989/3.35 ~ 295, H200 989/4.8 ~ 206 FLOP/byte (dense FP16/BF16)
    assert machines.get("H100").ridge("bf16_tensor") == approx(295, abs=1)
    assert machines.get("H200").ridge("bf16_tensor") == approx(206, abs=1)
    assert machines.get("A100").ridge("fp16_tensor") == approx(153, abs=1)
    assert machines.get("T4").ridge("fp16_tensor") == approx(203, abs=1)


def test_blackwell_fp4_balance_about_1100():
    # 000: "Blackwell's matrix units need ~1,100 FLOPs per byte"
    assert machines.get("B200").ridge("fp4_tensor") == approx(1100, rel=0.05)


@pytest.mark.parametrize("op, expected", [
    (ops.vector_add(1 << 20), 1 / 12),
    (ops.saxpy(1 << 20), 1 / 6),
    (ops.square(1 << 20), 1 / 8),
    (ops.reduction(1 << 24), 0.25),
])
def test_streaming_intensities(op, expected):
    assert op.intensity == approx(expected, rel=1e-3)


def test_matmul_naive_and_perfect():
    assert ops.matmul(4096, reuse="none").intensity == approx(0.25, rel=1e-3)
    assert ops.matmul(4096, reuse="perfect").intensity == approx(4096 / 6)
    assert round(ops.matmul(4096, reuse="perfect").intensity) == 683
    assert ops.matmul(4096).flops == 2 * 4096 ** 3


def test_tile_intensity():
    # 002: I_tile = T/s = 8 at T = 32 in FP32
    assert ops.tile_intensity(32, "fp32") == 8
    assert ops.tile_intensity(32, "fp16") == 16


def test_attention_naive_and_flash():
    # 000: naive ~ d/5 (S >> d), flash S/4: 512 at S=2048, 64 at 256
    assert ops.attention(65536, 64).intensity == approx(64 / 5, rel=0.01)
    assert ops.attention(2048, 64, flash=True).intensity == approx(512)
    assert ops.attention(256, 64, flash=True).intensity == approx(64)
    assert ops.attention(2048, 64).flops == 4 * 2048 ** 2 * 64


def test_gelu_speed_of_light():
    # 000: 100M FP32 at 320 GB/s: 800 MB -> 2.5 ms; BF16 1.25 ms; AI ~1.9
    g = ops.gelu(100_000_000)
    assert g.bytes == 800e6
    assert g.intensity == approx(1.9, abs=0.05)
    assert roofline.time("T4", g) == approx(2.5e-3)
    assert roofline.time("T4", ops.gelu(100_000_000, "bf16")) == approx(1.25e-3)
    assert roofline.bound("T4", g) == "memory"


def test_skinny_gemm():
    # 000: A 16x4096 times B 4096x4096 -> AI ~ 8; batch 1 -> ~0.5
    assert ops.linear(16, 4096, 4096, "fp32").intensity == approx(8, rel=0.01)
    assert ops.linear(1, 4096, 4096, "fp32").intensity == approx(0.5, rel=0.01)
    # 003: FP16 linear layer, batch 1 -> intensity 1; batch 256 -> 228
    assert ops.linear(1, 4096, 4096, "fp16").intensity == approx(1, rel=0.01)
    assert ops.linear(256, 4096, 4096, "fp16").intensity == approx(228, abs=0.5)


def test_exp_and_conv_drill():
    # 000 drill: exp ~1.2; conv 3x3 naive 18/40 = 0.45, tiled 18/8 = 2.25
    assert ops.exp(1000).intensity == approx(1.2, abs=0.06)
    assert ops.conv3x3(1000).intensity == approx(0.45)
    assert ops.conv3x3(1000, reuse="tiled").intensity == approx(2.25)


def test_littles_law():
    # 000: T4 320 GB/s x 400 ns = 128 KB; H100 3350 GB/s x 600 ns ~ 2 MB
    assert little.bytes_in_flight(320e9, 400e-9) == approx(128_000)
    assert little.bytes_in_flight(3.35e12, 600e-9) == approx(2.0e6, rel=0.01)
    # 000: one outstanding 4-byte load per thread -> 32,000 threads on the T4
    assert little.threads_needed(320e9, 400e-9, 4) == approx(32_000)
    # 003: 314 ns x 275 GB/s ~ 85 KB; one warp with 16 B per thread gets ~1.6 GB/s
    assert little.bytes_in_flight(275e9, 314e-9) == approx(85e3, rel=0.02)
    assert little.achieved_bandwidth(512, 314e-9, 275e9) == approx(1.6e9, rel=0.03)


def test_amdahl_and_gustafson():
    # 004: f = 10/110 -> at most 11x; f = 0.02 -> 50x; Amdahl limit is 1/f
    f = parallel.serial_fraction(10e-6, 100e-6)
    assert f == approx(10 / 110)
    assert parallel.amdahl(f, math.inf) == approx(11)
    assert parallel.amdahl(0.02, math.inf) == approx(50)
    assert parallel.amdahl(0.25, 1e12) == approx(4, rel=1e-6)
    # Gustafson: s + (1 - s) p, e.g. s = 0.05 on 100 units -> 95.05
    assert parallel.gustafson(0.05, 100) == approx(0.05 + 0.95 * 100)
    assert parallel.efficiency(8, 16) == 0.5


def test_tiles_and_waves():
    # 002: 256x128 tiles: 1792^2 -> 7 x 14 = 98 tiles, 1793^2 -> 8 x 15 = 120; 108 SMs
    assert waves.tiles(1792, 1792, 256, 128) == 98
    assert waves.tiles(1793, 1793, 256, 128) == 120
    assert waves.waves(98, 108) == 1
    assert waves.waves(120, 108) == 2
    assert waves.last_wave_utilization(120, 108) == approx(12 / 108)


def test_three_score_softmax_example():
    # 002: scores (0, ln2, ln3), values (1, 4, 2): output 2.5; tile of two: m=ln2, l=1.5, u=4.5
    s, v = [0.0, math.log(2), math.log(3)], [1.0, 4.0, 2.0]
    assert softmax.direct(s, v) == approx(2.5)
    a = softmax.state(s[:2], v[:2])
    assert (a.m, a.l, a.u) == (approx(math.log(2)), approx(1.5), approx(4.5))
    b = softmax.state(s[2:], v[2:])
    assert (b.m, b.l, b.u) == (approx(math.log(3)), approx(1.0), approx(2.0))
    m, alpha, beta = softmax.factors(a, b)
    assert (alpha, beta) == (approx(2 / 3), approx(1.0))
    merged = softmax.merge(a, b)
    assert (merged.l, merged.u) == (approx(2.0), approx(5.0))
    assert softmax.online(s, v, tile=2) == approx(2.5)


def test_fusion_byte_counts():
    # 002: sin^2 + cos^2: 11n element transfers (44n bytes) unfused, 2n (8n bytes) fused
    n = 1000
    assert ops.sin2_cos2(n, fused=False).bytes == 44 * n
    assert ops.sin2_cos2(n, fused=True).bytes == 8 * n
    # 003: relu(x*1.5+0.5) in FP16: 12 bytes per element unfused, 4 fused
    assert ops.scale_shift_relu(n, fused=False).bytes == 12 * n
    assert ops.scale_shift_relu(n, fused=True).bytes == 4 * n


def test_thirty_elementwise_ops_exercise():
    # 000 ex. 2.6: 30 ops on 10 GB at 2 TB/s: 30 x 20 GB / 2e12 = 0.3 s unfused, 20 GB -> 10 ms fused
    gpu = machines.measured("2 TB/s GPU", {"fp32": 100e12}, {"dram": 2e12}, source="exercise")
    n = int(10e9 / 4)
    assert roofline.time(gpu, ops.repeated_elementwise(n, 30, fused=False)) == approx(0.3)
    assert roofline.time(gpu, ops.repeated_elementwise(n, 30, fused=True)) == approx(0.01)


def test_layernorm_exercise():
    # 000 ex. 2.3: B=8192, H=4096 FP32; 3 passes + write = 4 x 134 MB; Welford 3 x 134 MB
    x = 8192 * 4096 * 4
    assert ops.layernorm(8192, 4096, passes=3).bytes == 4 * x
    assert ops.layernorm(8192, 4096, passes=2).bytes == 3 * x


def test_stencil_exercise():
    # 000 ex. 2.1: 5 FLOPs; naive 6 x 4 B = 24 B, perfect reuse 8 B; both memory-bound on a T4
    naive, perfect = ops.stencil5(1 << 20), ops.stencil5(1 << 20, reuse="perfect")
    assert naive.intensity == approx(5 / 24)
    assert perfect.intensity == approx(5 / 8)
    assert roofline.time("T4", naive) / roofline.time("T4", perfect) == approx(3)


def test_ridge_exercise_2_2():
    # 000 ex. 2.2: 19.5 TFLOP/s, 900 GB/s -> ridge 21.7; AI 4 -> ceiling 3.6 TFLOP/s
    gpu = machines.measured("ex 2.2", {"fp32": 19.5e12}, {"dram": 900e9}, source="exercise")
    assert gpu.ridge() == approx(21.67, abs=0.01)
    assert roofline.attainable(gpu, 4) == approx(3.6e12)


def test_paradox_model_predictions():
    # 003: large adds memory-bound on both: 230 / 23 = 10x; large matmuls 6.8 / 0.215 ~ 32x
    gpu = machines.measured("T4 measured", {"fp32": 6.8e12}, {"dram": 230e9}, source="notes")
    cpu = machines.get("CPU")
    add = ops.vector_add(268_000_000)
    assert roofline.time(cpu, add) / roofline.time(gpu, add) == approx(10)
    mm = ops.matmul(4096)
    assert roofline.time(cpu, mm) / roofline.time(gpu, mm) == approx(6.8 / 0.215)
    # 003: pinned best case 3.2 GB over 12.3 GB/s = 0.26 s
    pcie = ops.pcie_round_trip_bytes(268_000_000, inputs=2, outputs=1)
    assert pcie == approx(3.2e9, rel=0.01)
    assert pcie / machines.get("T4").bandwidth("pcie") == approx(0.26, abs=0.01)


def test_t4_clock_scaled_peaks():
    # 003: at 1365 MHz the T4's peak is 7.0 TFLOP/s; at 705 MHz, 3.61
    t4 = machines.get("T4")
    assert t4.with_clock(1365e6).peak_flops("fp32") == approx(7.0e12, rel=0.01)
    assert t4.with_clock(705e6).peak_flops("fp32") == approx(3.61e12, rel=0.01)
