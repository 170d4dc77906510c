# SPDX-License-Identifier: GPL-2.0
"""make check-arches (scripts/check --arches): its steps and configs.

No kernel is built and no guest boots: these hold what the steps would
build and run to the architecture records, and check that bad input is
refused with a usage message.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

SCRIPTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(SCRIPTS))

from wbench import arch, build, check, selftest  # noqa: E402


@pytest.mark.parametrize("name", check.OTHER_ARCHES)
def test_each_arch_has_a_patched_config_of_that_arch(name: str) -> None:
    config = build.KernelConfig.load(check.arch_config(name))
    assert config.arch is arch.get(name)
    assert config.tree == "patched"
    wanted = config.wanted_options()
    # what the steps load or run in the guest
    for option in ("CONFIG_FUNCTION_GRAPH_TRACER",
                   "CONFIG_RING_BUFFER_REWIND_KUNIT_TEST",
                   "CONFIG_RING_BUFFER_GUARDED_KUNIT_TEST",
                   "CONFIG_KPROBES_SANITY_TEST",
                   "CONFIG_TRACE_PREEMPT_TOGGLE",
                   "CONFIG_TRACE_IRQFLAGS_TOGGLE",
                   "CONFIG_PREEMPTIRQ_BENCHMARK"):
        assert wanted.get(option) in ("y", "m"), option
    # ARM32's own hooks cannot be set there: the build would stop
    assert "CONFIG_ARM_FTRACE_PATCHABLE_ENTRY" not in wanted


def test_the_stock_side_of_the_tracer_switching_is_the_unpatched_base(
        ) -> None:
    config = build.KernelConfig.load("stock-x86_64")
    assert config.tree == "base" and config.arch is arch.get("x86_64")
    wanted = config.wanted_options()
    for option in ("CONFIG_FUNCTION_TRACER", "CONFIG_FUNCTION_GRAPH_TRACER",
                   "CONFIG_DYNAMIC_FTRACE"):
        assert wanted.get(option) == "y", option
    # like with like: the machine and the tracers of patched-x86_64
    patched = build.KernelConfig.load("patched-x86_64").wanted_options()
    assert {o: v for o, v in wanted.items() if o in patched} == \
        {o: patched[o] for o in wanted if o in patched}


def test_the_steps_of_each_arch_in_order() -> None:
    names = [name for name, _ in check.arch_steps(["x86_64", "arm64"])]
    assert names == [
        "x86_64: build patched-x86_64",
        "x86_64: ring buffer and kprobes KUnit suites in the guest",
        "x86_64: tracing KUnit suites: kunit.py run --arch=x86_64",
        "x86_64: ftracetest and project .tc tests, against stock-x86_64",
        "x86_64: boot parameters of options it lacks are refused",
        "x86_64: function, function_graph, nop 20 times while find /sys runs",
        "x86_64: function, function_graph, nop 20 times while find /sys runs"
        " on stock-x86_64",
        "arm64: build patched-arm64",
        "arm64: ring buffer and kprobes KUnit suites in the guest",
        "arm64: tracing KUnit suites: kunit.py run --arch=arm64",
        "arm64: project .tc tests and preemptirq/*",
        "arm64: boot parameters of options it lacks are refused",
        "arm64: function, function_graph, nop 20 times while find /sys runs",
        "arm64: early boot function graph buffer on fgboot-arm64",
    ]


def test_what_is_built_ahead_is_what_the_steps_build() -> None:
    """make check and make check-arches build their kernels ahead, in
    the order of their steps: a config left out is built in its step
    (slower, not wrong), a config named wrongly would stop the builds
    ahead."""
    # one config per command: a failure stops only its own
    assert all(len(cmd) == 2 for cmd in check.AHEAD if cmd[0] == "build")
    built = [cmd[1] for cmd in check.AHEAD if cmd[0] == "build"]
    assert built == ["patched", "patched-arm64", "mcount", "patched-x86_64"]
    for name in built:
        build.KernelConfig.load(name)
    # kunit.py's step comes after x86_64's
    assert check.AHEAD[-1] == ["kunit", "--build-only"]
    # the kernel make check no longer boots
    assert "fgboot-arm64" not in built
    assert check.arches_ahead(["x86_64", "arm64"]) == [
        ["build", "patched-x86_64"],
        ["kunit", "--build-only", "--arch=x86_64"],
        ["build", "stock-x86_64"],
        ["build", "patched-arm64"],
        ["kunit", "--build-only", "--arch=arm64"],
        ["build", "fgboot-arm64"]]


@pytest.mark.parametrize("script, grace", [
    # an interrupt ends the shell and what it runs
    ("sleep 100; sleep 100", 60.0),
    # what ignores it is killed after the grace
    ("trap '' INT; sleep 100", 1.0)])
def test_builds_ahead_are_stopped_with_all_they_started(
        script: str, grace: float) -> None:
    proc = subprocess.Popen(["sh", "-c", f"{script} & wait"],
                            start_new_session=True)
    time.sleep(0.5)
    t0 = time.monotonic()
    check.stop_ahead(proc, grace)
    assert time.monotonic() - t0 < grace + 10
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)


def test_the_early_boot_kernel_of_an_arch_is_left_to_check_arches(
        ) -> None:
    """make check's early boot step leaves fgboot-arm64 out with a -k
    expression; check-arches selects it with another: both must name
    tests of test_fgraph_boot.py, or a step would run nothing."""
    def collected(select: str) -> list:
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "--collect-only",
             "-p", "no:cacheprovider", "-k", select,
             str(SCRIPTS / "tests" / "test_fgraph_boot.py")],
            capture_output=True, text=True, timeout=120)
        return [line for line in proc.stdout.splitlines() if "::" in line]
    only = collected("fgboot-arm64")
    assert only and all("fgboot-arm64" in t for t in only)
    rest = collected("not fgboot-arm64")
    assert rest and not any("fgboot-arm64" in t for t in rest)
    assert any("[mcount]" in t for t in rest)


def test_make_check_runs_the_generic_parts_on_every_other_arch() -> None:
    names = [name for name, _ in check.STEPS]
    # after the ARM32 steps whose kernels are built before theirs, in
    # the order of OTHER_ARCHES; ARM32's ftracetest, in two guests, last
    assert names[-1] == "ftracetest and project .tc tests on patched"
    start = names.index("arm64: build patched-arm64")
    assert names[start - 1] == "the -pg hook: fgraph and kprobe tests on mcount"
    assert names[start:-2] == [
        "arm64: build patched-arm64",
        "arm64: ring buffer and kprobes KUnit suites in the guest",
        "arm64: ftrace/fgraph-thresh-tree.tc preemptirq/preemptirq-events.tc",
        "x86_64: build patched-x86_64",
        "x86_64: ring buffer and kprobes KUnit suites in the guest",
        "x86_64: ftrace/fgraph-thresh-tree.tc "
        "preemptirq/preemptirq-events.tc",
        # its QEMU mode (thread=single) is there for this
        "x86_64: function, function_graph, nop 20 times while find /sys runs",
    ]
    # the project's own: a renamed one would leave the step empty
    assert set(check.GENERIC_TESTS) <= set(selftest.project_tests())


@pytest.mark.parametrize("argv", [["--arches", "arm"],
                                  ["--arches", "x86_64", "riscv"],
                                  ["--arches=", "--only", "build"]])
def test_an_unknown_arch_is_refused_without_a_traceback(argv: list) -> None:
    proc = subprocess.run([sys.executable, str(SCRIPTS / "check"), *argv],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_ftracetest_counts_passes_fresh_boot_failures_and_skips(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No baseline: a failure counts when it fails again on a fresh boot,
    one that passes then is flaky, and UNSUPPORTED is a skip."""
    first = {"ftrace/a.tc": "PASS", "ftrace/b.tc": "FAIL",
             "ftrace/c.tc": "FAIL", "preemptirq/d.tc": "UNSUPPORTED",
             "ftrace/e.tc": "OOPS"}
    again = {"ftrace/b.tc": "FAIL", "ftrace/c.tc": "PASS",
             "ftrace/e.tc": "OOPS"}
    runs = []

    def run_tests(config: object, tests: list, smp: int, timeout: float,
                  out: Path) -> selftest.Results:
        runs.append((list(tests), smp))
        table = first if len(runs) == 1 else again
        return selftest.Results({t: table[t] for t in tests if t in table})

    config = SimpleNamespace(name="patched-x86_64")
    monkeypatch.setenv("WB_CACHE", str(tmp_path))
    monkeypatch.setattr(check.build, "build", lambda name: config)
    monkeypatch.setattr(check.build, "source_tree", lambda c: tmp_path)
    monkeypatch.setattr(check.selftest, "select",
                        lambda tree, patterns, ci: sorted(first))
    monkeypatch.setattr(check.selftest, "run_tests", run_tests)
    check._failures.clear()
    check._skips.clear()
    assert check.arch_ftracetest("x86_64", ["ftrace/*"]) == (2, 2)
    assert runs[0] == (sorted(first), 2)
    assert sorted(runs[1][0]) == ["ftrace/b.tc", "ftrace/c.tc",
                                  "ftrace/e.tc"]
    assert check._skips == ["preemptirq/d.tc: UNSUPPORTED on x86_64"]
    failed = " ".join(check._failures)
    assert "ftrace/b.tc: FAIL" in failed and "ftrace/e.tc: OOPS" in failed
    assert "flaky" in failed and "ftrace/c.tc" in failed
    assert "project test" not in failed
    check._failures.clear()
    check._skips.clear()


@pytest.mark.parametrize("oopses, status, want", [
    ([], 0, (1, 0)),
    (["BUG: scheduling while atomic"], 0, (0, 1)),
    ([], 1, (0, 1)),
])
def test_tracer_switching_fails_on_a_kernel_report_or_a_bad_exit(
        monkeypatch: pytest.MonkeyPatch, oopses: list, status: int,
        want: tuple) -> None:
    booted = []

    def boot(config: object, job: str, **kwargs: object) -> SimpleNamespace:
        booted.append((job, kwargs))
        return SimpleNamespace(ok=status == 0, oopses=oopses, log="log",
                               exit_code=lambda: status, report=lambda: None)

    monkeypatch.setattr(check.build, "build", lambda name: name)
    monkeypatch.setattr(check.guest, "boot", boot)
    check._failures.clear()
    assert check.arch_tracer_switch("patched-x86_64") == want
    assert booted[0][1]["smp"] == 2
    assert "current_tracer" in booted[0][0] and "find /sys" in booted[0][0]
    assert bool(check._failures) == (want != (1, 0))
    check._failures.clear()


TERMINATED = """
import os, signal, subprocess, sys, time
sys.path.insert(0, sys.argv[1])
from wbench import check
check._ahead.append(subprocess.Popen(["sh", "-c", "sleep 100 & wait"],
                                     start_new_session=True))
print(check._ahead[0].pid, flush=True)
signal.signal(signal.SIGTERM, check.interrupted)
os.kill(os.getpid(), signal.SIGTERM)
time.sleep(100)
"""


def test_sigterm_stops_the_builds_ahead_and_ends_check() -> None:
    """A CI job cancelled with SIGTERM: check ends at once, as by the
    signal, and the builds ahead in their own session end with it."""
    proc = subprocess.run([sys.executable, "-c", TERMINATED, str(SCRIPTS)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGTERM, proc.stderr
    with pytest.raises(ProcessLookupError):
        os.killpg(int(proc.stdout.split()[0]), 0)
