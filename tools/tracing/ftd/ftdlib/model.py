# SPDX-License-Identifier: GPL-2.0
"""Data model shared by the parser, the analyses and the writers.

Times are integers in nanoseconds everywhere inside ftd.  The kernel
prints durations in microseconds with three decimals, so nanoseconds
hold them exactly.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional

# Exit codes (documented in Documentation/tools/ftd/ftd.rst).
EXIT_OK = 0
EXIT_INPUT = 1      # unreadable, binary, truncated or unsuitable input
EXIT_USAGE = 2      # bad command line
EXIT_MALFORMED = 3  # malformed lines found and --strict given
EXIT_INTERRUPTED = 130


class FtdError(Exception):
    """An error reported to the user as one message, never a traceback."""

    def __init__(self, message: str, code: int = EXIT_INPUT) -> None:
        super().__init__(message)
        self.code = code


BIG = 1 << 62


class Node:
    """A node of a call tree: one function reached by one path of
    callers.  kids maps a callee's name to its node; the root's name is
    "".  Times in ns: total (callees included), min and max of one
    call, local (total less the callees'), oncpu (total less the time
    the task was switched out, kept only when asked for: see
    Walker.want_oncpu())."""

    __slots__ = ("name", "kids", "count", "total", "min", "max", "local",
                 "oncpu")

    def __init__(self, name: str,
                 kids: Optional[Dict[str, "Node"]] = None) -> None:
        self.name = name
        self.kids: Dict[str, Node] = {} if kids is None else kids
        self.count = 0
        self.total = 0
        self.min = BIG
        self.max = 0
        self.local = 0
        self.oncpu = 0


def new_node(name: str) -> Node:
    return Node(name)


def add_node_stats(dst: Node, src: Node) -> None:
    """Fold src's count, times, min and max into dst (not the children)."""
    dst.count += src.count
    dst.total += src.total
    if src.min < dst.min:
        dst.min = src.min
    if src.max > dst.max:
        dst.max = src.max
    dst.local += src.local
    dst.oncpu += src.oncpu


@dataclasses.dataclass
class FuncStats:
    """Per-function totals over every call of the function."""

    function: str
    count: int = 0
    total: int = 0
    min: int = BIG
    max: int = 0
    local: int = 0
    oncpu: int = 0

    @property
    def avg(self) -> float:
        return self.total / self.count if self.count else 0.0

    def add(self, count: int, total: int, mn: int, mx: int,
            local: int, oncpu: int = 0) -> None:
        self.count += count
        self.total += total
        if mn < self.min:
            self.min = mn
        if mx > self.max:
            self.max = mx
        self.local += local
        self.oncpu += oncpu


@dataclasses.dataclass
class Layout:
    """Columns found in front of the function text."""

    abstime: bool = False
    reltime: bool = False
    cpu: bool = False
    proc: bool = False
    lat: bool = False
    duration: bool = False

    def describe(self) -> str:
        names = []
        for attr, label in (("abstime", "funcgraph-abstime"),
                            ("reltime", "relative time"),
                            ("cpu", "funcgraph-cpu"),
                            ("proc", "funcgraph-proc"),
                            ("lat", "latency-format"),
                            ("duration", "funcgraph-duration")):
            if getattr(self, attr):
                names.append(label)
        return ", ".join(names) if names else "no context columns"


@dataclasses.dataclass
class TraceInfo:
    """What the parser saw, for `ftd info` and for warnings."""

    name: str = "-"
    layout: Optional[Layout] = None
    tracer: str = ""
    header_options: List[str] = dataclasses.field(default_factory=list)
    lines: int = 0
    entries: int = 0
    returns: int = 0
    leaves: int = 0
    orphan_returns: int = 0
    unnamed_orphans: int = 0
    missing_returns: int = 0
    cut_calls: int = 0
    unfinished: int = 0
    unknown_callers: int = 0
    contradictions: int = 0
    ambiguous: int = 0
    migrated_cuts: int = 0
    mixed_cpus: bool = False    # lines of several CPUs, no CPU column
    comments: int = 0
    irq_entries: int = 0
    irq_exits: int = 0
    switches: int = 0
    lost_events: int = 0
    lost_records: int = 0
    malformed: int = 0
    malformed_lines: List[int] = dataclasses.field(default_factory=list)
    malformed_samples: List[str] = dataclasses.field(default_factory=list)
    layout_fallbacks: int = 0
    retval: bool = False
    tail: bool = False
    exits_only: bool = True
    cpus: Dict[int, int] = dataclasses.field(default_factory=dict)
    tasks: Dict[str, int] = dataclasses.field(default_factory=dict)
    first_ts: Optional[int] = None
    last_ts: Optional[int] = None
    max_depth: int = 0
    truncated: str = ""
