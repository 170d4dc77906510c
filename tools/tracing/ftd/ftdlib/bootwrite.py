# SPDX-License-Identifier: GPL-2.0
"""The boot view's text, CSV and JSON: the summary first, then the
rows in boot order, the sections (boot holds, call counts), the
levels, the largest gaps and the notes.  See boot.py."""

from __future__ import annotations

import dataclasses
import json
from typing import (Callable, Dict, List, Optional, Sequence, TextIO,
                    Tuple)

from .boot import LEVELS, NOT_TRACED, BootView, Row, slowest_initcalls
from .bootholds import SCHED_CMDLINE, Blame, Hold
from .bootinput import SchedEvents
from .table import Column, human, human_inline, text_col, write_table


def level_label(lv: str) -> str:
    if lv == "early":
        return "early"
    if lv.isdigit() and int(lv) + 1 < len(LEVELS):
        return "%s %s" % (lv, LEVELS[int(lv) + 1])
    return lv or ""


KIND_LABEL = {"setup_arch": "setup_arch", "mm": "mm init",
              "initcall": "initcall", "delay": "delay",
              "console": "console", "other": "other", "gap": "not traced",
              "initcall_debug": "initcall_debug"}
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
        "levels": {lv: {"initcalls": v.initcalls, "calls": v.calls,
                        "time_us": round(v.ns / 1000.0, 3)}
                   for lv, v in sorted(view.levels.items(),
                                       key=lambda kv: _lv_key(kv[0]))},
        "initcalls": initcalls_dict(view),
        "rows": row_dicts(view, rows),
        "gaps": [{"start_s": a / 1e9, "end_s": b / 1e9,
                  "time_us": round((b - a) / 1000.0, 3), "what": name}
                 for a, b, name in view.gaps],
        "notes": view.notes,
    }


def initcalls_dict(view: BootView) -> Dict[str, object]:
    """The do_one_initcall() calls of the boot path: how many, how many
    no line named (the rows NOT_TRACED), and by what the others were
    named (the summary's "Initcalls not named" and "Initcall names")."""
    src = view.name_sources
    return {"calls": sum(src.values()),
            "not_named": src.get("not traced", 0),
            "named_by": {how: n for how, n in sorted(src.items())
                         if how != "not traced"}}


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
        Column("Time", "time_us", lambda r: human(r.ns),
               lambda r: round(r.ns / 1000.0, 3),
               lambda r: "%.3f" % (r.ns / 1000.0)),
        Column("%", "percent", lambda r: "%.1f" % (100.0 * r.ns / tot),
               lambda r: round(100.0 * r.ns / tot, 3),
               lambda r: "%.3f" % (100.0 * r.ns / tot)),
    ]


SUMMARY_TOP = 5


def write_summary(out: TextIO, view: BootView,
                  holds: Sequence[Hold]) -> None:
    """The first screen: what took the boot's time, then what the
    trace does not show."""
    tot = max(view.total, 1)

    def share(ns: int) -> str:
        return "%s %5.1f%%" % (human(ns).rjust(11), 100.0 * ns / tot)
    out.write("Summary (the full table in boot order follows):\n")
    slow = slowest_initcalls(view)[:SUMMARY_TOP]
    if slow:
        out.write("  Slowest initcalls (with their probes, delays and "
                  "console output):\n")
        for ns, r in slow:
            out.write("    %s  %-10s %s\n" % (share(ns),
                                               level_label(r.level), r.name))
    big = sorted(holds, key=lambda h: (-h.ns, h.start))[:SUMMARY_TOP]
    if big:
        out.write("  Largest boot holds (a boot thread waiting, and the "
                  "threads blamed):\n")
        for h in big:
            who = ", ".join("%s %s" % (
                b.thread if not b.via else "%s (waking %s)" % (
                    b.thread, " < ".join(reversed(b.via))),
                human_inline(b.ns)) for b in h.blames)
            if h.unexplained:
                who += "%sunexplained %s" % (", " if who else "",
                                             human_inline(h.unexplained))
            out.write("    %s  %s in %s: %s\n" % (share(h.ns), h.thread,
                                                   h.wait_fn, who))
    else:
        out.write("  %-28s none (see \"Boot holds\" below)\n" %
                  "Largest boot holds:")

    def kind_sum(kind: str) -> Tuple[int, int]:
        rs = [r for r in view.rows if r.kind == kind]
        return sum(r.ns for r in rs), len(rs)
    dl, dn = kind_sum("delay")
    cn, cnn = kind_sum("console")
    out.write("  %-28s %s in %d row%s\n" % (
        "Delays:", share(dl), dn, "" if dn == 1 else "s"))
    out.write("  %-28s %s in %d row%s\n" % (
        "Console output (printk):", share(cn), cnn, "" if cnn == 1 else "s"))
    dbg, _ = kind_sum("initcall_debug")
    if dbg:
        out.write("  %-28s %s (its callbacks in do_one_initcall() and "
                  "their console output)\n" % ("initcall_debug printing:",
                                              share(dbg)))
    nt = view.total - view.traced
    out.write("  %-28s %s in %d gap%s\n" % (
        "Not traced:", share(nt), len(view.gaps),
        "" if len(view.gaps) == 1 else "s"))
    src = view.name_sources
    if src:
        un = src.get("not traced", 0)
        out.write("  %-28s %d of %d do_one_initcall() calls (rows \"%s\")"
                  "\n" % ("Initcalls not named:", un, sum(src.values()),
                          NOT_TRACED))
        named = ["%d from %s" % (n, how) for how, n in sorted(src.items())
                 if how != "not traced"]
        if named:
            out.write("  %-28s %s%s\n" % (
                "Initcall names:", ", ".join(named),
                " (entry lines unchecked: --system-map checks them)"
                if src.get("entry lines") else ""))
    for late in view.late_cpus:
        if late.overrun == 0:
            why = "its buffer overwrote nothing (per_cpu/cpu%s/stats; " \
                "see" % late.cpu
        elif late.overrun > 0:
            why = "its buffer overwrote the start, %d events " \
                "(per_cpu/cpu%s/stats; see" % (late.overrun, late.cpu)
        else:
            why = "its buffer overwrote the start (see"
        out.write("  CPU %s's trace in %s starts %s after CPU %s's: %s "
                  "the note at the end)\n"
                  % (late.cpu, late.input, human_inline(late.lag),
                     late.first_cpu, why))
    out.write("\n")


def write_boot(out: TextIO, view: BootView, rows: Sequence[Row],
               fmt: str, extra_json: Optional[Dict[str, object]] = None,
               sections: Optional[Callable[[TextIO], None]] = None,
               holds: Optional[Sequence[Hold]] = None) -> None:
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
    if view.level_source == "none":
        out.write("levels unknown: no initcall_level events, no "
                  "do_initcall_level() calls, no --system-map\n\n")
    else:
        out.write("levels from %s\n\n" % view.level_source)
    if holds is not None:
        write_summary(out, view, holds)
        out.write("Boot rows, in boot order:\n")
    total = Row("total", "", "", view.total)
    cols = boot_columns(view)
    cols[0].text = lambda r: r.kind if r is total else \
        KIND_LABEL.get(r.kind, r.kind)
    cols[3].text = lambda r: "" if r is total else "%.6f" % (r.first / 1e9)
    write_table(out, cols, rows, "text", footer=total)
    if sections is not None:
        sections(out)
    if view.levels:
        out.write("\nInitcall levels (the traced do_one_initcall() "
                  "calls, how many of them are named, and the time "
                  "including their delays, console and untraced "
                  "initcalls):\n")
        levels = sorted(view.levels.items(), key=lambda kv: _lv_key(kv[0]))
        width = max(len(human(v.ns)) for _, v in levels)
        for lv, v in levels:
            out.write("  %-12s %4d initcalls, %4d named  %*s\n" % (
                level_label(lv), v.calls, v.initcalls, width, human(v.ns)))
    big = sorted(sorted(view.gaps, key=lambda g: g.start - g.end)[:5])
    if big:
        out.write("\nLargest gaps:\n")
        width = max(len(human(b - a)) for a, b, _ in big)
        for a, b, name in big:
            out.write("  %*s  %.6f .. %.6f s  %s\n" % (
                width, human(b - a), a / 1e9, b / 1e9, name))
    for n in view.notes:
        out.write("note: %s\n" % n)


# The boot holds (bootholds.py)

@dataclasses.dataclass
class HoldRow:
    """One row of the holds table: a hold with one of its blames (the
    first row of a hold also carries the hold's own columns)."""

    hold: Hold
    blame: Optional[Blame]
    first: bool


def hold_rows(holds: Sequence[Hold]) -> List[HoldRow]:
    out: List[HoldRow] = []
    for h in holds:
        if not h.blames:
            out.append(HoldRow(h, None, True))
        for i, b in enumerate(h.blames):
            out.append(HoldRow(h, b, i == 0))
    return out


def _top(b: Optional[Blame]) -> str:
    """The blamed thread's top functions as CSV and JSON give them:
    milliseconds, no unit."""
    if b is None:
        return ""
    return ", ".join("%s %.3f" % (f, ns / 1e6) for f, ns in b.top)


def _top_text(b: Optional[Blame]) -> str:
    """The blamed thread's top functions, their times with units."""
    if b is None:
        return ""
    return ", ".join("%s %s" % (f, human_inline(ns)) for f, ns in b.top)


def _blamed_name(r: HoldRow) -> str:
    if r.blame is None:
        return "-"
    if r.blame.via:
        return "%s (waking %s)" % (r.blame.thread, " < ".join(
            reversed(r.blame.via)))
    return r.blame.thread


def hold_columns(text: bool) -> List[Column]:

    def own(get: Callable[[HoldRow], str]) -> Callable[[HoldRow], str]:
        return lambda r: get(r) if r.first or not text else ""
    return [
        text_col("Waiting", "waiting", own(lambda r: r.hold.thread)),
        text_col("Wait function", "wait_function",
                 own(lambda r: r.hold.wait_fn)),
        Column("At(s)", "start_s", own(lambda r: "%.6f" % (
            r.hold.start / 1e9)), lambda r: round(r.hold.start / 1e9, 6)),
        Column("Wait", "wait_us", own(lambda r: human(r.hold.ns)),
               lambda r: round(r.hold.ns / 1e3, 3),
               lambda r: "%.3f" % (r.hold.ns / 1e3)),
        text_col("Blamed thread", "blamed", _blamed_name, width=40),
        Column("Blamed", "blamed_us",
               lambda r: human(r.blame.ns if r.blame else 0),
               lambda r: round(r.blame.ns / 1e3, 3) if r.blame else 0.0,
               lambda r: "%.3f" % (r.blame.ns / 1e3 if r.blame else 0)),
        Column("Unexplained", "unexplained_us",
               own(lambda r: human(r.hold.unexplained)),
               lambda r: round(r.hold.unexplained / 1e3, 3),
               lambda r: "%.3f" % (r.hold.unexplained / 1e3)),
        Column("Top functions of the blamed thread", "top",
               lambda r: _top_text(r.blame), lambda r: _top(r.blame),
               left=True),
    ]


def holds_dict(holds: Sequence[Hold], ev: SchedEvents,
               note: str) -> Dict[str, object]:
    return {
        "events": dict(sorted(ev.seen.items())),
        "note": note,
        "holds": [{
            "waiting": h.thread, "wait_function": h.wait_fn,
            "stack": h.stack, "start_s": h.start / 1e9,
            "end_s": h.end / 1e9,
            "back_s": h.back / 1e9 if h.back >= 0 else None,
            "wait_us": round(h.ns / 1e3, 3),
            "woken_by": h.waker,
            "blamed_us": round(h.blamed / 1e3, 3),
            "unexplained_us": round(h.unexplained / 1e3, 3),
            "unexplained_why": h.why if h.unexplained else "",
            "blamed": [{
                "thread": b.thread, "via": b.via,
                "spans_s": [[x / 1e9, y / 1e9] for x, y in b.spans],
                "time_us": round(b.ns / 1e3, 3),
                "top": [{"function": f, "time_us": round(ns / 1e3, 3)}
                        for f, ns in b.top]} for b in h.blames]}
            for h in holds]}


def holds_note(ev: SchedEvents, holds: Sequence[Hold]) -> str:
    """What the holds section can say: why it is empty, or what it
    misses."""
    if not ev.switches:
        return ("the trace has no sched_switch events: boot holds need "
                "the scheduler events; boot with %s (and save the trace "
                "with funcgraph-proc)" % SCHED_CMDLINE)
    if not ev.wakes:
        return ("the trace has sched_switch but no wakeup events: no "
                "wait can be blamed; add sched:sched_waking,"
                "sched:sched_wakeup to trace_event=")
    if not holds:
        return "no boot thread was switched out asleep during the boot"
    return ""


def write_holds_text(out: TextIO, holds: Sequence[Hold],
                     ev: SchedEvents) -> None:
    note = holds_note(ev, holds)
    out.write("\nBoot holds: ")
    if note:
        out.write(note + "\n")
        return
    wait = sum(h.ns for h in holds)
    blamed = sum(h.blamed for h in holds)
    out.write("%d waits of the boot threads, %.3f ms: %.3f ms blamed on "
              "the threads that woke them, %.3f ms unexplained\n" % (
                  len(holds), wait / 1e6, blamed / 1e6,
                  (wait - blamed) / 1e6))
    write_table(out, hold_columns(True), hold_rows(holds), "text")
    whys: Dict[str, int] = {}
    for h in holds:
        if h.unexplained and h.why:
            whys[h.why] = whys.get(h.why, 0) + h.unexplained
    for why, ns in sorted(whys.items(), key=lambda kv: -kv[1]):
        out.write("  unexplained %.3f ms: %s\n" % (ns / 1e6, why))
