# SPDX-License-Identifier: GPL-2.0
"""The boot view's inputs: the traces (the early-boot file and the main
trace buffer) merged into one Timeline, with the early-boot file's
header, the initcall and scheduler events and each CPU's first time;
a System.map's initcall section; the initcall_debug lines of a dmesg.
See boot.py for what is made of them."""

from __future__ import annotations

import dataclasses
import re
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple

from .layout import SCHED_SWITCH_RE
from .model import BIG, FtdError
from .pairing import UNFINISHED, Call
from .tasks import idle_key, is_unknown, unknown_cpu
from .timeline import Timeline

# The scheduler events as the function_graph tracer prints them, in the
# TP_printk formats of include/trace/events/sched.h (6.12)
EVENT_RE = re.compile(r"/\* (sched_switch|sched_waking|sched_wakeup_new|"
                      r"sched_wakeup): (.*?)\s*\*/\s*$")
WAKE_RE = re.compile(r"comm=(.*) pid=(-?\d+) prio=-?\d+"
                     r"(?: target_cpu=\d+)?$")

LEVEL_EVENT_RE = re.compile(r"/\* initcall_level: level=(\w+)")
CLOCK_RE = re.compile(r"# clock: architecture counter at (\d+) Hz")
UNTIL_RE = re.compile(r"# fgraph_boot: .* from start_kernel\(\) until (.*)")
THRESH_RE = re.compile(r"# threshold: (\d+) us")
RECORDS_RE = re.compile(r"# records: (\d+) of (\d+) .*dropped calls: (\d+)")
SYNC_RE = re.compile(r"# local_clock\(\) was (\d+) ns at counter (\d+)")
STARTED_RE = re.compile(r"##### CPU (\d+) buffer started ####")
START_EVENT_RE = re.compile(r"/\* initcall_start: func=([^+ ]+)")
MAP_LINE_RE = re.compile(r"([0-9a-fA-F]+) \w (\S+)$")
MAP_NAME_RE = re.compile(
    r"__initcall_+(?:kmod_\w*?__\d+_\d+_)?(\w+?)(early|rootfs|con|[0-7]s?)$")


# `for f in per_cpu/cpu*/stats; do echo "==> $f <=="; cat $f; done`, as
# the demo's guest scripts save them (also `head`'s output for several
# files): each CPU's ring buffer counts (kernel/trace/trace.c,
# tracing_stats_read())
STATS_HEAD_RE = re.compile(r"==> (?:.*/)?cpu(\d+)/stats <==")
STATS_LINE_RE = re.compile(r"(entries|overrun|dropped events): +(\d+)\s*$")


class BufferStats(NamedTuple):
    """A CPU's per_cpu/cpuN/stats, saved after the trace."""

    cpu: str
    overrun: int        # events overwritten when its buffer was full
    dropped: int        # events not written when it was full with
                        # trace_options=nooverwrite (-1: not in the file)
    entries: int        # events in the buffer (-1: not in the file)


class SavedStats(NamedTuple):
    """The per_cpu/cpuN/stats of the main trace's buffer, by CPU."""

    path: str
    cpus: Dict[str, BufferStats]


def read_buffer_stats(path: str) -> SavedStats:
    """Each CPU's ring buffer counts, from per_cpu/cpuN/stats files
    saved one after another, each under a "==> .../cpuN/stats <=="
    line."""
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except OSError as err:
        raise FtdError("%s: cannot open: %s" % (path, err.strerror))
    got: Dict[str, Dict[str, int]] = {}
    cur: Optional[Dict[str, int]] = None
    with f:
        for line in f:
            m = STATS_HEAD_RE.match(line.strip())
            if m:
                cur = got.setdefault(m.group(1), {})
                continue
            m2 = STATS_LINE_RE.match(line.strip())
            if m2 and cur is not None:
                cur[m2.group(1)] = int(m2.group(2))
    out = {cpu: BufferStats(cpu, d["overrun"], d.get("dropped events", -1),
                            d.get("entries", -1))
           for cpu, d in got.items() if "overrun" in d}
    if not out:
        raise FtdError(
            "%s: no per_cpu/cpuN/stats with an \"overrun:\" line in it; "
            "save them after the trace with `for f in /sys/kernel/tracing/"
            "per_cpu/cpu*/stats; do echo \"==> $f <==\"; cat $f; done`"
            % path)
    return SavedStats(path, out)


@dataclasses.dataclass
class Switch:
    ts: int
    cpu: str
    prev: int
    prev_comm: str
    state: str
    nxt: int
    next_comm: str


@dataclasses.dataclass
class Wake:
    ts: int
    kind: str        # sched_waking, sched_wakeup, sched_wakeup_new
    pid: int         # the task woken
    comm: str
    by: str          # the task key of the line it is on (the waker)
    cpu: str


class SchedEvents:
    """The scheduler events of all inputs, from their comment lines."""

    def __init__(self) -> None:
        self.switches: List[Switch] = []
        self.wakes: List[Wake] = []
        self.comm: Dict[int, str] = {}
        self.bad: List[str] = []
        self.seen: Dict[str, int] = {}

    def comment(self, key: str, cpu: str, ts: int, text: str,
                where: str) -> bool:
        """One comment line; True if it was a scheduler event."""
        if "sched_" not in text:
            return False
        m = EVENT_RE.match(text)
        if m is None:
            return False
        ev, body = m.group(1), m.group(2)
        self.seen[ev] = self.seen.get(ev, 0) + 1
        if ev == "sched_switch":
            s = SCHED_SWITCH_RE.match(body)
            if s is None:
                self.bad.append("%s: a sched_switch event not in the "
                                "6.12 format: %s" % (where, body[:80]))
                return True
            prev, nxt = int(s.group(2)), int(s.group(5))
            self.switches.append(Switch(ts, cpu, prev, s.group(1),
                                        s.group(3), nxt, s.group(4)))
            self.comm[prev] = s.group(1)
            self.comm[nxt] = s.group(4)
            return True
        w = WAKE_RE.match(body)
        if w is None:
            self.bad.append("%s: a %s event not in the 6.12 format: %s" % (
                where, ev, body[:80]))
            return True
        pid = int(w.group(2))
        self.wakes.append(Wake(ts, ev, pid, w.group(1), key, cpu))
        self.comm[pid] = w.group(1)
        return True

    def __bool__(self) -> bool:
        return bool(self.switches)


@dataclasses.dataclass
class Input:
    """One input file as the boot view saw it."""

    name: str
    first: int = BIG
    last: int = 0
    calls: int = 0
    # the same, of the calls only (not of the events in the file)
    call_first: int = BIG
    call_last: int = 0
    # added to the file's times to put them on the main trace's clock
    # (the early-boot file counts from when the counter started)
    shift: int = 0
    freq: int = 0
    # the early-boot file's header: why recording ended, its
    # threshold, records used of the buffer's, calls dropped
    until: str = ""
    thresh_us: int = -1
    records: int = -1
    capacity: int = -1
    dropped: int = -1
    # CPU -> its first time in the file (of a call or an event), and
    # the CPUs with a "##### CPU N buffer started ####" line (the
    # trace file prints one when the buffer overran)
    cpu_first: Dict[str, int] = dataclasses.field(default_factory=dict)
    started: List[str] = dataclasses.field(default_factory=list)

    @property
    def early_boot(self) -> bool:
        """The early-boot file (its header says so), not the main
        trace buffer."""
        return bool(self.until) or self.records >= 0 or self.freq > 0

    @property
    def full(self) -> bool:
        """The early buffer was full when recording ended."""
        return "buffer full" in self.until or \
            "buffer filled up" in self.until or self.dropped > 0


class InitcallMark(NamedTuple):
    """An initcall named at a time: an initcall:initcall_start event,
    or initcall_debug's line in a kernel log."""

    ts: int         # ns
    fn: str         # the initcall


class LevelEvent(NamedTuple):
    """An initcall:initcall_level event as the trace has it."""

    ts: int         # ns
    track: str      # the task key of the line
    level: str      # as the event prints it: "core", "device", ...


class BootInputs:
    """The boot's inputs (the early-boot file, the main trace buffer)
    as they are read: their calls in one Timeline, one track per task,
    with the idle task of each CPU and the task-less lines of a CPU on
    the same track; their initcall and scheduler events; each file's
    Input (its span and early-boot header).  Each input's Walker hands
    it every call (its collect.Collector's every hook, call()) and
    every comment line (comment_sink())."""

    def __init__(self) -> None:
        self.tl = Timeline("task")
        self.inputs: List[Input] = []
        self.events: List[LevelEvent] = []     # initcall_level events
        self.starts: List[InitcallMark] = []   # initcall_start events
        self.cur = Input("-")
        self._open: List[Call] = []
        self.sched = SchedEvents()
        # the line number of the input being read (set by the caller)
        self.lineno: Callable[[], int] = lambda: 0

    def begin(self, name: str) -> None:
        self.cur = Input(name)
        self.inputs.append(self.cur)

    @staticmethod
    def track(key: str, cpu: str) -> str:
        if is_unknown(key):
            # no task column: before the first fork only pid 0 runs
            return idle_key(unknown_cpu(key))
        return key

    def call(self, call: Call) -> None:
        """A call of the pairing core; one still open at the end of the
        input waits for close_open()."""
        if call.start < 0:
            return
        if call.flags & UNFINISHED:
            self._open.append(call)
            return
        self.sink(call)

    def sink(self, call: Call) -> None:
        call.start += self.cur.shift
        call.task = self.track(call.task, call.cpu)
        start, end = call.start, call.start + call.dur
        self.tl.add(call)
        c = self.cur
        c.calls += 1
        if start < c.first:
            c.first = start
        if end > c.last:
            c.last = end
        c.call_first = min(c.call_first, start)
        c.call_last = max(c.call_last, end)
        if start < c.cpu_first.get(call.cpu, BIG):
            c.cpu_first[call.cpu] = start

    def header(self, text: str) -> None:
        """The early-boot file's header: its clock, and one reading of
        local_clock() (the main trace's clock) with the counter."""
        c = self.cur
        m = STARTED_RE.match(text)
        if m and m.group(1) not in c.started:
            c.started.append(m.group(1))
        m = UNTIL_RE.match(text)
        if m:
            c.until = m.group(1)
        m = THRESH_RE.match(text)
        if m:
            c.thresh_us = int(m.group(1))
        m = RECORDS_RE.match(text)
        if m:
            c.records, c.capacity = int(m.group(1)), int(m.group(2))
            c.dropped = int(m.group(3))
        m = CLOCK_RE.match(text)
        if m:
            c.freq = int(m.group(1))
        elif text.startswith("# clock: none"):
            raise FtdError("%s: the early-boot records have no times (the "
                           "CPU has no architecture counter): the boot "
                           "view cannot place them in time" % c.name)
        m = SYNC_RE.match(text)
        if m and c.freq:
            local, ticks = int(m.group(1)), int(m.group(2))
            # the file prints ticks * 10^9 / freq, truncated
            c.shift = local - ticks * 1000000000 // c.freq

    def comment_sink(self, key: str, cpu: str, ts: int, text: str) -> None:
        if ts < 0:
            self.header(text)
            return
        ts += self.cur.shift
        if self.sched.comment(self.track(key, cpu), cpu, ts, text,
                              "%s:%d" % (self.cur.name, self.lineno())):
            return
        m = LEVEL_EVENT_RE.match(text)
        if m:
            self.events.append(LevelEvent(ts, self.track(key, cpu),
                                          m.group(1)))
        m = START_EVENT_RE.match(text)
        if m:
            self.starts.append(InitcallMark(ts, m.group(1)))
        c = self.cur
        if ts < c.first:
            c.first = ts
        if cpu and ts < c.cpu_first.get(cpu, BIG):
            c.cpu_first[cpu] = ts
        if ts > c.last:
            c.last = ts

    def start_open(self) -> None:
        self._open = []

    def close_open(self, last_ts: Optional[int]) -> None:
        """Calls still open at the end of an input (start_kernel() in
        the early file, kernel_init's callers in the main one) last
        until the input's last timestamp."""
        raw_end = max(self.cur.last - self.cur.shift, last_ts or 0)
        for call in self._open:
            call.dur = max(call.start, raw_end) - call.start
            call.flags &= ~UNFINISHED
            self.sink(call)
        self._open = []


def check_overlap(inputs: List[Input]) -> Optional[str]:
    """Inputs sorted by time; a message when the calls of two of them
    overlap.  Events may: the main buffer's initcall events start
    before the early buffer's last calls, which run until the regular
    tracer starts."""
    used = [i for i in inputs if i.calls]
    used.sort(key=lambda i: i.call_first)
    inputs[:] = used + [i for i in inputs if not i.calls]
    for a, b in zip(used, used[1:]):
        if b.call_first < a.call_last:
            return ("%s (%.6f .. %.6f s) and %s (%.6f .. %.6f s) overlap "
                    "by %.3f ms: they are not one boot, or one holds the "
                    "other's records (the early records copied into the "
                    "main buffer); give each boot's records once" % (
                        a.name, a.call_first / 1e9, a.call_last / 1e9,
                        b.name, b.call_first / 1e9, b.call_last / 1e9,
                        (a.call_last - b.call_first) / 1e6))
    return None


def read_system_map(path: str) -> Dict[str, str]:
    """Initcall function -> level number, from the initcall section of
    a System.map (symbols between __initcallN_start markers)."""
    starts: List[Tuple[int, str]] = []
    calls: List[Tuple[int, str]] = []
    end = -1
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except OSError as err:
        raise FtdError("%s: cannot open: %s" % (path, err.strerror))
    with f:
        for n, line in enumerate(f, 1):
            m = MAP_LINE_RE.match(line.strip())
            if m is None:
                if line.strip():
                    raise FtdError("%s:%d: not a System.map line: %s" % (
                        path, n, line.strip()[:80]))
                continue
            addr = int(m.group(1), 16)
            sym = m.group(2)
            if sym == "__initcall_start":
                starts.append((addr, "early"))
            elif sym == "__initcall_end":
                end = addr
            elif sym.startswith("__initcall") and sym.endswith("_start"):
                lv = sym[len("__initcall"):-len("_start")]
                if lv.isdigit():
                    starts.append((addr, lv))
            elif sym.startswith("__initcall_"):
                mn = MAP_NAME_RE.match(sym)
                if mn:
                    calls.append((addr, mn.group(1)))
    if not starts or end < 0:
        raise FtdError("%s: no initcall section markers (__initcall_start,"
                       " __initcall0_start .. __initcall_end)" % path)
    starts.sort()
    out: Dict[str, str] = {}
    for addr, fn in calls:
        if addr >= end:
            continue
        lv = ""
        for a, name in starts:
            if a <= addr:
                lv = name
        if lv:
            out[fn] = lv
    return out


# initcall_debug's lines in a kernel log (init/main.c,
# trace_initcall_start_cb() and trace_initcall_finish_cb()), after the
# printk time ("[    1.234567]", maybe with a caller id "[    T1]"):
#   calling  pty_init+0x0/0x48 @ 1
#   initcall pty_init+0x0/0x48 returned 0 after 48033946 usecs
DMESG_TIME_RE = re.compile(
    r"^(?:<\d+>)?\[\s*(\d+)\.(\d{1,9})\](?:\[\s*[TC]\d+\])?\s?(.*)$")
DMESG_CALL_RE = re.compile(
    r"calling\s+([\w.$]+)(?:\+0x[0-9a-fA-F]+/0x[0-9a-fA-F]+)?"
    r"(?:\s+\[[^\]]+\])?\s+@\s+(\d+)\s*$")
DMESG_RET_RE = re.compile(
    r"initcall\s+([\w.$]+)(?:\+0x[0-9a-fA-F]+/0x[0-9a-fA-F]+)?"
    r"(?:\s+\[[^\]]+\])?\s+returned\s+-?\d+\s+after\s+\d+\s+usecs")


@dataclasses.dataclass
class InitcallLog:
    """initcall_debug's lines of pid 1 in a kernel log, in time order
    (the printk time is cut to us)."""

    path: str
    lines: List[InitcallMark]


def read_dmesg(path: str) -> InitcallLog:
    """The initcall_debug lines of pid 1 in a dmesg (or console log);
    FtdError names the file and line of one without a printk time."""
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except OSError as err:
        raise FtdError("%s: cannot open: %s" % (path, err.strerror))
    calls: List[Tuple[int, str, int]] = []
    rets: List[Tuple[int, str, int]] = []
    with f:
        for n, line in enumerate(f, 1):
            text = line.rstrip("\r\n")
            m = DMESG_TIME_RE.match(text)
            body = m.group(3) if m else text
            mc = DMESG_CALL_RE.search(body)
            mr = None if mc else DMESG_RET_RE.search(body)
            if mc is None and mr is None:
                continue
            if m is None:
                raise FtdError(
                    "%s:%d: an initcall_debug line without a printk time "
                    "(boot with printk.time=1): %s" % (path, n,
                                                       text.strip()[:80]))
            ns = int(m.group(1)) * 1000000000 + \
                int((m.group(2) + "00000000")[:9])
            if mc is not None:
                calls.append((ns, mc.group(1), int(mc.group(2))))
            else:
                assert mr is not None
                rets.append((ns, mr.group(1), n))
    if not calls:
        raise FtdError("%s: no initcall_debug lines (\"calling  "
                       "fn+0x0/0x.. @ 1\"): boot with initcall_debug and "
                       "save dmesg" % path)
    ones = {fn for _, fn, pid in calls if pid == 1}
    out = [(t, fn) for t, fn, pid in calls if pid == 1]
    # a return line has no pid: taken for pid 1's initcalls
    out += [(t, fn) for t, fn, _ in rets if fn in ones]
    out.sort()
    return InitcallLog(path, [InitcallMark(t, fn) for t, fn in out])
