# SPDX-License-Identifier: GPL-2.0
"""ftd report: one row per function."""

from __future__ import annotations

import argparse
from typing import Dict, TextIO

from .analysis import matcher, top_callees
from .command import (SubParsers, add_common, add_format, chose_tasks,
                      count_arg, load, new_parser, no_switches, warn)
from .model import FtdError
from .output import order_line, parse_sort, sort_stats, stats_columns
from .parse import Walker
from .table import text_col, write_table

SORT_HELP = ("sort keys, comma separated: function, count, total, avg, "
             "min, max, local, oncpu (time on the CPU: adds its column; "
             "needs funcgraph-abstime; first, it leaves out the idle "
             "tasks unless --pid or --task choose the tasks)")

# the idle task is on the CPU while its CPU waits for work: a ranking
# by time on the CPU leaves it out, as perf top leaves out the idle
# functions and `ftd flamegraph` the idle tasks
IDLE_LEFT_OUT = ("idle tasks (pid 0) left out, with the interrupts they "
                 "took (--task '*' keeps them)")


def add_parser(sub: SubParsers) -> None:
    r = new_parser(sub, "report", "per-function table: count, total, "
                   "average, min, max and local time")
    add_common(r)
    add_format(r)
    r.add_argument("-s", "--sort", default="total", metavar="KEYS",
                   help=SORT_HELP + " (default total)")
    r.add_argument("-r", "--reverse", action="store_true",
                   help="reverse the order: numbers smallest first, names "
                   "Z to A")
    r.add_argument("-n", "--top", type=count_arg(1), metavar="N",
                   help="show the first N rows only")
    r.add_argument("-F", "--function", action="append", metavar="GLOB",
                   help="only functions matching GLOB (repeatable)")
    r.add_argument("--subs", type=count_arg(0), default=0, metavar="N",
                   help="text format: add the N subroutines each "
                   "function calls most")


def run(a: argparse.Namespace, out: TextIO) -> Walker:
    keys = parse_sort(a.sort)
    oncpu = "oncpu" in keys
    drop_idle = keys[0] == "oncpu" and not chose_tasks(a)
    w = load(a.trace, a, flat=not a.subs, oncpu=oncpu, drop_idle=drop_idle)
    if oncpu:
        why = no_switches(w)
        if why is not None and not w.oncpu:
            raise FtdError(why)
        if why is not None:
            warn(why)
    stats = w.func_stats()
    keep = matcher(a.function)
    rows = [f for f in stats.values() if keep(f.function)]
    if not rows and a.function:
        raise FtdError("%s: no function matches %s" % (
            w.info.name, " ".join("-F %r" % g for g in a.function)))
    rows = sort_stats(rows, keys, a.reverse)
    if a.top is not None:
        rows = rows[:a.top]
    cols = stats_columns(oncpu)
    if a.subs and a.format == "text":
        subs = top_callees(w.roots())
        extra: Dict[str, str] = {}
        for f in rows:
            d = subs.get(f.function, {})
            best = sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))
            extra[f.function] = ", ".join("%s(%d)" % kv for kv in
                                          best[:a.subs])
        cols.append(text_col("Subroutines (calls)", None,
                             lambda f: extra.get(f.function, "")))
    if a.format == "text":
        out.write(order_line(keys, a.reverse,
                             IDLE_LEFT_OUT if drop_idle else ""))
    write_table(out, cols, rows, a.format)
    return w


