// The book's slider-step engine for plotly figures: a step applied without plotly's
// whole-figure replot. Two pages load it: the built site (book-plotly.js steps the static
// figures' sliders with it) and the live widgets' front end in JupyterLab
// (widgets/livefigure.py applies the kernel's updates with it). It needs plotly.js as
// window.Plotly and defines window.bookPlotlyStep.
(function () {
  "use strict";
  // --- Slider steps without a whole-figure replot --------------------------------------
  // A static slider's step restyles the traces its slider moves (widgets/base.py).
  // Plotly.restyle of trace data replots the whole figure: axes, legend, menus and
  // sliders, 30-100 ms a step here, in a later animation frame. stepSlider applies a step
  // in the input event instead, by one of three paths (the first that can take it):
  // - lean (leanStep): where the step's values are ones plotly's defaults take as given,
  //   they are written into gd.data and gd._fullData, the moved traces are calced again
  //   and redrawn; no figure-wide defaults. Where that moves an autoranged axis's data
  //   extremes or renames a legend entry, a relayout of that axis's autorange (or of the
  //   legend) redraws it ("rerange").
  // - fast: Plotly.animate (no transition, no redraw, every trace module marked not
  //   animatable so that animate draws nothing itself) writes the step's values into
  //   gd.data and recomputes the figure's defaults and calcdata; then every base plot
  //   module redraws its traces and every trace module styles them, as the replot's
  //   drawData does.
  // - replot: a step whose calcdata changes what the axes or the legend show otherwise
  //   (an axis type, a category axis's categories, which traces the legend shows) gets
  //   the whole replot.
  // tests/test_slider_steps_browser.py checks that the figure after every step is the same
  // SVG, drawn from the same full traces and calcdata, as after Plotly.restyle of it.
  function nested(obj, key, value) {
    var ks = key.split("."), o = obj;
    for (var i = 0; i < ks.length - 1; i++) o = o[ks[i]] = o[ks[i]] || {};
    o[ks[ks.length - 1]] = value;
  }
  function stepFrame(args) {
    var upd = args[0], idx = args[1];
    return {traces: idx, data: idx.map(function (j, n) {
      var t = {};
      Object.keys(upd).forEach(function (k) { nested(t, k, upd[k][n]); });
      return t;
    })};
  }
  // The data extremes an autoranged axis takes its range from: every trace's (plotly's
  // trace._extremes) with the entries that another entry dominates left out, as plotly
  // collapses them before it computes the range; equal sets give equal ranges.
  function collapsed(entries, further) {
    var kept = [];
    entries.forEach(function (e) {
      var dominated = kept.some(function (k) {
        return further(k.val, e.val) && k.pad >= e.pad && (k.extrapad || !e.extrapad);
      });
      if (dominated) return;
      kept = kept.filter(function (k) {
        return !(further(e.val, k.val) && e.pad >= k.pad && (e.extrapad || !k.extrapad));
      });
      kept.push(e);
    });
    return kept.map(function (k) { return [k.val, k.pad, !!k.extrapad]; }).sort();
  }
  function extremesOf(gd, ax) {
    var lo = [], hi = [];
    gd._fullData.forEach(function (t) {
      var e = t._extremes && t._extremes[ax._id];
      if (!e) return;
      lo = lo.concat(e.min || []); hi = hi.concat(e.max || []);
    });
    return [collapsed(lo, function (a, b) { return a <= b; }),
            collapsed(hi, function (a, b) { return a >= b; })];
  }
  // What the axes and the legend are drawn from; a step that changes it from what they
  // show (gd._bookDrawnFrame, noted after every whole replot) needs a replot.
  function frameOf(gd) {
    var fl = gd._fullLayout, out = {};
    Object.keys(fl).forEach(function (k) {
      if (!/^[xy]axis\d*$/.test(k)) return;
      var ax = fl[k];
      out[k] = [ax.type, ax.autorange, ax._categories,
                ax.autorange ? extremesOf(gd, ax) : null];
    });
    out.legend = gd._fullData.map(function (t) {
      return t.showlegend ? [t.name, t.visible, t.legendgroup] : null;
    });
    return JSON.stringify(out);
  }
  // The relayout that redraws what moved between two frames (frameOf's): the autorange of
  // the autoranged axes whose data extremes moved, and the legend where a name in it
  // changed ({} where nothing did); null where anything else did (axis types, categories,
  // which traces the legend shows).
  function redrawFor(was, now) {
    var a = JSON.parse(was), b = JSON.parse(now), upd = {}, same = function (x, y) {
      return JSON.stringify(x) === JSON.stringify(y);
    };
    if (!same(Object.keys(a).sort(), Object.keys(b).sort())) return null;
    if (!same(a.legend, b.legend)) {
      var shown = function (l) { return l.map(function (e) { return e && [e[1], e[2]]; }); };
      if (!same(shown(a.legend), shown(b.legend))) return null;
      upd.showlegend = true;
    }
    for (var k in b) {
      if (k === "legend") continue;
      if (!same(a[k].slice(0, 3), b[k].slice(0, 3))) return null;
      if (!same(a[k][3], b[k][3])) upd[k + ".autorange"] = b[k][1];
    }
    return upd;
  }
  function canStepFast(gd) {
    var fl = gd._fullLayout;
    return !!(fl && Array.isArray(fl._modules) && Array.isArray(fl._basePlotModules) &&
              Array.isArray(fl._visibleModules) && gd._fullData && gd.calcdata);
  }
  // How a step was drawn: "lean" (its traces calced again, no defaults), "rerange" (lean,
  // and the axes it moves ranged again), "fast" (Plotly.animate's defaults and calc, then
  // its traces redrawn) or "replot".
  function stepped(gd, path) {
    gd.dataset.lastStep = path;
    gd.emit("book_slider_step", {path: path});
  }
  // The whole replot of a step: Plotly.restyle, keeping the axis types the figure's
  // layout sets (restyle of x or y clears the type of the axes of the figure's first
  // traces, even a type set on purpose: coalescing's stride axis, a category axis, went
  // linear and lost "random").
  function replot(gd, args) {
    return window.Plotly.update(gd, args[0], Object.assign({}, gd._bookAxisTypes), args[1])
      .then(function () { stepped(gd, "replot"); });
  }
  // The axis types a figure's layout sets that replot must keep: not log (restyle keeps
  // that), and only on autoranged axes (relayout of a type ranges its axis again).
  function axisTypes(layout) {
    var out = {};
    Object.keys(layout || {}).forEach(function (k) {
      var ax = layout[k];
      if (/^[xy]axis\d*$/.test(k) && ax && ax.type && ax.type !== "log" && !ax.range &&
          ax.autorange !== false) out[k + ".type"] = ax.type;
    });
    return out;
  }
  // Plotly.restyle of x or y forgets the types of the trace's axes (log excepted) and
  // infers them again from the new data; so does a fast step (a changed type: replot),
  // except for the types the figure's layout sets (see replot).
  function forgetAxisTypes(gd, args) {
    var keys = Object.keys(args[0]);
    if (keys.indexOf("x") < 0 && keys.indexOf("y") < 0) return;
    var fl = gd._fullLayout;
    args[1].forEach(function (j) {
      var t = gd._fullData[j];
      [t.xaxis, t.yaxis].forEach(function (id) {
        if (!id) return;
        var name = id.charAt(0) + "axis" + id.slice(1), ax = fl[name];
        if (ax && ax.type !== "log" && gd.layout[name] && !(gd._bookAxisTypes || {})[name + ".type"])
          delete gd.layout[name].type;
      });
    });
  }
  // --- The lean step: plotly's calc, without its defaults --------------------------
  // Plotly.animate recomputes the whole figure's defaults (every trace, every axis, the
  // sliders and menus: most of a step's time) before it calcs. A step that only moves
  // values the full traces took as given (data arrays, text, colours, in the same shape
  // and of the same kinds, so that no default and no axis type can come out otherwise)
  // needs none of that: the values are written into gd.data and gd._fullData both, and
  // the moved traces (every trace of a trace type with a cross-trace step, such as
  // bars) are calced again as plotly's doCalcdata calcs them. Anything else takes
  // Plotly.animate's path below.
  function getPath(obj, key) {
    var ks = key.split(".");
    for (var i = 0; i < ks.length && obj != null; i++) obj = obj[ks[i]];
    return obj;
  }
  // ``rowGaps``: a row of gaps only in a 2-D array (a heatmap's z) says nothing either
  // (the branch mask's rows not issued yet), so it is left out like a gap.
  function kinds(v, rowGaps) {
    if (!Array.isArray(v)) return v === null ? "null" : typeof v;
    var seen = {};
    v.forEach(function (x) {   // gaps (null) tell plotly nothing of an axis's type
      if (x === null) return;
      if (!Array.isArray(x)) { seen[typeof x] = 1; return; }
      var k = kinds(x);
      if (!(rowGaps && k === "[]")) seen["array:" + k] = 1;
    });
    return "[" + Object.keys(seen).sort().join(",") + "]";
  }
  // A value in place of another that plotly's defaults would take the same way: an
  // array for an array (for the coordinates x, y and z, of the same kinds of element, so
  // that the axes' types stay) or a primitive of the same type.
  function sameShape(key, a, b) {
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    if (!Array.isArray(a)) return typeof a === typeof b;
    if (!/^[xyz]$/.test(key)) return true;
    // gaps only, in place of numbers or the other way: the axis is linear either way
    var ka = kinds(a, key === "z"), kb = kinds(b, key === "z");
    var gaps = function (k, other) { return k === "[]" && other === "[number]"; };
    return ka === kb || gaps(ka, kb) || gaps(kb, ka);
  }
  function hasArray(obj) {
    if (Array.isArray(obj)) return true;
    if (!obj || typeof obj !== "object") return false;
    return Object.keys(obj).some(function (k) { return hasArray(obj[k]); });
  }
  // A trace's _length once x or y is written: plotly's defaults give a scatter or bar
  // trace with both the shorter one's length (and a scatter trace with no mode of its
  // own a mode by it), and a heatmap none (its z sets its size); anything else, or a
  // trace for which that rule did not hold before, gives false (not lean).
  function newLength(input, full, x, y) {
    var type = full.type;
    if (type === "heatmap") return full._length == null ? full._length : false;
    if (!(type === "bar" || (type === "scatter" && input.mode))) return false;
    if (!Array.isArray(input.x) || !Array.isArray(input.y) ||
        full._length !== Math.min(input.x.length, input.y.length)) return false;
    return Math.min(x.length, y.length);
  }
  // The writes of a lean step ([trace, key, value]), or null where it cannot take one.
  // (gd._bookLeanWhy says why not, for whoever debugs a figure.)
  function leanWrites(gd, args) {
    var upd = args[0], idx = args[1], writes = [];
    var no = function (why) { gd._bookLeanWhy = why; return null; };
    for (var n = 0; n < idx.length; n++) {
      var j = idx[n], input = gd.data[j], full = gd._fullData[j];
      if (!input || !full || full.visible !== true || full._input !== input || !full._module ||
          !full._module.calc) return no("trace " + j + " is not a visible calced trace");
      var cats = full._module.categories || [];
      if (hasArray(full.hoverinfo) || hasArray(full.hoverlabel) || (hasArray(full.hovertemplate) &&
          (cats.indexOf("2dMap") >= 0 || cats.indexOf("pie-like") >= 0)) ||
          (full.error_x && full.error_x.visible) || (full.error_y && full.error_y.visible))
        return no("trace " + j + " has per-point hover labels or error bars");
      var keys = Object.keys(upd), x = input.x, y = input.y;
      for (var k = 0; k < keys.length; k++) {
        var key = keys[k], value = upd[key][n], was = getPath(input, key);
        if (value == null && was == null) continue;           // absent, and stays so
        if (value == null || was == null) return no("trace " + j + " " + key + ": set or unset");
        if (getPath(full, key) !== was) return no("trace " + j + " " + key + ": not taken as given");
        if (!sameShape(key, was, value)) return no("trace " + j + " " + key + ": another shape");
        writes.push([j, key, value]);
        if (key === "x") x = value;
        if (key === "y") y = value;
      }
      if (x !== input.x || y !== input.y) {
        var len = newLength(input, full, x, y);
        if (len === false) return no("trace " + j + ": x or y moves, and its length is not plain");
        if (len !== full._length) writes.push([j, "_length", len, "full only"]);
      }
    }
    gd._bookLeanWhy = null;
    return writes;
  }
  // plotly's doCalcdata for the traces given, then the cross-trace step of their types:
  // that step (scatter's fills and stacks, bars' positions) works on a cartesian subplot's
  // traces of one type, so it runs again, on fresh calcdata of all of them, in the
  // subplots that hold a moved trace; other kinds of plot get it figure-wide.
  function calcTraces(gd, idx) {
    var fl = gd._fullLayout, full = gd._fullData, mods = [], where = [];
    var subplotOf = function (t) { return t.xaxis + t.yaxis; };
    idx.forEach(function (j) {
      var m = full[j]._module;
      if (!m.crossTraceCalc) return;
      var k = mods.indexOf(m);
      if (k < 0) { mods.push(m); where.push([]); k = mods.length - 1; }
      if (where[k].indexOf(subplotOf(full[j])) < 0) where[k].push(subplotOf(full[j]));
    });
    var redo = full.map(function (t, j) {
      var k = mods.indexOf(t._module);
      return idx.indexOf(j) >= 0 || (t.visible === true && k >= 0 &&
        (t._module.basePlotModule.name !== "cartesian" || where[k].indexOf(subplotOf(t)) >= 0));
    });
    gd._bookCalced = [];                  // the traces to draw again (drawTraces)
    redo.forEach(function (r, j) { if (r) gd._bookCalced.push(j); });
    for (var j = 0; j < full.length; j++) {
      if (!redo[j]) continue;
      var trace = full[j];
      if (trace.visible !== true || trace._length === 0) return false;
      delete trace._indexToPoints;
      var cd = trace._module.calc(gd, trace);
      if (!Array.isArray(cd) || !cd[0]) return false;
      if (!cd[0].t) cd[0].t = {};
      cd[0].trace = trace;
      // What plotly's hover calc adds: a point's own hover template.
      if (Array.isArray(trace.hovertemplate)) {
        for (var i = 0; i < cd.length; i++) cd[i].ht = trace.hovertemplate[i];
      }
      gd.calcdata[j] = cd;
    }
    mods.forEach(function (m, k) {
      var kind = m.basePlotModule.name, subplots = fl._subplots[kind];
      if (!Array.isArray(subplots)) { m.crossTraceCalc(gd); return; }
      if (kind === "cartesian") subplots = subplots.filter(function (sp) { return where[k].indexOf(sp) >= 0; });
      subplots.forEach(function (sp) {
        m.crossTraceCalc(gd, kind === "cartesian" ? fl._plots[sp] : fl[sp], sp);
      });
    });
    return true;
  }
  // ``whole`` (optional): how a step that needs more than the lean path and a relayout is
  // drawn instead (default: replot). (The relayout is plotly's own: in the live front end,
  // plotly's view reports it to the kernel; its _doNotReportToPy key would stop that, but
  // makes plotly replot the whole figure, 30-50 ms here.)
  function leanStep(gd, args, tally, whole) {
    var writes = leanWrites(gd, args);
    if (!writes) return false;
    writes.forEach(function (w) {
      if (!w[3]) nested(gd.data[w[0]], w[1], w[2]);
      nested(gd._fullData[w[0]], w[1], w[2]);
    });
    var now = calcTraces(gd, args[1]) && frameOf(gd), calced = gd._bookCalced;
    var upd = now && now !== gd._bookDrawnFrame ? redrawFor(gd._bookDrawnFrame, now) : {};
    if (!upd) {
      tally.replot++;                     // gd.data holds the step: restyle redoes the rest
      if (whole) whole(); else replot(gd, args);
      return true;
    }
    if (Object.keys(upd).length) {
      // Autoranged axes' data extremes moved (coalescing's byte addresses), or a name in
      // the legend changed (the roofline explorer's "attention, S=4096"): plotly's
      // relayout of their autorange (which skips the defaults) ranges those axes again and
      // redraws them and the traces; of showlegend, redraws the legend. No calc, and no
      // sliders or menus redrawn.
      tally.fast++;
      window.Plotly.relayout(gd, upd).then(function () {
        if (upd.showlegend) drawTraces(gd, args[1], calced);
        gd._bookDrawnFrame = frameOf(gd);
        stepped(gd, "rerange");
      });
      return true;
    }
    drawTraces(gd, args[1], calced, writes);
    tally.fast++;
    stepped(gd, "lean");
    return true;
  }
  // Redraw the kinds of plot (cartesian, table) that hold a trace the step moved, every
  // trace of them (of a cartesian plot, every trace of the subplots that hold one of
  // ``calced``, the traces calced again, where the step says which), then style the
  // traces of those kinds (scatter's excepted: see below). ``writes`` (a lean step's,
  // optional): tables whose step only rewrote plain cells are written in place instead
  // (tablesInPlace).
  function drawTraces(gd, idx, calced, writes) {
    var fl = gd._fullLayout, styles = [];
    var kinds = idx.map(function (j) { return gd._fullData[j]._module.basePlotModule; });
    fl._basePlotModules.forEach(function (m) {
      if (kinds.indexOf(m) < 0) return;
      if (m.name === "cartesian" && calced) plotSubplots(gd, m, calced);
      else if (m.name !== "table") m.plot(gd);
      else {
        // How the figure's tables were drawn, step by step (for tests and whoever debugs).
        var inPlace = !!writes && tablesInPlace(gd, idx, writes);
        var tally = gd._bookTableSteps = gd._bookTableSteps || {inPlace: 0, plotted: 0};
        tally[inPlace ? "inPlace" : "plotted"]++;
        if (!inPlace) m.plot(gd);
      }
    });
    // Plotly's scatter plot styles each trace it draws as it draws it (the trace's
    // opacity, its line, fill, points and text: singleLineStyle, singleFillStyle,
    // singlePointStyle, textPointStyle), so its figure-wide style pass, which restyles every
    // scatter trace of the figure, drawn again or not, draws nothing new after it (1.5-3 ms
    // a step); bars and the rest are styled only by theirs.
    fl._visibleModules.forEach(function (m) {
      if (m.style && m.name !== "scatter" && kinds.indexOf(m.basePlotModule) >= 0 &&
          styles.indexOf(m.style) < 0) styles.push(m.style);
    });
    styles.forEach(function (style) { style(gd); });
  }
  // --- Tables: cells rewritten in place -------------------------------------------------
  // Plotly's table plot builds each table's model from its trace again (the g.table's
  // datum: its columns, the cells' values, row blocks) and joins every cell to it: fonts,
  // rectangles and text, 2-5 ms a step (online softmax's table: 4.8 of an 8.1 ms step).
  // A cell whose text is plain (a string with none of the characters by which plotly
  // keys a cell for markup, LaTeX or wrapping: [<$&> ]) is drawn as the text itself, in a
  // <text> whose place nothing about the text moves. So where a step only rewrites a
  // table's cell values, plain before and after, in columns of the same lengths, the
  // model the table was drawn from (which its column blocks and cells share) takes the
  // new values and each changed <text> its new text. Anything else: plotly's plot.
  function plainCell(v) { return typeof v === "string" && !/[<$&> ]/.test(v); }
  // (gd._bookTableWhy says why a step's tables were not written in place.)
  function tablesInPlace(gd, idx, writes) {
    var plans = [];
    for (var n = 0; n < idx.length; n++) {
      var j = idx[n];
      if (gd._fullData[j].type !== "table") continue;
      var mine = writes.filter(function (w) { return w[0] === j; }), plan = [];
      if (mine.some(function (w) { return w[1] !== "cells.values"; })) {
        gd._bookTableWhy = "trace " + j + ": a step of more than its cells' values";
        return false;
      }
      if (mine.length && !(plan = tablePlan(gd, gd._fullData[j]))) return false;
      plans.push(plan);
    }
    plans.forEach(function (plan) { plan.forEach(function (write) { write(); }); });
    gd._bookTableWhy = null;
    return true;
  }
  // The writes that put table trace ``full``'s cell values into the model and the cells
  // plotly drew it from, or null where that would not draw what plotly's plot draws.
  function tablePlan(gd, full) {
    var no = function (why) { gd._bookTableWhy = "trace " + full.index + ": " + why; return null; };
    var key = full.uid + gd._context.staticPlot;
    var node = Array.prototype.find.call(gd.querySelectorAll("g.table"), function (g) {
      return g.__data__ && g.__data__.key === key;
    });
    var model = node && node.__data__, cells = full.cells;
    if (!model || !model.cells) return no("no table drawn from it");
    var none = function (v) { return v == null || v === "" || (Array.isArray(v) && !v.length); };
    if (!none(cells.prefix) || !none(cells.suffix) || !none(cells.format))
      return no("a prefix, suffix or format");
    var ov = model.cells.values, nv = cells.values;
    if (!Array.isArray(nv) || !Array.isArray(ov) || ov.length !== nv.length)
      return no("another number of columns");
    for (var c = 0; c < nv.length; c++) {
      if (!Array.isArray(nv[c]) || !Array.isArray(ov[c]) || ov[c].length !== nv[c].length ||
          nv[c].length !== nv[0].length) return no("column " + c + ": another length");
      for (var r = 0; r < nv[c].length; r++)
        if (ov[c][r] !== nv[c][r] && !(plainCell(ov[c][r]) && plainCell(nv[c][r])))
          return no("cell " + c + "," + r + ": not plain text");
    }
    var values = nv.slice();            // as the model holds them (plotly copies the list)
    var plan = [function () { model.cells.values = values; }];
    var blocks = node.querySelectorAll(".column-block");
    for (var k = 0; k < blocks.length; k++) {
      var col = blocks[k].__data__;
      if (!col || col.type !== "cells") continue;
      if (col.calcdata !== model || col.values !== ov[col.specIndex])
        return no("a column block not drawn from the model");
      plan.push(function (col) { return function () { col.values = values[col.specIndex]; }; }(col));
      var texts = blocks[k].querySelectorAll(".cell-text");
      for (var t = 0; t < texts.length; t++) {
        var d = texts[t].__data__;
        if (!d || d.column !== col || d.value !== ov[col.specIndex][d.key] || d.wrapped ||
            d.needsConvertToTspans || texts[t].textContent !== d.value)
          return no("a cell not drawn as its plain value");
        var v = values[col.specIndex][d.key];
        if (v !== d.value) plan.push(function (el, d, v) {
          return function () { d.value = v; el.textContent = v; };
        }(texts[t], d, v));
      }
    }
    return plan;
  }
  // Plotly's cartesian plot(gd) redraws every trace of every subplot; a subplot whose
  // traces the step did not move keeps what it drew (a heatmap beside the moved dots is
  // an image encoded again each time, 2-6 ms). plot(gd, traces) cannot say this: it
  // removes the layers of the traces it is not given. So the subplot list it walks is
  // narrowed, for this call, to the subplots that hold a trace calced again (the moved
  // traces, and every trace of a module with a cross-trace calc, scatter's among them:
  // new calcdata lacks the nodes only a redraw gives back); each of those is drawn
  // whole, as plot(gd) draws it.
  function plotSubplots(gd, m, calced) {
    var fl = gd._fullLayout, all = fl._subplots.cartesian;
    var moved = calced.map(function (j) { return gd._fullData[j].xaxis + gd._fullData[j].yaxis; });
    var some = all.filter(function (s) { return moved.indexOf(s) >= 0; });
    if (some.length === all.length) return m.plot(gd);
    fl._subplots.cartesian = some;
    try { m.plot(gd); } finally { fl._subplots.cartesian = all; }
  }
  function stepSlider(gd, args, name) {
    if (gd._bookPendingReplot) gd._bookPendingReplot();   // a newer step replaces it
    // A slider whose steps have needed the whole replot twice and never less (its steps
    // move an axis: coalescing's stride, the fusion chain's kernel count) restyles at once.
    var tallies = gd._bookTally = gd._bookTally || {};
    var tally = tallies[name || ""] = tallies[name || ""] || {fast: 0, replot: 0};
    if (!canStepFast(gd) || (tally.replot >= 2 && tally.fast === 0)) {
      tally.replot++;
      return replot(gd, args);
    }
    if (leanStep(gd, args, tally)) return;
    var calc = gd.calcdata;
    forgetAxisTypes(gd, args);
    var mods = gd._fullLayout._modules.slice(), animatable = mods.map(function (m) { return m.animatable; });
    var restored = false;
    var restore = function () {
      if (!restored) mods.forEach(function (m, i) { m.animatable = animatable[i]; });
      restored = true;
    };
    var onTransitioning = function () {
      gd.removeListener("plotly_transitioning", onTransitioning);
      restore();
      var now = gd.calcdata === calc ? null : frameOf(gd);
      if (now !== gd._bookDrawnFrame) {
        // Restyle (the whole replot) once the transition has ended: plotly skips
        // autorange while one runs.
        gd._bookReplotWhy = [gd._bookDrawnFrame, now];
        tally.replot++;
        var onEnd = function () { cancel(); replot(gd, args); };
        var cancel = function () {
          gd.removeListener("plotly_transitioned", onEnd);
          gd._bookPendingReplot = null;
        };
        gd._bookPendingReplot = cancel;
        gd.on("plotly_transitioned", onEnd);
        return;
      }
      drawTraces(gd, args[1]);
      tally.fast++;
      stepped(gd, "fast");
    };
    gd.on("plotly_transitioning", onTransitioning);
    mods.forEach(function (m) { m.animatable = false; });
    window.Plotly.animate(gd, stepFrame(args), {frame: {duration: 0, redraw: false},
                                                transition: {duration: 0}, mode: "immediate"})
      .catch(function () { gd.removeListener("plotly_transitioning", onTransitioning); restore(); });
  }
  // What the figure's axes and legend show now (gd._bookDrawnFrame), kept up to date:
  // every whole replot redraws them. Once per figure.
  function watchFrame(gd) {
    if (gd._bookDrawnFrame !== undefined) return;
    gd._bookDrawnFrame = frameOf(gd);
    gd.on("plotly_afterplot", function () { gd._bookDrawnFrame = frameOf(gd); });
  }
  function watchSliders(gd) {
    watchFrame(gd);
    gd.on("plotly_sliderchange", function (ev) {
      var step = ev && ev.step;
      if (!ev.interaction || !step || step.method !== "restyle" || step.execute !== false) return;
      stepSlider(gd, step.args, ev.slider && ev.slider.name);
    });
  }

  // A kernel's update of a live figure (the trace properties of plotly's restyle, per
  // trace in ``idx``), drawn as a lean step where it can be; ``whole`` draws anything
  // else (plotly's own update). Returns false where nothing was drawn or written: the
  // caller draws the update itself.
  function liveUpdate(gd, upd, idx, whole) {
    if (!canStepFast(gd) || !upd || !Array.isArray(idx) || !idx.length) return false;
    watchFrame(gd);
    gd._bookTally = gd._bookTally || {fast: 0, replot: 0};
    return leanStep(gd, [upd, idx], gd._bookTally, whole);
  }

  window.bookPlotlyStep = {stepSlider: stepSlider, watchSliders: watchSliders,
                           axisTypes: axisTypes, liveUpdate: liveUpdate};
})();
