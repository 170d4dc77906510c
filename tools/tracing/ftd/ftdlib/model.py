# SPDX-License-Identifier: GPL-2.0
"""Data model shared by the parser, the analyses and the writers.

Times are integers in nanoseconds everywhere inside ftd.  The kernel
prints durations in microseconds with three decimals, so nanoseconds
hold them exactly.
"""

from __future__ import annotations

import array
import dataclasses
from typing import Any, Dict, Iterator, List, Optional, Tuple

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


# Time stamps of function_graph are printed in whole microseconds.
CLIP_NS = 1000
# How much earlier than its caller a callee may seem to begin (see
# ran_inside()).
NEST_SLACK_NS = 10000

# Flags of a placed timeline record (see Timeline.nested()).
BEFORE = 1      # began before the first line of the trace
STRETCHED = 2   # drawn longer than printed: its callees' printed
                # durations add up to more than its own

# One placed call: (start_ns, end_ns, level, function id, flags,
# printed duration in ns).
Placed = Tuple[int, int, int, int, int, int]


def ran_inside(cs: int, ce: int, ps: int, pe: int) -> bool:
    """Whether a deeper call [cs, ce) that returned before a call
    [ps, pe) ran inside it: it began before the call ended, and no
    earlier than NEST_SLACK_NS before it began or with more than half of
    it within.  (Several inputs, as in the boot view, may come in any
    order.)  Starts computed from
    a return (the return's time stamp minus the duration) are late by
    the cost of writing that record: mostly microseconds, but up to
    tens of microseconds under QEMU (on the real trace S3, by more than
    5 us for 2% of the calls and more than 50 us for 0.1%)."""
    if cs >= pe + NEST_SLACK_NS:
        return False
    if cs >= ps - NEST_SLACK_NS:
        return True
    return 2 * (min(ce, pe) - ps) > ce - cs


class Timeline:
    """Calls with start and end times, per track, in compact arrays.

    A call's duration is the one the kernel printed; its start is its
    entry line's time stamp, or its return line's minus the duration.
    Timeline outputs hold one record per counted call (about 24 bytes);
    use --min-dur or a time window to bound very long traces."""

    def __init__(self, by: str = "task") -> None:
        self.by = by
        self.names: Dict[str, int] = {}
        self.name_list: List[str] = []
        self.tracks: Dict[str, Tuple["array.array[int]", ...]] = {}
        self.start = BIG        # the axis: the first line, or first call
        self.end = 0
        self.origin: Optional[int] = None
        self.stretched = 0      # calls nested() drew longer than printed
        self.moved = 0          # calls nested() moved in time
        self.before = 0         # calls that began before the first line

    def sink(self, key: str, cpu: str, depth: int, name: str,
             start: int, end: int) -> None:
        # by CPU: one track per task on each CPU, so that a track only
        # holds the nested calls of one task
        track = key if self.by == "task" else \
            "CPU %s: %s" % (cpu or "?", task_name(key))
        t = self.tracks.get(track)
        if t is None:
            t = self.tracks[track] = (array.array("q"), array.array("q"),
                                      array.array("i"), array.array("i"))
        fid = self.names.get(name)
        if fid is None:
            fid = self.names[name] = len(self.name_list)
            self.name_list.append(name)
        t[0].append(start)
        t[1].append(end)
        t[2].append(depth)
        t[3].append(fid)
        if start < self.start and self.origin is None:
            self.start = start
        if end > self.end:
            self.end = end

    def set_origin(self, first_ts: Optional[int]) -> None:
        """Start the axis at the trace's first time stamp: calls that
        began before it (their entries are not in the trace) are cut
        there and flagged BEFORE."""
        if first_ts is None:
            return
        self.origin = first_ts
        self.start = first_ts
        if self.end < first_ts:
            self.end = first_ts

    def window(self, lo: int, hi: int) -> "Timeline":
        """A copy with the calls that overlap [lo, hi), cut to it."""
        out = Timeline(self.by)
        out.names = dict(self.names)
        out.name_list = list(self.name_list)
        for track, (s, e, dp, f) in self.tracks.items():
            t: Optional[Tuple["array.array[int]", ...]] = None
            for i in range(len(s)):
                if s[i] >= hi or e[i] <= lo:
                    continue
                if t is None:
                    t = out.tracks[track] = (
                        array.array("q"), array.array("q"),
                        array.array("i"), array.array("i"))
                a, b = max(s[i], lo), min(e[i], hi)
                t[0].append(a)
                t[1].append(b)
                t[2].append(dp[i])
                t[3].append(f[i])
                out.start = min(out.start, a)
                out.end = max(out.end, b)
        return out

    def nested(self, track: str) -> Iterator[Placed]:
        """The track's calls, placed so that they nest, in the order of
        a walk of the call tree (callers before callees, in time
        order): (start, end, level, fid, flags, printed duration), level
        counted from 0.

        Calls come in the order they returned, so a call's callees are
        the deeper calls that returned before it since the last call at
        its depth or above, and that ran inside it (ran_inside()).  A
        deeper call that ran before it is not its callee: its caller
        never returned, or is not in the trace.

        Every call keeps its printed duration.  Entry time stamps are
        whole microseconds and taken a little after the call began, so
        a callee can seem to begin before the previous one ended or to
        end after its caller: it is then moved (counted in self.moved)
        to after the previous one, or back into its caller.
        Only when a caller's callees add up to more than its own
        duration (the trace is inconsistent) is the caller drawn longer
        (self.stretched, flag STRETCHED), so that its callees keep
        theirs.  A call that began before the axis start is flagged
        BEFORE: writers cut it at self.start."""
        s, e, dp, f = self.tracks[track]
        n = len(s)
        # the call tree as arrays: first callee and next sibling (-1:
        # none), so that a track of a million calls stays small
        first = array.array("i", [-1]) * n
        nxt = array.array("i", [-1]) * n
        # how long a call is drawn: its duration, or its callees' sum
        need = array.array("q", (e[i] - s[i] for i in range(n)))
        stack = array.array("i")    # returned, their caller not seen yet
        for i in range(n):
            di = dp[i]
            if stack and dp[stack[-1]] > di:
                j = len(stack)
                while j and dp[stack[j - 1]] > di:
                    j -= 1
                si, ei = s[i], e[i]
                mine = [c for c in stack[j:] if ran_inside(s[c], e[c], si,
                                                          ei)]
                if len(mine) < len(stack) - j:
                    # some ran before this call: not its callees,
                    # perhaps those of a caller further up
                    rest = [c for c in stack[j:] if c not in mine]
                    del stack[j:]
                    stack.extend(rest)
                else:
                    del stack[j:]
                if mine:
                    mine.sort(key=s.__getitem__)
                    first[i] = mine[0]
                    for a, b in zip(mine, mine[1:]):
                        nxt[a] = b
                    inner = sum(need[c] for c in mine)
                    if inner > need[i]:
                        need[i] = inner
            stack.append(i)
        roots = sorted(stack, key=lambda i: (s[i], dp[i]))
        del stack
        ps = array.array("q", [0]) * n
        pe = array.array("q", [0]) * n
        self._place(roots, s, need, ps, pe, -BIG, BIG, 0)
        lo = self.start if self.origin is not None else -BIG
        todo: List[Tuple[int, int]] = [(i, 0) for i in reversed(roots)]
        del roots
        while todo:
            i, lvl = todo.pop()
            a0, b0 = ps[i], pe[i]
            c = first[i]
            if c >= 0:
                k = []
                while c >= 0:
                    k.append(c)
                    c = nxt[c]
                self._place(k, s, need, ps, pe, a0, b0, a0 - s[i])
                todo.extend((c, lvl + 1) for c in reversed(k))
            flags = 0
            if b0 - a0 != e[i] - s[i]:
                flags |= STRETCHED
                self.stretched += 1
            if a0 < lo:
                flags |= BEFORE
                self.before += 1
            yield (a0, b0, lvl, f[i], flags, e[i] - s[i])

    def _place(self, calls: List[int], s: "array.array[int]",
               need: "array.array[int]", ps: "array.array[int]",
               pe: "array.array[int]", lo: int, hi: int,
               shift: int) -> None:
        """Place one caller's callees (in time order) inside [lo, hi),
        after moving them by their caller's shift: each after the
        previous one, then, from the last, back to end before the next
        one or the caller's end.  They fit: a caller is drawn at least
        as long as its callees add up to."""
        cur = lo
        for c in calls:
            a = s[c] + shift
            if a < cur:
                a = cur
            ps[c] = a
            pe[c] = cur = a + need[c]
        lim = hi
        for c in reversed(calls):
            if pe[c] > lim:
                ps[c] = lim - need[c]
                pe[c] = lim
            lim = ps[c]
        for c in calls:
            if ps[c] != s[c]:
                self.moved += 1
