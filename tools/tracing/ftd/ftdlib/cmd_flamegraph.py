# SPDX-License-Identifier: GPL-2.0
"""ftd flamegraph: a self-contained SVG flame graph."""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from .analysis import func_stats, merged_tree
from .command import (SubParsers, add_common, add_svg_options, check_focus,
                      highlight, load, new_parser)
from .model import KIDS
from .parse import Walker
from .svg import flamegraph


def add_parser(sub: SubParsers) -> None:
    fg = new_parser(sub, "flamegraph", "self-contained SVG flame graph "
                    "(merged stacks)")
    add_common(fg)
    fg.add_argument("--weight", choices=("time", "count"), default="time",
                    help="widths by inclusive time (default) or by "
                    "calls")
    fg.add_argument("--focus", metavar="FUNC",
                    help="only the calls of FUNC and below")
    add_svg_options(fg)


def run(a: argparse.Namespace, out: TextIO) -> Walker:
    w = load(a.trace, a)
    check_focus(w, a.focus)
    top = merged_tree(w.roots(), a.focus)
    if a.focus:
        holder = merged_tree({}, None)
        holder[KIDS][a.focus] = top
        top = holder
    title = a.title or "Flame graph: %s" % os.path.basename(w.info.name)
    sub = "width = %s; %d functions" % (
        "inclusive time" if a.weight == "time" else "calls",
        len(func_stats(w.roots())))
    flamegraph(out, top, title, sub, highlight(a), a.width, unit=a.weight)
    return w
