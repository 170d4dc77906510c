# SPDX-License-Identifier: GPL-2.0
"""The boot view: where the time between the first traced call and the
exec of /init went.

The inputs (the early-boot file and the main trace buffer, or either)
are merged into one Timeline.  The boot runs on one path of execution:
the idle task (pid 0) of the boot CPU until kernel_init (pid 1) shows
up, then pid 1.  Every nanosecond of that path from the first record to
the end of the boot is given to exactly one row:

- time inside a printk/console function: the console row;
- time inside a delay function: a delay row named after the phase the
  delay happened in;
- otherwise the phase of the outermost function that names one:
  setup_arch, mm init, one initcall (with its level), or other;
- time that no record of the boot path covers: not traced.

So the rows add up to the total.  See Documentation/tools/ftd/ftd.rst,
section BOOT VIEW, for the function sets and how levels are found.
"""

from __future__ import annotations

import bisect
import dataclasses
import fnmatch
import json
import re
from typing import (Callable, Dict, List, Optional, Sequence, TextIO,
                    Tuple)

from .model import BIG, FtdError
from .tasks import idle_key, is_unknown, pid_of, task_cpu
from .pairing import UNFINISHED, Call
from .bootholds import SchedEvents
from .timeline import Timeline
from .table import Column, text_col, write_table

# printk and console output: the printk entry points, the console
# flush and the console drivers' write functions (pl011 on the QEMU
# virt machine, the 8250 family elsewhere).
CONSOLE = ["printk", "_printk", "vprintk*", "printk_*", "__dev_printk",
           "dev_printk_emit", "dev_vprintk_emit", "_dev_info", "_dev_notice",
           "_dev_warn", "_dev_err", "console_unlock", "console_flush_all",
           "console_emit_next_record", "*_console_write",
           "uart_console_write", "early_printk", "printascii"]
# Waiting on purpose: busy-wait delays (the ARM delay loop and timer
# delays included) and sleeping delays.
DELAY = ["udelay", "mdelay", "ndelay", "__delay", "__udelay",
         "__const_udelay", "__loop_delay", "__loop_udelay",
         "__loop_const_udelay", "__timer_delay", "__timer_udelay",
         "__timer_const_udelay", "msleep", "msleep_interruptible", "ssleep",
         "fsleep", "usleep_range", "usleep_range_state"]
# Memory management set-up in start_kernel() (6.12).
MM = ["mm_core_init", "mm_core_init_early", "build_all_zonelists",
      "page_alloc_init_cpuhp", "setup_per_cpu_areas", "kmem_cache_init_late",
      "setup_per_cpu_pageset", "page_alloc_init_late", "mem_init",
      "kmem_cache_init", "vmalloc_init", "pgtable_cache_init"]
# Functions the boot passes through that name no phase of their own:
# time in them directly counts as "other", time below them goes by the
# first function that is not one of them.
WRAPPERS = {"start_kernel", "rest_init", "arch_call_rest_init",
            "kernel_init", "kernel_init_freeable", "do_basic_setup",
            "do_initcalls", "ret_from_fork"}
# The exec of /init ends the boot.
END_FUNCS = ("run_init_process", "try_to_run_init_process",
             "kernel_execve")

LEVELS = ["early", "pure", "core", "postcore", "arch", "subsys", "fs",
          "device", "late"]
LEVEL_NO = {"early": "early", "pure": "0", "core": "1", "postcore": "2",
            "arch": "3", "subsys": "4", "fs": "5", "rootfs": "5",
            "device": "6", "late": "7"}
LEVEL_EVENT_RE = re.compile(r"/\* initcall_level: level=(\w+)")
CLOCK_RE = re.compile(r"# clock: architecture counter at (\d+) Hz")
UNTIL_RE = re.compile(r"# fgraph_boot: .* from start_kernel\(\) until (.*)")
THRESH_RE = re.compile(r"# threshold: (\d+) us")
RECORDS_RE = re.compile(r"# records: (\d+) of (\d+) .*dropped calls: (\d+)")
SYNC_RE = re.compile(r"# local_clock\(\) was (\d+) ns at counter (\d+)")
START_EVENT_RE = re.compile(r"/\* initcall_start: func=([^+ ]+)")
MAP_LINE_RE = re.compile(r"([0-9a-fA-F]+) \w (\S+)$")
MAP_NAME_RE = re.compile(
    r"__initcall_+(?:kmod_\w*?__\d+_\d+_)?(\w+?)(early|rootfs|con|[0-7]s?)$")


def globs(patterns: Sequence[str]):  # type: ignore[no-untyped-def]
    plain = {p for p in patterns if not any(c in p for c in "*?[")}
    wild = [p for p in patterns if p not in plain]
    cache: Dict[str, bool] = {}

    def match(name: str) -> bool:
        hit = cache.get(name)
        if hit is None:
            hit = name in plain or any(fnmatch.fnmatchcase(name, g)
                                       for g in wild)
            cache[name] = hit
        return hit
    return match


is_console = globs(CONSOLE)
is_delay = globs(DELAY)
is_mm = globs(MM)


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

    @property
    def full(self) -> bool:
        """The early buffer was full when recording ended."""
        return "buffer full" in self.until or \
            "buffer filled up" in self.until or self.dropped > 0


@dataclasses.dataclass
class Row:
    kind: str          # setup_arch mm initcall probe delay console
    level: str         # other gap; initcall level ("early", "0".."7",
    name: str          # "?") or ""
    ns: int = 0
    first: int = BIG   # first time this row got time
    # the phase row (kind, level, name) this row is shown under: its
    # own for phases; an initcall for its probes, delays and console
    group: Tuple[str, str, str] = ("", "", "")


@dataclasses.dataclass
class BootView:
    inputs: List[Input]
    start: int
    end: int
    end_reason: str
    rows: List[Row]
    gaps: List[Tuple[int, int, str]]
    level_source: str
    levels: Dict[str, List[int]]   # level -> [initcalls, ns]
    notes: List[str]
    tracks: List[str]              # the boot path's tracks, in order
    # the boot path: (track, from, until) pieces in time order
    pieces: List[Tuple[str, int, int]] = dataclasses.field(
        default_factory=list)

    @property
    def total(self) -> int:
        return self.end - self.start

    @property
    def traced(self) -> int:
        return self.total - sum(b - a for a, b, _ in self.gaps)


class Collector:
    """Collects the calls and initcall_level events of several inputs
    into one Timeline, one track per task, with the idle task of each
    CPU and the task-less lines of a CPU on the same track."""

    def __init__(self) -> None:
        self.tl = Timeline("task")
        self.inputs: List[Input] = []
        self.events: List[Tuple[int, str, str]] = []   # ts, track, level
        self.starts: List[Tuple[int, str]] = []   # initcall_start: ts, fn
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
            return idle_key(key[2:])
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

    def header(self, text: str) -> None:
        """The early-boot file's header: its clock, and one reading of
        local_clock() (the main trace's clock) with the counter."""
        c = self.cur
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
            self.events.append((ts, self.track(key, cpu), m.group(1)))
        m = START_EVENT_RE.match(text)
        if m:
            self.starts.append((ts, m.group(1)))
        c = self.cur
        if ts < c.first:
            c.first = ts
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


class Levels:
    """Which initcall level a call on the boot path belongs to."""

    def __init__(self, events: List[Tuple[int, str, str]],
                 sysmap: Optional[Dict[str, str]],
                 level_calls: List[Tuple[int, int]],
                 pre_smp: List[Tuple[int, int]]) -> None:
        self.events = sorted((t, LEVEL_NO.get(lv, "?"))
                             for t, _, lv in events)
        self.sysmap = sysmap
        self.notes: List[str] = []
        # do_initcall_level() calls, in time order, numbered
        self.calls: List[Tuple[int, int, str]] = []
        lc = sorted(level_calls)
        if len(lc) == 8:
            self.calls = [(s, e, str(i)) for i, (s, e) in enumerate(lc)]
        elif lc:
            # Counted back from late (7): the tracer starts after the
            # first levels, and tracing_thresh drops short levels.
            self.calls = [(s, e, str(8 - len(lc) + i))
                          for i, (s, e) in enumerate(lc)]
            self.notes.append(
                "%d do_initcall_level() calls traced, not 8: numbered "
                "back from level 7; a level shorter than tracing_thresh "
                "between them would shift the earlier ones (events or "
                "--system-map avoid this)" % len(lc))
        self.calls += [(s, e, "early") for s, e in pre_smp]
        if self.events:
            self.source = "initcall_level trace events"
        elif sysmap:
            self.source = "System.map"
        elif self.calls:
            self.source = "order of do_initcall_level() calls"
        else:
            self.source = "none"

    def level(self, fn: str, t: int) -> str:
        if self.events:
            lv = ""
            for et, name in self.events:
                if et > t:
                    break
                lv = name
            if lv:
                return lv
            # before the first event seen: the level before it (the
            # events of the first levels are lost when the tracer
            # starts, which clears the buffer)
            first = self.events[0][1]
            if first.isdigit():
                return str(int(first) - 1) if first != "0" else "early"
        if self.sysmap and fn in self.sysmap:
            return self.sysmap[fn]
        for s, e, name in self.calls:
            if s <= t < e:
                return name
        return "?"


def _boot_tracks(tl: Timeline) -> Tuple[List[Tuple[str, int, int]], str]:
    """The boot path: (track, from, until) pieces in time order."""
    first: Dict[str, int] = {t: min(v.s) for t, v in tl.tracks.items()
                             if len(v.s)}
    if not first:
        return [], ""
    t0 = min(first.values())
    boot_cpu = ""
    for t, s in first.items():
        if s == t0:
            boot_cpu = task_cpu(t)
    idle = idle_key(boot_cpu) if boot_cpu else ""
    init = [t for t in first if pid_of(t) == 1]
    pieces: List[Tuple[str, int, int]] = []
    if init:
        # pid 1 may have one track per input: the early file names it
        # as it was called when the early records switched to it, the
        # main trace as it was called later
        init.sort(key=lambda t: first[t])
        it = init[0]
        if idle in first and first[idle] < first[it]:
            pieces.append((idle, first[idle], first[it]))
        for a, b in zip(init, init[1:] + [""]):
            pieces.append((a, first[a], first[b] if b else BIG))
        return pieces, it
    if idle in first:
        pieces.append((idle, first[idle], BIG))
    return pieces, ""


def analyse(col: Collector, sysmap: Optional[Dict[str, str]] = None,
            until: Optional[int] = None) -> BootView:
    tl = col.tl
    notes: List[str] = []
    col.inputs.sort(key=lambda i: (i.calls == 0, i.first))
    pieces, init = _boot_tracks(tl)
    if not pieces:
        raise FtdError("no calls of the boot path (the idle task of the "
                       "boot CPU, then pid 1) in the input")
    if not init:
        notes.append("no calls of pid 1 (kernel_init): the boot path is "
                     "the idle task of the boot CPU alone; a main trace "
                     "needs funcgraph-proc to tell pid 1 apart")
    names = tl.name_list
    # nested records of the boot path, clipped to their pieces
    recs: List[List[int]] = []
    for track, lo, hi in pieces:
        # the first lane: its calls nest, and do not overlap in time
        # (the calls of the other lanes overlap them)
        for p in tl.lanes(track)[0]:
            if p[0] >= hi or p[1] <= lo:
                continue
            recs.append([max(p[0], lo), min(p[1], hi), p[2], p[3]])
    # the end of the boot: the exec of /init by pid 1
    end = max(r[1] for r in recs)
    if until is not None:
        end, end_reason = until, "--until"
    else:
        ends = [r for r in recs if names[r[3]] in END_FUNCS]
        if ends and init:
            first_end = min(ends, key=lambda r: (r[0], r[2]))
            end = first_end[1]
            end_reason = "return of %s() (exec of /init)" % \
                names[first_end[3]]
        else:
            end_reason = "last record: no run_init_process() or " \
                "kernel_execve() of pid 1"
            notes.append("no exec of /init found on the boot path: the "
                         "view ends at the last record")
    recs = [[r[0], min(r[1], end), r[2], r[3]] for r in recs
            if r[0] < end]
    if not recs:
        raise FtdError("no calls of the boot path before the end of the "
                       "boot (%.6f s)" % (end / 1e9))
    start = min(r[0] for r in recs)
    level_calls = [(r[0], r[1]) for r in recs
                   if names[r[3]] == "do_initcall_level"]
    pre_smp = [(r[0], r[1]) for r in recs
               if names[r[3]] == "do_pre_smp_initcalls"]
    levels = Levels(col.events, sysmap, level_calls, pre_smp)
    notes += levels.notes

    starts = sorted(col.starts)
    start_ts = [t for t, _ in starts]

    def initcall_name(rec: List[int]) -> str:
        """The initcall_start event inside a do_one_initcall() call."""
        i = bisect.bisect_left(start_ts, rec[0])
        if i < len(starts) and starts[i][0] < rec[1]:
            return starts[i][1]
        return ""

    rows: Dict[Tuple[str, str, str], Row] = {}
    lv_sum: Dict[str, List[int]] = {}   # level -> [initcalls, ns]

    def give(kind: str, level: str, name: str, ns: int, t: int,
             group: Optional[Tuple[str, str, str]] = None) -> None:
        if ns <= 0:
            return
        key = (kind, level, name)
        row = rows.get(key)
        if row is None:
            row = rows[key] = Row(kind, level, name, group=group or key)
            if kind == "initcall" and not name.startswith("("):
                lv_sum.setdefault(level, [0, 0])[0] += 1
        row.ns += ns
        if t < row.first:
            row.first = t

    def phase(stack: List[List[int]]) -> Tuple[str, str, str]:
        path = [names[r[3]] for r in stack]
        for i, fn in enumerate(path):
            if fn in WRAPPERS:
                continue
            if fn == "setup_arch":
                return "setup_arch", "", "setup_arch"
            if is_mm(fn):
                return "mm", "", "mm init"
            if fn in INITCALL_FUNCS:
                j = i
                while j < len(path) and path[j] in INITCALL_FUNCS:
                    j += 1
                call = ""
                if path[j - 1] == "do_one_initcall":
                    call = initcall_name(stack[j - 1])
                    if not call and j < len(path):
                        call = path[j]
                t = stack[min(j, len(stack) - 1)][0]
                lv = levels.level(call, t)
                return "initcall", lv, call or "(rest of the level)"
            return "other", "", fn
        return "other", "", path[-1] if path else "?"

    # the driver's probe function of each device probe: the first
    # call named *probe below really_probe() that is reached through
    # bus probe functions only (not really_probe()'s or the bus's own
    # helpers, like of_irq_get() in amba_probe())
    drivers: Dict[int, str] = {}
    pstack: List[List[int]] = []
    for r in recs:
        while pstack and pstack[-1][2] >= r[2]:
            pstack.pop()
        pstack.append(r)
        fn = names[r[3]]
        if is_probe_wrapper(fn) or len(pstack) < 2 or \
                not fn.endswith("probe"):
            continue
        k = len(pstack) - 2
        while k >= 0 and is_probe_wrapper(names[pstack[k][3]]) and \
                names[pstack[k][3]] not in PROBE_ENTRY:
            k -= 1
        if k >= 0 and k < len(pstack) - 2 and \
                names[pstack[k][3]] in PROBE_ENTRY:
            drivers.setdefault(id(pstack[k]), fn)
    del pstack

    def probe(stack: List[List[int]]) -> Optional[str]:
        """The driver probe function of the innermost device probe on
        the stack, "" when the trace does not show it, None when no
        probe is on the stack."""
        for r in reversed(stack):
            if names[r[3]] in PROBE_ENTRY:
                return drivers.get(id(r), "")
        return None

    def where(stack: List[List[int]]) -> Tuple[Tuple[str, str, str], str]:
        """The phase of a stack (the group of its row) and its name in
        the names of delay and console rows."""
        key = phase(stack)
        kind, lv, name = key
        text = name if kind != "initcall" else "initcall %s %s" % (lv, name)
        if kind == "initcall":
            drv = probe(stack)
            if drv is not None:
                text = "probe %s (%s)" % (drv or "(not traced)", text)
        return key, text

    def close(stack: List[List[int]], child: List[int]) -> None:
        r = stack[-1]
        own = (r[1] - r[0]) - child[-1]
        kind, lv, name = phase(stack)
        if kind == "initcall":
            lv_sum.setdefault(lv, [0, 0])[1] += own
        path = [names[x[3]] for x in stack]
        for k, fn in enumerate(path):
            if is_console(fn):
                grp, text = where(stack[:k])
                give("console", grp[1], "printk/console in %s" % text, own,
                     r[0], grp)
                break
        else:
            for k, fn in enumerate(path):
                if is_delay(fn):
                    grp, text = where(stack[:k])
                    give("delay", grp[1], "%s in %s" % (fn, text), own,
                         r[0], grp)
                    break
            else:
                drv = probe(stack) if kind == "initcall" else None
                if drv is not None:
                    give("probe", lv, "%s (initcall %s %s)" % (
                        drv or "(probe function not traced)", lv, name),
                        own, r[0], (kind, lv, name))
                else:
                    give(kind, lv, name, own, r[0])
        stack.pop()
        child.pop()
        if child:
            child[-1] += r[1] - r[0]

    # exclusive time of every record, by its stack; recs are in the
    # order nested() built them, pieces one after the other, so the
    # levels alone say who is whose caller
    stack: List[List[int]] = []
    child: List[int] = []
    tops: List[List[int]] = []
    callee: Dict[int, str] = {}   # id of a top record -> first callee
    for r in recs:
        while stack and stack[-1][2] >= r[2]:
            close(stack, child)
        if not stack:
            tops.append(r)
        elif len(stack) == 1 and id(stack[0]) not in callee:
            callee[id(stack[0])] = names[r[3]]
        stack.append(r)
        child.append(0)
    while stack:
        close(stack, child)

    def level_of(top: List[int]) -> str:
        return levels.level(callee.get(id(top), ""), top[0])
    gaps = _gaps(col, tops, start, end, names, levels, level_of)
    for a, b, name in gaps:
        lv = ""
        if name.startswith(GAP_LEVEL):
            lv = name[len(GAP_LEVEL):].split(" ")[0]
            lv_sum.setdefault(lv, [0, 0])[1] += b - a
        give("gap", lv, name, b - a, a)

    if levels.source == "none" and lv_sum:
        notes.append(
            "initcall levels unknown: no initcall_level events, no "
            "do_initcall_level() records, no --system-map; boot with "
            "trace_event=initcall:initcall_level or pass --system-map")
    order = ["early"] + [str(i) for i in range(8)]
    missing = [lv for lv in order if lv not in lv_sum]
    if lv_sum and missing:
        notes.append(
            "no time found for initcall level%s %s: shorter than "
            "tracing_thresh, or run before the tracer started" % (
                "s" if len(missing) > 1 else "", ", ".join(missing)))
    notes += _full_notes(col.inputs, gaps)
    # rows in boot order, each phase's probes, delays and console
    # output right under it (in the order they first got time)
    gfirst: Dict[Tuple[str, str, str], int] = {}
    for row in rows.values():
        gfirst[row.group] = min(gfirst.get(row.group, BIG), row.first)
    out = sorted(rows.values(), key=lambda r: (
        gfirst[r.group], r.group, (r.kind, r.level, r.name) != r.group,
        r.first, r.kind, r.name))
    return BootView(list(col.inputs), start, end, end_reason, out, gaps,
                    levels.source, lv_sum, notes, [p[0] for p in pieces],
                    list(pieces))


# A device probe: really_probe() and the bus probe functions between
# it and the driver's own probe function.
PROBE_ENTRY = ("really_probe", "__driver_probe_device",
               "driver_probe_device")
is_probe_wrapper = globs(list(PROBE_ENTRY) + [
    "call_driver_probe", "platform_probe", "amba_probe", "virtio_dev_probe",
    "pci_device_probe", "local_pci_probe", "i2c_device_probe", "spi_probe",
    "usb_probe_interface", "usb_probe_device", "mmc_bus_probe",
    "sdio_bus_probe", "serio_driver_probe", "*_bus_probe"])


def _full_notes(inputs: List[Input], gaps: List[Tuple[int, int, str]]
                ) -> List[str]:
    """What closes a gap between two inputs that the early buffer
    filling up left."""
    out = []
    for i in inputs:
        if not i.full:
            continue
        between = [(a, b) for a, b, name in gaps
                   if name.startswith("not traced: between %s and " %
                                      i.name)]
        if not between:
            continue
        ns = sum(b - a for a, b in between)
        thresh = "fgraph_boot_thresh=100" if i.thresh_us < 100 else \
            "a higher fgraph_boot_thresh= than %d" % i.thresh_us
        out.append(
            "%s ends with its buffer full (header: until %s%s), and "
            "%.3f ms after it are not traced: boot with %s (the early "
            "buffer keeps only the calls that take that many us; it is "
            "%d us now) or build a larger buffer "
            "(CONFIG_FGRAPH_BOOT_BUFFER_SIZE, %s records now); see "
            "Documentation/trace/fgraph-boot.rst" % (
                i.name, i.until or "?",
                ", %d calls dropped" % i.dropped if i.dropped > 0 else "",
                ns / 1e6, thresh, i.thresh_us,
                i.capacity if i.capacity >= 0 else "?"))
    return out


INITCALL_FUNCS = ("do_initcall_level", "do_pre_smp_initcalls",
                  "do_one_initcall")
GAP_LEVEL = "not traced: initcall level "


def _gaps(col: Collector, tops: List[List[int]], start: int, end: int,
          names: List[str], levels: Levels,
          level_of: Callable[[List[int]], str]
          ) -> List[Tuple[int, int, str]]:
    """Time of the boot path that no record covers, named: between two
    inputs, inside an initcall level (between two traced initcalls: the
    initcalls shorter than the threshold), or between records."""
    bounds = sorted((i.first, i.last, i.name) for i in col.inputs
                    if i.calls)
    out: List[Tuple[int, int, str]] = []

    def add(a: int, b: int, prev: Optional[List[int]],
            nxt: Optional[List[int]]) -> None:
        for (_, l1, n1), (f2, _, n2) in zip(bounds, bounds[1:]):
            if a <= l1 and b >= f2:
                out.append((a, b, "not traced: between %s and %s" % (
                    n1, n2)))
                return
        if prev is not None and nxt is not None and \
                names[prev[3]] in INITCALL_FUNCS and \
                names[nxt[3]] in INITCALL_FUNCS:
            # split at level events inside the gap
            cuts = [t for t, _ in levels.events if a < t < b]
            lp, ln = level_of(prev), level_of(nxt)
            for x, y in zip([a] + cuts, cuts + [b]):
                if levels.events:
                    lv = levels.level("", y - 1)
                else:
                    lv = lp if lp == ln else "%s..%s" % (lp, ln)
                out.append((x, y, GAP_LEVEL + "%s (initcalls under the "
                            "threshold)" % lv))
            return
        out.append((a, b, "not traced: between records"))

    t = start
    prev: Optional[List[int]] = None
    for r in sorted(tops):
        if r[0] > t:
            add(t, r[0], prev, r)
        if r[1] > t:
            t = r[1]
        prev = r
    if t < end:
        add(t, end, prev, None)
    return out


def fold_small(view: BootView, min_ns: int) -> List[Row]:
    """Rows under min_ns folded into one row per kind (and level)."""
    if min_ns <= 0:
        return list(view.rows)
    out: List[Row] = []
    small: Dict[Tuple[str, str], Row] = {}
    for r in view.rows:
        if r.ns >= min_ns:
            out.append(r)
            continue
        k = (r.kind, r.level)
        f = small.get(k)
        if f is None:
            f = small[k] = Row(r.kind, r.level, "", 0, r.first)
            f.name = "0"
            out.append(f)
        f.ns += r.ns
        f.name = str(int(f.name) + 1)
    for f in small.values():
        f.name = "(%s smaller row%s)" % (f.name, "" if f.name == "1" else "s")
    return out


def level_label(lv: str) -> str:
    if lv == "early":
        return "early"
    if lv.isdigit() and int(lv) + 1 < len(LEVELS):
        return "%s %s" % (lv, LEVELS[int(lv) + 1])
    return lv or ""


KIND_LABEL = {"setup_arch": "setup_arch", "mm": "mm init",
              "initcall": "initcall", "delay": "delay",
              "console": "console", "other": "other", "gap": "not traced"}
FIELDS = ["kind", "level", "name", "first_s", "time_us", "percent"]


def row_dicts(view: BootView, rows: Sequence[Row]) -> List[Dict[str, object]]:
    tot = max(view.total, 1)
    return [{"kind": r.kind, "level": r.level, "name": r.name,
             "first_s": round(r.first / 1e9, 6),
             "time_us": round(r.ns / 1000.0, 3),
             "percent": round(100.0 * r.ns / tot, 3)} for r in rows]


def view_dict(view: BootView, rows: Sequence[Row]) -> Dict[str, object]:
    return {
        "inputs": [{"file": i.name, "first_s": i.first / 1e9 if i.calls
                    else None, "last_s": i.last / 1e9 if i.calls else None,
                    "calls": i.calls, "shift_s": i.shift / 1e9}
                   for i in view.inputs],
        "start_s": view.start / 1e9,
        "end_s": view.end / 1e9,
        "end": view.end_reason,
        "total_us": round(view.total / 1000.0, 3),
        "traced_us": round(view.traced / 1000.0, 3),
        "not_traced_us": round((view.total - view.traced) / 1000.0, 3),
        "level_source": view.level_source,
        "levels": {lv: {"initcalls": v[0], "time_us": round(v[1] / 1000.0,
                                                            3)}
                   for lv, v in sorted(view.levels.items(),
                                       key=lambda kv: _lv_key(kv[0]))},
        "rows": row_dicts(view, rows),
        "gaps": [{"start_s": a / 1e9, "end_s": b / 1e9,
                  "time_us": round((b - a) / 1000.0, 3), "what": name}
                 for a, b, name in view.gaps],
        "notes": view.notes,
    }


def _lv_key(lv: str) -> Tuple[int, str]:
    if lv == "early":
        return (-1, lv)
    head = lv.split("..")[0]
    return (int(head), lv) if head.isdigit() else (99, lv)


def boot_columns(view: BootView) -> List[Column]:
    """The boot table: kind, level, name, first time, time, share."""
    tot = max(view.total, 1)
    return [
        Column("Kind", "kind", lambda r: KIND_LABEL.get(r.kind, r.kind),
               lambda r: r.kind, left=True),
        Column("Level", "level", lambda r: level_label(r.level),
               lambda r: r.level, left=True),
        text_col("Name", "name", lambda r: r.name, width=56),
        Column("First(s)", "first_s", lambda r: "%.6f" % (r.first / 1e9),
               lambda r: round(r.first / 1e9, 6),
               lambda r: "%.6f" % (r.first / 1e9)),
        Column("Time(ms)", "time_us", lambda r: "%.3f" % (r.ns / 1e6),
               lambda r: round(r.ns / 1000.0, 3),
               lambda r: "%.3f" % (r.ns / 1000.0)),
        Column("%", "percent", lambda r: "%.1f" % (100.0 * r.ns / tot),
               lambda r: round(100.0 * r.ns / tot, 3),
               lambda r: "%.3f" % (100.0 * r.ns / tot)),
    ]


def write_boot(out: TextIO, view: BootView, rows: Sequence[Row],
               fmt: str, extra_json: Optional[Dict[str, object]] = None,
               sections: Optional[Callable[[TextIO], None]] = None
               ) -> None:
    """The boot view in fmt; extra_json goes into the JSON document,
    sections writes the text sections that follow the table."""
    if fmt == "json":
        d = view_dict(view, rows)
        d.update(extra_json or {})
        out.write(json.dumps(d, indent=1) + "\n")
        return
    if fmt == "csv":
        write_table(out, boot_columns(view), rows, "csv")
        return
    tot = max(view.total, 1)
    for i in view.inputs:
        if i.calls:
            out.write("input  %s: %.6f .. %.6f s, %d calls%s\n" % (
                i.name, i.first / 1e9, i.last / 1e9, i.calls,
                ", counter times moved by %+.6f s to local_clock()" %
                (i.shift / 1e9) if i.shift else ""))
        else:
            out.write("input  %s: no calls\n" % i.name)
    out.write("boot   %.6f .. %.6f s, ends at the %s\n" % (
        view.start / 1e9, view.end / 1e9, view.end_reason))
    out.write("total  %.3f ms: traced %.3f ms (%.1f%%), not traced "
              "%.3f ms in %d gaps\n" % (
                  view.total / 1e6, view.traced / 1e6,
                  100.0 * view.traced / tot,
                  (view.total - view.traced) / 1e6, len(view.gaps)))
    out.write("levels from %s\n\n" % view.level_source)
    total = Row("total", "", "", view.total)
    cols = boot_columns(view)
    cols[0].text = lambda r: r.kind if r is total else \
        KIND_LABEL.get(r.kind, r.kind)
    cols[3].text = lambda r: "" if r is total else "%.6f" % (r.first / 1e9)
    write_table(out, cols, rows, "text", footer=total)
    if sections is not None:
        sections(out)
    if view.levels:
        out.write("\nInitcall levels (traced initcalls, time in ms "
                  "including their delays, console and untraced "
                  "initcalls):\n")
        for lv, v in sorted(view.levels.items(),
                            key=lambda kv: _lv_key(kv[0])):
            out.write("  %-12s %4d initcalls %12.3f ms\n" % (
                level_label(lv), v[0], v[1] / 1e6))
    big = sorted(view.gaps, key=lambda g: g[0] - g[1])[:5]
    if big:
        out.write("\nLargest gaps (ms):\n")
        for a, b, name in sorted(big):
            out.write("  %10.3f  %.6f .. %.6f s  %s\n" % (
                (b - a) / 1e6, a / 1e9, b / 1e9, name))
    for n in view.notes:
        out.write("note: %s\n" % n)
