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
  // --- The data table follows the figure -------------------------------------------
  // widgets/a11y.py writes each figure's "Data table" (<details>) at the settings it opens
  // with; after a step or a menu choice the same tables are written again here from the
  // figure's present traces, by the same rules (a port of a11y.data_table and
  // a11y.number: 4 significant digits, half to even, an SI prefix beyond a million or
  // below a millionth). While the table is closed it is only marked stale, and written
  // when opened, so a step pays nothing for it.
  var MAX_ROWS = 24;
  var PREFIXES = [[1e18, "E"], [1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"], [1, ""]];
  var SMALL = [[1, ""], [1e-3, "m"], [1e-6, "\u00b5"], [1e-9, "n"]];
  var unescaper = document.createElement("textarea");
  // Plain text as a11y.plain makes it: <br> a comma, tags dropped, entities read, spaces
  // collapsed, spaces and commas trimmed.
  function plainText(text) {
    if (text == null) return "";
    unescaper.innerHTML = String(text).replace(/<br\s*\/?>/gi, ", ").replace(/<[^>]+>/g, "");
    return unescaper.value.replace(/\s+/g, " ").replace(/^[ ,]+|[ ,]+$/g, "");
  }
  // |x| rounded half to even at d decimals (d < 0: to tens, hundreds...), as Python's
  // round() does on the double's exact value; its decimal digits (no sign, no grouping).
  function roundDigits(x, d) {
    var exact = Math.abs(x).toFixed(100).split(".");
    var digits = (exact[0] + exact[1]).split("").map(Number), point = exact[0].length;
    var keep = point + d;                        // digits kept, counted from the left
    if (keep < 0) return d > 0 ? "0." + "0".repeat(d) : "0";
    var rest = digits.slice(keep), kept = digits.slice(0, keep);
    var up = rest.length && (rest[0] > 5 || (rest[0] === 5 &&
             (rest.slice(1).some(function (v) { return v > 0; }) || (kept.length && kept[kept.length - 1] % 2 === 1))));
    if (up) {
      var i = kept.length - 1;
      while (i >= 0 && kept[i] === 9) { kept[i] = 0; i--; }
      if (i >= 0) kept[i] += 1; else { kept.unshift(1); point += 1; keep += 1; }
    }
    while (kept.length < point) kept.push(0);    // d < 0: the dropped places are zeros
    var whole = kept.slice(0, point).join("").replace(/^0+(?=\d)/, "");
    return d > 0 ? whole + "." + kept.slice(point).join("") : whole;
  }
  function trimZeros(text) {
    return text.indexOf(".") < 0 ? text : text.replace(/0+$/, "").replace(/\.$/, "");
  }
  // units.number(x, 4): 4 significant digits, thousands separators, zeros trimmed.
  function plainNumber(x) {
    if (x === 0) return "0";
    var d = 3 - Math.floor(Math.log10(Math.abs(x)));
    var text = roundDigits(x, d).split(".");
    text[0] = text[0].replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    var out = trimZeros(text.join("."));
    return (x < 0 && out !== "0" ? "-" : "") + out;
  }
  // units.si(x, "", 4): x over its prefix's scale to 4 significant digits ("%.4g").
  function siNumber(x) {
    if (!isFinite(x)) return "\u221e";
    var table = Math.abs(x) >= 1 ? PREFIXES : SMALL, row = table[table.length - 1];
    for (var i = 0; i < table.length; i++) {
      if (Math.abs(x) >= table[i][0] * 0.9995) { row = table[i]; break; }
    }
    var r = x / row[0], e = Math.floor(Math.log10(Math.abs(r)));
    var rounded = parseFloat(roundDigits(r, 3 - e));
    if (rounded >= Math.pow(10, e + 1)) e += 1;   // rounding carried into the next power
    var out;
    if (e < -4 || e >= 4) {                       // "%.4g" writes these with an exponent
      out = trimZeros(roundDigits(Math.abs(r) / Math.pow(10, e), 3)) + "e" + (e < 0 ? "-" : "+") +
            (Math.abs(e) < 10 ? "0" : "") + Math.abs(e);
    } else {
      out = trimZeros(roundDigits(r, Math.max(3 - e, 0)));
    }
    return ((r < 0 ? "-" : "") + out + " " + row[1]).trim();
  }
  function cellNumber(v) {
    if (v == null || (typeof v === "number" && isNaN(v))) return "none";
    if (typeof v !== "number") return plainText(v);
    if (v === 0 || (Math.abs(v) >= 1e-6 && Math.abs(v) < 1e6)) return plainNumber(v);
    return siNumber(v);
  }
  function list(v) {
    return v != null && typeof v === "object" && typeof v.length === "number" && typeof v !== "string"
      ? Array.prototype.slice.call(v) : null;
  }
  function titleOf(obj) { return plainText(obj && typeof obj === "object" ? obj.text : obj); }
  // a11y.trace_axis_titles: the titles of the axes a trace is drawn on ("x2" -> xaxis2).
  function traceTitles(lay, t) {
    return [["xaxis", "x"], ["yaxis", "y"]].map(function (a) {
      var ref = typeof t[a[0]] === "string" ? t[a[0]] : a[1];
      var axis = ref.charAt(0) === a[1] ? lay[a[0] + ref.slice(1)] : null;
      return titleOf((axis || {}).title);
    });
  }
  function shown(t) {
    return !(t.hoverinfo === "skip" && t.showlegend === false) && t.visible !== false;
  }
  // (header, rows) of one trace, as a11y._columns makes them.
  function columns(t, xTitle, yTitle) {
    var kind = t.type || "scatter", i;
    if (kind === "table") {
      var head = (list((t.header || {}).values) || []).map(plainText);
      var cols = (list((t.cells || {}).values) || []).map(function (c) { return list(c) || []; });
      var n = cols.length ? Math.min.apply(null, cols.map(function (c) { return c.length; })) : 0, rows = [];
      for (i = 0; i < n; i++) rows.push(cols.map(function (c) { return cellNumber(c[i]); }));
      return [head, rows];
    }
    var z = list(t.z);
    if (z) {
      z = z.map(function (r) { return list(r) || r; });
      var width = Math.max.apply(null, [0].concat(z.map(function (r) { return Array.isArray(r) ? r.length : 0; })));
      var zx = list(t.x), zy = list(t.y);
      if (!zx || zx.length !== width) zx = Array.from({length: width}, function (_, k) { return k; });
      if (!zy || zy.length !== z.length) zy = Array.from({length: z.length}, function (_, k) { return k; });
      var zhead = [yTitle || "y"].concat(zx.map(function (v) { return (xTitle || "x") + " " + cellNumber(v); }));
      return [zhead, zy.map(function (yv, k) {
        return [cellNumber(yv)].concat((Array.isArray(z[k]) ? z[k] : []).map(cellNumber));
      })];
    }
    // A trace drawn at scaled positions names the numbers its table lists instead
    // (meta.table_x: "customdata"; coalescing's byte addresses).
    var byData = (t.meta || {}).table_x === "customdata" && list(t.customdata);
    var xs = (byData ? list(t.customdata) : list(t.x)) || [], ys = list(t.y) || [];
    var texts = Array.isArray(t.text) ? t.text : null;
    var heads = [xTitle || "x", yTitle || "y"].concat(texts ? ["label"] : []), out = [];
    for (i = 0; i < Math.max(xs.length, ys.length); i++) {
      var xv = i < xs.length ? xs[i] : undefined, yv2 = i < ys.length ? ys[i] : undefined;
      if (xv === null && yv2 === null) continue;   // a line's gap
      var row = [cellNumber(xv), cellNumber(yv2)];
      if (texts) row.push(i < texts.length ? plainText(texts[i]) : "");
      out.push(row);
    }
    return [heads, out];
  }
  // a11y.ordinal: 2nd, 3rd, 4th, 11th, 21st.
  function ordinal(n) {
    var suffix = (n % 100 >= 10 && n % 100 <= 20) ? "th" : ({1: "st", 2: "nd", 3: "rd"}[n % 10] || "th");
    return n + suffix;
  }
  function cell(tag, text, attrs) {
    var el = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    el.textContent = text;
    return el;
  }
  function writeTables(holder, gd) {
    var details = holder.querySelector(".book-figure-data");
    if (!details) return;
    var lay = gd.layout || {};
    details.querySelectorAll("table").forEach(function (t) { t.remove(); });
    (gd.data || []).forEach(function (t, k) {
      if (!shown(t)) return;
      var titles = traceTitles(lay, t);
      var made = columns(t, titles[0], titles[1]), head = made[0], rows = made[1];
      if (!rows.length) return;
      var cap = plainText(t.name) || "trace " + (k + 1);
      if (rows.length > MAX_ROWS) {
        var every = Math.ceil(rows.length / MAX_ROWS), n = rows.length;
        if (every > 1) cap += " (every " + ordinal(every) + " of " + n + " points)";
        rows = rows.filter(function (_, j) { return j % every === 0; });
      }
      var table = document.createElement("table"), thead = document.createElement("thead");
      var tbody = document.createElement("tbody"), tr = document.createElement("tr");
      table.className = "table";
      table.appendChild(cell("caption", cap));
      head.forEach(function (h) { tr.appendChild(cell("th", h, {scope: "col"})); });
      thead.appendChild(tr);
      rows.forEach(function (r) {
        var row = document.createElement("tr");
        r.forEach(function (c) { row.appendChild(cell("td", c)); });
        tbody.appendChild(row);
      });
      table.appendChild(thead);
      table.appendChild(tbody);
      details.appendChild(table);
    });
    holder._bookTableStale = false;
  }
  function followTables(holder, gd) {
    var details = holder.querySelector(".book-figure-data");
    if (!details) return;
    function stale() {
      holder._bookTableStale = true;
      if (details.open) writeTables(holder, gd);
    }
    gd.on("book_slider_step", stale);
    gd.on("plotly_restyle", stale);
    gd.on("plotly_update", stale);
    details.addEventListener("toggle", function () {
      if (details.open && holder._bookTableStale) writeTables(holder, gd);
    });
  }
  window.bookFigureTable = {write: writeTables, number: cellNumber};

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
    followTables(holder, gd);
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
