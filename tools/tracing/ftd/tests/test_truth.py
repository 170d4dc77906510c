# SPDX-License-Identifier: GPL-2.0
"""Every call, checked against what it really was.

The kernel's printer (fgrender.py) keeps the truth of every call it
prints: its id, function, start, duration, caller, task and CPU.  The
traces here are of the four kinds on which a pairing can go wrong:

- several CPUs without a CPU column (lines of different CPUs mix);
- LOST markers, with a task that migrates into the gap;
- more than eight calls waiting for their caller at one depth
  (exits-only output);
- interrupts inside leaves (the leaf's entry is written late).

For each call ftd counts, the pairing core's record must say the
truth or "unknown": the right function and printed duration, a start
within a microsecond, the right caller or UNKNOWN (never a wrong one),
the right task and CPU or unknown.  Then the views: the per-function
table is the sum of the records, every caller -> callee pair of the
call trees is a true one, and every call appears in the Chrome,
speedscope and flame chart timelines with its printed duration at its
true start (to the microsecond)."""

from __future__ import annotations

import collections
import json
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

import pytest

from conftest import run_ftd
from fgrender import Opts, Printer, Rec, Truth, fmt_duration, header
from ftdlib.analysis import func_stats
from ftdlib.tasks import task_name
from ftdlib.pairing import ROOT, UNKNOWN, Call
from ftdlib.parse import Walker

US = 1000
FUNCS = ["vfs_read", "kmalloc", "kfree", "memcpy", "mutex_lock",
         "ext4_file_read_iter", "copy_page", "do_sys_open"]
IRQ = "gic_handle_irq"


class Sim:
    """Builds per-CPU record streams call by call, with true times."""

    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd
        self.ids = 0
        self.streams: Dict[int, List[Rec]] = collections.defaultdict(list)
        self.comms: Dict[int, str] = {0: "<idle>"}

    def step(self, lo: int = 2, hi: int = 30) -> int:
        return self.rnd.randint(lo, hi) * US + self.rnd.randint(0, 999)

    def call(self, cpu: int, pid: int, depth: int, t: int, parent: int,
             budget: List[int], irq_in_leaf: bool = False,
             func: Optional[str] = None) -> int:
        """One call and its callees from time t; returns when it ended."""
        self.ids += 1
        cid = self.ids
        name = func or self.rnd.choice(FUNCS)
        comm = self.comms[pid]
        s = self.streams[cpu]
        start = t
        nkids = self.rnd.randint(0, 3) if depth < 5 and budget[0] > 0 \
            else 0
        if nkids == 0 and irq_in_leaf and self.rnd.random() < 0.5:
            # an interrupt between the call and the writing of its entry:
            # its records come first, one level deeper; the entry's
            # stamp is late
            t += self.step(1, 3)
            t = self.call(cpu, pid, depth + 1, t, cid, [0], func=IRQ)
            t += self.step(1, 2)
            s.append(Rec("E", cpu, pid, comm, depth, name, t, call_id=cid,
                         parent=parent))
            t += self.step(1, 5)
            s.append(Rec("R", cpu, pid, comm, depth, name, t,
                         calltime=start, call_id=cid, parent=parent))
            return t
        s.append(Rec("E", cpu, pid, comm, depth, name, t, call_id=cid,
                     parent=parent, irq=name == IRQ))
        for _ in range(nkids):
            budget[0] -= 1
            t += self.step()
            t = self.call(cpu, pid, depth + 1, t, cid, budget, irq_in_leaf)
        t += self.step()
        s.append(Rec("R", cpu, pid, comm, depth, name, t, calltime=start,
                     call_id=cid, parent=parent, irq=name == IRQ))
        return t


def render(sim: Sim, o: Opts) -> Tuple[List[str], Printer]:
    pr = Printer(o)
    for recs in sim.streams.values():
        recs.sort(key=lambda r: r.ts)
    lines = header(o) + pr.render(dict(sim.streams), sim.comms)
    # truth lines: 1-based line numbers of the text ftd reads
    off = len(header(o)) + 1
    for t in pr.truth.values():
        t.lines = [n + off for n in t.lines]
    return [ln + "\n" for ln in lines], pr


def render_streams(streams: Dict[int, List[Rec]], comms: Dict[int, str],
                   o: Opts) -> Tuple[List[str], Printer]:
    pr = Printer(o)
    lines = header(o) + pr.render(streams, comms)
    off = len(header(o)) + 1
    for t in pr.truth.values():
        t.lines = [n + off for n in t.lines]
    return [ln + "\n" for ln in lines], pr


def by_line(pr: Printer) -> Dict[int, Truth]:
    out: Dict[int, Truth] = {}
    for t in pr.truth.values():
        for n in t.lines:
            out[n] = t
    return out


def printed(ns: int) -> int:
    """A duration as the kernel prints it (fewer decimals from 10 ms)."""
    return round(float(fmt_duration(ns).split()[0]) * 1000)


def stamp(line: str) -> int:
    """The time stamp of a line, of the trace file or trace-cmd report."""
    m = re.search(r"(\d+)\.(\d{6})(?: \||: )", line)
    assert m
    return int(m.group(1)) * 10**9 + int(m.group(2)) * 1000


def pairs_of(pr: Printer) -> Set[Tuple[str, str]]:
    """Every true (caller, callee) pair of functions."""
    out: Set[Tuple[str, str]] = set()
    for t in pr.truth.values():
        p = pr.truth.get(t.parent)
        if p is not None:
            out.add((p.func, t.func))
    return out


def check_views(path: Path, calls: List[Call], pr: Printer,
                callers: bool = True) -> None:
    """slowest, hist and folded, call by call: the slowest calls of the
    busiest function are its slowest records, at their lines and
    starts; its histogram counts them all; the folded stacks count
    every call once, and link true callers to their callees."""
    names = collections.Counter(c.name for c in calls)
    func = names.most_common(1)[0][0]
    assert func is not None
    mine = sorted((c for c in calls if c.name == func),
                  key=lambda c: -c.dur)
    at = {c.line: c for c in mine}
    rows = json.loads(run_ftd("slowest", str(path), func, "-n", "5", "-f",
                              "json").stdout)
    assert [round(r["duration_us"] * 1000) for r in rows] == \
        [c.dur for c in mine[:len(rows)]]
    for r in rows:
        c = at[r["line"]]
        assert round(r["duration_us"] * 1000) == c.dur
        assert abs(r["start_s"] * 1e9 - c.start) <= 1500, (r, c)
        assert c.task[:1] == "?" or r["task"] == task_name(c.task)
    hist = json.loads(run_ftd("hist", str(path), func, "-f",
                              "json").stdout)
    assert hist[0]["count"] == names[func]
    assert round(hist[0]["max_us"] * 1000) == mine[0].dur
    true_pairs = pairs_of(pr)
    total = 0
    for ln in run_ftd("folded", "--weight", "count",
                      str(path)).stdout.decode().splitlines():
        stack, _, n = ln.rpartition(" ")
        total += int(n)
        frames = stack.split(";")
        for a, b in zip(frames, frames[1:]):
            assert not callers or "(unknown)" in (a, b) or \
                (a, b) in true_pairs, ln
    assert total == len(calls)


def check_records(text: List[str], pr: Printer, min_share: float,
                  callers: bool = True) -> Tuple[Walker, List[Call]]:
    """The pairing core's records against the truth, call by call."""
    calls: List[Call] = []
    every: List[Call] = []
    w = Walker()
    w.want_calls(calls.append)
    collect = w.core.emit

    def emit(c: Call) -> None:
        every.append(c)
        collect(c)
    w.core.emit = emit
    w.feed_lines(text)
    assert w.info.malformed == 0, w.info.malformed_samples
    where = by_line(pr)
    ids: Dict[int, int] = {}      # ftd id -> true id
    for c in every:
        t = where.get(c.line)
        assert t is not None, (c, "".join(text))
        ids[c.id] = t.id
    shown = "".join(text)
    merged = {n for t in pr.truth.values() if t.merged for n in t.lines}
    for c in calls:
        if c.line in merged:
            continue
        t = where[c.line]
        assert c.line in t.lines and c.rline in t.lines, (c, t, shown)
        assert (c.name, c.dur) == (t.func, printed(t.dur)), (c, t, shown)
        # its start, to the microsecond; a leaf whose entry is late
        # (an interrupt came first) starts no later than its stamp and
        # the next line of its task allow, and never before the truth
        if c.line == c.rline and c.flags == 0 and \
                text[c.line - 1].rstrip().endswith(";"):
            assert t.start - US < c.start <= stamp(text[c.line - 1]), (
                c, t, shown)
        else:
            assert abs(c.start - t.start) < US, (c, t, shown)
        if not callers:
            pass
        elif c.parent == ROOT:
            assert t.parent == -1, (c, t, shown)
        elif c.parent != UNKNOWN:
            assert ids.get(c.parent, c.parent) == t.parent, (c, t, shown)
        if c.task[:1] != "?":
            assert task_name(c.task) == t.task, (c, t, shown)
        if c.cpu:
            # where it began, or (a return without entry) ended
            assert int(c.cpu) == t.cpu or c.line == c.rline and \
                int(c.cpu) in t.cpus, (c, t, shown)
    counted = [t for t in pr.truth.values()
               if t.dur >= 0 and t.id not in pr.unnamed and not t.merged]
    assert len(calls) >= min_share * len(counted), (len(calls),
                                                    len(counted), shown)
    # the per-function table is made of these records
    got = {k: (f.count, f.total) for k, f in func_stats(w.roots()).items()}
    want: Dict[str, List[int]] = {}
    for c in calls:
        assert c.name is not None
        v = want.setdefault(c.name, [0, 0])
        v[0] += 1
        v[1] += c.dur
    assert got == {k: (v[0], v[1]) for k, v in want.items()}
    if not callers:
        return w, calls
    # every caller -> callee pair of the trees is a true one
    true_pairs = pairs_of(pr)
    for root in w.roots().values():
        todo = [root]
        while todo:
            n = todo.pop()
            for k in n.kids.values():
                if n.name and n.name != "(unknown)" and \
                        k.name != "(unknown)":
                    assert (n.name, k.name) in true_pairs, (
                        n.name, k.name, shown)
                todo.append(k)
    return w, calls


def check_timelines(tmp_path: Path, text: List[str], calls: List[Call],
                    pr: Optional[Printer] = None,
                    callers: bool = True) -> None:
    """Every counted call is in every timeline with its printed
    duration, at its start, to the microsecond (and, given the truth,
    in slowest, hist and folded: check_views())."""
    path = tmp_path / "t.txt"
    path.write_text("".join(text))
    if pr is not None:
        check_views(path, calls, pr, callers)
    base = min([c.start for c in calls] + [
        int(round(float(m.group(1)) * 1e9)) for m in
        (re.match(r" *(\d+\.\d+) \|", ln) for ln in text) if m])
    want = collections.Counter((c.name, c.dur) for c in calls)
    starts: Dict[Tuple[Optional[str], int], List[int]] = {}
    for c in calls:
        starts.setdefault((c.name, c.dur), []).append(c.start - base)

    def check(got: List[Tuple[str, int, float]]) -> None:
        have: Dict[Tuple[Optional[str], int], List[float]] = {}
        for name, dur, at in got:
            have.setdefault((name, dur), []).append(at)
        for key, n in want.items():
            ats = sorted(have.get(key, []))
            assert len(ats) >= n, (key, ats)
            # every call of that function and duration at its start
            for s in sorted(starts[key]):
                assert any(abs(round(a) - s) <= US for a in ats), (key, s,
                                                                  ats)

    doc = json.loads(run_ftd("chrome", str(path)).stdout)
    check([(e["name"], round(e["dur"] * 1000), e["ts"] * 1000)
           for e in doc["traceEvents"] if e["ph"] == "X"])
    doc = json.loads(run_ftd("speedscope", str(path)).stdout)
    frames = [f["name"] for f in doc["shared"]["frames"]]
    got = []
    for prof in doc["profiles"]:
        opened: List[Tuple[int, float]] = []
        for ev in prof["events"]:
            if ev["type"] == "O":
                opened.append((ev["frame"], ev["at"]))
            else:
                fr, at = opened.pop()
                got.append((frames[fr], round((ev["at"] - at) * 1000),
                            at * 1000))
    check(got)
    svg = tmp_path / "t.svg"
    run_ftd("flamechart", str(path), "-o", str(svg), "--min-px", "0",
            "--max-lanes", "1000")
    tip = re.compile(r"^(.*): ([\d.]+) us, at ([\d.]+) s")
    got = []
    for el in ET.parse(svg).getroot().iter():
        m = tip.match(el.text or "") if el.tag.endswith("title") else None
        if m:
            got.append((m.group(1), round(float(m.group(2)) * 1000),
                        float(m.group(3)) * 1e9 - base))
    check(got)


SEEDS = range(12)


@pytest.mark.parametrize("seed", SEEDS)
def test_several_cpus_without_cpu_column(tmp_path: Path, seed: int) -> None:
    """Two CPUs, no CPU column and no task column: every line may be of
    either CPU; returns are paired by time."""
    rnd = random.Random(seed)
    sim = Sim(rnd)
    for cpu, pid in ((0, 101), (1, 202)):
        sim.comms[pid] = "ls" if pid == 101 else "sed"
        t = 5 * 10**9 + rnd.randint(0, 50) * US
        budget = [30]
        while budget[0] > 0:
            budget[0] -= 1
            t = sim.call(cpu, pid, 0, t + sim.step(), -1, budget)
    o = Opts(abstime=True, cpu=False, proc=False, ncpus=2)
    text, pr = render(sim, o)
    # the switch blocks show both CPUs
    text = text[:4] + [" 0)  <idle>-0  =>  ls-101\n",
                       " 1)  <idle>-0  =>  sed-202\n"] + text[4:]
    for t in pr.truth.values():
        t.lines = [n + 2 for n in t.lines]
    w, calls = check_records(text, pr, 0.75)
    assert all(c.task == "?" for c in calls)
    check_timelines(tmp_path, text, calls, pr)


@pytest.mark.parametrize("seed", SEEDS)
def test_lost_events_with_migration(tmp_path: Path, seed: int) -> None:
    """A task runs on CPU 1, then migrates to CPU 0 whose buffer lost
    events meanwhile: nothing may be glued across the gap."""
    rnd = random.Random(seed)
    sim = Sim(rnd)
    sim.comms[101] = "find"
    sim.comms[202] = "sh"
    t = 7 * 10**9
    for _ in range(4):
        t = sim.call(1, 101, 0, t + sim.step(), -1, [12])
    # a long call of find that migrates: its entry and first callees on
    # CPU 1, the rest on CPU 0 after a gap
    s1 = sim.streams[1]
    n1 = len(s1)
    t = sim.call(1, 101, 0, t + sim.step(), -1, [25])
    recs = s1[n1:]
    del s1[n1:]
    cut = rnd.randint(2, max(2, len(recs) // 2))
    lost = rnd.randint(1, max(1, len(recs) // 3))
    s1.extend(recs[:cut])
    rest = recs[cut + lost:]
    for r in rest:
        r.cpu = 0
    t0 = rest[0].ts - 1 if rest else t
    sim.streams[0].append(Rec("L", 0, 0, "", lost, "", t0))
    sim.streams[0].extend(rest)
    # sh keeps running on CPU 0 before, and on CPU 1 after
    u = 7 * 10**9 + 5 * US
    while u < t0 - 200 * US:
        u = sim.call(0, 202, 0, u + sim.step(), -1, [3])
    u = max(t, u)
    for _ in range(3):
        u = sim.call(1, 202, 0, u + sim.step(), -1, [6])
    o = Opts(abstime=True, cpu=True, proc=True, ncpus=2)
    text, pr = render(sim, o)
    w, calls = check_records(text, pr, 0.5)
    assert w.info.lost_events == 1
    check_timelines(tmp_path, text, calls, pr)


@pytest.mark.parametrize("n_before", [2, 7, 9, 12])
def test_many_calls_waiting_for_their_caller(tmp_path: Path,
                                             n_before: int) -> None:
    """Exits-only output: n_before calls at depth 1 whose caller is not
    in the trace, then a call at depth 0 with three callees of its
    own.  The earlier calls ran before it began: they are not its
    callees, however many wait."""
    sim = Sim(random.Random(n_before))
    sim.comms[101] = "find"
    t = 3 * 10**9
    for _ in range(n_before):
        # their caller's return is not in the trace
        t = sim.call(0, 101, 1, t + sim.step(), 999999, [0],
                     func="kmalloc")
    t += 100 * US
    start = t
    sim.ids += 1
    pid_ = sim.ids
    for _ in range(3):
        t = sim.call(0, 101, 1, t + sim.step(), pid_, [0], func="kmalloc")
    t += sim.step()
    s = sim.streams[0]
    s.append(Rec("R", 0, 101, "find", 0, "sys_statx", t, calltime=start,
                 call_id=pid_, parent=-1))
    # exits only: no entries
    sim.streams[0] = [r for r in s if r.kind == "R"]
    o = Opts(abstime=True, cpu=True, proc=True, tail=True, ncpus=1)
    text, pr = render(sim, o)
    w, calls = check_records(text, pr, 1.0)
    stats = func_stats(w.roots())
    kids = sum(n.count for r in w.roots().values()
               for n in r.kids["sys_statx"].kids.values())
    assert kids == 3
    assert stats["sys_statx"].local == \
        stats["sys_statx"].total - sum(c.dur for c in calls
                                       if c.parent != UNKNOWN and
                                       c.name == "kmalloc")
    check_timelines(tmp_path, text, calls, pr)


@pytest.mark.parametrize("seed", SEEDS)
def test_interrupts_inside_leaves(tmp_path: Path, seed: int) -> None:
    """An interrupt between a call and the writing of its entry: the
    interrupt's lines come first, one level deeper, and the leaf's
    stamp is late.  The leaf starts when it was called, and no later
    call moves."""
    rnd = random.Random(seed)
    sim = Sim(rnd)
    sim.comms[101] = "ls"
    t = 2 * 10**9
    budget = [40]
    while budget[0] > 0:
        budget[0] -= 1
        t = sim.call(0, 101, 0, t + sim.step(), -1, budget,
                     irq_in_leaf=True)
    o = Opts(abstime=True, cpu=True, proc=True, ncpus=1)
    text, pr = render(sim, o)
    w, calls = check_records(text, pr, 1.0)
    check_timelines(tmp_path, text, calls, pr)


@pytest.mark.parametrize("tail", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_buffers_overwritten_at_different_points(tmp_path: Path, seed: int,
                                                 tail: bool) -> None:
    """A task that migrates between two CPUs whose buffers were
    overwritten up to different times (the trace file prints no LOST
    marker for that): after the migration, a return at the depth of an
    open entry may be another call's.  A return naming another
    function, or whose stamps contradict the entry's, must not close
    it.  (Callers are not checked: without a marker, nothing in the
    lines shows that the task lost lines on the other CPU in between.)
    """
    rnd = random.Random(seed)
    sim = Sim(rnd)
    sim.comms[101] = "find"
    t = 4 * 10**9
    budget = [60]
    while budget[0] > 0:
        budget[0] -= 1
        t = sim.call(0, 101, 0, t + sim.step(), -1, budget)
    recs = sim.streams.pop(0)
    # long gaps, so that a wrong pair's stamps contradict its duration
    shift = 0
    for r in recs:
        shift += rnd.randint(100, 400) * US
        r.ts += shift
    by_id = {r.call_id: r for r in recs if r.kind == "E"}
    for r in recs:
        if r.kind == "R":
            r.calltime = by_id[r.call_id].ts
    # the task moves between the CPUs every few records
    cpu = 0
    for i, r in enumerate(recs):
        if i % rnd.randint(3, 9) == 0:
            cpu = 1 - cpu
        r.cpu = cpu
        sim.streams[cpu].append(r)
    # each CPU's oldest records were overwritten, up to different times
    for c in (0, 1):
        n = len(sim.streams[c])
        del sim.streams[c][:rnd.randint(n // 4, n // 2)]
    o = Opts(abstime=True, cpu=True, proc=True, tail=tail, ncpus=2)
    text, pr = render(sim, o)
    w, calls = check_records(text, pr, 0.3, callers=False)
    check_timelines(tmp_path, text, calls, pr, callers=False)


@pytest.mark.parametrize("tail", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_trace_cmd_report(tmp_path: Path, seed: int, tail: bool) -> None:
    """The same trace as `trace-cmd report` prints it: every call as
    from the trace file, and the same per-function numbers."""
    from fgrender import tracecmd
    from test_property import simulate
    rnd = random.Random(seed)
    streams, comms = simulate(rnd, 2, idle=True)
    o = Opts(abstime=True, cpu=True, proc=True, tail=tail, ncpus=2)
    text, pr = render_streams(streams, comms, o)
    tc, keep = tracecmd([ln.rstrip("\n") for ln in text])
    for t in pr.truth.values():
        t.lines = [keep[n] for n in t.lines]
    tc_text = [ln + "\n" for ln in tc]
    w, calls = check_records(tc_text, pr, 1.0)
    assert w.info.tracer == "function_graph (trace-cmd report)"
    assert w.info.malformed == 0
    plain = Walker()
    plain.feed_lines(text)
    assert {k: (f.count, f.total, f.local)
            for k, f in func_stats(w.roots()).items()} == \
        {k: (f.count, f.total, f.local)
         for k, f in func_stats(plain.roots()).items()}
    check_timelines(tmp_path, tc_text, calls, pr)
