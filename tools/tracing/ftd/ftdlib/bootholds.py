# SPDX-License-Identifier: GPL-2.0
"""Boot holds: the boot thread asleep while another thread works.

From the scheduler events of the trace (sched_switch, sched_waking,
sched_wakeup, sched_wakeup_new, printed as "/* sched_switch: ... */"
comments in function_graph output), find every stretch in which a boot
thread (the idle task of the boot CPU until pid 1 starts, then pid 1)
was switched out asleep, and who woke it.  The waker is blamed, as in
the FreeBSD boot profiler, for the part of the wait from the later of
the wait's start and the start of the waker's work to the wakeup.  The
start of a thread's work is the end of its last sleep before the
wakeup (its own wakeup), else its creation (sched_wakeup_new), else
its first line in the trace.  When the waker was itself asleep during
the wait, the thread that woke it is blamed for that overlap by the
same rule, down a chain of at most MAX_CHAIN threads.  A wakeup from
an interrupt (a wakeup event on a line whose calls are an interrupt
or softirq handler) or from an idle task blames no thread.  What no
thread is blamed for is "unexplained".  See Documentation/tools/ftd/
ftd.rst, section BOOT VIEW, "Boot holds".  The events are read by
bootinput.py, the holds' tables written by bootwrite.py.
"""

from __future__ import annotations

import bisect
import dataclasses
from typing import (Dict, Iterator, List, NamedTuple, Optional, Sequence,
                    Tuple)

from .analysis import matcher
from .bootinput import SchedEvents, Switch, Wake
from .tasks import pid_of, task_name
from .timeline import Timeline, Tracks

# The command line that records what the holds need (all four events
# exist in 6.12: include/trace/events/sched.h).
SCHED_EVENTS = ("sched:sched_switch,sched:sched_waking,"
                "sched:sched_wakeup,sched:sched_wakeup_new")
SCHED_CMDLINE = "trace_event=" + SCHED_EVENTS
MAX_CHAIN = 8

# Frames between a wait and the scheduler: the wait function is the
# innermost frame of the sleeping thread that is none of these.
PRIMITIVES = ["schedule", "__schedule", "schedule_*", "io_schedule*",
              "preempt_schedule*", "__cond_resched", "wait_for_completion*",
              "__wait_for_common", "wait_for_common*", "do_wait_for_common",
              "__wait_rcu_gp", "wait_rcu_gp", "rcu_*_wait*",
              "__mutex_lock*", "mutex_lock*", "__down*", "down*",
              "rwsem_down_*", "__rwsem_*", "kthread_*wait*",
              "__wait_event*", "wait_woken", "usleep_range_state",
              "__msleep", "finish_task_switch*", "context_switch",
              "__switch_to", "prepare_to_wait*", "finish_wait",
              "__flush_work*", "__flush_workqueue",
              # the async and RCU helpers whose callers name the wait
              # (wait_for_initramfs, async_synchronize_full,
              # synchronize_rcu)
              "async_synchronize_cookie*", "async_synchronize_full_domain",
              "synchronize_rcu_normal"]
# Interrupt and softirq entry: a wakeup made under one of these was
# made by the interrupt, not by the thread it interrupted.
IRQ = ["__irq_svc", "__irq_usr", "gic_handle_irq", "handle_irq*",
       "generic_handle_*irq*", "handle_*_irq", "handle_domain_irq",
       "__handle_domain_irq", "irq_exit*", "__irq_exit_rcu", "do_softirq*",
       "__do_softirq", "handle_softirqs", "run_timer_softirq",
       "hrtimer_interrupt", "__hrtimer_run_queues", "hrtimer_run_queues",
       "arch_timer_handler*", "call_timer_fn", "tasklet_action*",
       "rcu_core", "rcu_core_si", "do_IPI", "ipi_handler", "handle_IPI",
       "blk_done_softirq", "net_rx_action", "vring_interrupt",
       "vm_interrupt", "*_irq_handler", "*_interrupt"]


is_primitive = matcher(PRIMITIVES)
is_irq = matcher(IRQ)


class Span(NamedTuple):
    """A stretch of time, [start, end) in ns."""

    start: int
    end: int


@dataclasses.dataclass
class Blame:
    """A part of a wait blamed on one thread."""

    thread: str              # "comm-pid"
    pid: int
    spans: List[Span]        # when, in time order
    via: List[str]           # the threads of the chain before it
    prefix: List[str]        # pseudo-frames between the wait and it
    top: List[Tuple[str, int]] = dataclasses.field(default_factory=list)

    @property
    def ns(self) -> int:
        return sum(b - a for a, b in self.spans)

    @property
    def start(self) -> int:
        return self.spans[0].start

    @property
    def end(self) -> int:
        return self.spans[-1].end


@dataclasses.dataclass
class Hold:
    thread: str              # the waiting boot thread, "comm-pid"
    pid: int
    wait_fn: str
    stack: List[str]         # the boot thread's frames down to wait_fn
    start: int               # switched out
    end: int                 # woken (or back on the CPU, or boot end)
    back: int                # back on the CPU (-1: not in the trace)
    waker: str               # "comm-pid", or what woke it, or ""
    why: str                 # why a part is unexplained, or ""
    blames: List[Blame]

    @property
    def ns(self) -> int:
        return self.end - self.start

    @property
    def blamed(self) -> int:
        return sum(b.ns for b in self.blames)

    @property
    def unexplained(self) -> int:
        return self.ns - self.blamed


def top_functions(tracks: Tracks, pid: int, a: int, b: int,
                  n: int = 3) -> List[Tuple[str, int]]:
    """The functions pid spent most time in (local time) in [a, b)."""
    tot: Dict[str, int] = {}
    for s, e, stack in tracks.segments(pid, a, b):
        if stack:
            tot[stack[-1]] = tot.get(stack[-1], 0) + e - s
    return sorted(tot.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


class Finder:
    def __init__(self, ev: SchedEvents, tracks: Tracks) -> None:
        self.ev = ev
        self.tracks = tracks
        self.wakes: Dict[int, List[Wake]] = {}
        for w in sorted(ev.wakes, key=lambda w: w.ts):
            self.wakes.setdefault(w.pid, []).append(w)
        self.wake_ts = {p: [w.ts for w in ws] for p, ws in
                        self.wakes.items()}
        self.outs: Dict[int, List[Switch]] = {}
        self.ins: Dict[int, List[int]] = {}
        for s in sorted(ev.switches, key=lambda s: s.ts):
            self.outs.setdefault(s.prev, []).append(s)
            self.ins.setdefault(s.nxt, []).append(s.ts)
        self.out_ts = {p: [s.ts for s in ss] for p, ss in self.outs.items()}

    def name(self, pid: int) -> str:
        return "%s-%d" % (self.ev.comm.get(pid, "?"), pid)

    def wake_after(self, pid: int, t: int, until: int) -> Optional[Wake]:
        """The first wakeup of pid at t or later, before until."""
        ts = self.wake_ts.get(pid, [])
        i = bisect.bisect_left(ts, t)
        if i < len(ts) and ts[i] < until:
            w = self.wakes[pid][i]
            if w.kind != "sched_wakeup_new":
                return w
        return None

    def back_after(self, pid: int, t: int) -> int:
        ts = self.ins.get(pid, [])
        i = bisect.bisect_right(ts, t)
        return ts[i] if i < len(ts) else -1

    def work_start(self, pid: int) -> int:
        """When the thread's work started: its creation
        (sched_wakeup_new), else its first line in the trace."""
        for w in self.wakes.get(pid, []):
            if w.kind == "sched_wakeup_new":
                return w.ts
        first = self.tracks.first.get(pid)
        evs = [s.ts for s in self.outs.get(pid, [])[:1]] + \
            self.ins.get(pid, [])[:1] + [x.ts for x in self.wakes.get(
                pid, [])[:1]]
        cands = ([first] if first is not None else []) + evs
        return min(cands) if cands else -1

    def sleeps(self, pid: int, lo: int, hi: int
               ) -> Iterator[Tuple[int, int, Optional[Wake]]]:
        """The sleeps of pid that overlap [lo, hi): switched out not
        runnable, until the wakeup (None: the trace does not have it;
        the sleep lasts until pid is back on a CPU, else until hi)."""
        for sw in self.outs.get(pid, []):
            if sw.ts >= hi:
                break
            if sw.state.startswith("R"):
                continue
            back = self.back_after(pid, sw.ts)
            w = self.wake_after(pid, sw.ts, back if back >= 0 else hi)
            end = w.ts if w is not None else (back if back >= 0 else hi)
            if end > lo:
                yield sw.ts, end, w

    def waker_of(self, w: Wake, woken: int
                 ) -> Tuple[int, str, str]:
        """(pid, name, why not) of the thread a wakeup blames; pid -1
        when it blames none."""
        pid = pid_of(w.by)
        if pid < 0:
            return -1, "", "the wakeup's line names no task (no " \
                "funcgraph-proc, and no context switch before it)"
        if pid == 0:
            return -1, "<idle>", "woken from the idle task (an " \
                "interrupt or a timer)"
        if pid == woken:
            return -1, self.name(pid), "woken by itself"
        stack = self.tracks.stack_at(pid, w.ts)
        irq = [f for f in stack if is_irq(f)]
        if irq:
            return -1, "%s (in %s)" % (self.name(pid), irq[0]), \
                "woken by an interrupt (%s)" % irq[0]
        return pid, self.name(pid), ""

    def wait_stack(self, pid: int, t: int) -> Tuple[str, List[str]]:
        stack = self.tracks.stack_at(pid, t)
        for i in range(len(stack) - 1, -1, -1):
            if not is_primitive(stack[i]):
                return stack[i], stack[:i + 1]
        if stack:
            return stack[0], stack[:1]
        return "(not traced)", []

    def blame(self, lo: int, hi: int, w: Wake, woken: int,
              via: List[str], prefix: List[str], depth: int,
              out: List[Blame], lost: Dict[str, int]) -> None:
        """Blame the waker of w for [lo, hi) from the start of its work,
        less its own sleeps, which go to their wakers in turn."""
        pid, name, why = self.waker_of(w, woken)
        if hi <= lo:
            return
        if pid < 0:
            lost[why] = lost.get(why, 0) + hi - lo
            return
        start = self.work_start(pid)
        a = max(lo, start)
        if a > lo:
            lost["before %s started" % name] = \
                lost.get("before %s started" % name, 0) + min(a, hi) - lo
        here = prefix + ["THREAD " + name]
        spans: List[Span] = []
        t = a
        for s0, s1, sw in self.sleeps(pid, a, hi):
            s0, s1 = max(s0, a), min(s1, hi)
            if s0 > t:
                spans.append(Span(t, s0))
            if s1 <= s0:
                continue
            t = max(t, s1)
            if sw is None:
                k = "%s asleep, its wakeup not in the trace" % name
                lost[k] = lost.get(k, 0) + s1 - s0
            elif depth >= MAX_CHAIN or name in via:
                k = "a chain longer than %d threads, or a cycle" % MAX_CHAIN
                lost[k] = lost.get(k, 0) + s1 - s0
            else:
                _, stk = self.wait_stack(pid, s0)
                self.blame(s0, s1, sw, pid, via + [name], here + stk,
                           depth + 1, out, lost)
        if t < hi:
            spans.append(Span(t, hi))
        if spans:
            out.append(Blame(name, pid, spans, list(via), here))


def find_holds(ev: SchedEvents, tl: Timeline,
               pieces: Sequence[Tuple[str, int, int]], start: int,
               end: int) -> List[Hold]:
    """The waits of the boot threads (the pieces of the boot path)
    between start and end, with their blame."""
    tracks = Tracks(tl)
    f = Finder(ev, tracks)
    holds: List[Hold] = []
    spans = [(pid_of(k), task_name(k), max(lo, start), min(hi, end))
             for k, lo, hi in pieces]
    for pid, track_name, lo, hi in spans:
        for s in f.outs.get(pid, []):
            if not lo <= s.ts < hi:
                continue
            if s.state.startswith("R"):
                continue        # preempted, not waiting
            back = f.back_after(pid, s.ts)
            until = back if back >= 0 else end
            w = f.wake_after(pid, s.ts, until if back >= 0 else end + 1)
            fn, stack = f.wait_stack(pid, s.ts)
            # as the trace's task column names it (pid 1 is still
            # "swapper/0" in the events before it execs /init)
            name = track_name
            if w is None:
                e = min(until, end)
                holds.append(Hold(name, pid, fn, stack, s.ts, e, back, "",
                                  "its wakeup is not in the trace", []))
                continue
            e = min(w.ts, end)
            wpid, wname, why = f.waker_of(w, pid)
            h = Hold(name, pid, fn, stack, s.ts, e, back, wname, why, [])
            lost: Dict[str, int] = {}
            f.blame(s.ts, e, w, pid, [], [], 0, h.blames, lost)
            h.blames.sort(key=lambda b: b.start)
            for b in h.blames:
                tot: Dict[str, int] = {}
                for a0, a1 in b.spans:
                    for fn1, ns in top_functions(tracks, b.pid, a0, a1,
                                                 1 << 30):
                        tot[fn1] = tot.get(fn1, 0) + ns
                b.top = sorted(tot.items(), key=lambda kv: (-kv[1],
                                                            kv[0]))[:3]
            h.why = "; ".join(k for k, _ in sorted(
                lost.items(), key=lambda kv: -kv[1]))
            holds.append(h)
    holds.sort(key=lambda h: h.start)
    return holds
