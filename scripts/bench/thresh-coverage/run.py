#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Table 1 of the paper: buffer use per unit of work under tracing_thresh.

Compares plain function_graph ("graph"), upstream's tracing_thresh
("exits": only the returns of slow calls), funcgraph-thresh-tree with
funcgraph-thresh-pad ("pad": short calls' entries turned into padding,
the paper's discard), funcgraph-thresh-tree ("rewind": short calls'
entries removed with ring_buffer_rewind_tail()) and funcgraph-thresh-lazy
("lazy": no entry written until a call it belongs to turns out slow, a
measurement-only alternative to the rewind).

Builds the patched kernel (unless --no-build), boots it once per
workload under deterministic timing (scripts/workbench run patched
--icount) and runs guest.sh, which runs the workload once per mode with
a buffer meant not to wrap (--buffer-kb, 128 MB), so that it holds
everything the mode wrote; a run that wraps it anyway is estimated and
marked.  Bytes in
the buffer per million functions executed (the function profiler counts
them) give what a buffer of the paper's size (--target-kb, 1408 KB) would
hold, in functions executed and in guest seconds.  Covered times of runs
that never filled a buffer are never compared.  The trace text of the
threshold modes gives the calls shown and how many of them are shorter
than the threshold.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from wbench import benchjob  # noqa: E402

CONFIG = "patched"
WORKLOADS = {"lssed": "ls /bin | sed s/a/z/g", "findsys": "find /sys"}
THRESH_MODES = ["exits", "pad", "tree", "lazy"]
MODE_NAMES = {"graph": "graph", "exits": "exits", "pad": "pad",
              "tree": "rewind", "lazy": "lazy"}
MODE_TEXT = {
    "graph": "plain function_graph",
    "exits": "tracing_thresh only (upstream: returns of slow calls)",
    "pad": "funcgraph-thresh-tree + funcgraph-thresh-pad (the paper's "
           "discard)",
    "tree": "funcgraph-thresh-tree (rewind)",
    "lazy": "funcgraph-thresh-lazy (entries written when a call they "
            "enclose returns slow; not for posting)",
}


@dataclass
class Run:
    """One run of guest.sh: a mode at a threshold, with its counters."""
    mode: str
    thresh: int
    values: Dict[str, str]

    def num(self, key: str) -> float:
        try:
            return float(self.values.get(key, "0") or "0")
        except ValueError:
            return 0.0

    @property
    def seconds(self) -> float:
        """Guest time of the workload (under icount, 1 ns = 1 insn)."""
        return self.num("t1") - self.num("t0")


@dataclass
class Boot:
    """The result file of one boot: header keys and runs."""
    header: Dict[str, str] = field(default_factory=dict)
    runs: Dict[Tuple[str, int], Run] = field(default_factory=dict)

    def get(self, mode: str, thresh: int = 0) -> Optional[Run]:
        return self.runs.get((mode, thresh))


def read_result(path: Path) -> Boot:
    """Parse result.txt: "key=value" header lines and
    "run mode=M thresh=T key=value ..." lines."""
    boot = Boot()
    for line in path.read_text().splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "run":
            kv = dict(w.split("=", 1) for w in words[1:] if "=" in w)
            run = Run(kv["mode"], int(kv["thresh"]), kv)
            boot.runs[(run.mode, run.thresh)] = run
        elif "=" in words[0]:
            key, _, value = line.partition("=")
            boot.header[key.strip()] = value.strip()
    return boot


@dataclass
class TraceCounts:
    """What the function_graph text output of one run shows."""
    durations: int = 0      # lines with a printed duration: calls shown
    short: int = 0          # ... of which the duration is below thresh
    short_leaves: int = 0   # "f();" below thresh
    short_closes: int = 0   # "} /* f */" below thresh
    entry_lines: int = 0    # "f() {" lines (no duration printed)


DURATION_RE = re.compile(r"(?:^|[\s!#*@$+])(\d+(?:\.\d+)?) us +\|")


def parse_trace(path: Path, thresh_us: float) -> TraceCounts:
    """Count the calls shown in a function_graph trace (funcgraph-tail
    on) and those shorter than THRESH_US.  A call is shown by one line
    with a duration: its leaf line "f();" or its closing line
    "} /* f */".  Entry lines "f() {" print no duration (the closing
    line does) and are counted apart."""
    counts = TraceCounts()
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("#"):
                continue
            head, bar, func = line.rpartition("|")
            if not bar:
                continue
            func = func.strip()
            m = DURATION_RE.search(head + "|")
            if m is None:
                if func.endswith("{"):
                    counts.entry_lines += 1
                continue
            counts.durations += 1
            if float(m.group(1)) < thresh_us:
                counts.short += 1
                if func.startswith("}"):
                    counts.short_closes += 1
                else:
                    counts.short_leaves += 1
    return counts


@dataclass
class Row:
    """One row of Table 1: a mode at a threshold, on one workload."""
    workload: str
    mode: str
    thresh: int
    run: Run
    functions: float        # functions executed (profiler) per run
    nop_seconds: float
    target_bytes: int

    @property
    def estimated(self) -> bool:
        return self.run.num("overrun") > 0

    @property
    def total_bytes(self) -> float:
        """Bytes the mode wrote.  Without overrun, the bytes in the buffer;
        when the run wrapped the buffer, bytes per event in the buffer x
        (events in the buffer + events overwritten)."""
        nbytes = self.run.num("bytes")
        if not self.estimated:
            return nbytes
        entries = self.run.num("entries")
        if not entries:
            return 0.0
        return nbytes / entries * (entries + self.run.num("overrun"))

    @property
    def bytes_per_mfn(self) -> float:
        return self.total_bytes / self.functions * 1e6

    @property
    def functions_per_buffer(self) -> Optional[float]:
        if not self.total_bytes:
            return None
        return self.target_bytes * self.functions / self.total_bytes

    @property
    def seconds_per_buffer(self) -> Optional[float]:
        if not self.total_bytes:
            return None
        return self.target_bytes * self.run.seconds / self.total_bytes

    @property
    def cost_ns(self) -> float:
        """Guest ns (instructions) per function executed, over the nop run."""
        return (self.run.seconds - self.nop_seconds) / self.functions * 1e9


def fmt_ratio(a: Optional[float], b: Optional[float]) -> str:
    if a is None or b is None or not b:
        return "-"
    r = a / b
    return f"{r:.3f}x" if r < 0.1 else f"{r:.2f}x"


def fmt_big(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:,.0f}"


def fmt_secs(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:,.2f}"


def table1(rows: List[Row], thresholds: List[int]) -> List[str]:
    out = ["| workload | thresh (us) | mode | run (s) | bytes in buffer | "
           "overrun | bytes/Mfn | functions per 1408 KB | vs exits | "
           "guest s per 1408 KB | vs exits | cost/fn (ns) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for wl in dict.fromkeys(r.workload for r in rows):
        graph = next((r for r in rows if r.workload == wl
                      and r.mode == "graph"), None)
        for th in thresholds:
            group = [r for r in rows if r.workload == wl and r.thresh == th]
            exits = next((r for r in group if r.mode == "exits"), None)
            for r in ([graph] if graph else []) + group:
                nbytes = f"{r.run.num('bytes'):,.0f}"
                if r.estimated:
                    nbytes += f" (est. total {r.total_bytes:,.0f})"
                fpb, spb = r.functions_per_buffer, r.seconds_per_buffer
                efpb = exits.functions_per_buffer if exits else None
                espb = exits.seconds_per_buffer if exits else None
                out.append(
                    f"| {wl} | {th} | {MODE_NAMES[r.mode]} | "
                    f"{r.run.seconds:.3f} | {nbytes} | "
                    f"{r.run.num('overrun'):,.0f}"
                    f"{' (wrapped: estimated)' if r.estimated else ''} | "
                    f"{r.bytes_per_mfn:,.0f} | {fmt_big(fpb)} | "
                    f"{fmt_ratio(fpb, efpb)} | {fmt_secs(spb)} | "
                    f"{fmt_ratio(spb, espb)} | "
                    f"{r.cost_ns:,.0f} |")
    return out


def table2(rows: List[Row], traces: Dict[Tuple[str, str, int],
                                          TraceCounts]) -> List[str]:
    out = ["| workload | thresh (us) | mode | calls shown | below thresh | "
           "share | short leaves | short closes | entry lines | "
           "rewound events | padded events | rewinds refused |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        c = traces.get((r.workload, r.mode, r.thresh))
        if c is None:
            continue
        share = f"{100 * c.short / c.durations:.2f}%" if c.durations else "-"
        out.append(
            f"| {r.workload} | {r.thresh} | {MODE_NAMES[r.mode]} | "
            f"{c.durations:,} | {c.short:,} | {share} | "
            f"{c.short_leaves:,} | {c.short_closes:,} | {c.entry_lines:,} | "
            f"{r.run.num('rewound_events'):,.0f} | "
            f"{r.run.num('padded_events'):,.0f} | "
            f"{r.run.num('rewinds_refused'):,.0f} |")
    return out


METHOD = """\
Method: one boot of the {config} kernel per workload under
{machine} -smp 1 -icount shift=0,sleep=off
(1 ns of guest time = 1 guest instruction), with tracefs mounted at
/tracing and unmounted from /sys.  Each boot runs the workload once with
no tracer (warm-up), then once per mode: nop (tracing on, no tracer), the
function profiler, plain function_graph, and at each threshold exits,
pad, rewind and lazy (when the kernel has funcgraph-thresh-lazy).  Every
run uses buffer_size_kb={buffer_kb} (one CPU), resets the buffer, turns
tracing on, runs the workload and turns tracing off.  run: guest time of
the workload in that mode (now ts of
per_cpu/cpu0/stats).  bytes in buffer: "bytes" of per_cpu/cpu0/stats
(event bytes and the padding at page ends, without page headers).
overrun: "overrun" of the same file; 0 means the buffer never wrapped
and holds everything the mode wrote.  Where it is not 0, the total is
estimated as bytes per event in the buffer x (entries + overrun) and the
row says so.  Mfn: a million functions executed, the sum of the hits in
trace_stat/function* of the function profiler run (it counts through the
graph entry hook: the functions the graph tracer can trace).  bytes/Mfn
= total bytes / functions executed.  functions per 1408 KB = {target}
bytes / bytes per function; guest s per 1408 KB = {target} bytes x run
/ total bytes: what a buffer of the paper's size holds once the mode has
run long enough to fill it (page headers, about 0.3%, ignored).  vs
exits: the same against exits-only at the same threshold.  cost/fn:
(run - nop run) / functions executed.  The graph row is one run, shown
under each threshold.  Table 2 parses the trace text of each threshold
run (funcgraph-tail on, so closing lines name their function): calls
shown = lines with a printed duration (leaves "f();" and closing lines
"}} /* f */"), below thresh = those with a duration under tracing_thresh,
entry lines = "f() {{" lines (they print no duration: the call's closing
line carries it).  rewound/padded/refused: "rewound events", "padded
events" (0 on kernels without that line) and "rewinds refused" of per_cpu/cpu0/stats."""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", default="lssed,findsys",
                    help="comma-separated workloads (default %(default)s)")
    ap.add_argument("--iter-lssed", type=int, default=10,
                    help="rounds of 'ls /bin | sed s/a/z/g' per run "
                    "(default %(default)s)")
    ap.add_argument("--iter-findsys", type=int, default=1,
                    help="rounds of 'find /sys' per run "
                    "(default %(default)s)")
    ap.add_argument("--thresholds", default="100,1000",
                    help="comma-separated tracing_thresh values in us "
                    "(default %(default)s)")
    ap.add_argument("--buffer-kb", type=int, default=131072,
                    help="buffer_size_kb of the runs, big enough not to "
                    "wrap (default %(default)s)")
    ap.add_argument("--target-kb", type=int, default=1408,
                    help="the buffer size the table is for "
                    "(default %(default)s, the paper's)")
    ap.add_argument("--no-build", action="store_true",
                    help=f"boot the last build of {CONFIG}")
    benchjob.add_run_options(ap)
    ap.set_defaults(timeout=3600)
    args = ap.parse_args()

    workloads = [w for w in args.workloads.split(",") if w]
    for wl in workloads:
        if wl not in WORKLOADS:
            raise SystemExit(f"unknown workload {wl}")
    thresholds = [int(t) for t in args.thresholds.split(",") if t]
    work = benchjob.work_dir(args, "thresh-coverage")
    if not args.report and not args.no_build:
        benchjob.build_config(CONFIG)

    boots: Dict[str, Boot] = {}
    for wl in workloads:
        outdir = work / wl
        if args.report:
            if not (outdir / "result.txt").exists():
                print(f"{outdir}: no result.txt", file=sys.stderr)
                continue
            boots[wl] = read_result(outdir / "result.txt")
            continue
        iters = args.iter_lssed if wl == "lssed" else args.iter_findsys
        settings = {"WL": wl, "ITER": str(iters),
                    "THRESHOLDS": " ".join(map(str, thresholds)),
                    "MODES": " ".join(THRESH_MODES),
                    "BUF_KB": str(args.buffer_kb)}
        boots[wl] = read_result(benchjob.run_guest_job(
            CONFIG, HERE / "guest.sh", settings, outdir,
            icount=True, timeout=args.timeout))

    target = args.target_kb * 1024
    rows: List[Row] = []
    traces: Dict[Tuple[str, str, int], TraceCounts] = {}
    notes: List[str] = []
    for wl, boot in boots.items():
        nop, prof = boot.get("nop"), boot.get("profile")
        if nop is None or prof is None or not prof.num("hits"):
            print(f"{wl}: no nop or profile run", file=sys.stderr)
            continue
        fns = prof.num("hits")
        h = boot.header
        notes.append(
            f"{wl}: {h.get('iterations', '?')} x '{WORKLOADS[wl]}', "
            f"{fns:,.0f} functions executed (profiler run "
            f"{prof.seconds:.3f} s), nop run {nop.seconds:.3f} s; kernel "
            f"{h.get('kernel', '?')} {h.get('build', '?').replace('_', ' ')}"
            f", buffer_size_kb {h.get('buffer_kb', '?')}, "
            f"{h.get('cpus', '?')} CPU(s), "
            f"\"padded events\" in stats: "
            f"{'yes' if h.get('has_padded_events') == '1' else 'no'}")
        keys = ([("graph", 0)] + [(m, t) for t in thresholds
                                  for m in THRESH_MODES])
        for mode, th in keys:
            run = boot.get(mode, th)
            if run is None:
                continue
            rows.append(Row(wl, mode, th, run, fns, nop.seconds, target))
            trace = work / wl / f"trace-{mode}-{th}.txt"
            if mode != "graph" and trace.exists():
                traces[(wl, mode, th)] = parse_trace(trace, th)

    used = [t for t in thresholds if any(r.thresh == t for r in rows)]
    print(f"### Table 1: what a {args.target_kb} KB buffer holds, from "
          "buffer use per unit of work\n")
    print("\n".join(table1(rows, used)))
    print()
    print("### Table 2: calls shown, and those shorter than the "
          "threshold\n")
    print("\n".join(table2(rows, traces)))
    print()
    for mode, text in MODE_TEXT.items():
        print(f"- {MODE_NAMES[mode]}: {text}")
    for note in notes:
        print(f"- {note}")
    print()
    buffer_kb = next((b.header.get("buffer_kb", "?")
                      for b in boots.values()), str(args.buffer_kb))
    print(METHOD.format(config=CONFIG, buffer_kb=buffer_kb, target=target,
                        machine=benchjob.machine(CONFIG)))
    print(f"Per-boot results: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
