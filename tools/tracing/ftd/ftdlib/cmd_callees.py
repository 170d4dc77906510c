# SPDX-License-Identifier: GPL-2.0
"""ftd callees: what a function calls."""

from __future__ import annotations

import argparse
from typing import TextIO

from .cmd_callers import add_relation_parser, run_relations
from .command import SubParsers
from .parse import Walker


def add_parser(sub: SubParsers) -> None:
    add_relation_parser(sub, "callees", "what FUNC calls: per callee, the "
                        "count and times of the calls made from FUNC")


def run(a: argparse.Namespace, out: TextIO) -> Walker:
    return run_relations(a, out, False)
