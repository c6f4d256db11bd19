// Draw the book's static plotly figures and keep them in the page's light/dark theme.
// Figures are emitted as <div class="book-figure" data-figure="..."> holding their JSON
// (see widgets/static.py); plotly.js itself is served from this site's _static folder, and
// a slider's steps are drawn by book-plotly-step.js (widgets/plotly_step.js).
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
  // theme's colours and ``execute: false`` (their steps are applied by bookPlotlyStep.stepSlider).
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
  // Every figure recoloured for the theme now set; window.bookFigures.recoloured is the
  // promise of the last switch's relayouts (a test waits on it before it looks).
  function recolour() {
    var done = [];
    document.querySelectorAll(".book-figure .js-plotly-plot").forEach(function (gd) {
      prepareLayout(gd.layout, THEMES[themeName()]);
      done.push(window.Plotly.relayout(gd, themeLayout(gd)));
    });
    window.bookFigures.recoloured = Promise.all(done);
    return window.bookFigures.recoloured;
  }

  // Slider steps: widgets/plotly_step.js (window.bookPlotlyStep), loaded before this file
  // as book-plotly-step.js.

  // --- A figure off screen is not painted (book.css: content-visibility) -----------
  // Plotly measures text as it draws (a table wraps its cells by the width of each word),
  // and text inside a skipped element measures as nothing: a table drawn off screen came
  // out with its rows on top of one another. So a figure is painted while plotly draws
  // it: its first plot, and every whole replot (a theme switch, a window resize).
  function paintedWhileDrawn(gd) {
    gd.on("plotly_beforeplot", function () { gd.style.contentVisibility = "visible"; });
    gd.on("plotly_afterplot", function () { gd.style.contentVisibility = ""; });
  }

  function draw(holder) {
    if (holder.dataset.drawn) return;
    holder.dataset.drawn = "1";
    var spec = JSON.parse(holder.querySelector("script[type='application/json']").textContent);
    var gd = holder.querySelector(".book-figure-plot");
    // No mode bar: its buttons were Tab stops, a dozen a figure (book-figure-keys.js
    // gives the sliders and menus the keyboard; zoom stays a drag, reset a double click).
    var config = Object.assign({responsive: true, displaylogo: false}, spec.config || {},
                               {displayModeBar: false});
    prepareLayout(spec.layout || {}, THEMES[themeName()]);
    var step = window.bookPlotlyStep;
    gd._bookAxisTypes = step.axisTypes(spec.layout);
    gd.style.contentVisibility = "visible";
    window.Plotly.newPlot(gd, spec.data, spec.layout, config).then(function () {
      paintedWhileDrawn(gd);
      step.watchSliders(gd);
      return window.Plotly.relayout(gd, themeLayout(gd));
    }).then(function () {
      gd.style.contentVisibility = "";
      holder.dataset.ready = "1";
      if (window.bookFigureKeys) window.bookFigureKeys.attach(holder);
    });
  }
  function drawAll() {
    var holders = document.querySelectorAll(".book-figure");
    if (!holders.length) return;  // a page of prose: plotly.js is not loaded here
    if (!window.Plotly) { console.error("plotly.js did not load"); return; }
    if (!window.bookPlotlyStep) { console.error("book-plotly-step.js did not load"); return; }
    holders.forEach(draw);
    window.addEventListener("load", stopIconWatch);
  }
  // Font Awesome (the theme's icons) watches every change to the page, attributes
  // included, for icons to draw: a slider step changes hundreds of a figure's nodes, each
  // one a record for its watcher to read (0.4 ms of script a step, and the records' cost
  // in the browser). Every icon of this site is in its HTML and is drawn from the first
  // scan, made before the page's load event: the watch is stopped then, on pages of
  // figures.
  function stopIconWatch() {
    var fa = window.FontAwesome;
    if (fa && typeof fa.noAuto === "function") fa.noAuto();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
  new MutationObserver(recolour).observe(document.documentElement,
    {attributes: true, attributeFilter: ["data-theme"]});
  window.bookFigures = {draw: drawAll, recolour: recolour, recoloured: Promise.resolve([])};
})();
