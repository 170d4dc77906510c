# SPDX-License-Identifier: GPL-2.0
"""Command line of ftd."""

from __future__ import annotations

import argparse
import errno
import json
import os
import signal
import sys
from typing import (Callable, Dict, List, Optional, Sequence, TextIO,
                    Tuple)

from . import VERSION
from .boot import (CONSOLE, DELAY, Collector, analyse, check_overlap,
                   fold_small, read_system_map, write_boot)
from .analysis import (backtraces, diff_stats, folded,
                       func_stats, matcher, merged_tree, ordered_folded,
                       relations, top_callees)
from .model import (EXIT_INPUT, EXIT_INTERRUPTED, EXIT_MALFORMED,
                    EXIT_OK, EXIT_USAGE, FtdError, FuncStats, Timeline,
                    TraceInfo, task_name)
from .output import (OutFile, parse_sort, sort_stats, write_chrome, write_diff,
                     write_folded, write_speedscope, write_table,
                     write_tree)
from .parse import Filters, Walker, parse_file
from .svg import flamechart, flamegraph

OPT = "/sys/kernel/tracing/options/"

DESCRIPTION = """\
ftd (function trace dump) reads the text output of the function_graph
tracer (the tracefs files trace or trace_pipe, plain or compressed with
gzip, xz or bzip2, or '-' for stdin) and reports where the time went."""

EPILOG = """\
exit status: 0 success, 1 unreadable or unsuitable input, 2 usage
error, 3 malformed lines with --strict, 130 interrupted.
See Documentation/tools/ftd/ftd.rst for the formats and definitions."""


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        raise UsageError(message)


def _ns_from_us(text: str) -> int:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number: %r" % text)
    if v < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return int(round(v * 1000))


def _count_arg(low: int) -> Callable[[str], int]:
    """An integer option that must be at least low."""
    def conv(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("not a whole number: %r" %
                                             text)
        if v < low:
            raise argparse.ArgumentTypeError("must be at least %d, not %d"
                                             % (low, v))
        return v
    return conv


def _px(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number: %r" % text)
    if not v >= 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return v


def _int_list(text: str) -> List[int]:
    out: List[int] = []
    for part in text.split(","):
        part = part.strip()
        if "-" in part:
            a, _, b = part.partition("-")
            try:
                out.extend(range(int(a), int(b) + 1))
            except ValueError:
                raise argparse.ArgumentTypeError("bad range %r" % part)
        elif part:
            try:
                out.append(int(part))
            except ValueError:
                raise argparse.ArgumentTypeError("not a number %r" % part)
    return out


def _window(text: str) -> List[Optional[int]]:
    a, sep, b = text.partition(",")
    if not sep:
        a, sep, b = text.partition(":")
    out: List[Optional[int]] = []
    for part in (a, b):
        part = part.strip()
        if not part:
            out.append(None)
            continue
        try:
            out.append(int(round(float(part) * 1e9)))
        except ValueError:
            raise argparse.ArgumentTypeError("bad time %r" % part)
    if out[0] is not None and out[1] is not None and out[0] >= out[1]:
        raise argparse.ArgumentTypeError(
            "the window %r ends before it starts" % text)
    return out


def _seconds(text: str) -> int:
    try:
        return int(round(float(text) * 1e9))
    except ValueError:
        raise argparse.ArgumentTypeError("bad time %r" % text)


def _common(p: argparse.ArgumentParser, inputs: int = 1) -> None:
    if inputs == 1:
        p.add_argument("trace", help="trace file (plain, .gz, .xz, .bz2) "
                       "or - for stdin")
    g = p.add_argument_group("input and filters")
    g.add_argument("--strict", action="store_true",
                   help="malformed lines are fatal (exit status 3)")
    g.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress line on stderr (by default there "
                   "is one for long inputs when stderr is a terminal)")
    g.add_argument("--cpu", type=_int_list, metavar="LIST",
                   help="only lines of these CPUs, e.g. 0,2-3")
    g.add_argument("--pid", type=_int_list, metavar="LIST",
                   help="only these tasks (pid list)")
    g.add_argument("--task", action="append", metavar="GLOB",
                   help="only tasks whose comm (or comm-pid) matches "
                   "(repeatable); !GLOB leaves those tasks out")
    g.add_argument("--time", type=_window, metavar="START,END",
                   help="only calls starting in this window, in seconds "
                   "of the trace clock (either end may be empty); needs "
                   "funcgraph-abstime")
    g.add_argument("--min-dur", type=_ns_from_us, default=0, metavar="US",
                   help="only calls that took at least US microseconds")
    g.add_argument("--max-depth", type=_count_arg(0), metavar="N",
                   help="only calls at call depth N or less (0 = "
                   "outermost)")
    g.add_argument("-o", "--output", metavar="FILE",
                   help="write to FILE instead of stdout")


def _fmt(p: argparse.ArgumentParser) -> None:
    p.add_argument("-f", "--format", choices=("text", "csv", "json"),
                   default="text", help="output format (default text)")


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="ftd", description=DESCRIPTION, epilog=EPILOG,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version",
                   version="ftd " + VERSION)
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND",
                           parser_class=Parser)

    def add(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, description=help,
                              epilog=EPILOG)

    r = add("report", "per-function table: count, total, average, min, "
            "max and local time")
    _common(r)
    _fmt(r)
    r.add_argument("-s", "--sort", default="total", metavar="KEYS",
                   help="sort keys, comma separated: function, count, "
                   "total, avg, min, max, local (default total)")
    r.add_argument("-r", "--reverse", action="store_true",
                   help="reverse the order: numbers smallest first, names "
                   "Z to A")
    r.add_argument("-n", "--top", type=_count_arg(1), metavar="N",
                   help="show the first N rows only")
    r.add_argument("-F", "--function", action="append", metavar="GLOB",
                   help="only functions matching GLOB (repeatable)")
    r.add_argument("--subs", type=_count_arg(0), default=0, metavar="N",
                   help="text format: add the N subroutines each "
                   "function calls most")

    for name, what in (("callers", "who calls FUNC: per caller, the "
                        "count and times of FUNC's calls"),
                       ("callees", "what FUNC calls: per callee, the "
                        "count and times of the calls made from FUNC")):
        c = add(name, what)
        _common(c)
        c.add_argument("function", metavar="FUNC",
                       help="the function, or a shell glob matching "
                       "several (each row then names its function)")
        _fmt(c)
        c.add_argument("-s", "--sort", default="count", metavar="KEYS",
                       help="sort keys, comma separated: function, count, "
                       "total, avg, min, max, local (default count)")
        c.add_argument("-r", "--reverse", action="store_true",
                       help="reverse the order: numbers smallest first, "
                       "names Z to A")
        c.add_argument("-n", "--top", type=_count_arg(1), metavar="N",
                       help="show the first N rows only")

    t = add("tree", "call tree with inclusive times and counts, rooted "
            "at FUNC (all calls of FUNC merged) or at the outermost calls")
    _common(t)
    t.add_argument("function", nargs="?", metavar="FUNC",
                   help="root the tree at this function (all its calls "
                   "merged); default: the outermost calls")
    t.add_argument("-s", "--sort", choices=("total", "count", "function"),
                   default="total", help="order of the callees of each "
                   "function (default total)")
    t.add_argument("--backtrace", action="store_true",
                   help="also list the call paths that lead to FUNC")

    fo = add("folded", "folded stacks for flamegraph.pl")
    _common(fo)
    fo.add_argument("--weight", choices=("time", "ns", "count"),
                    default="time", help="time: local time in us (default),"
                    " ns: local time in integer ns, count: calls")
    fo.add_argument("--per-task", action="store_true",
                    help="start each stack with the task (comm-pid)")
    fo.add_argument("--focus", metavar="FUNC",
                    help="only stacks that contain FUNC")
    fo.add_argument("--ordered", action="store_true",
                    help="time order, one line per slice of time with "
                    "the same stack, for `flamegraph.pl --flamechart` "
                    "(needs funcgraph-abstime; each stack starts with "
                    "the task)")

    fg = add("flamegraph", "self-contained SVG flame graph (merged "
             "stacks)")
    _common(fg)
    fg.add_argument("--weight", choices=("time", "count"), default="time",
                    help="widths by inclusive time (default) or by "
                    "calls")
    fg.add_argument("--focus", metavar="FUNC",
                    help="only the calls of FUNC and below")
    _svgopts(fg)

    fc = add("flamechart", "self-contained SVG flame chart: time on the "
             "x axis, one lane per task or CPU")
    _common(fc)
    _svgopts(fc)
    fc.add_argument("--tracks", choices=("task", "cpu"), default="task",
                    help="one lane per task (default), or per task on "
                    "each CPU")
    fc.add_argument("--max-lanes", type=_count_arg(1), default=64,
                    metavar="N", help="draw the N busiest lanes "
                    "(default 64)")
    fc.add_argument("--min-px", type=_px, default=0.05, metavar="PX",
                    help="leave out calls narrower than PX pixels at "
                    "full width (default 0.05)")

    ch = add("chrome", "Chrome trace-event JSON (Perfetto UI, "
             "chrome://tracing)")
    _common(ch)
    ch.add_argument("--tracks", choices=("task", "cpu"), default="task",
                    help="one track per task (default) or per CPU")

    sp = add("speedscope", "speedscope JSON, one evented profile per "
             "task or CPU")
    _common(sp)
    sp.add_argument("--tracks", choices=("task", "cpu"), default="task",
                    help="one profile per task (default) or per task on "
                    "each CPU")

    d = add("diff", "compare two traces per function: count, total, "
            "average")
    d.add_argument("trace_a", metavar="A", help="the first trace (- for "
                   "stdin)")
    d.add_argument("trace_b", metavar="B", help="the second trace")
    _common(d, inputs=0)
    _fmt(d)
    d.add_argument("-s", "--sort", default="total",
                   choices=("total", "count", "avg", "function"),
                   help="sort by the absolute change of this column")
    d.add_argument("-n", "--top", type=_count_arg(1), metavar="N",
                   help="show the first N rows only")
    d.add_argument("-F", "--function", action="append", metavar="GLOB",
                   help="only functions matching GLOB (repeatable)")

    b = add("boot", "the boot view: where boot time went, from the "
            "early-boot file and the main trace merged in time, as a "
            "table and a flame chart")
    b.add_argument("traces", nargs="+", metavar="TRACE",
                   help="boot traces with funcgraph-abstime: the "
                   "early-boot file and/or the main trace buffer, in "
                   "any order")
    _common(b, inputs=0)
    _fmt(b)
    b.add_argument("--svg", metavar="FILE",
                   help="also write the boot flame chart (SVG) to FILE")
    b.add_argument("--system-map", metavar="FILE",
                   help="the kernel's System.map: initcall levels from "
                   "its initcall section (used when the trace has no "
                   "initcall_level events)")
    b.add_argument("--until", type=_seconds, metavar="SECONDS",
                   help="end the boot here instead of at the exec of "
                   "/init (seconds of the trace clock)")
    b.add_argument("--min-us", type=_ns_from_us, default=0, metavar="US",
                   help="fold rows under US microseconds into one row "
                   "per kind and level")
    b.add_argument("--highlight", action="append", metavar="GLOB",
                   help="chart: colour these functions too (repeatable)")
    b.add_argument("--width", type=_count_arg(100), default=1600,
                   metavar="PX", help="chart: width in pixels (default "
                   "1600)")
    b.add_argument("--min-px", type=_px, default=0.05, metavar="PX",
                   help="chart: leave out calls narrower than PX pixels "
                   "at full zoom (default 0.05)")
    b.add_argument("--title", default="", help="chart: title (default: "
                   "the input files)")
    b.add_argument("--max-lanes", type=_count_arg(1), default=8, metavar="N",
                   help="chart: N tasks at most, the boot path's first, "
                   "then the busiest (default 8)")

    i = add("info", "what is in the trace: format, CPUs, tasks, time "
            "span, malformed and lost counts")
    _common(i)
    i.add_argument("-f", "--format", choices=("text", "json"),
                   default="text", help="output format (default text)")
    return p


def _svgopts(p: argparse.ArgumentParser) -> None:
    p.add_argument("--highlight", action="append", metavar="GLOB",
                   help="colour these functions (repeatable; default: "
                   "delay and printk functions)")
    p.add_argument("--no-highlight", action="store_true",
                   help="colour no function specially")
    p.add_argument("--width", type=_count_arg(100), default=1200,
                   metavar="PX", help="width of the picture in pixels "
                   "(default 1200)")
    p.add_argument("--title", default="", help="title of the picture "
                   "(default: the command and the file name)")


def _filters(a: argparse.Namespace) -> Filters:
    f = Filters()
    if a.cpu is not None:
        f.cpus = set(a.cpu)
    if a.pid is not None:
        f.pids = set(a.pid)
    if a.task:
        f.tasks = list(a.task)
    if a.time:
        f.t_start, f.t_end = a.time
    f.min_dur = a.min_dur
    f.max_depth = a.max_depth
    return f


def warn(msg: str) -> None:
    sys.stderr.write("ftd: " + msg + "\n")


def _report_problems(info: TraceInfo, strict: bool) -> None:
    if info.malformed:
        where = ", ".join(str(n) for n in info.malformed_lines)
        more = "" if info.malformed <= len(info.malformed_lines) else ", ..."
        warn("%s: %d malformed line%s skipped (line%s %s%s)" % (
            info.name, info.malformed, "s" if info.malformed > 1 else "",
            "s" if info.malformed > 1 else "", where, more))
        if info.malformed_samples:
            warn("%s:%d: %s" % (info.name, info.malformed_lines[0],
                                info.malformed_samples[0]))
        if strict:
            raise FtdError("%s: malformed input (--strict)" % info.name,
                           EXIT_MALFORMED)
    lay = info.layout
    if lay is not None:
        if not (lay.abstime or lay.cpu or lay.proc or lay.lat or
                lay.duration):
            warn("%s: no columns at all: no times, and CPUs and tasks "
                 "cannot be told apart; `echo 1 > %scontext-info`" % (
                     info.name, OPT))
        elif not lay.duration:
            warn("%s: no duration column: leaf functions have no time; "
                 "turn it on with `echo 1 > %sfuncgraph-duration`" % (
                     info.name, OPT))
        if not lay.cpu and len(info.cpus) == 0 and info.switches:
            warn("%s: no CPU column: calls of different CPUs cannot be "
                 "told apart; `echo 1 > %sfuncgraph-cpu`" % (
                     info.name, OPT))
    if info.lost_events:
        warn("%s: %d lost-events markers (%d records lost): times near "
             "them may be incomplete" % (info.name, info.lost_events,
                                         info.lost_records))


def load(path: str, a: argparse.Namespace, sink=None,  # type: ignore
         need_time: str = "", flat: bool = False,
         count_lines: bool = False,
         hooks: Optional[Callable[[Walker], None]] = None) -> Walker:
    w = parse_file(path, _filters(a), sink, need_time, a.progress, flat,
                   count_lines, hooks)
    info = w.info
    if w.layout is None:
        raise FtdError("%s: no function_graph output found (%d lines "
                       "read); save /sys/kernel/tracing/trace with "
                       "current_tracer set to function_graph" % (
                           info.name, info.lines))
    _report_problems(info, a.strict)
    if not w.tasks:
        raise FtdError("%s: no function calls found in %d lines" % (
            info.name, info.lines))
    if not any(f.count for f in w.func_stats().values()):
        used = _filter_args(a)
        if used:
            tasks = sorted(task_name(k) for k in w.tasks)
            raise FtdError("%s: no calls match %s (tasks in the trace: "
                           "%s%s)" % (info.name, " ".join(used),
                                      ", ".join(tasks[:8]),
                                      ", ..." if len(tasks) > 8 else ""))
        raise FtdError("%s: no completed calls in %d lines" % (
            info.name, info.lines))
    return w


def _filter_args(a: argparse.Namespace) -> List[str]:
    """The filter options given, as they were spelled."""
    out = []
    for opt, v in (("--cpu", a.cpu), ("--pid", a.pid),
                   ("--time", a.time), ("--max-depth", a.max_depth)):
        if v is not None:
            out.append(opt)
    for t in a.task or []:
        out.append("--task %r" % t)
    if a.min_dur:
        out.append("--min-dur")
    return out


def _open_out(a: argparse.Namespace) -> Optional[OutFile]:
    if getattr(a, "output", None) and a.output != "-":
        return OutFile(a.output)
    return None


def cmd_report(a: argparse.Namespace, out: TextIO) -> Walker:
    w = load(a.trace, a, flat=not a.subs)
    stats = w.func_stats()
    keep = matcher(a.function)
    rows = [f for f in stats.values() if keep(f.function)]
    if not rows and a.function:
        raise FtdError("%s: no function matches %s" % (
            w.info.name, " ".join("-F %r" % g for g in a.function)))
    rows = sort_stats(rows, parse_sort(a.sort), a.reverse)
    if a.top is not None:
        rows = rows[:a.top]
    extra = None
    if a.subs and a.format == "text":
        subs = top_callees(w.roots())
        extra = {}
        for f in rows:
            d = subs.get(f.function, {})
            best = sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))
            extra[f.function] = ", ".join("%s(%d)" % kv for kv in
                                          best[:a.subs])
    write_table(out, rows, a.format, extra, "Subroutines (calls)")
    return w


def cmd_relations(a: argparse.Namespace, out: TextIO) -> Walker:
    w = load(a.trace, a)
    callers, callees, me, names = relations(w.roots(), a.function)
    if not names:
        raise FtdError("%s: function %r not found in the trace" % (
            w.info.name, a.function))
    table = callers if a.cmd == "callers" else callees
    rows = sort_stats(list(table.values()), parse_sort(a.sort), a.reverse)
    if a.top is not None:
        rows = rows[:a.top]
    if a.format == "text":
        if len(names) > 1:
            out.write("%s matches %d functions: %s\n" % (
                a.function, len(names), ", ".join(names)))
        out.write("%s: %d calls, %.3f us total, %.3f us local\n\n" % (
            a.function, me.count, me.total / 1000.0, me.local / 1000.0))
        out.write("%s of %s:\n" % ("Callers" if a.cmd == "callers"
                                   else "Callees", a.function))
    write_table(out, rows, a.format)
    return w


def cmd_tree(a: argparse.Namespace, out: TextIO) -> Walker:
    # --max-depth and --min-dur shape the printed tree: levels below
    # its root, and subtrees with less total time
    w = load(a.trace, argparse.Namespace(**dict(vars(a), max_depth=None,
                                                min_dur=0)))
    roots = w.roots()
    top = merged_tree(roots, a.function)
    if a.function and not top[2] and not top[1]:
        raise FtdError("%s: function %r not found in the trace" % (
            w.info.name, a.function))
    if a.function and a.backtrace:
        out.write("Backtraces of %s:\n" % a.function)
        for i, (path, cnt, tot) in enumerate(backtraces(roots,
                                                        a.function)):
            out.write("  #%d: %d calls, %.3f us\n" % (i, cnt, tot / 1000.0))
            for j, fn in enumerate(reversed(path)):
                out.write("    [%d] %s\n" % (j, fn))
        out.write("\n")
    write_tree(out, top, a.max_depth, a.min_dur, a.sort)
    return w


def cmd_folded(a: argparse.Namespace, out: TextIO) -> Walker:
    if a.ordered:
        if a.weight == "count":
            raise UsageError("--ordered slices time: use --weight time "
                             "or ns")
        w, tl = _timeline(a, "an ordered (flame chart) folded output")
        write_folded(out, list(ordered_folded(tl)), a.weight)
        return w
    w = load(a.trace, a)
    _check_focus(w, a.focus)
    negative = [0, 0]
    items = list(folded(w.roots(), "count" if a.weight == "count"
                        else "time", a.per_task, a.focus, negative))
    write_folded(out, items, a.weight)
    if negative[0]:
        warn("%s: %d stack%s with negative local time (%.3f us in all) "
             "left out: the printed durations of their callees add up "
             "to more than their own (see LOCAL TIME in ftd.rst)" % (
                 w.info.name, negative[0], "s" if negative[0] > 1 else "",
                 -negative[1] / 1000.0))
    return w


def _hl(a: argparse.Namespace) -> Optional[List[str]]:
    if a.no_highlight:
        return []
    hl: Optional[List[str]] = a.highlight
    return hl


def _check_focus(w: Walker, func: Optional[str]) -> None:
    if func is not None and func not in w.func_stats():
        raise FtdError("%s: --focus %r: no such function in the trace" % (
            w.info.name, func))


def cmd_flamegraph(a: argparse.Namespace, out: TextIO) -> Walker:
    w = load(a.trace, a)
    _check_focus(w, a.focus)
    top = merged_tree(w.roots(), a.focus)
    if a.focus:
        holder = merged_tree({}, None)
        holder[1][a.focus] = top
        top = holder
    title = a.title or "Flame graph: %s" % os.path.basename(w.info.name)
    sub = "width = %s; %d functions" % (
        "inclusive time" if a.weight == "time" else "calls",
        len(func_stats(w.roots())))
    flamegraph(out, top, title, sub, _hl(a), a.width, unit=a.weight)
    return w


def _timeline(a: argparse.Namespace,
              what: str) -> Tuple[Walker, Timeline]:
    tl = Timeline(getattr(a, "tracks", "task"))
    w = load(a.trace, a, tl.sink, need_time=what, flat=True)
    tl.set_origin(w.info.first_ts)
    if not tl.tracks:
        raise FtdError("%s: no completed calls with timestamps" %
                       w.info.name)
    return w, tl


def cmd_flamechart(a: argparse.Namespace, out: TextIO) -> Walker:
    w, tl = _timeline(a, "a flame chart")
    title = a.title or "Flame chart: %s" % os.path.basename(w.info.name)
    flamechart(out, tl, title, _hl(a), a.width, min_px=a.min_px,
               max_lanes=a.max_lanes)
    return w


def cmd_chrome(a: argparse.Namespace, out: TextIO) -> Walker:
    w, tl = _timeline(a, "the Chrome trace-event export")
    write_chrome(out, tl)
    return w


def cmd_speedscope(a: argparse.Namespace, out: TextIO) -> Walker:
    w, tl = _timeline(a, "the speedscope export")
    write_speedscope(out, tl, os.path.basename(w.info.name))
    return w


def cmd_diff(a: argparse.Namespace, out: TextIO) -> Walker:
    wa = load(a.trace_a, a, flat=True)
    wb = load(a.trace_b, a, flat=True)
    keep = matcher(a.function)
    rows = [r for r in diff_stats(wa.func_stats(), wb.func_stats())
            if keep(r[0])]

    def key(r):  # type: ignore[no-untyped-def]
        _, x, y = r
        if a.sort == "count":
            return -abs(y.count - x.count)
        if a.sort == "avg":
            return -abs(y.avg - x.avg)
        return -abs(y.total - x.total)
    if a.sort != "function":
        rows.sort(key=key)
    if a.top is not None:
        rows = rows[:a.top]
    write_diff(out, rows, a.format)
    if wa.info.truncated or wb.info.truncated:
        return wa if wa.info.truncated else wb
    return wa


def info_dict(w: Walker) -> Dict[str, object]:
    i = w.info
    lay = i.layout
    span = None
    if i.first_ts is not None and i.last_ts is not None:
        span = [i.first_ts / 1e9, i.last_ts / 1e9]
    stats = w.func_stats()
    return {
        "file": i.name,
        "tracer": i.tracer or None,
        "columns": lay.describe() if lay else None,
        "funcgraph_tail": i.tail,
        "funcgraph_retval": i.retval,
        "exits_only": i.exits_only,
        "lines": i.lines,
        "entries": i.entries,
        "returns": i.returns,
        "leaves": i.leaves,
        "calls_counted": sum(f.count for f in stats.values()),
        "functions": len(stats),
        "returns_without_entry": i.orphan_returns,
        "unnamed_returns_without_entry": i.unnamed_orphans,
        "entries_without_return": i.unfinished,
        "lost_returns": i.missing_returns,
        "calls_cut": i.cut_calls,
        "max_depth": i.max_depth,
        "cpus": sorted(i.cpus),
        "tasks": dict(sorted(i.tasks.items(), key=lambda kv: -kv[1])),
        "time_span_s": span,
        "context_switches": i.switches,
        "irq_entries": i.irq_entries,
        "irq_exits": i.irq_exits,
        "comments": i.comments,
        "lost_event_markers": i.lost_events,
        "lost_events": i.lost_records,
        "malformed": i.malformed,
        "malformed_lines": i.malformed_lines,
        "truncated": i.truncated or None,
    }


def cmd_info(a: argparse.Namespace, out: TextIO) -> Walker:
    w = load(a.trace, a, flat=True, count_lines=True)
    d = info_dict(w)
    if a.format == "json":
        out.write(json.dumps(d, indent=1) + "\n")
        return w
    for k, v in d.items():
        if k == "tasks" and isinstance(v, dict):
            out.write("%-30s %d\n" % ("tasks", len(v)))
            for t, n in list(v.items())[:20]:
                out.write("  %-28s %d lines\n" % (t, n))
            if len(v) > 20:
                out.write("  ... %d more\n" % (len(v) - 20))
            continue
        if isinstance(v, list):
            v = " ".join(str(x) for x in v)
        out.write("%-30s %s\n" % (k, "-" if v is None else v))
    if w.info.layout is not None and not w.info.layout.abstime:
        out.write("\nTimelines (flamechart, chrome, speedscope) need "
                  "`echo 1 > %sfuncgraph-abstime`.\n" % OPT)
    return w


def cmd_boot(a: argparse.Namespace, out: TextIO) -> Walker:
    col = Collector()
    sysmap = read_system_map(a.system_map) if a.system_map else None
    last: Optional[Walker] = None
    for path in a.traces:
        col.begin("<stdin>" if path == "-" else path)

        def hooks(w: Walker) -> None:
            w.open_sink = col.open_sink
            w.comment_sink = col.comment_sink
        w = load(path, a, col.sink, need_time="the boot view", flat=True,
                 hooks=hooks)
        col.close_open(w.info.last_ts)
        if last is None or w.info.truncated:
            last = w
    assert last is not None
    problem = check_overlap(col.inputs)
    if problem:
        raise FtdError(problem)
    view = analyse(col, sysmap, a.until)
    write_boot(out, view, fold_small(view, a.min_us), a.format)
    if a.svg:
        svg = OutFile(a.svg)
        try:
            f = svg.file
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
            svg.commit()
        finally:
            svg.discard()
    return last


COMMANDS: Dict[str, Callable[[argparse.Namespace, TextIO], Walker]] = {
    "report": cmd_report, "callers": cmd_relations,
    "callees": cmd_relations, "tree": cmd_tree, "folded": cmd_folded,
    "flamegraph": cmd_flamegraph, "flamechart": cmd_flamechart,
    "chrome": cmd_chrome, "speedscope": cmd_speedscope, "diff": cmd_diff,
    "info": cmd_info, "boot": cmd_boot,
}


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    outfile: Optional[OutFile] = None
    try:
        args = parser.parse_args(argv)
        if not args.cmd:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        check_args(args)
        outfile = _open_out(args)
        out = sys.stdout if outfile is None else outfile.file
        w = COMMANDS[args.cmd](args, out)
        out.flush()
        if outfile is not None:
            outfile.commit()
            outfile = None
        if w.info.truncated:
            warn(w.info.truncated + "; results cover the data before "
                 "that point")
            return EXIT_INPUT
        return EXIT_OK
    except UsageError as err:
        warn(str(err))
        return EXIT_USAGE
    except FtdError as err:
        warn(str(err))
        return err.code
    except KeyboardInterrupt:
        warn("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_OK
    except RecursionError:
        warn("input nests too deeply")
        return EXIT_INPUT
    except MemoryError:
        warn("out of memory")
        return EXIT_INPUT
    except OSError as err:
        if err.errno == errno.EPIPE:
            _quiet_stdout()
            return EXIT_OK
        warn("I/O error: %s" % err)
        return EXIT_INPUT
    finally:
        # a command that failed leaves no output file behind
        if outfile is not None:
            outfile.discard()


def check_args(a: argparse.Namespace) -> None:
    """What argparse cannot check alone."""
    if a.cmd == "diff" and a.trace_a == "-" and a.trace_b == "-":
        raise UsageError("diff: standard input can be read only once; "
                         "give at least one of A and B as a file")
    if a.cmd == "boot" and a.traces.count("-") > 1:
        raise UsageError("boot: standard input can be read only once")
    if a.cmd == "boot" and a.svg and a.svg == getattr(a, "output", None):
        raise UsageError("boot: --svg and -o name the same file")


def _quiet_stdout() -> None:
    """After EPIPE, point stdout at /dev/null so that the interpreter's
    final flush does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def run() -> None:
    try:
        code = main()
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    except Exception as err:  # last resort: never a traceback
        sys.stderr.write("ftd: internal error: %s: %s\n" % (
            type(err).__name__, err))
        code = 70
    try:
        sys.stdout.flush()
    except (BrokenPipeError, OSError):
        _quiet_stdout()
    sys.exit(code)


if __name__ == "__main__":
    if hasattr(signal, "SIGPIPE"):
        pass
    run()
