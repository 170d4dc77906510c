# SPDX-License-Identifier: GPL-2.0
"""Timelines: the calls of the pairing core at their own time.

Every call is drawn at the start its own lines give (see pairing.py)
with the duration the kernel printed.  A call is drawn inside another
only when the other is its caller, or a call it is known to have run
inside, and it fits there (to the microsecond of the time stamps:
within that, a call is moved by at most CLIP_NS).  A call that cannot
be drawn so goes to another lane of its track ("task (2)"): a call is
never moved to make it nest.  Calls that never returned are drawn to
the end of the trace and flagged OPEN; calls that began before the
first time stamp start where their return says, and are flagged
BEFORE.
"""

from __future__ import annotations

import array
import bisect
import heapq
from typing import (Dict, Iterator, List, NamedTuple, Optional, Sequence,
                    Tuple)

from .model import BIG
from .tasks import pid_of, task_name
from .pairing import CLIP_NS, UNFINISHED, Call

# Flags of a placed call.
BEFORE = 1      # began before the first line of the trace
OPEN = 2        # never returned: drawn to the end of the trace

class Placed(NamedTuple):
    """One call placed in a lane."""

    start: int      # ns
    end: int        # ns, as drawn
    level: int      # 0: the outermost in its lane
    fid: int        # the function (Timeline.name_list)
    flags: int      # BEFORE, OPEN
    dur: int        # printed duration in ns, -1 when it never returned


class Track:
    """The calls of one track, in compact arrays."""

    __slots__ = ("s", "d", "f", "up", "flags", "kids")

    def __init__(self) -> None:
        self.s = array.array("q")       # start, ns
        self.d = array.array("q")       # printed duration, -1: open
        self.f = array.array("i")       # function (Timeline.name_list)
        # the index in the track of its caller, else of the call it ran
        # in (-1: none in the track)
        self.up = array.array("i")
        self.flags = array.array("b")
        # call id -> the indices of its callees added so far (the core
        # gives callees before their caller)
        self.kids: Dict[int, List[int]] = {}

    def extend(self, o: "Track") -> None:
        """Append the calls of o (their callers are in o)."""
        off = len(self.s)
        self.s.extend(o.s)
        self.d.extend(o.d)
        self.f.extend(o.f)
        self.up.extend(array.array("i", (u + off if u >= 0 else -1
                                         for u in o.up)))
        self.flags.extend(o.flags)

    def __len__(self) -> int:
        return len(self.s)


class Lane:
    """The placed calls of one lane, in arrays; iterating gives Placed
    tuples."""

    __slots__ = ("a", "e", "lvl", "f", "flags", "d")

    def __init__(self) -> None:
        self.a = array.array("q")
        self.e = array.array("q")
        self.lvl = array.array("i")
        self.f = array.array("i")
        self.flags = array.array("b")
        self.d = array.array("q")

    def add(self, a: int, e: int, lvl: int, f: int, flags: int,
            d: int) -> None:
        self.a.append(a)
        self.e.append(e)
        self.lvl.append(lvl)
        self.f.append(f)
        self.flags.append(flags)
        self.d.append(d)

    def __len__(self) -> int:
        return len(self.a)

    def wider(self, width: float, span: int, min_px: float) -> "Lane":
        """The calls at least min_px wide when span is width pixels."""
        out = Lane()
        a, e = self.a, self.e
        for i in range(len(a)):
            if (e[i] - a[i]) * width / span >= min_px:
                out.add(a[i], e[i], self.lvl[i], self.f[i], self.flags[i],
                        self.d[i])
        return out

    def __getitem__(self, i: int) -> Placed:
        return Placed(self.a[i], self.e[i], self.lvl[i], self.f[i],
                      self.flags[i], self.d[i])

    def __iter__(self) -> Iterator[Placed]:
        return map(Placed._make, self.rows())

    def rows(self) -> Iterator[Tuple[int, int, int, int, int, int]]:
        """The placed calls as plain tuples in Placed's order, for the
        loops that write every call (quicker than Placed records)."""
        return zip(self.a, self.e, self.lvl, self.f, self.flags, self.d)


SORT_CHUNK = 1 << 16


def start_order(ts: "array.array[int]", td: "array.array[int]",
                end_all: int) -> "array.array[int]":
    """The indices of the calls by start, the longer of two calls with
    one start first, then by index.  A million calls would take a
    list of a million keys: sorted in chunks into arrays of packed
    (start, index) keys, merged, and runs of one start put longest
    first."""
    n = len(ts)
    if not n:
        return array.array("i")
    sh = max(n, 2).bit_length()
    base = min(ts)
    mask = (1 << sh) - 1

    def dur(i: int) -> int:
        return td[i] if td[i] >= 0 else max(end_all - ts[i], 0)

    if (max(ts) - base) >> (62 - sh):
        # too long a span to pack: one list of keys
        big = (1 << 40) - 1
        keys = [((((ts[i] - base) << 40) + big - min(dur(i), big)) << sh) |
                i for i in range(n)]
        keys.sort()
        return array.array("i", (k & mask for k in keys))
    runs = []
    for lo in range(0, n, SORT_CHUNK):
        run = [((ts[i] - base) << sh) | i
               for i in range(lo, min(n, lo + SORT_CHUNK))]
        run.sort()
        runs.append(array.array("q", run))
        del run
    order = array.array("i", (k & mask for k in heapq.merge(*runs)))
    del runs
    # a run of calls with one start: the longest first
    i = 0
    while i < n - 1:
        j = i + 1
        s0 = ts[order[i]]
        while j < n and ts[order[j]] == s0:
            j += 1
        if j - i > 1:
            order[i:j] = array.array("i", sorted(
                order[i:j], key=lambda k: (-dur(k), k)))
        i = j
    return order


def _inside(upi: "array.array[int]", i: int, j: int) -> bool:
    """Whether call j is i's caller, or one it ran in."""
    k = upi[i]
    while k >= 0:
        if k == j:
            return True
        k = upi[k]
    return False


def _lanes_of(upi: "array.array[int]", lane_of: "array.array[int]",
              i: int) -> set[int]:
    """The lanes of the callers of call i, and of the calls it ran in."""
    mine = set()
    k = upi[i]
    while k >= 0:
        mine.add(lane_of[k])
        k = upi[k]
    return mine


def _fit(i: int, s0: int, dur: int, stack: List[Tuple[int, int, int]],
         upi: "array.array[int]", done: List[int],
         li: int) -> Optional[int]:
    """Where call i (at s0, dur long) starts in a lane with this stack
    of open calls, which loses the calls that ended before it: at s0,
    or up to CLIP_NS off to fit in its caller or after a sibling that
    seems to end after it began, by the rounding of the stamps; None
    when the lane cannot take it (the innermost open call is not one
    it ran in, or it does not fit)."""
    a = s0
    while stack and stack[-1][1] <= a:
        done[li] = max(done[li], stack.pop()[1])
    while stack and stack[-1][1] - s0 <= CLIP_NS and \
            not _inside(upi, i, stack[-1][2]):
        a = max(a, stack[-1][1])
        done[li] = max(done[li], stack.pop()[1])
        while stack and stack[-1][1] <= a:
            done[li] = max(done[li], stack.pop()[1])
    if not stack:
        return a
    ps, pe, pj = stack[-1]
    if upi[i] != pj and not _inside(upi, i, pj):
        return None
    if a < ps:
        if ps - s0 > CLIP_NS:
            return None
        a = ps
    e = a + dur
    if e > pe:
        over = e - pe
        if a - over < max(ps, done[li]) or s0 - (a - over) > CLIP_NS:
            return None
        a -= over
    return a


class Timeline:
    """Calls with start and duration, per track (task, or task on a
    CPU), laid out in lanes by lanes()."""

    def __init__(self, by: str = "task") -> None:
        self.by = by
        self.names: Dict[str, int] = {}
        self.name_list: List[str] = []
        self.tracks: Dict[str, Track] = {}
        self.start = BIG
        self.end = 0
        self.moved = 0          # calls drawn up to CLIP_NS off
        self.open = 0           # calls drawn to the end of the trace
        self.before = 0         # calls that began before the first line
        self.first_ts: Optional[int] = None

    def track_of(self, c: Call) -> str:
        if self.by == "task":
            return c.task
        return "CPU %s: %s" % (c.cpu or "?", task_name(c.task))

    def add(self, c: Call) -> None:
        """A call of the pairing core (with its start known)."""
        key = c.task if self.by == "task" else self.track_of(c)
        t = self.tracks.get(key)
        if t is None:
            t = self.tracks[key] = Track()
        name = c.name if c.name is not None else "(unknown)"
        fid = self.names.get(name)
        if fid is None:
            fid = self.names[name] = len(self.name_list)
            self.name_list.append(name)
        i = len(t.s)
        start = c.start
        t.s.append(start)
        if c.flags & UNFINISHED:
            t.d.append(-1)
            t.flags.append(OPEN)
            e = start
        else:
            t.d.append(c.dur)
            t.flags.append(0)
            e = start + c.dur
        t.f.append(fid)
        t.up.append(-1)
        kids = t.kids.pop(c.id, None)
        if kids is not None:
            up = t.up
            for k in kids:
                up[k] = i
        p = c.parent
        if p <= 0:
            p = c.anc
        if p > 0:
            w = t.kids.get(p)
            if w is None:
                t.kids[p] = [i]
            else:
                w.append(i)
        if start < self.start:
            self.start = start
        if e > self.end:
            self.end = e

    def set_bounds(self, first_ts: Optional[int],
                   last_ts: Optional[int]) -> None:
        """The axis: from the earlier of the first time stamp and the
        first call's start to the end of the trace."""
        self.first_ts = first_ts
        if first_ts is not None and first_ts < self.start:
            self.start = first_ts
        if last_ts is not None and last_ts > self.end:
            self.end = last_ts

    def window(self, lo: int, hi: int) -> "Timeline":
        """A copy with the calls that overlap [lo, hi)."""
        out = Timeline(self.by)
        out.names = dict(self.names)
        out.name_list = list(self.name_list)
        out.first_ts = self.first_ts
        for key, t in self.tracks.items():
            o: Optional[Track] = None
            new = array.array("i", [-1]) * len(t)
            for i in range(len(t)):
                e = t.s[i] + t.d[i] if t.d[i] >= 0 else self.end
                if t.s[i] >= hi or e <= lo:
                    continue
                if o is None:
                    o = out.tracks[key] = Track()
                new[i] = len(o.s)
                for src, dst in ((t.s, o.s), (t.d, o.d), (t.f, o.f),
                                 (t.up, o.up), (t.flags, o.flags)):
                    dst.append(src[i])
                out.start = min(out.start, t.s[i])
                out.end = max(out.end, e)
            if o is not None:
                up = o.up
                for k in range(len(up)):
                    if up[k] >= 0:
                        up[k] = new[up[k]]
        out.end = max(out.end, min(self.end, hi))
        return out

    def lanes(self, key: str) -> List["Lane"]:
        """The track's calls laid out in lanes, each lane's calls in
        time order, callers before callees, level counted from 0.
        Arrays, not lists of tuples: a track may hold a million calls.

        Calls are placed in the order of their start, each in the
        first lane that takes it (see _fit()).  A lane whose outermost
        call goes on past the call's start (by more than the rounding
        of the stamps) takes it only above a call it ran in: only the
        lanes of its placed callers are tried then."""
        t = self.tracks[key]
        end_all = self.end
        first = self.first_ts
        ts, td, upi = t.s, t.d, t.up
        lanes: List[Lane] = []
        stacks: List[List[Tuple[int, int, int]]] = []   # (start, end, j)
        done: List[int] = []        # per lane: the end of its last call
        bottom: List[int] = []      # per lane: its outermost call's end
        lane_of = array.array("i", [-1]) * len(t)
        for i in start_order(ts, td, end_all):
            s0 = ts[i]
            dur = td[i] if td[i] >= 0 else max(end_all - s0, 0)
            flags = int(t.flags[i])
            if first is not None and s0 < first:
                flags |= BEFORE
                self.before += 1
            if flags & OPEN:
                self.open += 1
            mine: Optional[set[int]] = None     # the lanes of its callers
            limit = s0 + CLIP_NS
            for li, stack in enumerate(stacks):
                if bottom[li] > limit:
                    if mine is None:
                        mine = _lanes_of(upi, lane_of, i)
                    if li not in mine:
                        continue
                a = _fit(i, s0, dur, stack, upi, done, li)
                if a is None:
                    continue
                if not stack:
                    bottom[li] = 0
                lane = lanes[li]
                if len(lane) and a < lane.a[-1]:
                    continue        # a lane's calls stay in time order
                if a != s0:
                    self.moved += 1
                if not stack:
                    bottom[li] = a + dur
                lane.add(a, a + dur, len(stack), t.f[i], flags, td[i])
                stack.append((a, a + dur, i))
                lane_of[i] = li
                break
            else:
                lane_of[i] = len(stacks)
                stacks.append([(s0, s0 + dur, i)])
                bottom.append(s0 + dur)
                done.append(0)
                lane = Lane()
                lane.add(s0, s0 + dur, 0, t.f[i], flags, td[i])
                lanes.append(lane)
        return lanes

    def lane_items(self, keys: Optional[List[str]] = None
                   ) -> Iterator[Tuple[str, str, "Lane"]]:
        """(track, lane label, placed calls) for every lane."""
        for key in keys if keys is not None else list(self.tracks):
            for k, recs in enumerate(self.lanes(key)):
                label = key if k == 0 else "%s (%d)" % (key, k + 1)
                yield key, label, recs


class Tracks:
    """The first lane of every track of each pid, as sorted lists,
    for the stack of a thread at a moment and its calls in an interval
    (the boot holds and the boot stacks)."""

    def __init__(self, tl: Timeline) -> None:
        self.tl = tl
        self.by_pid: Dict[int, List[str]] = {}
        for key in tl.tracks:
            self.by_pid.setdefault(pid_of(key), []).append(key)
        self.cache: Dict[str, Tuple[List[int], List[Placed]]] = {}
        self.first: Dict[int, int] = {}
        for pid, keys in self.by_pid.items():
            self.first[pid] = min(min(tl.tracks[k].s) for k in keys
                                  if len(tl.tracks[k].s))

    def _lane(self, key: str) -> Tuple[List[int], List[Placed]]:
        """The starts and the placed calls of the first lane of a
        track."""
        got = self.cache.get(key)
        if got is None:
            lanes = self.tl.lanes(key)
            recs = list(lanes[0]) if lanes else []
            got = self.cache[key] = ([r.start for r in recs], recs)
        return got

    def keys(self, pid: int, t: int) -> List[str]:
        """The tracks of a pid; the one with records nearest before t
        first (a pid renamed by exec has one track per name)."""
        keys = self.by_pid.get(pid, [])
        if len(keys) < 2:
            return keys

        def last_before(k: str) -> int:
            starts = self._lane(k)[0]
            i = bisect.bisect_right(starts, t)
            return starts[i - 1] if i else -1
        return sorted(keys, key=lambda k: -last_before(k))

    def stack_at(self, pid: int, t: int) -> List[str]:
        """The names of the calls of pid running at t, outermost first."""
        names = self.tl.name_list
        for key in self.keys(pid, t):
            starts, recs = self._lane(key)
            i = bisect.bisect_right(starts, t) - 1
            want = 1 << 30
            out: List[str] = []
            while i >= 0 and want > 0:
                r = recs[i]
                if r.level < want and r.end > t:
                    out.append(names[r.fid])
                    want = r.level
                i -= 1
            if out:
                return out[::-1]
        return []

    def segments(self, pid: int, a: int, b: int
                 ) -> Iterator[Tuple[int, int, List[str]]]:
        """(start, end, stack) pieces of [a, b) in which the innermost
        running call of pid is one call; [] where it is in none."""
        keys = self.keys(pid, b)
        if keys:
            yield from self.lane_segments(keys[0], a, b)
        else:
            yield from sweep([], a, b, self.tl.name_list)

    def lane_segments(self, key: str, a: int, b: int
                      ) -> Iterator[Tuple[int, int, List[str]]]:
        """segments() of one track: the calls running at a, then those
        that start inside [a, b)."""
        starts, lane = self._lane(key)
        hi = bisect.bisect_left(starts, b)
        lo = bisect.bisect_left(starts, a)
        i = lo - 1
        want = 1 << 30
        anc: List[Placed] = []
        while i >= 0 and want > 0:
            r = lane[i]
            if r.level < want and r.end > a:
                anc.append(r)
                want = r.level
            i -= 1
        yield from sweep(anc[::-1] + lane[lo:hi], a, b, self.tl.name_list)


def sweep(recs: Sequence[Placed], a: int, b: int,
          names: List[str]) -> Iterator[Tuple[int, int, List[str]]]:
    """Nested records in start order, clipped to [a, b): the pieces in
    which the innermost record is one record, with its stack."""
    stack: List[Placed] = []
    t = a

    def emit(stop: int) -> Iterator[Tuple[int, int, List[str]]]:
        nonlocal t
        stop = min(stop, b)
        if stop > t:
            yield t, stop, [names[r.fid] for r in stack]
            t = stop

    for r in recs:
        if r.start >= b:
            break
        while stack and (stack[-1].end <= r.start or
                         stack[-1].level >= r.level):
            yield from emit(stack[-1].end)
            stack.pop()
        yield from emit(r.start)
        stack.append(r)
    while stack:
        yield from emit(stack[-1].end)
        stack.pop()
    yield from emit(b)
