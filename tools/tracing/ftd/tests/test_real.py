# SPDX-License-Identifier: GPL-2.0
"""The real traces S1..S4 (../shared/traces next to the repository),
checked against a separate, deliberately plain reference calculation.
Skipped when the traces are not there."""

from __future__ import annotations

import lzma
import re
from typing import Dict, List, Tuple

import pytest

from conftest import TRACES_DIR
from ftdlib.analysis import func_stats
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


def reference(lines: List[str]) -> Dict[str, Tuple[int, int, int]]:
    """Per function (count, total ns, local ns), the simple way: the
    function text is what follows the last '|', its depth is its indent,
    and each task (from the task column or the switch blocks) has a
    stack.  A return whose entry is missing takes as callees the calls
    that finished one level deeper, with no caller open, since the last
    return at its level, and that did not begin more than 10 us before
    it did (its return time minus its duration) or lie more than half
    within it, when the trace has time stamps.  Calls deeper than that count as one call of an
    unknown function one level up, starting with the first of them;
    calls that began earlier, too, just before the return's own call."""
    out: Dict[str, List[int]] = {}
    stacks: Dict[str, list] = {}
    waiting: Dict[str, Dict[int, List[Tuple[int, int]]]] = {}
    current: Dict[str, str] = {}
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#") or "==========" in line \
                or line.strip().startswith("---") or "LOST" in line:
            continue
        m = SWITCH.match(line)
        if m:
            c = m.group(1)
            prev = m.group(2) + ("@" + c if m.group(2).endswith("-0")
                                 else "")
            if c not in current and "cpu" + c in stacks:
                # what ran before the first switch was the previous task
                stacks[prev] = stacks.pop("cpu" + c)
                waiting[prev] = waiting.pop("cpu" + c, {})
            current[c] = m.group(3) + (
                "@" + c if m.group(3).endswith("-0") else "")
            continue
        head, _, text = line.rpartition("|")
        cpu = CPU.search(head).group(1)  # type: ignore[union-attr]
        pm = PROC.search(head)
        if pm:
            task = pm.group(1) + ("@" + cpu if pm.group(1).endswith("-0")
                                  else "")
        else:
            task = current.get(cpu, "cpu" + cpu)
        tm = TIME.match(head)
        ts = round(float(tm.group(1)) * 1e6) * 1000 if tm else None
        dm = DUR.search(head)
        ns = round(float(dm.group(1)) * 1000) if dm else 0
        body = text.lstrip(" ")
        depth = (len(text) - len(body) - 2) // 2
        stack = stacks.setdefault(task, [])
        wait = waiting.setdefault(task, {})

        def done(fn: str, d: int, child: int) -> None:
            v = out.setdefault(fn, [0, 0, 0])
            v[0] += 1
            v[1] += d
            v[2] += d - child

        def give_parent(d: int, start: int) -> None:
            if stack:
                stack[-1][2] += d
            else:
                wait.setdefault(depth, []).append((start, d))

        if body.endswith("{"):
            stack.append([body.split("(")[0], depth, 0, ts])
        elif body.endswith(";"):
            give_parent(ns, ts if ts is not None else -1)
            done(body.split("(")[0], ns, 0)
        elif body.startswith("}"):
            named = body[5:-3].split(" = ")[0] if "/*" in body else None
            if stack and stack[-1][1] == depth:
                fn, _, child, t0 = stack.pop()
                give_parent(ns, t0 if t0 is not None else -1)
                done(fn, ns, child)
            else:
                assert named, line
                start = ts - ns if ts is not None else None
                for k in sorted((k for k in wait if k > depth + 1),
                                reverse=True):
                    calls = wait.pop(k)
                    wait.setdefault(k - 1, []).append(
                        (min(c[0] for c in calls), sum(c[1] for c in calls)))
                calls = wait.pop(depth + 1, [])
                n = 0
                if start is not None:
                    n = len(calls)
                    while n and (calls[n - 1][0] >= start - 10000 or
                                 2 * (min(calls[n - 1][0] + calls[n - 1][1],
                                          ts) - start) > calls[n - 1][1]):
                        n -= 1
                child = sum(c[1] for c in calls[n:])
                if n:
                    wait.setdefault(depth, []).append(
                        (min(c[0] for c in calls[:n]),
                         sum(c[1] for c in calls[:n])))
                if stack:
                    stack[-1][2] += ns
                else:
                    wait.setdefault(depth, []).append(
                        (start if start is not None else -1, ns))
                done(named, ns, child)
    return {k: (v[0], v[1], v[2]) for k, v in out.items()}


@pytest.mark.parametrize("name", NAMES)
def test_matches_reference(name: str) -> None:
    lines = load(name)
    w = Walker()
    w.feed_lines(lines)
    got = {k: (f.count, f.total, f.local)
           for k, f in func_stats(w.roots()).items()}
    want = reference(lines)
    assert w.info.malformed == 0
    assert len(got) > 100
    assert got == want


def test_known_totals() -> None:
    # Whole S2 (exits only): every function line is one call.
    lines = load("S2")
    calls = sum(1 for ln in lines if "} /* " in ln)
    w = Walker()
    w.feed_lines(lines)
    assert sum(f.count for f in func_stats(w.roots()).values()) == calls
