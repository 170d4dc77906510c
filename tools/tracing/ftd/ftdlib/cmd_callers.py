# SPDX-License-Identifier: GPL-2.0
"""ftd callers: who calls a function (and what callees share)."""

from __future__ import annotations

import argparse
from typing import TextIO

from .analysis import relations
from .command import SubParsers, add_common, add_format, count_arg, load
from .command import new_parser
from .model import FtdError
from .output import parse_sort, sort_stats, stats_columns
from .parse import Walker
from .table import human, write_table


def add_relation_parser(sub: SubParsers, name: str, what: str) -> None:
    c = new_parser(sub, name, what)
    add_common(c)
    c.add_argument("function", metavar="FUNC",
                   help="the function, or a shell glob matching several "
                   "(each row then names its function)")
    add_format(c)
    c.add_argument("-s", "--sort", default="count", metavar="KEYS",
                   help="sort keys, comma separated: function, count, "
                   "total, avg, min, max, local (default count)")
    c.add_argument("-r", "--reverse", action="store_true",
                   help="reverse the order: numbers smallest first, "
                   "names Z to A")
    c.add_argument("-n", "--top", type=count_arg(1), metavar="N",
                   help="show the first N rows only")


def add_parser(sub: SubParsers) -> None:
    add_relation_parser(sub, "callers", "who calls FUNC: per caller, the "
                        "count and times of FUNC's calls")


def run_relations(a: argparse.Namespace, out: TextIO, callers: bool
                  ) -> Walker:
    w = load(a.trace, a)
    up, down, me, names = relations(w.roots(), a.function)
    if not names:
        raise FtdError("%s: function %r not found in the trace" % (
            w.info.name, a.function))
    table = up if callers else down
    rows = sort_stats(list(table.values()), parse_sort(a.sort), a.reverse)
    if a.top is not None:
        rows = rows[:a.top]
    if a.format == "text":
        if len(names) > 1:
            out.write("%s matches %d functions: %s\n" % (
                a.function, len(names), ", ".join(names)))
        out.write("%s: %d calls, %s total, %s local\n\n" % (
            a.function, me.count, human(me.total), human(me.local)))
        out.write("%s of %s:\n" % ("Callers" if callers else "Callees",
                                   a.function))
    write_table(out, stats_columns(), rows, a.format)
    return w


def run(a: argparse.Namespace, out: TextIO) -> Walker:
    return run_relations(a, out, True)
