#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What the ARM exception entry and exit code adds to the irq events.

The irqs-off tracer (TRACE_IRQFLAGS) makes ARM's assembly entry and exit
paths (entry-armv.S, entry-common.S, entry-header.S) report irq_disable
and irq_enable; the irq toggle (TRACE_IRQFLAGS_TOGGLE) leaves them alone
and reports only the local_irq_*() wrappers.  This boots each config
once (plain TCG, one CPU), records both events during a small workload
(entry-paths.sh) and prints, per config: how many events the entry code
made, and how many events follow an event of the same kind on the CPU
(an enable with no disable before it, or the reverse): the price of
leaving the entry code out.
"""

import argparse
import collections
import re
import subprocess
import sys
from pathlib import Path
from typing import Counter, Dict, List, Set

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from wbench import benchjob, build  # noqa: E402

DEFAULT_CONFIGS = ["benchpi-irqsoff", "benchpi-toggle"]
ENTRY_OBJECTS = ["entry-armv.o", "entry-common.o"]
EVENTS = ("irq_disable", "irq_enable")
EVENT_LINE = re.compile(r"\[(\d+)\].*?: (irq_disable|irq_enable): "
                        r"caller=([^+ ]+)")


def entry_symbols(config: build.KernelConfig) -> Set[str]:
    """The text symbols of the ARM entry code in CONFIG's build."""
    objs = [str(config.build_dir / "arch/arm/kernel" / o)
            for o in ENTRY_OBJECTS]
    out = subprocess.run([config.arch.cross_compile + "nm", *objs],
                         check=True,
                         capture_output=True, text=True).stdout
    return {f[2] for f in (line.split() for line in out.splitlines())
            if len(f) == 3 and f[1] in "tT"}


class Counts:
    """Event counts of one trace."""

    def __init__(self) -> None:
        self.overrun = 0
        self.total: Counter[str] = collections.Counter()
        self.entry: Counter[str] = collections.Counter()
        self.repeated_by: Dict[str, Counter[str]] = {
            ev: collections.Counter() for ev in EVENTS}


def count(trace: Path, entry: Set[str]) -> Counts:
    counts = Counts()
    last: Dict[str, str] = {}
    with trace.open(errors="replace") as f:
        for line in f:
            m = EVENT_LINE.search(line)
            if not m:
                continue
            cpu, event, caller = m.groups()
            counts.total[event] += 1
            if caller in entry:
                counts.entry[event] += 1
            if last.get(cpu) == event:
                counts.repeated_by[event][caller] += 1
            last[cpu] = event
    return counts


def share(part: int, whole: int) -> str:
    return f"{part:,} ({100 * part / whole:.1f}%)" if whole else "-"


def format_table(results: Dict[str, Counts]) -> List[str]:
    lines = ["| config | event | events | from entry code "
             "| after one of the same kind | top callers of those "
             "| overrun |",
             "|---|---|---|---|---|---|---|"]
    for name, c in results.items():
        for ev in EVENTS:
            repeated = c.repeated_by[ev]
            top = ", ".join(f"{fn} {n:,}" for fn, n in
                            repeated.most_common(3))
            lines.append(f"| {name} | {ev} | {c.total[ev]:,} "
                         f"| {share(c.entry[ev], c.total[ev])} "
                         f"| {share(sum(repeated.values()), c.total[ev])} "
                         f"| {top or '-'} | {c.overrun:,} |")
    return lines


METHOD = (
    "Method: each config boots once under plain TCG with one CPU "
    "(`workbench run --smp 1`); entry-paths.sh enables "
    "preemptirq:irq_disable and irq_enable, runs ROUNDS rounds of "
    "`find /sys` and `ls -lR /proc/self`, and saves the trace (32 MiB "
    "ring buffer; 'overrun': events it lost).  'from entry code': the "
    "event's caller is a symbol of arch/arm/kernel/entry-armv.o or "
    "entry-common.o.  'after one of the same kind': the previous event "
    "on that CPU was the same event, so the trace shows a disable or an "
    "enable without its opposite.")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", default=",".join(DEFAULT_CONFIGS),
                    help="comma-separated configs (default %(default)s)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="rounds of the workload (default %(default)s)")
    benchjob.add_run_options(ap)
    args = ap.parse_args()
    work = benchjob.work_dir(args, "entry-paths")
    results: Dict[str, Counts] = {}
    for name in args.configs.split(","):
        outdir = work / name
        if not args.report:
            benchjob.build_config(name)
            benchjob.run_guest_job(
                name, HERE / "entry-paths.sh", {"ROUNDS": str(args.rounds)},
                outdir, smp=1, timeout=args.timeout)
        path = outdir / "result.txt"
        if not path.exists():
            print(f"{name}: no result in {outdir}", file=sys.stderr)
            continue
        result = path.read_text().strip()
        if result == "unsupported":
            print(f"{name}: no preemptirq irq events", file=sys.stderr)
            continue
        config = build.KernelConfig.load(name)
        results[name] = count(outdir / "trace.txt", entry_symbols(config))
        results[name].overrun = int(result.split()[-1])
    print("\n".join(format_table(results)))
    print()
    print(METHOD)
    print(f"Per-boot results: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
