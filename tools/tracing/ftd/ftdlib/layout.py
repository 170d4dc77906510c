# SPDX-License-Identifier: GPL-2.0
"""The column layouts of function_graph text: which of the optional
columns in front of the function text a trace has, from its header or
from its first lines, and the regular expression that splits a line of
that layout."""

from __future__ import annotations

import itertools
import re
from typing import Optional, Pattern, Sequence

from .model import Layout

# Pieces of the line, one per optional column, in the kernel's order
# (print_graph_prologue() and print_graph_duration()).
P_ABSTIME = r" *(\d+\.\d+) \|  "
P_RELTIME = r" *\d+ us \|  "
P_CPU = r" *(\d+)\) "
P_PROC = r" *(.*?-\d+) *\| "
P_LAT = r" ([^ |]{4,6}) \| "
P_DUR = r"(?:[ +!#*@$] (\d+(?:\.\d*)?) us +| {14})\|  "
P_TEXT = r"( *)(.*)"

# The duration field between two '|' when a task or latency column
# precedes it: a space, the mark, a space, the duration, " us" and
# padding; or 15 spaces on lines without a duration.
DUR_FIELD_RE = re.compile(r" [ +!#*@$] (\d+(?:\.\d*)?) us +$| {15}$")

NAME_RE = r"[^\s(){};/]+(?: \[[^\]]+\])?"
SHAPE_RE = re.compile(
    r"(?:" + NAME_RE + r"\(\) \{|" + NAME_RE + r"\(\);(?: /\* = \S+ \*/)?"
    r"|\}(?: /\* " + NAME_RE + r"(?: = \S+)? \*/)?|/\*.*\*/)$")

# the context-switch marker of function_graph (" 1)  a-12  =>  b-34")
SWITCH_RE = re.compile(r" *(\d+)\) +(.*?-\d+) +=> +(.*?-\d+) *$")
# the sched_switch trace event's fields in 6.12's format
SCHED_SWITCH_RE = re.compile(
    r"prev_comm=(.*) prev_pid=(-?\d+) prev_prio=-?\d+ prev_state=(\S+) "
    r"==> next_comm=(.*) next_pid=(-?\d+) next_prio=-?\d+$")
LOST_RE = re.compile(r"CPU:(\d+) \[LOST (\d+) EVENTS\]")
TRACER_RE = re.compile(r"# tracer: (\S+)")

ALL_LAYOUTS = [Layout(*bits) for bits in
               itertools.product((False, True), repeat=6)]



def layout_regex(lay: Layout) -> Pattern[str]:
    """The regex for one layout; always six groups:
    ts, cpu, task, duration, indent, text."""
    parts = [P_ABSTIME if lay.abstime else "()"]
    if lay.reltime:
        parts.append(P_RELTIME)
    parts.append(P_CPU if lay.cpu else "()")
    parts.append(P_PROC if lay.proc else "()")
    if lay.lat:
        parts.append(P_LAT.replace("(", "(?:", 1))
    parts.append(P_DUR if lay.duration else "()")
    parts.append(P_TEXT)
    return re.compile("".join(parts))


def layout_from_header(line: str) -> Optional[Layout]:
    """Read the column header line (# ... FUNCTION CALLS)."""
    if "FUNCTION CALLS" not in line:
        return None
    rest = line.replace("REL TIME", "")
    return Layout(abstime="TIME" in rest, reltime="REL TIME" in line,
                  cpu="CPU" in line, proc="TASK/PID" in line,
                  lat="||||" in line, duration="DURATION" in line)


def _score(lay: Layout, samples: Sequence[str]) -> int:
    rx = layout_regex(lay)
    score = 0
    for line in samples:
        m = rx.match(line.rstrip("\n"))
        if m is None:
            continue
        ind, text = m.group(5), m.group(6)
        if len(ind) % 2 or not SHAPE_RE.match(text):
            continue
        if m.group(0) != line.rstrip("\n"):
            continue
        score += 1
    return score


def detect_layout(samples: Sequence[str]) -> Optional[Layout]:
    """Guess the layout from data lines: the layout under which most
    lines split into columns and a well-formed function text wins; on a
    tie the layout with more columns wins."""
    cand = [s for s in samples if s.strip() and not s.startswith("#")
            and "=>" not in s and "==========" not in s
            and not s.startswith(" ---") and not LOST_RE.match(s)]
    if not cand:
        return None
    need = 1 if len(cand) < 4 else min(50, (len(cand) + 2) // 3)
    best: Optional[Layout] = None
    best_key = (0, 0)
    for lay in ALL_LAYOUTS:
        sc = _score(lay, cand)
        cols = sum(1 for v in (lay.abstime, lay.reltime, lay.cpu, lay.proc,
                               lay.lat, lay.duration) if v)
        key = (sc, cols)
        if sc >= need and key > best_key:
            best, best_key = lay, key
    return best


# trace-cmd report: "comm-pid [CPU] TS: funcgraph_entry: DURATION |  TEXT"
# (or, with -l, "comm-pid CPUflags TS: ..."), other events as
# "comm-pid [CPU] TS: name: fields", and its own header lines.
TC_HEAD = r"^ *(.+?-\d+) +(?:\[(\d+)\]|(\d+)[^ ]*) +(\d+\.\d+): +"
TC_GRAPH_RE = re.compile(
    TC_HEAD + r"funcgraph_(?:entry|exit): +(?:([+!#*@$]) +)?"
    r"(?:(\d+(?:\.\d*)?) us)? *\|(.*)$")
TC_EVENT_RE = re.compile(TC_HEAD + r"([\w:]+): ?(.*)$")
TC_SWITCH_RE = re.compile(
    r"prev_comm=(.*?) prev_pid=(\d+) .*==> next_comm=(.*?) "
    r"next_pid=(\d+)|(.*?):(\d+) \[-?\d+\] \S+ ==> (.*?):(\d+) ")
TC_LOST_RE = re.compile(r"CPU:? ?(\d+) \[(?:LOST )?(\d+) EVENTS(?: DROPPED)?\]")
TC_OWN_RE = re.compile(r"(version = |cpus=|CPU \d+ is empty|trace-cmd: )")
TC_LAYOUT = Layout(abstime=True, cpu=True, proc=True, duration=True)


def is_tracecmd(line: str) -> bool:
    return TC_GRAPH_RE.match(line) is not None


def from_tracecmd(line: str) -> str:
    """A line of `trace-cmd report` as the trace file would print it
    (abstime, CPU, task and duration columns), so that it is read with
    the same rules; its own header lines become comments."""
    m = TC_GRAPH_RE.match(line)
    if m:
        task, cpu, lcpu, ts, mark, dur, text = m.groups()
        field = "%s %s us " % (mark or " ", dur) if dur else " " * 14
        return "%s |  %s) %s | %s|%s\n" % (ts, cpu or lcpu, task, field,
                                          text.rstrip("\r\n"))
    m = TC_EVENT_RE.match(line)
    if m:
        task, cpu, lcpu, ts, event, rest = m.groups()
        cpu = cpu or lcpu
        rest = rest.rstrip("\r\n")
        if event == "sched_switch":
            ms = TC_SWITCH_RE.search(rest)
            if ms:
                g = ms.groups()
                a, ap, b, bp = g[:4] if g[0] is not None else g[4:]
                return " %s)  %s-%s  =>  %s-%s\n" % (cpu, a, ap, b, bp)
        return "%s |  %s) %s | %s|  /* %s: %s */\n" % (
            ts, cpu, task, " " * 14, event, rest.replace("*/", "* /"))
    m = TC_LOST_RE.search(line)
    if m:
        return "CPU:%s [LOST %s EVENTS]\n" % (m.group(1), m.group(2))
    if TC_OWN_RE.match(line.lstrip()):
        return "# " + line
    return line
