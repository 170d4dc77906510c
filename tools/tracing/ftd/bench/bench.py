#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Benchmark ftd's parser against the pm-graph sleepgraph.py parser loop
and against `wc -l`, on one large trace built from the real traces.

Each tool runs as its own child process under /usr/bin/time, which
gives its CPU time (user + system), wall time and peak RSS.
Every tool reads the same uncompressed file, after one untimed warm-up
read so that all of them find it in the page cache.

    python3 bench/bench.py [--size-mb 216] [--runs 3] [--only CMD]
                                                    (from tools/tracing/ftd)

Every ftd command runs on the same file, side by side with the
sleepgraph loop; the table gives each one's CPU time, its ratio to the
sleepgraph loop and its peak memory.
"""

import argparse
import lzma
import os
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FTD = os.path.join(HERE, "..", "ftd")
REPO = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
TRACES = os.path.join(os.path.dirname(REPO), "shared", "traces")
SLEEPGRAPH = os.path.join(REPO, ".cache", "src", "linux-source-6.12",
                          "tools", "power", "pm-graph", "sleepgraph.py")

# The sleepgraph loop: its function_graph line regex and one FTraceLine
# per matching line, as in its loadTraceLog()/parseTraceLog().  The
# stamp and event handling around it is left out, which only makes the
# peer faster.
SLEEPGRAPH_LOOP = r"""
import importlib.util, re, sys
spec = importlib.util.spec_from_file_location('sleepgraph', sys.argv[1])
sg = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sg)
tp = sg.TestProps()
tp.setTracerType('function_graph')
fmt = tp.ftrace_line_fmt
n = calls = 0
with open(sys.argv[2], 'r') as tf:
    for line in tf:
        line = line.replace('\r\n', '')
        if line[0] == '#':
            continue
        m = re.match(fmt, line)
        if not m:
            continue
        t = sg.FTraceLine(m.group('time'), m.group('msg'), m.group('dur'))
        n += 1
        if t.fcall:
            calls += 1
print(n, calls)
"""

# The same with its per-line stampInfo() call, as loadTraceLog() does.
SLEEPGRAPH_FULL = SLEEPGRAPH_LOOP.replace(
    "        line = line.replace('\\r\\n', '')\n",
    "        line = line.replace('\\r\\n', '')\n"
    "        if tp.stampInfo(line, sg.sysvals):\n"
    "            continue\n")


def build(path, size_mb, mix=False):
    """Repeat the real abstime+cpu+proc trace S3 (the layout the
    sleepgraph regex accepts) until the file has size_mb MB.  With mix,
    alternate S3 with S2, the exits-only tracing_thresh trace."""
    parts = []
    for name in (("S3.txt.xz", "S2.txt.xz") if mix else ("S3.txt.xz",)):
        src = os.path.join(TRACES, name)
        with lzma.open(src, "rb") as f:
            parts.append(f.read())
    want = size_mb * 1000 * 1000
    done = 0
    with open(path, "wb") as out:
        while done < want:
            for p in parts:
                out.write(p)
                done += len(p)
    return done


# Every command, as a user runs it ("TRACE" is the input).
COMMANDS = [
    ("report", ["report", "TRACE"]),
    ("info", ["info", "TRACE"]),
    ("callers vfs_read", ["callers", "TRACE", "vfs_read"]),
    ("callees vfs_read", ["callees", "TRACE", "vfs_read"]),
    ("slowest vfs_read", ["slowest", "TRACE", "vfs_read"]),
    ("hist vfs_read", ["hist", "TRACE", "vfs_read"]),
    ("tree", ["tree", "TRACE"]),
    ("folded", ["folded", "TRACE"]),
    ("folded --ordered", ["folded", "--ordered", "TRACE"]),
    ("flamegraph (on-CPU)", ["flamegraph", "TRACE"]),
    ("flamechart", ["flamechart", "TRACE"]),
    ("chrome", ["chrome", "TRACE"]),
    ("speedscope", ["speedscope", "TRACE"]),
    ("report -s oncpu", ["report", "-s", "oncpu", "TRACE"]),
    ("diff (the file with itself)", ["diff", "TRACE", "TRACE"]),
]


def timed(cmd):
    """Run cmd under /usr/bin/time; return (wall s, CPU s, peak RSS MB).
    CPU time (user + system of the child) is what the ratios use: it
    does not depend on what else the machine is doing."""
    wrap = ["/usr/bin/time", "-f", "FTDBENCH %e %U %S %M"] + cmd
    p = subprocess.run(wrap, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    err = p.stderr.decode()
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), err[-2000:]))
    line = [ln for ln in err.splitlines() if ln.startswith("FTDBENCH")][-1]
    _, wall, user, system, rss = line.split()
    return float(wall), float(user) + float(system), int(rss) / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size-mb", type=int, default=216)
    ap.add_argument("--runs", type=int, default=3,
                    help="runs per tool; the best is reported")
    ap.add_argument("--trace", help="use this trace instead of building")
    ap.add_argument("--sleepgraph", default=SLEEPGRAPH)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--mix", action="store_true",
                    help="alternate S3 with the exits-only trace S2")
    ap.add_argument("--full-sleepgraph", action="store_true",
                    help="also time sleepgraph's loop with stampInfo()")
    ap.add_argument("--only", action="append", metavar="TEXT",
                    help="only the ftd commands whose name holds TEXT "
                    "(repeatable)")
    a = ap.parse_args()
    tmp = None
    if a.trace:
        path = a.trace
    else:
        tmp = tempfile.mkdtemp(prefix="ftd-bench-")
        path = os.path.join(tmp, "big.txt")
        build(path, a.size_mb, a.mix)
    size = os.path.getsize(path)
    with open(path, "rb") as f:        # warm the page cache
        lines = sum(1 for _ in f)
    tools = [
        ("wc -l", ["wc", "-l", path]),
        ("sleepgraph loop (regex + FTraceLine)",
         [sys.executable, "-c", SLEEPGRAPH_LOOP, a.sleepgraph, path]),
        ("sleepgraph loop with stampInfo()",
         [sys.executable, "-c", SLEEPGRAPH_FULL, a.sleepgraph, path]),
    ]
    ftd = [sys.executable, FTD]
    for name, args in COMMANDS:
        if a.only and not any(o in name for o in a.only):
            continue
        argv = [x if x != "TRACE" else path for x in args]
        tools.append(("ftd " + name, ftd + argv[:1] + ["--no-progress",
                                                    "-o", os.devnull]
                      + argv[1:]))
    if not os.path.exists(a.sleepgraph):
        tools = [t for t in tools if not t[0].startswith("sleepgraph")]
    if not a.full_sleepgraph:
        tools = [t for t in tools if "stampInfo" not in t[0]]
    res = {}
    for name, cmd in tools:
        best = None
        for _ in range(a.runs):
            wall, cpu, rss = timed(cmd)
            if best is None or cpu < best[1]:
                best = (wall, cpu, rss)
        res[name] = best
    print("Machine: %s, %d CPUs, %s, Python %s" % (
        platform.machine(), os.cpu_count() or 0, platform.platform(),
        platform.python_version()))
    print("Input: %s, %.1f MB, %d lines (%s)" % (
        os.path.basename(path), size / 1e6, lines,
        "given" if a.trace else "S3 and S2 alternated" if a.mix
        else "S3 repeated"))
    print("Method: each tool a child process under /usr/bin/time, best of "
          "%d runs by CPU time (user+sys); file in page cache; rates use "
          "CPU time; peak RSS is /usr/bin/time's %%M." % a.runs)
    print()
    sg = res.get("sleepgraph loop (regex + FTraceLine)")
    wc = res["wc -l"]
    print("| tool | CPU (s) | wall (s) | lines/s (CPU) | MB/s (CPU) | "
          "peak RSS (MB) | x sleepgraph (CPU) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, (wall, cpu, rss) in res.items():
        c = max(cpu, 0.01)
        ratio = "%.2f" % (sg[1] / c) if sg else "-"
        print("| %s | %.2f | %.2f | %.0f K | %.1f | %.0f | %s |" % (
            name, cpu, wall, lines / c / 1000, size / 1e6 / c, rss,
            ratio))
    print()
    slow = [n for n, r in res.items() if n.startswith("ftd") and sg and
            sg[1] / max(r[1], 0.01) < 3.0]
    big = [n for n, r in res.items() if n.startswith("ftd") and
           r[2] >= 300]
    print("below 3x the sleepgraph loop: %s" % (", ".join(slow) or "none"))
    print("at 300 MB or more: %s" % (", ".join(big) or "none"))
    print("wc -l: %.2f s of CPU" % wc[1])
    if tmp and not a.keep:
        os.unlink(path)
        os.rmdir(tmp)


if __name__ == "__main__":
    main()
