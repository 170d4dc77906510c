# SPDX-License-Identifier: GPL-2.0
"""The pairing core: entries and returns matched into calls.

The line reader hands every function line to a Pairing: enter() for
"func() {", leaf() for "func();", ret() for "}" and "} /* func */".
The core matches them and gives every call, once, as one Call record
to its consumer (the per-function table, the call trees, the
timelines, slowest, hist): its id, function (None when the trace does
not name it), printed duration, start, task, CPU, depth, the line it
is at, and its caller (an id, ROOT, or UNKNOWN).  No view infers
nesting again.

How calls are matched:

- Per task, by depth: the kernel's call depth is per task, so each
  task has one chain of open calls.  A return at the depth of the
  innermost open call closes it, unless it names another function or
  its time stamp minus its duration contradicts the entry's stamp:
  then the two do not belong together (lines were lost between them)
  and the task's open calls end there (a gap).
- Where lines of several CPUs cannot be told apart (no CPU column, on
  a trace of more than one CPU: the idle tasks, or every line when
  there is no task column either), by time: a return closes the one
  open entry at its depth whose stamp is its own stamp minus its
  duration.  When several would do, or none, the return's call has no
  known caller and the entries stay open.
- A LOST marker ends the open calls of the tasks last seen on its CPU
  (every task, without a CPU column); after one, so does a jump in
  depth.  No caller is guessed across a gap: those calls get no
  duration (flag CUT), and the calls that wait for a caller get none.
- A return without an entry (the start of the trace, exits-only
  output) waits for its caller: the next return one level up (with no
  open caller) takes it when it ran inside it by time (or always,
  without time stamps); otherwise its caller is UNKNOWN.
- A call deeper than one below the innermost open call (without a
  LOST marker: a call through functions whose entries are not printed,
  like the irq entry on ARM) has an UNKNOWN caller; it ran inside the
  open call (anc), whose local time it is subtracted from.

Where the trace cannot tell, the answer is UNKNOWN, counted in the
TraceInfo, never a guess.

Start times: a call with both lines starts at the earlier of its
entry's stamp and its return's stamp less its duration (an interrupt
between the call's start and the writing of its entry makes the entry
late); a leaf at the earlier of its stamp and the next line of its
task less its duration; a return without entry at its stamp less its
duration.  Stamps are whole microseconds.
"""

from __future__ import annotations

import bisect
from typing import Callable, Dict, List, Optional

from .model import TraceInfo

ROOT = 0            # parent of an outermost call (depth 0)
UNKNOWN = -1        # the trace does not say who called it
PENDING = -2        # not decided yet (internal)

# Call.flags
UNFINISHED = 1      # no return before the end of the trace
CUT = 2             # ended at a gap: its return is not in the trace
UNNAMED = 4         # a bare "}" whose entry is missing: function unknown

# Time stamps are cut to the microsecond.
CLIP_NS = 1000
# How much earlier than its caller's computed start a callee may seem
# to begin: starts computed from a return are late by the cost of
# writing that record (tens of microseconds under QEMU's TCG).
NEST_SLACK_NS = 10000
# A return whose stamp less its duration is more than this before its
# entry's stamp... is fine (the entry is late after an interrupt); one
# whose entry is more than this before it cannot be its entry.
CONTRA_NS = 200000
# How far from its return's stamp less its duration a time-paired
# entry may be, and how much nearer than any other: records are written
# microseconds after the times they stand for (tens under QEMU).
POOL_NEAR_NS = 3000
POOL_MARGIN_NS = 10000


class Call:
    """One call, open (dur -1) or done.  A record given to consumers."""

    __slots__ = ("id", "parent", "anc", "name", "task", "cpu", "depth",
                 "start", "dur", "child", "line", "flags", "oncpu", "ts",
                 "up", "sw", "rline", "lost", "prev")

    def __init__(self, cid: int, name: Optional[str], task: str, cpu: str,
                 depth: int, line: int, ts: int = -1, dur: int = -1,
                 parent: int = PENDING, sw: int = 0, lost: int = 0,
                 prev: int = -1) -> None:
        self.id = cid
        self.parent = parent
        self.anc = 0            # an open call it ran inside (0: none)
        self.name = name
        self.task = task
        self.cpu = cpu
        self.depth = depth
        # a leaf starts at its stamp (see _settle()), others later
        self.start = ts if dur >= 0 else -1    # ns, -1: not known
        self.dur = dur          # printed duration in ns, -1: none
        self.child = 0          # sum of the durations of its callees
        self.line = line        # its entry line, or its only line
        self.flags = 0
        self.oncpu = 0
        self.ts = ts            # entry stamp in ns (-1: none)
        self.up: Optional[Call] = None   # the open call it runs in (its
                                # caller, or anc), until it is given
        self.sw = sw            # its task's switches at its entry
        self.rline = line       # its return line
        self.lost = lost        # LOST markers seen before its entry
        self.prev = prev        # stamp of its task's line before its
                                # entry (-1: none, a deeper one, or a
                                # context switch between)

    def __repr__(self) -> str:
        return "Call(%d %s p=%d t=%s c=%s d=%d s=%d dur=%d f=%d)" % (
            self.id, self.name, self.parent, self.task, self.cpu,
            self.depth, self.start, self.dur, self.flags)


Emit = Callable[[Call], None]
# A leaf whose caller is open, for consumers that keep no Call record
# of it: (name, printed duration, caller) -> whether it took the leaf
# (else the core makes its record and gives it to emit).
LeafEmit = Callable[[str, int, Call], bool]


def _pool_match(cand: List[Call], d: int, ts: int) -> Optional[Call]:
    """Of the open entries that a return may close (cand), the one
    whose stamp is the return's less its duration, to the microseconds
    of the two stamps; None without stamps, or when several or none
    are that near: the trace does not say."""
    if not cand or ts < 0 or d < 0:
        return None
    want = ts - d
    near = sorted(cand, key=lambda f: abs(f.ts - want))
    e0 = abs(near[0].ts - want)
    if e0 <= POOL_NEAR_NS and (
            len(near) == 1 or abs(near[1].ts - want) > e0 + POOL_MARGIN_NS):
        return near[0]
    return None


class TaskState:
    """One task's open calls (a chain, or a pool where lines of several
    CPUs mix), the calls waiting for their caller, and its off-CPU
    spans."""

    __slots__ = ("key", "top", "pool", "pending", "lines", "since",
                 "leaf", "last_ts", "out_since", "off_s", "off_e",
                 "switches", "ccpu", "lost_on", "lts", "lsw", "ldp")

    def __init__(self, key: str, pool: bool) -> None:
        self.key = key
        self.top: Optional[Call] = None
        self.pool: Optional[List[Call]] = [] if pool else None
        self.pending: Dict[int, List[Call]] = {}
        self.lines = 0
        self.since = 0          # LOST markers seen when its chain began
        self.leaf: Optional[Call] = None   # waits for the next line
        self.last_ts = -1
        self.out_since = -1
        self.off_s: List[int] = []
        self.off_e: List[int] = []
        self.switches = 0       # context switches out of it so far
        self.ccpu = ""          # the CPU of its last function line
        self.lost_on: List[str] = []    # CPUs that lost events since
        self.lts = -1           # stamp of its last function line
        self.lsw = 0            # its switches at that line
        self.ldp = 0            # the depth of that line

    def off_cpu(self, start: int, end: int) -> int:
        """How long the task was switched out within [start, end)."""
        off_s, off_e = self.off_s, self.off_e
        i = bisect.bisect_right(off_e, start)
        total = 0
        while i < len(off_s) and off_s[i] < end:
            total += min(off_e[i], end) - max(off_s[i], start)
            i += 1
        return total


class Pairing:
    """Matches entries and returns into calls; emit gets every call."""

    def __init__(self, info: TraceInfo, emit: Emit) -> None:
        self.info = info
        self.emit = emit
        # takes the leaves whose caller is open instead of emit, when
        # no one needs their start or their record (see leaf())
        self.emit_leaf: Optional[LeafEmit] = None
        self.tasks: Dict[str, TaskState] = {}
        self.pool_keys: Callable[[str], bool] = lambda key: False
        self.oncpu = False
        self.first_ts = 0
        self.lost_seq = 0
        self.next_id = 1
        self.named_returns = 0
        self.entries = 0        # counted here, in info at finish()
        self.leaves = 0
        self.returns = 0
        # starts are needed (timelines, slowest, a time window, on-CPU
        # time): a leaf then waits for the next line of its task
        self.want_start = True

    # ---- state -------------------------------------------------------
    def task(self, key: str) -> TaskState:
        st = self.tasks.get(key)
        if st is None:
            st = self.tasks[key] = TaskState(key, self.pool_keys(key))
        return st

    def to_pool(self, st: TaskState) -> None:
        """Lines of several CPUs turn out to mix in this task's lines."""
        if st.pool is not None:
            return
        self._settle(st, -1)
        pool = []
        top = st.top
        while top is not None:
            pool.append(top)
            top = top.up
        pool.reverse()
        st.pool = pool
        st.top = None

    def _orphan_call(self, st: TaskState, depth: int, name: Optional[str],
                     d: int, ts: int, cpu: str, line: int) -> Call:
        """The call of a return without its entry: it began at the
        return's stamp less its duration."""
        c = Call(self.next_id, name, st.key, cpu, depth, line)
        self.next_id += 1
        if name is None:
            self.info.unnamed_orphans += 1
            c.flags |= UNNAMED
        else:
            self.info.orphan_returns += 1
        c.dur = d if d >= 0 else 0
        c.start = ts - c.dur if ts >= 0 else -1
        return c

    def _done(self, st: TaskState, c: Call) -> None:
        """A call has its duration: give it, or let it wait."""
        if c.parent == PENDING:
            p = st.pending.get(c.depth)
            if p is None:
                p = st.pending[c.depth] = []
            p.append(c)
            return
        self._give(st, c)

    def _give(self, st: TaskState, c: Call) -> None:
        if self.oncpu and c.start >= 0 and c.dur >= 0:
            a = max(c.start, self.first_ts)
            e = c.start + c.dur
            if a < e:
                c.oncpu = e - a - (st.off_cpu(a, e) if st.off_s else 0)
        if c.parent == PENDING:
            c.parent = UNKNOWN
        if c.parent == UNKNOWN:
            self.info.unknown_callers += 1
        # its open caller (or the call it ran in) is there for the
        # consumer, not after
        self.emit(c)
        c.up = None

    def _settle(self, st: TaskState, t: int, cpu: str = "") -> None:
        """The task's next line, at t (-1: none), on cpu: the leaf
        before it began no later than t less its duration.  (Not when
        the line is on another CPU: after a migration, the kernel may
        print a call whose callees ran on the other CPU as a leaf.)"""
        c = st.leaf
        st.leaf = None
        if c is None:
            return
        if t >= 0 and c.dur >= 0 and cpu == c.cpu:
            s = t + CLIP_NS - c.dur
            if s < c.start:
                c.start = s
        self._done(st, c)

    def _end(self, st: TaskState, c: Call, flag: int) -> None:
        """An open call that gets no return: cut at a gap, or still
        open at the end."""
        c.flags |= flag
        c.start = c.ts
        if c.parent == PENDING:
            c.parent = UNKNOWN
        self._give(st, c)

    def _flush(self, st: TaskState) -> None:
        """Calls still waiting for a caller will not get one."""
        for depth in sorted(st.pending, reverse=True):
            for c in st.pending[depth]:
                c.parent = UNKNOWN
                self._give(st, c)
        st.pending = {}

    def cut(self, st: TaskState) -> None:
        """End the task's open calls at a gap in the trace."""
        self.info.cut_calls += self._end_open(st, CUT)
        self._flush(st)

    def _end_open(self, st: TaskState, flag: int) -> int:
        """End every call the task has open, marked FLAG; how many."""
        self._settle(st, -1)
        n = 0
        if st.pool is not None:
            for c in reversed(st.pool):
                self._end(st, c, flag)
                n += 1
            st.pool = []
        top = st.top
        st.top = None
        while top is not None:
            up = top.up
            self._end(st, top, flag)
            top = up
            n += 1
        return n

    def lost(self, cpu: str) -> None:
        """A LOST marker on cpu ("" when lines have no CPU column: every
        task may have lost lines)."""
        self.lost_seq += 1
        for st in self.tasks.values():
            if not (st.top is not None or st.pending or st.pool or
                    st.leaf is not None):
                continue
            if not cpu or st.ccpu == cpu or st.pool is not None:
                self.cut(st)
            elif cpu not in st.lost_on:
                # if it comes to that CPU next, it may have lost lines
                # there
                st.lost_on.append(cpu)

    def _moved(self, st: TaskState, cpu: str) -> None:
        """A line of the task on another CPU than its last one."""
        if cpu in st.lost_on:
            self.info.migrated_cuts += 1
            self.cut(st)
        st.lost_on = []
        st.ccpu = cpu

    # ---- on-CPU time ------------------------------------------------
    def switched_out(self, key: str) -> None:
        """A context-switch block takes the task off its CPU: a call
        that spans it may print less than its stamps span (its
        duration leaves the time switched out aside)."""
        st = self.tasks.get(key)
        if st is not None:
            st.switches += 1

    def switched(self, prev: str, nxt: str, t: int) -> None:
        """A context switch at about t: prev leaves the CPU, nxt comes
        on (off since its switch-out, or the start of the trace)."""
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
        if st.out_since >= 0:
            if st.out_since < t:
                st.off_s.append(st.out_since)
                st.off_e.append(t)
            st.out_since = -1
        st.last_ts = t

    # ---- the chain of open calls ------------------------------------
    def _unwind(self, st: TaskState, depth: int) -> Optional[Call]:
        """Open calls at depth >= depth lost their returns."""
        top = st.top
        while top is not None and top.depth >= depth:
            up = top.up
            self.info.missing_returns += 1
            self._end(st, top, CUT)
            top = up
        st.top = top
        return top

    def _under(self, st: TaskState, c: Call, ret: bool = False) -> None:
        """Set c's caller from the chain of open calls at its line (ret:
        c is a return, whose callees may be waiting one level deeper)."""
        top = st.top
        depth = c.depth
        if top is not None and top.depth >= depth:
            top = self._unwind(st, depth)
        if top is not None and top.depth + 1 < depth and \
                st.since != self.lost_seq:
            self.cut(st)
            top = None
        if top is None:
            if depth == 0:
                c.parent = ROOT
            else:
                # deeper waiting calls ran before this one: their
                # callers are not in the trace
                for dp in [dp for dp in st.pending if dp > depth + ret]:
                    for w in st.pending.pop(dp):
                        w.parent = UNKNOWN
                        self._give(st, w)
                st.since = self.lost_seq
        elif top.depth + 1 == depth:
            c.parent = top.id
            c.up = top
        else:
            c.parent = UNKNOWN
            c.anc = top.id
            c.up = top

    # ---- the function lines -----------------------------------------
    def enter(self, st: TaskState, depth: int, name: Optional[str], d: int,
              ts: int, cpu: str, line: int) -> None:
        """func() {   (ts in ns, -1 without time stamps; d is -1: the
        same arguments as leaf() and ret())"""
        if cpu != st.ccpu:
            self._moved(st, cpu)
        if st.leaf is not None:
            self._settle(st, ts, cpu)
        self.entries += 1
        sw = st.switches
        c = Call(self.next_id, name, st.key, cpu, depth, line, ts, -1,
                 PENDING, sw, self.lost_seq,
                 st.lts if st.lsw == sw and st.ldp <= depth else -1)
        self.next_id += 1
        st.lts = ts
        st.lsw = sw
        st.ldp = depth
        if st.pool is not None:
            self._pool_under(st, c)
            st.pool.append(c)
            return
        top = st.top
        if top is not None and top.depth + 1 == depth:
            c.parent = top.id
            c.up = top
        else:
            self._under(st, c)
        st.top = c

    def leaf(self, st: TaskState, depth: int, name: Optional[str], d: int,
             ts: int, cpu: str, line: int) -> None:
        """func();  d the printed duration in ns (-1: none)."""
        if cpu != st.ccpu:
            self._moved(st, cpu)
        if st.leaf is not None:
            self._settle(st, ts, cpu)
        self.leaves += 1
        st.lts = ts
        st.lsw = st.switches
        st.ldp = depth
        if d < 0:
            d = 0
        top = st.top
        if top is not None and top.depth + 1 == depth and \
                st.pool is None:
            # the common case of _under()
            top.child += d
            if self.emit_leaf is not None and \
                    self.emit_leaf(name, d, top):   # type: ignore[arg-type]
                # no record: the consumer only adds it up
                self.next_id += 1
                return
            c = Call(self.next_id, name, st.key, cpu, depth, line, ts, d,
                     top.id)
            c.up = top
            self.next_id += 1
            if ts >= 0 and self.want_start:
                st.leaf = c
            elif not self.oncpu:
                self.emit(c)
                c.up = None
            else:
                self._give(st, c)
            return
        c = Call(self.next_id, name, st.key, cpu, depth, line, ts, d)
        self.next_id += 1
        self._other_leaf(st, c)

    def _other_leaf(self, st: TaskState, c: Call) -> None:
        """A leaf whose caller is not the innermost open call one level
        up: its caller is decided as an entry's would be."""
        if st.pool is not None:
            self._pool_under(st, c)
            self._give(st, c)
            return
        self._under(st, c)
        if c.up is not None:
            c.up.child += c.dur
        if c.ts >= 0:
            st.leaf = c
        else:
            self._done(st, c)

    def ret(self, st: TaskState, depth: int, name: Optional[str], d: int,
            ts: int, cpu: str, line: int) -> None:
        """}  or  } /* name */ (name None for a bare brace)."""
        if cpu != st.ccpu:
            self._moved(st, cpu)
        if st.leaf is not None:
            self._settle(st, ts, cpu)
        st.lts = ts
        st.lsw = st.switches
        st.ldp = depth
        if st.pool is not None:
            self._pool_ret(st, depth, name, d, ts, cpu, line)
            return
        fr = st.top
        if fr is None or fr.depth != depth or \
                name is not None and fr.name != name or \
                d >= 0 and ts >= 0 and fr.ts >= 0 and (
                    fr.ts > ts or abs(ts - d - fr.ts) > CONTRA_NS):
            fr = self._entry_of(st, depth, name, d, ts, cpu, line)
            if fr is None:
                return
        st.top = fr.up
        if name is not None:
            self.named_returns += 1
        self.returns += 1
        self._close(st, fr, d, ts, line)

    def _entry_of(self, st: TaskState, depth: int, name: Optional[str],
                  d: int, ts: int, cpu: str, line: int) -> Optional[Call]:
        """The open entry that a return closes when it is not plainly
        the innermost one (ret()): the one at its depth, once the open
        calls deeper than the return have lost their returns.  None
        when the trace has no entry for it (the return is then an
        orphan): none open at its depth, one of another function (both
        halves were lost), or one that its stamps contradict (a gap,
        see _contradicts())."""
        fr = st.top
        if fr is not None and fr.depth > depth:
            fr = self._unwind(st, depth + 1)
        if fr is None or fr.depth != depth:
            self._orphan(st, depth, name, d, ts, cpu, line)
            return None
        if name is not None and fr.name != name:
            self.info.missing_returns += 1
            st.top = fr.up
            self._end(st, fr, CUT)
            self._orphan(st, depth, name, d, ts, cpu, line)
            return None
        if d >= 0 and ts >= 0 and fr.ts >= 0 and \
                self._contradicts(st, fr, name, d, ts, cpu):
            self.info.contradictions += 1
            self.cut(st)
            self._orphan(st, depth, name, d, ts, cpu, line)
            return None
        return fr

    def _contradicts(self, st: TaskState, fr: Call, name: Optional[str],
                     d: int, ts: int, cpu: str) -> bool:
        """Whether the stamps say that a return does not belong to the
        entry fr: the entry is after the return; or more than
        CONTRA_NS before the return's stamp less its duration; or
        more than CONTRA_NS after it while the task's line before the
        entry, not a deeper one, is after it too (an interrupt between
        a call and the writing of its entry makes the entry late, but
        its lines, one level deeper, come before the entry); in the
        first case, unless a context switch, or the return naming the
        entry's function with no line lost, explains it."""
        if fr.ts > ts:
            return True
        begin = ts - d
        if fr.ts + CONTRA_NS < begin:
            return self._unexplained(st, fr, name, cpu)
        return fr.ts - CONTRA_NS > begin and fr.prev > begin + CLIP_NS

    def _unexplained(self, st: TaskState, fr: Call, name: Optional[str],
                     cpu: str) -> bool:
        """An entry more than CONTRA_NS before its return's stamp less
        its duration: the two do not belong together, unless the task
        was switched out in between (the duration leaves that time
        aside), or the return names the entry's function and no line
        of the task can have been lost (no LOST marker since, same
        CPU: the scheduler ran inside the call)."""
        if fr.sw != st.switches:
            return False
        return name is None or fr.lost != self.lost_seq or fr.cpu != cpu

    def _close(self, st: TaskState, fr: Call, d: int, ts: int,
               line: int) -> None:
        fr.rline = line
        t0 = fr.ts
        if d < 0:
            d = ts - t0 if t0 >= 0 and ts >= t0 else 0
        fr.dur = d
        fr.start = t0
        if ts >= 0 and (t0 < 0 or ts + CLIP_NS - d < t0):
            fr.start = ts + CLIP_NS - d if t0 >= 0 else ts - d
        up = fr.up
        if up is not None:
            up.child += d
        if fr.parent == PENDING or self.oncpu:
            self._done(st, fr)
            return
        if fr.parent == UNKNOWN:
            self.info.unknown_callers += 1
        self.emit(fr)
        fr.up = None

    def _orphan(self, st: TaskState, depth: int, name: Optional[str],
                d: int, ts: int, cpu: str, line: int) -> None:
        """A return whose entry is not in the trace."""
        c = self._orphan_call(st, depth, name, d, ts, cpu, line)
        self._under(st, c, True)
        if c.up is not None:
            c.up.child += c.dur
        else:
            self._adopt(st, c, ts)
        self._done(st, c)

    def _adopt(self, st: TaskState, c: Call, end: int) -> None:
        """c has no open caller: the calls waiting one level deeper
        since the last return at c's depth are its callees when they
        ran inside it."""
        s = c.start

        def ran_inside(k: Call) -> bool:
            return k.start >= s - NEST_SLACK_NS and \
                k.start + k.dur <= end + NEST_SLACK_NS

        kids = st.pending.pop(c.depth + 1, None)
        for dp in sorted((dp for dp in st.pending if dp > c.depth + 1),
                         reverse=True):
            # their callers one level up are not in the trace; by time,
            # they ran inside c
            for w in st.pending.pop(dp):
                w.parent = UNKNOWN
                if s >= 0 and w.start >= 0 and ran_inside(w):
                    w.anc = c.id
                    c.child += w.dur
                self._give(st, w)
        if not kids:
            return
        for k in kids:
            if s < 0 or k.start < 0 or ran_inside(k):
                k.parent = c.id
                c.child += k.dur
            else:
                k.parent = UNKNOWN
            self._give(st, k)

    # ---- where lines of several CPUs mix -----------------------------
    def _pool_under(self, st: TaskState, c: Call) -> None:
        """The caller of a call whose lines mix with another CPU's: an
        open entry one level up may be the other CPU's, and its own
        caller's entry may not be in the trace: unknown (outermost at
        depth 0)."""
        c.parent = ROOT if c.depth == 0 else UNKNOWN

    def _pool_ret(self, st: TaskState, depth: int, name: Optional[str],
                  d: int, ts: int, cpu: str, line: int) -> None:
        """A return where lines of several CPUs mix: it closes the open
        entry that _pool_match() finds, else it has no known entry."""
        pool = st.pool
        assert pool is not None
        cand = [f for f in pool if f.depth == depth and
                (name is None or f.name == name) and
                (ts < 0 or f.ts <= ts)]
        fr = _pool_match(cand, d, ts)
        if fr is None:
            if cand:
                self.info.ambiguous += 1
            c = self._orphan_call(st, depth, name, d, ts, cpu, line)
            self._pool_under(st, c)
            self._give(st, c)
            return
        pool.remove(fr)
        if name is not None:
            self.named_returns += 1
        self.returns += 1
        self._close(st, fr, d, ts, line)

    # ---- end ---------------------------------------------------------
    def finish(self) -> None:
        """Calls still open at the end of the input."""
        info = self.info
        info.entries += self.entries
        info.leaves += self.leaves
        info.returns += self.returns
        self.entries = self.leaves = self.returns = 0
        for st in self.tasks.values():
            info.unfinished += self._end_open(st, UNFINISHED)
            self._flush(st)
            info.tasks[st.key] = st.lines
        info.tail = self.named_returns * 2 > info.returns
        info.returns += info.orphan_returns
