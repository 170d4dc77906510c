# SPDX-License-Identifier: GPL-2.0
"""Golden values, checked by hand against the trace text.

The excerpts in data/ are the first lines of the real traces S1..S4
(one per option combination the traces were captured with) plus small
hand-written traces for the other shapes.  Their trailing blanks (the
kernel pads context-switch and header lines) are stripped so that the
patch stays clean under checkpatch; test_real.py reads the untouched
traces.  Every number asserted here
was worked out from the trace lines by hand (or with grep/awk on the
raw text), not copied from ftd's output; the working is in comments."""

from __future__ import annotations

import csv
import io
import json

import pytest

from conftest import DATA_DIR
from ftdlib.analysis import func_stats, relations
from ftdlib.parse import Walker


def parse(name: str) -> Walker:
    w = Walker()
    with open(DATA_DIR / name, encoding="utf-8") as f:
        w.feed_lines(f.readlines())
    return w


def stats(name: str):  # type: ignore[no-untyped-def]
    w = parse(name)
    return w, func_stats(w.roots())


def test_count_total_and_local_time_of_each_function() -> None:
    # S3's head: abstime, cpu, proc, tail.  update_curr appears at lines 30-35
    # and 767-772: 31.232 + 32.032 = 63.264 us; local =
    # (31.232 - 12.544 - 4.048) + (32.032 - 12.112 - 4.064) = 30.496.
    w, s = stats("s3_head.txt")
    f = s["update_curr"]
    assert (f.count, f.total, f.local) == (2, 63264, 30496)
    assert (f.min, f.max) == (31232, 32032)
    # sched_tick: lines 20..62, one call of 292.960 us.
    assert (s["sched_tick"].count, s["sched_tick"].total) == (1, 292960)
    assert w.info.layout is not None and w.info.layout.abstime
    assert w.info.malformed == 0


def test_exits_only_returns_are_calls_nested_by_their_depth() -> None:
    # S2: upstream tracing_thresh output, only "} /* f */" lines.
    # grep -c '/\* handle_irq_desc \*/' = 36; awk sum of the duration
    # column = 19910.736 us.  First call (line 6): 396.784 us with the
    # child handle_percpu_devid_irq 359.632 one level deeper (line 5),
    # inside generic_handle_domain_irq one level up (line 7); so for all
    # 36: grep '/\* handle_percpu_devid_irq \*/' | awk: 36 lines,
    # 19513.264 us, and local 19910.736 - 19513.264 = 397.472.
    w, s = stats("s2_exits_head.txt")
    f = s["handle_irq_desc"]
    assert (f.count, f.total, f.local) == (36, 19910736, 397472)
    assert w.info.exits_only
    assert w.info.entries == 0
    callers, callees, me, _ = relations(w.roots(), "handle_irq_desc")
    assert {k: (v.count, v.total) for k, v in callers.items()} == \
        {"generic_handle_domain_irq": (36, 19910736)}
    assert {k: (v.count, v.total) for k, v in callees.items()} == \
        {"handle_percpu_devid_irq": (36, 19513264)}


def test_tasks_from_switch_blocks_without_a_task_column() -> None:
    # S1's head: defaults (cpu, duration, overhead); no task column, the tasks
    # come from the context-switch blocks: "ls-56 => rcu_pre-15" (line
    # 730) and back (line 885); the lines before the first block are
    # ls-56's.  grep -c folio_remove_rmap_ptes = 130 lines, one per call
    # (entry or leaf line, or the named return at line 5 whose entry was
    # lost).  Their durations (a leaf's own, an entry's from the "}" at
    # its depth): shortest 4.560 us (line 345), longest 16.864 us (line
    # 1050), sum 769.008 us.
    w, s = stats("s1_head.txt")
    f = s["folio_remove_rmap_ptes"]
    assert (f.count, f.total, f.min, f.max) == (130, 769008, 4560, 16864)
    assert sorted(w.info.tasks) == ["ls-56", "rcu_pre-15"]


def test_latency_format_return_without_entry_keeps_its_duration() -> None:
    # S4: latency-format with proc.  hrtimer_interrupt returns at line 17
    # (602.272 us) without its entry; its three calls with an entry
    # (lines 128, 658, 854) return at lines 193, 731 and 919 ("}" at
    # their depth): 485.616, 647.216 and 456.832 us.  Four calls,
    # 2191.936 us.
    w, s = stats("s4_lat_head.txt")
    f = s["hrtimer_interrupt"]
    assert (f.count, f.total, f.min, f.max) == (4, 2191936, 456832, 647216)
    assert w.info.layout is not None and w.info.layout.lat
    assert w.info.malformed == 0


def test_retval_without_header() -> None:
    # trace_pipe style (no header), funcgraph-retval:
    # vfs_read 10.125 - 1.5 - 3.0 = 5.625 local;
    # ext4_file_read_iter 3.0 - 2.25 = 0.75;
    # rw_verify_area 1.5 + 0.75 = 2.25 in two calls.
    w, s = stats("retval_pipe.txt")
    assert (s["vfs_read"].count, s["vfs_read"].total,
            s["vfs_read"].local) == (1, 10125, 5625)
    assert s["ext4_file_read_iter"].local == 750
    assert (s["rw_verify_area"].count, s["rw_verify_area"].total) == \
        (2, 2250)
    assert w.info.retval


def test_irq_switch_lost_comment() -> None:
    # do_sys_open 20 - gic_handle_irq 4 - getname 1 = 15 local;
    # gic_handle_irq 4 - 2 = 2; the schedule return after the lost
    # events marker counts with its 3 us.
    w, s = stats("mixed_cpu.txt")
    assert (s["do_sys_open"].total, s["do_sys_open"].local) == \
        (20000, 15000)
    assert s["gic_handle_irq"].local == 2000
    assert (s["schedule"].count, s["schedule"].total) == (1, 3000)
    assert s["kmalloc"].total == 250
    i = w.info
    assert (i.lost_events, i.lost_records, i.comments, i.switches) == \
        (1, 12, 1, 1)
    assert (i.irq_entries, i.irq_exits) == (1, 1)
    assert "sh-100" in i.tasks and "kworker-7" in i.tasks


def test_local_time_leaves_out_callees_at_every_depth() -> None:
    # do_one_initcall 2100 - 1800.5 - 200 = 99.5 us local;
    # driver_probe 1800.5 - 1500 = 300.5; "1234567 us" has no decimals.
    w, s = stats("nested_thresh.txt")
    assert s["do_one_initcall"].local == 99500
    assert s["driver_probe"].local == 300500
    assert s["very_slow"].total == 1234567000
    assert w.info.malformed == 0


def test_report_formats(ftd) -> None:  # type: ignore[no-untyped-def]
    out = ftd("report", "-f", "csv", str(DATA_DIR / "retval_pipe.txt"))
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["function", "count", "total_us", "avg_us",
                       "min_us", "max_us", "local_us"]
    assert rows[1] == ["vfs_read", "1", "10.125", "10.125", "10.125",
                       "10.125", "5.625"]
    js = json.loads(ftd("report", "-f", "json",
                        str(DATA_DIR / "retval_pipe.txt")))
    row = [r for r in js if r["function"] == "rw_verify_area"][0]
    assert row == {"function": "rw_verify_area", "count": 2,
                   "total_us": 2.25, "avg_us": 1.125, "min_us": 0.75,
                   "max_us": 1.5, "local_us": 2.25}


@pytest.mark.parametrize("key,first", [("count", "rw_verify_area"),
                                       ("total", "vfs_read"),
                                       ("local", "vfs_read"),
                                       ("min", "vfs_read"),
                                       ("function", "ext4_file_read_iter")])
def test_sort_keys(ftd, key: str, first: str) -> None:  # type: ignore
    out = ftd("report", "-f", "csv", "-s", key,
              str(DATA_DIR / "retval_pipe.txt"))
    assert out.splitlines()[1].split(",")[0] == first


def test_no_duration_column() -> None:
    # funcgraph-duration off: vfs_read's time comes from its entry
    # (100.000010) and return (100.000020) timestamps = 10 us; the leaf
    # rw_verify_area has no time.
    w, s = stats("abstime_no_duration.txt")
    assert (s["vfs_read"].count, s["vfs_read"].total) == (1, 10000)
    assert (s["rw_verify_area"].count, s["rw_verify_area"].total) == (1, 0)
    assert w.info.layout is not None and not w.info.layout.duration


def test_no_context_columns() -> None:
    # context-info off: only the function text; 4 calls, no times.
    w, s = stats("no_context_info.txt")
    assert sorted(s) == ["ext4_read", "memcpy", "rw_verify_area",
                         "vfs_read"]
    assert all(f.count == 1 for f in s.values())
    callers, callees, me, _ = relations(w.roots(), "ext4_read")
    assert set(callers) == {"vfs_read"} and set(callees) == {"memcpy"}


# Whole outputs, each line checked by hand against the trace text:
# retval_pipe: vfs_read 10.125 - 1.5 - 3.0 = 5.625 local,
#   ext4_file_read_iter 3.0 - 2.25 = 0.75, rw_verify_area 1.5 + 0.75;
# mixed_cpu: do_sys_open 20 - 4 - 1 = 15, gic_handle_irq 4 - 2 = 2;
#   folded values are those local times in ns on each stack;
# nested_thresh: the tree of
#   test_local_time_leaves_out_callees_at_every_depth.
@pytest.mark.parametrize("args,golden", [
    (["report", "retval_pipe.txt"], "retval_pipe.report.txt"),
    (["report", "-f", "csv", "-s", "function", "mixed_cpu.txt"],
     "mixed_cpu.report.csv"),
    (["folded", "--weight", "ns", "mixed_cpu.txt"], "mixed_cpu.folded"),
    (["tree", "nested_thresh.txt"], "nested_thresh.tree.txt"),
])
def test_golden_outputs(ftd, args, golden) -> None:  # type: ignore
    args = args[:-1] + [str(DATA_DIR / args[-1])]
    want = (DATA_DIR.parent / "golden" / golden).read_text()
    assert ftd(*args) == want
