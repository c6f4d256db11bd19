"""Issue 35's lab pieces that run without a GPU: the SASS reader, the L2 fetch-granularity
setter's input check, the profile lab's transpose lesson (its model and its table) and the
divergence loop's length rule."""
from __future__ import annotations

import importlib

import pytest

from labs import l2fetch, sass
from labs.results import RESULTS_DIR as RESULTS

profile = importlib.import_module("labs.profile")

# A loop as nvdisasm prints it (labels), four steps a turn: 4 FFMA + 3 bookkeeping + BRA.
NVDISASM = """
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_1:
        /*0010*/                   FFMA R0, R0, R3, R4 ;
        //## File "x.py", line 3
        /*0020*/                   FFMA R0, R0, R3, R4 ;
        /*0030*/                   IADD3 R2, R2, 0x4, RZ ;
        /*0040*/                   FFMA R0, R0, R3, R4 ;
        /*0050*/                   ISETP.GE.AND P0, PT, R2, R5, PT ;
        /*0060*/                   FFMA R0, R0, R3, R4 ;
        /*0070*/                   IMAD.MOV.U32 R6, RZ, RZ, R2 ;
        /*0080*/              @!P0 BRA `(.L_x_1) ;
        /*0090*/                   STG.E [R8.64], R0 ;
        /*00a0*/                   EXIT ;
"""
# The same shape as cuobjdump prints it (absolute branch targets, no labels), with an
# outer loop around the inner one.
CUOBJDUMP = """
        /*0000*/                   MOV R1, c[0x0][0x28] ;              /* 0x00000a0000017a02 */
        /*0010*/                   IADD3 R7, R7, 0x1, RZ ;             /* 0x0000000107077810 */
        /*0020*/                   FFMA R0, R0, R3, R4 ;               /* 0x0000000300007223 */
        /*0030*/                   FFMA R0, R0, R3, R4 ;               /* 0x0000000300007223 */
        /*0040*/               @P0 BRA 0x20 ;                          /* 0x0000000000008947 */
        /*0050*/               @P1 BRA 0x10 ;                          /* 0x0000000000008947 */
        /*0060*/                   EXIT ;                              /* 0x000000000000794d */
"""


def test_instructions_read_predicates_opcodes_and_labels():
    ins, labels = sass.instructions(NVDISASM)
    assert len(ins) == 11 and labels == {".L_x_1": 0x10}
    bra = next(x for x in ins if x.base == "BRA")
    assert (bra.address, bra.predicate) == (0x80, "@!P0")
    assert next(x for x in ins if x.base == "ISETP").opcode == "ISETP.GE.AND"


def test_the_loop_of_a_label_listing_is_counted():
    (loop,) = sass.work_loops(NVDISASM)
    # counted by hand from the listing above: 8 instructions, 4 of them FFMA
    assert loop["instructions"] == 8 and loop["steps"] == 4
    assert loop["instructions_per_step"] == 2.0
    assert loop["opcodes"] == {"FFMA": 4, "IADD3": 1, "ISETP": 1, "IMAD": 1, "BRA": 1}


def test_only_the_innermost_work_loop_of_an_address_listing():
    loops = sass.loops(CUOBJDUMP)
    assert [len(b) for b in loops] == [3, 5]                 # inner 0x20-0x40, outer 0x10-0x50
    (inner,) = sass.work_loops(CUOBJDUMP)
    assert (inner["first_address"], inner["last_address"], inner["steps"]) == (0x20, 0x40, 2)


def test_excerpt_and_record_round_trip():
    text = sass.record_text({"k": (NVDISASM, "by hand")}, {"gpu_name": "NVIDIA H200"}, "a test")
    assert sass.header(text)["gpu_name"] == "NVIDIA H200"
    listing = sass.kernel_listing(text, "k")
    assert sass.work_loops(listing)[0]["steps"] == 4
    ex = sass.excerpt(listing, 0x10, 0x80)
    assert ex.splitlines()[0] == "/*0010*/ FFMA R0, R0, R3, R4;" and len(ex.splitlines()) == 8
    with pytest.raises(ValueError, match="no kernel"):
        sass.kernel_listing(text, "other")


def test_register_count_reads_the_attribute_of_an_nvdisasm_listing():
    # The shape nvdisasm prints (the recorded H200 file has it: 0x14 for `diverge`), by hand.
    nvinfo = ("\t//----- nvinfo : EIATTR_MAX_THREADS\n\t.align 4\n"
              "\t//----- nvinfo : EIATTR_REGCOUNT\n\t.align\t\t4\n"
              "        /*0000*/ \t.byte\t0x04, 0x2f\n        /*0002*/ \t.short\t(.L_1 - .L_0)\n"
              "\t.align\t\t4\n.L_0:\n        /*0004*/ \t.word\tindex@(_Z1kPf)\n"
              "        /*0008*/ \t.word\t0x00000028\n")
    assert sass.register_count(nvinfo + NVDISASM) == 40
    assert sass.register_count(CUOBJDUMP) is None
    recorded = (RESULTS / "H200" / "divergence_sass.txt").read_text()
    assert sass.register_count(sass.kernel_listing(recorded, "one_in_k")) == 18
    with pytest.raises(ValueError, match="listing"):
        sass.register_count(None)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="text"):
        sass.instructions(None)
    with pytest.raises(ValueError, match="body"):
        sass.loop_summary([])
    for bad in (-1, 129, 32.5, True):
        with pytest.raises(ValueError, match="value_bytes"):
            l2fetch.set_granularity(bad)


def _transpose_case(name: str, side: int = 8192) -> dict:
    return {"lesson": "transpose", "lab": "coalescing", "case": name, "kernel": "k",
            "blocks": (side // 32) ** 2, "block": 256, "side": side, "elements": side * side,
            "bytes": 4 * side * side, "registers_per_thread": 16}


def test_transpose_model_counts_store_sectors():
    side = 8192
    naive = profile.predictions(_transpose_case("naive transpose"), None, {})
    tiled = profile.predictions(_transpose_case("tiled transpose"), None, {})
    # a warp stores 32 values: a row apart (32 sectors) or one 128-byte row (4 sectors)
    assert naive["store_sectors_per_request"][0] == 32
    assert tiled["store_sectors_per_request"][0] == 4
    assert naive["l2_store_sectors"][0] == side * side                  # 67.1 M
    assert tiled["l2_store_sectors"][0] == side * side / 8              # 8.4 M
    assert naive["dram_bytes_read"][0] == naive["dram_bytes_written"][0] == 4 * side * side
    # a column of a 32-float tile sits in one bank: 32 passes; padded to 33, one
    unpadded = profile.predictions(_transpose_case("tiled transpose, unpadded"), None, {})
    assert unpadded["shared_load_passes"][0] == 32 and tiled["shared_load_passes"][0] == 1
    assert "shared_load_passes" not in naive


def test_transpose_table_shows_sectors_without_e_notation():
    rows = []
    for name, sectors in (("naive transpose", 67.1e6), ("tiled transpose", 8.39e6)):
        kernel = {"name": "k", "metrics": {
            "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": 8192 ** 2 / 32,
            "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": sectors,
            "lts__t_sectors_srcunit_tex_op_write.sum": sectors,
            "dram__bytes_read.sum": 291e6, "dram__bytes_write.sum": 271e6,
            "gpu__time_duration.sum": 1e-3,
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 3.2e6,
            "smsp__inst_executed_op_shared_ld.sum": 1e5}}
        rows += profile.rows_for(_transpose_case(name), kernel, None, {}, 132)
    page = profile.table({"context": {"gpu_name": "NVIDIA H200"}, "rows": rows}, "transpose")
    assert "67.1 M" in page and "8.4 M" in page and "291 MB" in page
    assert "shared-memory passes per load request" in page and "32.0" in page
    assert "e+0" not in page
    with pytest.raises(ValueError, match="lesson"):
        profile.table({"context": {}, "rows": []}, "nope")


def test_divergence_iters_must_be_a_multiple_of_the_inner_loop():
    divergence = importlib.import_module("labs.divergence")
    assert divergence.UNROLL == 32
    assert divergence.loop_reference(1.0, 0, divergence.UNROLL - 1) == 1.0   # rounds down to 0


def test_a_long_excerpt_keeps_its_ends():
    ex = sass.excerpt(NVDISASM, 0x0, 0xa0, max_lines=4).splitlines()
    assert ex[0].startswith("/*0000*/") and ex[-1].startswith("/*00a0*/")
    assert ex[2] == "/* ... 7 more instructions ... */" and len(ex) == 5


def test_the_granularity_setter_falls_through_to_a_method_that_works(monkeypatch):
    calls = []

    def broken(value):
        calls.append(("broken", value))
        raise RuntimeError("no such library")

    def works(value):
        calls.append(("works", value))
        return 32 if value is None else value

    monkeypatch.setattr(l2fetch, "METHODS", (("broken", broken), ("works", works)))
    got = l2fetch.set_granularity(32)
    assert got["method"] == "works" and got["readback_bytes"] == 32
    assert got["requested_bytes"] == 32 and "broken" in got["errors"]
    assert calls == [("broken", 32), ("works", 32)]
    monkeypatch.setattr(l2fetch, "METHODS", (("broken", broken),))
    with pytest.raises(RuntimeError, match="no such library"):
        l2fetch.get_granularity()
