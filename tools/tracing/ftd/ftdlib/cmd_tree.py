# SPDX-License-Identifier: GPL-2.0
"""ftd tree: the call tree, like uftrace graph."""

from __future__ import annotations

import argparse
from typing import TextIO

from .analysis import backtraces, merged_tree
from .command import SubParsers, add_common, load, new_parser
from .model import FtdError
from .output import write_tree
from .parse import Walker
from .table import human_inline


def add_parser(sub: SubParsers) -> None:
    t = new_parser(sub, "tree", "call tree with inclusive times and "
                   "counts, rooted at FUNC (all calls of FUNC merged) or "
                   "at the outermost calls")
    add_common(t)
    t.add_argument("function", nargs="?", metavar="FUNC",
                   help="root the tree at this function (all its calls "
                   "merged); default: the outermost calls")
    t.add_argument("-s", "--sort", choices=("total", "count", "function"),
                   default="total", help="order of the callees of each "
                   "function (default total)")
    t.add_argument("--backtrace", action="store_true",
                   help="also list the call paths that lead to FUNC")


def run(a: argparse.Namespace, out: TextIO) -> Walker:
    # --max-depth and --min-dur shape the printed tree: levels below
    # its root, and subtrees with less total time
    w = load(a.trace, argparse.Namespace(**dict(vars(a), max_depth=None,
                                                min_dur=0)))
    roots = w.roots()
    top = merged_tree(roots, a.function)
    if a.function and not top.count and not top.kids:
        raise FtdError("%s: function %r not found in the trace" % (
            w.info.name, a.function))
    if a.function and a.backtrace:
        out.write("Backtraces of %s:\n" % a.function)
        for i, (path, cnt, tot) in enumerate(backtraces(roots,
                                                        a.function)):
            out.write("  #%d: %d calls, %s\n" % (i, cnt, human_inline(tot)))
            for j, fn in enumerate(reversed(path)):
                out.write("    [%d] %s\n" % (j, fn))
        out.write("\n")
    write_tree(out, top, a.max_depth, a.min_dur, a.sort)
    return w
