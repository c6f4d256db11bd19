// "Measure this device": the reader's GPU measured with WebGPU compute shaders in the page,
// then drawn on the section's roofline beside the model's T4 and H200.
//
// Two shaders, each checked before its time counts:
// - copy: dst = src over a storage buffer of vec4<u32>, at several sizes; bytes = read +
//   written. The copy is compared with its input word by word.
// - fma: FMA_CHAINS independent vec4<f32> chains a = fma(a, M, C) per invocation; FLOPs =
//   2 per lane per FMA. Every invocation's output is compared with the same chains
//   computed in JavaScript.
// Time: GPU timestamp queries where the adapter offers them, else queue completion less
// an empty dispatch's round trip; the best of several repeats counts (as the labs do).
// The arithmetic (copyBytes, fmaFlops, fmaReference, pattern) is exported for Node, where
// tests/test_webgpu.py checks it.
(function (root) {
  "use strict";

  var WG = 256;                 // invocations per workgroup, both shaders
  var FMA_CHAINS = 8;           // independent vec4<f32> accumulators per invocation
  var FMA_LANES = 4;            // lanes of a vec4
  var FMA_M = 1 - 1 / 1024;     // the chain's multiplier (exact in f32)
  var FMA_C = 1 / 2048;         // its addend: the chain tends to C / (1 - M) = 0.5
  var FMA_TOLERANCE = 1e-3;     // relative; fused and unfused FMA may round apart
  var MIB = 1024 * 1024;
  var DEFAULTS = {
    copyMaxBytes: 256 * MIB,    // the largest copy (each of src and dst)
    copySizes: 4,               // sizes: largest, /4, /16, /64
    fmaWorkgroups: 4096,        // 1,048,576 invocations: enough to fill any GPU
    fmaIterations: 0,           // 0: chosen so that one dispatch lasts about targetSeconds
    repeats: 5,                 // timed repeats; the best counts
    targetSeconds: 0.025,       // shortest timed pass
    timestamps: true            // use timestamp queries where the adapter offers them
  };

  var COPY_WGSL = [
    "@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;",
    "@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;",
    "@compute @workgroup_size(" + WG + ")",
    "fn main(@builtin(global_invocation_id) gid: vec3<u32>,",
    "        @builtin(num_workgroups) nwg: vec3<u32>) {",
    "  let n = arrayLength(&src);",
    "  let stride = nwg.x * " + WG + "u;",
    "  for (var i = gid.x; i < n; i = i + stride) { dst[i] = src[i]; }",
    "}"].join("\n");

  function fmaWgsl() {
    var init = [], step = [], names = [];
    for (var j = 0; j < FMA_CHAINS; j++) {
      init.push("  var a" + j + " = vec4<f32>(base + " + (j / FMA_CHAINS).toFixed(6) + ") + lane;");
      step.push("    a" + j + " = fma(a" + j + ", m, c);");
      names.push("a" + j);
    }
    while (names.length > 1) {  // pairwise sum, the order fmaReference uses
      var next = [];
      for (var k = 0; k < names.length; k += 2) next.push("(" + names[k] + " + " + names[k + 1] + ")");
      names = next;
    }
    return [
      "struct Params { m: f32, c: f32, iterations: u32, pad: u32 }",
      "@group(0) @binding(0) var<uniform> p: Params;",
      "@group(0) @binding(1) var<storage, read_write> out: array<f32>;",
      "@compute @workgroup_size(" + WG + ")",
      "fn main(@builtin(global_invocation_id) gid: vec3<u32>) {",
      "  let base = f32(gid.x & 1023u) / 1024.0;",
      "  let lane = vec4<f32>(0.0, 0.03125, 0.0625, 0.09375);",
      "  let m = vec4<f32>(p.m);",
      "  let c = vec4<f32>(p.c);"].concat(init, [
      "  for (var i = 0u; i < p.iterations; i = i + 1u) {"], step, [
      "  }",
      "  let s = " + names[0] + ";",
      "  out[gid.x] = (s.x + s.y) + (s.z + s.w);",
      "}"]).join("\n");
  }
  var FMA_WGSL = fmaWgsl();
  var EMPTY_WGSL = "@compute @workgroup_size(1) fn main() {}";

  // ---- the arithmetic (pure; tested in Node) ----

  /** Bytes one copy dispatch moves: every byte of src read once, every byte of dst written once. */
  function copyBytes(bufferBytes) {
    return 2 * bufferBytes;
  }

  /** Workgroups of one copy dispatch over a buffer of bufferBytes (16-byte elements). */
  function copyWorkgroups(bufferBytes) {
    return Math.max(1, Math.min(Math.ceil(bufferBytes / 16 / WG), 16384));
  }

  /** FLOPs of one FMA dispatch: invocations x iterations x chains x lanes x 2. */
  function fmaFlops(workgroups, iterations) {
    return workgroups * WG * iterations * FMA_CHAINS * FMA_LANES * 2;
  }

  /** The copy's input word i: odd, so never the zero a fresh dst holds. */
  function pattern(i) {
    return ((Math.imul(i ^ 0x5bd1e995, 0x9e3779b1) >>> 0) | 1) >>> 0;
  }

  /** One chain from a (f32) start value, as the shader runs it, in f32 arithmetic. */
  function chain(a, iterations) {
    var f = Math.fround, m = f(FMA_M), c = f(FMA_C);
    a = f(a);
    for (var i = 0; i < iterations; i++) a = f(a * m + c);
    return a;
  }

  /** The FMA shader's output for every invocation index modulo 1024 (a Float32Array). */
  function fmaReference(iterations) {
    var f = Math.fround, memo = {}, out = new Float32Array(1024);
    function run(k) {  // start value k / 1024 (exact)
      if (!(k in memo)) memo[k] = chain(k / 1024, iterations);
      return memo[k];
    }
    for (var t = 0; t < 1024; t++) {
      var v = [];
      for (var j = 0; j < FMA_CHAINS; j++) {
        var lanes = [];
        for (var l = 0; l < FMA_LANES; l++) lanes.push(run(t + j * 1024 / FMA_CHAINS + l * 32));
        v.push(lanes);
      }
      while (v.length > 1) {
        var next = [];
        for (var k = 0; k < v.length; k += 2) {
          next.push(v[k].map(function (x, idx) { return f(x + v[k + 1][idx]); }));
        }
        v = next;
      }
      var s = v[0];
      out[t] = f(f(s[0] + s[1]) + f(s[2] + s[3]));
    }
    return out;
  }

  /** "3.21 TB/s" from 3.21e12 and "B/s", "180 µs" from 1.8e-4 and "s": 3 significant
   * figures and an SI prefix. */
  function si(value, unit) {
    var big = ["", "k", "M", "G", "T", "P"], small = ["", "m", "µ", "n"], i = 0;
    if (value !== 0 && Math.abs(value) < 1) {
      while (Math.abs(value) < 1 && i < small.length - 1) { value *= 1000; i++; }
      return Number(value.toPrecision(3)) + " " + small[i] + unit;
    }
    while (Math.abs(value) >= 1000 && i < big.length - 1) { value /= 1000; i++; }
    return Number(value.toPrecision(3)) + " " + big[i] + unit;
  }

  /** A buffer size in binary units: 65536 -> "64 KiB", 268435456 -> "256 MiB". */
  function binary(bytes) {
    var units = ["B", "KiB", "MiB", "GiB"], i = 0;
    while (bytes >= 1024 && i < units.length - 1) { bytes /= 1024; i++; }
    return Number(bytes.toPrecision(3)) + " " + units[i];
  }

  var api = {WG: WG, FMA_CHAINS: FMA_CHAINS, FMA_LANES: FMA_LANES, FMA_M: FMA_M, FMA_C: FMA_C,
             FMA_TOLERANCE: FMA_TOLERANCE, COPY_WGSL: COPY_WGSL, FMA_WGSL: FMA_WGSL,
             DEFAULTS: DEFAULTS, copyBytes: copyBytes, copyWorkgroups: copyWorkgroups,
             fmaFlops: fmaFlops, pattern: pattern, chain: chain, fmaReference: fmaReference,
             si: si, binary: binary};
  if (typeof module === "object" && module.exports) module.exports = api;
  if (typeof document === "undefined") return;

  // ---- the measurement (browser) ----

  /** Why this page cannot measure, in one sentence, or "" when it may try. */
  function unavailable() {
    if (!root.isSecureContext) {
      return "WebGPU is offered only to secure pages: open the book over https, from " +
        "http://localhost, or from a file on your disk.";
    }
    if (!navigator.gpu) {
      return "This browser does not offer WebGPU; Chrome or Edge 113 or later, Safari 26 " +
        "or Firefox 141 on Windows would run this measurement.";
    }
    return "";
  }

  function Harness(device, timestamps) {
    this.device = device;
    this.timestamps = timestamps;
    this.overhead = 0;
    if (timestamps) {
      this.querySet = device.createQuerySet({type: "timestamp", count: 2});
      this.resolve = device.createBuffer({size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC});
      this.readback = device.createBuffer({size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ});
    }
  }

  /** Seconds of one compute pass in which encode(pass) records its dispatches. */
  Harness.prototype.time = async function (encode) {
    var d = this.device, enc = d.createCommandEncoder(), desc = {};
    if (this.timestamps) {
      desc.timestampWrites = {querySet: this.querySet, beginningOfPassWriteIndex: 0,
                              endOfPassWriteIndex: 1};
    }
    var pass = enc.beginComputePass(desc);
    encode(pass);
    pass.end();
    if (this.timestamps) {
      enc.resolveQuerySet(this.querySet, 0, 2, this.resolve, 0);
      enc.copyBufferToBuffer(this.resolve, 0, this.readback, 0, 16);
    }
    var t0 = performance.now();
    d.queue.submit([enc.finish()]);
    await d.queue.onSubmittedWorkDone();
    var wall = (performance.now() - t0) / 1e3;
    if (!this.timestamps) return Math.max(wall - this.overhead, 1e-9);
    await this.readback.mapAsync(GPUMapMode.READ);
    var ts = new BigUint64Array(this.readback.getMappedRange().slice(0));
    this.readback.unmap();
    return Number(ts[1] - ts[0]) / 1e9;
  };

  /** The shortest of `repeats` passes, each of `reps` dispatches recorded by encode. */
  Harness.prototype.best = async function (encode, repeats) {
    var best = Infinity;
    for (var r = 0; r < repeats; r++) best = Math.min(best, await this.time(encode));
    return best;
  };

  function pipeline(device, code) {
    return device.createComputePipeline({layout: "auto",
      compute: {module: device.createShaderModule({code: code}), entryPoint: "main"}});
  }

  /** Round trip of an empty dispatch (for queue timing), best of ten. */
  async function emptyOverhead(h) {
    var p = pipeline(h.device, EMPTY_WGSL), d = h.device, best = Infinity;
    for (var r = 0; r < 10; r++) {
      var enc = d.createCommandEncoder(), pass = enc.beginComputePass();
      pass.setPipeline(p);
      pass.dispatchWorkgroups(1);
      pass.end();
      var t0 = performance.now();
      d.queue.submit([enc.finish()]);
      await d.queue.onSubmittedWorkDone();
      best = Math.min(best, (performance.now() - t0) / 1e3);
    }
    return best;
  }

  /** Dispatches per pass so that a pass lasts at least targetSeconds (at most 2048). */
  async function dispatchesFor(h, encodeN, target) {
    var reps = 1, t = await h.time(function (pass) { encodeN(pass, 1); });  // warm-up
    t = await h.time(function (pass) { encodeN(pass, 1); });
    while (t < target && reps < 2048) {
      reps = Math.min(2048, reps * Math.max(2, Math.min(16, Math.ceil(target / Math.max(t, 1e-6)))));
      var n = reps;
      t = await h.time(function (pass) { encodeN(pass, n); });
    }
    return reps;
  }

  /** Compare dst with the pattern, 16 MiB at a time; returns true when every word matches. */
  async function checkCopy(d, dst, bytes) {
    var chunk = Math.min(bytes, 16 * MIB);
    var staging = d.createBuffer({size: chunk, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ});
    try {
      for (var off = 0; off < bytes; off += chunk) {
        var enc = d.createCommandEncoder();
        enc.copyBufferToBuffer(dst, off, staging, 0, chunk);
        d.queue.submit([enc.finish()]);
        await staging.mapAsync(GPUMapMode.READ);
        var words = new Uint32Array(staging.getMappedRange()), first = off / 4, ok = true;
        for (var i = 0; i < words.length; i++) {
          if (words[i] !== pattern(first + i)) { ok = false; break; }
        }
        staging.unmap();
        if (!ok) return false;
      }
      return true;
    } finally {
      staging.destroy();
    }
  }

  /** One copy size: best bandwidth (byte/s) over the repeats, and whether the copy checked. */
  async function measureCopy(h, bytes, opts) {
    var d = h.device;
    var src = d.createBuffer({size: bytes, usage: GPUBufferUsage.STORAGE, mappedAtCreation: true});
    var words = new Uint32Array(src.getMappedRange());
    for (var i = 0; i < words.length; i++) words[i] = pattern(i);
    src.unmap();
    var dst = d.createBuffer({size: bytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC});
    try {
      var p = pipeline(d, COPY_WGSL);
      var group = d.createBindGroup({layout: p.getBindGroupLayout(0), entries: [
        {binding: 0, resource: {buffer: src}}, {binding: 1, resource: {buffer: dst}}]});
      var wgs = copyWorkgroups(bytes);
      var encodeN = function (pass, n) {
        pass.setPipeline(p);
        pass.setBindGroup(0, group);
        for (var k = 0; k < n; k++) pass.dispatchWorkgroups(wgs);
      };
      var reps = await dispatchesFor(h, encodeN, opts.targetSeconds);
      var seconds = await h.best(function (pass) { encodeN(pass, reps); }, opts.repeats) / reps;
      var ok = await checkCopy(d, dst, bytes);
      return {kind: "copy", buffer_bytes: bytes, bytes: copyBytes(bytes), dispatches: reps,
              workgroups: wgs, seconds: seconds, bandwidth: copyBytes(bytes) / seconds, check: ok};
    } finally {
      src.destroy();
      dst.destroy();
    }
  }

  /** The FMA shader: best FLOP/s over the repeats, and whether every output checked. */
  async function measureFma(h, opts) {
    var d = h.device, wgs = opts.fmaWorkgroups, n = wgs * WG;
    var params = d.createBuffer({size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST});
    var out = d.createBuffer({size: 4 * n, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC});
    var staging = d.createBuffer({size: 4 * n, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ});
    try {
      var p = pipeline(d, FMA_WGSL);
      var group = d.createBindGroup({layout: p.getBindGroupLayout(0), entries: [
        {binding: 0, resource: {buffer: params}}, {binding: 1, resource: {buffer: out}}]});
      var setIterations = function (iters) {
        var buf = new ArrayBuffer(16);
        new Float32Array(buf, 0, 2).set([FMA_M, FMA_C]);
        new Uint32Array(buf, 8, 1)[0] = iters;
        d.queue.writeBuffer(params, 0, buf);
      };
      var encode = function (pass) {
        pass.setPipeline(p);
        pass.setBindGroup(0, group);
        pass.dispatchWorkgroups(wgs);
      };
      var iters = opts.fmaIterations;
      if (!iters) {  // grow the chains until one dispatch lasts the target time
        iters = 256;
        setIterations(iters);
        await h.time(encode);
        var t = await h.time(encode);
        while (t < 2 * opts.targetSeconds && iters < 16384) {
          iters *= 2;
          setIterations(iters);
          t = await h.time(encode);
        }
      } else {
        setIterations(iters);
        await h.time(encode);  // warm-up
      }
      var seconds = await h.best(encode, opts.repeats);
      var enc = d.createCommandEncoder();
      enc.copyBufferToBuffer(out, 0, staging, 0, 4 * n);
      d.queue.submit([enc.finish()]);
      await staging.mapAsync(GPUMapMode.READ);
      var got = new Float32Array(staging.getMappedRange().slice(0));
      staging.unmap();
      var ref = fmaReference(iters), ok = true, worst = 0;
      for (var i = 0; i < n; i++) {
        var want = ref[i & 1023], err = Math.abs(got[i] - want) / Math.abs(want);
        if (!(err <= FMA_TOLERANCE)) { ok = false; worst = err; break; }
        worst = Math.max(worst, err);
      }
      var flops = fmaFlops(wgs, iters);
      return {kind: "fma", workgroups: wgs, invocations: n, iterations: iters,
              chains: FMA_CHAINS * FMA_LANES, flops: flops, seconds: seconds,
              flop_rate: flops / seconds, check: ok, worst_relative_error: worst};
    } finally {
      params.destroy();
      out.destroy();
      staging.destroy();
    }
  }

  async function adapterInfo(adapter) {
    var info = adapter.info;
    if (!info && adapter.requestAdapterInfo) {
      try { info = await adapter.requestAdapterInfo(); } catch (e) { info = null; }
    }
    info = info || {};
    return {vendor: info.vendor || "", architecture: info.architecture || "",
            device: info.device || "", description: info.description || ""};
  }

  function gpuName(info) {
    var words = [info.vendor, info.architecture, info.description].filter(Boolean);
    return words.length ? words.join(" ") : "this browser's GPU";
  }

  /** Measure both roofs; progress(fraction, text). Returns the labs-schema result. */
  async function measure(options, progress) {
    var opts = Object.assign({}, DEFAULTS, options || {});
    var why = unavailable();
    if (why) return {unavailable: why};
    progress(0.02, "Asking the browser for a GPU adapter…");
    var adapter = await navigator.gpu.requestAdapter({powerPreference: "high-performance"});
    if (!adapter) {
      return {unavailable: "This browser offers WebGPU but gave this page no GPU adapter " +
        "(hardware acceleration off, or the GPU blocked); a browser with WebGPU enabled " +
        "for this GPU would run it."};
    }
    var info = await adapterInfo(adapter);
    var offered = adapter.features.has("timestamp-query"), timestamps = opts.timestamps && offered;
    var limit = Math.min(adapter.limits.maxStorageBufferBindingSize, adapter.limits.maxBufferSize);
    var largest = 16;
    while (largest * 2 <= Math.min(limit, opts.copyMaxBytes)) largest *= 2;
    var device = await adapter.requestDevice({
      requiredFeatures: timestamps ? ["timestamp-query"] : [],
      requiredLimits: {maxStorageBufferBindingSize: largest, maxBufferSize: largest}});
    var errors = [];
    device.addEventListener("uncapturederror", function (e) {
      e.preventDefault();
      errors.push(e.error && e.error.message || "a WebGPU error");
    });
    var lost = null;
    device.lost.then(function (l) { lost = l.message || l.reason || "device lost"; });
    try {
      var h = new Harness(device, timestamps);
      if (!timestamps) h.overhead = await emptyOverhead(h);
      var sizes = [];
      for (var s = 0; s < opts.copySizes && largest >> (2 * s) >= 16; s++) sizes.unshift(largest >> (2 * s));
      var rows = [], steps = sizes.length + 1;
      for (var k = 0; k < sizes.length; k++) {
        progress(0.05 + 0.9 * k / steps, "Copying " + binary(sizes[k]) + " and checking the copy…");
        device.pushErrorScope("out-of-memory");
        var row;
        try {
          row = await measureCopy(h, sizes[k], opts);
        } catch (e) {
          row = {kind: "copy", buffer_bytes: sizes[k], check: false, error: String(e && e.message || e)};
        }
        var oom = await device.popErrorScope();
        if (oom || lost) { row.check = false; row.error = String(oom ? oom.message : lost); }
        rows.push(row);
      }
      progress(0.05 + 0.9 * sizes.length / steps, "Running FMA chains and checking them…");
      var fma = await measureFma(h, opts);
      if (errors.length || lost) { fma.check = false; fma.error = errors.concat(lost || []).join("; "); }
      rows.push(fma);
      var copies = rows.filter(function (r) { return r.kind === "copy" && r.check; });
      var copy = copies[copies.length - 1];
      var ok = Boolean(copy) && fma.check && isFinite(copy.bandwidth) && copy.bandwidth > 0 &&
        isFinite(fma.flop_rate) && fma.flop_rate > 0;
      var name = gpuName(info);
      var now = new Date();
      var result = {
        lab: "intensity",
        context: {
          date: now.toISOString(), gpu_name: name,
          gpu_slug: ("WebGPU-" + name).replace(/[^A-Za-z0-9_.-]+/g, "-"),
          api: "WebGPU", adapter: info, user_agent: navigator.userAgent,
          timing: timestamps ? "timestamp queries" : "queue completion less an empty dispatch",
          empty_dispatch_s: timestamps ? null : h.overhead},
        params: {quick: true, copy_buffer_bytes: sizes, repeats: opts.repeats,
                 fma_workgroups: opts.fmaWorkgroups, fma_iterations: fma.iterations,
                 fma_chains_per_invocation: FMA_CHAINS * FMA_LANES, workgroup_size: WG},
        rows: rows,
        summary: ok ? {copy_bandwidth: copy.bandwidth, fma_flops: fma.flop_rate} : {}
      };
      return {ok: ok, result: result, info: info, timestamps: timestamps, offered: offered};
    } finally {
      device.destroy();
    }
  }

  // ---- the page ----

  function findPlot(section) {
    return section.querySelector(".book-figure .js-plotly-plot, .book-figure-nb .js-plotly-plot");
  }

  /** Add the device's roof, ridge and the ops' dots to the section's roofline. */
  function draw(section, result, label) {
    var gd = findPlot(section);
    if (!gd || !root.Plotly) return Promise.resolve(false);
    var P = result.summary.fma_flops, B = result.summary.copy_bandwidth, ridge = P / B;
    var ops = JSON.parse(section.getAttribute("data-ops") || "[]");
    var x = JSON.parse(section.getAttribute("data-x-range") || "[0.01, 10000]");
    var colour = section.getAttribute("data-colour") || "#e45756";
    var keep = [];
    gd.data.forEach(function (t, i) { if (t.meta === "webgpu") keep.push(i); });
    var traces = [
      {type: "scatter", mode: "lines", name: label + ": roof", meta: "webgpu",
       x: [x[0], ridge, x[1]], y: [x[0] * B, P, P], line: {color: colour, width: 3.5},
       hovertemplate: "%{x:.3g} FLOP/B → %{y:.3s}FLOP/s<extra>" + label + "</extra>"},
      {type: "scatter", mode: "lines+text", name: label + ": ridge " + ridge.toPrecision(3),
       meta: "webgpu", x: [ridge, ridge], y: [P / 1e3, P], text: ["ridge " + ridge.toPrecision(3), ""],
       textposition: "top right", line: {color: colour, dash: "dot", width: 1.5},
       hoverinfo: "skip", showlegend: false}];
    ops.forEach(function (op) {
      traces.push({type: "scatter", mode: "markers", name: op.name + " on " + label,
        meta: "webgpu", x: [op.intensity], y: [Math.min(P, op.intensity * B)],
        marker: {symbol: "diamond", size: 13, color: op.colour, line: {color: colour, width: 2}},
        hovertemplate: op.name + " on " + label + ": %{y:.3s}FLOP/s<extra></extra>"});
    });
    var go = keep.length ? root.Plotly.deleteTraces(gd, keep) : Promise.resolve();
    return go.then(function () { return root.Plotly.addTraces(gd, traces); })
      .then(function () { return root.Plotly.relayout(gd, {"yaxis.autorange": true}); })
      .then(function () { return true; });
  }

  function text(el, value) { if (el) el.textContent = value; }

  function table(result) {
    var rows = result.rows.map(function (r) {
      var what = r.kind === "copy" ? "copy of " + binary(r.buffer_bytes) : "FP32 FMA chains";
      var value = r.kind === "copy" ? r.bandwidth : r.flop_rate;
      var rate = isFinite(value) ? si(value, r.kind === "copy" ? "B/s" : "FLOP/s") : "—";
      var time = isFinite(r.seconds) ? si(r.seconds, "s") : "—";
      return "<tr><td>" + what + "</td><td>" + rate + "</td><td>" + time + "</td><td>" +
        (r.check ? "passed" : "failed") + "</td></tr>";
    }).join("");
    return "<table class=\"table\"><thead><tr><th>shader</th><th>best rate</th>" +
      "<th>time per dispatch</th><th>check</th></tr></thead><tbody>" + rows + "</tbody></table>";
  }

  async function run(section) {
    var button = section.querySelector(".book-webgpu-run");
    var status = section.querySelector(".book-webgpu-status");
    var bar = section.querySelector(".book-webgpu-progress");
    var out = section.querySelector(".book-webgpu-result");
    var link = section.querySelector(".book-webgpu-download");
    button.disabled = true;
    bar.hidden = false;
    bar.value = 0;
    section.removeAttribute("data-state");
    var progress = function (f, msg) { bar.value = f; text(status, msg); };
    var state = "failed";
    try {
      var m = await measure(root.bookWebGPU.options, progress);
      if (m.unavailable) {
        state = "unavailable";
        text(status, m.unavailable);
        return;
      }
      var res = m.result;
      root.bookWebGPU.last = res;
      out.innerHTML = table(res);
      if (!m.ok) {
        text(status, "A shader's output failed its check, so nothing is drawn; the table " +
          "says which.");
        return;
      }
      var name = res.context.gpu_name, day = res.context.date.slice(0, 10);
      var label = "this device (" + (m.info.architecture || m.info.vendor || "WebGPU") + ")";
      var P = res.summary.fma_flops, B = res.summary.copy_bandwidth;
      text(status, name + ": " + si(B, "B/s") + " copied, " + si(P, "FLOP/s") + " FP32, ridge " +
        (P / B).toPrecision(3) + " FLOP/byte. Measured with WebGPU in this browser on " + day +
        "; native CUDA/Metal code reaches more. Timed with " +
        (m.timestamps ? "GPU timestamp queries" : "queue completion, less an empty dispatch's " +
          si(res.context.empty_dispatch_s, "s") + (m.offered ? " (timestamp queries turned off)" :
          " (this adapter offers no timestamp queries)")) +
        ", best of " + res.params.repeats + " repeats.");
      if (link.href && link.href.indexOf("blob:") === 0) URL.revokeObjectURL(link.href);
      link.href = URL.createObjectURL(new Blob([JSON.stringify(res, null, 1)],
                                               {type: "application/json"}));
      link.download = "webgpu-roofline-" + res.context.gpu_slug + "-" + day + ".json";
      link.hidden = false;
      state = (await draw(section, res, label)) ? "drawn" : "measured";
    } catch (e) {
      text(status, "The measurement stopped: " + (e && e.message || e) + ".");
    } finally {
      bar.hidden = true;
      button.disabled = false;
      section.setAttribute("data-state", state);
    }
  }

  function init() {
    document.querySelectorAll(".book-webgpu").forEach(function (section) {
      var button = section.querySelector(".book-webgpu-run");
      var why = unavailable();
      if (why) {
        text(section.querySelector(".book-webgpu-status"), why);
        section.setAttribute("data-state", "unavailable");
        return;
      }
      button.disabled = false;
      button.addEventListener("click", function () { run(section); });
    });
  }

  root.bookWebGPU = {options: {}, measure: measure, api: api, last: null};
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})(typeof window !== "undefined" ? window : this);
