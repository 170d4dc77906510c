# SPDX-License-Identifier: GPL-2.0
"""Synthetic boot traces for the boot view's tests: lines in the layout
of a 6.12 function_graph trace with funcgraph-abstime, -cpu and -proc,
and trace events as the function_graph tracer prints them: a comment
at the call depth, "/* sched_switch: prev_comm=... */", in the
TP_printk format of the event (include/trace/events/sched.h)."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ftdlib.boot import BootView, analyse
from ftdlib.bootinput import BootInputs
from ftdlib.parse import Walker

HEAD = ["# tracer: function_graph\n", "#\n",
        "#     TIME        CPU  TASK/PID         DURATION                  "
        "FUNCTION CALLS\n",
        "#      |          |     |    |           |   |                     "
        "|   |   |   |\n"]
COMM = {0: "swapper/0", 1: "swapper/0", 30: "unpack", 40: "helper",
        50: "async1", 51: "async2"}
TASK = {0: "<idle>-0", 1: "init-1", 30: "unpack-30", 40: "helper-40",
        50: "async1-50", 51: "async2-51"}


def kdur(us: float) -> str:
    """A duration as print_graph_duration() prints it: the mark, then
    at most 7 digits of microseconds, " us", padded to 8."""
    ns = int(round(us * 1000))
    mark = " "
    for limit, m in ((1000000000, "$"), (100000000, "@"), (10000000, "*"),
                     (1000000, "#"), (100000, "!"), (10000, "+")):
        if ns > limit:
            mark = m
            break
    text = str(ns // 1000)
    if len(text) < 7:
        text += "." + ("%03d" % (ns % 1000))[:min(4, 7 - len(text))]
    return "%s %s us %s" % (mark, text, " " * max(0, 8 - len(text)))


class Trace:
    """Lines of one CPU-interleaved trace, sorted by time at the end.
    Times are in ms from 1 s."""

    def __init__(self) -> None:
        self.lines: List[Tuple[float, int, str]] = []
        self.depth: Dict[int, int] = {}
        self.open: Dict[int, List[Tuple[str, float]]] = {}

    def line(self, ms: float, pid: int, cpu: int, body: str,
             dur: Optional[float] = None) -> None:
        field = " " * 14 if dur is None else kdur(dur)
        text = "%12.6f | %3d) %s | %s|  %s%s\n" % (
            1 + ms / 1000.0, cpu, TASK[pid].center(14), field,
            "  " * self.depth.get(pid, 0), body)
        self.lines.append((ms, len(self.lines), text))

    def enter(self, ms: float, pid: int, cpu: int, fn: str) -> None:
        self.line(ms, pid, cpu, fn + "() {")
        self.open.setdefault(pid, []).append((fn, ms))
        self.depth[pid] = self.depth.get(pid, 0) + 1

    def leave(self, ms: float, pid: int, cpu: int) -> None:
        fn, t0 = self.open[pid].pop()
        self.depth[pid] -= 1
        self.line(ms, pid, cpu, "} /* %s */" % fn, (ms - t0) * 1000.0)

    def leaf(self, ms: float, pid: int, cpu: int, fn: str,
             dur_ms: float) -> None:
        self.line(ms, pid, cpu, fn + "();", dur_ms * 1000.0)

    def switch(self, ms: float, cpu: int, prev: int, nxt: int,
               state: str = "D") -> None:
        self.line(ms, prev, cpu, "/* sched_switch: prev_comm=%s prev_pid=%d "
                  "prev_prio=120 prev_state=%s ==> next_comm=%s "
                  "next_pid=%d next_prio=120 */" % (
                      COMM[prev], prev, state, COMM[nxt], nxt))

    def wake(self, ms: float, by: int, cpu: int, pid: int,
             kind: str = "sched_waking") -> None:
        extra = "" if kind == "sched_waking" else " target_cpu=%03d" % cpu
        self.line(ms, by, cpu, "/* %s: comm=%s pid=%d prio=120%s */" % (
            kind, COMM[pid], pid, extra))

    def text(self) -> List[str]:
        return HEAD + [t for _, _, t in sorted(self.lines)]


def collect(lines: List[str]) -> Tuple[BootView, BootInputs]:
    """The boot view of one synthetic trace, and its collector."""
    col = BootInputs()
    col.begin("synthetic")
    w = Walker(None, None, "boot", flat=True)
    w.collect.every = col.call
    w.comment_sink = col.comment_sink
    col.lineno = lambda: w.lineno
    w.feed_lines(lines)
    col.close_open(w.info.last_ts)
    return analyse(col), col
