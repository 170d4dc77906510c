# SPDX-License-Identifier: GPL-2.0
"""`workbench kselftest`: ftracetest the way kselftest users run it.

On the host, kselftest's own install step puts the ftrace target in a
directory:

    make -C tools/testing/selftests TARGETS=ftrace INSTALL_PATH=DIR install

In the guest (the test guest of `workbench selftest`: dash, chrt, perl),
run_kselftest.sh runs it and prints TAP; the console keeps it, and
kselftest.tap in the output directory has it.

The host follows ftracetest's KTAP results: result N is the Nth test
file in ftracetest's order (the sorted files, then those flagged
"instance" again in an instance), so a test that hangs, panics or oopses
the guest is known.  It is recorded as HANG, PANIC or OOPS and the tests
left, with the instance runs not reached yet, run on fresh boots through
the per-test runner of `workbench selftest`.  Results are compared with
the stock kernel's as `workbench selftest` does (a failure counts if it
fails again on a fresh boot); KTAP does not tell UNSUPPORTED from
UNTESTED, both are SKIP here.
"""

from __future__ import annotations

import argparse
import re
import shutil
import time
from pathlib import Path
from typing import List, Tuple

from . import build, guest, selftest
from .parser import KtapFollower as KtapFollower, Results
from .common import WorkbenchError, cache_dir, log, run

JOB = selftest.SUITE_SETUP + r"""
cd /in/kselftest || exit 1
echo "wb-kselftest-begin"
./run_kselftest.sh
echo "wb-kselftest-end $?"
exit 0
"""

def install(config: build.KernelConfig, dest: Path) -> Path:
    """kselftest's install of the ftrace target, fresh, into dest."""
    if dest.exists():
        shutil.rmtree(dest)
    tree = build.source_tree(config)
    run(["make", "-s", "-C", str(tree / "tools" / "testing" / "selftests"),
         f"ARCH={config.arch.kernel_arch}",
         f"CROSS_COMPILE={config.arch.cross_compile}",
         "TARGETS=ftrace", f"INSTALL_PATH={dest}", "install"],
        what="installing the ftrace kselftests")
    if not (dest / "run_kselftest.sh").exists():
        raise WorkbenchError(f"kselftest install left no run_kselftest.sh "
                             f"in {dest}")
    return dest


def ktap_order(ftrace_dir: Path) -> List[Tuple[str, str]]:
    """(test file, result name) of each KTAP result of a whole ftracetest
    run, in order."""
    test_d = ftrace_dir / "test.d"
    files = selftest.test_files(test_d)
    order = [(f, f) for f in files]
    order += [(f, f + "(instance)") for f in files
              if re.search(r"^#[ \t]*flags:.*instance",
                           (test_d / f).read_text(), re.M)]
    return order


def left_after(order: List[Tuple[str, str]], got: Results
               ) -> List[str]:
    """The test files with a result still missing."""
    return sorted({test for test, name in order if name not in got.results})


def run_kselftest(config: build.KernelConfig, smp: int,
                  per_test_timeout: float, out_dir: Path
                  ) -> Results:
    installed = install(config, cache_dir() / "kselftest" / config.name)
    order = ktap_order(installed / "ftrace")
    results = Results(boots=1)
    follower = KtapFollower(results, order, per_test_timeout)
    start = time.monotonic()
    res = guest.boot(config, JOB, files={"kselftest": installed,
                                         "tools": guest.suite_tools(
                                             config.arch)},
                     out_dir=out_dir / "boot-1", smp=smp,
                     timeout=per_test_timeout * len(order) + 120,
                     on_line=follower.line, on_tick=follower.tick,
                     log_path=out_dir / "console-1.log")
    (out_dir / "kselftest.tap").write_text(
        "".join(line + "\n" for line in follower.tap))
    if follower.error:
        raise WorkbenchError(follower.error)
    if res.failure:
        if "rebooting" not in res.failure:
            name = follower.crashed(res.failure)
            if name is None:
                res.report()
                raise WorkbenchError(f"the guest failed outside any test: "
                                     f"{res.failure}")
            log(f"kselftest: {name}: {results.results[name]} "
                f"({res.failure})")
        left = left_after(order, results)
        if left:
            log(f"kselftest: {len(left)} test files left; going on with "
                "the per-test runner of workbench selftest")
            rest = selftest.run_tests(config, left, smp, per_test_timeout,
                                      out_dir / "rest")
            results.boots += rest.boots
            for name, result in rest.results.items():
                results.results.setdefault(name, result)
            results.durations.update(rest.durations)
    elif follower.next < len(order):
        raise WorkbenchError(f"run_kselftest.sh gave {follower.next} of "
                             f"{len(order)} results: see {out_dir}")
    results.seconds = time.monotonic() - start
    return results


def cmd_kselftest(args: argparse.Namespace) -> int:
    config = (build.KernelConfig.load(args.config) if args.no_build
              else build.build(args.config))
    out = Path(args.out).resolve() if args.out else \
        cache_dir() / "kselftest-runs" / config.name
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    log(f"kselftest: run_kselftest.sh (TARGETS=ftrace) on {config.name}, "
        f"-smp {args.smp}; TAP in {out / 'kselftest.tap'}")
    got = run_kselftest(config, args.smp, args.test_timeout, out)
    got.save(out / "results.txt",
             [f"kselftest TARGETS=ftrace on {config.name}"])
    log(f"kselftest: {got.summary()} in {got.seconds:.0f} s")
    return selftest.judge(config, got, selftest.project_tests(), args.smp,
                          args.test_timeout, out, "kselftest")


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("kselftest", help="install the ftrace kselftests and "
                       "run them with run_kselftest.sh in the guest",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("config")
    p.add_argument("--smp", type=int, default=2)
    p.add_argument("--test-timeout", type=float, default=300,
                   help="seconds one test file may take (default 300)")
    p.add_argument("--out", help="output directory (default "
                   ".cache/kselftest-runs/CONFIG)")
    p.add_argument("--no-build", action="store_true",
                   help="use the last build of CONFIG as it is")
    p.set_defaults(func=cmd_kselftest)
