# SPDX-License-Identifier: GPL-2.0
"""ftd folded: folded stacks for flamegraph.pl."""

from __future__ import annotations

import argparse
from typing import TextIO

from .analysis import folded, ordered_folded
from .command import (SubParsers, UsageError, add_common, check_focus, load,
                      new_parser, timeline, warn)
from .output import write_folded
from .parse import Walker


def add_parser(sub: SubParsers) -> None:
    fo = new_parser(sub, "folded", "folded stacks for flamegraph.pl")
    add_common(fo)
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


def run(a: argparse.Namespace, out: TextIO) -> Walker:
    if a.ordered:
        if a.weight == "count":
            raise UsageError("--ordered slices time: use --weight time "
                             "or ns")
        w, tl = timeline(a, "an ordered (flame chart) folded output")
        write_folded(out, ordered_folded(tl), a.weight)
        return w
    w = load(a.trace, a)
    check_focus(w, a.focus)
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
