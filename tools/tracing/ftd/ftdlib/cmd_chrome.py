# SPDX-License-Identifier: GPL-2.0
"""ftd chrome: Chrome trace-event JSON (Perfetto, chrome://tracing)."""

from __future__ import annotations

import argparse
from typing import TextIO

from .command import SubParsers, add_common, new_parser, timeline
from .export import write_chrome
from .parse import Walker


def add_parser(sub: SubParsers) -> None:
    ch = new_parser(sub, "chrome", "Chrome trace-event JSON (Perfetto UI, "
                    "chrome://tracing)")
    add_common(ch)
    ch.add_argument("--tracks", choices=("task", "cpu"), default="task",
                    help="one track per task (default) or per CPU")


def run(a: argparse.Namespace, out: TextIO) -> Walker:
    w, tl = timeline(a, "the Chrome trace-event export")
    write_chrome(out, tl)
    return w
