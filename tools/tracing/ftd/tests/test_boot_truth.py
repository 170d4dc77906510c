# SPDX-License-Identifier: GPL-2.0
"""ftd boot on a boot nobody tuned it on: rows named only from what the
trace or a given file supports, initcall_debug's printing shown as
what it is, a summary first, the counts in two tables, and the CPU
whose buffer overwrote the start of the boot.  All on synthetic boot
traces (boottrace.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from boottrace import Trace
from conftest import run_ftd
from ftdlib.boot import NOT_TRACED, BootView, analyse
from ftdlib.bootinput import BootInputs
from ftdlib.parse import Walker
from test_boot_fig3 import fig3_files, fig3_trace
from test_boot_holds import boot_with_holds


def debug_boot() -> Trace:
    """pid 1 runs four device initcalls with initcall_debug on, and no
    initcall_start events:

    1. 1.0-4.0 ms: the initcall is under the threshold; what the trace
       has below do_one_initcall() is initcall_debug's two callbacks
       (with their console output), an interrupt and
       add_device_randomness();
    2. 5.0-9.0 ms: foo_init's own line, between the two callbacks;
    3. 10.0-12.0 ms: the scheduler and a tracepoint only;
    4. 13.0-15.0 ms: helper_fn only, as when an initcall ends in a
       tail call to it.
    """
    t = Trace()
    t.enter(0.0, 1, 0, "kernel_init")
    t.line(0.5, 1, 0, "/* initcall_level: level=device */")
    t.enter(1.0, 1, 0, "do_one_initcall")
    t.enter(1.1, 1, 0, "trace_initcall_start_cb")
    t.enter(1.2, 1, 0, "_printk")
    t.leaf(1.3, 1, 0, "console_unlock", 0.6)
    t.leave(2.0, 1, 0)
    t.leave(2.1, 1, 0)
    t.leaf(2.2, 1, 0, "gic_handle_irq", 0.3)
    t.enter(2.6, 1, 0, "trace_initcall_finish_cb")
    t.leaf(2.7, 1, 0, "_printk", 0.8)
    t.leave(3.6, 1, 0)
    t.leaf(3.7, 1, 0, "add_device_randomness", 0.2)
    t.leave(4.0, 1, 0)
    t.enter(5.0, 1, 0, "do_one_initcall")
    t.leaf(5.1, 1, 0, "trace_initcall_start_cb", 0.5)
    t.leaf(5.7, 1, 0, "foo_init", 2.0)
    t.leaf(7.8, 1, 0, "trace_initcall_finish_cb", 1.0)
    t.leave(9.0, 1, 0)
    t.enter(10.0, 1, 0, "do_one_initcall")
    t.leaf(10.2, 1, 0, "pick_next_task_fair", 0.4)
    t.leaf(10.8, 1, 0, "tracepoint_probe_register", 0.6)
    t.leave(12.0, 1, 0)
    t.enter(13.0, 1, 0, "do_one_initcall")
    t.leaf(13.2, 1, 0, "helper_fn", 1.5)
    t.leave(15.0, 1, 0)
    t.leaf(16.0, 1, 0, "run_init_process", 1.0)
    t.leave(18.0, 1, 0)
    return t


CALLEES = ("trace_initcall_start_cb", "trace_initcall_finish_cb",
           "gic_handle_irq", "add_device_randomness", "pick_next_task_fair",
           "tracepoint_probe_register", "_printk", "console_unlock")


def view_of(lines: List[str], sysmap: Dict[str, str] | None = None
            ) -> BootView:
    col = BootInputs()
    col.begin("synthetic")
    w = Walker(None, None, "boot", flat=True)
    w.collect.every = col.call
    w.comment_sink = col.comment_sink
    w.feed_lines(lines)
    col.close_open(w.info.last_ts)
    view = analyse(col, sysmap)
    assert sum(r.ns for r in view.rows) == view.total
    return view


def rows(lines: List[str], sysmap: Dict[str, str] | None = None
         ) -> List[Tuple[str, str, str, float]]:
    view = view_of(lines, sysmap)
    return [(r.kind, r.level, r.name, round(r.ns / 1e6, 3))
            for r in view.rows]


def test_no_row_is_named_after_a_callee() -> None:
    got = rows(debug_boot().text())
    names = " ".join(name for _, _, name, _ in got)
    for fn in CALLEES:
        assert fn not in names, fn
    initcalls = [(name, ms) for kind, _, name, ms in got
                 if kind == "initcall"]
    # 1. less initcall_debug's callbacks (1.0 ms: 0.5 of its own, the
    # interrupt and add_device_randomness()) and 3. (2.0 ms); foo_init
    # with do_one_initcall()'s own time in 2.; helper_fn is its own
    # entry line as far as the trace can tell (no System.map)
    assert initcalls == [("(initcall not traced)", 3.0),
                         ("foo_init", 2.5), ("helper_fn", 2.0)]
    assert view_of(debug_boot().text()).name_sources == {
        "not traced": 2, "entry lines": 2}


def test_json_counts_the_initcalls_not_named(tmp_path: Path) -> None:
    """JSON says what the text summary's "Initcalls not named: N of M"
    says."""
    f = tmp_path / "boot.txt"
    f.write_text("".join(debug_boot().text()))
    j = json.loads(run_ftd("boot", str(f), "-f", "json").stdout)
    assert j["initcalls"] == {"calls": 4, "not_named": 2,
                              "named_by": {"entry lines": 2}}
    assert len([r for r in j["rows"] if r["name"] == NOT_TRACED]) == 1


def test_levels_count_initcalls_named_or_not(tmp_path: Path) -> None:
    """A level's line says how many initcalls ran (the traced
    do_one_initcall() calls) and how many of them are named; the header
    says in words when no level is known."""
    f = tmp_path / "boot.txt"
    f.write_text("".join(debug_boot().text()))
    text = run_ftd("boot", str(f)).stdout.decode()
    assert "\n  6 device        4 initcalls,    2 named  11.000 ms\n" in text
    j = json.loads(run_ftd("boot", str(f), "-f", "json").stdout)
    assert j["levels"] == {"6": {"initcalls": 2, "calls": 4,
                                 "time_us": 11000.0}}
    f.write_text("".join(boot_with_holds().text()))
    head = run_ftd("boot", str(f)).stdout.decode().splitlines()[3]
    assert head == ("levels unknown: no initcall_level events, no "
                    "do_initcall_level() calls, no --system-map")
    j = json.loads(run_ftd("boot", str(f), "-f", "json").stdout)
    assert j["level_source"] == "none"


def test_initcall_debug_printing_is_one_row() -> None:
    got = rows(debug_boot().text())
    debug = [r for r in got if r[0] == "initcall_debug"]
    # both callbacks of 1. (1.0 + 1.0 ms, console included) and of 2.
    # (0.5 + 1.0 ms), in one row that no initcall owns
    assert debug == [("initcall_debug", "", "initcall_debug printing", 3.5)]
    assert not [r for r in got if r[0] == "console"]


def test_system_map_rules_out_a_callee() -> None:
    """With System.map, only an initcall of its initcall section names
    a row: helper_fn is a function an initcall tail-called."""
    got = rows(debug_boot().text(), {"foo_init": "6", "bar_init": "6"})
    initcalls = [(lv, name, ms) for kind, lv, name, ms in got
                 if kind == "initcall"]
    assert initcalls == [("6", "(initcall not traced)", 5.0),
                         ("6", "foo_init", 2.5)]
    view = view_of(debug_boot().text(), {"foo_init": "6"})
    assert view.name_sources == {"not traced": 3,
                                 "entry lines in System.map": 1}


DMESG = """\
[    0.000000] Booting Linux on physical CPU 0x0
[    1.001050] calling  bar_init+0x0/0x40 @ 1
[    1.003660] initcall bar_init+0x0/0x40 returned 0 after 2 usecs
[    1.005110] calling  foo_init+0x0/0x20 @ 1
[    1.007000] calling  other_init+0x0/0x20 @ 87
[    1.010030][    T1] calling  baz_init+0x0/0x64 [baz] @ 1
[    1.012500] some other line
"""


def test_dmesg_names_initcalls(tmp_path: Path) -> None:
    f = tmp_path / "boot.txt"
    f.write_text("".join(debug_boot().text()))
    d = tmp_path / "dmesg.txt"
    d.write_text(DMESG)
    j = json.loads(run_ftd("boot", str(f), "--dmesg", str(d), "-f",
                           "json").stdout)
    got = [(r["name"], r["time_us"]) for r in j["rows"]
           if r["kind"] == "initcall"]
    # other_init is pid 87's: not the boot path's
    assert got == [("bar_init", 1000.0), ("foo_init", 2500.0),
                   ("baz_init", 2000.0), ("helper_fn", 2000.0)]
    text = run_ftd("boot", str(f), "--dmesg", str(d)).stdout.decode()
    assert "3 from dmesg lines, 1 from entry lines" in text
    assert j["initcalls"] == {"calls": 4, "not_named": 0, "named_by": {
        "dmesg lines": 3, "entry lines": 1}}
    # a line of initcall_debug without a printk time
    d.write_text(DMESG + "calling  late_init+0x0/0x8 @ 1\n")
    r = run_ftd("boot", str(f), "--dmesg", str(d), code=1)
    assert ("%s:8: an initcall_debug line without a printk time" % d
            ).encode() in r.stderr
    d.write_text("[    0.000000] Booting Linux\n")
    r = run_ftd("boot", str(f), "--dmesg", str(d), code=1)
    assert b"no initcall_debug lines" in r.stderr
    r = run_ftd("boot", str(f), "--dmesg", str(tmp_path / "none"), code=1)
    assert b"cannot open" in r.stderr


def test_summary_comes_first(tmp_path: Path) -> None:
    f = tmp_path / "holds.txt"
    f.write_text("".join(boot_with_holds().text()))
    lines = run_ftd("boot", str(f)).stdout.decode().splitlines()
    head = lines.index("Summary (the full table in boot order follows):")
    table = [i for i, ln in enumerate(lines) if ln.startswith("Kind ")][0]
    assert 0 < head < table < 25
    summary = lines[head:table]
    # the largest hold first, with whom it was blamed on, in units
    holds = [ln for ln in summary if " in wait_for_initramfs:" in ln]
    assert holds == ["      59.960 ms  28.3%  init-1 in wait_for_initramfs: "
                     "unpack-30 40.460 ms, helper-40 (waking unpack-30) "
                     "19.500 ms"]
    assert "  Delays:                        11.200 ms   5.3% in 1 row" in \
        summary
    assert any(ln.startswith("  Not traced:") for ln in summary)
    # the slowest initcalls, with their delays and console output
    f.write_text("".join(fig3_trace()))
    text = run_ftd("boot", str(f)).stdout.decode()
    summary = text[:text.index("\nKind ")].splitlines()
    slow = summary.index("  Slowest initcalls (with their probes, delays "
                         "and console output):")
    assert summary[slow + 1:slow + 3] == [
        "       9.000 ms  50.0%  6 device   bar_init",
        "       5.000 ms  27.8%  6 device   foo_init"]
    assert "  Console output (printk):        2.100 ms  11.7% in 2 rows" in \
        summary
    # initcall_debug's printing and the initcalls no line names
    f.write_text("".join(debug_boot().text()))
    text = run_ftd("boot", str(f)).stdout.decode()
    summary = text[:text.index("\nKind ")]
    assert "  initcall_debug printing:        3.500 ms  20.6%" in summary
    assert "  Initcalls not named:         2 of 4 do_one_initcall() calls" \
        in summary


def test_counts_in_two_tables_with_units(tmp_path: Path) -> None:
    f, c = fig3_files(tmp_path)
    text = run_ftd("boot", str(f), "--counts", str(c), "--top", "3"
                   ).stdout.decode()
    sec = text[text.index("Call counts"):].split("\n\n")
    called = sec[1].splitlines()
    assert called == ["Most called:",
                      "         Hit  Function",
                      "      120000  _raw_spin_lock",
                      "       30000  kmem_cache_alloc_noprof",
                      "         194  do_one_initcall"]
    most = sec[2].splitlines()
    assert most == ["Most time:",
                    "         Time          Avg         Hit  Function",
                    "     2.000  s    50.000 ms          40  "
                    "__timer_const_udelay",
                    "     1.500  s     7.732 ms         194  do_one_initcall",
                    "   700.000 ms   700.000 ms           1  mem_init"]
    # CSV and JSON keep microseconds
    j = json.loads(run_ftd("boot", str(f), "--counts", str(c), "-f",
                           "json").stdout)
    assert j["counts"]["most_time"][0]["time_us"] == 2000000.0


def two_cpus(late_ms: float, marker: bool) -> List[str]:
    """The fig3 boot on CPU 0, and helper-40 on CPU 1, whose first
    line comes late_ms after the trace's first."""
    t = Trace()
    for k, ln in enumerate(fig3_trace()[4:]):
        t.lines.append((float(ln.split("|")[0]) * 1000 - 1000, k, ln))
    t.leaf(late_ms, 40, 1, "crc32_le", 0.5)
    lines = t.text()
    if marker:
        i = [k for k, ln in enumerate(lines) if "crc32_le" in ln][0]
        lines.insert(i, "##### CPU 1 buffer started ####\n")
    return lines


def test_a_cpu_that_starts_late_lost_its_start(tmp_path: Path) -> None:
    f = tmp_path / "two.txt"
    f.write_text("".join(two_cpus(3000.0, False)))
    text = run_ftd("boot", str(f)).stdout.decode()
    summary = text[:text.index("\nKind ")]
    assert "  CPU 1's trace in %s starts 3.000 s after CPU 0's: its " \
        "buffer overwrote the start" % f in summary
    note = [ln for ln in text.splitlines() if ln.startswith("note: CPU 1")]
    assert len(note) == 1
    assert "trace_buf_size=" in note[0] and \
        "trace_options=nooverwrite" in note[0] and \
        "per_cpu/cpu1/stats" in note[0]
    j = json.loads(run_ftd("boot", str(f), "-f", "json").stdout)
    assert any("trace_options=nooverwrite" in n for n in j["notes"])
    # a CPU that starts a little later: no note
    f.write_text("".join(two_cpus(5.0, False)))
    assert "overwrote" not in run_ftd("boot", str(f)).stdout.decode()
    # unless the trace marks its buffer's start
    f.write_text("".join(two_cpus(5.0, True)))
    text = run_ftd("boot", str(f)).stdout.decode()
    assert "CPU 1's trace in %s starts 5.000 ms after CPU 0's" % f in text
    assert "##### CPU 1 buffer started ####" in text



def buffer_stats(overrun: Dict[str, int], dropped: int = 0) -> str:
    """per_cpu/cpuN/stats of each CPU, as the demo's guest scripts save
    them (6.12's format)."""
    out = []
    for cpu, n in overrun.items():
        out.append("==> per_cpu/cpu%s/stats <==\nentries: 812\n"
                   "overrun: %d\ncommit overrun: 0\nbytes: 52340\n"
                   "oldest event ts:     3.000000\nnow ts:    90.000000\n"
                   "dropped events: %d\nread events: 0\n" % (cpu, n,
                                                             dropped))
    return "".join(out)


def test_buffer_stats_name_the_overwritten_events(tmp_path: Path) -> None:
    """With the main trace's per_cpu/cpuN/stats (--buffer-stats), the
    late CPU's lines say how many events its buffer overwrote; a buffer
    that overwrote nothing is not blamed; other CPUs' overruns and
    drops get a note of their own."""
    f = tmp_path / "two.txt"
    f.write_text("".join(two_cpus(3000.0, False)))
    st = tmp_path / "buffer-stats.txt"
    st.write_text(buffer_stats({"0": 0, "1": 4242}))
    text = run_ftd("boot", str(f), "--buffer-stats", str(st)
                   ).stdout.decode()
    summary = text[:text.index("\nKind ")]
    assert "  CPU 1's trace in %s starts 3.000 s after CPU 0's: its " \
        "buffer overwrote the start, 4242 events (per_cpu/cpu1/stats; " \
        "see the note at the end)" % f in summary
    note = [ln for ln in text.splitlines() if ln.startswith("note: CPU 1")]
    assert len(note) == 1
    assert ("per_cpu/cpu1/stats in %s counts 4242 events overwritten "
            "(\"overrun: 4242\")" % st) in note[0]
    assert "trace_buf_size=" in note[0]
    # CPU 1 overwrote nothing: its late start has another cause
    st.write_text(buffer_stats({"0": 0, "1": 0}))
    text = run_ftd("boot", str(f), "--buffer-stats", str(st)
                   ).stdout.decode()
    assert "starts 3.000 s after CPU 0's: its buffer overwrote nothing " \
        "(per_cpu/cpu1/stats; see the note at the end)" in text
    assert "filled up" not in text
    # CPU 0 does not start late, but its buffer overwrote 17 events;
    # with nooverwrite, a buffer drops events instead
    st.write_text(buffer_stats({"0": 17, "1": 4242}, dropped=3))
    notes = [ln for ln in run_ftd("boot", str(f), "--buffer-stats",
                                  str(st)).stdout.decode().splitlines()
             if ln.startswith("note: per_cpu/")]
    assert notes[0].startswith(
        "note: per_cpu/cpu0/stats in %s counts 17 events overwritten "
        "(\"overrun: 17\"): CPU 0's trace (%s) lost its start" % (st, f))
    assert [n.split(" counts ")[0] for n in notes[1:]] == [
        "note: per_cpu/cpu0/stats in %s" % st,
        "note: per_cpu/cpu1/stats in %s" % st]
    assert all(" counts 3 events dropped (\"dropped events: 3\")" in n and
               "trace_options=nooverwrite" in n for n in notes[1:])
    # a file without stats is refused, naming how to save them
    st.write_text("nothing here\n")
    err = run_ftd("boot", str(f), "--buffer-stats", str(st), code=1
                  ).stderr.decode()
    assert "no per_cpu/cpuN/stats" in err and "per_cpu/cpu*/stats" in err


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))


def test_boot_table_durations_with_units(tmp_path: Path) -> None:
    """The boot table's Time column goes through human(), like every
    text table; CSV and JSON keep plain microseconds."""
    f = tmp_path / "fig3.txt"
    f.write_text("".join(fig3_trace()))
    text = run_ftd("boot", str(f)).stdout.decode()
    lines = text.splitlines()
    head = [i for i, ln in enumerate(lines) if ln.startswith("Kind ")][0]
    end = [i for i, ln in enumerate(lines)
           if i > head and ln.startswith("total ")][0]
    table = lines[head:end + 1]
    assert table[0].endswith(" First(s)       Time     %")
    assert table[3].split(None, 3)[3].endswith(
        "1.016200 500.000 us   2.8")
    assert table[4].endswith("1.001000   1.600 ms   8.9")
    assert table[-1].endswith(" 18.000 ms 100.0")
    # the units line up
    assert len({ln.rindex("s ") for ln in table[2:] if ln[0] != "-"}) == 1
    csv_text = run_ftd("boot", str(f), "-f", "csv").stdout.decode()
    assert "delay,,msleep in kernel_init,1.016200,500.000,2.778\n" in \
        csv_text
