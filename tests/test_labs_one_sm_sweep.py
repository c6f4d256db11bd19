"""The one-SM sweep's points (labs.littles_law.one_sm_rows), with a stand-in streamer that
fits a given number of warps: the sweep reaches 16 loads a thread with plain loads, stops at
the first point that does not fit and says so."""
from labs import littles_law


class FakeStreamer:
    def __init__(self, pipelined, fits):
        self.pipelined, self.fits, self.calls = pipelined, fits, []

    def time(self, ilp, blocks, tpb, repeats):
        assert blocks == 1                       # every warp in one block: one SM
        self.calls.append((ilp, tpb // 32))
        if tpb // 32 > self.fits.get(ilp, 32):
            return {"skipped": "does not fit"}
        return {"seconds": 1.0, "bytes": 1.0, "bandwidth": float(ilp * tpb), "iters": 1}


def test_the_sweep_passes_128_kib_with_plain_loads():
    batch = FakeStreamer(False, {16: 20})        # 96 registers: 20 warps fit
    pipe = FakeStreamer(True, {8: 16})
    rows = littles_law.one_sm_rows([pipe, batch], 64, repeats=1)
    meas = [r for r in rows if r["experiment"] == "one_sm"]
    assert {r["loads_per_thread"] for r in meas if r["kernel"] == "batch"} == {4, 8, 16}
    assert {r["loads_per_thread"] for r in meas if r["kernel"] == "pipelined"} == {4, 8}
    top = max(r["bytes_in_flight"] for r in meas)
    assert top == 20 * 32 * 16 * 16 > 128 * 1024          # 160 KiB in flight
    skipped = [r for r in rows if r["experiment"] == "skipped"]
    assert {(r["kernel"], r["loads_per_thread"], r["warps"]) for r in skipped} == {
        ("batch", 16, 24), ("pipelined", 8, 20)}
    # after a point that does not fit, no bigger one is tried
    assert (16, 32) not in batch.calls and (8, 24) not in pipe.calls


def test_the_block_never_exceeds_the_sms_warps_or_1024_threads():
    s = FakeStreamer(False, {})
    littles_law.one_sm_rows([s], 16, repeats=1)
    assert max(w for _, w in s.calls) == 16
    s = FakeStreamer(False, {})
    littles_law.one_sm_rows([s], 64, repeats=1)
    assert max(w for _, w in s.calls) == 32
