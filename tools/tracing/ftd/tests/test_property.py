# SPDX-License-Identifier: GPL-2.0
"""Property test: random call trees with known durations, printed like
the kernel does in every option combination, must come back exactly.

Durations are whole nanoseconds below 10 ms, which the kernel prints
with all three decimals, so counts, totals and local times are compared
at nanosecond precision."""

from __future__ import annotations

import random
from typing import Dict, List, Tuple

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FTD_DIR  # noqa: F401  (puts ftdlib on sys.path)
from fgrender import Opts, Printer, Rec, header
from ftdlib.analysis import func_stats
from ftdlib.timeline import Timeline
from ftdlib.parse import Walker

FUNCS = ["vfs_read", "do_sys_open", "kmalloc", "kfree", "memcpy",
         "mutex_lock", "mutex_unlock", "ext4_file_read_iter",
         "copy_page", "tick_sched_timer", "foo.constprop.0",
         "mod_fn [mymod]"]
IRQ = "gic_handle_irq"
SCHED = "schedule"


def gen_tree(rnd: random.Random, depth: int, budget: List[int],
             in_irq: bool = False) -> List[Tuple[str, list]]:
    """Random calls; an irq handler never sleeps, so no schedule()
    below one."""
    out: List[Tuple[str, list]] = []
    n = rnd.randint(0, 3 if depth < 4 else 0)
    for _ in range(n):
        if budget[0] <= 0:
            break
        budget[0] -= 1
        r = rnd.random()
        if r < 0.08:
            name = IRQ
        elif r < 0.2 and not in_irq:
            name = SCHED
        else:
            name = rnd.choice(FUNCS)
        kids = [] if name == SCHED else gen_tree(
            rnd, depth + 1, budget, in_irq or name == IRQ)
        out.append((name, kids))
    return out


def events(tree: List[Tuple[str, list]], depth: int, ids: List[int],
           parent: int) -> List[Tuple[str, str, int, int, int]]:
    """DFS order: (kind, func, depth, call_id, parent_id)."""
    ev = []
    for name, kids in tree:
        ids[0] += 1
        cid = ids[0]
        ev.append(("E", name, depth, cid, parent))
        ev.extend(events(kids, depth + 1, ids, cid))
        ev.append(("R", name, depth, cid, parent))
    return ev


def simulate(rnd: random.Random, ncpus: int, idle: bool
             ) -> Tuple[Dict[int, List[Rec]], Dict[int, str]]:
    comms: Dict[int, str] = {0: "<idle>"}
    streams: Dict[int, List[Rec]] = {}
    ids = [0]
    pid = 100
    for cpu in range(ncpus):
        tasks = []
        for _ in range(rnd.randint(1, 3)):
            if idle and not tasks and rnd.random() < 0.4:
                p = 0
            else:
                pid += rnd.randint(1, 50)
                p = pid
                comms[p] = rnd.choice(["ls", "sed", "kworker/0:1",
                                       "rcu_preempt", "a b"])
            budget = [rnd.randint(1, 40)]
            forest: List[Tuple[str, list]] = []
            for _ in range(10):
                forest.extend(gen_tree(rnd, 0, budget))
                if budget[0] <= 0:
                    break
            ev = events(forest, 0, ids, -1)
            if ev:
                tasks.append([p, ev, 0])
        t = rnd.randint(1, 5) * 10**9 + rnd.randint(0, 10**6)
        recs: List[Rec] = []
        open_calls: Dict[int, int] = {}
        cur = 0
        while tasks:
            cur %= len(tasks)
            task = tasks[cur]
            p, ev, i = task
            kind, func, depth, cid, par = ev[i]
            t += rnd.randint(1, 3000)
            r = Rec(kind, cpu, p, comms[p], depth, func, t, call_id=cid,
                    parent=par, irq=(func == IRQ))
            if kind == "E":
                open_calls[cid] = t
            else:
                r.calltime = open_calls.pop(cid)
                r.retval = rnd.choice([0, 1, -22, 4096])
            recs.append(r)
            task[2] += 1
            if task[2] >= len(ev):
                tasks.pop(cur)
                continue
            if kind == "E" and func == SCHED and len(tasks) > 1:
                cur += 1
        streams[cpu] = recs
    return streams, comms


def expected(streams: Dict[int, List[Rec]], pr: Printer
             ) -> Dict[str, Tuple[int, int, int]]:
    dur: Dict[int, int] = {}
    info: Dict[int, Tuple[str, int]] = {}
    for recs in streams.values():
        for r in recs:
            if r.kind == "R" and r.call_id in pr.printed:
                dur[r.call_id] = r.ts - r.calltime
                info[r.call_id] = (r.func, r.parent)
    child: Dict[int, int] = {}
    for cid, (func, par) in info.items():
        if par in dur:
            child[par] = child.get(par, 0) + dur[cid]
    out: Dict[str, List[int]] = {}
    for cid, (func, par) in info.items():
        if cid in pr.unnamed:
            continue
        v = out.setdefault(func, [0, 0, 0])
        v[0] += 1
        v[1] += dur[cid]
        v[2] += dur[cid] - child.get(cid, 0)
    return {k: (v[0], v[1], v[2]) for k, v in out.items()}


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(rnd=st.randoms(use_true_random=False),
       abstime=st.booleans(), cpu=st.booleans(), proc=st.booleans(),
       lat=st.booleans(), overhead=st.booleans(), tail=st.booleans(),
       retval=st.sampled_from(["", "dec", "hex"]), irqs=st.booleans(),
       thresh=st.sampled_from(["none", "none", "exits", "nested"]),
       with_header=st.booleans(), cut=st.booleans())
def test_recovers_exact_stats(rnd: random.Random, abstime: bool,
                              cpu: bool, proc: bool, lat: bool,
                              overhead: bool, tail: bool, retval: str,
                              irqs: bool, thresh: str, with_header: bool,
                              cut: bool) -> None:
    ncpus = rnd.randint(1, 3) if cpu else 1
    o = Opts(abstime=abstime, cpu=cpu, proc=proc, lat=lat,
             overhead=overhead, tail=tail, retval=retval, irqs=irqs,
             ncpus=ncpus)
    streams, comms = simulate(rnd, ncpus, idle=True)
    if thresh != "none":
        th = rnd.randint(1, 8000)
        keep = set()
        for recs in streams.values():
            for r in recs:
                if r.kind == "R" and r.ts - r.calltime >= th:
                    keep.add(r.call_id)
        for c, recs in streams.items():
            streams[c] = [r for r in recs if r.call_id in keep and
                          (thresh == "nested" or r.kind == "R")]
    if cut:
        for c, recs in streams.items():
            a = rnd.randint(0, min(8, len(recs)))
            b = rnd.randint(0, min(8, len(recs) - a))
            streams[c] = recs[a:len(recs) - b]
    pr = Printer(o)
    lines = pr.render(streams, comms)
    if with_header or not lines:
        lines = header(o) + lines
    text = [ln + "\n" for ln in lines]
    w = Walker()
    info = w.feed_lines(text)
    got = {k: (f.count, f.total, f.local)
           for k, f in func_stats(w.roots()).items()}
    want = expected(streams, pr)
    assert info.malformed == 0, (info.malformed_samples, "".join(text))
    assert got == want, "".join(text)
    # the per-function mode (no call paths) must agree
    wf = Walker(flat=True)
    wf.feed_lines(text)
    assert {k: (f.count, f.total, f.local)
            for k, f in wf.func_stats().items()} == want
    if abstime:
        # timelines: one record per counted call, properly nested
        tl = Timeline("task")
        wt = Walker(timeline=tl)
        wt.feed_lines(text)
        tl.set_bounds(wt.info.first_ts, wt.info.last_ts)
        for track in tl.tracks:
            for lane in tl.lanes(track):
                open_: List[Tuple[int, int, int, int, int, int]] = []
                last = -1
                for rec in lane:
                    assert rec[0] >= last and rec[1] >= rec[0]
                    last = rec[0]
                    while open_ and open_[-1][2] >= rec[2]:
                        open_.pop()
                    assert len(open_) == rec[2]
                    if open_:
                        assert open_[-1][0] <= rec[0] and \
                            rec[1] <= open_[-1][1]
                    open_.append(rec)
