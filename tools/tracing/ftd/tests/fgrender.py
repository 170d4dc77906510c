# SPDX-License-Identifier: GPL-2.0
"""A small model of the kernel's function_graph printer, for tests.

It takes per-CPU streams of entry/return records (as the ring buffer
holds them) and prints them the way trace_functions_graph.c does in
6.12: leaf merging (get_return_for_leaf), per-CPU enter_funcs to decide
whether a return prints its name, context-switch blocks (verif_pid),
irq arrows, LOST markers, and every column option.  It also reports
which calls are visible with a name, so tests know the exact expected
statistics, and keeps the truth of every call it printed (Truth: id,
function, start, duration, caller, task, CPU, and the lines it is at),
so tests can check every view call by call.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Dict, List, Optional, Set, Tuple

MARKS = [(1000000000, "$"), (100000000, "@"), (10000000, "*"),
         (1000000, "#"), (100000, "!"), (10000, "+")]


@dataclasses.dataclass
class Opts:
    abstime: bool = True
    cpu: bool = True
    proc: bool = True
    lat: bool = False
    duration: bool = True
    overhead: bool = True
    tail: bool = False
    retval: str = ""        # "", "dec" or "hex"
    irqs: bool = True
    ncpus: int = 2


@dataclasses.dataclass
class Truth:
    """What a printed call really was."""
    id: int
    func: str
    start: int              # ns: when it was called
    dur: int                # ns, -1: its return was not printed
    parent: int             # its caller's id, -1: outermost
    task: str               # comm-pid as the trace prints it
    cpu: int                # where its first printed line is
    lines: List[int] = dataclasses.field(default_factory=list)
    cpus: Set[int] = dataclasses.field(default_factory=set)
    # printed as a leaf merged with another call's entry (after a
    # migration, the kernel merges an entry with the next return of the
    # same task and function on that CPU): no call has these numbers
    merged: bool = False


@dataclasses.dataclass
class Rec:
    """One ring-buffer record."""
    kind: str               # "E" entry, "R" return, "L" lost events
    cpu: int
    pid: int
    comm: str
    depth: int
    func: str
    ts: int                 # ns
    calltime: int = 0
    retval: int = 0
    call_id: int = 0
    parent: int = -1
    irq: bool = False       # the function is an irq entry function


def fmt_duration(ns: int) -> str:
    usecs, nsecs = divmod(ns, 1000)
    s = "%d" % usecs
    ln = len(s)
    if ln < 7:
        slen = min(5, 8 - ln)
        frac = ("%03d" % nsecs)[:slen - 1]
        s += "." + frac
        ln += len(frac) + 1
    s += " us "
    s += " " * max(0, 8 - ln)
    return s


def mark(ns: int) -> str:
    for lim, c in MARKS:
        if ns > lim:
            return c
    return " "


def proc(comm: str, pid: int) -> str:
    s = "%s-%d" % (comm[:7], pid)
    if len(s) < 14:
        sp = 14 - len(s)
        s = " " * (sp // 2) + s + " " * (sp - sp // 2)
    return s


class Printer:
    def __init__(self, o: Opts) -> None:
        self.o = o
        self.cpuw = len(str(max(0, o.ncpus - 1)))
        self.last_pid: Dict[int, int] = {}
        self.enter: Dict[int, Dict[int, str]] = {}
        self.depth_irq: Dict[int, int] = {}
        self.out: List[str] = []
        self.printed: Set[int] = set()   # call ids whose return printed
        self.unnamed: Set[int] = set()   # of those: bare } and no entry
        self.entered: Set[int] = set()   # call ids whose entry printed
        self.truth: Dict[int, Truth] = {}  # printed calls by id

    def _truth(self, r: Rec) -> Truth:
        t = self.truth.get(r.call_id)
        if t is None:
            t = self.truth[r.call_id] = Truth(
                r.call_id, r.func, r.ts if r.kind == "E" else r.calltime,
                -1, r.parent, "%s-%d" % (r.comm[:7] if r.pid else "<idle>",
                                         r.pid), r.cpu)
        if r.kind == "R":
            t.start = r.calltime
            t.dur = r.ts - r.calltime
        t.lines.append(len(self.out))
        t.cpus.add(r.cpu)
        return t

    def prologue(self, r: Rec) -> str:
        o = self.o
        s = ""
        if o.abstime:
            s += "%5d.%06d |  " % (r.ts // 10**9, (r.ts % 10**9) // 1000)
        if o.cpu:
            s += " %*d) " % (self.cpuw, r.cpu)
        if o.proc:
            s += proc(r.comm, r.pid) + " | "
        if o.lat:
            s += " " + "d.h1."[: 5] + " | "
        return s

    def dur(self, ns: Optional[int]) -> str:
        o = self.o
        if not o.duration:
            return ""
        if ns is None:
            return "              |  "
        return (mark(ns) if o.overhead else " ") + " " + \
            fmt_duration(ns) + "|  "

    def verif(self, r: Rec) -> None:
        last = self.last_pid.get(r.cpu)
        self.last_pid[r.cpu] = r.pid
        if last is None or last == r.pid:
            return
        self.out.append(" ------------------------------------------")
        comm = self.comms[last]
        self.out.append(" %*d) " % (self.cpuw, r.cpu) + proc(comm, last) +
                        " => " + proc(r.comm, r.pid))
        self.out.append(" ------------------------------------------")
        self.out.append("")

    def irq_line(self, r: Rec, arrow: str) -> None:
        o = self.o
        s = self.prologue(r)
        if o.duration:
            s += "  " + arrow + " |"
        else:
            s += arrow
        self.out.append(s)

    def retv(self, r: Rec, leaf: bool) -> str:
        v = r.retval
        if self.o.retval == "hex" or v >= 0:
            txt = "0x%x" % (v & 0xffffffff)
            return ("%s(); /* = %s */" % (r.func, txt)) if leaf else \
                ("} /* %s = %s */" % (r.func, txt))
        return ("%s(); /* = %d */" % (r.func, v)) if leaf else \
            ("} /* %s = %d */" % (r.func, v))

    def render(self, streams: Dict[int, List[Rec]],
               comms: Dict[int, str]) -> List[str]:
        """Print the merged streams; returns the lines."""
        self.comms = comms
        pos = {c: 0 for c in streams}
        while True:
            best = None
            for c, lst in streams.items():
                if pos[c] < len(lst):
                    r = lst[pos[c]]
                    if best is None or (r.ts, c) < (best.ts, best.cpu):
                        best = r
            if best is None:
                break
            c = best.cpu
            lst = streams[c]
            pos[c] += 1
            nxt = lst[pos[c]] if pos[c] < len(lst) else None
            if best.kind == "L":
                self.out.append("CPU:%d [LOST %d EVENTS]" % (c, best.depth))
                continue
            if best.kind == "E":
                leaf = (nxt is not None and nxt.kind == "R" and
                        nxt.pid == best.pid and nxt.func == best.func)
                if self.skip_irq_entry(best):
                    if leaf:
                        pos[c] += 1
                        self.skip_irq_return(nxt)
                    continue
                self.verif(best)
                if best.irq and self.o.irqs:
                    self.irq_line(best, "==========>")
                if leaf:
                    pos[c] += 1
                    self.print_leaf(best, nxt)
                else:
                    self.enter.setdefault(c, {})[best.depth] = best.func
                    self.entered.add(best.call_id)
                    self._truth(best)
                    self.out.append(self.prologue(best) + self.dur(None) +
                                    "  " * best.depth + best.func + "() {")
            else:
                if self.skip_irq_return(best):
                    continue
                self.print_ret(best)
        return self.out

    def skip_irq_entry(self, r: Rec) -> bool:
        if self.o.irqs:
            return False
        d = self.depth_irq.get(r.cpu, -1)
        if d >= 0:
            return True
        if not r.irq:
            return False
        self.depth_irq[r.cpu] = r.depth
        return True

    def skip_irq_return(self, r: Rec) -> bool:
        if self.o.irqs:
            return False
        d = self.depth_irq.get(r.cpu, -1)
        if d == -1:
            return False
        if d >= r.depth:
            self.depth_irq[r.cpu] = -1
        return True

    def print_leaf(self, e: Rec, r: Rec) -> None:
        self.enter.setdefault(e.cpu, {})[e.depth] = ""
        ns = r.ts - r.calltime
        if e.call_id == r.call_id:
            self._truth(e)
            self._truth(r).lines.pop()
        else:
            # the kernel merges an entry with the next record of its CPU
            # when that is a return of the same task and function: after
            # a migration, another call's.  The line has that call's
            # duration and another one's stamp.
            self._truth(r).merged = True
        s = self.prologue(e) + self.dur(ns) + "  " * e.depth
        if self.o.retval:
            s += self.retv(r, True)
        else:
            s += e.func + "();"
        self.out.append(s)
        self.printed.add(r.call_id)
        if r.irq and self.o.irqs:
            self.irq_line(r, "<==========")

    def print_ret(self, r: Rec) -> None:
        ent = self.enter.setdefault(r.cpu, {})
        match = ent.get(r.depth, "") == r.func
        ent[r.depth] = ""
        self.verif(r)
        ns = r.ts - r.calltime
        s = self.prologue(r) + self.dur(ns) + "  " * r.depth
        self._truth(r)
        self.printed.add(r.call_id)
        if self.o.retval:
            s += self.retv(r, False)
        elif match and not self.o.tail:
            s += "}"
            if r.call_id not in self.entered:
                self.unnamed.add(r.call_id)
        else:
            s += "} /* %s */" % r.func
        self.out.append(s)
        if r.irq and self.o.irqs:
            self.irq_line(r, "<==========")


def header(o: Opts) -> List[str]:
    h1 = "#"
    h2 = "#"
    if o.abstime:
        h1 += "     TIME       "
        h2 += "      |         "
    if o.cpu:
        h1 += " CPU"
        h2 += " |  "
    if o.proc:
        h1 += "  TASK/PID       "
        h2 += "   |    |        "
    if o.lat:
        h1 += "||||   "
        h2 += "||||   "
    if o.duration:
        h1 += "  DURATION   "
        h2 += "   |   |      "
    return ["# tracer: function_graph", "#",
            h1 + "               FUNCTION CALLS",
            h2 + "               |   |   |   |"]


TRACEFS_LINE = re.compile(
    r" *(\d+\.\d+) \|  +(\d+)\) +(.*?-\d+) +\| "
    r"([ +!#*@$] \d\S* us +| {14}|  =+[<>] )\|(.*)$")
SWITCH_LINE = re.compile(r" *(\d+)\) +(.*?)-(\d+) +=> +(.*?)-(\d+) *$")


def tracecmd(lines: List[str]) -> Tuple[List[str], Dict[int, int]]:
    """The same trace as `trace-cmd report` prints it (from lines with
    abstime, CPU, task and duration columns): "comm-pid [CPU] TS:
    funcgraph_entry|funcgraph_exit: DURATION |  TEXT", context switches
    as sched_switch events; irq arrows, the separators of the switch
    blocks and the column header are not printed.  Returns the lines
    and, for each line number (from 1) that is kept, its new number."""
    out = ["version = 6", "cpus=%d" % 2]
    keep: Dict[int, int] = {}
    last: Dict[str, str] = {}
    for n, ln in enumerate(lines, 1):
        m = TRACEFS_LINE.match(ln)
        if m and "==========" not in m.group(4):
            ts, cpu, task, dur, text = m.groups()
            last[cpu] = ts
            ev = "exit" if text.strip().startswith("}") else "entry"
            out.append("%20s [%03d] %s: funcgraph_%s:      %s|%s" % (
                task.strip(), int(cpu), ts, ev, dur.rstrip() + "   "
                if dur.strip() else " " * 13, text))
            keep[n] = len(out)
            continue
        m = SWITCH_LINE.match(ln)
        if m:
            cpu, a, ap, b, bp = m.groups()
            out.append("%20s [%03d] %s: sched_switch:         prev_comm=%s "
                       "prev_pid=%s prev_prio=120 prev_state=S ==> "
                       "next_comm=%s next_pid=%s next_prio=120" % (
                           a.strip() + "-" + ap, int(cpu),
                           last.get(cpu, "0.000000"), a.strip(), ap,
                           b.strip(), bp))
    return out, keep
