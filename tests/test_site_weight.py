"""The built site's heaviest page, the widget gallery (every figure with its precomputed
steps), stays under the weight the review asked for. Reads the book the other site tests
read (conftest's ``site``; built only where it is not there yet)."""
from __future__ import annotations

#: The review of 2026-12-04 found the gallery at 6.2 MB and asked for it lighter.
GALLERY_BYTES = 6_200_000


def test_the_built_gallery_weighs_under_6_2_mb(site):
    size = (site / "appendix" / "gallery.html").stat().st_size
    assert size < GALLERY_BYTES, f"the gallery page is {size:,} bytes (at most {GALLERY_BYTES:,})"
