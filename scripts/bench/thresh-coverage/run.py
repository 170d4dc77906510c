#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Reproduce Table 1 of the paper: how much time a 1408 KB function_graph
buffer covers with tracing_thresh, when short calls are dropped as
upstream does (exits only), when their entries are turned into padding
(funcgraph-thresh-pad) and when they are rewound (funcgraph-thresh-tree).

Boots the patched kernel once under deterministic timing
(scripts/workbench run patched --icount), runs guest.sh and prints a
table and the method.  Options: --iter-lssed N --iter-findsys N
--thresholds "100 1000 100000" --workloads "lssed findsys" --out DIR --no-run (parse DIR again).
"""

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def parse(path):
    runs = []
    for line in Path(path).read_text().splitlines():
        if not line.startswith("wl="):
            continue
        kv = dict(f.split("=", 1) for f in line.split() if "=" in f)
        runs.append(kv)
    return runs


def num(d, k, default=0.0):
    try:
        return float(d.get(k, ""))
    except ValueError:
        return default


def table(runs):
    out = []
    by = {(r["wl"], r["mode"], r["thresh"]): r for r in runs}
    wls = []
    for r in runs:
        if r["wl"] not in wls:
            wls.append(r["wl"])
    for wl in wls:
        nop = by.get((wl, "nop", "0"))
        prof = by.get((wl, "profile", "0"))
        graph = by.get((wl, "graph", "0"))
        if not (nop and prof and graph):
            continue
        t_nop = num(nop, "t1") - num(nop, "t0")
        calls = num(prof, "hits")
        t_graph = num(graph, "t1") - num(graph, "t0")
        out.append(f"workload {wl}: {calls / 1e6:.3f}M functions executed "
                   f"(function profiler), nop run {t_nop:.2f} s, plain "
                   f"function_graph run {t_graph:.2f} s, "
                   f"{(t_graph - t_nop) / calls * 1e9:.0f} ns per call")
        hdr = (f"{'mode':<6} {'thresh':>7} {'run':>7} {'covered':>9} "
               f"{'events':>7} {'calls':>7} {'B/call':>7} {'rewound':>8} "
               f"{'refused':>8} {'success':>8} {'ns/call':>8} {'vs graph':>9}")
        out.append(hdr)
        out.append("-" * len(hdr))
        rows = [graph] + [r for r in runs if r["wl"] == wl and
                          r["mode"] in ("exits", "pad", "tree")]
        for r in rows:
            run_s = num(r, "t1") - num(r, "t0")
            cov = num(r, "last") - num(r, "first")
            full = num(r, "overrun") > 0
            covs = f"{cov:8.2f}s" + ("" if full else "*")
            shown = num(r, "calls") or num(r, "ends")
            bpc = num(r, "bytes") / shown if shown else 0
            rew, ref = num(r, "rewound"), num(r, "refused")
            # Padding is not a rewind: its refusals have no success rate
            succ = (f"{100 * rew / (rew + ref):7.2f}%"
                    if r["mode"] == "tree" and rew + ref else "       -")
            per = (run_s - t_nop) / calls * 1e9
            vs = (run_s - t_graph) / calls * 1e9
            mode = "graph" if r["mode"] == "graph" else r["mode"]
            out.append(f"{mode:<6} {r['thresh']:>7} {run_s:6.2f}s {covs:>9} "
                       f"{int(num(r, 'entries')):>7} {int(shown):>7} "
                       f"{bpc:7.1f} {int(rew):>8} {int(ref):>8} {succ:>8} "
                       f"{per:8.0f} {vs:+9.0f}")
        out.append("")
        for th in sorted({r["thresh"] for r in runs if r["wl"] == wl and
                          r["mode"] == "tree"}, key=float):
            tr, pd, ex = (by.get((wl, m, th)) for m in ("tree", "pad", "exits"))
            if not (tr and pd and ex):
                continue
            c = {m: num(x, "last") - num(x, "first") for m, x in
                 (("tree", tr), ("pad", pd), ("exits", ex))}
            if c["pad"] > 0 and c["exits"] > 0:
                out.append(f"  thresh {th} us: rewind covers "
                           f"{c['tree'] / c['pad']:.1f}x the padding mode "
                           f"and {100 * c['tree'] / c['exits']:.0f}% of "
                           f"exits-only")
        out.append("")
    out.append("""Method: one boot of the patched kernel under qemu-system-arm -M virt
-cpu cortex-a15 -icount shift=0,sleep=off -smp 1 (1 ns of guest time per
instruction).  tracefs is mounted at /tracing and not under /sys.  Each
run sets buffer_size_kb=1408, tracing_thresh and the mode, resets the
buffer, runs the workload and stops tracing.  run: guest time of the
workload.  covered: newest minus oldest time stamp in the buffer
(funcgraph-abstime); * = the buffer never overflowed, so coverage is
bounded by the run.  events: entries in per_cpu/cpu0/stats.  calls:
calls shown in the output (entries and leaves; return lines in exits
mode).  B/call: buffer bytes (stats) per call shown.  rewound/refused:
stats counters (refused counts failed paddings in pad mode), success =
rewound / (rewound + refused) in tree mode.  ns/call: (run
- nop run) / functions executed; vs graph: the same against plain
function_graph.  Functions executed: sum of hits of the function
profiler in a separate run of the same workload.""")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iter-lssed", type=int, default=20)
    ap.add_argument("--iter-findsys", type=int, default=1)
    ap.add_argument("--thresholds", default="100 1000 100000")
    ap.add_argument("--workloads", default="lssed findsys")
    ap.add_argument("--out", default=str(ROOT / "out" / "thresh-coverage"))
    ap.add_argument("--no-run", action="store_true")
    ap.add_argument("--no-build", action="store_true",
                    help="boot the last build of patched")
    ap.add_argument("--workbench", default=str(ROOT / "scripts" / "workbench"))
    args = ap.parse_args()
    out = Path(args.out)
    if not args.no_run:
        out.mkdir(parents=True, exist_ok=True)
        params = out / "params"
        params.write_text(f"ITER_LSSED={args.iter_lssed}\n"
                          f"ITER_FINDSYS={args.iter_findsys}\n"
                          f"THRESHOLDS=\"{args.thresholds}\"\n"
                          f"WORKLOADS=\"{args.workloads}\"\n")
        cmd = [args.workbench, "run", "patched", "--icount"]
        if args.no_build:
            cmd.append("--no-build")
        cmd += [
               "--timeout", "7200", "--out", str(out),
               "--file", f"params={params}", str(HERE / "guest.sh")]
        print("$ " + " ".join(cmd), file=sys.stderr)
        rc = subprocess.call(cmd, env=os.environ)
        if rc:
            print(f"guest run failed ({rc})", file=sys.stderr)
            return rc
    print(table(parse(out / "results.txt")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
