# SPDX-License-Identifier: GPL-2.0
"""`make demo`: the paper's section 3 example on the patched kernel.

Boot the patched kernel, trace ten runs of `ls /bin | sed s/a/z/g` with
function_graph and tracing_thresh=1000, bring the trace back, and run
ftd on it: a per-function report and a flame chart.

`make demo-boot` (`workbench demo-boot`): boot the patched kernel as a
board boots, from a root disk, with the early boot buffer, the
function_graph tracer and the scheduler events on the command line, and
run `ftd boot` on the result: where boot time went per initcall, with
its delays and console output, the boot holds and the call counts.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import List

from . import build, guest
from .common import REPO, SCRIPTS, WorkbenchError, log, run

FTD = REPO / "tools" / "tracing" / "ftd" / "ftd"

# The command line of `workbench demo-boot` (issue 41, parts 1 to 3),
# documented in Documentation/trace/fgraph-boot.rst, "Boot holds on a
# root disk boot": the early buffer from start_kernel() (which also counts
# every call of boot where the kernel has trace_stat/fgraph_boot), the
# function_graph tracer from the core initcalls with the call structure
# kept under the threshold, initcall_debug for the initcall count and for
# the names of the initcalls shorter than the threshold (ftd boot --dmesg:
# its lines need printk times, which the workbench's configs leave off
# (CONFIG_PRINTK_TIME), and a log buffer that keeps every one of them:
# the configs' is 128 KB), and the initcall and scheduler events (one
# trace_event= list: the kernel keeps only the last one) that give ftd boot
# its initcall names and levels and the boot holds.  The buffer is per CPU.
BOOT_HOLDS_EVENTS = ["initcall:initcall_level", "initcall:initcall_start",
                     "sched:sched_switch", "sched:sched_waking",
                     "sched:sched_wakeup", "sched:sched_wakeup_new"]


def boot_holds_cmdline(thresh_us: int) -> str:
    return " ".join([
        f"fgraph_boot=on fgraph_boot_thresh={thresh_us} initcall_debug",
        "printk.time=1 log_buf_len=1M",
        f"ftrace=function_graph tracing_thresh={thresh_us}",
        "trace_options=funcgraph-thresh-tree,nooverwrite trace_buf_size=32M",
        "trace_event=" + ",".join(BOOT_HOLDS_EVENTS)])


def boot_inputs(out: Path) -> List[str]:
    """ftd boot's options for the files in OUT besides the traces, named
    as they are there: the call counts, the main buffer's stats, the
    kernel log (initcall_debug's lines name the initcalls that the trace
    has no line of) and System.map (the initcall section's levels and
    names)."""
    extra: List[str] = []
    if (out / "fgraph_boot_stat.txt").exists():
        extra += ["--counts", "fgraph_boot_stat.txt"]
    else:
        log("demo-boot: the kernel has no trace_stat/fgraph_boot: "
            "no call counts")
    # Whether a CPU's buffer overwrote the start of the main trace
    if (out / "buffer-stats.txt").exists():
        extra += ["--buffer-stats", "buffer-stats.txt"]
    if (out / "dmesg.txt").exists():
        extra += ["--dmesg", "dmesg.txt"]
    if (out / "System.map").exists():
        extra += ["--system-map", "System.map"]
    else:
        log("demo-boot: no System.map in the build: initcalls named from "
            "the trace and dmesg only")
    return extra


def cmd_demo(args: argparse.Namespace) -> int:
    out = Path(args.out).resolve()
    config = build.build("patched")
    job = (SCRIPTS / "demo" / "paper-example.sh").read_text()
    result = guest.boot(config, job, out_dir=out, smp=2, timeout=600,
                        echo=not args.quiet)
    result.report()
    if not result.ok:
        raise WorkbenchError("the demo failed in the guest; see above",
                             result.exit_code())
    trace = out / "trace.txt"
    report = out / "report.txt"
    chart = out / "flamechart.svg"
    # the functions that ran first: time on the CPU, not time asleep
    run([FTD, "report", "-s", "oncpu", "-n", "30", "-o", report, trace],
        what="ftd report")
    run([FTD, "flamechart", "--title", "ls /bin | sed s/a/z/g, "
         "tracing_thresh=1000", "-o", chart, trace], what="ftd flamechart")
    print(report.read_text(), end="")
    print(f"\ntrace:       {trace}\nreport:      {report}\n"
          f"flame chart: {chart}\nconsole log: {result.log}")
    return 0


def cmd_demo_boot(args: argparse.Namespace) -> int:
    out = Path(args.out).resolve()
    config = (build.KernelConfig.load(args.config) if args.no_build
              else build.build(args.config))
    smp = 1 if args.icount else args.smp
    append = boot_holds_cmdline(args.thresh)
    log(f"demo-boot: kernel command line adds: {append}")
    job = (SCRIPTS / "demo" / "boot-holds.sh").read_text()
    result = guest.boot(config, job, out_dir=out, smp=smp,
                        icount=args.icount, append=append, timeout=900,
                        echo=not args.quiet, root_disk=True)
    result.report()
    if not result.ok:
        raise WorkbenchError("the boot demo failed in the guest; see above",
                             result.exit_code())
    # ftd runs in OUT, so that its report names the files as they are
    # there
    traces = ["boot-trace.txt"]
    if (out / "fgraph_boot_trace.txt").exists():
        traces.append("fgraph_boot_trace.txt")
    else:
        log("demo-boot: the kernel wrote no fgraph_boot_trace")
    # a copy, so that OUT holds every file that ftd boot read
    if (config.build_dir / "System.map").exists():
        shutil.copyfile(config.build_dir / "System.map", out / "System.map")
    else:
        (out / "System.map").unlink(missing_ok=True)
    extra = boot_inputs(out)
    title = f"{config.name} booted from a root disk, -smp {smp}" + \
        (" -icount" if args.icount else "")
    run([FTD, "boot", *extra, "--min-us", str(args.min_us),
         "--svg", "boot.svg", "--flame", "flame.svg",
         "--folded", "boot.folded", "--title", title,
         "-o", "boot.txt", *traces], cwd=out, what="ftd boot")
    run([FTD, "boot", *extra, "-f", "csv", "--table", "holds",
         "-o", "holds.csv", *traces], cwd=out, what="ftd boot (holds CSV)")
    print((out / "boot.txt").read_text(), end="")
    print(f"\nin {out}:\n  boot.txt     ftd boot's report\n"
          "  holds.csv    the boot holds\n"
          "  boot.svg     flame chart on the time axis\n"
          "  flame.svg    flame chart in boot order (boot.folded)\n"
          f"  {', '.join(traces)}: the traces; also dmesg.txt, "
          "System.map, cmdline.txt, mounts.txt\n"
          f"console log: {result.log}")
    return 0


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("demo", help="trace the paper's example and run ftd",
                       description=__doc__)
    p.add_argument("--out", default=str(REPO / "out" / "demo"),
                   help="where the trace and ftd's outputs go (out/demo)")
    p.add_argument("--quiet", action="store_true",
                   help="do not echo the guest console")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser(
        "demo-boot", help="trace a root disk boot and run ftd boot on it",
        description="Boot CONFIG from a root disk (workbench run "
        "--root-disk) with the early boot buffer, the function_graph "
        "tracer, initcall_debug and the scheduler events on the command "
        "line, bring back the traces (scripts/demo/boot-holds.sh) and run "
        "ftd boot on them: the boot table with delays and console output "
        "per initcall, the boot holds and the call counts.")
    p.add_argument("--out", default=str(REPO / "out" / "demo-boot"),
                   help="where the traces and ftd's outputs go "
                   "(out/demo-boot)")
    p.add_argument("--config", default="patched",
                   help="the config to boot (patched)")
    p.add_argument("--smp", type=int, default=2, help="vCPUs (2)")
    p.add_argument("--icount", action="store_true",
                   help="-icount shift=0,sleep=off, so that guest time does "
                   "not follow the host's load (implies --smp 1)")
    p.add_argument("--thresh", type=int, default=100,
                   help="fgraph_boot_thresh and tracing_thresh in us (100)")
    p.add_argument("--min-us", type=int, default=20000,
                   help="ftd boot: fold rows under this many us (20000)")
    p.add_argument("--no-build", action="store_true",
                   help="boot the last build without rebuilding")
    p.add_argument("--quiet", action="store_true",
                   help="do not echo the guest console")
    p.set_defaults(func=cmd_demo_boot)
