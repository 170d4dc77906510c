# SPDX-License-Identifier: GPL-2.0
"""ftd slowest: the slowest single calls of a function, with where
they are in the trace."""

from __future__ import annotations

import argparse
import heapq
from typing import List, NamedTuple, TextIO, Tuple

from .analysis import matcher
from .command import (SubParsers, add_common, add_format, count_arg, load,
                      new_parser)
from .model import FtdError
from .tasks import is_unknown, task_cpu, task_name
from .pairing import Call
from .parse import Walker
from .table import Column, dur_col, int_col, text_col, write_table

# what the sink keeps of a call, in Row's order: a plain tuple, which
# the heap compares (duration first) and which is cheaper to build
Kept = Tuple[int, int, int, str, str, int, str]


class Row(NamedTuple):
    """One of the slowest calls."""

    dur: int        # ns
    neg_seq: int    # minus its sequence: the earlier of equal calls first
    start: int      # ns, -1 without a timestamp
    task: str       # comm-pid, "?" when the trace does not name it
    cpu: str        # "" when unknown
    line: int       # of its entry, or of its only line
    function: str


def add_parser(sub: SubParsers) -> None:
    p = new_parser(sub, "slowest", "the slowest calls of FUNC, each with "
                   "its start time, task, CPU and line in the trace")
    add_common(p)
    p.add_argument("function", metavar="FUNC",
                   help="the function, or a shell glob (the slowest "
                   "calls of all the functions it matches)")
    add_format(p)
    p.add_argument("-n", "--top", type=count_arg(1), default=10,
                   metavar="N", help="how many calls (default 10)")


def columns() -> List[Column]:
    return [
        dur_col("Duration", "duration_us", lambda c: c.dur),
        Column("Start(s)", "start_s",
               lambda c: "%.6f" % (c.start / 1e9) if c.start >= 0 else "-",
               lambda c: round(c.start / 1e9, 6) if c.start >= 0 else None,
               lambda c: "%.6f" % (c.start / 1e9) if c.start >= 0 else ""),
        text_col("Task", "task", lambda c: c.task),
        Column("CPU", "cpu", lambda c: c.cpu or "-",
               lambda c: int(c.cpu) if c.cpu else None,
               lambda c: c.cpu),
        int_col("Line", "line", lambda c: c.line),
        text_col("Function", "function", lambda c: c.function),
    ]


def run(a: argparse.Namespace, out: TextIO) -> Walker:
    match = matcher([a.function])
    top: List[Kept] = []
    seq = [0]

    def sink(c: Call) -> None:
        name = c.name
        if name is None or not match(name):
            return
        seq[0] += 1
        task = task_name(c.task) if not is_unknown(c.task) else "?"
        row = (c.dur, -seq[0], c.start, task, c.cpu or task_cpu(c.task),
                c.line, name)
        if len(top) < a.top:
            heapq.heappush(top, row)
        elif row > top[0]:
            heapq.heapreplace(top, row)

    w = load(a.trace, a, flat=True,
             hooks=lambda w: w.want_calls(sink, names=match))
    if not top:
        raise FtdError("%s: function %r not found in the trace" % (
            w.info.name, a.function))
    rows = [Row._make(r) for r in sorted(top, reverse=True)]
    if a.format == "text":
        out.write("The %d slowest calls of %s (line: of the call's entry, "
                  "or of its only line):\n" % (len(rows), a.function))
    write_table(out, columns(), rows, a.format)
    return w
