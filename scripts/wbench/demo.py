# SPDX-License-Identifier: GPL-2.0
"""`make demo`: the paper's section 3 example on the patched kernel.

Boot the patched kernel, trace ten runs of `ls /bin | sed s/a/z/g` with
function_graph and tracing_thresh=1000, bring the trace back, and run
ftd on it: a per-function report and a flame chart.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from . import build, guest
from .common import REPO, SCRIPTS, WorkbenchError, log, run

FTD = REPO / "tools" / "tracing" / "ftd" / "ftd"


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
    run([FTD, "report", "-n", "30", "-o", report, trace], what="ftd report")
    run([FTD, "flamechart", "--title", "ls /bin | sed s/a/z/g, "
         "tracing_thresh=1000", "-o", chart, trace], what="ftd flamechart")
    print(report.read_text(), end="")
    print(f"\ntrace:       {trace}\nreport:      {report}\n"
          f"flame chart: {chart}\nconsole log: {result.log}")
    return 0


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("demo", help="trace the paper's example and run ftd",
                       description=__doc__)
    p.add_argument("--out", default=str(REPO / "out" / "demo"),
                   help="where the trace and ftd's outputs go (out/demo)")
    p.add_argument("--quiet", action="store_true",
                   help="do not echo the guest console")
    p.set_defaults(func=cmd_demo)
