// The answer boxes under the numeric exercises (issue 36): the reader types "0.21 ms",
// "21%", "2.6e-4 s" or "4.2 TB/s" and the page answers as exercises.check does in a
// notebook: right, close (and how close), or not yet with the same hint, in the box's
// polite live region.
//
// This file is the Python checker's steps (exercises/registry.py's judge and
// exercises/_reading.py) written again in JavaScript; the unit table and the key come from
// the registry at build time (_ext/answer_boxes.py puts them in the page as JSON, without
// the answers in the student edition). tests/test_check_js.py runs thousands of answers
// through both and asserts the same words: change both together.
(function (root) {
  "use strict";

  // ---- Python's number formats ("%.6g", "%.1f", "{:,.0f}") on the double's exact value ----
  // The exact decimal digits of x > 0: {ds: digits from the first non-zero, e: the power
  // of ten of that first digit}.
  function exact(x) {
    var s;
    if (x >= 1e21) s = BigInt(x).toString() + ".";
    else if (x >= 1e-90) s = x.toFixed(100);
    else {                                   // too small for toFixed: no tie can occur here
      var t = x.toExponential(30).split("e");
      return {ds: t[0].replace(".", ""), e: parseInt(t[1], 10)};
    }
    var parts = s.split("."), all = parts[0] + (parts[1] || "");
    var i = all.search(/[1-9]/);
    return {ds: all.slice(i), e: parts[0].length - 1 - i};
  }
  // ds rounded half to even to n digits (n >= 0): {ds, carry} (carry: a digit was added).
  function roundTo(ds, n) {
    var kept = ds.slice(0, n).split("").map(Number), rest = ds.slice(n);
    while (kept.length < n) kept.push(0);
    var up = rest.length > 0 && (rest[0] > "5" || (rest[0] === "5" &&
             (/[1-9]/.test(rest.slice(1)) || (n > 0 && kept[n - 1] % 2 === 1))));
    var carry = false;
    if (up) {
      var i = n - 1;
      while (i >= 0 && kept[i] === 9) { kept[i] = 0; i--; }
      if (i >= 0) kept[i] += 1; else { kept.unshift(1); carry = true; }
    }
    return {ds: kept.join(""), carry: carry};
  }
  function negative(x) { return x < 0 || Object.is(x, -0); }
  function special(x) {
    if (isNaN(x)) return "nan";
    if (!isFinite(x)) return x > 0 ? "inf" : "-inf";
    return null;
  }
  // format(x, ".{p}g")
  function g(x, p) {
    if (p === undefined) p = 6;
    var sp = special(x);
    if (sp) return sp;
    var sign = negative(x) ? "-" : "";
    if (x === 0) return sign + "0";
    var ex = exact(Math.abs(x)), r = roundTo(ex.ds, p), e = ex.e + (r.carry ? 1 : 0);
    var ds = r.ds.slice(0, p), body;
    if (e >= -4 && e < p) {
      if (e >= 0) body = ds.slice(0, e + 1) + "." + ds.slice(e + 1);
      else body = "0." + "0".repeat(-e - 1) + ds;
      body = body.replace(/0+$/, "").replace(/\.$/, "");
    } else {
      body = (ds[0] + "." + ds.slice(1)).replace(/0+$/, "").replace(/\.$/, "") +
             "e" + (e < 0 ? "-" : "+") + (Math.abs(e) < 10 ? "0" : "") + Math.abs(e);
    }
    return sign + body;
  }
  // format(x, ".{d}f") for |x| < 1e21
  function fixed(x, d) {
    var sp = special(x);
    if (sp) return sp;
    var sign = negative(x) ? "-" : "";
    if (x === 0) return sign + (d > 0 ? "0." + "0".repeat(d) : "0");
    var ex = exact(Math.abs(x)), n = ex.e + 1 + d;   // digits kept
    var ds, e = ex.e;
    if (n < 0) ds = "";
    else { var r = roundTo(ex.ds, n); ds = r.ds; if (r.carry) e += 1; }
    var whole = e >= 0 ? ds.slice(0, e + 1) : "0";
    var frac = e >= 0 ? ds.slice(e + 1) : ("0".repeat(-e - 1) + ds);
    while (whole.length < e + 1) whole += "0";
    frac = (frac + "0".repeat(d)).slice(0, d);
    var out = (whole || "0") + (d > 0 ? "." + frac : "");
    if (/^[0.]*$/.test(out) && sign === "-") return "-" + out;   // Python keeps "-0.0"
    return sign + out;
  }
  function grouped(text) { return text.replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  function percentOf(x, d) { return fixed(x * 100, d) + "%"; }

  // ---- Reading an answer (exercises/_reading.py) ----
  var SPACES = " \t\n\r\f\v\u00a0\u2009\u202f";
  function strip(s) {
    var a = 0, b = s.length;
    while (a < b && SPACES.indexOf(s[a]) >= 0) a++;
    while (b > a && SPACES.indexOf(s[b - 1]) >= 0) b--;
    return s.slice(a, b);
  }
  var NUMBER = /^([+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|inf(?:inity)?))/i;
  var POWER = /^(?:[x\u00d7*\u00b7]|times)[ \t]*10[ \t]*\^[ \t]*([+-]?\d+)/;
  var PER = /[ \t]+per[ \t]+/g;
  var WORD = /^[A-Za-z][A-Za-z-]*$/;
  function has(obj, k) { return Object.prototype.hasOwnProperty.call(obj, k); }
  function toFloat(text) {
    var t = text.toLowerCase(), neg = t[0] === "-";
    var body = t.replace(/^[+-]/, "");
    if (body === "nan") return NaN;
    if (body === "inf" || body === "infinity") return neg ? -Infinity : Infinity;
    return Number(text);
  }

  function Reader(rules) { this.rules = rules; }
  Reader.prototype.singular = function (word) {
    var w = word.toLowerCase();
    if (/(s|x|ch|sh)es$/.test(w)) return w.slice(0, -2);
    if (/s$/.test(w) && !/ss$/.test(w) && w.length > 2) return w.slice(0, -1);
    return w;
  };
  Reader.prototype.base = function (token) {
    var B = this.rules.bases, P = this.rules.prefixes;
    if (has(B, token)) return [B[token][0], B[token][1]];
    var prefixes = Object.keys(P).sort(function (a, b) { return b.length - a.length; });
    for (var i = 0; i < prefixes.length; i++) {
      var p = prefixes[i], rest = token.slice(p.length);
      if (token.indexOf(p) === 0 && has(B, rest) && B[rest][2].indexOf(p) >= 0)
        return [B[rest][0], B[rest][1] * P[p]];
    }
    if (WORD.test(token)) return ["count:" + this.singular(token), 1];
    return null;
  };
  Reader.prototype.unitOf = function (text) {
    text = strip(text).replace(PER, "/");
    if (text === "") return ["", 1];
    if (text === "%" || text.toLowerCase() === "percent") return ["percent", 1];
    var parts = text.split("/").map(strip);
    if (parts.length > 2 || parts.some(function (p) { return !p; })) return null;
    var read = parts.map(this.base, this);
    if (read.some(function (r) { return r === null; })) return null;
    if (read.length === 1) return read[0];
    return [read[0][0] + "/" + read[1][0], read[0][1] / read[1][1]];
  };
  // [number, unit text] or the message fragment saying why it is not a number
  Reader.prototype.read = function (text) {
    var t = strip(text).replace(/[,_]/g, "").replace(/\u2212/g, "-");
    var m = NUMBER.exec(t);
    if (!m) return 'the text "' + strip(text) + '"';
    var digits = m[1], rest = strip(t.slice(m[0].length));
    var p = POWER.exec(rest);
    if (p && !/^[a-z]/i.test(digits.replace(/^[+-]+/, ""))) {
      var lower = digits.toLowerCase(), k = lower.indexOf("e");
      var mantissa = k < 0 ? lower : lower.slice(0, k), exp = k < 0 ? 0 : parseInt(lower.slice(k + 1), 10);
      digits = mantissa + "e" + (exp + parseInt(p[1], 10));
      rest = strip(rest.slice(p[0].length));
    }
    var number = toFloat(digits);
    if (has(this.rules.multipliers, rest)) { number = number * this.rules.multipliers[rest]; rest = ""; }
    return [number, rest];
  };

  // ---- The verdict (exercises/registry.py) ----
  function asked(unit) {
    var words = {"": "as a plain number", "%": "in percent (%)",
                 "fraction": "as a fraction (or a percentage with %)",
                 "x": "as a ratio (3.2 or 3.2x)"};
    return has(words, unit) ? words[unit] : "in " + unit;
  }
  function times(x) {
    var r = Number(g(x, 2));
    if (r < 10) return g(r, 2);
    if (r < 1e6) return grouped(fixed(r, 0));
    var scales = [[1e12, "trillion"], [1e9, "billion"], [1e6, "million"]];
    for (var i = 0; i < scales.length; i++) {
      var scale = scales[i][0], name = scales[i][1];
      if (r < 1000 * scale && r >= scale) {
        var m = g(r / scale, 2);
        return m === "1" ? "a " + name : m + " " + name;
      }
    }
    return "10^" + (BigInt(r).toString().length - 1);
  }
  function factor(ratio) {
    if (!(0 < ratio && ratio < Infinity) || !(0 < 1 / ratio && 1 / ratio < Infinity))
      return ratio > 1 ? "far too high" : "far too low";
    if (ratio >= 1.5) return "about " + times(ratio) + " times too high";
    if (0 < ratio && ratio <= 1 / 1.5) return "about " + times(1 / ratio) + " times too low";
    return ratio > 1 ? "too high" : "too low";
  }
  function quantity(x, unit) {
    if (unit === "%") return g(x, 4) + "%";
    if (unit === "fraction") return g(x, 4) + " (" + g(x * 100, 3) + "%)";
    if (unit === "x") return g(x, 4) + " times";
    return (g(x, 4) + " " + unit).replace(/\s+$/, "");
  }

  function Checker(rules) { this.reader = new Reader(rules); }
  Checker.prototype.compatible = function (unit, dim) {
    if (dim === "") return true;
    if (unit === "%" || unit === "fraction") return dim === "percent";
    var want = this.reader.unitOf(unit);
    if (want === null || want[0] === "" || want[0] === "ratio") return dim === "ratio" || dim === "percent";
    return dim === want[0];
  };
  // [number, written with %, what was read] or the message saying why not
  Checker.prototype.readText = function (text, unit) {
    var a = asked(unit);
    if (!strip(text)) return "no answer given: type a number " + a + ", e.g. 4.2.";
    var got = this.reader.read(text);
    if (typeof got === "string") return "please give a number " + a + ", not " + got + ".";
    var number = got[0], typed = got[1], dim = this.reader.unitOf(typed);
    if (dim === null)
      return '"' + typed + '" is not a unit the checker knows: give a number ' + a +
             " (a number alone is read that way).";
    if (!this.compatible(unit, dim[0]))
      return '"' + typed + '" does not measure what this question asks: give a number ' + a + ".";
    if (dim[0] === "percent") return [number, true, ""];
    if (dim[0] === "" || dim[0] === "ratio") return [number * dim[1], false, ""];
    var value = number * dim[1] / this.reader.unitOf(unit)[1];
    var read = value === number ? "" : " (read " + g(number) + " " + typed + " as " + g(value) + " " + unit + ")";
    return [value, false, read];
  };
  function formatSlip(ex, number, percent, truth) {
    if (percent || !(0 < Math.abs(number) && Math.abs(number) <= 1) || truth === 0) return "";
    if (ex.unit === "%" && Math.abs(number * 100 - truth) <= ex.rel_tol * Math.abs(truth)) {
      var p = g(number * 100);
      return g(number) + " reads as " + g(number) + "%; as a fraction it is " + p +
             "%, which is right. This question asks for a percentage: write " + p + " or " + p + "%.";
    }
    if (ex.unit === "fraction" && Math.abs(number / 100 - truth) <= ex.rel_tol * Math.abs(truth))
      return g(number) + " reads as a fraction, " + g(number * 100) + "%. If you meant " + g(number) +
             "%, write " + g(number) + "% (or the fraction " + g(number / 100) + ").";
    return "";
  }
  function verdict(ex, number, percent, read, truth) {
    var label = ex.id, given = number;
    if (ex.unit === "fraction" && (percent || Math.abs(number) > 1)) {
      number = number / 100;
      read = " (read " + g(given) + " as a percentage, " + g(number) + ")";
    } else if (ex.unit === "fraction") {
      read = " (read " + g(given) + " as a fraction)";
    } else if (percent && ex.unit !== "%") {
      number = number / 100;
      read = " (read " + g(given) + "% as " + g(number) + ")";
    }
    var err = truth !== 0 ? Math.abs(number - truth) / Math.abs(truth) : Math.abs(number);
    var hint = ex.hint ? " Hint: " + ex.hint : "";
    if (err <= ex.rel_tol)
      return {text: label + ": right" + read + ". The answer is " + quantity(truth, ex.unit) + ".", status: "right"};
    var side = number > truth ? "high" : "low";
    if (err <= ex.close_tol)
      return {text: label + ": close" + read + ": " + percentOf(err, 1) + " too " + side + " (within " +
              percentOf(ex.rel_tol, 0) + " counts as right). Check your rounding and the numbers you used." + hint,
              status: "close"};
    var slip = formatSlip(ex, given, percent, truth);
    if (slip) return {text: label + ": not yet: " + slip, status: "wrong"};
    var message = label + ": not yet" + read;
    if (truth !== 0 && number !== 0 && (number > 0) === (truth > 0)) {
      var ratio = number / truth;
      message += ": " + factor(ratio) + ".";
      var decades = (0 < ratio && ratio < Infinity) ? Math.log10(ratio) : 0;
      var k = Math.round(decades);
      if (Math.abs(decades) >= 2.5 && Math.abs(decades - k) < 0.1)
        message += " A factor of " + times(Number("1e" + Math.abs(k))) +
                   " often means a unit slip: give the answer " + asked(ex.unit) + ", or type its unit.";
    } else if (truth !== 0 && number !== 0) {
      message += ": the sign is wrong.";
    } else {
      message += ".";
    }
    return {text: message + (hint || " Recount the FLOPs and bytes."), status: "wrong"};
  }
  // The verdict on a typed answer: {text, status}; ex = {id, unit, answer, rel_tol, close_tol, hint}.
  Checker.prototype.judge = function (ex, text) {
    var got = this.readText(String(text), ex.unit);
    if (typeof got === "string") return {text: ex.id + ": " + got, status: "invalid"};
    if (!isFinite(got[0]))
      return {text: ex.id + ": " + g(got[0]) + " is not a finite number; give a plain number.", status: "invalid"};
    return verdict(ex, got[0], got[1], got[2], ex.answer);
  };

  // ---- The boxes on the page ----
  function box(doc, checker, ex, where) {
    var form = doc.createElement("form");
    form.className = "book-check";
    form.setAttribute("novalidate", "");
    var id = "book-check-" + ex.id;
    var label = doc.createElement("label");
    label.setAttribute("for", id);
    label.textContent = "Your answer (" + asked(ex.unit) + "):";
    var input = doc.createElement("input");
    input.type = "text";
    input.id = id;
    input.setAttribute("autocomplete", "off");
    input.setAttribute("spellcheck", "false");
    input.setAttribute("inputmode", "text");
    var button = doc.createElement("button");
    button.type = "submit";
    button.textContent = "Check";
    var out = doc.createElement("p");
    out.className = "book-check-verdict";
    out.setAttribute("role", "status");        // a polite live region
    out.setAttribute("aria-live", "polite");
    form.appendChild(label);
    form.appendChild(input);
    form.appendChild(button);
    form.appendChild(out);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var v = checker.judge(ex, input.value);
      out.textContent = v.text;
      out.dataset.status = v.status;
    });
    where.parentNode.insertBefore(form, where.nextSibling);
    return form;
  }
  function note(doc, ex, where, text) {
    var p = doc.createElement("p");
    p.className = "book-check book-check-elsewhere";
    p.textContent = text.replace("{id}", ex.id);
    where.parentNode.insertBefore(p, where.nextSibling);
  }
  function install(doc) {
    var holder = doc.getElementById("book-check-key");
    if (!holder) return;
    var key = JSON.parse(holder.textContent), checker = new Checker(key.rules);
    Object.keys(key.exercises).forEach(function (id) {
      var where = doc.getElementById(id);
      if (!where || !where.classList.contains("exercise")) return;
      var ex = key.exercises[id];
      ex.id = id;
      if (key.elsewhere) note(doc, ex, where, key.elsewhere);
      else box(doc, checker, ex, where);
    });
  }

  var api = {g: g, fixed: fixed, times: times, Reader: Reader, Checker: Checker, install: install};
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else if (root.document) {
    if (root.document.readyState === "loading")
      root.document.addEventListener("DOMContentLoaded", function () { install(root.document); });
    else install(root.document);
  }
})(typeof window !== "undefined" ? window : this);
