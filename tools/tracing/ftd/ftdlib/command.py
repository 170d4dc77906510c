# SPDX-License-Identifier: GPL-2.0
"""What the commands share: their common options and argument checks,
the filters, loading a trace with its warnings, and usage errors."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Callable, List, Optional, Tuple

from .analysis import matcher, prune
from .collect import Filters
from .model import EXIT_MALFORMED, FtdError, TraceInfo
from .tasks import task_name
from .parse import Walker, parse_file
from .timeline import Timeline

OPT = "/sys/kernel/tracing/options/"

EPILOG = """\
exit status: 0 success, 1 unreadable or unsuitable input, 2 usage
error, 3 malformed lines with --strict, 130 interrupted.
See Documentation/tools/ftd/ftd.rst for the formats and definitions."""

# what add_subparsers() returns, given to each command's add_parser()
if TYPE_CHECKING:
    SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    SubParsers = argparse._SubParsersAction


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        raise UsageError(message)


def new_parser(sub: "SubParsers", name: str,
               help: str) -> argparse.ArgumentParser:
    """A command's parser, its one-line help also its description."""
    return sub.add_parser(name, help=help, description=help,
                          epilog=EPILOG)


def ns_from_us(text: str) -> int:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number: %r" % text)
    if v < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return int(round(v * 1000))


def count_arg(low: int) -> Callable[[str], int]:
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


def px(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number: %r" % text)
    if not v >= 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return v


def int_list(text: str) -> List[int]:
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


def window(text: str) -> List[Optional[int]]:
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


def seconds(text: str) -> int:
    try:
        return int(round(float(text) * 1e9))
    except ValueError:
        raise argparse.ArgumentTypeError("bad time %r" % text)


def add_common(p: argparse.ArgumentParser, inputs: int = 1) -> None:
    if inputs == 1:
        p.add_argument("trace", help="trace file (plain, .gz, .xz, .bz2) "
                       "or - for stdin")
    g = p.add_argument_group("input and filters")
    g.add_argument("--strict", action="store_true",
                   help="malformed lines are fatal (exit status 3)")
    g.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress line on stderr (by default there "
                   "is one for long inputs when stderr is a terminal)")
    g.add_argument("--cpu", type=int_list, metavar="LIST",
                   help="only lines of these CPUs, e.g. 0,2-3")
    g.add_argument("--pid", type=int_list, metavar="LIST",
                   help="only these tasks (pid list)")
    g.add_argument("--task", action="append", metavar="GLOB",
                   help="only tasks whose comm (or comm-pid) matches "
                   "(repeatable); !GLOB leaves those tasks out")
    g.add_argument("--time", type=window, metavar="START,END",
                   help="only calls starting in this window, in seconds "
                   "of the trace clock (either end may be empty); needs "
                   "funcgraph-abstime")
    g.add_argument("--min-dur", type=ns_from_us, default=0, metavar="US",
                   help="only calls that took at least US microseconds")
    g.add_argument("--max-depth", type=count_arg(0), metavar="N",
                   help="only calls at call depth N or less (0 = "
                   "outermost)")
    g.add_argument("-N", "--exclude", action="append", metavar="GLOB",
                   help="leave out the calls of functions matching GLOB "
                   "and everything they called (repeatable)")
    g.add_argument("-o", "--output", metavar="FILE",
                   help="write to FILE instead of stdout")


def add_format(p: argparse.ArgumentParser) -> None:
    p.add_argument("-f", "--format", choices=("text", "csv", "json"),
                   default="text", help="output format (default text)")


def add_svg_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--highlight", action="append", metavar="GLOB",
                   help="colour these functions (repeatable; default: "
                   "delay and printk functions)")
    p.add_argument("--no-highlight", action="store_true",
                   help="colour no function specially")
    p.add_argument("--width", type=count_arg(100), default=1200,
                   metavar="PX", help="width of the picture in pixels "
                   "(default 1200)")
    p.add_argument("--title", default="", help="title of the picture "
                   "(default: the command and the file name)")


def chose_tasks(a: argparse.Namespace) -> bool:
    """Whether the user chose the tasks (--pid, --task)."""
    return a.pid is not None or bool(a.task)


def filters(a: argparse.Namespace) -> Filters:
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


def report_problems(info: TraceInfo, strict: bool) -> None:
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
        if not lay.cpu and info.mixed_cpus:
            warn("%s: no CPU column: where lines of several CPUs mix, "
                 "returns are matched by time only (%d not matched) and "
                 "callers are unknown; `echo 1 > %sfuncgraph-cpu`" % (
                     info.name, info.ambiguous, OPT))
    if info.lost_events:
        warn("%s: %d lost-events markers (%d records lost): times near "
             "them may be incomplete" % (info.name, info.lost_events,
                                         info.lost_records))


def load(path: str, a: argparse.Namespace,
         timeline: Optional[Timeline] = None,
         need_time: str = "", flat: bool = False,
         hooks: Optional[Callable[[Walker], None]] = None,
         oncpu: bool = False, drop_idle: bool = False) -> Walker:
    """Parse a trace with the filters of a; with oncpu, keep on-CPU
    time when the trace has time stamps; with drop_idle, leave the
    idle tasks' calls out.  -N needs call paths, so it turns flat off
    and prunes the trees."""
    excl = getattr(a, "exclude", None)
    if excl:
        flat = False

    def all_hooks(w: Walker) -> None:
        if oncpu:
            w.want_oncpu()
        elif getattr(a, "exclude", None) and timeline is not None:
            raise UsageError("-N applies to the call trees: report, "
                             "callers, callees, tree, folded, flamegraph")
        if hooks is not None:
            hooks(w)
    f = filters(a)
    f.drop_idle = drop_idle
    w = parse_file(path, f, timeline, need_time, a.progress, flat,
                   all_hooks)
    if excl:
        prune(w.roots(), matcher(excl))
    info = w.info
    if w.layout is None:
        raise FtdError("%s: no function_graph output found (%d lines "
                       "read); save /sys/kernel/tracing/trace with "
                       "current_tracer set to function_graph" % (
                           info.name, info.lines))
    report_problems(info, a.strict)
    if not w.tasks:
        raise FtdError("%s: no function calls found in %d lines" % (
            info.name, info.lines))
    if not any(f.count for f in w.func_stats().values()):
        used = filter_args(a)
        if used:
            tasks = sorted(task_name(k) for k in w.tasks)
            raise FtdError("%s: no calls match %s (tasks in the trace: "
                           "%s%s)" % (info.name, " ".join(used),
                                      ", ".join(tasks[:8]),
                                      ", ..." if len(tasks) > 8 else ""))
        if drop_idle:
            raise FtdError("%s: only the idle tasks (pid 0) have completed "
                           "calls, and they are left out (--task '*' keeps "
                           "them)" % info.name)
        raise FtdError("%s: no completed calls in %d lines" % (
            info.name, info.lines))
    return w


def filter_args(a: argparse.Namespace) -> List[str]:
    """The filter options given, as they were spelled."""
    out = []
    for opt, v in (("--cpu", a.cpu), ("--pid", a.pid),
                   ("--time", a.time), ("--max-depth", a.max_depth)):
        if v is not None:
            out.append(opt)
    for t in a.task or []:
        out.append("--task %r" % t)
    for f in getattr(a, "exclude", None) or []:
        out.append("-N %r" % f)
    if a.min_dur:
        out.append("--min-dur")
    return out


def no_switches(w: Walker) -> Optional[str]:
    """Why on-CPU time is the wall time, or None: it is kept only with
    time stamps, and there is only a difference with context switches."""
    if not w.oncpu:
        return ("%s: no time stamps: on-CPU time needs `echo 1 > "
                "%sfuncgraph-abstime`" % (w.info.name, OPT))
    if not w.info.switches:
        return ("%s: no context-switch lines: on-CPU time is the whole "
                "duration" % w.info.name)
    return None


def highlight(a: argparse.Namespace) -> Optional[List[str]]:
    """The --highlight patterns: None for the default ones."""
    if a.no_highlight:
        return []
    hl: Optional[List[str]] = a.highlight
    return hl


def check_focus(w: Walker, func: Optional[str]) -> None:
    if func is not None and func not in w.func_stats():
        raise FtdError("%s: --focus %r: no such function in the trace" % (
            w.info.name, func))


def timeline(a: argparse.Namespace, what: str,
             oncpu: bool = False) -> Tuple[Walker, Timeline]:
    """Parse a.trace into a Timeline (for the commands that draw
    time); what names the command in the error about time stamps."""
    tl = Timeline(getattr(a, "tracks", "task"))
    w = load(a.trace, a, tl, need_time=what, flat=True, oncpu=oncpu)
    tl.set_bounds(w.info.first_ts, w.info.last_ts)
    if not tl.tracks:
        raise FtdError("%s: no completed calls with timestamps" %
                       w.info.name)
    return w, tl
