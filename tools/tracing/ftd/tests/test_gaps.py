# SPDX-License-Identifier: GPL-2.0
"""Gaps in a trace (LOST markers, jumps in depth) and calls rebuilt
from their returns alone: no caller or callee is guessed across a gap,
and time stamps decide which earlier calls ran inside a return's call."""

from __future__ import annotations

import lzma
import random
import re
from typing import Dict, List, Set, Tuple

import pytest

from conftest import TRACES_DIR, run_ftd
from ftdlib.analysis import func_stats, merged_tree
from ftdlib.parse import Walker

def dfield(dur: str) -> str:
    """The duration column: mark, space, duration, padding."""
    return ("  " + dur if dur[:1].isdigit() else dur).ljust(14)


def fline(cpu: int, task: str, dur: str, depth: int, text: str) -> str:
    """One line of trace_pipe output (CPU, task and duration columns)."""
    return " %d)  %s  | %s|  %s%s\n" % (cpu, task.rjust(8), dfield(dur),
                                        "  " * depth, text)


def tline(ts: str, task: str, dur: str, depth: int, text: str) -> str:
    """One line with absolute time, CPU 0, task and duration."""
    return "%12s |   0)  %s  | %s|  %s%s\n" % (
        ts, task.rjust(8), dfield(dur), "  " * depth, text)


def pairs(w: Walker) -> Set[Tuple[str, str]]:
    """Every (caller, callee) pair in the call trees; the caller of an
    outermost call is ""."""
    out: Set[Tuple[str, str]] = set()
    for root in w.roots().values():
        todo = [(root, "")]
        while todo:
            node, name = todo.pop()
            for kid in node.kids.values():
                out.add((name, kid.name))
                todo.append((kid, kid.name))
    return out


def test_lost_marker_ends_open_calls() -> None:
    # sh-100 is inside generic_perform_write() -> shmem_write_begin()
    # when CPU 0 loses events; what follows ran elsewhere in its code
    lines = [
        fline(0, "sh-100", "", 0, "generic_perform_write() {"),
        fline(0, "sh-100", "", 1, "shmem_write_begin() {"),
        fline(0, "sh-100", "1.000 us", 2, "_raw_spin_lock();"),
        "CPU:0 [LOST 1234 EVENTS]\n",
        fline(0, "sh-100", "", 2, "__sprint_symbol() {"),
        fline(0, "sh-100", "2.000 us", 3, "kallsyms_lookup();"),
        fline(0, "sh-100", "5.000 us", 2, "}"),
        fline(0, "sh-100", "9.000 us", 1, "} /* vfs_write */"),
        fline(1, "ls-101", "", 0, "vfs_read() {"),
        fline(1, "ls-101", "1.500 us", 1, "rw_verify_area();"),
    ]
    w = Walker()
    w.feed_lines(lines)
    got = pairs(w)
    # the calls after the marker are not glued under the open ones
    assert ("shmem_write_begin", "__sprint_symbol") not in got
    assert ("__sprint_symbol", "kallsyms_lookup") in got
    assert ("generic_perform_write", "vfs_write") not in got
    # the two open calls of CPU 0 are cut; CPU 1's is not
    assert w.info.cut_calls == 2
    assert w.info.unfinished == 1
    stats = func_stats(w.roots())
    assert "shmem_write_begin" not in stats
    assert stats["vfs_write"].count == 1


def test_depth_jump_after_lost_marker() -> None:
    # the marker is on CPU 1, where sh-100 ran during the gap; back on
    # CPU 0 its next line is three levels below its innermost open call
    lines = [
        fline(0, "sh-100", "", 0, "ksys_write() {"),
        fline(0, "sh-100", "", 1, "vfs_write() {"),
        "CPU:1 [LOST 10 EVENTS]\n",
        fline(0, "sh-100", "0.500 us", 4, "_raw_spin_lock();"),
        fline(0, "sh-100", "0.700 us", 4, "_raw_spin_unlock();"),
    ]
    w = Walker()
    w.feed_lines(lines)
    got = pairs(w)
    assert ("vfs_write", "_raw_spin_lock") not in got
    assert w.info.cut_calls == 2
    # without a lost marker, the same jump is a call through frames the
    # kernel does not print (the ARM irq entry): its caller is unknown,
    # but it ran inside vfs_write()
    w = Walker()
    w.feed_lines([ln for ln in lines if "LOST" not in ln])
    got = pairs(w)
    assert ("vfs_write", "_raw_spin_lock") not in got
    assert ("vfs_write", "(unknown)") in got
    assert ("(unknown)", "_raw_spin_lock") in got
    assert w.info.cut_calls == 0


def relations(w: Walker) -> Set[Tuple[str, str]]:
    return {(a, b) for a, b in pairs(w) if a and a != "(unknown)" and
            b != "(unknown)"}


@pytest.mark.parametrize("name", ["S1", "S3"])
def test_lost_events_invent_no_callers(name: str) -> None:
    """Cut holes into a real trace, one CPU at a time, and mark them as
    the kernel does in trace_pipe: every caller-callee pair found in the
    damaged trace must be one of the full trace."""
    path = TRACES_DIR / (name + ".txt.xz")
    if not path.exists():
        pytest.skip("real traces not found at %s" % TRACES_DIR)
    with lzma.open(path, "rt", encoding="utf-8") as f:
        lines = f.readlines()
    full = Walker()
    full.feed_lines(lines)
    truth = relations(full)
    cpu_of = re.compile(r"^(?: *\d+\.\d+ \| )? *(\d+)\) ")
    rnd = random.Random(1)
    out: List[str] = []
    i = 0
    holes = 0
    while i < len(lines):
        m = cpu_of.match(lines[i])
        if m and rnd.random() < 0.01:
            cpu = m.group(1)
            # drop the next 5-60 lines of this CPU, keep the others
            n = rnd.randint(5, 60)
            j = i
            dropped = 0
            while j < len(lines) and dropped < n:
                mj = cpu_of.match(lines[j])
                if mj and mj.group(1) == cpu and "|" in lines[j]:
                    dropped += 1
                else:
                    # switch blocks stay: the kernel prints one whenever
                    # the task changes between the lines it prints
                    out.append(lines[j])
                j += 1
            out.append("CPU:%s [LOST %d EVENTS]\n" % (cpu, dropped))
            holes += 1
            i = j
            continue
        out.append(lines[i])
        i += 1
    assert holes > 100
    w = Walker()
    w.feed_lines(out)
    assert w.info.lost_events == holes
    invented = relations(w) - truth
    assert not invented, sorted(invented)[:10]
    assert w.info.cut_calls > 0


def test_exits_only_uses_time_stamps() -> None:
    # exits-only output: children before parents.  child_a ended before
    # parent began (its caller is not in the trace); child_b ran inside
    lines = [
        "#     TIME        CPU  TASK/PID         DURATION"
        "                  FUNCTION CALLS\n",
        tline("10.000010", "sh-100", "  5.000 us", 1, "} /* child_a */"),
        tline("10.000095", "sh-100", "  7.000 us", 1, "} /* child_b */"),
        tline("10.000100", "sh-100", "+ 20.000 us", 0, "} /* parent */"),
    ]
    w = Walker()
    w.feed_lines(lines)
    stats = func_stats(w.roots())
    assert stats["parent"].local == 13000
    tree = merged_tree(w.roots())
    parent = tree.kids["parent"]
    assert list(parent.kids) == ["child_b"]
    unknown = tree.kids["(unknown)"]
    assert list(unknown.kids) == ["child_a"]
    # without time stamps the depths alone decide: both are callees
    w = Walker()
    w.feed_lines([fline(0, "sh-100", d, dp, t) for d, dp, t in (
        ("5.000 us", 1, "} /* child_a */"),
        ("7.000 us", 1, "} /* child_b */"),
        ("+ 20.000 us", 0, "} /* parent */"))])
    assert func_stats(w.roots())["parent"].local == 8000


def test_exits_only_deeper_calls_have_an_unknown_caller() -> None:
    # deep ended before child began, so its caller one level up is not
    # in the trace: it is not child's callee, and its caller is unknown
    lines = [
        "#     TIME        CPU  TASK/PID         DURATION"
        "                  FUNCTION CALLS\n",
        tline("10.000085", "sh-100", "  4.000 us", 2, "} /* deep */"),
        tline("10.000098", "sh-100", "  3.000 us", 1, "} /* child */"),
        tline("10.000100", "sh-100", "+ 20.000 us", 0, "} /* parent */"),
    ]
    w = Walker()
    w.feed_lines(lines)
    top = merged_tree(w.roots()).kids
    parent = top["parent"]
    assert set(parent.kids) == {"child"}
    assert not parent.kids["child"].kids
    assert list(top["(unknown)"].kids) == ["deep"]
    assert parent.local == 20000 - 3000
    assert w.info.unknown_callers == 1


def inconsistent() -> List[str]:
    # the callee's printed duration exceeds its caller's
    return [
        fline(0, "sh-100", "", 0, "outer() {"),
        fline(0, "sh-100", "", 1, "middle() {"),
        fline(0, "sh-100", "15.000 us", 2, "inner();"),
        fline(0, "sh-100", "+ 10.000 us", 1, "}"),
        fline(0, "sh-100", "+ 12.000 us", 0, "}"),
    ]


def test_folded_reports_negative_local_time(tmp_path) -> None:  # type: ignore
    trace = tmp_path / "t.txt"
    trace.write_text("".join(inconsistent()))
    p = run_ftd("folded", "--weight", "ns", str(trace))
    out = p.stdout.decode()
    total = sum(int(ln.rsplit(" ", 1)[1]) for ln in out.splitlines())
    err = p.stderr.decode()
    # middle: 10 - 15 = -5 us; left out of the folded lines, but said
    assert "negative local time" in err and "5.000 us" in err
    stats: Dict[str, int] = {}
    for ln in run_ftd("report", "-f", "csv", str(trace)).stdout.decode(
            ).splitlines()[1:]:
        f = ln.split(",")
        stats[f[0]] = round(float(f[6]) * 1000)
    assert stats["middle"] == -5000
    assert total == sum(stats.values()) + 5000


def test_tail_only_when_returns_are_named(tmp_path) -> None:  # type: ignore
    # bare braces; without funcgraph-tail the kernel names a return
    # when its CPU no longer holds the entry (overwritten, or another
    # task ran there since): so with an entry, once, and without
    lines = [
        fline(0, "sh-100", "3.000 us", 2, "} /* a */"),
        fline(0, "sh-100", "5.000 us", 1, "} /* b */"),
    ]
    for i in range(5):
        lines += [fline(0, "sh-100", "", 1, "c() {"),
                  fline(0, "sh-100", "1.000 us", 2, "d();"),
                  fline(0, "sh-100", "2.000 us", 1,
                        "} /* c */" if i == 2 else "}")]
    w = Walker()
    w.feed_lines(lines)
    assert not w.info.tail
    trace = tmp_path / "t.txt"
    trace.write_text("".join(lines))
    out = run_ftd("info", str(trace)).stdout.decode()
    assert re.search(r"funcgraph_tail +False", out)


HEAD = ("#     TIME        CPU  TASK/PID         DURATION"
        "                  FUNCTION CALLS\n")


def cline(ts: str, cpu: int, task: str, dur: str, depth: int,
          text: str) -> str:
    """One line with absolute time, CPU, task and duration."""
    return "%12s |   %d)  %s  | %s|  %s%s\n" % (
        ts, cpu, task.rjust(8), dfield(dur), "  " * depth, text)


def counted(lines: List[str]) -> Dict[str, Tuple[int, int]]:
    w = Walker()
    w.feed_lines(lines)
    return {k: (f.count, f.total) for k, f in func_stats(w.roots()).items()}


def test_return_contradicting_its_entry_is_not_paired() -> None:
    # find entered f() on CPU 1; 900 ms later a bare "}" of a 5 us call
    # on CPU 0: lines were lost in between (no marker says so), and the
    # stamps show that it is not f's return
    lines = [HEAD,
             cline("1.000000", 1, "find-1", "", 0, "g() {"),
             cline("1.000010", 1, "find-1", "", 1, "f() {"),
             cline("1.900000", 0, "find-1", "5.000 us", 1, "}"),
             cline("1.900100", 0, "find-1", "1.000 us", 1, "h();")]
    got = counted(lines)
    assert "f" not in got and got == {"h": (1, 1000)}
    # the same with a context switch in between: the task slept, and
    # the duration leaves that aside; the pair stands
    sw = [" ------------------------------------------\n",
          " 1)  find-1  =>  sh-2  \n",
          " ------------------------------------------\n", "\n"]
    got = counted(lines[:3] + sw + lines[3:])
    assert got["f"] == (1, 5000)
    # a return naming f on the same CPU, no line lost: the scheduler
    # ran inside it without a switch (as on the real trace S3)
    named = lines[:3] + [cline("1.900000", 1, "find-1", "5.000 us", 1,
                               "} /* f */")]
    assert counted(named)["f"] == (1, 5000)
    # an entry written much later than the start its return gives,
    # while the task's line before it (not a deeper one: an interrupt
    # would have printed those) is later than that start
    late = [HEAD,
            cline("1.000000", 1, "find-1", "", 0, "g() {"),
            cline("1.000400", 1, "find-1", "2.000 us", 1, "k();"),
            cline("1.000500", 1, "find-1", "", 1, "f() {"),
            cline("1.000510", 1, "find-1", "500.000 us", 1, "}")]
    assert "f" not in counted(late)
    irq = late[:2] + [cline("1.000300", 1, "find-1", "100.000 us", 2,
                            "gic_handle_irq();")] + late[3:]
    assert counted(irq)["f"] == (1, 500000)
