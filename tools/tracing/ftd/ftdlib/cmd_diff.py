# SPDX-License-Identifier: GPL-2.0
"""ftd diff: two traces compared per function."""

from __future__ import annotations

import argparse
from typing import Any, TextIO, Tuple

from .analysis import diff_stats, matcher
from .command import (SubParsers, UsageError, add_common, add_format,
                      count_arg, load, new_parser)
from .model import FuncStats
from .parse import Walker
from .table import dur_col, int_col, text_col, write_table

Row = Tuple[str, FuncStats, FuncStats]


def add_parser(sub: SubParsers) -> None:
    d = new_parser(sub, "diff", "compare two traces per function: count, "
                   "total, average")
    d.add_argument("trace_a", metavar="A", help="the first trace (- for "
                   "stdin)")
    d.add_argument("trace_b", metavar="B", help="the second trace")
    add_common(d, inputs=0)
    add_format(d)
    d.add_argument("-s", "--sort", default="total",
                   choices=("total", "count", "avg", "function"),
                   help="sort by the absolute change of this column")
    d.add_argument("-n", "--top", type=count_arg(1), metavar="N",
                   help="show the first N rows only")
    d.add_argument("-F", "--function", action="append", metavar="GLOB",
                   help="only functions matching GLOB (repeatable)")


def columns() -> list:  # type: ignore[type-arg]
    def a(r: Row) -> FuncStats:
        return r[1]

    def b(r: Row) -> FuncStats:
        return r[2]
    return [
        text_col("Function", "function", lambda r: r[0], width=48),
        int_col("Count A", "count_a", lambda r: a(r).count),
        int_col("Count B", "count_b", lambda r: b(r).count),
        int_col("Diff", "count_diff", lambda r: b(r).count - a(r).count,
                signed=True),
        dur_col("Total A", "total_us_a", lambda r: a(r).total),
        dur_col("Total B", "total_us_b", lambda r: b(r).total),
        dur_col("Diff", "total_us_diff",
               lambda r: b(r).total - a(r).total, signed=True),
        dur_col("Avg A", "avg_us_a", lambda r: a(r).avg),
        dur_col("Avg B", "avg_us_b", lambda r: b(r).avg),
        dur_col("Diff", "avg_us_diff", lambda r: b(r).avg - a(r).avg,
               signed=True),
    ]


def run(a: argparse.Namespace, out: TextIO) -> Walker:
    if a.trace_a == "-" and a.trace_b == "-":
        raise UsageError("diff: standard input can be read only once; "
                         "give at least one of A and B as a file")
    wa = load(a.trace_a, a, flat=True)
    wb = load(a.trace_b, a, flat=True)
    keep = matcher(a.function)
    rows = [r for r in diff_stats(wa.func_stats(), wb.func_stats())
            if keep(r[0])]

    def key(r: Row) -> Any:
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
    write_table(out, columns(), rows, a.format)
    if wa.info.truncated or wb.info.truncated:
        return wa if wa.info.truncated else wb
    return wa
