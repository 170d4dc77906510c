# SPDX-License-Identifier: GPL-2.0
"""ftd boot: the boot view.

data/boot_icount.txt is an excerpt, in plain text, of a real boot of
the patched kernel in the workbench guest (ARM, -icount
shift=0,sleep=off so guest time counts instructions, -smp 1):

  scripts/workbench run patched --no-build --icount --out DIR --append \
    'ftrace=function_graph tracing_thresh=1000
     trace_options=funcgraph-thresh-tree,nooverwrite trace_buf_size=8M
     trace_event=initcall:initcall_level,initcall:initcall_start' \
    scripts/demo/boot-trace.sh

The saved trace (26121 lines, 1.7 MB) was cut, line by line and
without changing any line, to what these tests read: the lines of pid
1 (init-1) at call depth 0 and 1, its initcall events, the calls that
enclose its printk and console calls (those of the PL011 probe) with
their returns, the first line of each other task (a kthread entry that
stays open), and the first 6 lines after the exec of /init, which the
boot view must leave out; the context-switch blocks are left out (the
task column names every line's task).  Dropping whole subtrees keeps
the nesting: the boot view's total, traced time and gaps are those of
the whole trace.  data/boot_System.map is the initcall section of
that kernel's System.map.

The early-boot file (start_kernel() to ftrace_init()) is written by
hand here, in the format of Documentation/trace/fgraph-boot.rst: the
kernel side is not in the series yet.
"""

from __future__ import annotations

import csv
import io
import json
import lzma
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

from conftest import DATA_DIR, run_ftd
from ftdlib.timeline import Timeline
from ftdlib.boot import BootView, analyse
from ftdlib.bootinput import BootInputs, read_system_map
from ftdlib.parse import Walker
from ftdlib.table import human

REAL = DATA_DIR / "boot_icount.txt"
SYSMAP = DATA_DIR / "boot_System.map"
HEADER = ["# tracer: function_graph\n", "#\n",
          "#     TIME        CPU  DURATION                  FUNCTION CALLS\n",
          "#      |          |     |   |                     |   |   |   |\n"]

# initcall -> level, read from include/linux/init.h users in the 6.12
# sources (not from the trace or the System.map)
KNOWN = {"component_debug_init": "1", "irq_sysfs_init": "2",
         "of_platform_default_populate_init": "3", "chr_dev_init": "5",
         "pty_init": "6", "virtio_mmio_init": "6",
         "param_sysfs_builtin_init": "7"}


def fg(ts: float, depth: int, text: str, dur: Optional[float] = None,
       cpu: int = 0) -> str:
    """One function_graph line with abstime and CPU, no task column."""
    if dur is None:
        field = " " * 14
    else:
        mark = "!" if dur > 100 else "+" if dur > 10 else " "
        field = ("%s %.3f us" % (mark, dur)).ljust(14)
    return "%12.6f | %3d) %s|  %s%s\n" % (ts, cpu, field, "  " * depth,
                                          text)


# The early file's counter runs 0.3 s ahead of local_clock(): its
# header says so, and ftd moves its times back by that much.
AHEAD = 0.3
EARLY_HEADER = [
    "# tracer: function_graph\n", "#\n",
    "# fgraph_boot: function calls from start_kernel() to ftrace_init()\n",
    "# clock: architecture counter at 62500000 Hz\n",
    "# threshold: 100 us (CONFIG_FGRAPH_BOOT_BUFFER_THRESH)\n",
    "# local_clock() was 19000000000 ns at counter 1206250000\n",
    "# records: 26 of 16384 (16 bytes each), dropped calls: 0, too deep: 0\n",
    "# still running when recording stopped: the last 2 closing lines\n",
    "#\n",
    "#     TIME       CPU  DURATION                  FUNCTION CALLS\n",
    "#      |         |     |   |                     |   |   |   |\n"]


def early_lines(t0: float = 0.010) -> List[str]:
    """start_kernel() up to ftrace_init(), as the early-boot file of
    Documentation/trace/fgraph-boot.rst prints it: counter times, the
    calls still running when recording stopped closed at that moment."""
    t0 += AHEAD
    return EARLY_HEADER + [
        fg(t0, 0, "start_kernel() {"),
        fg(t0 + 0.000010, 1, "setup_arch() {"),
        fg(t0 + 0.000020, 2, "__timer_const_udelay();", 2000.0),
        fg(t0 + 0.003000, 2, "paging_init();", 1000.0),
        fg(t0 + 0.004100, 1, "} /* setup_arch */", 4090.0),
        fg(t0 + 0.004200, 1, "mm_core_init() {"),
        fg(t0 + 0.004300, 2, "mem_init();", 500.0),
        fg(t0 + 0.004900, 2, "_printk() {"),
        fg(t0 + 0.004910, 3, "console_unlock();", 300.0),
        fg(t0 + 0.005300, 2, "} /* _printk */", 400.0),
        fg(t0 + 0.005400, 1, "} /* mm_core_init */", 1200.0),
        fg(t0 + 0.005500, 1, "sched_init();", 700.0),
        fg(t0 + 0.006300, 1, "ftrace_init() {"),
        fg(t0 + 0.006310, 1, "} /* ftrace_init */", 10.0),
        fg(t0 + 0.006310, 0, "} /* start_kernel */", 6310.0),
    ]


def collect(paths_or_lines: List[object],
            sysmap: Optional[Dict[str, str]] = None) -> BootView:
    col = BootInputs()
    for i, item in enumerate(paths_or_lines):
        if isinstance(item, Path):
            name = item.name
            opener = lzma.open if item.suffix == ".xz" else open
            with opener(item, "rt", encoding="utf-8") as f:  # type: ignore
                lines = f.readlines()
        else:
            name = "lines%d" % i
            lines = list(item)  # type: ignore[call-overload]
        col.begin(name)
        w = Walker(None, None, "boot", flat=True)
        w.collect.every = col.call
        w.comment_sink = col.comment_sink
        w.feed_lines(lines)
        col.close_open(w.info.last_ts)
    return analyse(col, sysmap)


@pytest.fixture(scope="module")
def real() -> BootView:
    return collect([REAL])


def rows_by(view: BootView, kind: str) -> Dict[Tuple[str, str], int]:
    return {(r.level, r.name): r.ns for r in view.rows if r.kind == kind}


def test_rows_add_up(real: BootView) -> None:
    assert sum(r.ns for r in real.rows) == real.total
    assert real.traced + sum(b - a for a, b, _ in real.gaps) == real.total
    assert sum(r.ns for r in real.rows if r.kind == "gap") == \
        real.total - real.traced
    # the gaps do not overlap and lie inside the boot
    last = real.start
    for a, b, _ in real.gaps:
        assert last <= a < b <= real.end
        last = b
    # this boot: 1.9 s of instructions with the tracer on, 98.6% traced
    # (a call is never taken to last beyond its printed duration)
    assert 1.8e9 < real.total < 2.0e9
    assert real.traced > 0.98 * real.total


def test_ends_at_exec_of_init(real: BootView) -> None:
    assert "run_init_process" in real.end_reason
    assert abs(real.end - 1945820656) < 2000
    # nothing after the end: the idle tasks' later calls do not count
    assert all(r.first < real.end for r in real.rows)


def test_initcall_levels_from_events(real: BootView) -> None:
    assert real.level_source == "initcall_level trace events"
    ic = rows_by(real, "initcall")
    levels = {name: lv for lv, name in ic}
    for fn, lv in KNOWN.items():
        assert levels.get(fn) == lv, (fn, levels.get(fn))
    # the tracer starts inside core_initcall: no early or pure level
    assert "early" not in real.levels and "0" not in real.levels
    assert any("early, 0" in n for n in real.notes)
    # levels come in order in time
    firsts = {}
    for r in real.rows:
        if r.kind == "initcall":
            firsts.setdefault(r.level, r.first)
    order = sorted(firsts, key=lambda lv: firsts[lv])
    assert order == sorted(order)


def test_levels_from_system_map_agree(real: BootView) -> None:
    """Without the trace events, System.map gives the same levels."""
    with open(REAL, encoding="utf-8") as f:
        bare = [ln for ln in f if "/* initcall_" not in ln]
    view = collect([bare], read_system_map(str(SYSMAP)))
    assert view.level_source == "System.map"
    want = {name: lv for lv, name in rows_by(real, "initcall")}
    got = {name: lv for lv, name in rows_by(view, "initcall")}
    common = [n for n in got if n in want and not n.startswith("(")]
    assert len(common) > 40
    for n in common:
        assert got[n] == want[n], n
    assert sum(r.ns for r in view.rows) == view.total
    # with neither, the levels are unknown, and the output says so
    none = collect([bare])
    assert none.level_source == "none"
    assert {lv for lv, _ in rows_by(none, "initcall")} == {"?"}
    assert any("initcall levels unknown" in n for n in none.notes)


def test_console_found(real: BootView) -> None:
    """Console output is a row under the phase that printed: here the
    probe of the PL011 UART, which registers the serial console and
    prints the boot log so far through it."""
    con = rows_by(real, "console")
    key = ("3", "printk/console in probe pl011_probe (initcall 3 "
           "of_platform_default_populate_init)")
    assert list(con) == [key]
    assert con[key] > 10e6     # 15 ms of printk
    rows = [(r.kind, r.name) for r in real.rows]
    i = rows.index(("console", key[1]))
    assert rows[i - 1] == ("probe", "pl011_probe (initcall 3 "
                           "of_platform_default_populate_init)")


def test_merge_order_and_handoff_gap(tmp_path: Path) -> None:
    early = tmp_path / "early.txt"
    early.write_text("".join(early_lines()))
    # the main trace given first: the view still starts with the early
    view = collect([REAL, early])
    assert [i.name for i in view.inputs] == ["early.txt", REAL.name]
    # counter time 0.310 s is local_clock() time 0.010 s
    assert view.inputs[0].shift == -300000000
    assert view.start == 10000000
    # setup_arch and paging_init below it, less the delay
    assert rows_by(view, "setup_arch")[("", "setup_arch")] == \
        4090000 - 2000000
    assert rows_by(view, "mm")[("", "mm init")] == 1200000 - 400000
    assert rows_by(view, "delay") == {
        ("", "__timer_const_udelay in setup_arch"): 2000000}
    # console: the early _printk, under mm init, then the main trace's
    con = rows_by(view, "console")
    assert con[("", "printk/console in mm init")] == 400000
    assert [r.first for r in view.rows if r.kind == "console"][0] == \
        14900000
    rows = [(r.kind, r.name) for r in view.rows]
    assert rows.index(("console", "printk/console in mm init")) == \
        rows.index(("mm", "mm init")) + 1
    handoff = [g for g in view.gaps if "between early.txt and" in g[2]]
    assert len(handoff) == 1
    a, b, _ = handoff[0]
    assert a == 16310000 and b == 38845000
    assert sum(r.ns for r in view.rows) == view.total
    csv_out = run_ftd("boot", str(REAL), str(early), "-f", "csv",
                      "--no-progress").stdout.decode()
    rows = list(csv.DictReader(io.StringIO(csv_out)))
    text = run_ftd("boot", str(early), str(REAL)).stdout.decode()
    assert "early.txt: 0.010000 .. 0.016310 s, 10 calls, counter times " \
        "moved by -0.300000 s" in text
    assert rows[0]["kind"] == "other" and rows[0]["name"] == "start_kernel"
    assert [r["kind"] for r in rows[1:3]] == ["setup_arch", "delay"]


def test_early_file_switched_to_pid_1(tmp_path: Path) -> None:
    """The early records go on after sched_init() for the boot thread,
    and switch to pid 1 (under the name it had then) before the main
    trace, where pid 1 has another name: both are the boot path."""
    t0 = 0.010 + AHEAD
    early = tmp_path / "early.txt"
    early.write_text("".join(early_lines() + [
        " ------------------------------------------\n",
        " 0)   <idle>-0    =>  swapper/0-1\n",
        " ------------------------------------------\n", "\n",
        fg(t0 + 0.007000, 0, "kernel_init() {"),
        fg(t0 + 0.007100, 1, "do_one_initcall();", 5000.0),
        fg(t0 + 0.020000, 0, "} /* kernel_init */", 13000.0)]))
    view = collect([early, REAL])
    assert "run_init_process" in view.end_reason
    assert view.start == 10000000
    # the stretch between the two files starts where pid 1's last
    # early call below kernel_init() (a wrapper) ends, not where
    # start_kernel()'s do
    handoff = [g for g in view.gaps if "between early.txt and" in g[2]]
    assert [(a, b) for a, b, _ in handoff] == [(22100000, 38845000)]
    assert sum(r.ns for r in view.rows) == view.total


def test_early_file_alone() -> None:
    view = collect([early_lines()])
    assert (view.start, view.end) == (10000000, 16310000)
    assert sum(r.ns for r in view.rows) == view.total == 6310000
    assert not view.gaps
    assert any("no calls of pid 1" in n for n in view.notes)
    assert any("no exec of /init" in n for n in view.notes)
    assert not any("levels" in n for n in view.notes)
    assert rows_by(view, "other") == {("", "start_kernel"): 310000,
                                      ("", "sched_init"): 700000,
                                      ("", "ftrace_init"): 10000}


def test_overlap_is_refused(tmp_path: Path) -> None:
    early = tmp_path / "early.txt"
    early.write_text("".join(early_lines(t0=0.850)))
    r = run_ftd("boot", str(early), str(REAL), code=1)
    err = r.stderr.decode()
    assert "overlap" in err and "early.txt" in err


def test_bad_input_file_line(tmp_path: Path) -> None:
    lines = early_lines()
    lines.insert(16, "garbage in the early file\n")
    early = tmp_path / "early.txt"
    early.write_text("".join(lines))
    r = run_ftd("boot", str(early))
    assert "%s:17: garbage in the early file" % early in r.stderr.decode()
    run_ftd("boot", "--strict", str(early), code=3)
    # an early file without times cannot be placed
    none = tmp_path / "none.txt"
    none.write_text("# tracer: function_graph\n# clock: none: no "
                    "architecture counter\n# CPU  FUNCTION CALLS\n"
                    " 0)  start_kernel() {\n")
    r = run_ftd("boot", str(none), str(REAL), code=1)
    assert b"none.txt: the early-boot records have no times" in r.stderr
    # no absolute times: told which option to set
    notime = tmp_path / "notime.txt"
    notime.write_text(" 0)               |  start_kernel() {\n"
                      " 0) ! 120.000 us  |    setup_arch();\n")
    r = run_ftd("boot", str(notime), code=1)
    assert b"funcgraph-abstime" in r.stderr
    bad = tmp_path / "System.map"
    bad.write_text("c0748a40 D __initcall_start\nnot a map line\n")
    r = run_ftd("boot", "--system-map", str(bad), str(early), code=1)
    assert ("%s:2: not a System.map line" % bad).encode() in r.stderr
    r = run_ftd("boot", str(tmp_path / "missing.txt"), code=1)
    assert b"cannot open" in r.stderr


def test_formats_agree(tmp_path: Path) -> None:
    j = json.loads(run_ftd("boot", str(REAL), "-f", "json").stdout)
    c = list(csv.DictReader(io.StringIO(
        run_ftd("boot", str(REAL), "-f", "csv").stdout.decode())))
    assert len(j["rows"]) == len(c) > 100
    assert abs(sum(r["time_us"] for r in j["rows"]) - j["total_us"]) < 1
    assert j["level_source"] == "initcall_level trace events"
    assert j["levels"]["6"]["initcalls"] > 20
    text = run_ftd("boot", str(REAL), "--min-us", "100000").stdout.decode()
    assert "pty_init" in text and "smaller rows" in text
    total = [ln for ln in text.splitlines() if ln.startswith("total ")]
    assert total and human(j["total_us"] * 1000) in total[-1]


def test_levels_and_gaps_with_units() -> None:
    """The initcall levels' times and the largest gaps go through
    human(), like every text table, right-aligned to the widest; JSON
    keeps plain microseconds."""
    text = run_ftd("boot", str(REAL)).stdout.decode()
    lines = text.splitlines()
    at = lines.index("Largest gaps:")
    assert lines[at + 1:at + 6] == [
        "  554.528 us  1.900797 .. 1.901352 s  not traced: between records",
        "    6.431 ms  1.903034 .. 1.909465 s  not traced: between records",
        "    9.783 ms  1.910003 .. 1.919786 s  not traced: between records",
        "    9.312 ms  1.920146 .. 1.929458 s  not traced: between records",
        "  547.144 us  1.929974 .. 1.930521 s  not traced: between records"]
    at = [i for i, ln in enumerate(lines)
          if ln.startswith("Initcall levels (")][0]
    assert "the time including" in lines[at]
    levels = lines[at + 1:at + 8]
    assert levels[0] == "  1 core         13 initcalls,   13 named    3.454 ms"
    assert levels[5] == "  6 device       56 initcalls,   56 named    1.141  s"
    assert levels[6] == "  7 late         35 initcalls,   35 named  229.489 ms"
    assert len({len(ln) for ln in levels}) == 1
    j = json.loads(run_ftd("boot", str(REAL), "-f", "json").stdout)
    assert j["levels"]["6"]["time_us"] == 1141190.712
    assert 554.528 in [g["time_us"] for g in j["gaps"]]


def test_boot_svg(tmp_path: Path) -> None:
    early = tmp_path / "early.txt"
    early.write_text("".join(early_lines()))
    svg = tmp_path / "boot.svg"
    run_ftd("boot", str(early), str(REAL), "--svg", str(svg))
    root = ET.parse(svg).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    frames = root.findall(ns + "g")
    names = {g.get("data-n"): g.get("data-c") for g in frames}
    assert names["__timer_const_udelay"] == "#3a78d8"     # delay: blue
    assert names["console_unlock"] == "#2fa84f"           # console: green
    assert "pty_init" in names and "start_kernel" in names
    gaps = [r for r in root.findall(ns + "rect")
            if r.get("class") == "gap"]
    assert len(gaps) > 10
    assert any("early.txt and " in (r.findtext(ns + "title") or "")
               for r in gaps)


def test_callee_outliving_caller_keeps_its_duration() -> None:
    """A callee whose printed duration exceeds its caller's (the trace
    is inconsistent) keeps it, and so does the caller: the callee is
    drawn in a second lane, no call is moved."""
    tl = Timeline("task")
    w = Walker(None, tl, "t", flat=True)
    w.feed_lines(HEADER + [
        fg(1.000000, 0, "a() {"),
        fg(1.000100, 1, "b();", 500.0),     # longer than a
        fg(1.000300, 0, "}", 300.0),
        fg(1.000400, 0, "c();", 50.0),
    ])
    lanes = tl.lanes(next(iter(tl.tracks)))
    assert len(lanes) == 2
    recs = {tl.name_list[r[3]]: r for lane in lanes for r in lane}
    assert recs["a"][:3] == (1000000000, 1000300000, 0)
    # b ended before the next line of its task, a's return
    assert recs["b"][:2] == (1000301000 - 500000, 1000301000)
    assert recs["c"][:2] == (1000400000, 1000450000)
    assert sorted(tl.name_list[r[3]] for r in lanes[0]) == ["b", "c"]
    assert [tl.name_list[r[3]] for r in lanes[1]] == ["a"]
    assert tl.moved == 0


def test_help() -> None:
    out = run_ftd("boot", "--help").stdout.decode()
    for opt in ("--svg", "--system-map", "--until", "--min-us"):
        assert opt in out
    assert "boot" in run_ftd("--help").stdout.decode()


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
