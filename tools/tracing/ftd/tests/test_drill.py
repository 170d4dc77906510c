# SPDX-License-Identifier: GPL-2.0
"""Drilling down to single calls: the slowest calls of a function with
where they are in the trace, and duration histograms with
percentiles."""

from __future__ import annotations

import csv
import io
import json
import lzma
import re
from pathlib import Path

import pytest

from conftest import TRACES_DIR, run_ftd

HEAD = ("#     TIME        CPU  TASK/PID         DURATION"
        "                  FUNCTION CALLS\n")


def tline(ts: str, cpu: int, task: str, dur: str, depth: int,
          text: str) -> str:
    field = ("  " + dur if dur[:1].isdigit() else dur).ljust(14)
    return "%12s |   %d)  %s  | %s|  %s%s\n" % (
        ts, cpu, task.rjust(8), field, "  " * depth, text)


def trace(tmp_path: Path) -> Path:
    lines = [HEAD,
             tline("1.000000", 0, "sh-10", "", 0, "f() {"),          # 2
             tline("1.000001", 0, "sh-10", "1.000 us", 1, "g();"),
             tline("1.000005", 0, "sh-10", "5.000 us", 0, "}"),
             tline("1.000100", 1, "ls-11", "+ 50.000 us", 0, "f();"),  # 5
             tline("1.000200", 0, "sh-10", "", 0, "f() {"),          # 6
             tline("1.000220", 0, "sh-10", "+ 20.000 us", 0, "}"),
             tline("1.000300", 1, "ls-11", "1.000 us", 0, "f();")]
    p = tmp_path / "t.txt"
    p.write_text("".join(lines))
    return p


def test_slowest_calls(tmp_path: Path) -> None:
    out = run_ftd("slowest", str(trace(tmp_path)), "f", "-n", "2",
                  "-f", "csv").stdout.decode()
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows == [
        {"duration_us": "50.000", "start_s": "1.000100", "task": "ls-11",
         "cpu": "1", "line": "5", "function": "f"},
        {"duration_us": "20.000", "start_s": "1.000200", "task": "sh-10",
         "cpu": "0", "line": "6", "function": "f"}]
    text = run_ftd("slowest", str(trace(tmp_path)), "f").stdout.decode()
    assert "The 4 slowest calls of f" in text
    run_ftd("slowest", str(trace(tmp_path)), "nosuch", code=1)


def test_slowest_on_real_trace(tmp_path: Path) -> None:
    src = TRACES_DIR / "S3.txt.xz"
    if not src.exists():
        pytest.skip("real traces not found at %s" % TRACES_DIR)
    path = tmp_path / "S3.txt"
    path.write_bytes(lzma.decompress(src.read_bytes()))
    lines = path.read_text().splitlines()
    # every printed duration of vfs_read, the plain way
    durs = sorted((float(m.group(1)) for ln in lines
                   if re.search(r"(vfs_read\(\);| /\* vfs_read \*/)", ln)
                   for m in [re.search(r"([\d.]+) us", ln)] if m),
                  reverse=True)
    doc = json.loads(run_ftd("slowest", str(path), "vfs_read", "-n", "3",
                             "-f", "json").stdout)
    assert [r["duration_us"] for r in doc] == durs[:3]
    for r in doc:
        line = lines[r["line"] - 1]
        assert "vfs_read" in line and r["task"] in line
        assert line.split("|")[0].strip() == "%.6f" % r["start_s"]


def test_histogram_and_percentiles(tmp_path: Path) -> None:
    # 100 calls of 1, 2, ..., 100 us
    lines = [HEAD] + [tline("2.%06d" % (i * 200), 0, "sh-1",
                            "%d.000 us" % i if i < 10 else
                            "+ %d.000 us" % i, 0, "h();")
                      for i in range(1, 101)]
    p = tmp_path / "h.txt"
    p.write_text("".join(lines))
    doc = json.loads(run_ftd("hist", str(p), "h", "-f", "json").stdout)
    assert len(doc) == 1
    d = doc[0]
    assert (d["count"], d["min_us"], d["p50_us"], d["p90_us"],
            d["p99_us"], d["p999_us"], d["max_us"]) == \
        (100, 1.0, 50.0, 90.0, 99.0, 100.0, 100.0)
    assert [b["count"] for b in d["buckets"]] == [0, 1, 2, 4, 8, 16, 32, 37]
    assert d["buckets"][-1]["from_us"] == 64.0
    rows = list(csv.DictReader(io.StringIO(run_ftd(
        "hist", str(p), "h", "-f", "csv").stdout.decode())))
    assert sum(int(r["count"]) for r in rows) == 100
    text = run_ftd("hist", str(p), "h").stdout.decode()
    assert text.startswith("h: 100 calls, min 1.000 us, p50 50.000 us, "
                           "p90 90.000 us, p99 99.000 us, p99.9 100.000 us,"
                           " max 100.000 us\n")
    assert "\n  64.000 us - 128.000 us 37  37.0% |" + "#" * 40 + "|\n" in text


def test_histogram_bounds_with_units_aligned(tmp_path: Path) -> None:
    """The text buckets' bounds go through human(), the formatter of
    every text table, and stay aligned past the bucket labels of a
    7-digit number of microseconds; CSV keeps plain microseconds."""
    lines = [HEAD, tline("2.000000", 0, "sh-1", "1.500 us", 0, "h();"),
             tline("2.100000", 0, "sh-1", "@ 200000.0 us", 0, "h();")]
    p = tmp_path / "h.txt"
    p.write_text("".join(lines))
    text = run_ftd("hist", str(p), "h").stdout.decode().splitlines()
    assert text[1:4] == [
        "               < 1.000 us 0   0.0% |" + " " * 40 + "|",
        "    1.000 us -   2.000 us 1  50.0% |" + "#" * 40 + "|",
        "    2.000 us -   4.000 us 0   0.0% |" + " " * 40 + "|"]
    assert text[-1] == ("  131.072 ms - 262.144 ms 1  50.0% |" + "#" * 40
                        + "|")
    assert len(text) == 20
    assert len({ln.index("|") for ln in text[1:]}) == 1
    rows = list(csv.DictReader(io.StringIO(run_ftd(
        "hist", str(p), "h", "-f", "csv").stdout.decode())))
    assert (rows[-1]["from_us"], rows[-1]["to_us"]) == ("131072.000",
                                                        "262144.000")
