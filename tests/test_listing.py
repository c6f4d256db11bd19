"""labs/listing.py without a site: a kernel's source is read through the dispatcher's
``py_func``, launch lines by their tags, every listing the chapters name resolves, and the
counts beside it are the model's (checked against the kernels' own arithmetic)."""
import pathlib
import re
import sys
import textwrap
import types

import pytest

from labs import listing

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _decorate(fn):
    return fn


def test_source_reads_py_func_of_a_dispatcher_dedented_with_its_decorator():
    @_decorate
    def kern(x):
        x[0] = 1  # a body line

    fake = types.SimpleNamespace(py_func=kern)  # what numba's CUDADispatcher carries
    assert listing.source(fake) == "@_decorate\ndef kern(x):\n    x[0] = 1  # a body line\n"
    assert listing.qualified_name(fake).endswith(":test_source_reads_py_func_of_a_dispatcher"
                                                 "_dedented_with_its_decorator.<locals>.kern")


def test_source_rejects_what_is_not_a_function():
    with pytest.raises(ValueError, match="kernel must be a function"):
        listing.source(42)


@pytest.fixture
def tagged_module(tmp_path, monkeypatch):
    src = textwrap.dedent('''\
        def run(k, x):
            blocks = 4
            for turn in range(3):
                k[blocks, 256](x, turn)  # listing: demo
            # listing-begin: region
            if x:
                return 1
            # listing-end: region
            y = 2  # a comment  # listing: demo
        ''')
    (tmp_path / "listing_demo_mod.py").write_text(src)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("listing_demo_mod", None)
    yield "listing_demo_mod"
    sys.modules.pop("listing_demo_mod", None)


def test_tagged_lines_lose_their_tag_and_are_dedented_together(tagged_module):
    assert listing.tagged(tagged_module, "demo") == (
        "    k[blocks, 256](x, turn)\ny = 2  # a comment\n")
    assert listing.tagged(tagged_module, "region") == "if x:\n    return 1\n"


def test_tagged_bad_keys_and_missing_tags_raise(tagged_module):
    with pytest.raises(ValueError, match="key must be"):
        listing.tagged(tagged_module, "Bad Key")
    with pytest.raises(ValueError, match="no line tagged"):
        listing.tagged(tagged_module, "absent")
    with pytest.raises(ValueError, match="listing must be one of"):
        listing.entry("no_such_listing")


def test_unclosed_region_raises(tmp_path, monkeypatch):
    (tmp_path / "listing_open_mod.py").write_text("# listing-begin: x\na = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="never closed"):
        listing.tagged("listing_open_mod", "x")


@pytest.mark.parametrize("key", list(listing.ENTRIES))
def test_every_listing_resolves_to_real_code_and_numba_kernels_show_a_launch(key):
    parts = listing.parts(key)
    assert parts
    for title, name, code in parts:
        assert title and code.strip()
        assert code == textwrap.dedent(code)
        mod = name.split(":")[0].split("#")[0]
        assert (ROOT / (mod.replace(".", "/") + ".py")).exists(), name
    codes = [c for _t, _n, c in parts]
    if any("@cuda.jit" in c and "device=True" not in c.split("\n")[0] for c in codes):
        # a numba kernel: some part is the launch, kernel[grid, block](args)
        assert any(re.search(r"\w+\[[^\]]+\]\(", c) for c in codes[1:]), key


def test_markdown_carries_the_marker_each_part_verbatim_and_the_counts():
    md = listing.markdown("intensity")
    assert md.startswith('<div class="book-listing" data-listing="intensity" data-parts="2">')
    for _t, _n, code in listing.parts("intensity"):
        assert "```python\n" + code in md
    # the knob: 2k FLOPs and 8 bytes (a 4-byte load and store) per float, k/4 FLOP/byte
    assert ("k = 16: 32 FLOPs and 8 bytes of DRAM traffic per float (intensity 4 FLOP/byte); "
            "memory-bound on the H200, at most 19.2 TFLOP/s by its datasheet roofs") in md
    rows = {r["label"]: r for r in listing.counts("intensity")}
    assert rows["k = 128"]["intensity"] == pytest.approx(128 / 4)
    # H200 datasheet: 66.9 TFLOP/s FP32 over 4.8 TB/s puts the ridge near 14: k = 16 is
    # memory-bound (I = 4), k = 128 (I = 32) compute-bound
    sheet = {r["label"]: r["machines"][0] for r in listing.counts("intensity")}
    assert sheet["k = 16"]["bound"] == "memory" and sheet["k = 128"]["bound"] == "compute"
    assert sheet["k = 16"]["attainable"] == pytest.approx(4 * 4.8e12, rel=1e-3)


def test_fma_peak_counts_follow_its_loop():
    (row,) = listing.counts("fma_peak")
    # 16 chains x 64 FMAs x 2 FLOPs a turn, 1,024 turns, per thread; one 4-byte store
    assert row["flops"] == 16 * 64 * 2 * 1024 and row["bytes"] == 4
    assert "0.9" in listing.clock_peak_note() and "132 x 128 x 2" in listing.clock_peak_note()


def test_the_display_object_is_markdown_for_site_jupyter_and_colab():
    bundle = listing.show("fusion")._repr_mimebundle_()
    assert set(bundle) == {"text/markdown", "text/plain"}
    assert "def scale_shift_relu(x, y):" in bundle["text/plain"]


def test_every_chapter_with_a_lab_cell_shows_a_listing():
    for md in sorted((ROOT / "chapters").glob("*.md")):
        text = md.read_text()
        if "labs.show(" not in text:
            continue
        keys = re.findall(r'labs\.listing\.show\("(\w+)"\)', text)
        assert keys, f"{md.name} has a lab cell but no kernel listing"
        for k in keys:  # beside the result of the lab it belongs to
            assert f'labs.show("{listing.entry(k).lab}"' in text, (md.name, k)


def test_listing_imports_no_plotting_or_widgets():
    import subprocess

    code = ("import sys, labs.listing as l; l.markdown('fma_peak'); "
            "bad = [m for m in ('plotly', 'ipywidgets') if m in sys.modules]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
