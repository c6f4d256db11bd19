"""prefers-reduced-motion on the built site: a reader whose system asks for less motion gets
no transition, no animation and no smooth scrolling (_static/book-a11y.css); a reader who
did not ask keeps the theme's transitions, so the check below can tell the two apart."""
from __future__ import annotations

import pytest

from conftest import open_tab

pytestmark = pytest.mark.browser

PAGES = ("intro.html", "appendix/gallery.html")

#: The longest transition and animation (s) of any element or pseudo-element, and the
#: root's scroll-behavior.
MOTION = """() => {
  const secs = v => Math.max(0, ...v.split(',').map(t => t.trim().endsWith('ms')
      ? parseFloat(t) / 1000 : parseFloat(t) || 0));
  let transition = 0, animation = 0;
  for (const el of document.querySelectorAll('*')) {
    for (const pseudo of [null, '::before', '::after']) {
      const s = getComputedStyle(el, pseudo);
      transition = Math.max(transition, secs(s.transitionDuration) + secs(s.transitionDelay));
      if (s.animationName !== 'none')
        animation = Math.max(animation, secs(s.animationDuration) + secs(s.animationDelay));
    }
  }
  return {transition, animation,
          scroll: getComputedStyle(document.documentElement).scrollBehavior};
}"""


def motion(site_tabs, server, path: str, reduced: str) -> dict:
    page, _ = open_tab(site_tabs, server, reduced_motion=reduced)
    try:
        page.goto(f"{server}/{path}", wait_until="load")
        return page.evaluate(MOTION)
    finally:
        page.close()


@pytest.mark.parametrize("path", PAGES)
def test_reduced_motion_stills_the_site(site_tabs, server, path):
    still = motion(site_tabs, server, path, "reduce")
    # 0.01 ms is the stylesheet's stand-in for none (transitionend still fires).
    assert still["transition"] <= 1e-4 and still["animation"] <= 1e-4, still
    assert still["scroll"] == "auto"


def test_without_the_request_the_theme_keeps_its_transitions(site_tabs, server):
    moving = motion(site_tabs, server, PAGES[0], "no-preference")
    assert moving["transition"] >= 0.1, moving
