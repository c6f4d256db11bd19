// Draw the book's static plotly figures and keep them in the page's light/dark theme.
// Figures are emitted as <div class="book-figure" data-figure="..."> holding their JSON
// (see widgets/static.py); plotly.js itself is served from this site's _static folder.
(function () {
  "use strict";
  var THEMES = {
    light: {font: "#222222", grid: "#dddddd", zero: "#bbbbbb", bg: "rgba(0,0,0,0)", legend: "rgba(255,255,255,0.6)", menu: "#f4f6f8", menuline: "#b0b8c4",
            rail: "#e9edf2", grip: "#c4ccd8", tick: "#7a8494"},
    dark: {font: "#e6e6e6", grid: "#444444", zero: "#666666", bg: "rgba(0,0,0,0)", legend: "rgba(20,20,20,0.6)", menu: "#2b2f36", menuline: "#5c6470",
           rail: "#2b2f36", grip: "#5c6470", tick: "#8a93a0"}
  };
  function themeName() {
    var t = document.documentElement.getAttribute("data-theme");
    if (t === "dark" || t === "light") return t;
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  // A slider's colours (plotly's defaults are light grey rails, bright bars in dark mode).
  function sliderColours(c) {
    return {bgcolor: c.rail, bordercolor: c.menuline, activebgcolor: c.grip, tickcolor: c.tick};
  }
  // Sliders that a dropdown entry installs (widgets/base.py puts them in the entry's
  // layout update, and deeper menus' entries in "updatemenus[k].buttons") get the
  // theme's colours and ``execute: false`` (their steps are applied by stepSlider).
  function prepareSliders(sliders, c) {
    var colours = sliderColours(c);
    (sliders || []).forEach(function (sl) {
      Object.keys(colours).forEach(function (k) { sl[k] = colours[k]; });
      (sl.steps || []).forEach(function (st) { if (st.method === "restyle") st.execute = false; });
    });
  }
  function prepareButtons(buttons, c) {
    (buttons || []).forEach(function (b) {
      var lay = b.args && b.args[1];
      if (!lay || typeof lay !== "object") return;
      if (lay.sliders) prepareSliders(lay.sliders, c);
      Object.keys(lay).forEach(function (k) {
        if (/^updatemenus\[\d+\]\.buttons$/.test(k)) prepareButtons(lay[k], c);
      });
    });
  }
  function prepareLayout(layout, c) {
    prepareSliders(layout.sliders, c);
    (layout.updatemenus || []).forEach(function (m) { prepareButtons(m.buttons, c); });
  }
  function themeLayout(fig) {
    var c = THEMES[themeName()];
    var upd = {"paper_bgcolor": c.bg, "plot_bgcolor": c.bg, "font.color": c.font, "legend.bgcolor": c.legend};
    var layout = (fig && fig.layout) || {};
    Object.keys(layout).forEach(function (key) {
      if (/^[xy]axis\d*$/.test(key)) {
        upd[key + ".gridcolor"] = c.grid;
        upd[key + ".zerolinecolor"] = c.zero;
        upd[key + ".linecolor"] = c.zero;
      }
    });
    // Dropdown menus (the widgets' plotly updatemenus) take the theme's colours too.
    (layout.updatemenus || []).forEach(function (menu, i) {
      upd["updatemenus[" + i + "].bgcolor"] = c.menu;
      upd["updatemenus[" + i + "].bordercolor"] = c.menuline;
      upd["updatemenus[" + i + "].font.color"] = c.font;
    });
    var colours = sliderColours(c);
    (layout.sliders || []).forEach(function (sl, i) {
      Object.keys(colours).forEach(function (k) { upd["sliders[" + i + "]." + k] = colours[k]; });
    });
    return upd;
  }
  function recolour() {
    document.querySelectorAll(".book-figure .js-plotly-plot").forEach(function (gd) {
      prepareLayout(gd.layout, THEMES[themeName()]);
      window.Plotly.relayout(gd, themeLayout(gd));
    });
  }

  // --- Slider steps without a whole-figure replot --------------------------------------
  // A static slider's step restyles the traces its slider moves (widgets/base.py).
  // Plotly.restyle of trace data replots the whole figure: axes, legend, menus and
  // sliders, 30-100 ms a step here, in a later animation frame. Most steps change trace
  // data only, so stepSlider applies them with plotly's own pieces, in the input event:
  // Plotly.animate (no transition, no redraw, every trace module marked not animatable
  // so that animate draws nothing itself) writes the step's values into gd.data and
  // recomputes the figure's defaults and calcdata; then every base plot module redraws
  // its traces and every trace module styles them, as the replot's drawData does. A step
  // whose calcdata changes what the axes or the legend show (the extremes of an
  // autoranged axis's data, a category axis's categories, a trace's name or visibility)
  // gets the whole replot instead. tests/test_slider_steps_browser.py checks that the
  // figure after every step is the same SVG as after Plotly.restyle of that step.
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
  function canStepFast(gd) {
    var fl = gd._fullLayout;
    return !!(fl && Array.isArray(fl._modules) && Array.isArray(fl._basePlotModules) &&
              Array.isArray(fl._visibleModules) && gd._fullData && gd.calcdata);
  }
  function stepped(gd, fast) {
    gd.dataset.lastStep = fast ? "fast" : "replot";
    gd.emit("book_slider_step", {fast: fast});
  }
  function replot(gd, args) {
    return window.Plotly.restyle(gd, args[0], args[1]).then(function () { stepped(gd, false); });
  }
  // Plotly.restyle of x or y forgets the types of the trace's axes (log excepted) and
  // infers them again from the new data; so does a fast step (a changed type: replot).
  function forgetAxisTypes(gd, args) {
    var keys = Object.keys(args[0]);
    if (keys.indexOf("x") < 0 && keys.indexOf("y") < 0) return;
    var fl = gd._fullLayout;
    args[1].forEach(function (j) {
      var t = gd._fullData[j];
      [t.xaxis, t.yaxis].forEach(function (id) {
        if (!id) return;
        var name = id.charAt(0) + "axis" + id.slice(1), ax = fl[name];
        if (ax && ax.type !== "log" && gd.layout[name]) delete gd.layout[name].type;
      });
    });
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
      var fl = gd._fullLayout, now = gd.calcdata === calc ? null : frameOf(gd);
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
      // Redraw the kinds of plot (cartesian, table) that hold a trace the step moved,
      // every trace of them, then style the traces of those kinds.
      var kinds = args[1].map(function (j) { return gd._fullData[j]._module.basePlotModule; });
      var styles = [];
      fl._basePlotModules.forEach(function (m) { if (kinds.indexOf(m) >= 0) m.plot(gd); });
      fl._visibleModules.forEach(function (m) {
        if (m.style && kinds.indexOf(m.basePlotModule) >= 0 && styles.indexOf(m.style) < 0) styles.push(m.style);
      });
      styles.forEach(function (style) { style(gd); });
      tally.fast++;
      stepped(gd, true);
    };
    gd.on("plotly_transitioning", onTransitioning);
    mods.forEach(function (m) { m.animatable = false; });
    window.Plotly.animate(gd, stepFrame(args), {frame: {duration: 0, redraw: false},
                                                transition: {duration: 0}, mode: "immediate"})
      .catch(function () { gd.removeListener("plotly_transitioning", onTransitioning); restore(); });
  }
  function watchSliders(gd) {
    // What the figure's axes and legend show now: every whole replot redraws them.
    gd._bookDrawnFrame = frameOf(gd);
    gd.on("plotly_afterplot", function () { gd._bookDrawnFrame = frameOf(gd); });
    gd.on("plotly_sliderchange", function (ev) {
      var step = ev && ev.step;
      if (!ev.interaction || !step || step.method !== "restyle" || step.execute !== false) return;
      stepSlider(gd, step.args, ev.slider && ev.slider.name);
    });
  }

  function draw(holder) {
    if (holder.dataset.drawn) return;
    holder.dataset.drawn = "1";
    var spec = JSON.parse(holder.querySelector("script[type='application/json']").textContent);
    var gd = holder.querySelector(".book-figure-plot");
    var config = Object.assign({responsive: true, displaylogo: false}, spec.config || {});
    prepareLayout(spec.layout || {}, THEMES[themeName()]);
    window.Plotly.newPlot(gd, spec.data, spec.layout, config).then(function () {
      watchSliders(gd);
      window.Plotly.relayout(gd, themeLayout(gd));
      holder.dataset.ready = "1";
    });
  }
  function drawAll() {
    var holders = document.querySelectorAll(".book-figure");
    if (!holders.length) return;  // a page of prose: plotly.js is not loaded here
    if (!window.Plotly) { console.error("plotly.js did not load"); return; }
    holders.forEach(draw);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
  new MutationObserver(recolour).observe(document.documentElement,
    {attributes: true, attributeFilter: ["data-theme"]});
  window.bookFigures = {draw: drawAll, recolour: recolour, stepSlider: stepSlider};
})();
