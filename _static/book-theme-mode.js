// The colour mode on a reader's first visit. pydata-sphinx-theme's head script copies
// localStorage's "mode" into <html data-mode>, or else the theme option default_mode,
// which this book leaves unset: a fresh browser then gets data-mode="" and the theme logs
// "Got invalid theme mode: . Resetting to auto." (a console error) when it reads it at
// DOMContentLoaded. This file runs before then (Jupyter Book adds every _static/*.js as
// a plain script in the head) and says "auto", the mode the theme falls back to anyway.
(function () {
  "use strict";
  var root = document.documentElement;
  var mode = root.dataset.mode;
  if (mode !== "light" && mode !== "dark" && mode !== "auto") root.dataset.mode = "auto";
})();
