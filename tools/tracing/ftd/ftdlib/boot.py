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

The boot family, the way pm-graph's bootgraph.py sits on aslib:
bootinput.py reads the inputs (the traces merged into one Timeline,
the early-boot header, System.map, the dmesg's initcall_debug lines),
this module and bootholds.py analyse them (rows, levels, gaps; waits
and whom they are blamed on), bootwrite.py, bootstacks.py and
bootcounts.py write the results.
"""

from __future__ import annotations

import bisect
import dataclasses
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple

from .analysis import matcher
from .bootholds import is_irq
from .bootinput import (BootInputs, InitcallLog, InitcallMark, Input,
                        LevelEvent, SavedStats)
from .model import BIG, FtdError
from .tasks import idle_key, pid_of, task_cpu
from .timeline import Placed, Timeline

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

# initcall_debug's callbacks: do_one_initcall() calls them around the
# initcall, and they print "calling ..." and "initcall ... returned"
# to the console.
DEBUG_CALLBACKS = ("trace_initcall_start_cb", "trace_initcall_finish_cb")
DEBUG_SET = frozenset(DEBUG_CALLBACKS)
DEBUG_ROW = "initcall_debug printing"
NOT_TRACED = "(initcall not traced)"
# Functions that run directly below do_one_initcall() and are not the
# initcall: what do_one_initcall() calls itself (the initcall_debug
# callbacks, the tracepoints, add_latent_entropy()), interrupt and
# exception entries, the scheduler, printk and delays.
NOT_INITCALL = list(DEBUG_CALLBACKS) + [
    "do_trace_initcall_*", "__traceiter_*", "trace_event_raw_event_*",
    "tracepoint_*", "__tracepoint_*", "initcall_blacklisted",
    "add_latent_entropy", "add_device_randomness", "__warn*",
    "warn_slowpath*", "asm_*", "exc_*", "sysvec_*", "el1_*", "el0_*",
    "do_page_fault", "do_DataAbort", "do_translation_fault",
    "do_mem_abort", "__do_kernel_fault", "handle_mm_fault",
    "*schedule*", "pick_next_*", "*_task_fair", "finish_task_switch*",
    "context_switch", "__switch_to", "preempt_*", "rcu_*"]

LEVELS = ["early", "pure", "core", "postcore", "arch", "subsys", "fs",
          "device", "late"]
LEVEL_NO = {"early": "early", "pure": "0", "core": "1", "postcore": "2",
            "arch": "3", "subsys": "4", "fs": "5", "rootfs": "5",
            "device": "6", "late": "7"}


is_console = matcher(CONSOLE)
is_delay = matcher(DELAY)
is_mm = matcher(MM)
_not_initcall = matcher(NOT_INITCALL)


def is_not_initcall(fn: str) -> bool:
    """A function below do_one_initcall() that is not the initcall."""
    return _not_initcall(fn) or is_irq(fn) or is_console(fn) or \
        is_delay(fn)


class Phase(NamedTuple):
    """The phase of the boot a stack is in: the row (kind, level, name)
    that its time goes to, or that its delays, console output and
    probes are shown under."""

    kind: str
    level: str
    name: str


@dataclasses.dataclass
class Row:
    kind: str          # setup_arch mm initcall probe delay console
    level: str         # other gap; initcall level ("early", "0".."7",
    name: str          # "?") or ""
    ns: int = 0
    first: int = BIG   # first time this row got time
    # the phase row this row is shown under: its own for phases; an
    # initcall for its probes, delays and console
    group: Phase = Phase("", "", "")

    @property
    def phase(self) -> Phase:
        """The row itself as a phase (its group when it is a phase's
        own row)."""
        return Phase(self.kind, self.level, self.name)


class LevelMark(NamedTuple):
    """An initcall_level event: from ts on, initcalls are of level."""

    ts: int         # ns
    level: str      # "0".."7", "early" or "?"


class Gap(NamedTuple):
    """Time of the boot path that no record covers."""

    start: int      # ns
    end: int
    what: str       # "not traced: ..."


class Piece(NamedTuple):
    """A piece of the boot path: the track that runs it, from when
    until when."""

    track: str
    start: int      # ns
    until: int      # ns, BIG: to the end


@dataclasses.dataclass
class LevelSum:
    """What one initcall level took on the boot path."""

    initcalls: int = 0  # the initcalls the trace names
    ns: int = 0         # its time, with its initcalls' delays and
                        # console output and the untraced initcalls
    calls: int = 0      # its do_one_initcall() calls, named or not


@dataclasses.dataclass
class BootView:
    inputs: List[Input]
    start: int
    end: int
    end_reason: str
    rows: List[Row]
    gaps: List[Gap]
    level_source: str
    levels: Dict[str, LevelSum]    # by initcall level
    notes: List[str]
    tracks: List[str]              # the boot path's tracks, in order
    # the boot path, in time order
    pieces: List[Piece] = dataclasses.field(
        default_factory=list)
    # do_one_initcall() calls by what named their initcall:
    # "initcall_start events", "dmesg lines", "entry lines" (with
    # " in System.map" when it checked them) or
    # "not traced"
    name_sources: Dict[str, int] = dataclasses.field(default_factory=dict)
    # the CPUs whose trace starts late (their buffer overwrote the
    # start)
    late_cpus: List["LateCpu"] = dataclasses.field(default_factory=list)

    @property
    def total(self) -> int:
        return self.end - self.start

    @property
    def traced(self) -> int:
        return self.total - sum(b - a for a, b, _ in self.gaps)


class Levels:
    """Which initcall level a call on the boot path belongs to."""

    def __init__(self, events: List[LevelEvent],
                 sysmap: Optional[Dict[str, str]],
                 level_calls: List[Tuple[int, int]],
                 pre_smp: List[Tuple[int, int]]) -> None:
        self.events = sorted(LevelMark(e.ts, LEVEL_NO.get(e.level, "?"))
                             for e in events)
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
            for mark in self.events:
                if mark.ts > t:
                    break
                lv = mark.level
            if lv:
                return lv
            # before the first event seen: the level before it (the
            # events of the first levels are lost when the tracer
            # starts, which clears the buffer)
            first = self.events[0].level
            if first.isdigit():
                return str(int(first) - 1) if first != "0" else "early"
        if self.sysmap and fn in self.sysmap:
            return self.sysmap[fn]
        for s, e, name in self.calls:
            if s <= t < e:
                return name
        return "?"


def _boot_tracks(tl: Timeline) -> Tuple[List[Piece], str]:
    """The boot path: its pieces in time order, and the track of pid 1
    it starts in ("" without one)."""
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
    pieces: List[Piece] = []
    if init:
        # pid 1 may have one track per input: the early file names it
        # as it was called when the early records switched to it, the
        # main trace as it was called later
        init.sort(key=lambda t: first[t])
        it = init[0]
        if idle in first and first[idle] < first[it]:
            pieces.append(Piece(idle, first[idle], first[it]))
        for a, b in zip(init, init[1:] + [""]):
            pieces.append(Piece(a, first[a], first[b] if b else BIG))
        return pieces, it
    if idle in first:
        pieces.append(Piece(idle, first[idle], BIG))
    return pieces, ""


def analyse(col: BootInputs, sysmap: Optional[Dict[str, str]] = None,
            until: Optional[int] = None,
            dmesg: Optional[InitcallLog] = None,
            stats: Optional[SavedStats] = None) -> BootView:
    """The boot view of the inputs in col: the boot path and its end,
    the initcalls named, every nanosecond charged to one row, the gaps,
    the levels' sums and the notes."""
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
    recs = _path_records(tl, pieces)
    end, end_reason = _boot_end(recs, names, bool(init), until, notes)
    recs = [Placed(r.start, min(r.end, end), r.level, r.fid, r.flags,
                   r.dur) for r in recs if r.start < end]
    if not recs:
        raise FtdError("no calls of the boot path before the end of the "
                       "boot (%.6f s)" % (end / 1e9))
    start = min(r.start for r in recs)
    level_calls = [(r.start, r.end) for r in recs
                   if names[r.fid] == "do_initcall_level"]
    pre_smp = [(r.start, r.end) for r in recs
               if names[r.fid] == "do_pre_smp_initcalls"]
    levels = Levels(col.events, sysmap, level_calls, pre_smp)
    notes += levels.notes
    naming = _name_initcalls(recs, names, col.starts, dmesg, sysmap)
    notes += naming.notes
    ch = _Charges(names, levels, naming.named, _probe_drivers(recs, names))
    ch.count_initcalls(naming.calls)
    tops, level_of = ch.charge_records(recs)
    gaps = _gaps(col, tops, start, end, names, levels, level_of)
    ch.charge_gaps(gaps)
    notes += _level_notes(levels, ch.lv_sum)
    notes += _full_notes(col.inputs, gaps)
    late = _late_cpus(col.inputs, gaps, end - start, stats)
    notes += [text for _, text in late]
    if stats is not None:
        notes += _overrun_notes(col.inputs, stats,
                                [short.cpu for short, _ in late])
    return BootView(list(col.inputs), start, end, end_reason,
                    _boot_order(ch.rows), gaps, levels.source, ch.lv_sum,
                    notes, [p.track for p in pieces], list(pieces),
                    naming.sources, [short for short, _ in late])


def _path_records(tl: Timeline, pieces: List[Piece]) -> List[Placed]:
    """The nested records of the boot path, clipped to their pieces."""
    recs: List[Placed] = []
    for track, lo, hi in pieces:
        # the first lane: its calls nest, and do not overlap in time
        # (the calls of the other lanes overlap them)
        for p in tl.lanes(track)[0]:
            if p.start >= hi or p.end <= lo:
                continue
            recs.append(Placed(max(p.start, lo), min(p.end, hi), p.level,
                               p.fid, p.flags, p.dur))
    return recs


def _boot_end(recs: List[Placed], names: List[str], init: bool,
              until: Optional[int], notes: List[str]) -> Tuple[int, str]:
    """The end of the boot and what ended it: the exec of /init by
    pid 1, --until, or the last record (with a note)."""
    if until is not None:
        return until, "--until"
    ends = [r for r in recs if names[r.fid] in END_FUNCS]
    if ends and init:
        first_end = min(ends, key=lambda r: (r.start, r.level))
        return first_end.end, "return of %s() (exec of /init)" % \
            names[first_end.fid]
    notes.append("no exec of /init found on the boot path: the view ends "
                 "at the last record")
    return max(r.end for r in recs), "last record: no run_init_process() " \
        "or kernel_execve() of pid 1"


class InitcallNames(NamedTuple):
    """The initcall of each do_one_initcall() call of the boot path."""

    calls: List[Placed]         # the do_one_initcall() calls
    named: Dict[int, str]       # id of a call -> its initcall, or ""
    sources: Dict[str, int]     # BootView.name_sources
    notes: List[str]


def _name_initcalls(recs: List[Placed], names: List[str],
                    marks: List[InitcallMark],
                    dmesg: Optional[InitcallLog],
                    sysmap: Optional[Dict[str, str]]) -> InitcallNames:
    """The initcall of each do_one_initcall() call, from what names it:
    its initcall_start event, initcall_debug's line in the dmesg file,
    or its own entry line (the one function it calls that is an
    initcall in System.map, or, without one, that is not one of
    do_one_initcall()'s own callees, an interrupt, the scheduler,
    printk or a delay); never from a callee further down."""
    starts = sorted(marks)
    start_ts = [s.ts for s in starts]

    def initcall_name(rec: Placed) -> str:
        """The initcall_start event inside a do_one_initcall() call."""
        i = bisect.bisect_left(start_ts, rec.start)
        if i < len(starts) and starts[i].ts < rec.end:
            return starts[i].fn
        return ""

    kids: Dict[int, List[str]] = {}
    ic_recs: List[Placed] = []
    nstack: List[Placed] = []
    for r in recs:
        while nstack and nstack[-1].level >= r.level:
            nstack.pop()
        if nstack and id(nstack[-1]) in kids:
            kids[id(nstack[-1])].append(names[r.fid])
        nstack.append(r)
        if names[r.fid] == "do_one_initcall":
            ic_recs.append(r)
            kids[id(r)] = []
    log: List[InitcallMark] = dmesg.lines if dmesg is not None else []
    log_ts = [m.ts for m in log]
    named: Dict[int, str] = {}
    sources: Dict[str, int] = {}
    for r in ic_recs:
        name, how = initcall_name(r), "initcall_start events"
        if not name and log:
            # the printk time is cut to us
            i = bisect.bisect_left(log_ts, r.start - 999)
            if i < len(log) and log[i].ts <= r.end:
                name, how = log[i].fn, "dmesg lines"
        if not name:
            own = {k for k in kids[id(r)]
                   if (k in sysmap if sysmap else not is_not_initcall(k))}
            if len(own) == 1:
                name, how = own.pop(), "entry lines" + (
                    " in System.map" if sysmap else "")
        if not name:
            how = "not traced"
        named[id(r)] = name
        sources[how] = sources.get(how, 0) + 1
    notes = []
    if dmesg is not None and not sources.get("dmesg lines") and \
            sources.get("not traced"):
        notes.append(
            "no initcall_debug line of %s falls inside a traced "
            "do_one_initcall() call: is it the dmesg of this boot, and "
            "does the trace use the local clock (printk's)?" % dmesg.path)
    return InitcallNames(ic_recs, named, sources, notes)


def _probe_drivers(recs: List[Placed], names: List[str]) -> Dict[int, str]:
    """The driver's probe function of each device probe (by the id of
    its PROBE_ENTRY record): the first call named *probe below
    really_probe() that is reached through bus probe functions only
    (not really_probe()'s or the bus's own helpers, like of_irq_get()
    in amba_probe())."""
    drivers: Dict[int, str] = {}
    pstack: List[Placed] = []
    for r in recs:
        while pstack and pstack[-1].level >= r.level:
            pstack.pop()
        pstack.append(r)
        fn = names[r.fid]
        if is_probe_wrapper(fn) or len(pstack) < 2 or \
                not fn.endswith("probe"):
            continue
        k = len(pstack) - 2
        while k >= 0 and is_probe_wrapper(names[pstack[k].fid]) and \
                names[pstack[k].fid] not in PROBE_ENTRY:
            k -= 1
        if k >= 0 and k < len(pstack) - 2 and \
                names[pstack[k].fid] in PROBE_ENTRY:
            drivers.setdefault(id(pstack[k]), fn)
    return drivers


class _Charges:
    """Charging time: the rows of the boot view, each nanosecond of the
    boot path given to one of them, and the sums of the initcall
    levels."""

    def __init__(self, names: List[str], levels: Levels,
                 named: Dict[int, str], drivers: Dict[int, str]) -> None:
        self.names = names
        self.levels = levels
        self.named = named          # from _name_initcalls()
        self.drivers = drivers      # from _probe_drivers()
        self.rows: Dict[Phase, Row] = {}
        self.lv_sum: Dict[str, LevelSum] = {}

    def count_initcalls(self, calls: List[Placed]) -> None:
        """Each level's do_one_initcall() calls, named or not."""
        for r in calls:
            lv = self.levels.level(self.named[id(r)] or NOT_TRACED, r.start)
            self.lv_sum.setdefault(lv, LevelSum()).calls += 1

    def give(self, kind: str, level: str, name: str, ns: int, t: int,
             group: Optional[Phase] = None) -> None:
        if ns <= 0:
            return
        key = Phase(kind, level, name)
        row = self.rows.get(key)
        if row is None:
            row = self.rows[key] = Row(kind, level, name,
                                       group=group or key)
            if kind == "initcall" and not name.startswith("("):
                self.lv_sum.setdefault(level, LevelSum()).initcalls += 1
        row.ns += ns
        if t < row.first:
            row.first = t

    def phase(self, stack: List[Placed]) -> Phase:
        names = self.names
        path = [names[r.fid] for r in stack]
        for i, fn in enumerate(path):
            if fn in WRAPPERS:
                continue
            if fn == "setup_arch":
                return Phase("setup_arch", "", "setup_arch")
            if is_mm(fn):
                return Phase("mm", "", "mm init")
            if fn in INITCALL_FUNCS:
                j = i
                while j < len(path) and path[j] in INITCALL_FUNCS:
                    j += 1
                call = ""
                if path[j - 1] == "do_one_initcall":
                    call = self.named.get(id(stack[j - 1]), "") or \
                        NOT_TRACED
                t = stack[min(j, len(stack) - 1)].start
                lv = self.levels.level(call, t)
                return Phase("initcall", lv, call or "(rest of the level)")
            return Phase("other", "", fn)
        return Phase("other", "", path[-1] if path else "?")

    def probe(self, stack: List[Placed]) -> Optional[str]:
        """The driver probe function of the innermost device probe on
        the stack, "" when the trace does not show it, None when no
        probe is on the stack."""
        for r in reversed(stack):
            if self.names[r.fid] in PROBE_ENTRY:
                return self.drivers.get(id(r), "")
        return None

    def where(self, stack: List[Placed]) -> Tuple[Phase, str]:
        """The phase of a stack (the group of its row) and its name in
        the names of delay and console rows."""
        key = self.phase(stack)
        kind, lv, name = key
        text = name if kind != "initcall" else "initcall %s %s" % (lv, name)
        if kind == "initcall":
            drv = self.probe(stack)
            if drv is not None:
                text = "probe %s (%s)" % (drv or "(not traced)", text)
        return key, text

    def charge(self, stack: List[Placed], kind: str, lv: str, name: str
               ) -> Tuple[str, str, str, Optional[Phase]]:
        """The row that the own time of the innermost record of stack
        goes to (kind, level, name) and the phase it is shown under."""
        path = [self.names[x.fid] for x in stack]
        if kind == "initcall" and not DEBUG_SET.isdisjoint(path):
            # initcall_debug's callbacks and their console output
            return "initcall_debug", "", DEBUG_ROW, None
        for k, fn in enumerate(path):
            if is_console(fn):
                grp, text = self.where(stack[:k])
                return "console", grp.level, "printk/console in %s" % \
                    text, grp
        for k, fn in enumerate(path):
            if is_delay(fn):
                grp, text = self.where(stack[:k])
                return "delay", grp.level, "%s in %s" % (fn, text), grp
        drv = self.probe(stack) if kind == "initcall" else None
        if drv is not None:
            return "probe", lv, "%s (initcall %s %s)" % (
                drv or "(probe function not traced)", lv, name), \
                Phase(kind, lv, name)
        return kind, lv, name, None

    def close(self, stack: List[Placed], child: List[int]) -> None:
        r = stack[-1]
        own = (r.end - r.start) - child[-1]
        kind, lv, name = self.phase(stack)
        if kind == "initcall":
            self.lv_sum.setdefault(lv, LevelSum()).ns += own
        k, level, text, grp = self.charge(stack, kind, lv, name)
        self.give(k, level, text, own, r.start, grp)
        stack.pop()
        child.pop()
        if child:
            child[-1] += r.end - r.start

    def charge_records(self, recs: List[Placed]
                       ) -> Tuple[List[Placed], Callable[[Placed], str]]:
        """The exclusive time of every record, by its stack; recs are in
        the order nested() built them, pieces one after the other, so
        the levels alone say who is whose caller.  Returns the
        outermost records and the initcall level of one of them (by its
        first callee)."""
        stack: List[Placed] = []
        child: List[int] = []
        tops: List[Placed] = []
        callee: Dict[int, str] = {}   # id of a top record -> first callee
        for r in recs:
            while stack and stack[-1].level >= r.level:
                self.close(stack, child)
            if not stack:
                tops.append(r)
            elif len(stack) == 1 and id(stack[0]) not in callee:
                callee[id(stack[0])] = self.names[r.fid]
            stack.append(r)
            child.append(0)
        while stack:
            self.close(stack, child)

        def level_of(top: Placed) -> str:
            return self.levels.level(callee.get(id(top), ""), top.start)
        return tops, level_of

    def charge_gaps(self, gaps: List[Gap]) -> None:
        """Time of the boot path that no record covers: a row per gap,
        and its level's sum where it falls inside one."""
        for a, b, name in gaps:
            lv = ""
            if name.startswith(GAP_LEVEL):
                lv = name[len(GAP_LEVEL):].split(" ")[0]
                self.lv_sum.setdefault(lv, LevelSum()).ns += b - a
            self.give("gap", lv, name, b - a, a)


def _level_notes(levels: Levels, lv_sum: Dict[str, LevelSum]
                 ) -> List[str]:
    """What the view cannot say about the initcall levels."""
    notes = []
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
    return notes


def _boot_order(rows: Dict[Phase, Row]) -> List[Row]:
    """The rows in boot order, each phase's probes, delays and console
    output right under it (in the order they first got time)."""
    gfirst: Dict[Phase, int] = {}
    for row in rows.values():
        gfirst[row.group] = min(gfirst.get(row.group, BIG), row.first)
    return sorted(rows.values(), key=lambda r: (
        gfirst[r.group], r.group, r.phase != r.group,
        r.first, r.kind, r.name))


# A device probe: really_probe() and the bus probe functions between
# it and the driver's own probe function.
PROBE_ENTRY = ("really_probe", "__driver_probe_device",
               "driver_probe_device")
is_probe_wrapper = matcher(list(PROBE_ENTRY) + [
    "call_driver_probe", "platform_probe", "amba_probe", "virtio_dev_probe",
    "pci_device_probe", "local_pci_probe", "i2c_device_probe", "spi_probe",
    "usb_probe_interface", "usb_probe_device", "mmc_bus_probe",
    "sdio_bus_probe", "serio_driver_probe", "*_bus_probe"])


def _full_notes(inputs: List[Input], gaps: List[Gap]
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


LATE_NS = 1000000000


class LateCpu(NamedTuple):
    """A CPU whose trace starts late: its buffer overwrote the start."""

    cpu: str
    input: str
    lag: int        # ns after the input's first line
    first_cpu: str  # the CPU of the input's first line
    overrun: int = -1   # events its buffer overwrote, from the saved
                        # per_cpu/cpuN/stats (-1: none given)


def _late_cpus(inputs: List[Input], gaps: List[Gap], total: int,
               stats: Optional[SavedStats] = None
               ) -> List[Tuple["LateCpu", str]]:
    """The CPUs of an input whose first line comes long after the
    input's first line (a tenth of the boot or more, and a second or
    more: an idle CPU has lines more often), or that the
    trace marks with "##### CPU N buffer started ####": their ring
    buffer was full and overwrote the start.  A short line and a note
    for each, with what closes the gap, and the buffer's counts when
    its per_cpu/cpuN/stats were given (for the main trace)."""
    out: List[Tuple[LateCpu, str]] = []
    spath = stats.path if stats is not None else ""
    for i in inputs:
        if not i.cpu_first:
            continue
        t0 = min(i.cpu_first.values())
        cpu0 = min(i.cpu_first, key=lambda c: (i.cpu_first[c], c))
        for cpu, first in sorted(i.cpu_first.items(),
                                 key=lambda kv: (kv[1], kv[0])):
            lag = first - t0
            if cpu not in i.started and (len(i.cpu_first) < 2 or
                                         lag * 10 < max(total, 1) or
                                         lag < LATE_NS):
                continue
            lost = sum(max(0, min(b, first) - max(a, t0))
                       for a, b, _ in gaps)
            bs = stats.cpus.get(cpu) if stats is not None and \
                not i.early_boot else None
            short = LateCpu(cpu, i.name, lag, cpu0,
                            bs.overrun if bs is not None else -1)
            head = ("CPU %s's trace in %s starts at %.6f s, %.3f ms after "
                    "the trace's first line (%.6f s, CPU %s)%s" % (
                        cpu, i.name, first / 1e9, lag / 1e6, t0 / 1e9,
                        cpu0, ", and the trace marks it: \"##### CPU %s "
                        "buffer started ####\"" % cpu
                        if cpu in i.started else ""))
            if bs is not None and bs.overrun == 0:
                out.append((short, (
                    "%s; per_cpu/cpu%s/stats in %s says \"overrun: 0\": "
                    "that buffer overwrote nothing, so its start is not "
                    "lost to a full buffer (the CPU came up late, or ran "
                    "nothing traced)" % (head, cpu, spath))))
                continue
            if bs is None:
                proof = ("the \"overrun:\" count of per_cpu/cpu%s/stats, "
                         "saved after boot, says how many events were "
                         "overwritten" % cpu)
            else:
                proof = ("per_cpu/cpu%s/stats in %s counts %d events "
                         "overwritten (\"overrun: %d\")" % (
                             cpu, spath, bs.overrun, bs.overrun))
            out.append((short, (
                "%s: its ring buffer filled up and overwrote the start of "
                "the boot on that CPU; %.3f ms of the boot path's "
                "not-traced time lie in that span.  Boot with a larger "
                "trace_buf_size= (the size of each CPU's buffer), or with "
                "trace_options=nooverwrite (which keeps the start and "
                "drops what comes after a full buffer); %s"
                % (head, lost / 1e6, proof))))
    return out


def _overrun_notes(inputs: List[Input], stats: SavedStats,
                   late: List[str]) -> List[str]:
    """What the saved per_cpu/cpuN/stats of the main trace say that the
    notes of the late CPUs do not: a CPU whose buffer overwrote events
    although its trace does not start late, and a CPU whose buffer
    dropped events (trace_options=nooverwrite: the end is lost)."""
    mains = [i.name for i in inputs if not i.early_boot]
    where = " (%s)" % ", ".join(mains) if mains else ""
    out = []
    for cpu, bs in sorted(stats.cpus.items(), key=lambda kv: int(kv[0])):
        if bs.overrun > 0 and cpu not in late:
            out.append(
                "per_cpu/cpu%s/stats in %s counts %d events overwritten "
                "(\"overrun: %d\"): CPU %s's trace%s lost its start; a "
                "larger trace_buf_size= or trace_options=nooverwrite "
                "keeps it" % (cpu, stats.path, bs.overrun, bs.overrun,
                              cpu, where))
        if bs.dropped > 0:
            out.append(
                "per_cpu/cpu%s/stats in %s counts %d events dropped "
                "(\"dropped events: %d\"): CPU %s's buffer was full "
                "(trace_options=nooverwrite) and its trace%s lost what "
                "came after; a larger trace_buf_size= keeps it" % (
                    cpu, stats.path, bs.dropped, bs.dropped, cpu, where))
    return out


INITCALL_FUNCS = ("do_initcall_level", "do_pre_smp_initcalls",
                  "do_one_initcall")
GAP_LEVEL = "not traced: initcall level "


def _gaps(col: BootInputs, tops: List[Placed], start: int, end: int,
          names: List[str], levels: Levels,
          level_of: Callable[[Placed], str]) -> List[Gap]:
    """Time of the boot path that no record covers, named: between two
    inputs, inside an initcall level (between two traced initcalls: the
    initcalls shorter than the threshold), or between records."""
    bounds = sorted((i.first, i.last, i.name) for i in col.inputs
                    if i.calls)
    out: List[Gap] = []

    def add(a: int, b: int, prev: Optional[Placed],
            nxt: Optional[Placed]) -> None:
        for (_, l1, n1), (f2, _, n2) in zip(bounds, bounds[1:]):
            if a <= l1 and b >= f2:
                out.append(Gap(a, b, "not traced: between %s and %s" % (
                    n1, n2)))
                return
        if prev is not None and nxt is not None and \
                names[prev.fid] in INITCALL_FUNCS and \
                names[nxt.fid] in INITCALL_FUNCS:
            # split at level events inside the gap
            cuts = [m.ts for m in levels.events if a < m.ts < b]
            lp, ln = level_of(prev), level_of(nxt)
            for x, y in zip([a] + cuts, cuts + [b]):
                if levels.events:
                    lv = levels.level("", y - 1)
                else:
                    lv = lp if lp == ln else "%s..%s" % (lp, ln)
                out.append(Gap(x, y, GAP_LEVEL + "%s (initcalls under "
                               "the threshold)" % lv))
            return
        out.append(Gap(a, b, "not traced: between records"))

    t = start
    prev: Optional[Placed] = None
    # in the order of (start, end, level, function) alone, as records
    # equal in those keep the order the boot path gave them
    for r in sorted(tops, key=lambda r: (r.start, r.end, r.level, r.fid)):
        if r.start > t:
            add(t, r.start, prev, r)
        if r.end > t:
            t = r.end
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


def slowest_initcalls(view: BootView) -> List[Tuple[int, Row]]:
    """The initcalls with their time (their own row with their
    probes', delays' and console output's rows), slowest first; not
    the rows of initcalls the trace does not name."""
    total: Dict[Phase, int] = {}
    for r in view.rows:
        total[r.group] = total.get(r.group, 0) + r.ns
    own = [r for r in view.rows if r.kind == "initcall" and
           not r.name.startswith("(") and r.phase == r.group]
    return sorted(((total[r.group], r) for r in own),
                  key=lambda x: (-x[0], x[1].first))
