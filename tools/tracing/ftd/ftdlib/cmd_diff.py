# SPDX-License-Identifier: GPL-2.0
"""ftd diff: two traces compared per function."""

from __future__ import annotations

import argparse
from typing import Any, List, TextIO

from .analysis import DiffRow, diff_stats, matcher
from .command import (SubParsers, UsageError, add_common, add_format,
                      count_arg, load, new_parser)
from .parse import Walker
from .table import Column, dur_col, int_col, text_col, write_table


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


def columns() -> List[Column]:
    return [
        text_col("Function", "function", lambda r: r.function, width=48),
        int_col("Count A", "count_a", lambda r: r.a.count),
        int_col("Count B", "count_b", lambda r: r.b.count),
        int_col("Diff", "count_diff", lambda r: r.b.count - r.a.count,
                signed=True),
        dur_col("Total A", "total_us_a", lambda r: r.a.total),
        dur_col("Total B", "total_us_b", lambda r: r.b.total),
        dur_col("Diff", "total_us_diff",
                lambda r: r.b.total - r.a.total, signed=True),
        dur_col("Avg A", "avg_us_a", lambda r: r.a.avg),
        dur_col("Avg B", "avg_us_b", lambda r: r.b.avg),
        dur_col("Diff", "avg_us_diff", lambda r: r.b.avg - r.a.avg,
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
            if keep(r.function)]

    def key(r: DiffRow) -> Any:
        x, y = r.a, r.b
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
