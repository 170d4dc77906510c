#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Function graph overhead on ARM: Table 2 of the paper, reproduced.

Boots each kernel/state with "scripts/workbench run CONFIG --icount",
runs guest.sh (ten rounds of "find /sys"), and prints one table plus the
method.  Under -icount shift=0,sleep=off one guest nanosecond is one
guest instruction, so the times below count instructions and do not
depend on how busy the host is.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
WORKBENCH = REPO / "scripts" / "workbench"

# (label, config, state); the first row is the floor (TRACE=n)
ROWS: List[Tuple[str, str, str]] = [
    ("TRACE=n", "notrace", "notrace"),
    ("nop (stock)", "stock", "nop"),
    ("nop", "patched", "nop"),
    ("graph (stock)", "stock", "graph"),
    ("graph", "patched", "graph"),
    ("graph+retval", "patched", "retval"),
]
THRESH_ROWS: List[Tuple[str, str, str]] = [
    ("graph thresh=100us", "patched", "thresh"),
    ("graph thresh=100us tree", "patched", "thresh-tree"),
]


def run_state(config: str, state: str, runs: int, outdir: Path,
              timeout: int) -> Dict[str, List[str]]:
    """Boot CONFIG once, run the workload in STATE, return result keys."""
    wrapper = outdir / f"{config}-{state}.sh"
    wrapper.write_text(f"STATE={state}\nRUNS={runs}\n. /in/guest.sh\n")
    out = outdir / f"{config}-{state}"
    cmd = [str(WORKBENCH), "run", config, "--icount", "--quiet",
           "--timeout", str(timeout), "--out", str(out),
           "--file", f"guest.sh={HERE / 'guest.sh'}", str(wrapper)]
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, stdout=sys.stderr)
    result = out / "result.txt"
    if proc.returncode != 0 or not result.exists():
        raise SystemExit(f"{config}/{state}: workbench run failed "
                         f"(status {proc.returncode})")
    values: Dict[str, List[str]] = {}
    for line in result.read_text().splitlines():
        key, _, val = line.partition(" ")
        values.setdefault(key, []).append(val)
    return values


def fmt_s(ns: float) -> str:
    return f"{ns / 1e9:.3f} s"


def fmt_ns(ns: Optional[float]) -> str:
    return "-" if ns is None else f"{ns:,.0f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3,
                    help="timed rounds per boot (median is reported)")
    ap.add_argument("--thresh", action="store_true",
                    help="also tracing_thresh with and without "
                         "funcgraph-thresh-tree (needs that option)")
    ap.add_argument("--only", default="",
                    help="comma-separated configs to run (default all)")
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--keep", type=Path,
                    help="keep the per-boot results in this directory")
    args = ap.parse_args()

    rows = ROWS + (THRESH_ROWS if args.thresh else [])
    if args.only:
        keep = set(args.only.split(","))
        rows = [r for r in rows if r[1] in keep]
    os.environ.setdefault("WB_CACHE", str(REPO / ".cache"))

    tmp = args.keep or Path(tempfile.mkdtemp(prefix="fgraph-overhead."))
    tmp.mkdir(parents=True, exist_ok=True)
    results = []
    for label, config, state in rows:
        vals = run_state(config, state, args.runs, tmp, args.timeout)
        elapsed = [int(v) for v in vals.get("elapsed_ns", [])]
        calls = int(vals["calls"][0]) if vals.get("calls") else None
        results.append((label, config, state, elapsed, calls,
                        vals.get("kernel", ["?"])[0]))

    # Calls per round: the profiler's count of the same kernel in the nop
    # state (the TRACE=n kernel cannot count, so it borrows the patched
    # kernel's), as the paper estimated its counts.
    nop_calls: Dict[str, int] = {}
    for label, config, state, _, calls, _ in results:
        if state == "nop" and calls:
            nop_calls[config] = calls
    fallback = nop_calls.get("patched") or next(iter(nop_calls.values()),
                                                 None)
    base_tpf = None
    print("| state | kernel | elapsed (median of %d) | calls/round | "
          "time/call (ns) | overhead/call (ns) | vs TRACE=n |" % args.runs)
    print("|---|---|---|---|---|---|---|")
    base_elapsed = None
    for label, config, state, elapsed, calls, kernel in results:
        med = statistics.median(elapsed)
        n = nop_calls.get(config, fallback)
        tpf = med / n if n else None
        if base_tpf is None:
            base_tpf, base_elapsed = tpf, med
        over = None if tpf is None or base_tpf is None else tpf - base_tpf
        rel = f"{100.0 * (med - base_elapsed) / base_elapsed:+.2f}%"
        print(f"| {label} | {config} | {fmt_s(med)} | "
              f"{fmt_ns(n)} | {fmt_ns(tpf)} | "
              f"{fmt_ns(over) if state != 'notrace' else '-'} | {rel} |")
    print()
    print("Elapsed rounds (ns): " + "; ".join(
        f"{r[0]}: {', '.join(str(e) for e in r[3])}" for r in results))
    print("Profiler calls/round by state: " + "; ".join(
        f"{r[0]}: {r[4] if r[4] is not None else '-'}" for r in results))
    print()
    print("Method: each row boots its kernel once under qemu-system-arm "
          "-M virt -cpu cortex-a15 -smp 1 with -icount shift=0,sleep=off "
          "(1 guest ns = 1 guest instruction), unmounts debugfs and "
          "tracefs from /sys, mounts tracefs at /tracing, sets the "
          "tracer state, runs one warm-up round, then times %d rounds of "
          "'for i in $(seq 1 10); do echo $i; find /sys >/dev/null; done' "
          "with the 'now at' line of /proc/timer_list in the guest "
          "and reports the median.  Calls "
          "per round come from the function profiler "
          "(function_profile_enabled, summed trace_stat/function*) in a "
          "separate round of the nop state of the same kernel "
          "(TRACE=n uses the patched kernel's count).  time/call = "
          "elapsed / calls; overhead/call = time/call - time/call of "
          "TRACE=n." % args.runs)
    print(f"Per-boot results: {tmp}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
