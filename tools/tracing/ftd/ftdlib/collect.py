# SPDX-License-Identifier: GPL-2.0
"""What the views keep of the pairing core's calls: per-function
totals, call trees per task, a timeline, or every call as it comes.

A call tree has one node per distinct call path: the callees of a
call are those whose caller it is.  A call whose caller is UNKNOWN
goes under an "(unknown)" node: at the task's root, or below the call
it is known to have run inside.  Calls without a duration (cut at a
gap, unfinished) are not counted; their nodes keep their callees."""

from __future__ import annotations

import fnmatch
from typing import Callable, Dict, Optional, Tuple, cast

from .model import FuncStats, Node, add_node_stats, new_node
from .pairing import (CUT, PENDING, ROOT, UNFINISHED, UNNAMED, Call,
                      LeafEmit)
from .tasks import comm_pid, is_idle
from .timeline import Timeline, Track

UNKNOWN_NAME = "(unknown)"
NOT_COUNTED = UNFINISHED | CUT | UNNAMED


def merge_kids(dst: Dict[str, Node], src: Dict[str, Node]) -> None:
    """Add the subtrees in src into dst."""
    todo = [(dst, src)]
    while todo:
        d, s = todo.pop()
        for name, node in s.items():
            have = d.get(name)
            if have is None:
                d[name] = node
                continue
            add_node_stats(have, node)
            if node.kids:
                todo.append((have.kids, node.kids))


def count_call(n: Node, d: int, child: int) -> None:
    """Count one call of n's function that took d, child of it in its
    callees."""
    n.count += 1
    n.total += d
    if d < n.min:
        n.min = d
    if d > n.max:
        n.max = d
    n.local += d - child


class Filters:
    """Which lines and which calls count."""

    def __init__(self) -> None:
        self.cpus: Optional[set[int]] = None
        self.pids: Optional[set[int]] = None
        self.tasks: Optional[list[str]] = None
        self.t_start: Optional[int] = None
        self.t_end: Optional[int] = None
        self.min_dur: int = 0
        self.max_depth: Optional[int] = None
        # leave out the idle tasks' calls (report -s oncpu, when the
        # user chose no tasks): checked on each call, not each line
        self.drop_idle = False

    def line_filter(self) -> bool:
        return (self.cpus is not None or self.pids is not None or
                self.tasks is not None)

    def call_filter(self) -> bool:
        return (self.t_start is not None or self.t_end is not None or
                self.min_dur > 0 or self.max_depth is not None)

    def keep_task(self, task: str) -> bool:
        comm, pid = comm_pid(task)     # a task's name, not key
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

    def keep(self, c: Call) -> bool:
        if self.min_dur and c.dur < self.min_dur:
            return False
        if self.max_depth is not None and c.depth > self.max_depth:
            return False
        if self.t_start is not None and (c.start < 0 or
                                         c.start < self.t_start):
            return False
        if self.t_end is not None and (c.start < 0 or c.start >= self.t_end):
            return False
        return True


class Collector:
    """The consumer of the pairing core's calls."""

    def __init__(self, filters: Filters, flat: bool,
                 timeline: Optional[Timeline] = None) -> None:
        self.filters = filters
        self.check = filters.call_filter()
        self.flat: Optional[Dict[str, Node]] = {} if flat else None
        self.flat_get: Callable[[Optional[str]], Optional[Node]] = \
            cast(Callable[[Optional[str]], Optional[Node]],
                 ({} if self.flat is None else self.flat).get)
        self.roots: Dict[str, Node] = {}
        self.waiting: Dict[int, Dict[str, Node]] = {}
        # open call id -> its node, and the "(unknown)" node above it:
        # made when a callee is done, so that callees go straight to
        # their place in the tree (see _open_node())
        self.open_nodes: Dict[int, Tuple[Node, Optional[Node]]] = {}
        self.timeline = timeline
        self.call_sink: Optional[Callable[[Call], None]] = None
        # the functions whose calls call_sink wants (None: all)
        self.sink_names: Optional[Callable[[str], bool]] = None
        # every call with a start, the unfinished ones too
        self.every: Optional[Callable[[Call], None]] = None
        self.drop_idle = filters.drop_idle
        self._idle: Dict[str, bool] = {}    # task key -> is_idle()
        self._flat_add = self._plain_flat(True)

    def root(self, task: str) -> Node:
        r = self.roots.get(task)
        if r is None:
            r = self.roots[task] = Node("")
        return r

    def consumer(self, oncpu: bool = False) -> Callable[[Call], None]:
        """The fastest way to take the calls, for what is wanted."""
        if self.drop_idle:
            if self.flat is not None and self.call_sink is None and \
                    self.timeline is None and self.every is None and \
                    not self.check:
                return self._plain_flat(oncpu, True)
            return self._busy_call
        if self.every is not None or self.check:
            return self
        sink = self.call_sink
        if sink is not None:
            if self.flat is None or self.timeline is not None:
                return self
            flat_ = self._plain_flat(oncpu)

            def sink_flat(c: Call) -> None:
                """__call__() for a call sink and per-function totals."""
                if not c.flags & NOT_COUNTED:
                    sink(c)
                flat_(c)
            return sink_flat
        if self.flat is None:
            if self.timeline is not None:
                return self
            tree = self._tree

            def plain_tree(c: Call) -> None:
                """__call__() for the call trees and nothing else."""
                tree(c, not c.flags & NOT_COUNTED)
            return plain_tree
        flat = self._plain_flat(oncpu)
        tl = self.timeline
        if tl is None:
            return flat
        add = tl.add

        def timeline_flat(c: Call) -> None:
            """__call__() for a timeline and per-function totals."""
            if c.start >= 0 and (not c.flags & NOT_COUNTED or
                                 c.flags & (UNFINISHED | UNNAMED)):
                add(c)
            flat(c)
        return timeline_flat

    def leaf_consumer(self) -> Optional[LeafEmit]:
        """What takes a leaf whose caller is open, without a Call
        record, when only totals or call trees are kept, or the call
        sink wants only some functions (sink_names) and this is not
        one of them: it gets the leaf's name, its duration and its
        caller, and says whether it took it (see Pairing.leaf()).
        Only then: no one needs the start of the leaves it takes."""
        if self.every is not None or self.check or \
                self.timeline is not None or self.drop_idle:
            return None
        names = self.sink_names
        if self.call_sink is None:
            return self._tree_leaf() if self.flat is None else \
                self._flat_leaf()
        if names is None or self.flat is None:
            return None
        flat_leaf = self._flat_leaf()

        def sink_leaf(name: str, d: int, up: Call) -> bool:
            """A leaf of a function that the call sink does not want."""
            return not names(name) and flat_leaf(name, d, up)
        return sink_leaf

    def _flat_node(self, name: str) -> Node:
        assert self.flat is not None
        n = self.flat[name] = Node(name, self.flat)
        return n

    def _busy_call(self, c: Call) -> None:
        """__call__() for the calls of the tasks that are not idle."""
        if not self._idle_task(c.task):
            self(c)

    def _idle_task(self, task: str) -> bool:
        """Whether a call's task is an idle task (kept per key)."""
        v = self._idle.get(task)
        if v is None:
            v = self._idle[task] = is_idle(task)
        return v

    def _plain_flat(self, oncpu: bool,
                    drop_idle: bool = False) -> Callable[[Call], None]:
        """__call__() for per-function totals and nothing else (with
        the on-CPU times when oncpu; without the idle tasks' calls
        when drop_idle)."""
        flat_get = self.flat_get
        new = self._flat_node
        roots = self.roots
        root = self.root

        def plain_flat(c: Call) -> None:
            if c.flags & NOT_COUNTED:
                if c.task not in roots:
                    root(c.task)
                return
            name = c.name
            n = flat_get(name)
            if n is None:
                assert name is not None
                n = new(name)
            count_call(n, c.dur, c.child)
            if oncpu:
                n.oncpu += c.oncpu
        if not drop_idle:
            return plain_flat
        idle = self._idle
        idle_task = self._idle_task

        def busy_flat(c: Call) -> None:
            """plain_flat() for the calls of the tasks that are not
            idle."""
            v = idle.get(c.task)
            if not (idle_task(c.task) if v is None else v):
                plain_flat(c)
        return busy_flat

    def _flat_leaf(self) -> LeafEmit:
        flat_get = self.flat_get
        new = self._flat_node

        def flat_leaf(name: str, d: int, up: Call) -> bool:
            n = flat_get(name)
            if n is None:
                n = new(name)
            # count_call(n, d, 0), inline: one call per leaf less
            n.count += 1
            n.total += d
            if d < n.min:
                n.min = d
            if d > n.max:
                n.max = d
            n.local += d
            return True
        return flat_leaf

    def _tree_leaf(self) -> LeafEmit:
        open_nodes = self.open_nodes
        open_node = self._open_node
        waiting = self.waiting

        def tree_leaf(name: str, d: int, up: Call) -> bool:
            got = open_nodes.get(up.id)
            if got is not None:
                kids = got[0].kids
            else:
                n = open_node(up)
                if n is not None:
                    kids = n.kids
                else:
                    wk = waiting.get(up.id)
                    if wk is None:
                        wk = waiting[up.id] = {}
                    kids = wk
            have = kids.get(name)
            if have is None:
                have = kids[name] = Node(name)
            count_call(have, d, 0)
            return True
        return tree_leaf

    def __call__(self, c: Call) -> None:
        """Take one call, in full generality (the call filters, every
        kind of consumer at once); consumer() gives quicker ones."""
        counted = not c.flags & NOT_COUNTED and (
            not self.check or self.filters.keep(c))
        if counted and self.call_sink is not None:
            self.call_sink(c)
        if c.start >= 0 and (self.timeline is not None or
                             self.every is not None):
            self._timed(c, counted)
        if self.flat is None:
            self._tree(c, counted)
        elif counted:
            self._flat_add(c)
        else:
            self.root(c.task)

    def _timed(self, c: Call, counted: bool) -> None:
        """A call with a start, to the timeline and to every: the
        counted ones, and the unfinished and unnamed ones that the
        call filters keep."""
        if not counted and not (c.flags & (UNFINISHED | UNNAMED) and (
                not self.check or self.filters.keep(c))):
            return
        if self.timeline is not None:
            self.timeline.add(c)
        if self.every is not None and not c.flags & UNNAMED:
            self.every(c)

    def _tree(self, c: Call, counted: bool) -> None:
        """Add a call to the call tree of its task: to its node, made
        when a callee came while it was open, or to the node of its
        path under its caller's; with the subtree of the callees that
        waited under its id."""
        d = c.dur
        got = self.open_nodes.pop(c.id, None)
        have, u = got if got is not None else self._place(c)
        kids = self.waiting.pop(c.id, None)
        if kids is have.kids:
            kids = None
        if u is not None and d > 0:
            # an "(unknown)" caller's time: the sum of its callees'
            # (a lower bound)
            u.total += d
            u.oncpu += c.oncpu if counted else 0
        if counted:
            count_call(have, d, c.child)
            have.oncpu += c.oncpu
        elif c.flags & UNNAMED:
            have.total += d
        if kids:
            merge_kids(have.kids, kids)

    def _place(self, c: Call) -> Tuple[Node, Optional[Node]]:
        """The node of c's path (made if new, with the callees that
        waited under its id) and the "(unknown)" node it is under, if
        its caller is unknown."""
        target, u = self._target(c)
        name = c.name if c.name is not None else UNKNOWN_NAME
        have = target.get(name)
        if have is None:
            have = target[name] = Node(name, self.waiting.get(c.id) or None)
        return have, u

    def _open_node(self, o: Call) -> Optional[Node]:
        """The node of an open call o (a callee of it is done), made
        now and kept until o is done; None when o's own caller is not
        decided yet (its callees then wait under its id)."""
        got = self.open_nodes.get(o.id)
        if got is not None:
            return got[0]
        if o.parent == PENDING or o.parent > 0 and (
                o.up is None or o.up.id != o.parent):
            return None
        if o.parent < 0 and o.anc > 0 and (
                o.up is None or o.up.id != o.anc):
            return None
        got = self._place(o)
        self.open_nodes[o.id] = got
        return got[0]

    def _target(self, c: Call) -> Tuple[Dict[str, Node], Optional[Node]]:
        """Where c's node goes: under its caller's node (the caller is
        open: c.up), or waiting under its caller's id; at the task's
        root; or under an "(unknown)" node (at the root, or below the
        call it ran in), which is returned too."""
        p = c.parent
        up = c.up
        if p > 0:
            if up is not None and up.id == p:
                n = self._open_node(up)
                if n is not None:
                    kids: Dict[str, Node] = n.kids
                    return kids, None
            t0 = self.waiting.get(p)
            if t0 is None:
                t0 = self.waiting[p] = {}
            return t0, None
        if p == ROOT:
            rk: Dict[str, Node] = self.root(c.task).kids
            return rk, None
        base: Optional[Dict[str, Node]] = None
        if c.anc > 0:
            if up is not None and up.id == c.anc:
                n = self._open_node(up)
                if n is not None:
                    base = n.kids
            if base is None:
                base = self.waiting.get(c.anc)
                if base is None:
                    base = self.waiting[c.anc] = {}
        else:
            base = self.root(c.task).kids
        u = base.get(UNKNOWN_NAME)
        if u is None:
            u = base[UNKNOWN_NAME] = new_node(UNKNOWN_NAME)
        ukids: Dict[str, Node] = u.kids
        return ukids, u

    def finish(self) -> None:
        """Callees whose caller never came (cannot happen when the
        core gives callers after callees) go to the root."""
        for kids in self.waiting.values():
            merge_kids(self.root("?").kids, kids)
        self.waiting = {}

    def rename(self, renamed: Dict[str, str]) -> None:
        """Tasks known by another key at first (the lines of a CPU
        before its first context switch): their calls join the task's."""
        for old, new in renamed.items():
            r = self.roots.pop(old, None)
            if r is not None:
                merge_kids(self.root(new).kids, r.kids)
            tl = self.timeline
            if tl is not None and tl.by == "task" and old in tl.tracks:
                have: Optional[Track]
                t = tl.tracks.pop(old)
                have = tl.tracks.get(new)
                if have is None:
                    tl.tracks[new] = t
                else:
                    have.extend(t)

    def func_stats(self) -> Dict[str, FuncStats]:
        if self.flat is None:
            from .analysis import func_stats
            return func_stats(self.roots)
        out: Dict[str, FuncStats] = {}
        for name, n in self.flat.items():
            if n.count:
                fs = out[name] = FuncStats(name)
                fs.add(n.count, n.total, n.min, n.max, n.local,
                       n.oncpu)
        return out


__all__ = ["Collector", "Filters", "merge_kids"]
