# SPDX-License-Identifier: GPL-2.0
"""Time on the CPU (the context-switch blocks take switched-out time out
of the calls that were open), exclude filters, and the flame graph and
chart that show on-CPU time by default."""

from __future__ import annotations

import csv
import io
import lzma
import re
from pathlib import Path
from typing import Dict, List

import pytest

from conftest import TRACES_DIR, run_ftd

HEAD = ("#     TIME        CPU  TASK/PID         DURATION"
        "                  FUNCTION CALLS\n")


def tline(ts: str, task: str, dur: str, depth: int, text: str) -> str:
    field = ("  " + dur if dur[:1].isdigit() else dur).ljust(14)
    return "%12s |   0)  %s  | %s|  %s%s\n" % (
        ts, task.rjust(8), field, "  " * depth, text)


def switch(a: str, b: str) -> List[str]:
    return [" ------------------------------------------\n",
            " 0)  %s  =>  %s \n" % (a, b),
            " ------------------------------------------\n", "\n"]


def sleepy(tmp_path: Path) -> Path:
    # sh-10 sleeps in schedule() for 800 us while ls-11 works
    lines = [HEAD,
             tline("1.000000", "sh-10", "", 0, "sys_wait4() {"),
             tline("1.000010", "sh-10", "", 1, "schedule() {")]
    lines += switch("sh-10", "ls-11")
    lines += [tline("1.000100", "ls-11", "", 0, "sys_read() {"),
              tline("1.000110", "ls-11", "+ 700.000 us", 1, "copy();"),
              tline("1.000850", "ls-11", "! 750.000 us", 0, "}")]
    lines += switch("ls-11", "sh-10")
    lines += [tline("1.000900", "sh-10", "! 895.000 us", 1, "}"),
              tline("1.000905", "sh-10", "! 905.000 us", 0, "}")]
    p = tmp_path / "t.txt"
    p.write_text("".join(lines))
    return p


def oncpu(path: Path, *args: str) -> Dict[str, float]:
    out = run_ftd("report", str(path), "-s", "oncpu", "-f", "csv",
                  *args).stdout.decode()
    return {r["function"]: float(r["oncpu_us"])
            for r in csv.DictReader(io.StringIO(out))}


def test_switched_out_time_is_taken_out(tmp_path: Path) -> None:
    got = oncpu(sleepy(tmp_path))
    # switched out from the last line of its CPU before the switch
    # (1.000010) to the last one before the switch back (1.000850)
    assert got["schedule"] == 895.0 - 840.0
    assert got["sys_wait4"] == 905.0 - 840.0
    assert got["sys_read"] == 750.0 and got["copy"] == 700.0
    rows = run_ftd("report", str(sleepy(tmp_path)), "-s", "oncpu"
                   ).stdout.decode().splitlines()
    assert rows[0] == ("# By time on the CPU, largest first: total less "
                       "the time the task was switched out; idle tasks "
                       "(pid 0) left out, with the interrupts they took "
                       "(--task '*' keeps them)")
    assert rows[1].split()[-1] == "OnCPU"
    assert [r.split()[0] for r in rows[3:]] == [
        "sys_read", "copy", "sys_wait4", "schedule"]


def test_oncpu_needs_time_stamps(tmp_path: Path) -> None:
    p = tmp_path / "n.txt"
    p.write_text(" 0)   sh-1    |   1.000 us    |  f();\n")
    err = run_ftd("report", str(p), "-s", "oncpu", code=1).stderr
    assert b"funcgraph-abstime" in err


def test_exclude(tmp_path: Path) -> None:
    full = oncpu(sleepy(tmp_path))
    out = oncpu(sleepy(tmp_path), "-N", "sched*")
    assert "schedule" not in out and "sys_wait4" in out
    assert set(full) - set(out) == {"schedule"}
    out = oncpu(sleepy(tmp_path), "-N", "sys_read")
    assert "copy" not in out and "sys_read" not in out
    err = run_ftd("chrome", str(sleepy(tmp_path)), "-N", "x", code=2).stderr
    assert b"-N applies to the call trees" in err


def test_flamegraph_shows_oncpu_time(tmp_path: Path) -> None:
    svg = tmp_path / "f.svg"
    run_ftd("flamegraph", str(sleepy(tmp_path)), "-o", str(svg))
    text = svg.read_text()
    assert "width = time on the CPU (idle tasks and switched-out time " \
        "left out)" in text
    assert "schedule: 55.000 us on CPU of 895.000 us total" in text
    run_ftd("flamegraph", str(sleepy(tmp_path)), "--weight", "time", "-o",
            str(svg))
    assert "width = inclusive time" in svg.read_text()


def test_flamechart_shades_switched_out_time(tmp_path: Path) -> None:
    svg = tmp_path / "c.svg"
    run_ftd("flamechart", str(sleepy(tmp_path)), "-o", str(svg))
    text = svg.read_text()
    assert ("tasks in order of their time on the CPU (from the context "
            "switches), busiest first, idle tasks last; shaded: switched "
            "out") in text
    assert "<title>switched out: 0.840 ms at 1.000010 s</title>" in text


def widths(svg: Path) -> Dict[str, float]:
    out: Dict[str, float] = {}
    for n, s, e in re.findall(r'data-n="([^"]*)" data-s="([\d.]+)" '
                              r'data-e="([\d.]+)" data-l="0"',
                              svg.read_text()):
        out[n] = out.get(n, 0.0) + float(e) - float(s)
    return out


def test_real_flamegraph_shows_the_work(tmp_path: Path) -> None:
    """On S2 (find /sys), wall time is mostly sleep (schedule), idle
    and the shell waiting in sys_wait4, with find's statx at 1%; on the
    CPU, find's system calls are the picture."""
    src = TRACES_DIR / "S2.txt.xz"
    if not src.exists():
        pytest.skip("real traces not found at %s" % TRACES_DIR)
    path = tmp_path / "S2.txt"
    path.write_bytes(lzma.decompress(src.read_bytes()))
    svg = tmp_path / "f.svg"
    run_ftd("flamegraph", str(path), "--weight", "time", "-o", str(svg))
    wall = widths(svg)
    assert wall["schedule"] + wall["do_idle"] + wall["sys_wait4"] > 0.7
    assert wall["sys_statx"] < 0.05
    run_ftd("flamegraph", str(path), "-o", str(svg))
    cpu = widths(svg)
    assert "do_idle" not in cpu and cpu.get("sys_wait4", 0.0) < 0.01
    assert cpu["sys_statx"] > 0.25


def abandoned(tmp_path: Path) -> Path:
    """kworker-37 enters schedule() and is switched out for good: its
    call never returns.  ls-11 does the work; the idle task runs
    between ls-11's two system calls."""
    lines = [HEAD,
             tline("2.000000", "kworker-37", "", 0, "worker_thread() {"),
             tline("2.000010", "kworker-37", "", 1, "schedule() {")]
    lines += switch("kworker-37", "ls-11")
    lines += [tline("2.000100", "ls-11", "", 0, "sys_read() {"),
              tline("2.000110", "ls-11", "+ 300.000 us", 1, "copy();"),
              tline("2.000450", "ls-11", "! 350.000 us", 0, "}")]
    lines += switch("ls-11", "<idle>-0")
    lines += [tline("2.000500", "<idle>-0", "", 0, "do_idle() {"),
              tline("2.000510", "<idle>-0", "* 10000.00 us", 1,
                    "cpuidle_enter();"),
              tline("2.010600", "<idle>-0", "# 10100.00 us", 0, "}")]
    lines += switch("<idle>-0", "ls-11")
    lines += [tline("2.010700", "ls-11", "", 0, "sys_write() {"),
              tline("2.010710", "ls-11", "! 400.000 us", 1, "copy();"),
              tline("2.011150", "ls-11", "! 450.000 us", 0, "}")]
    p = tmp_path / "abandoned.txt"
    p.write_text("".join(lines))
    return p


def lane_labels(svg: str) -> List[str]:
    return re.findall(r'<text x="\d+" y="\d+" style="font-weight:bold">'
                      r'([^<]*)</text>', svg)


def test_flamechart_ranks_lanes_by_time_on_the_cpu(tmp_path: Path) -> None:
    """A task switched out inside a call that never returns is not the
    busiest: its lane is shaded from its switch-out to the end, and
    the lanes follow the time on the CPU that the switch blocks give,
    the workload's tasks before the idle task."""
    svg = tmp_path / "c.svg"
    run_ftd("flamechart", str(abandoned(tmp_path)), "-o", str(svg),
            "--min-px", "0")
    text = svg.read_text()
    assert lane_labels(text) == ["ls-11", "kworker-37", "&lt;idle&gt;-0/0"]
    # switched out from its last line (2.000010) to the trace's end
    assert ("<title>switched out: 11.140 ms at 2.000010 s</title>"
            in text)
    assert ("schedule: unfinished (no return in the trace), at 2.000010 s; "
            "its task was switched out from 2.000010 s to the end of the "
            "trace</title>") in text
    assert "on the CPU" in text


def report_rows(path: Path, *args: str) -> List[str]:
    """The function column of a text report's rows."""
    out = run_ftd("report", str(path), *args).stdout.decode()
    return [r.split()[0] for r in out.splitlines()[3:]]


def test_report_by_oncpu_leaves_the_idle_tasks_out(tmp_path: Path) -> None:
    """The idle task is on the CPU while the CPU waits for work: ranked
    by time on the CPU, its calls (do_idle, cpuidle_enter) would come
    first.  They are left out, the header says so, and a task filter
    brings them back."""
    p = abandoned(tmp_path)
    out = run_ftd("report", str(p), "-s", "oncpu").stdout.decode()
    head = out.splitlines()[0]
    assert head.startswith("# By time on the CPU, largest first: total "
                           "less the time the task was switched out; ")
    assert "idle tasks (pid 0) left out" in head and "--task '*'" in head
    assert report_rows(p, "-s", "oncpu") == ["copy", "sys_write",
                                             "sys_read"]
    assert set(oncpu(p)) == {"copy", "sys_write", "sys_read"}
    # the user's own task filter decides: all tasks, or the idle ones
    assert report_rows(p, "-s", "oncpu", "--task", "*") == [
        "do_idle", "cpuidle_enter", "copy", "sys_write", "sys_read"]
    assert report_rows(p, "-s", "oncpu", "--pid", "0") == [
        "do_idle", "cpuidle_enter"]
    # other orders keep every task, as before
    assert report_rows(p)[:2] == ["do_idle", "cpuidle_enter"]
    assert report_rows(p, "-s", "total,oncpu")[:2] == ["do_idle",
                                                      "cpuidle_enter"]


def test_report_by_oncpu_of_idle_calls_only(tmp_path: Path) -> None:
    """A trace whose only calls are the idle task's says why the
    on-CPU report is empty, and how to see them."""
    lines = [HEAD,
             tline("3.000000", "<idle>-0", "", 0, "do_idle() {"),
             tline("3.000010", "<idle>-0", "* 10000.00 us", 1,
                   "cpuidle_enter();"),
             tline("3.010100", "<idle>-0", "# 10100.00 us", 0, "}")]
    p = tmp_path / "idle.txt"
    p.write_text("".join(lines))
    err = run_ftd("report", str(p), "-s", "oncpu", code=1).stderr.decode()
    assert "only the idle tasks" in err and "--task '*'" in err
    assert report_rows(p, "-s", "oncpu", "--task", "*") == [
        "do_idle", "cpuidle_enter"]
