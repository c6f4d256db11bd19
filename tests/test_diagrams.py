"""The diagrams (widgets/diagrams): every one builds for every machine it can draw, and
what it draws (SMs, lanes, warps, sectors, lines, tiles, waves, bytes, passes) is what
the model says, read back from the figure's shapes, annotations and traces, at every
dropdown choice and every slider step the static figure carries, and compared with
numbers computed here from the machine's figures (never with the diagram's own sums).
Each diagram has a caption and a description, and nothing moves by itself."""
from __future__ import annotations

import copy
import math
import re

import numpy as np
import pytest

from perfmodel import hierarchy, machines, simt, softmax, units, waves
from widgets import diagrams
from widgets.diagrams._base import count_boxes

NAMES = [n for n, _ in diagrams.DIAGRAMS]


def _set(trace: dict, key: str, value) -> None:
    *head, last = key.split(".")
    for k in head:
        trace = trace.setdefault(k, {})
    trace[last] = value


def frames(view):
    """(settings, data, layout) for every dropdown choice and every step of the slider,
    as the static figure holds them: a dropdown entry's figure, restyled by each step."""
    for s in view._combos():
        data, sliders, layout, _ = view._state(s)
        if not sliders:
            yield s, copy.deepcopy(data), layout
            continue
        assert len(sliders) == 1, f"{view.name}: one step slider at most"
        sl = sliders[0]
        control = next(c for c in view.sliders() if c.name == sl["name"])
        values = control.choices(s)
        for step in sl["steps"]:
            d = copy.deepcopy(data)
            upd, idx = step["args"]
            for key, vals in upd.items():
                for j, v in zip(idx, vals):
                    _set(d[j], key, v)
            yield {**s, sl["name"]: values[int(step["value"])]}, d, layout


def shapes(layout, name):
    return [sh for sh in layout.get("shapes", []) if sh.get("name") == name]


def note(layout, name):
    hits = [a["text"] for a in layout.get("annotations", []) if a.get("name") == name]
    assert hits, f"no annotation {name!r}"
    return hits[0]


def trace(data, name):
    hits = [t for t in data if t.get("name") == name]
    assert len(hits) == 1, f"no trace {name!r}"
    return hits[0]


def counter(data) -> str:
    return trace(data, "counters")["text"][0]


def number_in(text: str, before: str) -> float:
    """The number written just before ``before`` in text ("384 bytes" -> 384)."""
    m = re.search(r"([\d,.]+)\s*" + re.escape(before), text)
    assert m, f"no number before {before!r} in {text!r}"
    return float(m.group(1).replace(",", ""))


def gpus(*need):
    """Machine names, with whether the machine has every fact in need."""
    out = []
    for n in machines.names():
        m = machines.get(n)
        has = all(bool(getattr(m, k, 0)) if hasattr(m, k) else k in m.extra for k in need)
        out.append((n, has))
    return out


# --- machine diagrams: built for every machine, or refused for what the machine lacks --

@pytest.mark.parametrize("name, need", [
    ("transistor_bets", ("sms", "fp32_lanes_per_sm", "clock_hz")),
    ("sm_anatomy", ("sms", "fp32_lanes_per_sm")),
    ("launch_ladder", ("sms", "fp32_lanes_per_sm")),
    ("warp_slots", ("sms", "max_threads_per_sm")),
    ("memory_staircase", ("sms",)), ("pcie_path", ("sms",)), ("waves_over_sms", ("sms",)),
    ("peak_product", ("sms", "fp32_lanes_per_sm", "clock_hz")), ("two_budgets", ())])
def test_every_machine_is_drawn_or_refused_for_what_it_lacks(name, need):
    for machine, has in gpus(*need):
        make = getattr(diagrams, name)
        if not has:
            with pytest.raises(ValueError, match=machine):
                make(machine)
            continue
        view = make(machine)
        assert view.initial()["machine"] == machine
        view.static_figure()       # every dropdown entry and step computes


def test_sms_and_lanes_are_the_machines():
    for machine, has in gpus("sms", "fp32_lanes_per_sm", "clock_hz"):
        if not has:
            continue
        m = machines.get(machine)
        for view in (diagrams.transistor_bets(machine), diagrams.sm_anatomy(machine),
                     diagrams.launch_ladder(machine)):
            for s, data, lay in frames(view):
                if s["machine"] != machine:
                    continue
                if view.name == "sm-anatomy":
                    assert len(shapes(lay, "lane")) == m.fp32_lanes_per_sm
                    assert len(shapes(lay, "scheduler")) == 4
                else:
                    assert len(shapes(lay, "sm")) == m.sms, (view.name, machine)
    bets = diagrams.transistor_bets("T4")
    # the FLOP a cycle beside "40 SMs x 64 lanes" is their product x 2, not 8.1 T / 1.59 G
    assert note(bets.full_layout(bets.initial()), "gpu-per-cycle") == "5,120 FLOP per cycle"
    assert note(bets.full_layout({"machine": "H200"}), "gpu-per-cycle") == \
        f"{132 * 128 * 2:,} FLOP per cycle"
    t4, h200 = diagrams.sm_anatomy("T4"), diagrams.sm_anatomy("H200")
    assert len(shapes(t4.full_layout(t4.initial()), "lane")) == 64      # Turing: 64 lanes
    assert len(shapes(h200.full_layout(h200.initial()), "lane")) == 128  # Hopper: 128
    assert len(shapes(h200.full_layout(h200.initial()), "lane")) != \
        len(shapes(t4.full_layout(t4.initial()), "lane"))


def test_a_block_is_its_warps_and_a_warp_32_lanes():
    view = diagrams.launch_ladder("T4", n=10 ** 6)
    for s, _data, lay in frames(view):
        assert len(shapes(lay, "warp")) == -(-s["block"] // 32)
        assert len(shapes(lay, "lane")) == 32
        blocks = -(-10 ** 6 // s["block"])
        assert f"{blocks:,} blocks" in note(lay, "label") or any(
            f"{blocks:,} blocks" in a["text"] for a in lay["annotations"])


def test_warp_slots_fill_as_littles_law_says():
    for machine, has in gpus("sms", "max_threads_per_sm"):
        if not has:
            continue
        m = machines.get(machine)
        view = diagrams.warp_slots(machine, latency_ns=400)
        for s, data, lay in frames(view):
            if s["machine"] != machine:
                continue
            slots = int(m.extra["max_threads_per_sm"]) // 32
            assert len(shapes(lay, "warp-slot")) == slots
            need = m.bandwidth("dram") * 400e-9 / (32 * 4 * s["loads"]) / m.sms
            assert count_boxes(trace(data, "warps waiting")) == min(slots, math.ceil(need - 1e-9))


def _bytes(text: str) -> float:
    m = re.match(r"([\d.]+) (KiB|MiB|GB)", text)
    assert m, text
    return float(m.group(1)) * {"KiB": 2 ** 10, "MiB": 2 ** 20, "GB": 1e9}[m.group(2)]


def test_the_staircase_sizes_are_the_machines():
    for machine, has in gpus("sms"):
        if not has:
            continue
        m = machines.get(machine)
        lat = {machine: {"dram": 337e-9}}
        view = diagrams.memory_staircase(machine, latencies=lat)
        lay = view.full_layout(view.initial())
        want = {"registers": m.extra.get("registers_per_sm_bytes", 0) * m.sms,
                "l1": m.extra.get("l1_shared_per_sm_bytes", 0) * m.sms,
                "l2": m.extra.get("l2_bytes", 0), "dram": m.memory_bytes}
        for level, size in want.items():
            text = note(lay, f"capacity-{level}")
            if size:
                assert _bytes(text) == pytest.approx(size, rel=0.01), (machine, level, text)
            else:
                assert "not on record" in text
        # every GPU's DRAM figure is its datasheet's, and says so
        assert m.source("dram").startswith("NVIDIA") and "datasheet" in m.source("dram")
        assert note(lay, "bandwidth-dram") == f"{_si(m.bandwidth('dram'), 'B/s')} datasheet"
        assert note(lay, "latency-dram") == "337 ns measured"
        assert note(lay, "latency-l2") == "latency not measured"
        assert len(hierarchy.staircase(m)) == len([a for a in lay["annotations"]
                                                   if a["name"] == "level"])
        assert "n/a" not in " ".join(a["text"] for a in lay["annotations"])


def _si(value: float, unit: str) -> str:
    """Three significant figures with an SI prefix, worked here: 4.8e12 -> "4.8 TB/s",
    1.474e-7 -> "147 ns"."""
    prefixes = {-9: "n", -6: "µ", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P"}
    exp = max(e for e in prefixes if value >= 10.0 ** e)
    return f"{float(f'{value / 10.0 ** exp:.3g}'):g} {prefixes[exp]}{unit}"


def test_the_staircase_draws_the_recorded_runs_as_measured():
    """The H200's recorded latency and coalescing runs (labs/results/H200), read here
    from the JSON, are on the staircase, marked measured; the T4's L1 and L2 are the T4
    note's measurements; a level with no record says so in words."""
    import json
    import pathlib

    from labs.readouts import staircase_figures

    res = pathlib.Path(__file__).resolve().parents[1] / "labs" / "results"
    chase = json.loads((res / "H200" / "latency.json").read_text())["summary"]["latency_ns"]
    reads = json.loads((res / "H200" / "coalescing.json").read_text())["summary"][
        "useful_bandwidth_by_stride"]
    view = diagrams.memory_staircase("H200", **staircase_figures())
    h200 = view.full_layout(view.initial())
    for level in ("l1", "l2", "dram"):
        assert note(h200, f"latency-{level}") == f"{_si(chase[level] * 1e-9, 's')} measured"
    assert note(h200, "latency-l2") == "147 ns measured"          # 147.4 ns in the JSON
    assert note(h200, "measured-bandwidth-l2") == f"{_si(reads['l2']['1'], 'B/s')} measured"
    assert note(h200, "measured-bandwidth-dram") == "4.3 TB/s measured"       # 4.296 TB/s in the JSON
    assert note(h200, "bandwidth-dram") == "4.8 TB/s datasheet"
    assert note(h200, "bandwidth-l1") == "bandwidth not measured"
    assert note(h200, "bandwidth-registers") == "read within the instruction"
    t4 = view.full_layout({"machine": "T4"})
    assert note(t4, "bandwidth-l1") == "3.9 TB/s measured"         # the T4 note's L1 stream
    assert note(t4, "bandwidth-l2") == "1.1 TB/s measured"
    assert note(t4, "latency-dram") == "314 ns measured"           # the T4 note's chase
    assert note(t4, "latency-l1") == "latency not measured"
    said = view.describe({"machine": "H200"})
    assert "latency 147 ns (measured)" in said and "bandwidth 4.8 TB/s (datasheet)" in said
    with pytest.raises(ValueError, match=r"latencies\['H200'\]\['l2'\]"):
        diagrams.memory_staircase("H200", latencies={"H200": {"l2": -1.0}})
    with pytest.raises(ValueError, match="bandwidths must map"):
        diagrams.memory_staircase("H200", bandwidths=[1.0])


def test_provenance_reads_the_figures_sources():
    from widgets.diagrams.memory import provenance

    t4, h200 = machines.get("T4"), machines.get("H200")
    assert provenance(h200.source("dram")) == "datasheet"       # "NVIDIA H200 SXM datasheet"
    assert provenance(t4.source("l2")) == "measured"            # the T4 note, measured
    assert provenance(h200.source("pcie")) == "nominal"         # "PCIe Gen5 x16, nominal"
    with pytest.raises(TypeError, match="source"):
        provenance(None)


@pytest.mark.parametrize("stride", [1, 2, 4, 8, 16, 32, "random"])
def test_sectors_and_lines_are_the_warps(stride):
    view = diagrams.sectors(stride)
    lay = view.full_layout(view.initial())
    addr = simt.lane_addresses(stride, 4)
    assert len(shapes(lay, "sector")) == len(set((addr // 32).tolist())) == simt.sectors(stride)
    assert len(shapes(lay, "line")) == len(set((addr // 128).tolist()))
    assert len(shapes(lay, "lane")) == 32
    if stride == 1:
        assert len(shapes(lay, "sector")) == 4       # 128 contiguous bytes: 4 sectors
    if stride in (8, 16, 32):
        assert len(shapes(lay, "sector")) == 32      # one sector per lane


def test_tiles_of_a_product():
    view = diagrams.tile_reuse(8)
    for s, _d, lay in frames(view):
        t = s["tile"]
        assert len(shapes(lay, "c-tile")) == (8 // t) ** 2
        # bytes: 2 n^3 / T loads and n^2 stores, 4 bytes each
        assert number_in(note(lay, "bytes"), "tiled") == (2 * 8 ** 3 / t + 8 ** 2) * 4


def test_waves_over_sms_are_the_models():
    for machine, has in gpus("sms"):
        if not has:
            continue
        sms = machines.get(machine).sms
        view = diagrams.waves_over_sms(machine)
        for s, data, _lay in frames(view):
            if s["machine"] != machine:
                continue
            tiles = math.ceil(s["n"] / 256) * math.ceil(s["n"] / 128)
            n_waves = math.ceil(tiles / sms)
            assert count_boxes(trace(data, "busy SMs")) == tiles
            assert count_boxes(trace(data, "busy SMs")) + count_boxes(trace(data, "idle SMs")) \
                == n_waves * sms
            assert len(trace(data, "waves")["text"]) == n_waves == waves.waves(tiles, sms)


def test_peak_product_multiplies_the_machines_figures():
    for machine, has in gpus("sms", "fp32_lanes_per_sm", "clock_hz"):
        if not has:
            continue
        m = machines.get(machine)
        view = diagrams.peak_product(machine)
        lay = view.full_layout(view.initial())
        values = [a["text"] for a in lay["annotations"] if a["name"] == "value"]
        assert values[:3] == [str(m.sms), str(m.fp32_lanes_per_sm), "2"]
        peak = m.sms * m.fp32_lanes_per_sm * 2 * m.clock_hz
        assert number_in(values[4], "TFLOP/s") == pytest.approx(peak / 1e12, rel=5e-3)


def test_pcie_path_counts_the_bytes_that_cross():
    n = 2 ** 28
    for machine, has in gpus("sms"):
        if not has:
            continue
        view = diagrams.pcie_path(machine, n)
        for s, _d, lay in frames(view):
            text = note(lay, "count")
            if s["where"] == "device":
                assert "nothing crosses" in text
            else:
                assert number_in(text, "GB cross") == pytest.approx(3 * n * 4 / 1e9, rel=5e-3)
                assert text.endswith(str({"pageable": 2, "pinned": 1}[s["where"]]))


# --- the stepped diagrams: each step's counters are what the mechanism gives ------------

@pytest.mark.parametrize("paths, split", [(1, "within"), (2, "within"), (4, "within"),
                                          (8, "within"), (4, "between")])
def test_branch_mask_passes_and_lane_slots(paths, split):
    body = 3
    view = diagrams.branch_mask(paths, split, body)
    steps = [(s, d) for s, d, _ in frames(view) if s["paths"] == paths and s["split"] == split]
    passes = paths if split == "within" else 1
    rows = 3 + passes * body
    assert len(steps) == rows
    s, data = steps[-1]
    z = np.array([[v if v is not None else -1 for v in row]
                  for row in trace(data, "active mask")["z"]])
    assert z.shape == (rows, 32)
    # every lane works in the 3 instructions outside the branch and in its own path's body
    assert int((z > 0).sum()) == 32 * (3 + body)
    assert number_in(counter(data), f"of {32 * rows}") == 32 * (3 + body)
    assert f"passes so far: {passes} of {passes}" in counter(data)
    assert simt.divergence_passes(paths, split) == passes
    for k, (s, d) in enumerate(steps, start=1):
        filled = [row for row in trace(d, "active mask")["z"] if row[0] is not None]
        assert len(filled) == k and f"issued): {k}<br>" in counter(d)


def test_latency_timeline_counts_loads_in_flight():
    for warps_, lat in [(1, 8), (4, 8), (8, 8), (12, 8), (12, 16)]:
        view = diagrams.latency_timeline(warps_, lat)
        for s, data, _lay in frames(view):
            if (s["warps"], s["latency_cycles"]) != (warps_, lat):
                continue
            t = s["step"]
            z = trace(data, "warp states")["z"]
            col = [row[t - 1] for row in z]
            flying = sum(v in (1, 2) for v in col)      # load issued or waiting
            assert number_in(counter(data), "bytes<br>") == flying * 32 * 4
            issued = sum(any(row[c] in (1, 3) for row in z) for c in range(t))
            assert f"busy {issued} of {t} cycles" in counter(data)
            # one instruction per cycle at most, and each warp issues 2 per latency + 2
            assert all(sum(row[c] in (1, 3) for row in z) <= 1 for c in range(t))
            if warps_ >= lat + 1:
                # a warp's load is back before every other warp has issued one: the
                # scheduler never idles
                assert issued == t
            if warps_ == 1:
                assert issued <= 2 * math.ceil(t / (lat + 2))


def test_flash_loop_moves_the_models_bytes():
    seq, d, block, e = 1024, 64, 256, 2.0
    view = diagrams.flash_loop(seq, d, block, e)
    steps = list(frames(view))
    nb = seq // block
    assert len(steps) == nb * nb
    _s, data, _lay = steps[-1]
    # Q read once, O written once, K and V read once per query block
    read = seq * d * e + nb * 2 * seq * d * e
    written = seq * d * e
    assert softmax.flash_tiled_bytes(seq, d, block, e) == read + written
    text = counter(data)
    assert number_in(text, "MB, written") == pytest.approx(read / 1e6, rel=5e-3)
    assert number_in(text, "kB; at the end") == pytest.approx(written / 1e3, rel=5e-3)
    assert count_boxes(trace(data, "O blocks written")) == nb
    for k, (_s, d_, _l) in enumerate(steps, start=1):
        i = (k - 1) // nb
        assert trace(d_, "pass")["text"] == [f"pass {i + 1} of {nb} over K, V"]
        assert count_boxes(trace(d_, "streamed K and V blocks")) == 2


def test_softmax_merge_reaches_the_direct_sum():
    from widgets.online_softmax import SCORES, VALUES

    s_, v_ = np.array(SCORES), np.array(VALUES)
    direct = float((np.exp(s_) * v_).sum() / np.exp(s_).sum())
    view = diagrams.softmax_merge()
    last = {}
    for s, data, _lay in frames(view):
        last[s["tile"]] = (s, data)
        assert "passes over the row: 1" in counter(data)
    for tile, (s, data) in last.items():
        assert s["step"] == math.ceil(len(SCORES) / tile)
        merged = trace(data, "states")["text"][2]
        assert number_in(merged.split("u / l = ")[1] + " end", "end") == \
            pytest.approx(direct, rel=5e-3)
        assert count_boxes(trace(data, "keys merged")) + \
            count_boxes(trace(data, "this tile's keys")) == len(SCORES)


@pytest.mark.parametrize("gpus", [2, 3, 4, 6])
def test_ring_allreduce_sums_every_chunk_in_2n_minus_2_steps(gpus):
    """Worked by hand: after n - 1 reduce-scatter steps each GPU holds exactly one chunk
    summed over all n GPUs; after n - 1 more every chunk everywhere is; each step every GPU
    sends one chunk, 2(n - 1) chunks of 1/n of the buffer in all."""
    view = diagrams.ring_allreduce(gpus=gpus, nbytes=1e9)
    seen = []
    for s, data, _lay in frames(view):
        k = s["step"]
        labels = trace(data, "contributors")["text"]
        assert len(labels) == gpus * gpus
        seen.append(k)
        if k == 0:
            assert labels == [str(g) for g in range(gpus) for _ in range(gpus)]
        if k == gpus - 1:
            assert labels.count("all") == gpus
        if k == 2 * (gpus - 1):
            assert labels.count("all") == gpus * gpus
        assert count_boxes(trace(data, "sent this step")) == (gpus if k else 0)
        assert f"sent {k} of its {2 * (gpus - 1)} chunks" in counter(data)
    assert seen == list(range(2 * gpus - 1))
    with pytest.raises(ValueError, match="gpus"):
        diagrams.ring_allreduce(gpus=7)


def test_overlap_buckets_ends_the_step_where_the_last_bucket_is_sent():
    """Worked by hand for 7e9 parameters, eight H200s on NVLink 4 (450 GB/s each way, the
    model's 5 us a ring step), six buckets: the backward pass is 4 x 7e9 x T FLOPs at 989
    TFLOP/s; the all-reduce of 14 GB is 2 x 7/8 x 14e9 / 450e9 + 14 x 5 us = 54.51 ms, a
    sixth of it per bucket. At 2,048 tokens (backward 57.98 ms, a bucket 9.66 ms) each
    bucket's all-reduce (9.09 ms) is done before the next bucket is ready, so the step ends
    a bucket's all-reduce after the backward: 67.07 ms. At 256 tokens (backward 7.25 ms)
    the link is the longer row: the buckets go back to back after the first is ready,
    7.25 / 6 + 54.51 = 55.72 ms."""
    view = diagrams.overlap_buckets()
    hand = {2048: 4 * 7e9 * 2048 / 989e12 + 54.51e-3 / 6,
            256: 4 * 7e9 * 256 / 989e12 / 6 + 54.51e-3}
    assert hand[2048] == pytest.approx(67.07e-3, rel=1e-3)
    assert hand[256] == pytest.approx(55.72e-3, rel=1e-3)
    for s, data, _lay in frames(view):
        t = s["tokens"]
        assert count_boxes(trace(data, "backward buckets")) == 6
        assert count_boxes(trace(data, "all-reduce buckets")) == 6
        if t in hand:
            assert view.times(t)["step"] == pytest.approx(hand[t], rel=1e-3)
            assert f"step (backward and all-reduce) {units.seconds(hand[t])}" in counter(data)
    with pytest.raises(ValueError, match="buckets"):
        diagrams.overlap_buckets(buckets=0)


def test_amdahl_split_draws_p_workers():
    view = diagrams.amdahl_split(0.1)
    for s, data, _lay in frames(view):
        f, p = s["f"], s["p"]
        assert count_boxes(trace(data, "parallel part")) == p
        assert count_boxes(trace(data, "waiting")) == p - 1
        assert number_in(counter(data), "×, efficiency") == \
            pytest.approx(1 / (f + (1 - f) / p), rel=5e-3)


def test_vector_add_and_two_budgets():
    view = diagrams.vector_add_bytes()
    for s, _d, lay in frames(view):
        e = {"fp64": 8, "fp32": 4, "fp16": 2}[s["dtype"]]
        assert number_in(note(lay, "count"), "FLOP/B") == pytest.approx(1 / (3 * e), rel=5e-3)
    view = diagrams.two_budgets("T4")
    for s, _d, lay in frames(view):
        if s["op"].startswith("vector add"):
            assert note(lay, "bound").endswith("memory-bound")
        if s["op"] == "matmul 4096, perfect reuse" and s["machine"] == "T4":
            # 2 n^3 FLOPs at 8.1 TFLOP/s against 3 n^2 x 4 bytes at 320 GB/s
            assert 2 * 4096 ** 3 / 8.1e12 > 3 * 4096 ** 2 * 4 / 320e9
            assert note(lay, "bound").endswith("compute-bound")


# --- text alternatives and motion ------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_every_diagram_has_a_caption_and_a_description(name):
    view = getattr(diagrams, name)()
    cap, desc = view.alt_text()
    assert len(cap) > 40 and len(desc) > 40 and cap != desc
    html = view.static_html()
    uid = re.search(r'aria-describedby="([^"]+)"', html).group(1)
    assert f'id="{uid}"' in html
    assert "<figcaption" in html and "book-figure" in html
    import html as _h
    assert _h.escape(desc) in html and _h.escape(cap) in html
    assert not re.search(r"\d[eE][+-]?\d", desc + cap), "e-notation in the text"


@pytest.mark.parametrize("name", NAMES)
def test_nothing_moves_by_itself(name):
    fig = getattr(diagrams, name)().static_figure().to_dict()
    assert not fig.get("frames")
    for menu in fig["layout"].get("updatemenus", []):
        assert all(b.get("method") != "animate" for b in menu.get("buttons", []))
    for sl in fig["layout"].get("sliders", []):
        assert sl["transition"]["duration"] == 0
        assert all(st["method"] == "restyle" for st in sl["steps"])


def test_reduced_motion_is_honoured_by_the_site_css():
    from conftest import ROOT

    css = (ROOT / "_static" / "book.css").read_text()
    block = css[css.index("prefers-reduced-motion"):]
    assert "transition" in block and "animation" in block


def test_stepped_diagrams_step():
    assert len(diagrams.STEPPED) >= 4
    for name in diagrams.STEPPED:
        view = getattr(diagrams, name)()
        assert view.sliders(), name
        sl = view.static_figure().to_dict()["layout"]["sliders"][0]
        assert len(sl["steps"]) >= 4, name
        assert any("counters" == t.get("name") for t in view.traces(view.initial()))


def test_chapters_place_the_diagrams():
    """Each chapter of Part I draws at least one diagram and each of Part II two, and the
    gallery lists every one."""
    from conftest import ROOT

    for name, chapter in diagrams.DIAGRAMS:
        page = next((ROOT / "chapters").glob(f"{chapter:02d}_*.md")).read_text()
        assert f"diagrams.{name}(" in page, (name, chapter)
    per = {c: sum(1 for _, k in diagrams.DIAGRAMS if k == c) for c in range(1, 12)}
    assert all(per[c] >= 1 for c in range(1, 6)) and all(per[c] >= 2 for c in range(6, 12))
    gallery = (ROOT / "appendix" / "gallery.md").read_text()
    assert all(f"diagrams.{name}(" in gallery for name in NAMES)


@pytest.mark.parametrize("name", ["branch_mask", "sm_anatomy"])
def test_live_view_moves_with_its_control(name):
    pytest.importorskip("ipywidgets")
    pytest.importorskip("anywidget")
    view = getattr(diagrams, name)()
    live = view.live()
    if name == "branch_mask":
        before = [list(r) for r in live.figure.data[1].z]
        live.set("step", len(view.program(live.settings)))
        after = [list(r) for r in live.figure.data[1].z]
        assert before != after and all(r[0] is not None for r in after)
    else:
        live.set("machine", "H200")
        lanes = [sh for sh in live.figure.layout.shapes if sh.name == "lane"]
        assert len(lanes) == machines.get("H200").fp32_lanes_per_sm
    assert "<em>" in live.box.children[-1].value


@pytest.mark.browser
def test_on_the_site_nothing_moves_under_reduced_motion(open_page):
    """The built gallery with the reader's reduced-motion setting: the diagrams' slider
    rails have no CSS transition, no step slider advances by itself, and each diagram's
    description is what its aria-describedby names."""
    p = open_page("appendix/gallery.html")
    page = p.page
    page.emulate_media(reduced_motion="reduce")
    assert page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")
    read = """() => Array.from(document.querySelectorAll('figure.book-diagram')).map(f => {
        const gd = f.querySelector('.js-plotly-plot');
        const desc = document.getElementById(f.getAttribute('aria-describedby'));
        const grip = f.querySelector('.slider-grip-rect');
        return {active: (gd.layout.sliders || []).map(s => s.active),
                desc: desc ? desc.textContent : '', caption: f.querySelector('figcaption').textContent,
                transition: grip ? getComputedStyle(grip).transitionDuration : '0s'};
    })"""
    before = page.evaluate(read)
    page.wait_for_timeout(1500)
    after = page.evaluate(read)
    assert len(before) == len(diagrams.DIAGRAMS)
    assert [b["active"] for b in before] == [a["active"] for a in after]
    for f in after:
        assert f["desc"] and f["caption"] and f["transition"] in ("0s", "")
    assert p.errors == [] and p.blocked == []
