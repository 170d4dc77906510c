# SPDX-License-Identifier: GPL-2.0
"""ftd boot: the per-initcall rows of delays and console output (the
FreeBSD boot profiler's Fig. 3), device probes, the call counts file,
and what closes the gap an early buffer that filled up leaves."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import List, Tuple

import pytest

from boottrace import Trace, collect
from ftdlib.boot import LevelSum
from conftest import run_ftd
from test_boot import REAL, early_lines

# the layout of function_stat_show() in kernel/trace/ftrace.c:
# "  %-30.30s  %10lu" then "    ", the total, "    ", the average,
# "    ", s^2, each as trace_print_graph_duration() prints them
STAT_HEAD = ("  Function                               Hit    Time            "
             "Avg             s^2\n"
             "  --------                               ---    ----            "
             "---             ---\n")


def graph_duration(ns: int) -> str:
    text = str(ns // 1000)
    if len(text) < 7:
        text += "." + ("%03d" % (ns % 1000))[:min(4, 7 - len(text))]
    return text + " us " + " " * max(0, 8 - len(text))


def stat_row(name: str, hits: int, total_ns: int, s2_ns: int = 0) -> str:
    return "  %-30.30s  %10d    %s    %s    %s\n" % (
        name, hits, graph_duration(total_ns),
        graph_duration(total_ns // max(hits, 1)), graph_duration(s2_ns))


def counts_text() -> str:
    return STAT_HEAD + "".join([
        stat_row("do_one_initcall", 194, 1500000000, 912345),
        stat_row("_raw_spin_lock", 120000, 9000000),
        stat_row("kmem_cache_alloc_noprof", 30000, 45000000),
        stat_row("mem_init", 1, 700000000),
        stat_row("a_function_with_a_name_longer_than_thirty", 5, 5000),
        stat_row("__timer_const_udelay", 40, 2000000000),
    ])


def fig3_trace() -> List[str]:
    """pid 1 runs two device initcalls: foo_init waits in udelay() and
    prints; bar_init registers a driver whose probe sleeps in msleep()
    and prints; then pid 1 sleeps in msleep() itself."""
    t = Trace()
    t.enter(0.0, 1, 0, "kernel_init")
    t.line(0.5, 1, 0, "/* initcall_level: level=device */")
    t.enter(1.0, 1, 0, "do_one_initcall")
    t.line(1.001, 1, 0, "/* initcall_start: func=foo_init+0x0/0x40 */")
    t.leaf(1.5, 1, 0, "__timer_const_udelay", 2.0)
    t.enter(4.0, 1, 0, "_printk")
    t.enter(4.1, 1, 0, "vprintk_emit")
    t.leaf(4.2, 1, 0, "console_unlock", 1.0)
    t.leave(5.3, 1, 0)
    t.leave(5.4, 1, 0)
    t.leave(6.0, 1, 0)
    t.enter(7.0, 1, 0, "do_one_initcall")
    t.line(7.001, 1, 0, "/* initcall_start: func=bar_init+0x0/0x20 */")
    t.enter(7.5, 1, 0, "__platform_driver_register")
    t.enter(8.0, 1, 0, "really_probe")
    t.leaf(8.1, 1, 0, "driver_sysfs_add", 0.4)
    t.enter(8.6, 1, 0, "platform_probe")
    t.leaf(8.7, 1, 0, "of_clk_set_defaults", 0.2)
    t.enter(9.0, 1, 0, "bar_probe")
    t.leaf(9.2, 1, 0, "msleep", 3.0)
    t.enter(12.5, 1, 0, "_dev_info")
    t.leaf(12.6, 1, 0, "console_unlock", 0.5)
    t.leave(13.2, 1, 0)
    t.leave(14.0, 1, 0)
    t.leave(14.5, 1, 0)
    t.leave(15.0, 1, 0)
    t.leave(15.5, 1, 0)
    t.leave(16.0, 1, 0)
    t.leaf(16.2, 1, 0, "msleep", 0.5)
    t.leaf(17.0, 1, 0, "run_init_process", 1.0)
    t.leave(19.0, 1, 0)
    return t.text()


def fig3_files(tmp_path: Path) -> Tuple[Path, Path]:
    """The fig3 trace and the call counts file, written to tmp_path."""
    f = tmp_path / "fig3.txt"
    f.write_text("".join(fig3_trace()))
    c = tmp_path / "fgraph_boot"
    c.write_text(counts_text())
    return f, c


def test_delay_and_console_rows_per_initcall() -> None:
    view, _ = collect(fig3_trace())
    # foo_init: 5 ms, 2 of them udelay, 1.4 printk; bar_init: 9 ms, of
    # which the probe (really_probe(), 7 ms) has 3 ms of msleep and
    # 0.7 ms of _dev_info(); the probe's row has really_probe()'s and
    # the bus's own helpers too
    got = [(r.kind, r.level, r.name, round(r.ns / 1e6, 3))
           for r in view.rows]
    # rows under their phase, not in time order: kernel_init's msleep
    # comes after the initcalls in time, but right under kernel_init
    assert got == [
        ("other", "", "kernel_init", 2.5),
        ("delay", "", "msleep in kernel_init", 0.5),
        ("initcall", "6", "foo_init", 1.6),
        ("delay", "6", "__timer_const_udelay in initcall 6 foo_init", 2.0),
        ("console", "6", "printk/console in initcall 6 foo_init", 1.4),
        ("initcall", "6", "bar_init", 2.0),
        ("probe", "6", "bar_probe (initcall 6 bar_init)", 3.3),
        ("delay", "6", "msleep in probe bar_probe (initcall 6 bar_init)",
         3.0),
        ("console", "6", "printk/console in probe bar_probe (initcall 6 "
         "bar_init)", 0.7),
        ("other", "", "run_init_process", 1.0),
    ]
    assert sum(r.ns for r in view.rows) == view.total
    # the levels count each initcall once, with all of its time
    assert view.levels["6"] == LevelSum(initcalls=2, ns=14000000, calls=2)
    assert view.total == 18000000


def test_fig3_rows_in_csv(tmp_path: Path) -> None:
    f = tmp_path / "fig3.txt"
    f.write_text("".join(fig3_trace()))
    rows = list(csv.DictReader(io.StringIO(
        run_ftd("boot", str(f), "-f", "csv").stdout.decode())))
    kinds = [(r["kind"], r["name"].split(" ")[0]) for r in rows]
    assert kinds[2:5] == [("initcall", "foo_init"),
                          ("delay", "__timer_const_udelay"),
                          ("console", "printk/console")]


def test_counts_file_in_text_json_and_csv(tmp_path: Path) -> None:
    f, c = fig3_files(tmp_path)
    text = run_ftd("boot", str(f), "--counts", str(c), "--top", "3"
                   ).stdout.decode()
    sec = text[text.index("Call counts"):]
    lines = sec.splitlines()
    assert "6 functions, 150240 calls" in lines[0]
    # most called, then most time, each in its own table (see
    # test_boot_truth.py for the layout)
    assert lines[2] == "Most called:"
    assert "_raw_spin_lock" in lines[4] and "kmem_cache_alloc_noprof" in \
        lines[5]
    assert lines[8] == "Most time:"
    assert "__timer_const_udelay" in lines[10] and "2.000  s" in lines[10]
    j = json.loads(run_ftd("boot", str(f), "--counts", str(c), "-f",
                           "json").stdout)
    assert j["counts"]["most_called"][0] == {
        "name": "_raw_spin_lock", "hits": 120000, "time_us": 9000.0,
        "avg_us": 0.075}
    assert j["counts"]["most_time"][0]["name"] == "__timer_const_udelay"
    rows = list(csv.DictReader(io.StringIO(run_ftd(
        "boot", str(f), "--counts", str(c), "-f", "csv", "--table",
        "counts").stdout.decode())))
    # the kernel cuts names to 30 characters: read as printed
    assert rows[-2]["name"] == "a_function_with_a_name_longer_"
    assert rows[0] == {"name": "do_one_initcall", "hits": "194",
                       "time_us": "1500000.000", "avg_us": "7731.958"}
    # no file: said, and the other sections are there
    text = run_ftd("boot", str(f)).stdout.decode()
    assert "Call counts: no --counts file" in text
    assert "Boot holds:" in text


def test_counts_bad_file(tmp_path: Path) -> None:
    f = tmp_path / "fig3.txt"
    f.write_text("".join(fig3_trace()))
    c = tmp_path / "fgraph_boot"
    lines = counts_text().splitlines(True)
    lines.insert(4, "  kfree   twelve    1.000 us    1.000 us    0.000 us\n")
    c.write_text("".join(lines))
    r = run_ftd("boot", str(f), "--counts", str(c), code=1)
    assert ("%s:5: not a trace_stat row" % c).encode() in r.stderr
    assert b"Traceback" not in r.stderr
    c.write_text("some other file\n")
    r = run_ftd("boot", str(f), "--counts", str(c), code=1)
    assert ("%s:1: not a trace_stat file" % c).encode() in r.stderr
    r = run_ftd("boot", str(f), "--counts", str(tmp_path / "none"), code=1)
    assert b"cannot open" in r.stderr
    # hits only (a kernel without the graph tracer): no time column
    c.write_text("  Function                               Hit\n"
                 "  --------                               ---\n"
                 "  %-30.30s  %10d\n" % ("schedule", 12))
    out = run_ftd("boot", str(f), "--counts", str(c)).stdout.decode()
    assert "(no times in the file)" in out and "schedule" in out


def test_full_early_buffer_says_what_closes_the_gap(tmp_path: Path) -> None:
    lines = [ln.replace("from start_kernel() to ftrace_init()",
                        "of the boot thread from start_kernel() until the "
                        "buffer filled up")
             .replace("dropped calls: 0", "dropped calls: 3")
             .replace("threshold: 100 us", "threshold: 10 us")
             for ln in early_lines()]
    early = tmp_path / "early.txt"
    early.write_text("".join(lines))
    text = run_ftd("boot", str(early), str(REAL)).stdout.decode()
    note = [ln for ln in text.splitlines() if "buffer full" in ln]
    assert len(note) == 1
    assert "fgraph_boot_thresh=100" in note[0]
    assert "CONFIG_FGRAPH_BOOT_BUFFER_SIZE" in note[0]
    assert "22.535 ms after it are not traced" in note[0]
    # a buffer that was not full: no such note
    early.write_text("".join(early_lines()))
    text = run_ftd("boot", str(early), str(REAL)).stdout.decode()
    assert "buffer full" not in text


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
