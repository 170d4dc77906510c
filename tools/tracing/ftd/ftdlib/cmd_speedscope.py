# SPDX-License-Identifier: GPL-2.0
"""ftd speedscope: speedscope JSON, one evented profile per track."""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from .command import SubParsers, add_common, new_parser, timeline
from .export import write_speedscope
from .parse import Walker


def add_parser(sub: SubParsers) -> None:
    sp = new_parser(sub, "speedscope", "speedscope JSON, one evented "
                    "profile per task or CPU")
    add_common(sp)
    sp.add_argument("--tracks", choices=("task", "cpu"), default="task",
                    help="one profile per task (default) or per task on "
                    "each CPU")


def run(a: argparse.Namespace, out: TextIO) -> Walker:
    w, tl = timeline(a, "the speedscope export")
    write_speedscope(out, tl, os.path.basename(w.info.name))
    return w
