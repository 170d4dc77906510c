# SPDX-License-Identifier: GPL-2.0
"""Run the SVG's inline script under node with a small DOM stand-in
(svgshim.js): clicking zooms, / searches, Escape resets."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import DATA_DIR, TESTS_DIR, run_ftd

NS = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("cmd", ["flamegraph", "flamechart", "boot"])
def test_zoom_search_reset(tmp_path: Path, cmd: str) -> None:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("node not installed")
    svg = tmp_path / "f.svg"
    if cmd == "boot":
        run_ftd(cmd, str(DATA_DIR / "boot_icount.txt"), "--svg",
                str(svg), "--min-px", "1")
    else:
        run_ftd(cmd, str(DATA_DIR / "s3_head.txt"), "-o", str(svg))
    root = ET.parse(svg).getroot()
    bands = [dict(r.attrib) for r in root.iter(NS + "rect")
             if r.get("class") == "gap"]
    assert (len(bands) > 100) == (cmd == "boot")
    frames = []
    for g in root.iter(NS + "g"):
        if g.get("class") != "f":
            continue
        rect = g.find(NS + "rect")
        text = g.find(NS + "text")
        title = g.find(NS + "title")
        assert rect is not None and text is not None and title is not None
        frames.append({"g": dict(g.attrib), "rect": dict(rect.attrib),
                       "text": dict(text.attrib), "title": title.text})
    script = re.search(r"<!\[CDATA\[(.*)\]\]>", svg.read_text(),
                       re.S).group(1)  # type: ignore[union-attr]
    (tmp_path / "d.json").write_text(json.dumps(
        {"svg": dict(root.attrib), "frames": frames, "bands": bands}))
    (tmp_path / "s.js").write_text(script)
    # zoom into a frame in the middle of the list with some width
    widest = max(range(len(frames)), key=lambda i: float(
        frames[i]["g"]["data-e"]) - float(frames[i]["g"]["data-s"])
        if i > 0 else 0)
    p = subprocess.run([node, str(TESTS_DIR / "svgshim.js"),
                        str(tmp_path / "d.json"), str(tmp_path / "s.js"),
                        str(widest)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert abs(r["zoom_x"] - r["PAD"]) < 0.01
    assert abs(r["zoom_w"] - r["W"]) < 0.01
    assert r["hidden"] > 0 and "Zoomed" in r["status"]
    assert r["matched"] >= 1 and "Matched" in r["search_status"]
    assert r["hidden_after_reset"] == 0
    if cmd == "boot":
        # zoomed into one call: the gaps outside it hidden, the rest
        # moved inside the picture; all back after the reset
        s0 = float(frames[widest]["g"]["data-s"])
        e0 = float(frames[widest]["g"]["data-e"])
        outside = [b for b in bands if float(b["data-e"]) <= s0 or
                   float(b["data-s"]) >= e0]
        assert 0 < len(outside) < len(bands)
        assert r["bands_hidden"] == len(outside)
        assert r["bands_inside"]
        assert r["bands_hidden_after_reset"] == 0
