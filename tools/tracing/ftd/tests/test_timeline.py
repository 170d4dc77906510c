# SPDX-License-Identifier: GPL-2.0
"""Timelines (chrome, speedscope, flamechart, folded --ordered) keep the
kernel's durations and nest a call only inside a caller that has not
ended; their axis starts at the first line of the trace."""

from __future__ import annotations

import collections
import json
import lzma
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Counter, Dict, List, Tuple

import pytest

from conftest import TRACES_DIR, run_ftd

HEAD = ("#     TIME        CPU  TASK/PID         DURATION"
        "                  FUNCTION CALLS\n")


def tline(ts: str, cpu: int, task: str, dur: str, depth: int,
          text: str) -> str:
    field = ("  " + dur if dur[:1].isdigit() else dur).ljust(14)
    return "%12s |   %d)  %s  | %s|  %s%s\n" % (
        ts, cpu, task.rjust(8), field, "  " * depth, text)


def events(path: Path, *opts: str) -> List[Dict[str, object]]:
    doc = json.loads(run_ftd("chrome", str(path), *opts).stdout)
    return [e for e in doc["traceEvents"] if e["ph"] == "X"]


def exit_trace(tmp_path: Path) -> Path:
    # find-54: ksys_write() with the leaf vfs_write(), then
    # sys_exit_group(), which never returns
    lines = [HEAD,
             tline("47.050000", 0, "find-54", "", 0, "ksys_write() {"),
             tline("47.050001", 0, "find-54", "13.520 us", 1,
                   "vfs_write();"),
             tline("47.050035", 0, "find-54", "+ 35.520 us", 0, "}"),
             tline("47.050100", 0, "find-54", "", 0,
                   "sys_exit_group() {"),
             tline("47.050101", 0, "find-54", "", 1, "do_exit() {"),
             tline("47.050102", 0, "find-54", "", 2, "exit_mm() {"),
             tline("47.050103", 0, "find-54", "2.000 us", 3,
                   "mmput();"),
             tline("47.050120", 0, "find-54", "+ 17.000 us", 2, "}"),
             tline("47.065700", 0, "find-54", "# 15600.00 us", 2,
                   "exit_files();")]
    p = tmp_path / "exit.txt"
    p.write_text("".join(lines))
    return p


def test_chrome_keeps_durations_and_callers(tmp_path: Path) -> None:
    evs = {e["name"]: e for e in events(exit_trace(tmp_path))}
    assert evs["ksys_write"]["dur"] == 35.52
    assert evs["vfs_write"]["dur"] == 13.52
    assert evs["exit_files"]["dur"] == 15600.0
    end = evs["ksys_write"]["ts"] + evs["ksys_write"]["dur"]  # type: ignore
    # the exit path runs after ksys_write() returned, not inside it
    for name in ("exit_mm", "mmput", "exit_files"):
        assert evs[name]["ts"] >= end  # type: ignore[operator]


def test_speedscope_keeps_durations(tmp_path: Path) -> None:
    doc = json.loads(run_ftd("speedscope", str(exit_trace(tmp_path))).stdout)
    names = [f["name"] for f in doc["shared"]["frames"]]
    durs: Dict[str, float] = {}
    for prof in doc["profiles"]:
        opened: List[Tuple[int, float]] = []
        for ev in prof["events"]:
            if ev["type"] == "O":
                opened.append((ev["frame"], ev["at"]))
            else:
                fr, at = opened.pop()
                durs[names[fr]] = round(ev["at"] - at, 3)
    assert durs["ksys_write"] == 35.52 and durs["vfs_write"] == 13.52
    assert durs["exit_files"] == 15600.0


def test_short_leaves_keep_durations(tmp_path: Path) -> None:
    # time stamps have whole microseconds: three leaves share one
    lines = [HEAD, tline("5.000010", 0, "sh-1", "", 0, "f() {")]
    lines += [tline("5.000011", 0, "sh-1", "0.300 us", 1, "g();")] * 3
    lines += [tline("5.000012", 0, "sh-1", "2.100 us", 0, "}")]
    p = tmp_path / "t.txt"
    p.write_text("".join(lines))
    durs = sorted(e["dur"] for e in events(p))  # type: ignore
    assert durs == [0.3, 0.3, 0.3, 2.1]


def test_axis_starts_at_first_call(tmp_path: Path) -> None:
    # the trace starts inside kernel_wait4(), 45.9 s long
    lines = [HEAD,
             tline("47.050000", 0, "sh-1", "1.000 us", 1, "f();"),
             tline("47.880000", 0, "sh-1", "$ 45900000 us", 0,
                   "} /* kernel_wait4 */")]
    p = tmp_path / "t.txt"
    p.write_text("".join(lines))
    evs = {e["name"]: e for e in events(p)}
    wait = evs["kernel_wait4"]
    # it starts where its return says, 45.07 s before the first line
    assert wait["ts"] == 0 and wait["dur"] == 45900000.0
    assert wait["args"] == {"began_before_trace": True}  # type: ignore
    assert evs["f"]["ts"] == 45070000.0 and "args" not in evs["f"]
    svg = tmp_path / "t.svg"
    run_ftd("flamechart", str(p), "-o", str(svg))
    text = svg.read_text()
    assert "1.980000 s .. 47.880000 s" in text
    assert "kernel_wait4: 45900000.000 us, at 1.980000 s (began before " \
        "the trace)" in text
    sp = json.loads(run_ftd("speedscope", str(p)).stdout)
    assert sp["profiles"][0]["startValue"] == 0


def printed(lines: List[str]) -> Counter[int]:
    """Every printed duration of a completed call, in ns."""
    dur = re.compile(r"\| [ +!#*@$] (\d+\.\d+) us +\|")
    out: Counter[int] = collections.Counter()
    for ln in lines:
        m = dur.search(ln)
        if m:
            out[round(float(m.group(1)) * 1000)] += 1
    return out


@pytest.mark.parametrize("name", ["S2", "S3"])
def test_real_durations_unchanged(tmp_path: Path, name: str) -> None:
    """At least 99.5% of the durations the kernel printed come out
    unchanged as events, in every timeline export."""
    src = TRACES_DIR / (name + ".txt.xz")
    if not src.exists():
        pytest.skip("real traces not found at %s" % TRACES_DIR)
    text = lzma.decompress(src.read_bytes()).decode()
    path = tmp_path / (name + ".txt")
    path.write_text(text)
    want = printed(text.splitlines())
    total = sum(want.values())

    def share(got: Counter[int]) -> float:
        return sum((want & got).values()) / total

    got: Counter[int] = collections.Counter(
        round(e["dur"] * 1000) for e in events(path))  # type: ignore
    assert share(got) >= 0.995
    doc = json.loads(run_ftd("speedscope", str(path)).stdout)
    got = collections.Counter()
    for prof in doc["profiles"]:
        opened: List[float] = []
        for ev in prof["events"]:
            if ev["type"] == "O":
                opened.append(ev["at"])
            else:
                got[round((ev["at"] - opened.pop()) * 1000)] += 1
    assert share(got) >= 0.995
    # the flame chart's tooltips give the printed duration; every call
    # must be there
    svg = tmp_path / "f.svg"
    run_ftd("flamechart", str(path), "-o", str(svg), "--min-px", "0",
            "--max-lanes", "1000")
    got = collections.Counter()
    tip = re.compile(r": ([\d.]+) us, at ")
    for el in ET.parse(svg).getroot().iter():
        m = tip.search(el.text or "") if el.tag.endswith("title") else None
        if m:
            got[round(float(m.group(1)) * 1000)] += 1
    assert share(got) >= 0.995


def test_unfinished_calls_drawn_to_the_end(tmp_path: Path) -> None:
    # sys_exit_group() and do_exit() never return in the trace: they
    # are drawn from their entries to the trace's last line, marked
    path = exit_trace(tmp_path)
    doc = json.loads(run_ftd("chrome", str(path)).stdout)
    evs = {e["name"]: e for e in doc["traceEvents"] if e["ph"] == "X"}
    end = max(e["ts"] + e["dur"] for e in evs.values())
    for name in ("sys_exit_group", "do_exit"):
        assert evs[name]["args"] == {"unfinished": True}
        assert evs[name]["ts"] + evs[name]["dur"] == end
    assert "args" not in evs["exit_mm"]
    sp = json.loads(run_ftd("speedscope", str(path)).stdout)
    frames = [f["name"] for f in sp["shared"]["frames"]]
    assert "sys_exit_group (unfinished)" in frames
    svg = tmp_path / "u.svg"
    run_ftd("flamechart", str(path), "-o", str(svg), "--min-px", "0")
    assert "do_exit: unfinished (no return in the trace)" in svg.read_text()


def _cpu_only_trace() -> List[str]:
    """CPU 0 without a task column: a call of a-1 before the first
    context switch (its lines belong to "?/0" until the switch names
    a-1), then b-2, then a-1 again.  Each call has a leaf callee."""
    def ln(ts: str, dur: str, depth: int, text: str) -> str:
        field = ("  " + dur if dur[:1].isdigit() else dur).ljust(14)
        return "%12s |   0) %s|  %s%s\n" % (ts, field, "  " * depth, text)

    sw = (" ------------------------------------------\n"
          "   0)    %s    =>    %s  \n"
          " ------------------------------------------\n\n")
    text = "".join([
        "#     TIME        CPU  DURATION                  FUNCTION CALLS\n",
        ln("10.000000", "", 0, "do_a() {"),
        ln("10.000002", "3.000 us", 1, "leaf_a();"),
        ln("10.000010", "10.000 us", 0, "}"),
        sw % ("a-1", "b-2"),
        ln("10.000100", "", 0, "do_b() {"),
        ln("10.000102", "3.000 us", 1, "leaf_b();"),
        ln("10.000110", "10.000 us", 0, "}"),
        sw % ("b-2", "a-1"),
        ln("10.000200", "", 0, "again_a() {"),
        ln("10.000202", "3.000 us", 1, "leaf_c();"),
        ln("10.000210", "10.000 us", 0, "}"),
        sw % ("a-1", "b-2")])
    return text.splitlines(True)


def _levels(tl: "Timeline", track: str) -> List[List[Tuple[str, int]]]:
    return [[(tl.name_list[p[3]], p[2]) for p in lane]
            for lane in tl.lanes(track)]


def test_callers_kept_when_tracks_merge_and_window() -> None:
    """A track keeps each call's caller as an index: when the lines of a
    CPU before its first switch join their task's track, and in a
    window of a timeline, every leaf still nests under its caller."""
    from ftdlib.parse import Walker
    from ftdlib.timeline import Timeline
    tl = Timeline()
    w = Walker(timeline=tl, flat=True)
    w.feed_lines(_cpu_only_trace())
    assert w.renamed == {"?/0": "a-1"}
    assert sorted(tl.tracks) == ["a-1", "b-2"]
    assert sorted(_levels(tl, "a-1")[0]) == [
        ("again_a", 0), ("do_a", 0), ("leaf_a", 1), ("leaf_c", 1)]
    assert len(tl.lanes("a-1")) == 1
    assert _levels(tl, "b-2") == [[("do_b", 0), ("leaf_b", 1)]]
    win = tl.window(10000150000, 10001000000)
    assert sorted(win.tracks) == ["a-1"]
    assert _levels(win, "a-1") == [[("again_a", 0), ("leaf_c", 1)]]
    win = tl.window(9990000000, 10000050000)
    assert sorted(win.tracks) == ["a-1"]
    assert _levels(win, "a-1") == [[("do_a", 0), ("leaf_a", 1)]]
