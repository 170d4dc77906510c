# SPDX-License-Identifier: GPL-2.0
"""Exports for trace viewers: Chrome trace-event JSON (Perfetto UI,
chrome://tracing) and speedscope JSON, from a Timeline."""

from __future__ import annotations

import json
from typing import Dict, Iterator, List, TextIO, Tuple

from .model import BIG
from .tasks import pid_text, task_cpu, task_name
from .timeline import BEFORE, OPEN, Lane, Timeline


def _track_order(track: str) -> Tuple[int, str]:
    pid = pid_text(track.partition(": ")[2] or track)
    try:
        return int(pid), track
    except ValueError:
        return 1 << 30, track


def _lane_ids(tl: Timeline) -> Iterator[Tuple[int, int, str, str,
                                              Lane]]:
    """(pid, tid, process label, lane label, placed calls) for every
    lane.  By task: one process, one thread per lane of a task; by
    CPU: one process per CPU, one thread per lane of a task that ran
    there."""
    tid = 0
    for track in sorted(tl.tracks, key=_track_order):
        for k, recs in enumerate(tl.lanes(track)):
            tid += 1
            if tl.by == "task":
                label = task_name(track)
                if task_cpu(track):
                    label += " (CPU %s)" % task_cpu(track)
                pid, pname = 1, "kernel tasks"
            else:
                cpu, _, label = track.partition(": ")
                try:
                    pid = int(cpu.split()[1]) + 1
                except (IndexError, ValueError):
                    pid = 1000
                pname = cpu
            if k:
                label += " (%d)" % (k + 1)
            yield pid, tid, pname, label, recs


def write_chrome(out: TextIO, tl: Timeline) -> None:
    """Chrome trace-event JSON, complete ("X") events, µs units: every
    call at its own start with its printed duration."""
    base = tl.start if tl.start != BIG else 0
    out.write('{"displayTimeUnit":"ns","otherData":{"generator":"ftd",'
              '"time_origin_ns":%d},"traceEvents":[\n' % base)
    first = True

    def emit(obj: str) -> None:
        nonlocal first
        out.write(obj if first else ",\n" + obj)
        first = False

    names = [json.dumps(n) for n in tl.name_list]
    procs: Dict[int, str] = {}
    for pid, tid, pname, label, recs in _lane_ids(tl):
        if pid not in procs:
            procs[pid] = pname
            emit(json.dumps({"ph": "M", "name": "process_name",
                             "pid": pid, "tid": 0,
                             "args": {"name": pname}}))
        emit(json.dumps({"ph": "M", "name": "thread_name", "pid": pid,
                         "tid": tid, "args": {"name": label}}))
        emit(json.dumps({"ph": "M", "name": "thread_sort_index",
                         "pid": pid, "tid": tid, "args": {"sort_index":
                                                          tid}}))
        buf: List[str] = []
        tail = ',"pid":%d,"tid":%d' % (pid, tid)
        for st, en, lvl, fid, flags, dur in recs.rows():
            args = "}"
            if flags:
                args = ',"args":{%s}}' % ",".join(
                    x for x in (
                        '"began_before_trace":true' if flags & BEFORE
                        else "",
                        '"unfinished":true' if flags & OPEN else "")
                    if x)
            buf.append('{"name":%s,"ph":"X","ts":%.3f,"dur":%.3f%s%s' % (
                names[fid], (st - base) / 1000.0, (en - st) / 1000.0,
                tail, args))
            if len(buf) >= 4096:
                emit(",\n".join(buf))
                buf = []
        if buf:
            emit(",\n".join(buf))
    out.write("\n]}\n")


def write_speedscope(out: TextIO, tl: Timeline, name: str) -> None:
    """speedscope evented profiles, one per lane, in µs.  Calls that
    never returned get a frame "FUNC (unfinished)"."""
    base = tl.start if tl.start != BIG else 0
    frames = list(tl.name_list)
    other: Dict[int, int] = {}    # frame -> its "unfinished" frame
    out.write('{"$schema":"https://www.speedscope.app/file-format-schema'
              '.json","exporter":"ftd","name":%s,"activeProfileIndex":0,'
              '"profiles":[' % json.dumps(name))
    nprof = 0
    for pid, tid, pname, label, recs in _lane_ids(tl):
        if not recs:
            continue
        if tl.by != "task":
            label = "%s: %s" % (pname, label)
        out.write('%s{"type":"evented","name":%s,"unit":"microseconds",'
                  '"events":[' % ("," if nprof else "", json.dumps(label)))
        nprof += 1
        stack: List[Tuple[int, int]] = []   # open: frame, end
        sep = ""
        first_at = "%.3f" % ((recs[0].start - base) / 1000.0)
        last_at = first_at
        for st, en, lvl, fid, flags, dur in recs.rows():
            fr = fid
            if flags & OPEN:
                e = other.get(fr)
                if e is None:
                    e = other[fr] = len(frames)
                    frames.append(tl.name_list[fr] + " (unfinished)")
                fr = e
            while len(stack) > lvl:
                f, end = stack.pop()
                last_at = "%.3f" % ((end - base) / 1000.0)
                out.write('%s{"type":"C","frame":%d,"at":%s}' % (
                    sep, f, last_at))
            at = "%.3f" % ((st - base) / 1000.0)
            out.write('%s{"type":"O","frame":%d,"at":%s}' % (sep, fr, at))
            sep = ","
            stack.append((fr, en))
        while stack:
            f, end = stack.pop()
            last_at = "%.3f" % ((end - base) / 1000.0)
            out.write('%s{"type":"C","frame":%d,"at":%s}' % (sep, f,
                                                            last_at))
        out.write('],"startValue":%s,"endValue":%s}' % (first_at, last_at))
    out.write('],"shared":{"frames":[%s]}}\n' % ",".join(
        '{"name":%s}' % json.dumps(n) for n in frames))
