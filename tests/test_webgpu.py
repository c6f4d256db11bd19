""""Measure this device" (issue 16): the WebGPU harness in _static/book-webgpu.js.

- The shader arithmetic, in Node: bytes and FLOPs per dispatch against counts read off the
  WGSL text, the JavaScript reference of the FMA chains against numpy float32.
- The built site in headless Chromium with WebGPU on SwiftShader (served from 127.0.0.1, and
  from file://): small sizes, every check passes, the figures are finite and positive, the
  roofline gains the device's traces, and the downloaded JSON loads with
  ``perfmodel.machines.from_results``.
- Without WebGPU (Chromium without the flag, a browser without ``navigator.gpu``, an insecure
  page): one sentence, no console error, the rest of the page drawn.
- The section's Python figure, and the page weight it adds.
"""
from __future__ import annotations

import json
import math
import re
import shutil
import subprocess

import numpy as np
import pytest

from conftest import CHROMIUM_ARGS, ROOT, SITE, chromium_path
from labs import results as lab_results
from perfmodel import machines

JS = ROOT / "_static" / "book-webgpu.js"
PAGES = ["chapters/04_roofline.html", "appendix/lab_results.html"]
#: Small sizes for SwiftShader (a CPU): 64 KiB .. 4 MiB copies, 8,192 invocations x 256.
SMALL = {"copyMaxBytes": 4 * 2 ** 20, "fmaWorkgroups": 32, "fmaIterations": 256, "repeats": 3}
WEBGPU_FLAGS = ["--enable-unsafe-webgpu", "--use-webgpu-adapter=swiftshader"]


# ---- the arithmetic, in Node ----

def node(expr: str):
    """Evaluate a JavaScript expression over the harness's exports (``w``) in Node."""
    exe = shutil.which("node") or "/usr/bin/node"
    script = f"const w = require({json.dumps(str(JS))}); console.log(JSON.stringify({expr}));"
    out = subprocess.run([exe, "-e", script], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def shaders():
    return node("{copy: w.COPY_WGSL, fma: w.FMA_WGSL}")


def test_copy_moves_every_byte_once_each_way(shaders):
    wgsl = shaders["copy"]
    # 16-byte elements, one read of src and one write of dst per element, over the whole
    # array (a grid-stride loop up to arrayLength)
    assert wgsl.count("array<vec4<u32>>") == 2
    assert len(re.findall(r"\bsrc\[", wgsl)) == 1 and len(re.findall(r"\bdst\[", wgsl)) == 1
    assert "i < n" in wgsl and "arrayLength(&src)" in wgsl
    for size in (64 * 1024, 2 ** 20, 3 * 2 ** 20, 2 ** 28):
        assert node(f"w.copyBytes({size})") == 2 * size   # read + written
        wgs = node(f"w.copyWorkgroups({size})")
        assert 1 <= wgs <= 65535                          # one dispatch dimension's limit
        assert wgs * 256 <= max(size // 16, 256)          # no invocation without an element


def test_fma_flops_per_dispatch_match_the_shader_text(shaders):
    wgsl = shaders["fma"]
    loop = wgsl[wgsl.index("for (var i"):wgsl.index("  }\n  let s")]
    fmas = len(re.findall(r"\bfma\(", loop))              # FMA calls per iteration
    lanes = 4 if re.search(r"var a0 = vec4<f32>", wgsl) else 1
    size = int(re.search(r"@workgroup_size\((\d+)\)", wgsl).group(1))
    assert (fmas, lanes, size) == (8, 4, 256)
    for wgs, iters in ((1, 1), (32, 256), (4096, 16384)):
        # 2 FLOPs (a multiply and an add) per lane of each FMA
        assert node(f"w.fmaFlops({wgs}, {iters})") == wgs * size * iters * fmas * lanes * 2
    assert node("w.fmaFlops(4096, 1024)") == 4096 * 256 * 1024 * 64
    assert wgsl.count("out[gid.x]") == 1                  # every invocation stores its result


def test_fma_reference_matches_numpy_float32():
    iters = 300
    ref = np.array(node(f"Array.from(w.fmaReference({iters}))"), dtype=np.float64)
    m, c = np.float32(1 - 1 / 1024), np.float32(1 / 2048)
    t = np.arange(1024)
    # start of chain (j, lane) in invocation t: t/1024 + j/8 + lane/32
    a = np.array([[(t + 128 * j + 32 * lane) / 1024 for lane in range(4)] for j in range(8)],
                 dtype=np.float32)                         # shape (8, 4, 1024)
    for _ in range(iters):
        a = (a * m + c).astype(np.float32)
    want = a.astype(np.float64).sum(axis=(0, 1))
    assert ref.shape == (1024,)
    np.testing.assert_allclose(ref, want, rtol=1e-5)
    # the chains have not reached their limit 0.5 yet: the count of iterations shows
    assert np.ptp(ref) > 1


def test_copy_pattern_is_never_the_zero_a_fresh_buffer_holds():
    words = node("Array.from({length: 4096}, (_, i) => w.pattern(i))")
    assert all(w % 2 == 1 and 0 < w < 2 ** 32 for w in words)
    assert len(set(words)) == len(words)


def test_si_labels():
    assert node('[w.si(3.21e12, "B/s"), w.si(1.8e-4, "s"), w.si(5.15e9, "FLOP/s"), '
                'w.binary(65536), w.binary(2 ** 28)]') == \
        ["3.21 TB/s", "180 µs", "5.15 GFLOP/s", "64 KiB", "256 MiB"]


# ---- the Python side: the figure and the section ----

def test_figure_holds_t4_and_h200_roofs_and_the_dots():
    from widgets.measure_device import figure

    data = {t.name: t for t in figure().data if t.name}
    t4, h200 = data["T4 roof (datasheet)"], data["H200 roof (datasheet)"]
    # datasheets: T4 8.1 TFLOP/s FP32 and 320 GB/s, H200 66.9 TFLOP/s and 4.8 TB/s
    assert max(t4.y) == pytest.approx(8.1e12) and t4.x[1] == pytest.approx(8.1e12 / 320e9)
    assert max(h200.y) == pytest.approx(66.9e12) and h200.x[1] == pytest.approx(66.9e12 / 4.8e12)
    # a vector add does 1 FLOP per 12 bytes, on the slope of both
    vadd = data["vector add on T4"]
    assert vadd.x[0] == pytest.approx(1 / 12) and vadd.y[0] == pytest.approx(320e9 / 12)
    assert data["vector add on H200"].y[0] == pytest.approx(4.8e12 / 12)
    mm = [n for n in data if n.startswith("matmul") and n.endswith("on H200")]
    assert len(mm) == 1


def test_section_html_in_the_book_and_in_a_notebook():
    from widgets.measure_device import section_html

    book = section_html(book=True)
    assert 'class="book-webgpu"' in book and 'class="book-figure"' in book
    assert "book-webgpu-run" in book and "cdn" not in book.lower()
    ops = json.loads(re.search(r'data-ops="([^"]+)"', book).group(1).replace("&quot;", '"'))
    assert [round(o["intensity"], 4) for o in ops][0] == round(1 / 12, 4)
    notebook = section_html(book=False)
    assert "book-webgpu-run" not in notebook and "labs.my_roofline()" in notebook


def test_from_results_names_webgpu_as_the_source():
    result = {"lab": "intensity", "context": {"gpu_name": "apple metal-3", "api": "WebGPU",
                                              "date": "2026-12-01T08:00:00Z"},
              "params": {}, "rows": [], "summary": {"copy_bandwidth": 1e11, "fma_flops": 4e12}}
    m = machines.from_results(result)
    assert m.peak_flops("fp32") == 4e12 and m.bandwidth("dram") == 1e11
    assert m.ridge("fp32") == pytest.approx(40)
    assert "WebGPU" in m.source("fp32") and "2026-12-01" in m.source("dram")
    del result["context"]["api"]
    assert "WebGPU" not in machines.from_results(result).source("fp32")


def test_recorded_h200_run_of_the_same_shaders():
    """labs/results/webgpu/H200.json: the page's shaders through wgpu-native on the H200
    (labs/webgpu_on_device.py). Checks passed, work counted as the page counts it."""
    r = lab_results.validate(json.loads(
        (lab_results.RESULTS_DIR / "webgpu" / "H200.json").read_text()))
    assert r["context"]["api"] == "WebGPU" and "no browser" in r["context"]["runtime"]
    assert all(row["check"] for row in r["rows"])
    copies = [row for row in r["rows"] if row["kind"] == "copy"
              and not row.get("beyond_the_page")]
    assert [c["buffer_bytes"] for c in copies] == [4 * 2 ** 20 * 4 ** k for k in range(4)]
    for row in r["rows"]:
        if row["kind"] == "copy":
            assert row["bytes"] == 2 * row["buffer_bytes"]
            assert row["bandwidth"] == pytest.approx(row["bytes"] / row["seconds"])
        else:
            assert row["flops"] == row["workgroups"] * 256 * row["iterations"] * 8 * 4 * 2
            assert row["flop_rate"] == pytest.approx(row["flops"] / row["seconds"])
    assert r["summary"]["copy_bandwidth"] == copies[-1]["bandwidth"]
    m = machines.from_results(r)
    assert m.peak_flops("fp32") == r["summary"]["fma_flops"]
    assert "WebGPU" in m.source("dram") and "no browser" in m.source("dram")
    # below the H200's datasheet roofs (66.9 TFLOP/s FP32, 4.8 TB/s)
    assert m.peak_flops("fp32") < 66.9e12 and m.bandwidth("dram") < 4.8e12


def test_chapter_prose_carries_the_h200_webgpu_figures(site):
    text = " ".join(re.sub(r"<[^>]+>", "", (site / PAGES[0]).read_text()).split())
    r = json.loads((lab_results.RESULTS_DIR / "webgpu" / "H200.json").read_text())
    copy, fma = r["summary"]["copy_bandwidth"], r["summary"]["fma_flops"]
    assert f"{copy / 1e12:.2f} TB/s" in text and f"{fma / 1e12:.0f} TFLOP/s" in text


# ---- the built site in Chromium ----

@pytest.fixture(scope="module")
def webgpu_browser(browser):
    """Headless Chromium with WebGPU on SwiftShader (a CPU implementation of Vulkan),
    launched by the Playwright that runs conftest's browser (one per process)."""
    b = browser.browser_type.launch(executable_path=chromium_path(), headless=True, args=[
        *CHROMIUM_ARGS, *WEBGPU_FLAGS])
    yield b
    b.close()


def _open(browser, url: str, init: str | None = None, allow: str = "http://127.0.0.1"):
    """A page opened offline: (page, requests that tried to leave, console errors)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    # the theme reads its mode from localStorage (as conftest's open_page sets it)
    ctx.add_init_script("localStorage.setItem('theme', 'light'); localStorage.setItem('mode', 'light');")
    if init:
        ctx.add_init_script(init)
    page = ctx.new_page()
    blocked, errors = [], []

    def route(r):
        if r.request.url.startswith(allow) or r.request.url.startswith("file://"):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url, wait_until="load")
    n = page.locator(".book-figure").count()
    page.wait_for_function(
        "n => document.querySelectorAll('.book-figure[data-ready]').length === n",
        arg=n, timeout=60000)
    return page, blocked, errors


def _measure(page, options=SMALL) -> str:
    section = page.locator(".book-webgpu")
    section.scroll_into_view_if_needed()
    page.evaluate("o => { window.bookWebGPU.options = o; }", options)
    page.click(".book-webgpu-run")
    page.wait_for_selector(".book-webgpu[data-state]", timeout=240000)
    return section.get_attribute("data-state")


def _device_traces(page):
    return page.evaluate(
        "() => document.querySelector('.book-webgpu .js-plotly-plot').data"
        ".filter(t => t.meta === 'webgpu').map(t => ({name: t.name, x: Array.from(t.x),"
        " y: Array.from(t.y)}))")


def _check_result(result, traces):
    rows = result["rows"]
    assert [r["kind"] for r in rows].count("copy") == 4 and rows[-1]["kind"] == "fma"
    assert all(r["check"] for r in rows)
    for r in rows:
        assert r["seconds"] > 0 and math.isfinite(r["seconds"])
        rate = r["bandwidth"] if r["kind"] == "copy" else r["flop_rate"]
        assert rate > 0 and math.isfinite(rate)
    # the rates are the counted work over the best time
    copy = rows[3]
    assert copy["bytes"] == 2 * copy["buffer_bytes"] == 2 * SMALL["copyMaxBytes"]
    assert copy["bandwidth"] == pytest.approx(copy["bytes"] / copy["seconds"])
    fma = rows[-1]
    assert fma["flops"] == SMALL["fmaWorkgroups"] * 256 * SMALL["fmaIterations"] * 64
    summary = result["summary"]
    assert summary == {"copy_bandwidth": copy["bandwidth"], "fma_flops": fma["flop_rate"]}
    # the roofline gained the device: its roof from the slope to the peak, and two dots
    names = [t["name"] for t in traces]
    assert len(traces) == 4 and names[0].startswith("this device") and names[0].endswith("roof")
    roof = traces[0]
    assert roof["y"][1] == pytest.approx(summary["fma_flops"])
    assert roof["x"][1] == pytest.approx(summary["fma_flops"] / summary["copy_bandwidth"])
    assert all(v > 0 and math.isfinite(v) for t in traces for v in t["x"] + t["y"])


def test_measures_swiftshader_from_localhost(webgpu_browser, server, tmp_path):
    page, blocked, errors = _open(webgpu_browser, f"{server}/{PAGES[0]}")
    assert _measure(page) == "drawn", page.inner_text(".book-webgpu-status")
    result = page.evaluate("window.bookWebGPU.last")
    _check_result(result, _device_traces(page))
    status = page.inner_text(".book-webgpu-status")
    assert "Measured with WebGPU in this browser" in status
    assert "native CUDA/Metal code reaches more" in status and "timestamp queries" in status
    assert "swiftshader" in status
    # the download: an intensity lab result that the labs and perfmodel read
    with page.expect_download() as info:
        page.click(".book-webgpu-download")
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    saved = json.loads(path.read_text())
    out = ROOT / "_build" / "webgpu"
    out.mkdir(parents=True, exist_ok=True)
    (out / "swiftshader-intensity.json").write_text(path.read_text())
    assert saved == result
    lab_results.validate(saved)
    m = machines.from_results(saved)
    assert m.peak_flops("fp32") == saved["summary"]["fma_flops"]
    assert m.bandwidth("dram") == saved["summary"]["copy_bandwidth"]
    assert "WebGPU" in m.source("fp32") and m.measured
    assert saved["context"]["api"] == "WebGPU" and saved["context"]["timing"] == "timestamp queries"
    assert blocked == [] and errors == []
    print(f"\nSwiftShader: copy {saved['summary']['copy_bandwidth'] / 1e9:.3g} GB/s, "
          f"FMA {saved['summary']['fma_flops'] / 1e9:.3g} GFLOP/s")


def test_queue_timing_when_no_timestamps(webgpu_browser, server):
    page, blocked, errors = _open(webgpu_browser, f"{server}/{PAGES[1]}")
    assert _measure(page, dict(SMALL, timestamps=False)) == "drawn"
    result = page.evaluate("window.bookWebGPU.last")
    _check_result(result, _device_traces(page))
    assert result["context"]["timing"].startswith("queue completion")
    assert result["context"]["empty_dispatch_s"] > 0
    assert "less an empty dispatch" in page.inner_text(".book-webgpu-status")
    # a second run replaces the device's traces rather than adding more
    assert _measure(page, dict(SMALL, timestamps=False)) == "drawn"
    assert len(_device_traces(page)) == 4
    assert blocked == [] and errors == []


def test_measures_from_a_file_url(webgpu_browser, site):
    page, blocked, errors = _open(webgpu_browser, (site / PAGES[0]).as_uri(), allow="file://")
    assert _measure(page) == "drawn", page.inner_text(".book-webgpu-status")
    _check_result(page.evaluate("window.bookWebGPU.last"), _device_traces(page))
    assert blocked == [] and errors == []


def _one_sentence(text: str) -> bool:
    return text.endswith(".") and not re.search(r"[.!?]\s+[A-Z]", text)


def test_without_webgpu_one_sentence_and_no_error(browser, server, site):
    # Chromium without the flag offers navigator.gpu but gives no adapter; from
    # 127.0.0.1 and from file://
    for url, allow in ((f"{server}/{PAGES[0]}", server), ((site / PAGES[0]).as_uri(), "file://")):
        page, blocked, errors = _open(browser, url, allow=allow)
        figures = page.locator(".book-figure").count()
        assert _measure(page) == "unavailable"
        status = page.inner_text(".book-webgpu-status")
        assert "no GPU adapter" in status and _one_sentence(status), status
        assert page.locator(".book-figure[data-ready]").count() == figures
        assert _device_traces(page) == [] and page.locator(".book-webgpu-download").is_hidden()
        assert blocked == [] and errors == []


@pytest.mark.parametrize("init, words", [
    ("Object.defineProperty(Navigator.prototype, 'gpu', {get: () => undefined});",
     "does not offer WebGPU"),
    ("Object.defineProperty(window, 'isSecureContext', {get: () => false});", "secure pages"),
])
def test_a_browser_without_webgpu_says_why_on_load(browser, server, init, words):
    page, blocked, errors = _open(browser, f"{server}/{PAGES[0]}", init=init)
    section = page.locator(".book-webgpu")
    assert section.get_attribute("data-state") == "unavailable"
    status = page.inner_text(".book-webgpu-status")
    assert words in status and _one_sentence(status), status
    assert page.locator(".book-webgpu-run").is_disabled()
    assert blocked == [] and errors == []


def _div_end(text: str, start: int) -> int:
    """Where the <div> opened at ``start`` closes (just past its </div>)."""
    depth = 0
    for tag in re.finditer(r"<(/?)div\b", text[start:]):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return text.index(">", start + tag.end()) + 1
    raise AssertionError(f"the <div> at {start} never closes")


def test_harness_loads_only_where_the_section_is_and_weighs_under_50_kb(site):
    for html in site.rglob("*.html"):
        text = html.read_text()
        has_section = 'class="book-webgpu"' in text
        assert ("book-webgpu.js" in text) == has_section, html
    for page in PAGES:
        text = (site / page).read_text()
        start = text.index('<div class="book-webgpu"')
        section = text[start:_div_end(text, start)]   # the section, figure and data table in it
        added = len(section.encode()) + (site / "_static" / "book-webgpu.js").stat().st_size
        assert added < 50_000, f"{page}: {added} bytes added"
