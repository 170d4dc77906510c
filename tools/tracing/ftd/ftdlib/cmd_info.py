# SPDX-License-Identifier: GPL-2.0
"""ftd info: what the trace holds."""

from __future__ import annotations

import argparse
import json
from typing import Dict, TextIO

from .command import OPT, SubParsers, add_common, load, new_parser
from .parse import Walker


def add_parser(sub: SubParsers) -> None:
    i = new_parser(sub, "info", "what is in the trace: format, CPUs, "
                   "tasks, time span, malformed and lost counts")
    add_common(i)
    i.add_argument("-f", "--format", choices=("text", "json"),
                   default="text", help="output format (default text)")


def info_dict(w: Walker) -> Dict[str, object]:
    i = w.info
    lay = i.layout
    span = None
    if i.first_ts is not None and i.last_ts is not None:
        span = [i.first_ts / 1e9, i.last_ts / 1e9]
    stats = w.func_stats()
    return {
        "file": i.name,
        "tracer": i.tracer or None,
        "columns": lay.describe() if lay else None,
        "funcgraph_tail": i.tail,
        "funcgraph_retval": i.retval,
        "exits_only": i.exits_only,
        "lines": i.lines,
        "entries": i.entries,
        "returns": i.returns,
        "leaves": i.leaves,
        "calls_counted": sum(f.count for f in stats.values()),
        "functions": len(stats),
        "returns_without_entry": i.orphan_returns,
        "unnamed_returns_without_entry": i.unnamed_orphans,
        "entries_without_return": i.unfinished,
        "lost_returns": i.missing_returns,
        "calls_cut": i.cut_calls,
        "calls_with_unknown_caller": i.unknown_callers,
        "returns_contradicting_entry": i.contradictions,
        "returns_not_paired_by_time": i.ambiguous,
        "cut_after_migrating_into_lost_events": i.migrated_cuts,
        "max_depth": i.max_depth,
        "cpus": sorted(i.cpus),
        "tasks": dict(sorted(i.tasks.items(), key=lambda kv: -kv[1])),
        "time_span_s": span,
        "context_switches": i.switches,
        "irq_entries": i.irq_entries,
        "irq_exits": i.irq_exits,
        "comments": i.comments,
        "lost_event_markers": i.lost_events,
        "lost_events": i.lost_records,
        "malformed": i.malformed,
        "malformed_lines": i.malformed_lines,
        "truncated": i.truncated or None,
    }


def run(a: argparse.Namespace, out: TextIO) -> Walker:
    w = load(a.trace, a, flat=True)
    d = info_dict(w)
    if a.format == "json":
        out.write(json.dumps(d, indent=1) + "\n")
        return w
    for k, v in d.items():
        if k == "tasks" and isinstance(v, dict):
            out.write("%-30s %d\n" % ("tasks", len(v)))
            for t, n in list(v.items())[:20]:
                out.write("  %-28s %d lines\n" % (t, n))
            if len(v) > 20:
                out.write("  ... %d more\n" % (len(v) - 20))
            continue
        if isinstance(v, list):
            v = " ".join(str(x) for x in v)
        out.write("%-30s %s\n" % (k, "-" if v is None else v))
    if w.info.layout is not None and not w.info.layout.abstime:
        out.write("\nTimelines (flamechart, chrome, speedscope) need "
                  "`echo 1 > %sfuncgraph-abstime`.\n" % OPT)
    return w
