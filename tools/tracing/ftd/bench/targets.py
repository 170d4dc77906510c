#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How truthful ftd's timelines are on given traces (issue 42's targets):

- the share of the printed (function, duration) pairs that appear
  unchanged as Chrome events and as speedscope frames;
- how many of those events are drawn more than 1 us away from every
  start the call's own lines give (its entry's stamp, its return's
  stamp less its duration, a leaf's stamp, or the next line of its
  task on its CPU less its duration);
- the pairs ftd refused because their stamps contradict each other,
  and the calls whose caller it could not tell (from `ftd info`).

The trace is read here by a plain reader of its own, not by ftd's.

    python3 bench/targets.py TRACE...        (from tools/tracing/ftd)
"""

import collections
import json
import lzma
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FTD = os.path.join(HERE, "..", "ftd")
DUR = re.compile(r"([\d.]+) us")
TIME = re.compile(r" *(\d+\.\d+) \|")
CPU = re.compile(r"(\d+)\)")
PROC = re.compile(r"\)\s+(\S.*?-\d+)\s+\|")
SWITCH = re.compile(r"\s*(\d+)\)\s+(\S.*?-\d+)\s+=>\s+(\S.*?-\d+)\s*$")
US = 1000


def read(path):
    if path.endswith(".xz"):
        with lzma.open(path, "rt", encoding="utf-8") as f:
            return f.readlines()
    with open(path, encoding="utf-8") as f:
        return f.readlines()


def printed(lines):
    """(function, duration ns) -> the starts its lines give, one list
    of candidate starts per call."""
    out = collections.defaultdict(list)
    stacks = {}
    current = {}
    leaf = {}           # (task, cpu) -> (key, candidates) of a leaf
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
        cm = CPU.search(head)
        cpu = cm.group(1) if cm else ""
        pm = PROC.search(head)
        task = pm.group(1) if pm else current.get(cpu, cpu)
        tm = TIME.match(head)
        ts = round(float(tm.group(1)) * 1e6) * US if tm else None
        dm = DUR.search(head)
        d = round(float(dm.group(1)) * 1000) if dm else None
        body = text.lstrip(" ")
        depth = (len(text) - len(body) - 2) // 2
        prev = leaf.pop((task, cpu), None)
        if prev is not None and ts is not None:
            prev[1].append(ts + US - prev[0][1])
        stack = stacks.setdefault(task, {})
        if body.endswith("{"):
            stack[depth] = (body.split("(")[0], ts)
        elif (body.endswith(";") or "(); /*" in body) and d is not None:
            key = (body.split("(")[0], d)
            cands = [ts] if ts is not None else []
            out[key].append(cands)
            leaf[(task, cpu)] = (key, cands)
        elif body.startswith("}") and d is not None:
            ent = stack.pop(depth, None)
            name = body[5:-3].split(" = ")[0] if "/*" in body else \
                (ent[0] if ent else None)
            if not name:
                continue
            cands = []
            if ts is not None:
                cands += [ts - d, ts + US - d]
            if ent and ent[0] == name and ent[1] is not None:
                cands.append(ent[1])
            out[(name, d)].append(cands)
    return out


def events(path, cmd):
    p = subprocess.run([sys.executable, FTD, cmd, "--no-progress", path],
                       capture_output=True)
    if p.returncode != 0:
        return None, p.stderr.decode().strip()
    doc = json.loads(p.stdout)
    got = []
    if cmd == "chrome":
        base = doc["otherData"]["time_origin_ns"]
        for e in doc["traceEvents"]:
            if e["ph"] == "X" and "unfinished" not in e.get("args", {}):
                got.append((e["name"], round(e["dur"] * 1000),
                            base + round(e["ts"] * 1000)))
        return got, ""
    frames = [f["name"] for f in doc["shared"]["frames"]]
    # speedscope has no origin: the first event is at the earliest start
    for prof in doc["profiles"]:
        opened = []
        for ev in prof["events"]:
            if ev["type"] == "O":
                opened.append((ev["frame"], ev["at"]))
            else:
                fr, at = opened.pop()
                got.append((frames[fr], round((ev["at"] - at) * 1000),
                            None))
    return got, ""


def measure(path):
    lines = read(path)
    want = printed(lines)
    total = sum(len(v) for v in want.values())
    res = {"trace": os.path.basename(path), "printed pairs": total}
    tmp = None
    if path.endswith(".xz"):
        tmp = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
        tmp.writelines(lines)
        tmp.close()
        path = tmp.name
    try:
        info = json.loads(subprocess.run(
            [sys.executable, FTD, "info", "-f", "json", "--no-progress",
             path], capture_output=True).stdout)
        for k in ("returns_contradicting_entry",
                  "calls_with_unknown_caller", "returns_not_paired_by_time",
                  "calls_cut"):
            res[k] = info.get(k)
        for cmd in ("chrome", "speedscope"):
            got, err = events(path, cmd)
            if got is None:
                res[cmd] = "refused: " + err.splitlines()[-1][:60]
                continue
            have = collections.Counter((n, d) for n, d, _ in got)
            same = sum(min(len(v), have[k]) for k, v in want.items())
            res[cmd + " pairs unchanged"] = "%.3f%%" % (100.0 * same /
                                                       max(total, 1))
            if cmd != "chrome":
                continue
            starts = collections.defaultdict(list)
            for n, d, t in got:
                starts[(n, d)].append(t)
            far = 0
            for key, calls in want.items():
                ats = sorted(starts.get(key, []))
                for cands in calls:
                    if not cands or not ats:
                        continue
                    lo, hi = min(cands) - US, max(cands) + US
                    if not any(lo <= a <= hi for a in ats):
                        far += 1
            res["chrome calls > 1 us from their lines' starts"] = far
    finally:
        if tmp is not None:
            os.unlink(tmp.name)
    return res


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        for k, v in measure(path).items():
            print("%-45s %s" % (k, v))
        print()


if __name__ == "__main__":
    main()
