# SPDX-License-Identifier: GPL-2.0
"""Call counts of every call of boot, from a file in the layout of the
function profiler's trace_stat/function* files
(kernel/trace/ftrace.c, function_stat_headers() and
function_stat_show()), as /sys/kernel/tracing/trace_stat/fgraph_boot
prints them (here cut after the average):

  Function                               Hit    Time            Avg
  --------                               ---    ----            ---
  do_one_initcall                        192    1234567 us      6430.036 us

The name is printed with %-30s (whole; the function profiler's own
files cut it at 30 characters), the hits with %10lu, then the total,
average and s^2 as
trace_print_graph_duration() prints a time: microseconds with up to
three decimals, " us".  Without the graph tracer the kernel prints the
name and hits only.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Dict, List, Optional, TextIO

from .model import FtdError
from .table import Column, human, text_col, us_col

HEAD_RE = re.compile(r"^\s*Function\s+Hit(\s+Time\s+Avg\s+s\^2)?\s*$")
RULE_RE = re.compile(r"^\s*-+(\s+-+)*\s*$")
NUM = r"(\d+(?:\.\d+)?) us"
ROW_RE = re.compile(r"^  (\S+)\s+(\d+)(?:\s+%s\s+%s\s+%s)?\s*$" % (
    NUM, NUM, NUM))


@dataclasses.dataclass
class Count:
    name: str
    hits: int
    total_ns: int       # -1: the file has no times
    avg_ns: int
    s2: float           # as printed (us^2 printed as "us")


@dataclasses.dataclass
class Counts:
    path: str
    rows: List[Count]
    timed: bool

    def most_called(self, n: int) -> List[Count]:
        return sorted(self.rows, key=lambda c: (-c.hits, c.name))[:n]

    def most_time(self, n: int) -> List[Count]:
        if not self.timed:
            return []
        return sorted(self.rows, key=lambda c: (-c.total_ns, c.name))[:n]

    def get(self, name: str) -> Optional[Count]:
        for c in self.rows:
            if c.name == name:
                return c
        return None


def _ns(text: Optional[str]) -> int:
    if text is None:
        return -1
    whole, _, frac = text.partition(".")
    return int(whole) * 1000 + int((frac + "000")[:3])


def read_counts(path: str) -> Counts:
    """Read a trace_stat file; FtdError names the file and line of what
    is not in its layout."""
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except OSError as err:
        raise FtdError("%s: cannot open: %s" % (path, err.strerror))
    rows: List[Count] = []
    timed: Optional[bool] = None
    header = False
    with f:
        for n, line in enumerate(f, 1):
            text = line.rstrip("\r\n")
            if not text.strip():
                continue
            m = HEAD_RE.match(text)
            if m:
                if header:
                    raise FtdError("%s:%d: a second header: give one "
                                   "trace_stat file (one CPU's, or "
                                   "fgraph_boot)" % (path, n))
                header = True
                timed = m.group(1) is not None
                continue
            if RULE_RE.match(text) and header:
                continue
            if not header:
                raise FtdError("%s:%d: not a trace_stat file (no "
                               "'Function  Hit' header before): %s" % (
                                   path, n, text.strip()[:80]))
            r = ROW_RE.match(text)
            if r is None or (timed and r.group(3) is None) or \
                    (not timed and r.group(3) is not None):
                raise FtdError("%s:%d: not a trace_stat row (name, hits%s"
                               "): %s" % (path, n, ", time us, avg us, s^2 "
                                          "us" if timed else "",
                                          text.strip()[:80]))
            name = r.group(1)
            rows.append(Count(name, int(r.group(2)), _ns(r.group(3)),
                              _ns(r.group(4)),
                              float(r.group(5)) if r.group(5) else -1.0))
    if not header:
        raise FtdError("%s: empty: no 'Function  Hit' header" % path)
    return Counts(path, rows, bool(timed))


def counts_dict(c: Counts, n: int) -> Dict[str, object]:
    def one(x: Count) -> Dict[str, object]:
        d: Dict[str, object] = {"name": x.name, "hits": x.hits}
        if c.timed:
            d["time_us"] = round(x.total_ns / 1000.0, 3)
            d["avg_us"] = round(x.avg_ns / 1000.0, 3)
        return d
    return {"file": c.path, "functions": len(c.rows),
            "calls": sum(x.hits for x in c.rows),
            "most_called": [one(x) for x in c.most_called(n)],
            "most_time": [one(x) for x in c.most_time(n)]}


def write_counts_text(out: TextIO, c: Counts, n: int) -> None:
    """The most called functions, then those with the most time, each
    in its own table, times in readable units."""
    calls = sum(x.hits for x in c.rows)
    out.write("\nCall counts (%s: %d functions, %d calls):\n" % (
        c.path, len(c.rows), calls))
    out.write("\nMost called:\n%12s  %s\n" % ("Hit", "Function"))
    for x in c.most_called(n):
        out.write("%12d  %s\n" % (x.hits, x.name))
    out.write("\nMost time:\n")
    if not c.timed:
        out.write("  (no times in the file)\n")
        return
    out.write("%13s  %11s  %10s  %s\n" % ("Time", "Avg", "Hit", "Function"))
    for x in c.most_time(n):
        out.write("%13s  %11s  %10d  %s\n" % (
            human(x.total_ns), human(x.avg_ns), x.hits, x.name))


def count_columns(timed: bool) -> List[Column]:
    cols = [text_col("Function", "name", lambda x: x.name),
            Column("Hit", "hits", lambda x: "%d" % x.hits, lambda x: x.hits)]
    if timed:
        cols += [us_col("Time(us)", "time_us", lambda x: x.total_ns),
                 us_col("Avg(us)", "avg_us", lambda x: x.avg_ns)]
    return cols
