#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Function graph overhead on ARM: Table 2 of the paper, reproduced.

Boots each kernel/state with "scripts/workbench run CONFIG --icount",
runs guest.sh (ten rounds of "find /sys"), and prints one table plus the
method.  Under -icount shift=0,sleep=off one guest nanosecond is one
guest instruction, so the times below count instructions and do not
depend on how busy the host is.

The rows name ARM32's configs; --arch arm64 runs each row on the arm64
variant of its config, CONFIG-arm64 (notrace-arm64, benchfg-stock-arm64,
benchfg-arm64), on that architecture's machine, and leaves out the rows
whose config has no such variant.
"""

import argparse
import statistics
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from wbench import arch, benchjob, build  # noqa: E402

# (label, config, state); the first row is the floor (TRACE=n).  The
# benchfg configs have the function and function graph tracers only;
# benchfg-fentry hooks the functions before their prologue instead of
# with -pg; benchfg-nohook has the tracing core without the function
# tracer, to tell the hooks' cost from the rest of tracing;
# --full adds the stock and patched configs, which also carry the
# latency tracers and everything else ftracetest needs.
ROWS: List[Tuple[str, str, str]] = [
    ("TRACE=n", "notrace", "notrace"),
    ("tracing core, no hooks", "benchfg-nohook", "nop"),
    ("nop (stock)", "benchfg-stock", "nop"),
    ("nop", "benchfg", "nop"),
    ("function (stock)", "benchfg-stock", "function"),
    ("function", "benchfg", "function"),
    ("graph (stock)", "benchfg-stock", "graph"),
    ("graph", "benchfg", "graph"),
    ("graph+retval", "benchfg", "retval"),
    ("nop (fentry)", "benchfg-fentry", "nop"),
    ("function (fentry)", "benchfg-fentry", "function"),
    ("graph (fentry)", "benchfg-fentry", "graph"),
    ("graph+retval (fentry)", "benchfg-fentry", "retval"),
]
FULL_ROWS: List[Tuple[str, str, str]] = [
    ("nop (stock, full)", "stock", "nop"),
    ("nop (full)", "patched", "nop"),
    ("graph (stock, full)", "stock", "graph"),
    ("graph (full)", "patched", "graph"),
    ("graph+retval (full)", "patched", "retval"),
]
# Ring buffer events a traced call writes, per state: the rounds of these
# states also give their own count of traced calls.  Under thresh-tree a
# slow call keeps its two events and a short one takes its entry back
# (removed or padded, counted apart).
EVENTS_PER_CALL = {"function": 1, "graph": 2, "retval": 2, "thresh-tree": 2}
THRESH_ROWS: List[Tuple[str, str, str]] = [
    ("graph thresh=100us (stock)", "benchfg-stock", "thresh"),
    ("graph thresh=100us", "benchfg", "thresh"),
    ("graph thresh=100us tree", "benchfg", "thresh-tree"),
    ("graph thresh=100us (fentry)", "benchfg-fentry", "thresh"),
    ("graph thresh=100us tree (fentry)", "benchfg-fentry", "thresh-tree"),
]


def read_result(result: Path) -> Dict[str, List[str]]:
    values: Dict[str, List[str]] = {}
    for line in result.read_text().splitlines():
        key, _, val = line.partition(" ")
        values.setdefault(key, []).append(val)
    return values


def run_state(config: str, state: str, runs: int, iters: int, count: bool,
              outdir: Path, timeout: int) -> Dict[str, List[str]]:
    """Boot CONFIG once, run the workload in STATE, return result keys."""
    return read_result(benchjob.run_guest_job(
        config, HERE / "guest.sh",
        {"STATE": state, "RUNS": str(runs), "ITER": str(iters),
         "COUNT": str(int(count))},
        outdir / f"{config}-{state}", icount=True, timeout=timeout,
        build_first=True))


def fmt_s(ns: float) -> str:
    return f"{ns / 1e9:.3f} s"


def fmt_ns(ns: Optional[float]) -> str:
    return "-" if ns is None else f"{ns:,.0f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3,
                    help="timed rounds per boot (median is reported)")
    ap.add_argument("--graph-runs", type=int, default=2,
                    help="timed rounds per boot with a tracer on")
    ap.add_argument("--graph-iter", type=int, default=1,
                    help="iterations of find /sys per round with a tracer "
                         "on (scaled to 10; the guest runs about 50M "
                         "instructions per host second under icount)")
    ap.add_argument("--thresh", action="store_true",
                    help="also tracing_thresh with and without "
                         "funcgraph-thresh-tree (needs that option)")
    ap.add_argument("--full", action="store_true",
                    help="also the full stock and patched configs")
    ap.add_argument("--only", default="",
                    help="comma-separated configs to run (default all)")
    ap.add_argument("--fentry-config", default="benchfg-fentry",
                    metavar="CONFIG",
                    help="run the (fentry) rows on CONFIG, a variant of "
                         "%(default)s such as benchfg-fentry-lpae "
                         "(default %(default)s)")
    ap.add_argument("--arch", default=arch.DEFAULT.name,
                    choices=sorted(arch.ARCHES),
                    help="run each row on its config's variant of that "
                         "architecture, CONFIG-ARCH, leaving out the rows "
                         "that have none (default %(default)s: the "
                         "configs as named)")
    benchjob.add_run_options(ap)
    args = ap.parse_args()

    def variant(config: str) -> str:
        """CONFIG's variant on the --arch architecture."""
        return (config if args.arch == arch.DEFAULT.name
                else f"{config}-{args.arch}")

    rows = (ROWS + (THRESH_ROWS if args.thresh else [])
            + (FULL_ROWS if args.full else []))
    if args.fentry_config != "benchfg-fentry":
        rows = [(label.replace("fentry", args.fentry_config),
                 args.fentry_config, state)
                if config == "benchfg-fentry" else (label, config, state)
                for label, config, state in rows]
    if args.arch != arch.DEFAULT.name:
        rows = [(label, variant(config), state)
                for label, config, state in rows
                if (build.CONFIG_DIR / f"{variant(config)}.config").exists()]
    if args.only:
        keep = set(args.only.split(","))
        rows = [r for r in rows if r[1] in keep]
    if not rows:
        raise SystemExit("no rows to run: no configs of those names")
    tmp = benchjob.work_dir(args, "fgraph-overhead")
    results = []
    for label, config, state in rows:
        if args.report:
            res = tmp / f"{config}-{state}" / "result.txt"
            if not res.exists():
                continue
            vals = read_result(res)
        else:
            tracing = state not in ("notrace", "nop")
            vals = run_state(config, state,
                             args.graph_runs if tracing else args.runs,
                             args.graph_iter if tracing else 10,
                             state == "nop", tmp, args.timeout)
        # Scale every round to the paper's ten iterations of find /sys
        iters = int(vals.get("iterations", ["10"])[0])
        elapsed = [int(v) * 10 // iters for v in vals.get("elapsed_ns", [])]
        calls = (int(vals["calls_per_iteration"][0]) * 10
                 if vals.get("calls_per_iteration") else None)
        # The calls traced in each round, from the events it wrote and
        # the entries it took back
        written = vals.get("events_written", [])
        rewound = vals.get("events_rewound", ["0"] * len(written))
        round_calls = [(int(w) // EVENTS_PER_CALL[state] + int(r))
                       * 10 // iters
                       for w, r in zip(written, rewound)
                       if state in EVENTS_PER_CALL]
        results.append((label, config, state, elapsed, calls,
                        vals.get("kernel", ["?"])[0], round_calls))

    # Calls per round.  The function profiler counts through the graph
    # tracer's entry hook, so it counts what the kernel's graph tracer can
    # trace: the stock kernel misses frameless leaf functions.  "executed"
    # is the patched (benchfg) kernel's count, the mcount call sites every
    # kernel runs; "traced" is each kernel's own count.
    nop_calls: Dict[str, int] = {}
    for label, config, state, _, calls, _, _ in results:
        if state == "nop" and calls:
            nop_calls[config] = calls
    executed = (nop_calls.get(variant("benchfg"))
                or nop_calls.get(variant("patched")))
    print("| state | config | elapsed (median) | vs TRACE=n | "
          "calls executed/round | calls traced/round | time/call (ns) | "
          "overhead/call (ns) | overhead/traced call (ns) | "
          "calls traced in the round | overhead/call traced in the round "
          "(ns) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    base_elapsed = None
    for label, config, state, elapsed, calls, kernel, round_calls in results:
        med = statistics.median(elapsed)
        if base_elapsed is None:
            base_elapsed = med
        traced = nop_calls.get(config)
        tpf = med / executed if executed else None
        over = (med - base_elapsed) / executed if executed else None
        over_t = (med - base_elapsed) / traced if traced else None
        rel = f"{100.0 * (med - base_elapsed) / base_elapsed:+.2f}%"
        if state == "notrace":
            over = over_t = None
        round_med = over_r = None
        if round_calls and len(round_calls) == len(elapsed) \
                and all(round_calls):
            round_med = statistics.median(round_calls)
            over_r = statistics.median((e - base_elapsed) / c
                                       for e, c in zip(elapsed, round_calls))
        print(f"| {label} | {config} | {fmt_s(med)} | {rel} | "
              f"{fmt_ns(executed)} | {fmt_ns(traced)} | {fmt_ns(tpf)} | "
              f"{fmt_ns(over)} | {fmt_ns(over_t)} | {fmt_ns(round_med)} | "
              f"{fmt_ns(over_r)} |")
    print()
    print("Elapsed rounds (ns): " + "; ".join(
        f"{r[0]}: {', '.join(str(e) for e in r[3])}" for r in results))
    print("Profiler calls/round by state: " + "; ".join(
        f"{r[0]}: {r[4] if r[4] is not None else '-'}" for r in results))
    print("Calls traced in each round: " + "; ".join(
        f"{r[0]}: {', '.join(str(c) for c in r[6])}"
        for r in results if r[6]))
    print()
    print("Method: each row boots its kernel once under "
          f"{benchjob.machine(rows[0][1])} "
          "-smp 1 with -icount shift=0,sleep=off "
          "(1 guest ns = 1 guest instruction), unmounts debugfs and "
          "tracefs from /sys, mounts tracefs at /tracing, "
          "runs one warm-up round with the tracer off, sets the tracer "
          "state, then times rounds of "
          "'for i in $(seq 1 N); do echo $i; find /sys >/dev/null; done' "
          "with the 'now at' line of /proc/timer_list in the guest "
          "and reports the median, scaled to N=10 (the paper's loop): "
          "%d rounds of N=10 with no tracer, %d rounds of N=%d with a "
          "tracer on, to keep TCG's run time in bounds.  Calls per round "
          "come from the function profiler "
          "(function_profile_enabled, summed trace_stat/function*) over "
          "one iteration, times 10, in the nop state of each kernel; it "
          "counts "
          "through the graph entry hook, so it sees what that kernel's "
          "graph tracer can trace.  calls executed = the patched "
          "kernel's count (every kernel runs the same call sites); "
          "time/call = elapsed / calls executed; overhead/call = "
          "(elapsed - elapsed of TRACE=n) / calls executed; "
          "overhead/traced call divides by the kernel's own count.  "
          "The last two columns count the calls in the timed rounds "
          "themselves: the events each round added to the ring buffer "
          "(entries + overrun of per_cpu/cpu*/stats; two per call "
          "under function_graph, one under the function tracer; "
          "under thresh-tree two per slow call, plus one per short "
          "call from the rewound and padded events of the same "
          "stats), which include the work a longer traced round "
          "brings with it (timer ticks and what they run); "
          "overhead/call traced in the round is the median over rounds "
          "of (elapsed - elapsed of TRACE=n) / those calls."
          % (args.runs, args.graph_runs, args.graph_iter))
    print(f"Per-boot results: {tmp}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
