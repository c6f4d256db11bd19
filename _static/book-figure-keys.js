// Keyboard and screen-reader access to the static figures' plotly sliders and dropdowns.
// Plotly draws its sliders and menus in SVG, which no key reaches. Over each one this puts
// a native control a reader can Tab to (one stop per control), laid exactly over the
// plotly control it stands for, transparent, with the focus ring drawn around it:
// - a slider: <input type="range"> (arrow keys, Home/End, Page Up/Down), named by the
//   slider's label, its value text the step's label. A key's step is made by plotly's own
//   mouse path (a press on the slider's rail at the step's tick), so it is drawn exactly
//   as a click on that tick is (book-plotly-step.js applies it);
// - a dropdown: <select> over plotly's menu, whose entries are the menu's; choosing one
//   applies the entry as plotly's click on it does.
// A step or an entry puts its words (computed from the model at build time, layout.meta:
// widgets/base.py) in the figure's polite live region (widgets/a11y.py writes it).
// book-plotly.js calls window.bookFigureKeys.attach(holder) once a figure is drawn.
(function () {
  "use strict";
  function plotOf(holder) { return holder.querySelector(".js-plotly-plot"); }
  function plain(text) {
    var d = document.createElement("div");
    d.innerHTML = String(text == null ? "" : text).replace(/<br\s*\/?>/gi, ", ");
    return (d.textContent || "").replace(/\s+/g, " ").trim();
  }
  function sliderName(sl) {
    var prefix = (sl.currentvalue && sl.currentvalue.prefix) || sl.name || "slider";
    return plain(prefix).replace(/[:\s]+$/, "");
  }
  // The words of step k of slider s at the dropdowns' present choice: layout.meta's
  // table (widgets/a11y.py word_table) keeps each part once; a step's parts joined by
  // single spaces are its words.
  function words(gd, s, k) {
    var table = gd.layout.meta && gd.layout.meta.book_words;
    if (!table) return "";
    var choice = (gd.layout.updatemenus || []).map(function (m) {
      return (m.buttons[m.active || 0] || {}).label;
    }).join("\n");
    var steps = table.steps[choice], parts = steps && steps[s] && steps[s][k];
    return parts ? parts.map(function (i) { return table.parts[i]; }).join(" ") : "";
  }
  function announce(holder, text) {
    var live = holder.querySelector(".book-figure-status");
    if (live && text) live.textContent = text;
  }
  // Lay a control's box over the plotly element it stands for (coordinates in the holder).
  function place(box, holder, el) {
    if (!el) { box.hidden = true; return; }
    var h = holder.getBoundingClientRect(), r = el.getBoundingClientRect();
    box.hidden = false;
    box.style.left = (r.left - h.left) + "px";
    box.style.top = (r.top - h.top) + "px";
    box.style.width = Math.max(r.width, 24) + "px";
    box.style.height = Math.max(r.height, 24) + "px";
  }
  // A step to tick k of slider s as the mouse makes it: a press on the slider's rail at
  // the tick's x, released on the figure (plotly's own slider handlers take it from there).
  function mouseStep(gd, s, k) {
    var group = gd.querySelectorAll(".slider-group")[s];
    if (!group) return;
    var rail = group.querySelector(".slider-rail-touch-rect");
    var tick = group.querySelectorAll(".slider-tick-rect")[k];
    if (!rail || !tick) return;
    var rb = rail.getBoundingClientRect(), tb = tick.getBoundingClientRect();
    var at = {bubbles: true, cancelable: true, view: window, button: 0,
              clientX: tb.left + tb.width / 2, clientY: rb.top + rb.height / 2};
    rail.dispatchEvent(new MouseEvent("mousedown", at));
    gd.dispatchEvent(new MouseEvent("mouseup", at));
  }
  // A dropdown entry applied as plotly's click on it applies it: the menu's active entry
  // and the entry's method with its arguments, in one call where the method is update.
  function choose(gd, m, i) {
    var menu = gd.layout.updatemenus[m], b = menu.buttons[i], P = window.Plotly;
    var active = {};
    active["updatemenus[" + m + "].active"] = i;
    if (b.method === "update") return P.update(gd, b.args[0], Object.assign({}, b.args[1], active), b.args[2]);
    var done = b.method && P[b.method] ? P[b.method].apply(null, [gd].concat(b.args || [])) : Promise.resolve();
    return Promise.resolve(done).then(function () { return P.relayout(gd, active); });
  }
  function box(layer, cls) {
    var el = document.createElement("span");
    el.className = "book-key " + cls;
    layer.appendChild(el);
    return el;
  }
  function attach(holder) {
    var gd = plotOf(holder);
    if (!gd || holder._bookKeys) return;
    var layer = document.createElement("div");
    layer.className = "book-figure-keys";
    gd.parentNode.insertBefore(layer, gd.nextSibling);
    var keys = holder._bookKeys = {menus: [], sliders: []};
    function menuControl(m) {
      var wrap = box(layer, "book-key-menu"), sel = document.createElement("select");
      wrap.appendChild(sel);
      sel.addEventListener("change", function () {
        var i = +sel.value;
        choose(gd, m, i).then(function () {
          var b = gd.layout.updatemenus[m].buttons[i];
          var first = (gd.layout.sliders || []).map(function (sl, s) { return words(gd, s, sl.active); })[0];
          announce(holder, plain(b.label) + (first ? ". " + first : ""));
        });
      });
      return wrap;
    }
    function sliderControl(s) {
      var wrap = box(layer, "book-key-slider"), input = document.createElement("input");
      input.type = "range";
      input.min = "0";
      input.step = "1";
      wrap.appendChild(input);
      input.addEventListener("input", function () { mouseStep(gd, s, +input.value); });
      return wrap;
    }
    function sync() {
      var lay = gd.layout, menus = lay.updatemenus || [], sliders = lay.sliders || [];
      while (keys.menus.length < menus.length) keys.menus.push(menuControl(keys.menus.length));
      while (keys.sliders.length < sliders.length) keys.sliders.push(sliderControl(keys.sliders.length));
      var headers = gd.querySelectorAll(".updatemenu-header-group");
      keys.menus.forEach(function (wrap, m) {
        var sel = wrap.firstChild, menu = menus[m];
        if (!menu) { wrap.hidden = true; return; }
        var labels = (menu.buttons || []).map(function (b) { return plain(b.label); });
        if (JSON.stringify(labels) !== sel.dataset.labels) {
          sel.textContent = "";
          labels.forEach(function (text, i) {
            var o = document.createElement("option");
            o.value = String(i);
            o.textContent = text;
            sel.appendChild(o);
          });
          sel.dataset.labels = JSON.stringify(labels);
        }
        sel.value = String(menu.active || 0);
        var heading = (labels[menu.active || 0] || "").split(":")[0];
        sel.setAttribute("aria-label", heading || "menu " + (m + 1));
        place(wrap, holder, headers[m]);
      });
      var groups = gd.querySelectorAll(".slider-group");
      keys.sliders.forEach(function (wrap, s) {
        var input = wrap.firstChild, sl = sliders[s];
        if (!sl) { wrap.hidden = true; return; }
        var steps = sl.steps || [], k = sl.active || 0;
        input.max = String(Math.max(steps.length - 1, 0));
        input.value = String(k);
        input.setAttribute("aria-label", sliderName(sl));
        input.setAttribute("aria-valuetext", plain(steps[k] && steps[k].label));
        place(wrap, holder, groups[s] && groups[s].querySelector(".slider-rail-touch-rect"));
      });
    }
    gd.on("plotly_afterplot", sync);
    gd.on("plotly_sliderchange", function (ev) {
      var sl = ev && ev.slider, s = sl ? sl._index : -1;
      var wrap = keys.sliders[s];
      if (!wrap || !sl) return;
      var input = wrap.firstChild, k = sl.active;
      input.value = String(k);
      input.setAttribute("aria-valuetext", plain(sl.steps[k] && sl.steps[k].label));
      announce(holder, words(gd, s, k));
    });
    // A control's box follows its plotly control (a resize, a menu that moved the sliders).
    layer.addEventListener("focusin", sync);
    sync();
  }
  function attachAll() {
    document.querySelectorAll(".book-figure[data-ready]").forEach(attach);
  }
  window.bookFigureKeys = {attach: attach};
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", attachAll);
  else attachAll();
})();
