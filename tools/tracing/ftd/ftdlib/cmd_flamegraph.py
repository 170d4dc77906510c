# SPDX-License-Identifier: GPL-2.0
"""ftd flamegraph: a self-contained SVG flame graph."""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from .analysis import func_stats, merged_tree
from .command import (SubParsers, add_common, add_svg_options, check_focus,
                      highlight, load, new_parser, no_switches, warn)
from .model import FtdError
from .tasks import is_idle
from .parse import Walker


def add_parser(sub: SubParsers) -> None:
    fg = new_parser(sub, "flamegraph", "self-contained SVG flame graph "
                    "(merged stacks)")
    add_common(fg)
    fg.add_argument("--weight", choices=("oncpu", "time", "count"),
                    help="widths by time on the CPU, leaving out the "
                    "idle tasks (default when the trace has time "
                    "stamps), by inclusive time, or by calls")
    fg.add_argument("--focus", metavar="FUNC",
                    help="only the calls of FUNC and below")
    add_svg_options(fg)


def run(a: argparse.Namespace, out: TextIO) -> Walker:
    from .svg import flamegraph     # not loaded by every command
    w = load(a.trace, a, oncpu=a.weight in (None, "oncpu"))
    check_focus(w, a.focus)
    weight = a.weight or ("oncpu" if w.oncpu else "time")
    what = {"time": "inclusive time", "count": "calls"}.get(weight, "")
    roots = w.roots()
    if weight == "oncpu":
        why = no_switches(w)
        if why is not None and not w.oncpu:
            raise FtdError(why)
        if why is not None:
            warn(why)
        # the idle tasks are on the CPU when nothing else is
        roots = {k: r for k, r in roots.items()
                 if not is_idle(k)}
        what = "time on the CPU (idle tasks and switched-out time left out)"
    top = merged_tree(roots, a.focus)
    if a.focus:
        holder = merged_tree({}, None)
        holder.kids[a.focus] = top
        top = holder
    title = a.title or "Flame graph: %s" % os.path.basename(w.info.name)
    sub = "width = %s; %d functions" % (what, len(func_stats(roots)))
    flamegraph(out, top, title, sub, highlight(a), a.width, unit=weight)
    return w
