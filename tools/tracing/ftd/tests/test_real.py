# SPDX-License-Identifier: GPL-2.0
"""The real traces S1..S4 (../shared/traces next to the repository),
checked call by call against a separate, deliberately plain reading
of the lines.
Skipped when the traces are not there."""

from __future__ import annotations

import collections
import lzma
import re
from typing import Counter, Dict, List, Tuple

import pytest

from conftest import TRACES_DIR
from ftdlib.analysis import func_stats
from ftdlib.pairing import Call
from ftdlib.parse import Walker

NAMES = ["S1", "S2", "S3", "S4"]
DUR = re.compile(r"([\d.]+) us")
TIME = re.compile(r" *(\d+\.\d+) \|")
CPU = re.compile(r"(\d+)\)")
PROC = re.compile(r"\)\s+(\S.*?-\d+)\s+\|")
SWITCH = re.compile(r"\s*(\d+)\)\s+(\S.*?-\d+)\s+=>\s+(\S.*?-\d+)\s*$")


def load(name: str) -> List[str]:
    path = TRACES_DIR / (name + ".txt.xz")
    if not path.exists():
        pytest.skip("real traces not found at %s" % TRACES_DIR)
    with lzma.open(path, "rt", encoding="utf-8") as f:
        return f.readlines()


def reference(lines: List[str]) -> Counter[Tuple[str, int]]:
    """Every (function, printed duration) pair the lines name, the
    simple way: the function text is what follows the last '|', its
    depth is its indent; a bare '}' takes the name of the entry at its
    depth on its task's stack (task from the task column, or the
    switch blocks)."""
    out: Counter[Tuple[str, int]] = collections.Counter()
    stacks: Dict[str, Dict[int, str]] = {}
    current: Dict[str, str] = {}
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#") or "==========" in line \
                or line.strip().startswith("---") or "LOST" in line:
            continue
        m = SWITCH.match(line)
        if m:
            current[m.group(1)] = m.group(3)
            continue
        head, _, text = line.rpartition("|")
        cpu = CPU.search(head).group(1)  # type: ignore[union-attr]
        pm = PROC.search(head)
        task = pm.group(1) + "@" + cpu if pm else current.get(cpu, cpu)
        dm = DUR.search(head)
        body = text.lstrip(" ")
        depth = (len(text) - len(body) - 2) // 2
        stack = stacks.setdefault(task, {})
        if body.endswith("{"):
            stack[depth] = body.split("(")[0]
        elif body.endswith(";") and dm:
            out[(body.split("(")[0], round(float(dm.group(1)) * 1000))] += 1
        elif body.startswith("}") and dm:
            name = body[5:-3].split(" = ")[0] if "/*" in body else \
                stack.get(depth)
            stack.pop(depth, None)
            if name:
                out[(name, round(float(dm.group(1)) * 1000))] += 1
    return out


@pytest.mark.parametrize("name", NAMES)
def test_function_duration_pairs(name: str) -> None:
    """Every call ftd counts is a (function, printed duration) pair of
    the trace, and at least 99.5% of the pairs are counted."""
    lines = load(name)
    got: Counter[Tuple[str, int]] = collections.Counter()

    def sink(c: Call) -> None:
        assert c.name is not None
        got[(c.name, c.dur)] += 1
    w = Walker()
    w.want_calls(sink)
    w.feed_lines(lines)
    want = reference(lines)
    assert w.info.malformed == 0
    assert not got - want, sorted(got - want)[:10]
    assert sum(got.values()) >= 0.995 * sum(want.values())
    # and the per-function table is made of them
    stats = func_stats(w.roots())
    assert sum(f.count for f in stats.values()) == sum(got.values())
    assert sum(f.total for f in stats.values()) == sum(
        n * d for (_, d), n in got.items())


@pytest.mark.parametrize("name", ["S2", "S3"])
def test_stamps_agree_with_durations(name: str) -> None:
    """No call is paired from lines whose stamps contradict its
    duration: its entry's stamp is not after its return's, and its
    start (from its own lines) is within a microsecond of the earlier
    of its entry's stamp and its return's stamp less its duration."""
    lines = load(name)
    stamp = [-1] * (len(lines) + 1)
    for i, ln in enumerate(lines, 1):
        m = TIME.match(ln)
        if m:
            stamp[i] = round(float(m.group(1)) * 1e6) * 1000
    bad = []

    def sink(c: Call) -> None:
        e, r = stamp[c.line], stamp[c.rline]
        if c.line != c.rline:
            if e > r or abs(c.start - min(e, r + 1000 - c.dur)) > 1000:
                bad.append(c)
        elif abs(c.start - (r - c.dur)) > 1000 and \
                not lines[c.line - 1].rstrip().endswith(";"):
            bad.append(c)
    w = Walker()
    w.want_calls(sink)
    w.feed_lines(lines)
    assert not bad, bad[:5]
def test_known_totals() -> None:
    # Whole S2 (exits only): every function line is one call.
    lines = load("S2")
    calls = sum(1 for ln in lines if "} /* " in ln)
    w = Walker()
    w.feed_lines(lines)
    assert sum(f.count for f in func_stats(w.roots()).values()) == calls


def strip_columns(lines: List[str], proc: bool) -> List[str]:
    """S3 as it would print without funcgraph-cpu (and without
    funcgraph-proc unless proc): the lines of both CPUs mix."""
    out = []
    for ln in lines:
        if ln.startswith("#"):
            ln = ln.replace(" CPU", "    ", 1)
            out.append(ln if proc else ln.replace("TASK/PID", " " * 8, 1))
            continue
        m = re.match(r"( *\d+\.\d+ \|  ) *\d+\) (.*)$", ln, re.S)
        if not m:
            out.append(ln)
            continue
        ln = m.group(1) + m.group(2)
        if not proc:
            ln = re.sub(r"^( *\d+\.\d+ \|  ) *\S.*?-\d+ *\| ", r"\1", ln)
        out.append(ln)
    return out


def by_line(lines: List[str]) -> Tuple[Walker, Dict[int, Call]]:
    every: List[Call] = []
    w = Walker()
    w.want_calls(lambda c: None)
    collect = w.core.emit

    def emit(c: Call) -> None:
        every.append(c)
        collect(c)
    w.core.emit = emit
    w.feed_lines(lines)
    return w, {c.line: c for c in every}


@pytest.mark.parametrize("proc", [True, False])
def test_without_cpu_column(proc: bool) -> None:
    """S3 with its CPU column (and task column) taken out, against S3:
    no return matched with another entry, no caller that S3
    contradicts, and most returns matched by time."""
    lines = load("S3")
    _, full = by_line(lines)
    w, got = by_line(strip_columns(lines, proc))
    assert w.info.mixed_cpus and w.info.malformed == 0
    lines_of = {c.line: c.rline for c in full.values()}
    parent_line = {c.id: c.line for c in full.values()}
    gid_line = {c.id: c.line for c in got.values()}
    for n, c in got.items():
        if c.line != c.rline:
            assert lines_of.get(n) == c.rline, c
        if c.parent > 0:
            f = full[n]
            assert parent_line.get(f.parent) == gid_line[c.parent], (c, f)
    assert w.info.ambiguous < 0.1 * w.info.returns
