# SPDX-License-Identifier: GPL-2.0
"""ftd flamechart: a self-contained SVG flame chart (time on x)."""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from .command import (SubParsers, add_common, add_svg_options, count_arg,
                      highlight, new_parser, no_switches, px, timeline)
from .parse import Walker


def add_parser(sub: SubParsers) -> None:
    fc = new_parser(sub, "flamechart", "self-contained SVG flame chart: "
                    "time on the x axis, one lane per task or CPU")
    add_common(fc)
    add_svg_options(fc)
    fc.add_argument("--tracks", choices=("task", "cpu"), default="task",
                    help="one lane per task (default), or per task on "
                    "each CPU")
    fc.add_argument("--max-lanes", type=count_arg(1), default=64,
                    metavar="N", help="draw the N busiest lanes: most "
                    "time on the CPU when the trace has context switches, "
                    "else most time in calls (default 64)")
    fc.add_argument("--min-px", type=px, default=0.05, metavar="PX",
                    help="leave out calls narrower than PX pixels at "
                    "full width (default 0.05)")


def run(a: argparse.Namespace, out: TextIO) -> Walker:
    from .svg import flamechart     # not loaded by every command
    w, tl = timeline(a, "a flame chart", oncpu=True)
    title = a.title or "Flame chart: %s" % os.path.basename(w.info.name)
    off = None
    legend = "tasks in order of their time in calls"
    if tl.by == "task" and no_switches(w) is None:
        off = {}
        for k, st in w.tasks.items():
            s, e = st.off_s, st.off_e
            if 0 <= st.out_since < tl.end:
                # switched out and not back by the end of the trace,
                # inside an unfinished call or not
                s, e = s + [st.out_since], e + [tl.end]
            if s:
                off[k] = (s, e)
        legend = "tasks in order of their time on the CPU (from the " \
            "context switches), busiest first, idle tasks last; " \
            "shaded: switched out"
    flamechart(out, tl, title, highlight(a), a.width, min_px=a.min_px,
               max_lanes=a.max_lanes, legend=legend, off=off,
               consume=True)
    return w
