# SPDX-License-Identifier: GPL-2.0
"""`make check`: every test of the project, with one summary line.

Each step counts the checks it made.  A pytest step counts its test
cases, the ftracetest step counts the results it compared with the stock
kernel's, and the other steps count as one check each.  The last line
is "N passed, N failed"; the exit status is non-zero if anything failed.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from . import arch, build, export, guest, kunit, parser, selftest
from .base import base_tree
from .common import REPO, WorkbenchError, cache_dir, log, run
from .prepare import prepare_kernel
from .series import read_series

Counts = Tuple[int, int]  # passed, failed

# What failed in the step that is running, and the tests that failed once
# and passed on a fresh boot, one line each, repeated under the step's
# line in the summary: CI shows only the end of the output.
_failures: List[str] = []


# What the running step skipped, one line each, shown the same way: a
# skipped test is one that did not show it works.
_skips: List[str] = []


def failure(text: str) -> None:
    log(f"check: {text}")
    _failures.append(text)


def skipped(text: str) -> None:
    log(f"check: skipped: {text}")
    _skips.append(text)


def step_series() -> Counts:
    """Each topic series applies on the base and the topics before it,
    and on the base plus only the topics it requires, and is clean
    upstream-style; one check per topic, and one for the MAINTAINERS
    entries of the new files."""
    read_series()
    prepare_kernel(base_tree(), dry_run=True)
    repo = export.base_repo()
    topics = export.replay(repo)
    with tempfile.TemporaryDirectory(prefix="wb-series.") as tmp:
        written = export.write_series(repo, topics, Path(tmp) / "series")
        problems = export.check(repo, written)
    for lines in problems.values():
        for p in lines:
            failure(p)
    for topic, patches in written:
        mine = problems.get(topic.name, [])
        log(f"check: series {topic.name}: {len(patches)} patches, "
            + ("ok" if not mine else f"{len(mine)} problem(s)"))
    failed = sum(topic.name in problems for topic, _ in written)
    maintainers = export.MAINTAINERS in problems
    return (len(written) - failed + (not maintainers),
            failed + maintainers)


def step_build() -> Counts:
    build.build("patched")
    return 1, 0


TESTS = "scripts/tests"
# The test files of scripts/tests that need a built kernel, each run by a
# step of its own below; every other test_*.py there is a host test.
GUEST_TESTS = ["test_guest.py", "test_fgraph_boot.py", "test_tracecmd.py"]


def host_tests() -> List[str]:
    """scripts/tests/test_*.py, but for GUEST_TESTS: found, not listed,
    so that a new test file runs without being added here."""
    found = sorted(p.name for p in (REPO / TESTS).glob("test_*.py"))
    return [f"{TESTS}/{name}" for name in found if name not in GUEST_TESTS]


def pytest_step(*paths: str,
                find: Optional[Callable[[], List[str]]] = None,
                select: str = "") -> Callable[[], Counts]:
    """A step that runs pytest on paths (or on what find() returns when
    the step runs), each of which must exist; select is a -k expression."""
    def step() -> Counts:
        targets = list(paths) + (find() if find else [])
        missing = [p for p in targets if not (REPO / p).exists()]
        if missing or not targets:
            raise WorkbenchError(f"no tests at {', '.join(missing or paths)}")
        name = targets[0].replace("/", "_") + (
            "." + re.sub(r"\W+", "-", select) if select else "")
        xml = cache_dir() / "check" / f"{name}.xml"
        xml.parent.mkdir(parents=True, exist_ok=True)
        run(["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider",
             f"--junitxml={xml}"] + (["-k", select] if select else [])
            + targets, cwd=REPO, check=False)
        if not xml.exists():
            raise WorkbenchError("pytest wrote no results")
        passed = failed = 0
        for case in ET.parse(xml).getroot().iter("testcase"):
            skip = case.find("skipped")
            if skip is not None:
                skipped(f"{case.get('classname')}::{case.get('name')}: "
                        f"{skip.get('message', '')}")
                continue
            if case.find("failure") is None and case.find("error") is None:
                passed += 1
            else:
                failed += 1
                failure(f"{case.get('classname')}::{case.get('name')}")
        return passed, failed
    return step


def step_mypy() -> Counts:
    targets = ["scripts/wbench"]
    ftd = REPO / "tools/tracing/ftd"
    if (ftd / "ftdlib").is_dir():
        targets += ["tools/tracing/ftd/ftdlib"]
    proc = run(["python3", "-m", "mypy", "--strict", *targets], cwd=REPO,
               check=False)
    return (1, 0) if proc.returncode == 0 else (0, 1)


def kunit_in_guest(name: str, out_name: str) -> Counts:
    """The ring buffer and kprobes KUnit suites in a guest of config name
    (scripts/rewind-tests/kunit.sh), one check per case."""
    config = build.build(name)
    out = cache_dir() / "check" / out_name
    if out.exists():
        shutil.rmtree(out)
    script = REPO / "scripts" / "rewind-tests" / "kunit.sh"
    res = guest.boot(config, script.read_text(), out_dir=out, smp=2,
                     append="ring_buffer_rewind_kunit.stress_seconds=10",
                     echo=False)
    res.report()
    log(f"console log: {res.log}")
    status = res.exit_code()
    log_file = out / "kunit-dmesg.txt"
    if not log_file.exists():
        raise WorkbenchError("the KUnit guest run left no kernel log "
                             f"(exit status {status})")
    passed = failed = 0
    lines = log_file.read_text(errors="replace").splitlines()
    for case in parser.kunit_log_cases(lines):
        if case.ok:
            passed += 1
            continue
        failed += 1
        failure(f"KUnit case failed: {case.name}")
        # its failed expectations and what it printed, for the summary
        for text in case.said:
            failure("  " + text)
    for name in parser.kunit_log_skips(lines):
        skipped(f"KUnit case {name}")
    # A suite that did not run, or a kernel warning, fails the guest script
    if status != 0 and failed == 0:
        failure(f"the KUnit guest script failed (exit status "
                f"{status}): see {out}")
        failed = 1
    return passed, failed


def step_kunit() -> Counts:
    """The ring buffer and kprobes KUnit suites in the ARM32 guest."""
    return kunit_in_guest("patched", "kunit")


def kunit_py(arch_name: str = arch.DEFAULT.name) -> Counts:
    """The tracing KUnit suites through kunit.py run --arch: every suite
    of the .kunitconfig must run, but for those of the options that the
    architecture turns off (its record's kunit_options)."""
    record = arch.get(arch_name)
    json_out = cache_dir() / "check" / f"kunit-py-{arch_name}.json"
    status = kunit.run_kunit(json_out, [], arch=record)
    if not json_out.exists():
        raise WorkbenchError(f"kunit.py left no results (exit status "
                             f"{status})")
    passed = failed = 0
    suites = set()
    for name, result in parser.kunit_json_cases(json_out):
        suites.add(name.split(".")[0])
        if result == "PASS":
            passed += 1
        elif result == "SKIP":
            skipped(f"KUnit case {name}")
        else:
            failed += 1
            failure(f"KUnit case {result}: {name}")
    # The suites the .kunitconfig builds; one the config lost would
    # otherwise just be fewer cases
    turned_off = [opt[:-2] for opt in record.kunit_options
                  if opt.endswith("=n")]
    for suite in sorted(kunit.kunitconfig_suites(build.patched_tree(),
                                                 turned_off) - suites):
        failed += 1
        failure(f"KUnit suite did not run: {suite}")
    if status != 0 and failed == 0:
        failure(f"kunit.py failed (exit status {status})")
        failed = 1
    return passed, failed


def ftracetest(config: build.KernelConfig, patterns: List[str],
               out_name: str) -> Counts:
    """ftracetest (the ci set, or the tests matching patterns) on a built
    config, compared with the expected results of its baseline (the
    unpatched kernel of its architecture)."""
    base, expected = selftest.baseline_results(config.name)
    tree = build.source_tree(config)
    tests = selftest.select(tree, patterns, ci=True)
    out = cache_dir() / "check" / out_name
    got = selftest.run_tests(config, tests, 2, 300, out,
                             selftest.parallel_guests())
    got.save(out / "results.txt", [f"ftracetest on {config.name} (make check)"])
    got.save_durations(out / "durations.txt")
    log(f"check: ftracetest {got.summary()} in {got.seconds:.0f} s")
    own = [t for t in selftest.project_tests() if t in tests]
    problems, flaky = selftest.confirm(config, expected, got, own, 2, 300,
                                       out, base,
                                       claims=selftest.claims_for(config.name))
    for p in problems:
        failure(p)
    for p in flaky:
        _failures.append(f"flaky, passed on a fresh boot: {p}")
    return len(got.results) - min(len(got.results), len(problems)), \
        len(problems)


def step_selftest() -> Counts:
    # built by step_build
    return ftracetest(build.KernelConfig.load("patched"), [], "selftest")


# The tests that go through the code of a call site hook: the function
# graph tracer and its return values, stack traces through the callers'
# unwind annotations, module call sites, and kprobes on function entries.
# patched has the hook in front of the prologue; these also run on
# mcount, which keeps the -pg hook tested.
HOOK_TESTS = [
    "ftrace/fgraph-filter.tc", "ftrace/fgraph-multi.tc",
    "ftrace/fgraph-retval-values.tc", "ftrace/fgraph-stacktrace.tc",
    "ftrace/fgraph-thresh-tree.tc", "ftrace/fgraph-tracer-callees.tc",
    "ftrace/func-stacktrace-callers.tc", "ftrace/func_mod_trace.tc",
    "kprobe/kprobe_ftrace.tc",
    "kprobe/kprobe_insn_boundary.tc", "kprobe/kprobe_on_func_entry.tc",
    "kprobe/kretprobe_args.tc",
]


def step_mcount() -> Counts:
    return ftracetest(build.build("mcount"), HOOK_TESTS, "selftest-mcount")


# make check-arches: the series' generic parts on the other
# architectures, each built as its patched-ARCH config and booted with two
# vCPUs: the KUnit suites in the guest, and all of ftracetest against the
# unpatched kernel where the architecture record names one; elsewhere the
# project's .tc files and upstream's preemptirq tests, each of which must
# pass (one that says it cannot run there, UNSUPPORTED, is listed as
# skipped).
OTHER_ARCHES = ["arm64", "x86_64"]
ARCH_TESTS = ["preemptirq/*"]
# What make check runs of them on every architecture: thresh-tree, with
# and without a trace_pipe reader, and the toggles' events, paired
GENERIC_TESTS = ["ftrace/fgraph-thresh-tree.tc",
                 "preemptirq/preemptirq-events.tc"]


def arch_config(arch_name: str) -> str:
    return f"patched-{arch_name}"


def arch_build(arch_name: str) -> Counts:
    build.build(arch_config(arch_name))
    return 1, 0


def arch_kunit(arch_name: str) -> Counts:
    return kunit_in_guest(arch_config(arch_name), f"kunit-{arch_name}")


def arch_ftracetest(arch_name: str, patterns: List[str]) -> Counts:
    """The tests matching patterns on patched-ARCH; a failure counts if
    it fails again on a fresh boot."""
    config = build.build(arch_config(arch_name))
    tests = selftest.select(build.source_tree(config), patterns, ci=True)
    out = cache_dir() / "check" / f"selftest-{arch_name}"
    if out.exists():
        shutil.rmtree(out)
    got = selftest.run_tests(config, tests, 2, 300, out)
    got.save(out / "results.txt",
             [f"ftracetest on {config.name} (make check-arches)"])
    log(f"check: ftracetest {got.summary()} in {got.seconds:.0f} s")
    unsupported = sorted(name for name, result in got.results.items()
                         if result == "UNSUPPORTED")
    for name in unsupported:
        skipped(f"{name}: UNSUPPORTED on {arch_name}")
    must_pass = [t for t in tests if t not in unsupported]
    # No baseline: every test is held to what the project's own are
    problems, flaky = selftest.confirm(config, selftest.Results(), got,
                                       must_pass, 2, 300, out)
    for p in problems:
        failure(p.replace("project test ", "test ", 1))
    for p in flaky:
        _failures.append("flaky, passed on a fresh boot: "
                         + p.replace("project test ", "test ", 1))
    passed = sum(result in selftest.GOOD for result in got.results.values())
    return passed + len(flaky), len(problems)


# Boot parameters of an option that the architecture's kernel does not
# have (the early boot buffer is ARM's and arm64's): the kernel must say
# that it refuses each, not pass it on to init's environment without a
# word.
REFUSED_PARAMS = ["fgraph_boot=on", "fgraph_boot_thresh=100",
                  "fgraph_boot_count=on"]
REFUSED_JOB = """dmesg > /out/dmesg
tr '\\0' '\\n' < /proc/1/environ > /out/environ
"""


def arch_refused_params(arch_name: str) -> Counts:
    config = build.build(arch_config(arch_name))
    dot_config = (config.build_dir / ".config").read_text()
    if "CONFIG_FGRAPH_BOOT_BUFFER=y" in dot_config.splitlines():
        skipped(f"{config.name} has the early boot buffer")
        return 0, 0
    out = cache_dir() / "check" / f"refused-{arch_name}"
    if out.exists():
        shutil.rmtree(out)
    res = guest.boot(config, REFUSED_JOB, out_dir=out, smp=2,
                     append=" ".join(REFUSED_PARAMS), echo=False)
    res.report()
    if res.exit_code() != 0 or not (out / "dmesg").exists():
        failure(f"the guest job failed (exit status {res.exit_code()}): "
                f"see {res.log}")
        return 0, 1
    dmesg = (out / "dmesg").read_text(errors="replace")
    environ = (out / "environ").read_text(errors="replace").split()
    passed = failed = 0
    for param in REFUSED_PARAMS:
        problems = []
        if f"{param} refused: " not in dmesg:
            problems.append("no refusal in the kernel log")
        if param in environ:
            problems.append("passed on to init's environment")
        if problems:
            failure(f"{param} on {config.name}: {', '.join(problems)}")
            failed += 1
        else:
            passed += 1
    return passed, failed


# Switching current_tracer patches every traced call site while the
# other CPU runs through them: x86 patches with int3 (text_poke_bp()),
# which QEMU's multi-threaded TCG did not make atomic (issue 50; the
# architecture record's accel_why).  Each switch must leave the kernel
# sound in the guest's mode.
SWITCHES = 20
SWITCH_JOB = f"""cd /sys/kernel/tracing || exit 1
(while :; do find /sys > /dev/null 2>&1; done) &
busy=$!
i=0
while [ $i -lt {SWITCHES} ]; do
	for t in function function_graph nop; do
		echo $t > current_tracer || exit 1
	done
	i=$((i + 1))
done
kill $busy
echo "switched current_tracer $((i * 3)) times"
"""


def arch_tracer_switch(config_name: str) -> Counts:
    """SWITCH_JOB on a config with two vCPUs: no oops, no warning."""
    config = build.build(config_name)
    res = guest.boot(config, SWITCH_JOB, smp=2, echo=False)
    res.report()
    if not res.ok or res.oopses:
        failure(f"switching current_tracer while find /sys ran: "
                f"exit status {res.exit_code()}, "
                f"{len(res.oopses)} kernel report(s): see {res.log}")
        return 0, 1
    return 1, 0


Steps = List[Tuple[str, Callable[[], Counts]]]


def arch_kernel_steps(name: str) -> Steps:
    return [(f"{name}: build {arch_config(name)}",
             functools.partial(arch_build, name)),
            (f"{name}: ring buffer and kprobes KUnit suites in the guest",
             functools.partial(arch_kunit, name))]


def tracer_switch_step(name: str, config_name: str = ""
                       ) -> Tuple[str, Callable[[], Counts]]:
    config_name = config_name or arch_config(name)
    return (f"{name}: function, function_graph, nop {SWITCHES} times "
            "while find /sys runs"
            + (f" on {config_name}" if config_name != arch_config(name)
               else ""),
            functools.partial(arch_tracer_switch, config_name))


def arch_full_ftracetest(name: str) -> Counts:
    """All of ftracetest's ci set on patched-ARCH, compared with the
    unpatched kernel of the architecture, as ARM32's in make check."""
    return ftracetest(build.build(arch_config(name)), [],
                      f"selftest-{name}")


def arch_tests_step(name: str) -> Tuple[str, Callable[[], Counts]]:
    """Upstream ftracetest against the unpatched kernel where the
    architecture has one; else the project's .tc files and ARCH_TESTS,
    each of which must pass."""
    stock = arch.get(name).stock_config
    if stock:
        return (f"{name}: ftracetest and project .tc tests, against "
                f"{stock}", functools.partial(arch_full_ftracetest, name))
    return (f"{name}: project .tc tests and {' '.join(ARCH_TESTS)}",
            functools.partial(arch_ftracetest, name,
                              selftest.project_tests() + ARCH_TESTS))


# Kernels of an architecture that only make check-arches boots, each a
# build of its own: on arm64 the early boot buffer as boards build it
# (KASLR, pointer authentication, no CALL_OPS).  make check boots the
# buffer on patched, patched-arm64 and mcount.
ARCH_EARLY_BOOT = {"arm64": "fgboot-arm64"}


def arch_steps(names: List[str]) -> Steps:
    """make check-arches: all that the other architectures run."""
    steps: Steps = []
    for name in names:
        steps += arch_kernel_steps(name) + [
            (f"{name}: tracing KUnit suites: kunit.py run "
             f"--arch={arch.get(name).kunit_arch}",
             functools.partial(kunit_py, name)),
            arch_tests_step(name),
            (f"{name}: boot parameters of options it lacks are refused",
             functools.partial(arch_refused_params, name)),
            tracer_switch_step(name),
        ]
        # The QEMU mode chosen for the architecture holds for the
        # unpatched kernel as well: else a failure above may be QEMU's
        record = arch.get(name)
        if record.accel and record.stock_config:
            steps.append(tracer_switch_step(name, record.stock_config))
        if name in ARCH_EARLY_BOOT:
            steps.append((f"{name}: early boot function graph buffer on "
                          f"{ARCH_EARLY_BOOT[name]}",
                          pytest_step(f"{TESTS}/test_fgraph_boot.py",
                                      select=ARCH_EARLY_BOOT[name])))
    return steps


def generic_steps(names: List[str]) -> Steps:
    """What make check runs on the other architectures: the generic
    parts of the series (KUnit, thresh-tree, the toggles), and the tracer
    switching on an architecture whose QEMU mode was chosen for it."""
    steps: Steps = []
    for name in names:
        steps += arch_kernel_steps(name) + [
            (f"{name}: {' '.join(GENERIC_TESTS)}",
             functools.partial(arch_ftracetest, name, GENERIC_TESTS))]
        if arch.get(name).accel:
            steps.append(tracer_switch_step(name))
    return steps


STEPS: Steps = [
    ("series: each topic applies in order and on its stated base, "
     "checkpatch --strict, git am",
     step_series),
    ("workbench and prepare-kernel host tests: scripts/tests/test_*.py",
     pytest_step(find=host_tests)),
    ("ftd tests", pytest_step("tools/tracing/ftd/tests")),
    ("mypy --strict", step_mypy),
    ("build the patched kernel", step_build),
    ("guest runs: byte-exact /out, panic, hang, root disk", pytest_step(
        f"{TESTS}/test_guest.py")),
    ("early boot function graph buffer: guest boots", pytest_step(
        f"{TESTS}/test_fgraph_boot.py",
        select=" and ".join(f"not {config}"
                            for config in ARCH_EARLY_BOOT.values()))),
    ("trace-cmd record in the guest, its report read by ftd", pytest_step(
        f"{TESTS}/test_tracecmd.py")),
    ("ring buffer and kprobes KUnit suites in the guest", step_kunit),
    ("the -pg hook: fgraph and kprobe tests on mcount", step_mcount),
    *generic_steps(OTHER_ARCHES),
    ("tracing KUnit suites: kunit.py run --arch=arm", kunit_py),
    # Last: its two guests keep both cores busy, so on a cold run it
    # starts once every kernel is built, where x86_64's tracer
    # switching (one host thread) leaves a core to kunit.py's build.
    ("ftracetest and project .tc tests on patched", step_selftest),
]


# What make check builds, in the order its steps need it.  It is built
# ahead, in the background at the lowest CPU priority from the start, on
# the core that the host steps and the single-guest steps leave idle: a
# cold make check builds five kernels on 2 cores.  A step that needs a
# kernel waits for it on its build directory's lock; a build that fails
# ahead fails again in its step, which reports it.
AHEAD = [["build", "patched"], ["build", "patched-arm64"],
         ["build", "mcount"], ["build", "patched-x86_64"],
         ["kunit", "--build-only"]]


def arches_ahead(names: List[str]) -> List[List[str]]:
    """make check-arches' AHEAD: per architecture, in the order of its
    steps."""
    commands = []
    for name in names:
        record = arch.get(name)
        commands += [["build", arch_config(name)],
                     ["kunit", "--build-only", f"--arch={name}"]]
        commands += [["build", config] for config in
                     [record.stock_config, ARCH_EARLY_BOOT.get(name, "")]
                     if config]
    return commands


def start_ahead(commands: List[List[str]]) -> "subprocess.Popen[bytes]":
    """Run the workbench commands one after the other in the background,
    at nice 19; their output goes to a log of its own."""
    out = cache_dir() / "check" / "ahead.log"
    out.parent.mkdir(parents=True, exist_ok=True)
    script = " ; ".join(shlex.join([str(REPO / "scripts" / "workbench"),
                                    *cmd]) for cmd in commands)
    log(f"check: building ahead in the background (log: {out}): {script}")
    with open(out, "wb") as handle:
        return subprocess.Popen(["nice", "-n", "19", "sh", "-c", script],
                                stdin=subprocess.DEVNULL, stdout=handle,
                                stderr=subprocess.STDOUT,
                                start_new_session=True)


def group_gone(pgid: int, proc: "subprocess.Popen[bytes]",
               seconds: float) -> bool:
    """Whether the process group ends within seconds (its leader, proc,
    reaped as it exits)."""
    deadline = time.monotonic() + seconds
    while True:
        proc.poll()
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)


def stop_ahead(proc: "subprocess.Popen[bytes]", grace: float = 60) -> None:
    """Stop what is still building ahead (the steps ended first, or
    check was interrupted): an interrupt first, which lets the workbench
    clean up what it was unpacking or preparing, and make remove what it
    was writing; whatever is left after grace seconds is killed."""
    try:
        os.killpg(proc.pid, signal.SIGINT)
        if not group_gone(proc.pid, proc, grace):
            os.killpg(proc.pid, signal.SIGKILL)
            group_gone(proc.pid, proc, 10)
    except ProcessLookupError:
        pass
    proc.wait()


# The builds ahead, while they run: a signal handler stops them
_ahead: List["subprocess.Popen[bytes]"] = []


def interrupted(signum: int, frame: object) -> None:
    """SIGTERM and SIGHUP: stop the builds ahead, which run in a session
    of their own that a kill of check's process group misses, then end
    as the signal's default action would (the guests' threads are not
    waited for)."""
    for proc in _ahead:
        stop_ahead(proc, grace=10)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


SHOWN_FAILURES = 8


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="check", description=__doc__)
    parser.add_argument("--only", help="run the steps whose name contains "
                        "this text")
    parser.add_argument("--arches", nargs="*", metavar="ARCH",
                        choices=OTHER_ARCHES,
                        help="instead of ARM32's steps, test the series' "
                        "generic parts on these architectures (make "
                        f"check-arches; default: {' '.join(OTHER_ARCHES)})")
    args = parser.parse_args(argv)
    steps, ahead = STEPS, AHEAD
    if args.arches is not None:
        steps = arch_steps(args.arches or OTHER_ARCHES)
        ahead = arches_ahead(args.arches or OTHER_ARCHES)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupted)
    # One step alone builds what it needs itself
    if not args.only:
        _ahead.append(start_ahead(ahead))
    try:
        return run_steps(steps, args)
    finally:
        while _ahead:
            stop_ahead(_ahead.pop())


def run_steps(steps: Steps, args: argparse.Namespace) -> int:
    total_pass = total_fail = 0
    seconds: Dict[str, float] = {}
    lines = []
    start = time.monotonic()
    for name, step in steps:
        if args.only and args.only not in name:
            continue
        log(f"\n=== check: {name}")
        t0 = time.monotonic()
        try:
            passed, failed = step()
        except WorkbenchError as exc:
            failure(f"error: {exc}")
            passed, failed = 0, 1
        total_pass += passed
        total_fail += failed
        seconds[name] = time.monotonic() - t0
        verdict = "ok" if failed == 0 else "FAILED"
        skips = f", {len(_skips)} skipped" if _skips else ""
        lines.append(f"{verdict:6} {name}: {passed} passed, {failed} failed"
                     f"{skips} ({time.monotonic() - t0:.0f} s)")
        lines += [f"         {text}" for text in _failures[:SHOWN_FAILURES]]
        if len(_failures) > SHOWN_FAILURES:
            lines.append(f"         ... and {len(_failures) - SHOWN_FAILURES}"
                         " more above")
        lines += [f"         skipped: {text}"
                  for text in _skips[:SHOWN_FAILURES]]
        if len(_skips) > SHOWN_FAILURES:
            lines.append(f"         ... and {len(_skips) - SHOWN_FAILURES}"
                         " more skips above")
        _failures.clear()
        _skips.clear()
    log("\n=== check summary")
    for line in lines:
        log(line)
    if args.arches is not None:
        for arch_name in args.arches or OTHER_ARCHES:
            took = sum(t for name, t in seconds.items()
                       if name.startswith(arch_name + ":"))
            log(f"{arch_name}: {took:.0f} s")
    log(f"total time {time.monotonic() - start:.0f} s")
    print(f"{total_pass} passed, {total_fail} failed", flush=True)
    return 1 if total_fail else 0
