# SPDX-License-Identifier: GPL-2.0
"""Analyses over the per-task call trees built by the parser."""

from __future__ import annotations

import array
import fnmatch
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from .model import (BIG, COUNT, KIDS, LOCAL, MAX, MIN, NAME, TOTAL, Node,
                    FuncStats, add_node_stats, new_node, task_name)

Roots = Dict[str, Node]
# Timestamps have whole microseconds: a callee may seem to outlast its
# caller by less than this through rounding alone.
CLIP_NS = 1000


def walk(node: Node, path: Tuple[str, ...] = ()) -> Iterator[
        Tuple[Tuple[str, ...], Node]]:
    """Yield (path, node) for every node below node, depth first.
    Iterative, so deep stacks do not hit the recursion limit."""
    todo: List[Tuple[Tuple[str, ...], Node]] = [
        (path + (k,), n) for k, n in reversed(list(node[KIDS].items()))]
    while todo:
        p, n = todo.pop()
        yield p, n
        kids = n[KIDS]
        if kids:
            todo.extend((p + (k,), c) for k, c in reversed(list(kids.items())))


def func_stats(roots: Roots) -> Dict[str, FuncStats]:
    """Per-function totals: every call counted once, recursion
    included (a recursive function's total can exceed wall time)."""
    out: Dict[str, FuncStats] = {}
    for root in roots.values():
        todo = list(root[KIDS].values())
        while todo:
            n = todo.pop()
            if n[COUNT]:
                fs = out.get(n[NAME])
                if fs is None:
                    fs = out[n[NAME]] = FuncStats(n[NAME])
                fs.add(n[COUNT], n[TOTAL], n[MIN], n[MAX], n[LOCAL])
            todo.extend(n[KIDS].values())
    return out


def matcher(patterns: Optional[Sequence[str]]):  # type: ignore[no-untyped-def]
    """A predicate for function names from shell globs."""
    if not patterns:
        return lambda name: True
    pats = list(patterns)
    plain = {p for p in pats if not any(c in p for c in "*?[")}
    globs = [p for p in pats if p not in plain]

    def match(name: str) -> bool:
        if name in plain:
            return True
        return any(fnmatch.fnmatchcase(name, g) for g in globs)
    return match


def relations(roots: Roots, func: str) -> Tuple[
        Dict[str, FuncStats], Dict[str, FuncStats], FuncStats]:
    """Callers of func (with the stats of func's calls from each) and
    callees of func (with the stats of their calls made from func)."""
    callers: Dict[str, FuncStats] = {}
    callees: Dict[str, FuncStats] = {}
    me = FuncStats(func)
    for root in roots.values():
        todo = [(n, "") for n in root[KIDS].values()]
        while todo:
            n, parent = todo.pop()
            if n[NAME] == func:
                if n[COUNT]:
                    me.add(n[COUNT], n[TOTAL], n[MIN], n[MAX], n[LOCAL])
                    key = parent or "(root)"
                    fs = callers.get(key)
                    if fs is None:
                        fs = callers[key] = FuncStats(key)
                    fs.add(n[COUNT], n[TOTAL], n[MIN], n[MAX], n[LOCAL])
                for c in n[KIDS].values():
                    if c[COUNT]:
                        fs = callees.get(c[NAME])
                        if fs is None:
                            fs = callees[c[NAME]] = FuncStats(c[NAME])
                        fs.add(c[COUNT], c[TOTAL], c[MIN], c[MAX],
                               c[LOCAL])
            todo.extend((c, n[NAME]) for c in n[KIDS].values())
    return callers, callees, me


def top_callees(roots: Roots) -> Dict[str, Dict[str, int]]:
    """For every function, how many times it called each callee."""
    out: Dict[str, Dict[str, int]] = {}
    for root in roots.values():
        todo = list(root[KIDS].values())
        while todo:
            n = todo.pop()
            kids = n[KIDS]
            if kids:
                d = out.setdefault(n[NAME], {})
                for c in kids.values():
                    if c[COUNT]:
                        d[c[NAME]] = d.get(c[NAME], 0) + c[COUNT]
                todo.extend(kids.values())
    return out


def _add_tree(dst: Node, src: Node) -> None:
    add_node_stats(dst, src)
    todo = [(dst, src)]
    while todo:
        d, s = todo.pop()
        for k, sn in s[KIDS].items():
            dn = d[KIDS].get(k)
            if dn is None:
                dn = d[KIDS][k] = new_node(k)
            add_node_stats(dn, sn)
            todo.append((dn, sn))


def merged_tree(roots: Roots, func: Optional[str] = None) -> Node:
    """One tree: all tasks merged; with func, the merged subtrees of the
    outermost calls of func (a recursive call is not counted twice)."""
    top = new_node(func or "")
    if func is None:
        for root in roots.values():
            for k, n in root[KIDS].items():
                dn = top[KIDS].get(k)
                if dn is None:
                    dn = top[KIDS][k] = new_node(k)
                _add_tree(dn, n)
        top[COUNT] = 0
        top[TOTAL] = sum(n[TOTAL] for n in top[KIDS].values())
        return top
    for root in roots.values():
        todo = list(root[KIDS].values())
        while todo:
            n = todo.pop()
            if n[NAME] == func:
                _add_tree(top, n)
                continue
            todo.extend(n[KIDS].values())
    return top


def backtraces(roots: Roots, func: str) -> List[Tuple[Tuple[str, ...],
                                                      int, int]]:
    """Distinct call paths that lead to func: (path, count, total)."""
    acc: Dict[Tuple[str, ...], List[int]] = {}
    for root in roots.values():
        for path, n in walk(root):
            if n[NAME] == func and n[COUNT] and func not in path[:-1]:
                v = acc.setdefault(path, [0, 0])
                v[0] += n[COUNT]
                v[1] += n[TOTAL]
    out = [(p, v[0], v[1]) for p, v in acc.items()]
    out.sort(key=lambda t: (-t[2], t[0]))
    return out


def folded(roots: Roots, weight: str = "time", by_task: bool = False,
           focus: Optional[str] = None) -> Iterator[Tuple[str, int]]:
    """Folded stacks: (a;b;c, value).  With weight "time" the value is
    the local time in ns of calls on exactly that stack, with "count"
    the number of those calls."""
    agg: Dict[str, int] = {}
    for task, root in roots.items():
        prefix: Tuple[str, ...] = (task_name(task),) if by_task else ()
        for path, n in walk(root, prefix):
            if not n[COUNT]:
                continue
            if focus is not None and focus not in path:
                continue
            v = n[LOCAL] if weight == "time" else n[COUNT]
            if v <= 0:
                continue
            key = ";".join(path)
            agg[key] = agg.get(key, 0) + v
    for k in sorted(agg):
        yield k, agg[k]


class Timeline:
    """Calls with start and end times, per track, in compact arrays.

    Timeline outputs hold one record per counted call (about 40 bytes);
    use --min-dur or a time window to bound very long traces."""

    def __init__(self, by: str = "task") -> None:
        self.by = by
        self.names: Dict[str, int] = {}
        self.name_list: List[str] = []
        self.tracks: Dict[str, Tuple["array.array[int]", ...]] = {}
        self.start = BIG
        self.end = 0
        self.clipped = 0

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
        if start < self.start:
            self.start = start
        if end > self.end:
            self.end = end

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

    def nested(self, track: str) -> List[List[int]]:
        """The track's calls as [start, end, level, fid] in start order,
        adjusted so that they nest and never go back in time: a call
        starts no earlier than the previous event on the track and ends
        no earlier than its last callee.  Timestamps are printed in
        whole microseconds while durations keep nanoseconds, so raw
        intervals can overlap by a fraction of a microsecond; these
        adjustments are at most that large on a clean trace.  The level
        is the nesting level on the track, counted from 0.  A call that
        ends more than CLIP_NS after its caller's end (an inconsistent
        duration, not rounding) is cut to its caller's end and counted
        in self.clipped."""
        s, e, dp, f = self.tracks[track]
        order = sorted(range(len(s)), key=lambda i: (s[i], dp[i], -e[i]))
        out: List[List[int]] = []
        stack: List[Tuple[int, List[int]]] = []   # (depth, record)
        cursor = -BIG
        for i in order:
            d = dp[i]
            while stack and stack[-1][0] >= d:
                rec = stack.pop()[1]
                if rec[1] < cursor:
                    rec[1] = cursor
                cursor = rec[1]
            st = s[i] if s[i] > cursor else cursor
            en = e[i]
            if stack and en > stack[-1][1][1] + CLIP_NS:
                # ends well after its caller returned: a bad duration
                # in the trace; cut it to the caller's end
                en = stack[-1][1][1]
                self.clipped += 1
            rec = [st, en if en > st else st, len(stack), f[i]]
            out.append(rec)
            stack.append((d, rec))
            cursor = st
        while stack:
            rec = stack.pop()[1]
            if rec[1] < cursor:
                rec[1] = cursor
            cursor = rec[1]
        return out


def diff_stats(a: Dict[str, FuncStats], b: Dict[str, FuncStats]
               ) -> List[Tuple[str, FuncStats, FuncStats]]:
    out = []
    for name in sorted(set(a) | set(b)):
        out.append((name, a.get(name) or FuncStats(name),
                    b.get(name) or FuncStats(name)))
    return out


def ordered_folded(tl: Timeline, by_task: bool = True
                   ) -> Iterator[Tuple[str, int]]:
    """Folded stacks in time order, for `flamegraph.pl --flamechart`:
    each track's time cut into slices during which the same stack was
    running, (stack, ns) per slice, consecutive equal stacks merged.
    Time a task spent outside traced functions is left out."""
    names = tl.name_list
    for track in sorted(tl.tracks, key=lambda t: min(tl.tracks[t][0])):
        prefix = [task_name(track)] if by_task else []
        stack: List[List[int]] = []
        path: List[str] = []
        t = 0
        last_key = ""
        acc = 0

        def emit(until: int) -> Iterator[Tuple[str, int]]:
            nonlocal t, last_key, acc
            if until > t and path:
                key = ";".join(prefix + path)
                if key == last_key:
                    acc += until - t
                else:
                    if last_key and acc:
                        yield last_key, acc
                    last_key, acc = key, until - t
            if until > t:
                t = until

        for rec in tl.nested(track):
            while stack and stack[-1][2] >= rec[2]:
                yield from emit(stack[-1][1])
                stack.pop()
                path.pop()
            yield from emit(rec[0])
            t = max(t, rec[0])
            stack.append(rec)
            path.append(names[rec[3]])
        while stack:
            yield from emit(stack[-1][1])
            stack.pop()
            path.pop()
        if last_key and acc:
            yield last_key, acc
