# SPDX-License-Identifier: GPL-2.0
"""ftd boot: where the boot time went (see boot.py)."""

from __future__ import annotations

import argparse
import os
from typing import Dict, Optional, TextIO

from .command import (SubParsers, UsageError, add_common, add_format,
                      count_arg, load, new_parser, ns_from_us, px, seconds,
                      warn)
from .model import FtdError
from .output import OutFile
from .parse import Walker


def add_parser(sub: SubParsers) -> None:
    b = new_parser(sub, "boot", "the boot view: where boot time went, from "
                   "the early-boot file and the main trace merged in time, "
                   "as a table and a flame chart")
    b.add_argument("traces", nargs="+", metavar="TRACE",
                   help="boot traces with funcgraph-abstime: the "
                   "early-boot file and/or the main trace buffer, in "
                   "any order")
    add_common(b, inputs=0)
    add_format(b)
    b.add_argument("--svg", metavar="FILE",
                   help="also write the boot flame chart (SVG) to FILE")
    b.add_argument("--system-map", metavar="FILE",
                   help="the kernel's System.map: initcall levels from "
                   "its initcall section (used when the trace has no "
                   "initcall_level events)")
    b.add_argument("--dmesg", metavar="FILE",
                   help="the kernel log of the same boot with "
                   "initcall_debug (dmesg, or the console log with "
                   "printk times): names the initcalls whose "
                   "do_one_initcall() call the trace has but not their "
                   "own line, from its \"calling  fn+0x0/0x.. @ 1\" and "
                   "\"initcall fn+0x.. returned\" lines")
    b.add_argument("--until", type=seconds, metavar="SECONDS",
                   help="end the boot here instead of at the exec of "
                   "/init (seconds of the trace clock)")
    b.add_argument("--min-us", type=ns_from_us, default=0, metavar="US",
                   help="fold rows under US microseconds into one row "
                   "per kind and level")
    b.add_argument("--highlight", action="append", metavar="GLOB",
                   help="chart: colour these functions too (repeatable)")
    b.add_argument("--width", type=count_arg(100), default=1600,
                   metavar="PX", help="chart: width in pixels (default "
                   "1600)")
    b.add_argument("--min-px", type=px, default=0.05, metavar="PX",
                   help="chart: leave out calls narrower than PX pixels "
                   "at full zoom (default 0.05)")
    b.add_argument("--title", default="", help="chart: title (default: "
                   "the input files)")
    b.add_argument("--counts", metavar="FILE",
                   help="call counts of every call of boot: "
                   "/sys/kernel/tracing/trace_stat/fgraph_boot (or a "
                   "trace_stat/function* file) saved after boot")
    b.add_argument("--buffer-stats", metavar="FILE",
                   help="the main trace's per_cpu/cpuN/stats, saved "
                   "after boot one after another, each under a "
                   "\"==> per_cpu/cpuN/stats <==\" line (as the demo's "
                   "guest scripts save them): the notes on a CPU whose "
                   "trace starts late say how many events its buffer "
                   "overwrote or dropped")
    b.add_argument("--top", type=count_arg(1), default=10, metavar="N",
                   help="counts: the N functions called most and with "
                   "the most time (default 10)")
    b.add_argument("--folded", metavar="FILE",
                   help="also write the boot path as folded stacks "
                   "(local time in us), in boot order, boot holds "
                   "spliced in as THREAD pseudo-frames")
    b.add_argument("--flame", metavar="FILE",
                   help="also write the boot flame chart (SVG): the "
                   "folded stacks merged, in boot order")
    b.add_argument("--table", choices=("rows", "holds", "counts"),
                   default="rows", help="CSV: which table to write: the "
                   "boot rows (default), the boot holds or the counts")
    b.add_argument("--max-lanes", type=count_arg(1), default=8,
                   metavar="N", help="chart: N tasks at most, the boot "
                   "path's first, then the busiest (default 8)")


def run(a: argparse.Namespace, out: TextIO) -> Walker:
    # imported here, not by every command: loading them costs more
    # than a small trace takes to parse
    from .boot import CONSOLE, DELAY, analyse, fold_small
    from .bootinput import (BootInputs, check_overlap, read_buffer_stats,
                            read_dmesg, read_system_map)
    from .bootwrite import (hold_columns, hold_rows, holds_dict, holds_note,
                            write_boot, write_holds_text)
    from .bootcounts import (count_columns, counts_dict, read_counts,
                             write_counts_text)
    from .bootholds import find_holds
    from .analysis import folded
    from .bootstacks import boot_stacks, flame_chart, merge
    from .output import write_folded
    from .svg import flamechart
    from .table import write_table
    if a.traces.count("-") > 1:
        raise UsageError("boot: standard input can be read only once")
    files = [f for f in (a.output, a.svg, a.folded, a.flame) if f]
    if len(set(files)) < len(files):
        raise UsageError("boot: -o, --svg, --folded and --flame must name "
                         "different files")
    if a.table != "rows" and a.format != "csv":
        raise UsageError("boot: --table chooses the table of -f csv")
    if a.table == "counts" and not a.counts:
        raise UsageError("boot: --table counts needs --counts FILE")
    counts = read_counts(a.counts) if a.counts else None
    col = BootInputs()
    sysmap = read_system_map(a.system_map) if a.system_map else None
    dmesg = read_dmesg(a.dmesg) if a.dmesg else None
    stats = read_buffer_stats(a.buffer_stats) if a.buffer_stats else None
    last: Optional[Walker] = None
    for path in a.traces:
        col.begin("<stdin>" if path == "-" else path)

        def hooks(w: Walker) -> None:
            w.collect.every = col.call
            w.comment_sink = col.comment_sink
            col.lineno = lambda: w.lineno
        w = load(path, a, need_time="the boot view", flat=True,
                 hooks=hooks)
        col.close_open(w.info.last_ts)
        if last is None or w.info.truncated:
            last = w
    assert last is not None
    problem = check_overlap(col.inputs)
    if problem:
        raise FtdError(problem)
    view = analyse(col, sysmap, a.until, dmesg, stats)
    for msg in col.sched.bad[:5]:
        warn(msg + " (left out)")
    if len(col.sched.bad) > 5:
        warn("%d more scheduler events not in the 6.12 format left out" %
             (len(col.sched.bad) - 5))
    holds = find_holds(col.sched, col.tl, view.pieces, view.start,
                       view.end)
    if a.format == "csv" and a.table == "holds":
        write_table(out, hold_columns(False), hold_rows(holds), "csv")
    elif a.format == "csv" and a.table == "counts":
        assert counts is not None
        write_table(out, count_columns(counts.timed), counts.rows, "csv")
    else:
        extra: Dict[str, object] = {
            "boot_holds": holds_dict(holds, col.sched,
                                     holds_note(col.sched, holds)),
            "counts": counts_dict(counts, a.top) if counts else None}

        def sections(f: TextIO) -> None:
            write_holds_text(f, holds, col.sched)
            if counts is not None:
                write_counts_text(f, counts, a.top)
            else:
                f.write("\nCall counts: no --counts file (save "
                        "/sys/kernel/tracing/trace_stat/fgraph_boot after "
                        "boot, see Documentation/trace/fgraph-boot.rst)\n")
        write_boot(out, view, fold_small(view, a.min_us), a.format, extra,
                   sections, holds)
    if a.folded or a.flame:
        root = merge(boot_stacks(view, col.tl, holds))
        if a.folded:
            with OutFile(a.folded) as f:
                write_folded(f, folded({"": root}, first_seen=True),
                             "time")
        if a.flame:
            with OutFile(a.flame) as f:
                flame_chart(f, root, a.title or "Boot flame chart: "
                            "%s" % ", ".join(os.path.basename(i.name)
                                             for i in view.inputs),
                            a.width)
    if a.svg:
        with OutFile(a.svg) as f:
            tl = col.tl.window(view.start, view.end)
            title = a.title or "Boot: %s" % ", ".join(
                os.path.basename(i.name) for i in view.inputs)
            marks = [(g0, g1, name) for g0, g1, name in view.gaps]
            flamechart(f, tl, title, DELAY + (a.highlight or []),
                       a.width, min_px=a.min_px, max_lanes=a.max_lanes,
                       marks=marks,
                       green=CONSOLE, legend="blue: delays, green: "
                       "printk/console, grey: not traced",
                       keep=view.tracks)
    return last
