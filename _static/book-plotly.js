// Draw the book's static plotly figures and keep them in the page's light/dark theme.
// Figures are emitted as <div class="book-figure" data-figure="..."> holding their JSON
// (see widgets/static.py); plotly.js itself is served from this site's _static folder.
(function () {
  "use strict";
  var THEMES = {
    light: {font: "#222222", grid: "#dddddd", zero: "#bbbbbb", bg: "rgba(0,0,0,0)", legend: "rgba(255,255,255,0.6)", menu: "#f4f6f8", menuline: "#b0b8c4"},
    dark: {font: "#e6e6e6", grid: "#444444", zero: "#666666", bg: "rgba(0,0,0,0)", legend: "rgba(20,20,20,0.6)", menu: "#2b2f36", menuline: "#5c6470"}
  };
  function themeName() {
    var t = document.documentElement.getAttribute("data-theme");
    if (t === "dark" || t === "light") return t;
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
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
    return upd;
  }
  function recolour() {
    document.querySelectorAll(".book-figure .js-plotly-plot").forEach(function (gd) {
      window.Plotly.relayout(gd, themeLayout(gd));
    });
  }
  function draw(holder) {
    if (holder.dataset.drawn) return;
    holder.dataset.drawn = "1";
    var spec = JSON.parse(holder.querySelector("script[type='application/json']").textContent);
    var gd = holder.querySelector(".book-figure-plot");
    var config = Object.assign({responsive: true, displaylogo: false}, spec.config || {});
    window.Plotly.newPlot(gd, spec.data, spec.layout, config).then(function () {
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
  window.bookFigures = {draw: drawAll, recolour: recolour};
})();
