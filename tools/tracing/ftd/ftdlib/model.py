# SPDX-License-Identifier: GPL-2.0
"""Data model shared by the parser, the analyses and the writers.

Times are integers in nanoseconds everywhere inside ftd.  The kernel
prints durations in microseconds with three decimals, so nanoseconds
hold them exactly.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Optional

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


# A call-tree node is a list, for speed in the parser's hot loop:
#   [name, children, count, total_ns, min_ns, max_ns, local_ns,
#    oncpu_ns]
# children maps a callee name to its node.  The root has name "".
# oncpu_ns is the total less the time the task was switched out, kept
# only when asked for (CallBuilder.oncpu).
NAME, KIDS, COUNT, TOTAL, MIN, MAX, LOCAL, ONCPU = range(8)
Node = List[Any]  # nodes are plain lists, see above

BIG = 1 << 62


def new_node(name: str) -> Node:
    return [name, {}, 0, 0, BIG, 0, 0, 0]


def add_node_stats(dst: Node, src: Node) -> None:
    """Fold src's count, times, min and max into dst (not the children)."""
    dst[COUNT] += src[COUNT]
    dst[TOTAL] += src[TOTAL]
    if src[MIN] < dst[MIN]:
        dst[MIN] = src[MIN]
    if src[MAX] > dst[MAX]:
        dst[MAX] = src[MAX]
    dst[LOCAL] += src[LOCAL]
    dst[ONCPU] += src[ONCPU]


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


def task_name(key: str) -> str:
    """The task (comm-pid) of a task key; idle tasks have their CPU
    appended as "<idle>-0/1" because each CPU has its own."""
    base, sep, cpu = key.rpartition("/")
    if sep and cpu.isdigit() and base.endswith("-0"):
        return base
    return key


def task_cpu(key: str) -> str:
    """The CPU of an idle task key, else ""."""
    base, sep, cpu = key.rpartition("/")
    if sep and cpu.isdigit() and base.endswith("-0"):
        return cpu
    return ""
