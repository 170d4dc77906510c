# SPDX-License-Identifier: GPL-2.0
"""Command line: subcommands, help, compressed input, errors, exit codes."""

from __future__ import annotations

import bz2
import gzip
import lzma
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DATA_DIR, FTD, run_ftd

S3 = DATA_DIR / "s3_head.txt"
S1 = DATA_DIR / "s1_head.txt"
COMMANDS = ["report", "callers", "callees", "slowest", "hist", "tree",
            "folded", "flamegraph",
            "flamechart", "chrome", "speedscope", "diff", "info", "boot"]


def test_help() -> None:
    out = run_ftd("--help").stdout.decode()
    for c in COMMANDS:
        assert c in out
    for c in COMMANDS:
        assert "usage: ftd " + c in run_ftd(c, "--help").stdout.decode()


def test_no_command_is_usage_error() -> None:
    run_ftd(code=2)
    run_ftd("report", "--bogus", str(S3), code=2)
    run_ftd("report", "-s", "nonsense", str(S3), code=2)


@pytest.mark.parametrize("kind", ["gz", "xz", "bz2"])
def test_compressed(tmp_path: Path, kind: str) -> None:
    data = S3.read_bytes()
    comp = {"gz": gzip.compress, "xz": lzma.compress,
            "bz2": bz2.compress}[kind](data)
    p = tmp_path / ("t." + kind)
    p.write_bytes(comp)
    plain = run_ftd("report", "-f", "csv", str(S3)).stdout
    assert run_ftd("report", "-f", "csv", str(p)).stdout == plain
    # cut after its first lines: says so, shows what it read, exit 1
    rnd = random.Random(1)
    leaves = "".join(
        "%12.6f |   0)    ls-54    |   %6.3f us    |  f%d();\n" % (
            1 + i / 1e4, rnd.randrange(1, 99999) / 1000, rnd.randrange(999))
        for i in range(60000))
    big = {"gz": gzip.compress, "xz": lzma.compress,
           "bz2": bz2.compress}[kind](data + leaves.encode())
    q = tmp_path / ("cut." + kind)
    q.write_bytes(big[:len(big) // 2])
    r = run_ftd("report", "-f", "csv", str(q), code=1)
    names = {"gz": "gzip", "xz": "xz", "bz2": "bzip2"}
    assert ("ftd: %s: truncated %s file: the compressed data ends early "
            "(after about " % (q, names[kind])).encode() in r.stderr
    assert r.stdout.startswith(b"function,count,total_us")
    assert len(r.stdout.splitlines()) > 10
    # cut before its first 4 KB of text: nothing to show
    q.write_bytes(comp[:200])
    r = run_ftd("report", str(q), code=1)
    assert r.stderr.startswith(("ftd: %s: damaged %s data: " % (
        q, names[kind])).encode())
    assert r.stdout == b""


def test_stdin() -> None:
    data = S3.read_bytes()
    a = run_ftd("report", "-f", "csv", "-", stdin=data).stdout
    assert a == run_ftd("report", "-f", "csv", str(S3)).stdout


def test_binary_and_missing(tmp_path: Path) -> None:
    p = tmp_path / "trace.dat"
    p.write_bytes(b"\x17\x08\x44tracing6\x00\x00\x00" + bytes(range(256)))
    r = run_ftd("report", str(p), code=1)
    assert b"binary" in r.stderr
    r = run_ftd("report", str(tmp_path / "nope"), code=1)
    assert b"cannot open" in r.stderr
    e = tmp_path / "empty"
    e.write_text("")
    r = run_ftd("report", str(e), code=1)
    assert b"no function_graph" in r.stderr


def test_missing_abstime_is_explained() -> None:
    for cmd in ("flamechart", "chrome", "speedscope"):
        r = run_ftd(cmd, str(S1), code=1)
        assert b"options/funcgraph-abstime" in r.stderr
    r = run_ftd("report", "--time", "1,2", str(S1), code=1)
    assert b"funcgraph-abstime" in r.stderr


def test_strict_and_malformed(tmp_path: Path) -> None:
    lines = S3.read_text().splitlines(True)
    lines.insert(100, "this is not a trace line\n")
    lines.insert(200, "neither is this\n")
    p = tmp_path / "bad.txt"
    p.write_text("".join(lines))
    r = run_ftd("report", str(p))
    err = r.stderr.decode()
    assert "2 malformed lines" in err and "101" in err and "201" in err
    assert str(p) in err
    run_ftd("report", "--strict", str(p), code=3)


def test_broken_pipe() -> None:
    p = subprocess.Popen(
        "%s %s report -n 1000 %s | head -1" % (sys.executable, FTD, S3),
        shell=True, stderr=subprocess.PIPE, stdout=subprocess.PIPE)
    out, err = p.communicate(timeout=120)
    assert b"Traceback" not in err and b"Error" not in err


def test_subcommands_run(ftd, tmp_path: Path) -> None:  # type: ignore
    assert "tmigr_requires_handle_remote_up" in ftd("callers", str(S3),
                                                  "_raw_spin_lock")
    assert "preempt_count_add" in ftd("callees", str(S3), "_raw_spin_lock")
    tree = ftd("tree", str(S3), "sched_tick", "--backtrace")
    assert "sched_tick" in tree and "update_curr" in tree
    # header, rule, five rows: the same table layout as report
    assert ftd("diff", str(S3), str(S1), "-n", "5").count("\n") == 7
    info = ftd("info", str(S3))
    assert "funcgraph-abstime" in info
    run_ftd("callers", str(S3), "no_such_function", code=1)


def test_tree_shows_durations_with_units_aligned(ftd) -> None:  # type: ignore
    """tree's text prints TOTAL and LOCAL the way every text table
    does (table.human()): three decimals of s, ms or us, the units of
    a column one under the other."""
    out = ftd("tree", str(DATA_DIR / "nested_thresh.txt"))
    head, *rows = out.splitlines()
    assert head.split() == ["#", "TOTAL", "LOCAL", "CALLS", "FUNCTION"]
    cell = r"( *\d+\.\d{3} (?: s|ms|us))"
    found = [re.match("  " + cell + " " + cell + r" +\d+  (.*)$", r)
             for r in rows]
    assert all(found), rows
    got = {m.group(3).lstrip("|`+- "): (m.group(1).strip(),
                                          m.group(2).strip())
           for m in found if m}
    assert got["very_slow"] == ("1.235  s", "1.235  s")
    assert got["do_one_initcall"] == ("2.100 ms", "99.500 us")
    assert got["_printk"] == ("200.000 us", "200.000 us")
    assert len({(m.end(1), m.end(2)) for m in found if m}) == 1
    back = ftd("tree", str(S3), "sched_tick", "--backtrace")
    assert re.search(r"#0: \d+ calls, \d+\.\d{3} (s|ms|us)\n", back)


def test_filters(ftd) -> None:  # type: ignore
    import csv
    import io

    def rows(*a: str) -> dict:
        out = ftd("report", "-f", "csv", *a, str(S3))
        return {r["function"]: r for r in csv.DictReader(io.StringIO(out))}
    full = rows()
    only_ls = rows("--task", "ls")
    assert set(only_ls) <= set(full)
    # no silent empty output: a filter that keeps nothing is an error
    err = run_ftd("report", "--pid", "99999", str(S3), code=1).stderr
    assert b"no calls match --pid (tasks in the trace: " in err
    shallow = rows("--max-depth", "6")
    assert shallow and all(k in full for k in shallow)
    assert len(shallow) < len(full)
    slow = rows("--min-dur", "100")
    assert all(float(r["min_us"]) >= 100 for r in slow.values())
    top = ftd("report", "-n", "3", str(S3)).splitlines()
    # what the order means, header, rule, three rows
    assert len(top) == 6 and top[0].startswith("# By total time")
