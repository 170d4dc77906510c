# SPDX-License-Identifier: GPL-2.0
"""Exports: folded stacks, SVG, Chrome trace-event JSON, speedscope."""

from __future__ import annotations

import json
import lzma
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import DATA_DIR, TRACES_DIR, run_ftd

S3 = DATA_DIR / "s3_head.txt"
FOLDED = re.compile(r"^[^ ;][^;]*(;[^;]+)* \d+(\.\d+)?$")


def source(tmp_path: Path) -> Path:
    full = TRACES_DIR / "S3.txt.xz"
    if full.exists():
        p = tmp_path / "S3.txt"
        p.write_bytes(lzma.decompress(full.read_bytes()))
        return p
    return S3


def test_folded_sums_to_local(ftd) -> None:  # type: ignore
    out = ftd("folded", "--weight", "ns", str(S3))
    total = 0
    for line in out.splitlines():
        assert FOLDED.match(line), line
        total += int(line.rsplit(" ", 1)[1])
    rep = json.loads(ftd("report", "-f", "json", str(S3)))
    # every call's local time lands on exactly one stack
    assert abs(total - sum(round(r["local_us"] * 1000) for r in rep)) < 5
    cnt = ftd("folded", "--weight", "count", "--per-task", str(S3))
    assert sum(int(ln.rsplit(" ", 1)[1]) for ln in cnt.splitlines()) == \
        sum(r["count"] for r in rep)
    assert all(ln.split(";")[0].rpartition("-")[2].isdigit()
               for ln in cnt.splitlines())


def test_speedscope_valid(tmp_path: Path) -> None:
    out = tmp_path / "s.json"
    run_ftd("speedscope", str(source(tmp_path)), "-o", str(out))
    doc = json.loads(out.read_text())
    assert doc["$schema"] == \
        "https://www.speedscope.app/file-format-schema.json"
    nframes = len(doc["shared"]["frames"])
    assert doc["profiles"]
    for prof in doc["profiles"]:
        assert prof["type"] == "evented"
        stack = []
        last = float("-inf")
        for ev in prof["events"]:
            assert ev["at"] >= last
            last = ev["at"]
            assert 0 <= ev["frame"] < nframes
            if ev["type"] == "O":
                stack.append(ev["frame"])
            else:
                assert stack and stack.pop() == ev["frame"]
        assert not stack
        assert prof["startValue"] <= prof["endValue"]


def test_chrome_nests(tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    for tracks in ("task", "cpu"):
        run_ftd("chrome", "--tracks", tracks, str(source(tmp_path)),
                "-o", str(out))
        doc = json.loads(out.read_text())
        per: dict = {}
        names = 0
        for ev in doc["traceEvents"]:
            if ev["ph"] == "M":
                names += ev["name"] == "thread_name"
                continue
            assert ev["ph"] == "X" and ev["dur"] >= 0
            per.setdefault((ev["pid"], ev["tid"]), []).append(ev)
        assert names >= len(per) > 0
        for evs in per.values():
            evs.sort(key=lambda e: (e["ts"], -e["dur"]))
            open_ends: list = []
            for e in evs:
                while open_ends and open_ends[-1] <= e["ts"] + 1e-6:
                    open_ends.pop()
                end = e["ts"] + e["dur"]
                if open_ends:
                    assert end <= open_ends[-1] + 1e-6
                open_ends.append(end)


@pytest.mark.parametrize("cmd", ["flamegraph", "flamechart"])
def test_svg_well_formed(tmp_path: Path, cmd: str) -> None:
    out = tmp_path / "f.svg"
    run_ftd(cmd, str(S3), "-o", str(out), "--highlight", "preempt_count*")
    root = ET.parse(out).getroot()
    assert root.tag.endswith("svg")
    text = out.read_text()
    assert "<script>" in text and "http" not in text.replace(
        "http://www.w3.org/2000/svg", "")
    # --highlight replaces the default list: the delays are not blue,
    # preempt_count_add and _sub are purple
    assert 'class="f"' in text and "#3a78d8" not in text
    assert re.search(r'data-n="preempt_count_(?:add|sub)" [^>]* '
                     r'data-c="#9a4fd0"', text)
    frames = [g for g in root.iter() if g.get("class") == "f"]
    assert len(frames) > 50
    assert any(g.get("data-c") == "#9a4fd0" for g in frames)


def test_ordered_folded(ftd) -> None:  # type: ignore
    out = ftd("folded", "--ordered", "--weight", "ns", str(S3))
    lines = out.splitlines()
    assert lines and all(FOLDED.match(ln) for ln in lines)
    # consecutive lines never repeat a stack (they are merged)
    stacks = [ln.rsplit(" ", 1)[0] for ln in lines]
    assert all(a != b for a, b in zip(stacks, stacks[1:]))
    # the slices cover the time of the outermost calls of every track,
    # from the start of the trace (the calls that began before it are
    # cut there), as the Chrome export places them
    total = sum(int(ln.rsplit(" ", 1)[1]) for ln in lines)
    doc = json.loads(ftd("chrome", str(S3)))
    per: dict = {}
    for ev in doc["traceEvents"]:
        if ev["ph"] == "X":
            per.setdefault(ev["tid"], []).append(ev)
    covered = 0.0
    for evs in per.values():
        end = float("-inf")
        for ev in sorted(evs, key=lambda e: (e["ts"], -e["dur"])):
            if ev["ts"] >= end - 1e-6:
                covered += ev["dur"]
                end = ev["ts"] + ev["dur"]
    assert abs(total - covered * 1000) < 1e-3 * total
