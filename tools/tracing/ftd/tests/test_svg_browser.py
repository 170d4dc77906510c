# SPDX-License-Identifier: GPL-2.0
"""The SVGs in a real browser: headless Chromium loads the file, a real
mouse click zooms into a frame, a click on the background resets the
zoom.  Skipped only when no Chromium is installed (scripts/install-deps
installs it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from browser import Browser, find_chromium, frames_state
from conftest import DATA_DIR, run_ftd

S3 = DATA_DIR / "s3_head.txt"

# a point of the page that shows the background, if any
BACKGROUND_POINT = """(function () {
  for (var y = 5; y < innerHeight; y += 7)
    for (var x = 5; x < innerWidth; x += 7) {
      var el = document.elementFromPoint(x, y);
      if (el && el.id === 'bg') return [x, y];
    }
  return null;
})()"""

# the centre of the widest frame that is not a root
FRAME_POINT = """(function () {
  var best = null, bw = 0;
  document.querySelectorAll('g.f').forEach(function (g) {
    var r = g.querySelector('rect').getBoundingClientRect();
    if (+g.getAttribute('data-l') > 0 && r.width > bw &&
        r.width < innerWidth - 40) { best = r; bw = r.width; }
  });
  return [best.left + best.width / 2, best.top + best.height / 2];
})()"""


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    exe = find_chromium()
    if exe is None:
        pytest.skip("chromium is not installed (scripts/install-deps "
                    "installs it)")
    b = Browser(exe)
    yield b
    b.close()


@pytest.mark.parametrize("cmd", ["flamegraph", "flamechart"])
def test_zoom_and_reset_with_the_mouse(browser: Browser, tmp_path: Path,
                                       cmd: str) -> None:
    svg = tmp_path / (cmd + ".svg")
    run_ftd(cmd, str(S3), "-o", str(svg))
    browser.open(svg.as_uri())
    shown, hidden = frames_state(browser)
    assert shown > 50 and hidden == 0
    x, y = browser.eval(FRAME_POINT)
    browser.click(x, y)
    shown2, hidden2 = frames_state(browser)
    assert hidden2 > 0 and shown2 < shown
    assert "Zoomed" in browser.eval(
        "document.getElementById('status').textContent")
    # the background covers the picture and takes the click
    point = browser.eval(BACKGROUND_POINT)
    assert point is not None, "no point of the page shows the background"
    browser.click(point[0], point[1])
    assert frames_state(browser) == [shown, 0]
    # Escape resets too
    browser.click(x, y)
    assert frames_state(browser)[1] > 0
    browser.key("Escape")
    assert frames_state(browser) == [shown, 0]
