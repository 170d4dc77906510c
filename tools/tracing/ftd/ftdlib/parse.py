# SPDX-License-Identifier: GPL-2.0
"""Streaming parser for function_graph text output.

The column layout (abstime, CPU, task, latency flags, duration) is taken
from the header when there is one and otherwise guessed from the first
lines.  A regular expression built for that exact layout then splits
every line; the function text is classified with a few string tests.

Calls are rebuilt on one stack per task (function_graph depth is per
task, so a task that sleeps on one CPU and wakes on another keeps its
stack).  Completed calls are added into a call tree per task: one node
per distinct call path, holding count, total, min, max and local time.
Memory therefore grows with the number of distinct call paths and the
stack depth, never with the length of the trace.
"""

from __future__ import annotations

import bisect
import fnmatch
import itertools
import re
from typing import (Any, Callable, Dict, Iterable, List, Optional, Pattern,
                    Sequence, Tuple)

from .inputs import TraceInput, TruncatedInput
from .model import (BIG, CLIP_NS, COUNT, KIDS, LOCAL, MAX, MIN, NAME, ONCPU,
                    TOTAL, FtdError, FuncStats, Layout, Node, TraceInfo,
                    NEST_SLACK_NS, add_node_stats, ran_inside, task_name)

# Pieces of the line, one per optional column, in the kernel's order
# (print_graph_prologue() and print_graph_duration()).
P_ABSTIME = r" *(\d+\.\d+) \|  "
P_RELTIME = r" *\d+ us \|  "
P_CPU = r" *(\d+)\) "
P_PROC = r" *(.*?-\d+) *\| "
P_LAT = r" ([^ |]{4,6}) \| "
P_DUR = r"(?:[ +!#*@$] (\d+(?:\.\d*)?) us +| {14})\|  "
P_TEXT = r"( *)(.*)"

# The duration field between two '|' when a task or latency column
# precedes it: a space, the mark, a space, the duration, " us" and
# padding; or 15 spaces on lines without a duration.
DUR_FIELD_RE = re.compile(r" [ +!#*@$] (\d+(?:\.\d*)?) us +$| {15}$")

NAME_RE = r"[^\s(){};/]+(?: \[[^\]]+\])?"
SHAPE_RE = re.compile(
    r"(?:" + NAME_RE + r"\(\) \{|" + NAME_RE + r"\(\);(?: /\* = \S+ \*/)?"
    r"|\}(?: /\* " + NAME_RE + r"(?: = \S+)? \*/)?|/\*.*\*/)$")

SWITCH_RE = re.compile(r" *(\d+)\) +(.*?-\d+) +=> +(.*?-\d+) *$")
LOST_RE = re.compile(r"CPU:(\d+) \[LOST (\d+) EVENTS\]")
TRACER_RE = re.compile(r"# tracer: (\S+)")

ALL_LAYOUTS = [Layout(*bits) for bits in
               itertools.product((False, True), repeat=6)]



def layout_regex(lay: Layout) -> Pattern[str]:
    """The regex for one layout; always six groups:
    ts, cpu, task, duration, indent, text."""
    parts = [P_ABSTIME if lay.abstime else "()"]
    if lay.reltime:
        parts.append(P_RELTIME)
    parts.append(P_CPU if lay.cpu else "()")
    parts.append(P_PROC if lay.proc else "()")
    if lay.lat:
        parts.append(P_LAT.replace("(", "(?:", 1))
    parts.append(P_DUR if lay.duration else "()")
    parts.append(P_TEXT)
    return re.compile("".join(parts))


def layout_from_header(line: str) -> Optional[Layout]:
    """Read the column header line (# ... FUNCTION CALLS)."""
    if "FUNCTION CALLS" not in line:
        return None
    rest = line.replace("REL TIME", "")
    return Layout(abstime="TIME" in rest, reltime="REL TIME" in line,
                  cpu="CPU" in line, proc="TASK/PID" in line,
                  lat="||||" in line, duration="DURATION" in line)


def _score(lay: Layout, samples: Sequence[str]) -> int:
    rx = layout_regex(lay)
    score = 0
    for line in samples:
        m = rx.match(line.rstrip("\n"))
        if m is None:
            continue
        ind, text = m.group(5), m.group(6)
        if len(ind) % 2 or not SHAPE_RE.match(text):
            continue
        if m.group(0) != line.rstrip("\n"):
            continue
        score += 1
    return score


def detect_layout(samples: Sequence[str]) -> Optional[Layout]:
    """Guess the layout from data lines: the layout under which most
    lines split into columns and a well-formed function text wins; on a
    tie the layout with more columns wins."""
    cand = [s for s in samples if s.strip() and not s.startswith("#")
            and "=>" not in s and "==========" not in s
            and not s.startswith(" ---") and not LOST_RE.match(s)]
    if not cand:
        return None
    need = 1 if len(cand) < 4 else min(50, (len(cand) + 2) // 3)
    best: Optional[Layout] = None
    best_key = (0, 0)
    for lay in ALL_LAYOUTS:
        sc = _score(lay, cand)
        cols = sum(1 for v in (lay.abstime, lay.reltime, lay.cpu, lay.proc,
                               lay.lat, lay.duration) if v)
        key = (sc, cols)
        if sc >= need and key > best_key:
            best, best_key = lay, key
    return best


def ts_ns(ts: str) -> int:
    """'25.890734' -> nanoseconds."""
    sec, _, frac = ts.strip().partition(".")
    return int(sec) * 1000000000 + int((frac + "000000000")[:9])


def stamp_ns(ts: str) -> int:
    """A time stamp field in ns, -1 when it is empty or not a number
    (the split path does not check that field).  Through a float: exact
    to the nanosecond for time stamps below 10^6 s."""
    try:
        return int(float(ts) * 1e9 + 0.5) if ts else -1
    except ValueError:
        return -1


def stamp_s(ts: str) -> float:
    """A time stamp field in seconds, -1.0 when it is empty or not a
    number: the cheap form, for ordering calls."""
    try:
        return float(ts) if ts else -1.0
    except ValueError:
        return -1.0


def dur_ns(dur: str) -> int:
    return int(float(dur) * 1000 + 0.5)


class Filters:
    """Which lines and which calls count."""

    def __init__(self) -> None:
        self.cpus: Optional[set[int]] = None
        self.pids: Optional[set[int]] = None
        self.tasks: Optional[List[str]] = None
        self.t_start: Optional[int] = None
        self.t_end: Optional[int] = None
        self.min_dur: int = 0
        self.max_depth: Optional[int] = None

    def line_filter(self) -> bool:
        return (self.cpus is not None or self.pids is not None or
                self.tasks is not None)

    def call_filter(self) -> bool:
        return (self.t_start is not None or self.t_end is not None or
                self.min_dur > 0 or self.max_depth is not None)

    def keep_task(self, task: str) -> bool:
        comm, _, pid = task.rpartition("-")
        if self.pids is not None:
            try:
                if int(pid) not in self.pids:
                    return False
            except ValueError:
                return False
        if self.tasks is not None:
            def hit(g: str) -> bool:
                return fnmatch.fnmatchcase(comm, g) or \
                    fnmatch.fnmatchcase(task, g)
            keep = [g for g in self.tasks if not g.startswith("!")]
            if keep and not any(hit(g) for g in keep):
                return False
            if any(hit(g[1:]) for g in self.tasks if g.startswith("!")):
                return False
        return True


# A sink gets every counted call: (track key, cpu, depth, name,
# start_ns, end_ns), end_ns - start_ns being the printed duration.
# Used for timelines.
Sink = Callable[[str, str, int, str, int, int], None]
# An open sink gets every call still open at the end of the input:
# (track key, cpu, depth, name, start_ns).
OpenSink = Callable[[str, str, int, str, int], None]
# A call sink gets every counted call with where it is in the trace:
# (track key, cpu, name, start_ns or -1, duration_ns, line number of its
# entry, or of its line when it has only one).
CallSink = Callable[[str, str, str, int, int, int], None]
# A comment sink gets every timestamped comment line (trace events and
# trace_printk inside the graph): (track key, cpu, ts_ns, text), and
# every "#" header line as ("", "", -1, text).
CommentSink = Callable[[str, str, int, str], None]

# At most this many pieces of calls without a known caller are kept
# apart per depth (see Pending); older ones are merged.
PENDING_CAP = 8
UNKNOWN = "(unknown)"
NEST_SLACK_S = NEST_SLACK_NS * 1e-9

# Shapes of function text in the hot loop (Walker._shape()).
ENTER, LEAF, RET, NAMED_RET, OTHER = range(5)


def task_key(task: str, cpu: str, curtask: Dict[str, str]) -> str:
    """The key of a line's task.  Each CPU has its own idle task, all
    printed as <idle>-0, so pid 0 gets its CPU appended; without a task
    column, the task is the one the CPU last switched to."""
    if task:
        return task if task[-2:] != "-0" else task + "/" + cpu
    return curtask.get(cpu) or "?/" + cpu


# An open call (its entry seen, its return not yet) is a list, like
# the nodes, for speed: one is made per entry line.
#   [name, depth, child_ns, ts, node, cpu, seg, segi, line, up]
# child_ns is the sum of the durations of its direct callees, ts the
# entry's time stamp as printed (or ""); seg and segi say where it waits
# when it has no caller (a Pending and its entry there); line is the
# line number of the entry (0: not kept); up is the open call it was
# made from (None for the outermost).  A task's open calls are the
# chain from its innermost one, TaskState.top: cheaper than a list
# as a stack, whose stack[-1] CPython 3.11 does not specialize.
(F_NAME, F_DEPTH, F_CHILD, F_TS, F_NODE, F_CPU, F_SEG, F_SEGI, F_LINE,
 F_UP) = range(10)
Frame = List[Any]


def open_calls(top: Optional[Frame]) -> List[Frame]:
    """The chain of open calls from top, outermost first."""
    out = []
    while top is not None:
        out.append(top)
        top = top[F_UP]
    out.reverse()
    return out


class Pending:
    """Calls that finished at one depth of a task while no caller was
    open (the start of a trace, exits-only output, after a cut), in
    time order, until a return one level up shows whose callees they
    were.  Entry i has the start of the call in seconds (first[i]; -1
    when the trace has no time stamps), its duration in ns (total[i])
    and, unless the call tree is flat, a children dict holding the
    call's node with its
    subtree (kids[i]).  Beyond PENDING_CAP entries, the two oldest are
    merged into one (starting with the first)."""

    __slots__ = ("first", "total", "kids")

    def __init__(self) -> None:
        self.first: List[float] = []
        self.total: List[int] = []
        self.kids: List[Dict[str, Node]] = []


class TaskState:
    """One task's open calls and its call tree."""

    __slots__ = ("key", "top", "pending", "root", "lines", "cpu",
                 "maxpend", "since", "last_ts", "out_since", "off_s",
                 "off_e")

    def __init__(self, key: str, root: Node) -> None:
        self.key = key
        self.top: Optional[Frame] = None     # innermost open call
        self.pending: Dict[int, Pending] = {}
        self.root = root
        self.lines = 0
        self.cpu = ""           # CPU of the task's last line
        self.maxpend = -1       # deepest key of pending, -1 if none
        self.since = 0          # LOST markers seen when the outermost
                                # open call began
        # for on-CPU time: the time of its last line, since when it is
        # switched out (-1: it is not), and when it was off the CPU
        self.last_ts = -1
        self.out_since = -1
        self.off_s: List[int] = []
        self.off_e: List[int] = []

    def off_cpu(self, start: int, end: int) -> int:
        """How long the task was switched out within [start, end)."""
        off_s, off_e = self.off_s, self.off_e
        i = bisect.bisect_right(off_e, start)
        total = 0
        while i < len(off_s) and off_s[i] < end:
            total += min(off_e[i], end) - max(off_s[i], start)
            i += 1
        return total


class CallBuilder:
    """Rebuilds calls from function lines, one stack per task, and adds
    every completed call into its task's call tree.

    The reader calls enter(), leaf() and ret() for the three shapes of
    function text; ret() hands returns without an entry to orphan().
    cut() ends a task's open calls when the trace has a gap (a LOST
    marker on its CPU, or a jump in depth)."""

    def __init__(self, info: TraceInfo, filters: Filters,
                 sink: Optional[Sink], flat: bool) -> None:
        self.info = info
        self.filters = filters
        self.sink = sink
        # flat: per-function totals only, no call paths.  Every node
        # then shares one children dict, so a name always finds the
        # same node and no subtree is ever built or merged.
        self.flat: Optional[Dict[str, Node]] = {} if flat else None
        self.plain = sink is None and not filters.call_filter()
        self.tasks: Dict[str, TaskState] = {}
        self.open_sink: Optional[OpenSink] = None
        self.call_sink: Optional[CallSink] = None
        self.oncpu = False      # keep on-CPU time (see switched())
        self.first_ts = 0       # of the trace, for on-CPU time
        self.lineno = 0         # the current line, when the reader says
        self.lost_seq = 0       # LOST markers so far
        self.entries = 0
        self.leaves = 0
        self.returns = 0        # matched returns
        self.named_returns = 0  # of those: "} /* name */"
        self.orphans = 0

    # ---- state -------------------------------------------------------
    def task(self, key: str) -> TaskState:
        st = self.tasks.get(key)
        if st is None:
            st = self.tasks[key] = TaskState(key, self._new(""))
        return st

    def _new(self, name: str) -> Node:
        return [name, {} if self.flat is None else self.flat, 0, 0, BIG,
                0, 0, 0]

    def _kids(self) -> Dict[str, Node]:
        return {} if self.flat is None else self.flat

    def _child(self, kids: Dict[str, Node], name: str) -> Node:
        node = kids.get(name)
        if node is None:
            node = kids[name] = [name, {} if self.flat is None
                                 else self.flat, 0, 0, BIG, 0, 0, 0]
        return node

    def _add(self, st: TaskState, depth: int, first: float, total: int,
             kids: Optional[Dict[str, Node]]) -> Tuple[Pending, int]:
        """Add a call to the ones waiting for a caller at depth; its
        entry there (kids is None in flat mode)."""
        p = st.pending.get(depth)
        if p is None:
            p = st.pending[depth] = Pending()
            if depth > st.maxpend:
                st.maxpend = depth
        firsts = p.first
        if len(firsts) >= PENDING_CAP:
            totals = p.total
            if firsts[0] < 0.0:
                firsts[0] = firsts[1]
            totals[0] += totals[1]
            del firsts[1], totals[1]
            if kids is not None:
                merge_kids(p.kids[0], p.kids.pop(1))
        firsts.append(first)
        p.total.append(total)
        if kids is not None:
            p.kids.append(kids)
        return p, len(firsts) - 1

    def _wrap(self, st: TaskState, p: Pending, n: int, depth: int) -> None:
        """The first n calls waiting in p have no caller in the trace:
        they become the callees of one "(unknown)" call (not counted),
        which waits at depth."""
        firsts = [t for t in p.first[:n] if t >= 0]
        total = sum(p.total[:n])
        kids: Optional[Dict[str, Node]] = None
        if self.flat is None:
            kids = {}
            node = self._child(kids, UNKNOWN)
            node[TOTAL] += total
            for k in p.kids[:n]:
                merge_kids(node[KIDS], k)
            del p.kids[:n]
        del p.first[:n], p.total[:n]
        self._add(st, depth, min(firsts) if firsts else -1, total, kids)

    def _unwind(self, st: TaskState, depth: int) -> Optional[Frame]:
        """Drop open calls at depth >= depth: their returns are lost.
        Returns the innermost one left."""
        top = st.top
        while top is not None and top[F_DEPTH] >= depth:
            top = top[F_UP]
            self.info.missing_returns += 1
        st.top = top
        return top

    def cut(self, st: TaskState) -> None:
        """End the task's open calls: the trace lost the lines between
        them and what follows, so they get no duration (counted in
        info.cut_calls) and no later call is taken as their callee.
        The calls waiting for a caller keep none."""
        self.info.cut_calls += len(open_calls(st.top))
        st.top = None
        self._flush(st)

    def _flush(self, st: TaskState) -> None:
        """Calls still waiting for a caller go under the task's root."""
        if self.flat is None:
            root = st.root[KIDS]
            for depth in sorted(st.pending):
                for kids in st.pending[depth].kids:
                    merge_kids(root, kids)
        st.pending = {}
        st.maxpend = -1

    def _align(self, st: TaskState, depth: int) -> Optional[Frame]:
        """Bring the open calls of ST to a line at DEPTH whose caller is
        not the innermost open call: end the deeper ones, or treat a
        jump in depth as a gap.  Returns the open call the line goes
        under, if any."""
        top = st.top
        if top is not None and top[F_DEPTH] >= depth:
            top = self._unwind(st, depth)
        if top is not None and top[F_DEPTH] + 1 < depth:
            self._jump(st)
        return st.top

    def _jump(self, st: TaskState) -> None:
        """A line deeper than one below the innermost open call.  Since
        a LOST marker (on any CPU: the task may have run there), that is
        a gap, and the open calls end.  Without lost events it is a call
        made through functions whose entries the kernel does not print
        (the irq entry path on ARM goes through two), and it keeps its
        caller."""
        if st.since != self.lost_seq:
            self.cut(st)

    def switched(self, prev: str, nxt: str, t: int) -> None:
        """A context-switch block at about time t (the last time stamp
        of its CPU): prev leaves the CPU, nxt, off it until now (since
        its switch-out, or since the start of the trace if it was not
        seen yet), comes on."""
        if t < 0:
            return
        st = self.task(prev)
        st.out_since = max(t, st.last_ts)
        st = self.task(nxt)
        a = st.out_since if st.out_since >= 0 else \
            self.first_ts if st.last_ts < 0 else -1
        if 0 <= a < t:
            st.off_s.append(a)
            st.off_e.append(t)
        st.out_since = -1

    def seen(self, st: TaskState, t: int) -> None:
        """A line of st at time t: if st was switched out and its
        switch-in was not seen, it was off the CPU until now."""
        if st.out_since >= 0:
            if st.out_since < t:
                st.off_s.append(st.out_since)
                st.off_e.append(t)
            st.out_since = -1
        st.last_ts = t

    def lost(self, cpu: str) -> None:
        """A LOST marker on cpu: every task whose last line was on that
        CPU may have lost lines."""
        self.lost_seq += 1
        for st in self.tasks.values():
            if st.cpu == cpu and (st.top is not None or st.pending):
                self.cut(st)

    # ---- the four kinds of function lines ----------------------------
    # Without filters or sink (self.plain), a completed call is added to
    # its node in place: that is _count() without the checks.
    def enter(self, st: TaskState, depth: int, name: str, ts: str,
              cpu: str) -> None:
        """func() {"""
        top = st.top
        if top is not None and top[F_DEPTH] + 1 != depth:
            top = self._align(st, depth)
        seg: Optional[Pending] = None
        segi = 0
        if top is not None:
            kids = top[F_NODE][KIDS]
        else:
            kids = {} if self.flat is None else self.flat
            seg, segi = self._add(st, depth, stamp_s(ts), 0,
                                  None if self.flat is not None else kids)
            st.since = self.lost_seq
        node = kids.get(name)
        if node is None:
            node = kids[name] = [name, {} if self.flat is None
                                 else self.flat, 0, 0, BIG, 0, 0, 0]
        st.top = [name, depth, 0, ts, node, cpu, seg, segi, self.lineno,
                  top]
        self.entries += 1

    def leaf(self, st: TaskState, depth: int, name: str, d: int, ts: str,
             cpu: str) -> None:
        """func();  d is the printed duration in ns, -1 if none."""
        top = st.top
        if top is not None and top[F_DEPTH] + 1 != depth:
            top = self._align(st, depth)
        if d < 0:
            d = 0
        if top is not None:
            top[F_CHILD] += d
            kids = top[F_NODE][KIDS]
        else:
            kids = {} if self.flat is None else self.flat
            self._add(st, depth, stamp_s(ts), d,
                      None if self.flat is not None else kids)
        self.leaves += 1
        node = kids.get(name)
        if node is None:
            node = kids[name] = [name, {} if self.flat is None
                                 else self.flat, 0, 0, BIG, 0, 0, 0]
        if self.plain:
            node[COUNT] += 1
            node[TOTAL] += d
            if d < node[MIN]:
                node[MIN] = d
            if d > node[MAX]:
                node[MAX] = d
            node[LOCAL] += d
        else:
            self._count(st.key, cpu, node, depth, d, 0, stamp_ns(ts))

    def ret(self, st: TaskState, depth: int, name: Optional[str], d: int,
            ts: str, cpu: str) -> None:
        """}  or  } /* name */ (name None for a bare brace)."""
        fr = st.top
        if fr is not None and fr[F_DEPTH] > depth:
            fr = self._unwind(st, depth + 1)
        if fr is None or fr[F_DEPTH] != depth:
            self.orphan(st, depth, name, d, ts, cpu)
            return
        up = st.top = fr[F_UP]
        if name is not None and fr[F_NAME] != name:
            # same depth, another function: both halves were lost
            self.info.missing_returns += 1
            self.orphan(st, depth, name, d, ts, cpu)
            return
        if name is not None:
            self.named_returns += 1
        if d < 0:
            t0, t1 = stamp_ns(fr[F_TS]), stamp_ns(ts)
            d = t1 - t0 if t0 >= 0 and t1 >= t0 else 0
        if up is not None:
            up[F_CHILD] += d
        elif fr[F_SEG] is not None:
            seg, i = fr[F_SEG], fr[F_SEGI]
            seg.total[i] += d
            began = stamp_s(ts) - d * 1e-9
            if 0 <= began < seg.first[i]:
                seg.first[i] = began
        self.returns += 1
        if self.plain:
            node = fr[F_NODE]
            node[COUNT] += 1
            node[TOTAL] += d
            if d < node[MIN]:
                node[MIN] = d
            if d > node[MAX]:
                node[MAX] = d
            node[LOCAL] += d - fr[F_CHILD]
        else:
            self._count(st.key, fr[F_CPU], fr[F_NODE], depth, d,
                        fr[F_CHILD], self._start(fr[F_TS], ts, d),
                        fr[F_LINE])

    @staticmethod
    def _start(entry: str, ret: str, d: int) -> int:
        """When a call with both lines began: no later than its entry's
        time stamp, and no later than its return's minus its duration.
        Both records are written after the times the duration is taken
        from, and an interrupt between the call's start and the writing
        of its entry (its lines are then printed before the entry) makes
        the entry's stamp late by the interrupt's length."""
        t0, t1 = stamp_ns(entry), stamp_ns(ret)
        # both stamps are cut to the microsecond
        if t1 >= 0 and t1 + CLIP_NS - d < t0:
            return t1 + CLIP_NS - d
        return t0

    def orphan(self, st: TaskState, depth: int, name: Optional[str],
               d: int, ts: str, cpu: str) -> None:
        """A return whose entry is not in the trace: the start of a
        trace, or exits-only output (tracing_thresh).  Named, it is
        counted; a bare } is not, but its time still goes to its caller
        and the calls that ended inside it stay its own, under
        "(unknown)".  With no caller open, it takes as callees the
        calls that ended one level deeper since the last return at its
        depth and began after it did (when time stamps say so)."""
        if d < 0:
            d = 0
        if name is None:
            self.info.unnamed_orphans += 1
            name = UNKNOWN
        else:
            self.orphans += 1
        top = st.top
        if top is not None:
            if top[F_DEPTH] + 1 >= depth or st.since == self.lost_seq:
                top[F_CHILD] += d
                if name is not UNKNOWN:
                    self._count(st.key, cpu,
                                self._child(top[F_NODE][KIDS], name),
                                depth, d, 0, self._orphan_start(ts, d))
                return
            self.cut(st)
        # in seconds, cheaper than exact ns (see _count() for those)
        try:
            end_s = float(ts) if ts else -1.0
        except ValueError:
            end_s = -1.0
        start_s = end_s - d * 1e-9 if end_s >= 0.0 else -1.0
        if st.maxpend > depth + 1:
            self._wrap_deeper(st, depth)
        flat = self.flat
        kids = {} if flat is None else flat
        node = kids.get(name)
        if node is None:
            node = kids[name] = [name, {} if flat is None else flat,
                                 0, 0, BIG, 0, 0, 0]
        pend = st.pending
        child_ns = 0
        p = pend.get(depth + 1)
        if p is not None and p.first:
            firsts = p.first
            if start_s < 0.0:
                child_ns = sum(p.total)
            elif len(firsts) == 1 and start_s - NEST_SLACK_S <= firsts[0] \
                    < end_s + NEST_SLACK_S:
                child_ns = p.total[0]   # the common case of the loop below
            else:
                i = len(firsts)
                lim = start_s - NEST_SLACK_S
                hi = end_s + NEST_SLACK_S
                while i:
                    t = firsts[i - 1]
                    # ran_inside(), its common case first
                    if lim <= t < hi or t < 0 or ran_inside(
                            int(t * 1e9), int(t * 1e9) + p.total[i - 1],
                            int(start_s * 1e9), int(end_s * 1e9)):
                        i -= 1
                    else:
                        break
                if i:
                    # began before this call: under a caller of their
                    # own that is not in the trace
                    self._wrap(st, p, i, depth)
                child_ns = sum(p.total)
            if flat is None:
                for sub in p.kids:
                    if node[KIDS]:
                        merge_kids(node[KIDS], sub)
                    else:
                        node[KIDS] = sub
                p.kids = []
            p.first = []
            p.total = []
        st.maxpend = depth
        p = pend.get(depth)
        if p is not None and len(p.first) < PENDING_CAP:
            p.first.append(start_s)
            p.total.append(d)
            if flat is None:
                p.kids.append(kids)
        else:
            self._add(st, depth, start_s, d, kids if flat is None else None)
        if name is UNKNOWN:
            node[TOTAL] += d
        elif self.plain:
            node[COUNT] += 1
            node[TOTAL] += d
            if d < node[MIN]:
                node[MIN] = d
            if d > node[MAX]:
                node[MAX] = d
            node[LOCAL] += d - child_ns
        else:
            self._count(st.key, cpu, node, depth, d, child_ns,
                        self._orphan_start(ts, d))

    def _wrap_deeper(self, st: TaskState, depth: int) -> None:
        """Before a return without entry at depth: the calls waiting
        deeper than depth + 1 lack their caller one level up, which is
        not in the trace (under the threshold, or overwritten)."""
        pend = st.pending
        k = st.maxpend
        while k > depth + 1:
            p = pend.get(k)
            if p is not None and p.first:
                self._wrap(st, p, len(p.first), k - 1)
            k -= 1

    @staticmethod
    def _orphan_start(ts: str, d: int) -> int:
        """When a return without entry began, in ns: its time stamp
        less its duration (-1 without time stamps)."""
        t = stamp_ns(ts)
        return t - d if t >= 0 else -1

    def _count(self, key: str, cpu: str, node: Node, depth: int, d: int,
               child_ns: int, start: int, line: int = -1) -> None:
        """Add one completed call to its node (and to the sink)."""
        if not self.plain:
            f = self.filters
            if f.min_dur and d < f.min_dur:
                return
            if f.max_depth is not None and depth > f.max_depth:
                return
            if f.t_start is not None and (start < 0 or start < f.t_start):
                return
            if f.t_end is not None and (start < 0 or start >= f.t_end):
                return
        node[COUNT] += 1
        node[TOTAL] += d
        if d < node[MIN]:
            node[MIN] = d
        if d > node[MAX]:
            node[MAX] = d
        node[LOCAL] += d - child_ns
        if self.oncpu and start >= 0:
            # time before the first line is not known: not counted
            st = self.tasks[key]
            a = max(start, self.first_ts)
            if a < start + d:
                node[ONCPU] += start + d - a - (
                    st.off_cpu(a, start + d) if st.off_s else 0)
        if self.sink is not None and start >= 0:
            self.sink(key, cpu, depth, node[NAME], start, start + d)
        if self.call_sink is not None:
            self.call_sink(key, cpu, node[NAME], start, d,
                           self.lineno if line < 0 else line)

    # ---- end ---------------------------------------------------------
    def finish(self) -> None:
        """Count unfinished calls and hang the calls still waiting for
        a caller under the task roots."""
        info = self.info
        info.entries += self.entries
        info.leaves += self.leaves
        info.returns += self.returns + self.orphans
        info.orphan_returns += self.orphans
        # funcgraph-tail names every return; without it only those
        # whose entry the kernel no longer knew are named
        info.tail = self.named_returns * 2 > self.returns
        self.entries = self.leaves = self.returns = self.orphans = 0
        for st in self.tasks.values():
            frames = open_calls(st.top)
            info.unfinished += len(frames)
            if self.open_sink is not None:
                for fr in frames:
                    t = stamp_ns(fr[F_TS])
                    if t >= 0:
                        self.open_sink(st.key, fr[F_CPU], fr[F_DEPTH],
                                       fr[F_NAME], t)
            st.top = None
            self._flush(st)
            info.tasks[st.key] = st.lines

    def roots(self) -> Dict[str, Node]:
        return {k: st.root for k, st in self.tasks.items()}

    def func_stats(self) -> Dict[str, FuncStats]:
        """Per-function totals (both modes)."""
        if self.flat is None:
            from .analysis import func_stats
            return func_stats(self.roots())
        out: Dict[str, FuncStats] = {}
        for name, n in self.flat.items():
            if n[COUNT]:
                fs = out[name] = FuncStats(name)
                fs.add(n[COUNT], n[TOTAL], n[MIN], n[MAX], n[LOCAL],
                       n[ONCPU])
        return out


class Walker:
    """Reads one trace line by line and hands its function lines to a
    CallBuilder.

    The reader finds the column layout, splits each line into its
    fields, keeps track of the current task of each CPU (for traces
    without a task column), and handles every line that is not a
    function line: headers, context switches, irq arrows, LOST markers,
    comments and malformed lines."""

    def __init__(self, filters: Optional[Filters] = None,
                 sink: Optional[Sink] = None,
                 need_time: str = "", flat: bool = False,
                 count_lines: bool = False) -> None:
        self.filters = filters or Filters()
        self.need_time = need_time
        self.info = TraceInfo()
        self.calls = CallBuilder(self.info, self.filters, sink, flat)
        self.curtask: Dict[str, str] = {}
        self.layout: Optional[Layout] = None
        self.fast: Optional[Pattern[str]] = None
        self.in_comment = False
        self.lineno = 0
        self.max_malformed_kept = 5
        self._keep_cache: Dict[str, bool] = {}
        self.cpuset: set[str] = set()
        # raw task field -> (task state, cpu); raw duration field -> ns
        self._stmap: Dict[str, Tuple[TaskState, str]] = {}
        self._dmap: Dict[str, int] = {}
        # raw function field -> (shape, depth, name); text -> (shape,
        # name) on lines parsed with the regex.  See _batch().
        self._tshapes: Dict[str, Tuple[int, int, str]] = {}
        self._bshapes: Dict[str, Tuple[int, str]] = {}
        self.layout_changed = False
        self.comment_sink: Optional[CommentSink] = None
        self.need_lines = False
        self.cpu_ts: Dict[str, int] = {}   # CPU -> its last time stamp
        del count_lines     # every task's lines are always counted

    def want_oncpu(self) -> None:
        """Keep every call's on-CPU time (ONCPU of the nodes): its
        duration less the time its task was switched out meanwhile, from
        the context-switch blocks and the time stamps (every line then
        takes the general path).  Without time stamps it is not kept:
        calls.oncpu is then False after the run."""
        self.calls.oncpu = True
        self.calls.plain = False
        self.need_lines = True

    def want_calls(self, fn: CallSink) -> None:
        """Give every counted call to fn, with its line number (every
        line then takes the general path, which keeps them)."""
        self.calls.call_sink = fn
        self.calls.plain = False
        self.need_lines = True

    @property
    def tasks(self) -> Dict[str, TaskState]:
        return self.calls.tasks

    @property
    def open_sink(self) -> Optional[OpenSink]:
        return self.calls.open_sink

    @open_sink.setter
    def open_sink(self, fn: Optional[OpenSink]) -> None:
        self.calls.open_sink = fn

    def roots(self) -> Dict[str, Node]:
        return self.calls.roots()

    def func_stats(self) -> Dict[str, FuncStats]:
        return self.calls.func_stats()

    # ---- layout ------------------------------------------------------
    def _set_layout(self, lay: Layout) -> None:
        if lay != self.layout:
            self.layout_changed = True
            self._stmap.clear()
            self._dmap.clear()
        self.layout = lay
        self.info.layout = lay
        self.fast = layout_regex(lay)
        if not lay.abstime:
            self.calls.oncpu = False
        if self.need_time and not lay.abstime:
            raise FtdError(
                "%s: %s needs absolute timestamps, and this trace has "
                "none: turn them on with `echo 1 > /sys/kernel/tracing/"
                "options/funcgraph-abstime` and capture the trace again"
                % (self.info.name, self.need_time))
        if self.filters.t_start is not None or \
                self.filters.t_end is not None:
            if not lay.abstime:
                raise FtdError(
                    "%s: a time window needs absolute timestamps: "
                    "`echo 1 > /sys/kernel/tracing/options/"
                    "funcgraph-abstime`" % self.info.name)

    # ---- main loop ---------------------------------------------------
    def run(self, inp: TraceInput) -> TraceInfo:
        self.info.name = inp.name
        try:
            for batch in inp.batches():
                if self.fast is None:
                    self._prime(batch)
                self._batch(batch)
        except TruncatedInput as err:
            self.info.truncated = str(err)
        self.finish()
        return self.info

    def feed_lines(self, lines: Iterable[str]) -> TraceInfo:
        """Parse text lines (for tests and library use)."""
        batch = list(lines)
        if self.fast is None:
            self._prime(batch)
        self._batch(batch)
        self.finish()
        return self.info

    def _prime(self, batch: Sequence[str]) -> None:
        lay: Optional[Layout] = None
        for line in batch[:400]:
            if line.startswith("#"):
                if self.comment_sink is not None:
                    # header lines before the layout is set (they come
                    # again, harmlessly, through _special())
                    self.comment_sink("", "", -1, line.rstrip("\r\n"))
                m = TRACER_RE.match(line)
                if m:
                    self.info.tracer = m.group(1)
                h = layout_from_header(line)
                if h is not None:
                    lay = h
                    break
            elif line.strip():
                break
        if lay is None:
            lay = detect_layout(batch[:2000])
        if lay is not None:
            self._set_layout(lay)

    def _batch(self, batch: List[str]) -> None:
        """The hot loop: split the line, find its task, duration and the
        shape of its function text, and hand the four common shapes to
        the call builder; everything else goes through self._function()
        (every function line, in full) or self._line() (lines that are
        not function lines).

        When the layout has a task column, lines are split at '|': the
        field holding CPU and task maps straight to the task's state,
        the duration field straight to nanoseconds and the function
        field straight to its shape, depth and name, through three
        dictionaries.  Each maps a raw field to what that field alone
        determines, so a hit is as good as a regex match; a new
        duration field is read by its own small regex, a new task field
        sends the line to the layout's regex.  A line that changes the
        layout ends the loop, which starts again on the rest of the
        batch."""
        if self.fast is None:
            for i, line in enumerate(batch):
                self.lineno += 1
                self._line(line)
                if self.fast is not None:
                    self._batch(batch[i + 1:])
                    return
            return
        self.layout_changed = False
        lay = self.layout
        assert lay is not None
        if self.filters.line_filter() or not lay.duration or \
                self.need_lines:
            self._batch_general(batch)
            return
        calls = self.calls
        enter, leaf, ret = calls.enter, calls.leaf, calls.ret
        orphan = calls.orphan
        tasks = calls.tasks
        newtask = calls.task
        curtask = self.curtask
        fast = self.fast.match
        slow = self._line
        function = self._function
        learn = self._learn
        shape = self._shape
        text_shape = self._text_shape
        stmap = self._stmap
        dmap = self._dmap
        tshapes = self._tshapes
        bshapes = self._bshapes
        for cache in (dmap, tshapes, bshapes):
            if len(cache) > 200000:
                cache.clear()
        durf = DUR_FIELD_RE.match
        splitok = lay.proc
        nf = 3 + lay.abstime + lay.reltime + lay.lat
        ki = lay.abstime + lay.reltime
        di = nf - 2
        ti = nf - 1         # not -1: CPython 3.11 is quicker with it
        abst = lay.abstime
        n0 = n = self.lineno
        cpuset = self.cpuset
        lastcpu = ""
        ts = ""
        d: Optional[int]
        maxdepth = self.info.max_depth
        if batch and not batch[-1].endswith("\n"):
            batch[-1] += "\n"
        for line in batch:
            n += 1
            if splitok:
                parts = line.split("|")
                # the rare case first: CPython 3.11 specializes the test
                # only when its jump is short
                if len(parts) != nf:
                    if len(parts) == 1:
                        # no '|' at all: blank, switch or lost-events line
                        self.lineno = n
                        slow(line)
                        if self.layout_changed:
                            break
                        continue
                    self.lineno = n
                    r = learn(line, None, 0, 0)
                    if r is None:
                        if self.layout_changed:
                            break
                        continue
                    st, cpu, d, depth, kind, name, ts = r
                else:
                    sc = stmap.get(parts[ki])
                    d = dmap.get(parts[di])
                    if d is None and sc is not None:
                        # a new duration: the field alone says it
                        md = durf(parts[di])
                        if md is None:
                            # not a duration (an irq arrow): the regex
                            # would not match the line either
                            self.lineno = n
                            slow(line)
                            if self.layout_changed:
                                break
                            continue
                        g = md.group(1)
                        d = dmap[parts[di]] = \
                            int(float(g) * 1000 + 0.5) if g else -1
                    if sc is None or d is None:
                        self.lineno = n
                        r = learn(line, parts, ki, di)
                        if r is None:
                            if self.layout_changed:
                                break
                            continue
                        st, cpu, d, depth, kind, name, ts = r
                    else:
                        st, cpu = sc
                        kind, depth, name = tshapes.get(parts[ti]) or \
                            text_shape(parts[ti])
                        if abst:
                            ts = parts[0]
            else:
                m = fast(line)
                if m is None:
                    self.lineno = n
                    slow(line)
                    if self.layout_changed:
                        break
                    continue
                ts, cpu, task, dur, ind, body = m.groups()
                key = task_key(task, cpu, curtask)
                st = tasks.get(key) or newtask(key)
                if cpu != lastcpu:
                    cpuset.add(cpu)
                    lastcpu = cpu
                depth = len(ind) >> 1
                d = dur_ns(dur) if dur else -1
                if depth > maxdepth:
                    maxdepth = self.info.max_depth = depth
                sh = bshapes.get(body)
                if sh is None:
                    sh = bshapes[body] = shape(body)
                kind, name = sh
            st.lines += 1
            st.cpu = cpu
            if kind == NAMED_RET:
                if st.top is not None:
                    ret(st, depth, name, d, ts, cpu)
                else:
                    orphan(st, depth, name, d, ts, cpu)
            elif kind == ENTER:
                enter(st, depth, name, ts, cpu)
            elif kind == LEAF:
                leaf(st, depth, name, d, ts, cpu)
            elif kind == RET:
                ret(st, depth, None, d, ts, cpu)
            else:
                self.lineno = n
                st.lines -= 1
                function(line)
        else:
            self.lineno = n
            self._note_batch_ts(batch)
            return
        # A line changed the layout: the rest of the batch goes by the
        # new one
        self._batch(batch[n - n0:])

    def _shape(self, body: str) -> Tuple[int, str]:
        """The shape of a function text for the hot loop, and the name
        in it: ENTER "func() {", LEAF "func();", RET "}" (no name),
        NAMED_RET "} /* func */" (or "} /* func = retval */", which
        notes that the trace has return values), OTHER for the rest."""
        c = body[-1:]
        if c == "{":
            if body[-4:] == "() {":
                return ENTER, body[:-4]
        elif c == ";":
            if body[-3:] == "();":
                return LEAF, body[:-3]
        elif c == "}":
            if body == "}":
                return RET, ""
        elif c == "/" and body[:5] == "} /* ":
            name = body[5:-3]
            if " = " in name:
                name = name.partition(" = ")[0]
                self.info.retval = True
            return NAMED_RET, name
        return OTHER, ""

    def _text_shape(self, text: str) -> Tuple[int, int, str]:
        """The shape, depth and name of the function field of a split
        line (the last field: the two spaces after the '|', the text
        and the newline), kept for the next line with the same field.
        The deepest depth is noted here: a line whose field was kept
        is no deeper."""
        body = text.strip()
        depth = (len(text) - len(body) - 3) >> 1
        if depth > self.info.max_depth:
            self.info.max_depth = depth
        kind, name = self._shape(body)
        sh = self._tshapes[text] = (kind, depth, name)
        return sh

    def _note_batch_ts(self, batch: List[str]) -> None:
        """The first and last time stamps, from the first and last
        timed lines of a batch."""
        if self.layout is None or not self.layout.abstime or \
                self.fast is None:
            return
        if self.info.first_ts is None:
            for line in batch[:200]:
                m = self.fast.match(line)
                if m is not None and m.group(1):
                    self._note_ts(m.group(1))
                    break
        for line in reversed(batch[-200:]):
            m = self.fast.match(line)
            if m is not None and m.group(1):
                self._note_ts(m.group(1))
                return

    def _learn(self, line: str, parts: Optional[List[str]], ki: int,
               di: int) -> Optional[Tuple[TaskState, str, int, int, int,
                                          str, str]]:
        """Parse a line with the regex; remember its task and duration
        fields for the split path.  Returns the task, CPU, duration,
        depth, shape, name and time stamp of a function line; None for
        other lines (handled here)."""
        assert self.fast is not None
        m = self.fast.match(line)
        if m is None:
            self._line(line)
            return None
        ts, cpu, task, dur, ind, body = m.groups()
        st = self.calls.task(task_key(task, cpu, self.curtask))
        if cpu:
            self.cpuset.add(cpu)
        depth = len(ind) >> 1
        if depth > self.info.max_depth:
            self.info.max_depth = depth
        d = dur_ns(dur) if dur else -1
        if parts is not None and parts[-1].strip() == body and \
                body and (len(parts[-1]) - len(body) - 3) >> 1 == depth:
            self._stmap[parts[ki]] = (st, cpu)
            self._dmap[parts[di]] = d
        kind, name = self._shape(body)
        return st, cpu, d, depth, kind, name, ts or ""

    def _batch_general(self, batch: List[str]) -> None:
        """All lines through the regex and the general code (line
        filters, no duration column)."""
        n0 = self.lineno
        for i, line in enumerate(batch):
            self.lineno = n0 + i + 1
            self._function(line)
            if self.layout_changed:
                self.layout_changed = False
                self._batch(batch[i + 1:])
                return

    def _function(self, line: str) -> None:
        """One line through the regex and the general code."""
        assert self.fast is not None
        m = self.fast.match(line)
        if m is None:
            self._line(line)
            return
        ts, cpu, task, dur, ind, body = m.groups()
        key = task_key(task, cpu, self.curtask)
        st = self.calls.task(key)
        st.lines += 1
        self.calls.lineno = self.lineno
        if cpu:
            self.cpuset.add(cpu)
            st.cpu = cpu
        if ts:
            self._note_ts(ts)
            if self.calls.oncpu:
                t = stamp_ns(ts)
                self.cpu_ts[cpu] = t
                self.calls.seen(st, t)
        depth = len(ind) >> 1
        if depth > self.info.max_depth:
            self.info.max_depth = depth
        self._event(st, key, cpu, ts or "", depth, body,
                    dur_ns(dur) if dur else -1, line)

    def _note_ts(self, ts: str) -> None:
        t = ts_ns(ts)
        info = self.info
        if info.first_ts is None:
            info.first_ts = self.calls.first_ts = t
        if info.last_ts is None or t > info.last_ts:
            info.last_ts = t

    # ---- general path ------------------------------------------------
    def _event(self, st: TaskState, key: str, cpu: str, ts: str,
               depth: int, body: str, d: int, line: str) -> None:
        """Handle one function line in full generality."""
        info = self.info
        calls = self.calls
        if body.endswith("\r"):
            body = body[:-1]
        if self.filters.line_filter():
            if not self._keep(key, cpu):
                return
        self.in_comment = False
        c = body[-1:]
        if c == "{" and body.endswith("() {"):
            calls.enter(st, depth, body[:-4], ts, cpu)
            return
        if c == ";" and body.endswith("();"):
            calls.leaf(st, depth, body[:-3], d, ts, cpu)
            return
        if c == "}" and body == "}":
            calls.ret(st, depth, None, d, ts, cpu)
            return
        if c == "/" and body.endswith(" */"):
            if body.startswith("} /* "):
                name, eq, _ = body[5:-3].partition(" = ")
                if eq:
                    info.retval = True
                calls.ret(st, depth, name, d, ts, cpu)
                return
            if body.startswith("/*"):
                info.comments += 1
                if self.comment_sink is not None and ts:
                    self.comment_sink(key, cpu, ts_ns(ts), body)
                return
            i = body.find("(); /* = ")
            if i > 0:
                info.retval = True
                calls.leaf(st, depth, body[:i], d, ts, cpu)
                return
        if body.startswith("/*"):
            info.comments += 1
            self.in_comment = True
            return
        if not self._special(line.rstrip("\r\n")):
            self._malformed(line)

    def _keep(self, key: str, cpu: str) -> bool:
        f = self.filters
        if f.cpus is not None:
            try:
                if int(cpu) not in f.cpus:
                    return False
            except ValueError:
                return False
        if f.pids is not None or f.tasks is not None:
            k = self._keep_cache.get(key)
            if k is None:
                task = task_name(key)
                k = f.keep_task(task)
                self._keep_cache[key] = k
            return k
        return True

    # ---- other lines -------------------------------------------------
    def _line(self, line: str) -> None:
        s = line.rstrip("\r\n")
        if not s.strip():
            return
        if self._special(s):
            return
        if self.fast is None:
            lay = detect_layout([s])
            if lay is not None:
                self._set_layout(lay)
        if self.fast is not None:
            m3 = self.fast.match(s)
            if m3 is not None and m3.group(6):
                ind, body = m3.group(5), m3.group(6)
                if not (len(ind) % 2) and (
                        body.endswith("*/") or body.endswith("{") or
                        body.endswith(";") or body == "}"):
                    self.in_comment = False
                    self._function(s)
                    return
        if self.in_comment:
            if s.endswith("*/"):
                self.in_comment = False
            return
        self._malformed(line)

    def _special(self, s: str) -> bool:
        """Headers, irq arrows, context switches, lost events."""
        info = self.info
        if not s:
            return False
        if s[0] == "#":
            m = TRACER_RE.match(s)
            if m:
                info.tracer = m.group(1)
            if self.comment_sink is not None:
                # header lines too, with no time (-1)
                self.comment_sink("", "", -1, s)
            lay = layout_from_header(s)
            if lay is not None:
                self._set_layout(lay)
            elif s.startswith("# ") and "options" in s:
                info.header_options.append(s[2:].strip())
            return True
        if "==========" in s:
            if "==========>" in s:
                info.irq_entries += 1
            else:
                info.irq_exits += 1
            return True
        if s.startswith(" -----") and not s.strip("- "):
            return True
        if "=>" in s:
            m = SWITCH_RE.match(s)
            if m:
                self._switch(*m.groups())
                return True
        m2 = LOST_RE.match(s)
        if m2:
            info.lost_events += 1
            info.lost_records += int(m2.group(2))
            self.calls.lost(m2.group(1))
            return True
        if s.startswith(" (Overruns:"):
            return True
        return False

    def _switch(self, cpu: str, prev: str, nxt: str) -> None:
        self.info.switches += 1
        if self.calls.oncpu:
            c = cpu if self.layout is None or self.layout.cpu else ""
            self.calls.switched(task_key(prev, c, self.curtask),
                                task_key(nxt, c, self.curtask),
                                self.cpu_ts.get(c, -1))
        if self.layout is not None and self.layout.proc:
            return
        if self.layout is not None and not self.layout.cpu:
            cpu = ""
        pk = task_key(prev, cpu, self.curtask)
        nk = task_key(nxt, cpu, self.curtask)
        unknown = "?/" + cpu
        tasks = self.calls.tasks
        if self.curtask.get(cpu) is None and unknown in tasks:
            # what ran before the CPU's first switch was its prev task
            st = tasks.pop(unknown)
            if pk not in tasks:
                st.key = pk
                tasks[pk] = st
            else:
                have = tasks[pk]
                have.lines += st.lines
                if self.calls.flat is None:
                    merge_kids(have.root[KIDS], st.root[KIDS])
        self.curtask[cpu] = nk

    def _malformed(self, line: str) -> None:
        info = self.info
        info.malformed += 1
        if len(info.malformed_lines) < self.max_malformed_kept:
            info.malformed_lines.append(self.lineno)
            info.malformed_samples.append(line.rstrip("\r\n")[:120])

    # ---- end ---------------------------------------------------------
    def finish(self) -> None:
        info = self.info
        self.calls.finish()
        for cpu in self.cpuset:
            if cpu:
                info.cpus[int(cpu)] = 1
        info.lines = self.lineno
        if info.entries:
            info.exits_only = False
        elif not info.returns:
            info.exits_only = False


def merge_kids(dst: Dict[str, Node], src: Dict[str, Node]) -> None:
    """Add the subtrees in src into dst."""
    for name, node in src.items():
        have = dst.get(name)
        if have is None:
            dst[name] = node
            continue
        add_node_stats(have, node)
        merge_kids(have[KIDS], node[KIDS])


def parse_file(path: str, filters: Optional[Filters] = None,
               sink: Optional[Sink] = None, need_time: str = "",
               progress: bool = False, flat: bool = False,
               count_lines: bool = False,
               hooks: Optional[Callable[[Walker], None]] = None) -> Walker:
    """Parse one trace file (or '-' for stdin) and return the walker;
    hooks, when given, can set the walker's other sinks first."""
    w = Walker(filters, sink, need_time, flat, count_lines)
    if hooks is not None:
        hooks(w)
    inp = TraceInput(path, progress)
    try:
        w.run(inp)
    finally:
        inp.close()
    return w
