// Scrollable tables a keyboard can reach (appendix/accessibility.md). A book table
// (div.book-table, widgets/static.py) scrolls sideways when it is wider than the column; a
// reader without a mouse could not scroll it (axe-core: scrollable-region-focusable). While it
// overflows, it takes the focus (the arrow keys then scroll it) and is a region named by its
// table's caption; when it fits, it is left out of the Tab order again. The theme does the same
// for its own tables (.pst-scrollable-table-container).
(function () {
  "use strict";

  function label(box) {
    var cap = box.querySelector("caption");
    var text = cap ? cap.textContent.trim() : "";
    return text ? "Table: " + text : "Table";
  }

  function update(box) {
    if (box.scrollWidth > box.clientWidth + 1) {
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", label(box));
    } else if (box.getAttribute("tabindex") === "0") {
      box.removeAttribute("tabindex");
      box.removeAttribute("role");
      box.removeAttribute("aria-label");
    }
  }

  function watch(box) {
    if (box.dataset.a11yWatched) return;
    box.dataset.a11yWatched = "1";
    update(box);
    if (window.ResizeObserver) new ResizeObserver(function () { update(box); }).observe(box);
  }

  function scan() {
    document.querySelectorAll(".book-table").forEach(watch);
  }

  // The primary sidebar (the site's logo, search and table of contents) is a landmark of
  // its own, so no content sits outside one (axe-core: region).
  function landmarkSidebar() {
    var side = document.querySelector(".bd-sidebar-primary");
    if (side && !side.hasAttribute("role")) {
      side.setAttribute("role", "complementary");
      side.setAttribute("aria-label", "Book navigation");
    }
  }

  function start() {
    scan();
    landmarkSidebar();
  }

  // A table that fills in later (the "Measure this device" results) changes size, and its
  // ResizeObserver sees it.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
  window.addEventListener("load", scan);
})();
