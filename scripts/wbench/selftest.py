# SPDX-License-Identifier: GPL-2.0
"""Run upstream ftracetest, plus this project's .tc cases, in the guest.

ftracetest runs directly in the guest, one test file per invocation, so
that each result is reported on the console as soon as it is known.  If
a test hangs, panics the kernel or oopses it, the test is recorded as
HANG, PANIC or OOPS and the guest is booted again for the tests left.

The stock kernel's results are kept in scripts/expected/.  On any other
config a test that passes on stock and does not pass there is a
regression, one that stock could not run (UNSUPPORTED, UNRESOLVED) must
not crash the guest, and each of this project's own .tc cases must pass.
A config that cannot match stock (the Thumb-2 one) has its own expected
results, ftracetest-CONFIG.txt, which then take the place of stock's.
The patched config's file, ftracetest-patched.txt, is different: it
records what the series claims, and is checked on top of stock's.  A
test that passes there but not on stock is one the series makes pass,
and must pass on patched.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from . import arch, build, guest
from .parser import (CRASHES as CRASHES, GOOD as GOOD, NOT_RUN as NOT_RUN,
                     RESULTS as RESULTS, Results as Results,
                     Watcher as Watcher, crash_kind as crash_kind)
from .common import REPO, SCRIPTS, WorkbenchError, cache_dir, log
from .series import new_files

FTRACE_DIR = "tools/testing/selftests/ftrace"
EXPECTED = SCRIPTS / "expected" / "ftracetest-stock.txt"
CI_SKIP = SCRIPTS / "expected" / "ftracetest-ci-skip.txt"
# Why each stock result that is not a pass is what it is
REASONS = SCRIPTS / "expected" / "ftracetest-stock-reasons.txt"
# Why a test that passes on stock does not on the Thumb-2 config
THUMB2_REASONS = SCRIPTS / "expected" / "ftracetest-thumb2-reasons.txt"
# The start of a test job: what the suite needs that busybox lacks
# (guest.suite_tools()), with dash as /bin/sh.
SUITE_SETUP = r"""
cp -a /in/tools/. / && ln -sf dash /bin/sh || exit 1
"""

JOB = SUITE_SETUP + r"""
cd /in/ftrace || exit 1
mkdir -p /out/logs
for t in $(cat /in/tests); do
	echo "wb-test-begin $t"
	log=/out/logs/$(echo "$t" | tr / _)
	./ftracetest -k -l "$log" "test.d/$t" > /tmp/ft.out 2>&1
	rc=$?
	grep -E '\[(PASS|FAIL|UNRESOLVED|UNTESTED|UNSUPPORTED|XFAIL|UNDEFINED)\]$' \
		/tmp/ft.out | while IFS= read -r line; do
		case "$line" in
		*"(instance)"*) name="$t(instance)" ;;
		*) name="$t" ;;
		esac
		r=${line##*[}
		echo "wb-test-result $name ${r%]}"
	done
	cat /tmp/ft.out >> /out/ftracetest.out
	echo "wb-test-end $t $rc"
done
exit 0
"""

def expected_path(config: str) -> Path:
    """Where the expected results of config are kept."""
    return EXPECTED.with_name(f"ftracetest-{config}.txt")


# What the series claims: a full run of the patched config.
CLAIMS_CONFIG = "patched"


def baseline(config: str) -> str:
    """The config whose expected results config is compared with: its
    own, or those of the unpatched base of its architecture."""
    own = config != CLAIMS_CONFIG and expected_path(config).exists()
    return config if own else stock_config(config)


def stock_config(config: str) -> str:
    """The unpatched base's config of config's architecture (ARM32's for
    a name that is no config)."""
    record = arch.DEFAULT
    if (build.CONFIG_DIR / f"{config}.config").is_file():
        record = build.KernelConfig.load(config).arch
    if not record.stock_config:
        raise WorkbenchError(f"{config}: no unpatched config of "
                             f"{record.name} to compare ftracetest with")
    return record.stock_config


def baseline_results(config: str) -> Tuple[str, "Results"]:
    """config's baseline and its expected results, which must be kept."""
    base = baseline(config)
    path = expected_path(base)
    if not path.exists():
        raise WorkbenchError(f"{path.relative_to(REPO)} is missing: run "
                             f"scripts/workbench selftest {base} "
                             "--save-expected")
    return base, Results.load(path)


def claims_for(config: str) -> Optional["Results"]:
    """The results the series claims, when config is the one they were
    recorded on and they are kept."""
    path = expected_path(CLAIMS_CONFIG)
    if config != CLAIMS_CONFIG or not path.exists():
        return None
    return Results.load(path)


def all_tests(tree: Path) -> List[str]:
    return test_files(tree / FTRACE_DIR / "test.d")


def test_files(test_d: Path) -> List[str]:
    """The .tc files under test_d, in ftracetest's (sorted) order."""
    return sorted(p.relative_to(test_d).as_posix()
                  for p in test_d.rglob("*.tc"))


def project_tests() -> List[str]:
    prefix = FTRACE_DIR + "/test.d/"
    return [f[len(prefix):] for f in new_files()
            if f.startswith(prefix) and f.endswith(".tc")]


def load_reasons(path: Path = REASONS) -> Dict[str, str]:
    """test -> why it does not pass on stock, from 'TEST<TAB>REASON' lines."""
    reasons: Dict[str, str] = {}
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        name, sep, reason = line.partition("\t")
        if not sep or not reason.strip():
            raise WorkbenchError(f"{path}:{lineno}: want 'TEST<TAB>REASON'")
        reasons[name] = reason.strip()
    return reasons


def parallel_guests() -> int:
    """How many guests a long run of tests takes at once: one per host
    core, up to four.  ftracetest is mostly one shell running at a time,
    so a guest keeps about one core busy whatever its -smp."""
    return max(1, min(4, os.cpu_count() or 1))


def run_tests(config: build.KernelConfig, tests: List[str], smp: int,
              per_test_timeout: float, out_dir: Path,
              guests: int = 1) -> Results:
    """Run tests in guests booted from config, each guest with -smp smp.

    With guests above 1, the tests are dealt out in turn to that many
    guests that run at once, each with its logs in out_dir/guest-N, and
    their results are merged.
    """
    guests = max(1, min(guests, len(tests)))
    # Prepared once, not by each guest's thread at the same time
    tree = build.source_tree(config)
    if guests == 1:
        return _run_in_one_guest(config, tree, tests, smp, per_test_timeout,
                                 out_dir)
    start = time.monotonic()
    # Built once too, for the same reason
    guest.initramfs(arch=config.arch)
    guest.suite_tools(config.arch)
    with ThreadPoolExecutor(guests) as pool:
        parts = list(pool.map(
            lambda n: _run_in_one_guest(config, tree, tests[n::guests], smp,
                                        per_test_timeout,
                                        out_dir / f"guest-{n + 1}"),
            range(guests)))
    results = Results()
    for part in parts:
        results.results.update(part.results)
        results.durations.update(part.durations)
        results.boots += part.boots
    results.seconds = time.monotonic() - start
    return results


def _run_in_one_guest(config: build.KernelConfig, tree: Path,
                      tests: List[str], smp: int, per_test_timeout: float,
                      out_dir: Path) -> Results:
    """Run tests from tree's ftracetest in one guest after the other,
    booting it again after a test that hangs or crashes it."""
    ftrace = tree / FTRACE_DIR
    results = Results()
    start = time.monotonic()
    left = list(tests)
    while left:
        results.boots += 1
        watcher = Watcher(results, per_test_timeout)
        listing = out_dir / f"tests-{results.boots}.txt"
        listing.parent.mkdir(parents=True, exist_ok=True)
        listing.write_text("\n".join(left) + "\n")
        res = guest.boot(config, JOB, files={"ftrace": ftrace,
                                             "tools": guest.suite_tools(
                                                 config.arch),
                                             "tests": listing},
                         out_dir=out_dir / f"boot-{results.boots}", smp=smp,
                         timeout=per_test_timeout * len(left) + 120,
                         on_line=watcher.line, on_tick=watcher.tick,
                         log_path=out_dir / f"console-{results.boots}.log")
        left = [t for t in left if t not in watcher.done]
        if not res.failure:
            break
        if watcher.current is not None:
            kind = crash_kind(res.failure, watcher.oopsed)
            log(f"selftest: {watcher.current}: {kind} ({res.failure})")
            watcher.mark(kind)
            left.remove(watcher.current)
        elif "rebooting" not in res.failure:
            res.report()
            raise WorkbenchError(f"the guest failed outside any test: "
                                 f"{res.failure}")
    results.seconds = time.monotonic() - start
    return results


def compare(expected: Results, got: Results, own: List[str],
            base: str = "stock",
            claims: Optional[Results] = None) -> List[str]:
    """What counts as a failure of got against base's expected results,
    and against what the series claims to make pass, if given."""
    problems = []
    for name, was in sorted(expected.results.items()):
        now = got.results.get(name)
        if now is None:
            continue
        if was in GOOD and now not in GOOD:
            problems.append(f"regression: {name}: {was} on {base}, {now} here")
        elif was in NOT_RUN and now in CRASHES:
            problems.append(f"crash: {name}: {was} on {base}, {now} here")
    # Upstream tests only: the project's own are checked below
    for name, claimed in sorted((claims or Results()).results.items()):
        on_stock = expected.results.get(name)
        result = got.results.get(name)
        if claimed in GOOD and on_stock is not None and \
                on_stock not in GOOD and result is not None and \
                result not in GOOD:
            problems.append(f"claim: {name}: {claimed} in "
                            f"{expected_path(CLAIMS_CONFIG).name}, "
                            f"{result} here")
    for test in own:
        for name in (test, test + "(instance)"):
            now = got.results.get(name)
            if now is not None and now not in GOOD:
                problems.append(f"project test failed: {name}: {now}")
        if test not in got.results:
            problems.append(f"project test did not run: {test}")
    return problems


def confirm(config: build.KernelConfig, expected: Results, got: Results,
            own: List[str], smp: int, per_test_timeout: float,
            out_dir: Path, base: str = "stock",
            claims: Optional[Results] = None) -> Tuple[List[str], List[str]]:
    """Compare with base; run each suspected failure once more.

    Under TCG on a loaded host a few timing-sensitive tests fail now and
    then.  A regression of an upstream test, or a failed project test,
    counts only if it fails again on a fresh boot; one that passes the
    second time is returned apart, as flaky, for the caller to show.
    Returns (problems, flaky).
    """
    problems = compare(expected, got, own, base, claims)
    suspects = sorted({problem_test(p) for p in problems})
    if not suspects:
        return problems, []
    log(f"selftest: running again to confirm: {' '.join(suspects)}")
    again = run_tests(config, suspects, smp, per_test_timeout,
                      out_dir / "retry")
    still = {problem_test(p) for p in compare(
        expected, again, [t for t in own if t in suspects], base, claims)}
    flaky = [p for p in problems if problem_test(p) not in still]
    for p in flaky:
        log(f"selftest: flaky, passed on the second run: {p}")
    return [p for p in problems if p not in flaky], flaky


def problem_test(problem: str) -> str:
    """The test a problem of compare() is about ("kind: test[: result]")."""
    return problem.split(": ")[1].replace("(instance)", "")


def select(tree: Path, patterns: List[str], ci: bool) -> List[str]:
    tests = all_tests(tree)
    if patterns:
        tests = [t for t in tests if any(fnmatch.fnmatch(t, p)
                                         for p in patterns)]
        if not tests:
            raise WorkbenchError(f"no test matches {' '.join(patterns)}")
    if ci and CI_SKIP.exists():
        skip = [line.split("#", 1)[0].strip()
                for line in CI_SKIP.read_text().splitlines()]
        tests = [t for t in tests if t not in skip]
    return tests


def cmd_selftest(args: argparse.Namespace) -> int:
    config = (build.KernelConfig.load(args.config) if args.no_build
              else build.build(args.config))
    tree = build.source_tree(config)
    tests = select(tree, args.tests, args.set == "ci")
    out_dir = Path(args.out) if args.out else \
        cache_dir() / "selftest" / args.config
    log(f"selftest: {len(tests)} ftracetest files on {args.config}, "
        f"-smp {args.smp}, {args.guests} guest(s); logs in {out_dir}")
    got = run_tests(config, tests, args.smp, args.test_timeout, out_dir,
                    args.guests)
    got.save(out_dir / "results.txt",
             [f"ftracetest on {args.config}, -smp {args.smp}, TCG"])
    got.save_durations(out_dir / "durations.txt")
    log(f"selftest: {got.summary()} in {got.seconds:.0f} s")
    own = [t for t in project_tests() if t in tests]
    if args.save_expected:
        return save_expected(args, got, own)
    return judge(config, got, own, args.smp, args.test_timeout, out_dir,
                 "selftest")


def judge(config: build.KernelConfig, got: Results, own: List[str],
          smp: int, per_test_timeout: float, out_dir: Path,
          what: str) -> int:
    """Compare a run with its baseline's expected results, confirming each
    failure on a fresh boot; the command's exit status."""
    base, expected = baseline_results(config.name)
    problems, _ = confirm(config, expected, got, own, smp, per_test_timeout,
                          out_dir, base, claims_for(config.name))
    for p in problems:
        log(f"{what}: {p}")
    log(f"{what}: {len(problems)} problem(s) against the {base} results")
    return 1 if problems else 0


def cmd_matrix(args: argparse.Namespace) -> int:
    """Build, boot and test several configs; one summary line each."""
    rows = []
    for name in args.configs:
        out_dir = cache_dir() / "selftest" / f"matrix-{name}"
        try:
            base, expected = baseline_results(name)
            config = (build.KernelConfig.load(name) if args.no_build
                      else build.build(name))
            tests = select(build.source_tree(config), args.tests, False)
            got = run_tests(config, tests, args.smp, args.test_timeout,
                            out_dir)
        except WorkbenchError as exc:
            rows.append((name, "not run", [str(exc)]))
            continue
        got.save(out_dir / "results.txt",
                 [f"ftracetest on {name}, -smp {args.smp}, TCG"])
        own = [t for t in project_tests() if t in tests]
        problems, _ = confirm(config, expected, got, own, args.smp,
                              args.test_timeout, out_dir, base)
        # A cell may lack what an upstream test needs (the irqsoff tracer)
        problems = [p for p in problems if not (
            p.startswith("regression: ") and p.endswith(" UNSUPPORTED here"))]
        rows.append((name, got.summary(), problems))
    log("matrix: config: results (problems against the expected results)")
    for name, summary, problems in rows:
        log(f"matrix: {name}: {summary} ({len(problems)} problem(s))")
        for p in problems:
            log(f"matrix:   {p}")
    failed = sum(1 for _, _, problems in rows if problems)
    log(f"matrix: {len(rows) - failed} config(s) passed, {failed} failed")
    return 1 if failed else 0


def save_expected(args: argparse.Namespace, got: Results,
                  own: List[str]) -> int:
    """Record a full run as the expected results of its config.

    Stock's results are the reference of every config.  Another config's
    are saved only to record what cannot match stock there; what differs
    is shown, and this project's own tests must still pass.
    """
    if args.tests or args.set != "full":
        raise WorkbenchError("--save-expected wants a full run")
    path = expected_path(args.config)
    stock = stock_config(args.config)
    what = ("the stock kernel: Linux 6.12.117, ARM mode" if
            args.config == "stock" else f"the {args.config} config "
            f"(scripts/configs/{args.config}.config)")
    problems = []
    if args.config != stock:
        problems = compare(Results.load(expected_path(stock)), got, own,
                           stock)
        for p in problems:
            log(f"selftest: recorded, differs from stock: {p}")
    if any(not p.startswith("regression: ") for p in problems):
        raise WorkbenchError("not saved: a project test failed")
    got.save(path, [
        f"ftracetest results of {what}, "
        f"{build.KernelConfig.load(args.config).arch.method()} "
        f"-smp {args.smp}, TCG",
        f"written by: scripts/workbench selftest {args.config} "
        "--save-expected"])
    log(f"selftest: saved {path.relative_to(REPO)}")
    if args.config == "stock":
        reasons = load_reasons()
        for name, result in sorted(got.results.items()):
            if result != "PASS" and name not in reasons:
                log(f"selftest: {name}: {result}; say why in "
                    f"{REASONS.relative_to(REPO)}")
    return 0


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("selftest", help="run ftracetest in the guest",
                       description="Run upstream ftracetest and this "
                       "project's .tc cases on CONFIG in the guest, and "
                       "compare with the stock kernel's expected results.")
    p.add_argument("config")
    p.add_argument("--set", choices=("full", "ci"), default="full",
                   help="ci leaves out the tests listed in "
                   "scripts/expected/ftracetest-ci-skip.txt")
    p.add_argument("--smp", type=int, default=2)
    p.add_argument("--guests", type=int, default=1,
                   help="run the tests in this many guests at once "
                   "(make check takes one per host core, up to 4)")
    p.add_argument("--test-timeout", type=float, default=300,
                   help="seconds one test file may take (300)")
    p.add_argument("--out", help="where logs and results go")
    p.add_argument("--no-build", action="store_true",
                   help="test the last build without rebuilding")
    p.add_argument("--save-expected", action="store_true",
                   help="record this full run as the expected results "
                   "of CONFIG (scripts/expected/ftracetest-CONFIG.txt), "
                   "which later runs of CONFIG are compared with in place "
                   "of stock's")
    p.add_argument("tests", nargs="*", metavar="GLOB",
                   help="test files under test.d/ to run (default: all)")
    p.set_defaults(func=cmd_selftest)

    p = sub.add_parser("matrix", help="run ftracetest on several configs",
                       description="Build each config, boot it and run "
                       "the ftracetest files matching GLOB in it, compared "
                       "with the expected results as by 'selftest'; print "
                       "one line per config.  Exits non-zero if any "
                       "config fails to build or boot, regresses, or fails "
                       "a project test.")
    p.add_argument("configs", nargs="+", metavar="CONFIG")
    p.add_argument("--test", dest="tests", action="append", required=True,
                   metavar="GLOB", help="test files under test.d/ to run "
                   "(repeat for more)")
    p.add_argument("--smp", type=int, default=2)
    p.add_argument("--test-timeout", type=float, default=300,
                   help="seconds one test file may take (300)")
    p.add_argument("--no-build", action="store_true",
                   help="test the last builds without rebuilding")
    p.set_defaults(func=cmd_matrix)
