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

import fnmatch
import itertools
import re
from typing import (Any, Callable, Dict, Iterable, List, Optional, Pattern,
                    Sequence, Tuple)

from .inputs import TraceInput, TruncatedInput
from .model import (BIG, COUNT, KIDS, LOCAL, MAX, MIN, TOTAL, FtdError,
                    FuncStats, Layout, Node, TraceInfo, add_node_stats,
                    new_node, task_name)

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

Frame = List[Any]   # [name, depth, child_ns, ts, node, cpu]
TaskState = List[Any]  # [stack, pending, key, root, lines]


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
            if not any(fnmatch.fnmatchcase(comm, g) or
                       fnmatch.fnmatchcase(task, g) for g in self.tasks):
                return False
        return True


# A sink gets every counted call: (track key, cpu, depth, name,
# start_ns, end_ns).  Used for timelines.
Sink = Callable[[str, str, int, str, int, int], None]
# An open sink gets every call still open at the end of the input:
# (track key, cpu, depth, name, start_ns).
OpenSink = Callable[[str, str, int, str, int], None]
# A comment sink gets every timestamped comment line (trace events and
# trace_printk inside the graph): (track key, cpu, ts_ns, text), and
# every "#" header line as ("", "", -1, text).
CommentSink = Callable[[str, str, int, str], None]


class Walker:
    """Parses one trace and builds the per-task call trees."""

    def __init__(self, filters: Optional[Filters] = None,
                 sink: Optional[Sink] = None,
                 need_time: str = "", flat: bool = False,
                 count_lines: bool = False) -> None:
        # flat: per-function totals only, no call paths.  Every node then
        # shares one children dict, so a name always finds the same node
        # and no subtree is ever built or merged.
        self.flat: Optional[Dict[str, Node]] = {} if flat else None
        self.filters = filters or Filters()
        self.count_lines = count_lines
        self.sink = sink
        self.need_time = need_time
        self.info = TraceInfo()
        self.tasks: Dict[str, TaskState] = {}
        self.curtask: Dict[str, str] = {}
        self.layout: Optional[Layout] = None
        self.fast: Optional[Pattern[str]] = None
        self.in_comment = False
        self.lineno = 0
        self.max_malformed_kept = 5
        self._keep_cache: Dict[str, bool] = {}
        self.cpuset: set[str] = set()
        self._dcache: Dict[str, int] = {}
        self._stmap: Dict[str, TaskState] = {}
        self._dmap: Dict[str, int] = {}
        self.layout_changed = False
        self.open_sink: Optional[OpenSink] = None
        self.comment_sink: Optional[CommentSink] = None

    # ---- tasks -------------------------------------------------------
    def _task(self, key: str) -> TaskState:
        st = self.tasks.get(key)
        if st is None:
            root = self._new("")
            st = [[], {0: root}, key, root, 0, 0]
            self.tasks[key] = st
        return st

    def _pending(self, st: TaskState, depth: int) -> Node:
        pend: Dict[int, Node] = st[1]
        node = pend.get(depth)
        if node is None:
            node = self._new("")
            pend[depth] = node
            if depth > st[5]:
                st[5] = depth
        return node

    def _new(self, name: str) -> Node:
        node = new_node(name)
        if self.flat is not None:
            node[KIDS] = self.flat
        return node

    def func_stats(self) -> Dict[str, FuncStats]:
        """Per-function totals (both modes)."""
        if self.flat is None:
            from .analysis import func_stats
            return func_stats(self.roots())
        out: Dict[str, FuncStats] = {}
        for name, n in self.flat.items():
            if n[COUNT]:
                fs = out[name] = FuncStats(name)
                fs.add(n[COUNT], n[TOTAL], n[MIN], n[MAX], n[LOCAL])
        return out

    # ---- layout ------------------------------------------------------
    def _set_layout(self, lay: Layout) -> None:
        if lay != self.layout:
            self.layout_changed = True
        self.layout = lay
        self.info.layout = lay
        self.fast = layout_regex(lay)
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
        batches = inp.batches()
        try:
            for batch in batches:
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
        """The hot loop.  The common cases are inlined; everything else
        goes through self._full() (regex, then the general code) or
        self._line() (lines that are not function lines).

        Lines are first split at '|'.  When the layout has a task
        column, the field holding CPU and task maps straight to the
        task's state and the duration field straight to nanoseconds,
        through two dictionaries filled from lines the regex parsed.
        Both map a raw field to what that field alone determines, so a
        hit is as good as a regex match; a miss goes to the regex."""
        info = self.info
        if self.fast is None:
            for i, line in enumerate(batch):
                self.lineno += 1
                self._line(line)
                if self.fast is not None:
                    self._batch(batch[i + 1:])
                    return
            return
        fast = self.fast.match
        self.layout_changed = False
        lay = self.layout
        if (self.sink is not None or self.filters.line_filter() or
                self.filters.call_filter() or lay is None or
                not lay.duration or self.count_lines):
            self._batch_general(batch, fast)
            return
        tasks = self.tasks
        curtask = self.curtask
        slow = self._line
        full = self._full
        newtask = self._task
        pending = self._pending
        flat = self.flat
        dcache = self._dcache
        if len(dcache) > 200000:
            dcache.clear()
        stmap = self._stmap
        dmap = self._dmap
        durf = DUR_FIELD_RE.match
        if len(dmap) > 200000:
            dmap.clear()
        splitok = lay.proc
        nf = 3 + lay.abstime + lay.reltime + lay.lat
        ki = lay.abstime + lay.reltime
        di = nf - 2
        abst = lay.abstime
        n0 = n = self.lineno
        entries = leaves = returns = orphans = 0
        maxdepth = info.max_depth
        last_ts = ""
        lastcpu = ""
        cpuset = self.cpuset
        if batch and not batch[-1].endswith("\n"):
            batch[-1] += "\n"
        for line in batch:
            n += 1
            if splitok:
                parts = line.split("|")
                if len(parts) == nf:
                    st = stmap.get(parts[ki])
                    d = dmap.get(parts[di])
                    if d is None and st is not None:
                        # a new duration: the field alone says it
                        md = durf(parts[di])
                        if md is not None:
                            g = md.group(1)
                            d = dmap[parts[di]] = \
                                int(float(g) * 1000 + 0.5) if g else -1
                    if st is None or d is None:
                        r = self._learn(line, parts, ki, di, n)
                        if r is None:
                            if self.layout_changed:
                                self._flush_counts(entries, leaves, returns,
                                                   orphans, maxdepth, "")
                                self._batch(batch[n - n0:])
                                return
                            continue
                        st, d, depth, body = r
                    else:
                        text = parts[-1]
                        body = text.strip()
                        depth = (len(text) - len(body) - 3) >> 1
                elif len(parts) == 1:
                    # no '|' at all: blank, switch or lost-events line
                    self.lineno = n
                    slow(line)
                    if self.layout_changed:
                        self._flush_counts(entries, leaves, returns,
                                           orphans, maxdepth, "")
                        self._batch(batch[n - n0:])
                        return
                    continue
                else:
                    self.lineno = n
                    r = self._learn(line, None, 0, 0, n)
                    if r is None:
                        if self.layout_changed:
                            self._flush_counts(entries, leaves, returns,
                                               orphans, maxdepth, "")
                            self._batch(batch[n - n0:])
                            return
                        continue
                    st, d, depth, body = r
            else:
                m = fast(line)
                if m is None:
                    self.lineno = n
                    slow(line)
                    if self.layout_changed:
                        self._flush_counts(entries, leaves, returns,
                                           orphans, maxdepth, "")
                        self._batch(batch[n - n0:])
                        return
                    continue
                ts, cpu, task, dur, ind, body = m.groups()
                if task:
                    key = task if task[-2:] != "-0" else task + "/" + cpu
                else:
                    key = curtask.get(cpu) or "?/" + cpu
                st = tasks.get(key)
                if st is None:
                    st = newtask(key)
                if cpu != lastcpu:
                    cpuset.add(cpu)
                    lastcpu = cpu
                depth = len(ind) >> 1
                if dur is None:
                    d = -1
                else:
                    d = dcache.get(dur)
                    if d is None:
                        d = dcache[dur] = int(float(dur) * 1000 + 0.5)
            c = body[-1:]
            stack = st[0]
            if c == "{":
                if stack:
                    if stack[-1][1] >= depth:
                        self.lineno = n
                        full(line)
                        continue
                    parent = stack[-1][4]
                else:
                    parent = pending(st, depth)
                name = body[:-4]
                kids = parent[1]
                node = kids.get(name)
                if node is None:
                    node = kids[name] = [name, {} if flat is None else flat,
                                         0, 0, BIG, 0, 0]
                stack.append([name, depth, 0, None, node, None])
                entries += 1
                if depth > maxdepth:
                    maxdepth = depth
                continue
            if d < 0:
                self.lineno = n
                full(line)
                continue
            if c == ";":
                name = body[:-3]
                if stack:
                    top = stack[-1]
                    if top[1] >= depth:
                        self.lineno = n
                        full(line)
                        continue
                    top[2] += d
                    parent = top[4]
                else:
                    parent = pending(st, depth)
                    parent[3] += d
                kids = parent[1]
                node = kids.get(name)
                if node is None:
                    node = kids[name] = [name, {} if flat is None else flat,
                                         0, 0, BIG, 0, 0]
                node[2] += 1
                node[3] += d
                if d < node[4]:
                    node[4] = d
                if d > node[5]:
                    node[5] = d
                node[6] += d
                leaves += 1
                if depth > maxdepth:
                    maxdepth = depth
                continue
            if c == "}" and stack and stack[-1][1] == depth:
                fr = stack.pop()
            elif c == "/" and body[0] == "}" and stack and \
                    stack[-1][1] == depth and \
                    body[5:-3].partition(" = ")[0] == stack[-1][0]:
                fr = stack.pop()
                info.tail = True
            elif c == "/" and body[0] == "}" and not stack:
                # exits-only output (tracing_thresh) and the returns at
                # the start of a trace, whose entries were overwritten
                name = body[5:-3]
                if " = " in name:
                    name = name.partition(" = ")[0]
                    info.retval = True
                pend = st[1]
                parent = pend.get(depth)
                if parent is None:
                    parent = pend[depth] = [
                        None, {} if flat is None else flat, 0, 0, BIG, 0, 0]
                    if depth > st[5]:
                        st[5] = depth
                kids = parent[1]
                node = kids.get(name)
                if node is None:
                    node = kids[name] = [name, {} if flat is None else flat,
                                         0, 0, BIG, 0, 0]
                child_ns = 0
                mp = st[5]
                if mp == depth + 1 and flat is not None:
                    sub = pend.pop(mp, None)
                    if sub is not None:
                        child_ns = sub[3]
                    st[5] = depth
                elif mp > depth:
                    for k in range(depth + 1, mp + 1):
                        sub = pend.pop(k, None)
                        if sub is None:
                            continue
                        if k == depth + 1:
                            child_ns = sub[3]
                        if sub[1] and flat is None:
                            if node[1]:
                                merge_kids(node[1], sub[1])
                            else:
                                node[1] = sub[1]
                    st[5] = depth
                node[2] += 1
                node[3] += d
                if d < node[4]:
                    node[4] = d
                if d > node[5]:
                    node[5] = d
                node[6] += d - child_ns
                parent[3] += d
                orphans += 1
                if depth > maxdepth:
                    maxdepth = depth
                continue
            else:
                self.lineno = n
                full(line)
                continue
            node = fr[4]
            node[2] += 1
            node[3] += d
            if d < node[4]:
                node[4] = d
            if d > node[5]:
                node[5] = d
            node[6] += d - fr[2]
            if stack:
                stack[-1][2] += d
            else:
                pending(st, depth)[3] += d
            returns += 1
        self.lineno = n
        self._flush_counts(entries, leaves, returns, orphans, maxdepth,
                           self._last_ts(batch))

    def _last_ts(self, batch: List[str]) -> str:
        """The timestamp of the last timed line of a batch (and of the
        first one, for the first batch)."""
        if self.layout is None or not self.layout.abstime or \
                self.fast is None:
            return ""
        if self.info.first_ts is None:
            for line in batch[:200]:
                m = self.fast.match(line)
                if m is not None and m.group(1):
                    self._note_ts(m.group(1))
                    break
        for line in reversed(batch[-200:]):
            m = self.fast.match(line)
            if m is not None and m.group(1):
                return str(m.group(1))
        return ""

    def _learn(self, line: str, parts: Optional[List[str]], ki: int,
               di: int, n: int) -> Optional[Tuple[TaskState, int, int,
                                                  str]]:
        """Parse a line with the regex; remember its task and duration
        fields for the split path.  None: not a function line (handled
        here)."""
        assert self.fast is not None
        m = self.fast.match(line)
        if m is None:
            self.lineno = n
            self._line(line)
            return None
        ts, cpu, task, dur, ind, body = m.groups()
        if task:
            key = task if task[-2:] != "-0" else task + "/" + cpu
        else:
            key = self.curtask.get(cpu) or "?/" + cpu
        st = self.tasks.get(key)
        if st is None:
            st = self._task(key)
        st[4] += 1
        if cpu:
            self.cpuset.add(cpu)
        depth = len(ind) >> 1
        d = -1 if dur is None else dur_ns(dur)
        if parts is not None and parts[-1].strip() == body and \
                body and (len(parts[-1]) - len(body) - 3) >> 1 == depth:
            self._stmap[parts[ki]] = st
            self._dmap[parts[di]] = d
        return st, d, depth, body

    def _full(self, line: str) -> None:
        """One function line through the regex and the general code."""
        assert self.fast is not None
        m = self.fast.match(line)
        if m is None:
            self._line(line)
            return
        ts, cpu, task, dur, ind, body = m.groups()
        if task:
            key = task if task[-2:] != "-0" else task + "/" + cpu
        else:
            key = self.curtask.get(cpu) or "?/" + cpu
        st = self.tasks.get(key)
        if st is None:
            st = self._task(key)
        self._event(st, key, cpu, ts, len(ind) >> 1, body, dur, line)

    def _flush_counts(self, entries: int, leaves: int, returns: int,
                      orphans: int, maxdepth: int, last_ts: str) -> None:
        info = self.info
        info.entries += entries
        info.leaves += leaves
        info.returns += returns + orphans
        info.orphan_returns += orphans
        if maxdepth > info.max_depth:
            info.max_depth = maxdepth
        if last_ts:
            self._note_ts(last_ts)

    def _batch_general(self, batch: List[str],
                       fast: Callable[[str], Any]) -> None:
        """All lines through the general path (filters, timelines, no
        duration column)."""
        n0 = self.lineno
        for i, line in enumerate(batch):
            self.lineno = n0 + i + 1
            m = fast(line)
            if m is None:
                self._line(line)
                if self.layout_changed:
                    self._batch(batch[i + 1:])
                    return
                continue
            ts, cpu, task, dur, ind, body = m.groups()
            if task:
                key = task if task[-2:] != "-0" else task + "/" + cpu
            else:
                key = self.curtask.get(cpu) or "?/" + cpu
            st = self.tasks.get(key)
            if st is None:
                st = self._task(key)
            st[4] += 1
            if cpu:
                self.cpuset.add(cpu)
            if ts:
                self._note_ts(ts)
            self._event(st, key, cpu, ts, len(ind) >> 1, body, dur, line)

    def _note_ts(self, ts: str) -> None:
        t = ts_ns(ts)
        info = self.info
        if info.first_ts is None:
            info.first_ts = t
        if info.last_ts is None or t > info.last_ts:
            info.last_ts = t

    # ---- general path ------------------------------------------------
    def _event(self, st: TaskState, key: str, cpu: str, ts: str,
               depth: int, body: str, dur: Optional[str],
               line: str) -> None:
        """Handle one function line in full generality."""
        info = self.info
        if body.endswith("\r"):
            body = body[:-1]
        if self.filters.line_filter():
            if not self._keep(key, cpu):
                return
        if ts and info.first_ts is None:
            self._note_ts(ts)
        c = body[-1:]
        if c == "{" and body.endswith("() {"):
            self._enter(st, depth, body[:-4], ts, cpu)
            return
        if c == ";" and body.endswith("();"):
            self._leaf(st, key, depth, body[:-3], dur, ts, cpu)
            return
        if c == "}" and body == "}":
            self._ret(st, key, depth, None, dur, ts, cpu)
            return
        if c == "/" and body.endswith(" */"):
            if body.startswith("} /* "):
                inner = body[5:-3]
                name, eq, _ = inner.partition(" = ")
                if eq:
                    info.retval = True
                self._ret(st, key, depth, name, dur, ts, cpu)
                return
            if body.startswith("/*"):
                info.comments += 1
                if self.comment_sink is not None and ts:
                    self.comment_sink(key, cpu, ts_ns(ts), body)
                return
            i = body.find("(); /* = ")
            if i > 0:
                info.retval = True
                self._leaf(st, key, depth, body[:i], dur, ts, cpu)
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

    def _unwind(self, st: TaskState, depth: int) -> None:
        """Drop open frames at depth >= depth: their returns are lost."""
        stack = st[0]
        while stack and stack[-1][1] >= depth:
            stack.pop()
            self.info.missing_returns += 1

    def _parent(self, st: TaskState, depth: int) -> Node:
        stack = st[0]
        if stack:
            top: Node = stack[-1][4]
            return top
        return self._pending(st, depth)

    def _child(self, parent: Node, name: str) -> Node:
        kids: Dict[str, Node] = parent[KIDS]
        node = kids.get(name)
        if node is None:
            node = kids[name] = self._new(name)
        return node

    def _enter(self, st: TaskState, depth: int, name: str, ts: str,
               cpu: str) -> None:
        stack = st[0]
        if stack and stack[-1][1] >= depth:
            self._unwind(st, depth)
        node = self._child(self._parent(st, depth), name)
        stack.append([name, depth, 0, ts, node, cpu])
        self.info.entries += 1

    def _duration(self, dur: Optional[str], start: str, end: str) -> int:
        if dur:
            return dur_ns(dur)
        if start and end:
            return max(0, ts_ns(end) - ts_ns(start))
        return 0

    def _leaf(self, st: TaskState, key: str, depth: int, name: str,
              dur: Optional[str], ts: str, cpu: str) -> None:
        stack = st[0]
        if stack and stack[-1][1] >= depth:
            self._unwind(st, depth)
        d = self._duration(dur, "", "")
        parent = self._parent(st, depth)
        if stack:
            stack[-1][2] += d
        else:
            parent[TOTAL] += d
        node = self._child(parent, name)
        start = ts_ns(ts) if ts else -1
        self._count(key, cpu, node, depth, d, 0, start)
        self.info.leaves += 1

    def _ret(self, st: TaskState, key: str, depth: int,
             name: Optional[str], dur: Optional[str], ts: str,
             cpu: str) -> None:
        stack = st[0]
        info = self.info
        while stack and stack[-1][1] > depth:
            stack.pop()
            info.missing_returns += 1
        if stack and stack[-1][1] == depth and \
                (name is None or stack[-1][0] == name):
            fr = stack.pop()
            if name is not None:
                info.tail = True
            d = self._duration(dur, fr[3], ts)
            if stack:
                stack[-1][2] += d
            else:
                self._pending(st, depth)[TOTAL] += d
            start = ts_ns(fr[3]) if fr[3] else -1
            self._count(key, fr[5], fr[4], depth, d, fr[2], start)
            info.returns += 1
            return
        if stack and stack[-1][1] == depth:
            # Same depth, other function: both halves were lost.
            stack.pop()
            info.missing_returns += 1
        if name is None:
            # Unknown function: not counted, but the calls that finished
            # deeper were its own, and its time was spent in its caller.
            info.unnamed_orphans += 1
            d = self._duration(dur, "", "")
            if stack:
                stack[-1][2] += d
            else:
                pend0: Dict[int, Node] = st[1]
                here = self._pending(st, depth)
                for dd in sorted(k for k in pend0 if k > depth):
                    sub = pend0.pop(dd)
                    if self.flat is None and sub[KIDS]:
                        merge_kids(self._child(here, "(unknown)")[KIDS],
                                   sub[KIDS])
                here[TOTAL] += d
            return
        d = self._duration(dur, "", "")
        info.orphan_returns += 1
        info.returns += 1
        start = ts_ns(ts) - d if ts else -1
        if stack:
            parent = stack[-1][4]
            stack[-1][2] += d
            node = self._child(parent, name)
            self._count(key, cpu, node, depth, d, 0, start)
            return
        # No open caller: adopt the calls finished so far one level
        # deeper, which ran inside this one.
        pend: Dict[int, Node] = st[1]
        node = self._child(self._pending(st, depth), name)
        child_ns = 0
        for dd in sorted(k for k in pend if k > depth):
            sub = pend.pop(dd)
            if dd == depth + 1:
                child_ns = sub[TOTAL]
            if self.flat is not None:
                continue
            if node[KIDS]:
                merge_kids(node[KIDS], sub[KIDS])
            else:
                node[KIDS] = sub[KIDS]
        st[5] = max(depth, max(pend) if pend else 0)
        if depth == 0:
            pass
        self._pending(st, depth)[TOTAL] += d
        self._count(key, cpu, node, depth, d, child_ns, start)

    def _count(self, key: str, cpu: str, node: Node, depth: int, d: int,
               child_ns: int, start: int) -> None:
        f = self.filters
        if depth > self.info.max_depth:
            self.info.max_depth = depth
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
        if self.sink is not None and start >= 0:
            self.sink(key, cpu, depth, node[0], start, start + d)

    # ---- other lines -------------------------------------------------
    def _line(self, line: str) -> None:
        info = self.info
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
                ts, cpu, task, dur, ind, body = m3.groups()
                if not (len(ind) % 2) and (
                        body.endswith("*/") or body.endswith("{") or
                        body.endswith(";") or body == "}"):
                    if task:
                        key = task if task[-2:] != "-0" \
                            else task + "/" + cpu
                    else:
                        key = self.curtask.get(cpu) or "?/" + cpu
                    st = self._task(key)
                    st[4] += 1
                    if cpu:
                        self.cpuset.add(cpu)
                    if ts:
                        self._note_ts(ts)
                    self.in_comment = False
                    self._event(st, key, cpu, ts, len(ind) >> 1, body,
                                dur, line)
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
                self._switch(m.group(1), m.group(2), m.group(3))
                return True
        m2 = LOST_RE.match(s)
        if m2:
            info.lost_events += 1
            info.lost_records += int(m2.group(2))
            return True
        if s.startswith(" (Overruns:"):
            return True
        return False

    def _switch(self, cpu: str, prev: str, nxt: str) -> None:
        self.info.switches += 1
        if self.layout is not None and self.layout.proc:
            return
        if self.layout is not None and not self.layout.cpu:
            cpu = ""
        pk = prev if prev[-2:] != "-0" else prev + "/" + cpu
        nk = nxt if nxt[-2:] != "-0" else nxt + "/" + cpu
        unknown = "?/" + cpu
        if self.curtask.get(cpu) is None and unknown in self.tasks:
            st = self.tasks.pop(unknown)
            if pk not in self.tasks:
                st[2] = pk
                self.tasks[pk] = st
            elif self.flat is None:
                merge_kids(self.tasks[pk][3][KIDS], st[3][KIDS])
        self.curtask[cpu] = nk

    def _malformed(self, line: str) -> None:
        info = self.info
        info.malformed += 1
        if len(info.malformed_lines) < self.max_malformed_kept:
            info.malformed_lines.append(self.lineno)
            info.malformed_samples.append(line.rstrip("\r\n")[:120])

    # ---- end ---------------------------------------------------------
    def finish(self) -> None:
        """Count unfinished calls and hang partial subtrees under the
        task roots."""
        info = self.info
        for st in self.tasks.values():
            info.unfinished += len(st[0])
            if self.open_sink is not None:
                for fr in st[0]:
                    if fr[3]:
                        self.open_sink(st[2], fr[5], fr[1], fr[0],
                                       ts_ns(fr[3]))
            pend: Dict[int, Node] = st[1]
            root = st[3]
            for dd in sorted(pend):
                sub = pend[dd]
                if sub is root or self.flat is not None:
                    continue
                merge_kids(root[KIDS], sub[KIDS])
            st[1] = {0: root}
            st[5] = 0
            st[0] = []
            info.tasks[st[2]] = st[4]
        for cpu in self.cpuset:
            if cpu:
                info.cpus[int(cpu)] = 1
        info.lines = self.lineno
        if info.entries:
            info.exits_only = False
        elif not info.returns:
            info.exits_only = False

    def roots(self) -> Dict[str, Node]:
        return {k: st[3] for k, st in self.tasks.items()}


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
