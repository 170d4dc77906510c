# SPDX-License-Identifier: GPL-2.0
"""How the workbench reads ftracetest's console output and judges it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wbench.common import WorkbenchError  # noqa: E402
from wbench import selftest  # noqa: E402
from wbench.selftest import (CRASHES, EXPECTED, THUMB2_REASONS,  # noqa: E402
                             Results, Watcher, baseline, compare, confirm,
                             expected_path, load_reasons, problem_test,
                             save_expected)


def feed(watcher: Watcher, text: str) -> list[str]:
    reasons = []
    for line in text.strip().splitlines():
        reason = watcher.line(line.strip())
        if reason:
            reasons.append(reason)
    return reasons


def test_results_and_instances_are_recorded() -> None:
    res = Results()
    w = Watcher(res, 300)
    assert feed(w, """
        wb-test-begin ftrace/func_profiler.tc
        [   12.3] random kernel line
        wb-test-result ftrace/func_profiler.tc PASS
        wb-test-result ftrace/func_profiler.tc(instance) FAIL
        wb-test-end ftrace/func_profiler.tc 1
        wb-test-begin kprobe/probepoint.tc
        wb-test-result kprobe/probepoint.tc UNSUPPORTED
        wb-test-end kprobe/probepoint.tc 0
        """) == []
    assert res.results == {"ftrace/func_profiler.tc": "PASS",
                           "ftrace/func_profiler.tc(instance)": "FAIL",
                           "kprobe/probepoint.tc": "UNSUPPORTED"}
    assert w.done == ["ftrace/func_profiler.tc", "kprobe/probepoint.tc"]


def test_oops_marks_the_test_and_asks_for_a_reboot() -> None:
    res = Results()
    w = Watcher(res, 300)
    reasons = feed(w, """
        wb-test-begin kprobe/probepoint.tc
        Internal error: Oops: 5 [#1] SMP ARM
        wb-test-result kprobe/probepoint.tc PASS
        wb-test-end kprobe/probepoint.tc 0
        """)
    assert len(reasons) == 1 and "oops" in reasons[0]
    assert res.results == {"kprobe/probepoint.tc": "OOPS"}


def test_hang_in_instance_run_is_charged_to_the_instance() -> None:
    res = Results()
    w = Watcher(res, 300)
    feed(w, """
        wb-test-begin ftrace/a.tc
        wb-test-result ftrace/a.tc PASS
        """)
    w.mark("HANG")
    assert res.results == {"ftrace/a.tc": "PASS",
                           "ftrace/a.tc(instance)": "HANG"}


def test_compare_finds_regressions_and_failing_project_tests() -> None:
    stock = Results({"a.tc": "PASS", "b.tc": "FAIL", "c.tc": "PASS",
                     "d.tc": "UNSUPPORTED"})
    got = Results({"a.tc": "PASS", "b.tc": "PASS", "c.tc": "UNRESOLVED",
                   "d.tc": "PASS", "own.tc": "FAIL"})
    problems = compare(stock, got, ["own.tc", "missing.tc"])
    assert problems == [
        "regression: c.tc: PASS on stock, UNRESOLVED here",
        "project test failed: own.tc: FAIL",
        "project test did not run: missing.tc"]


def test_a_test_stock_could_not_run_must_not_crash() -> None:
    stock = Results({"u.tc": "UNSUPPORTED", "r.tc": "UNRESOLVED",
                     "f.tc": "FAIL", "v.tc": "UNSUPPORTED"})
    got = Results({"u.tc": "OOPS", "r.tc": "HANG", "f.tc": "PANIC",
                   "v.tc": "FAIL"})
    assert compare(stock, got, []) == [
        "crash: r.tc: UNRESOLVED on stock, HANG here",
        "crash: u.tc: UNSUPPORTED on stock, OOPS here"]


def test_what_the_series_claims_to_fix_must_pass() -> None:
    stock = Results({"fixed.tc": "FAIL", "kept.tc": "PASS",
                     "still.tc": "FAIL", "gone.tc": "UNSUPPORTED"})
    claims = Results({"fixed.tc": "PASS", "kept.tc": "PASS",
                      "still.tc": "FAIL", "gone.tc": "PASS",
                      "own.tc": "PASS"})
    got = Results({"fixed.tc": "FAIL", "kept.tc": "PASS",
                   "still.tc": "FAIL", "gone.tc": "UNSUPPORTED",
                   "own.tc": "FAIL"})
    # own.tc is the project's: a failure of its own, not a claim
    assert compare(stock, got, [], claims=claims) == [
        "claim: fixed.tc: PASS in ftracetest-patched.txt, FAIL here",
        "claim: gone.tc: PASS in ftracetest-patched.txt, UNSUPPORTED here"]
    assert compare(stock, got, []) == []
    assert [problem_test(p) for p in compare(stock, got, [], claims=claims)
            ] == ["fixed.tc", "gone.tc"]


def test_patched_results_are_claims_not_a_baseline() -> None:
    assert baseline("patched") == "stock"


def test_each_arch_is_compared_with_its_own_unpatched_kernel() -> None:
    assert baseline("patched-x86_64") == "stock-x86_64"
    assert baseline("stock-x86_64") == "stock-x86_64"
    assert expected_path("stock-x86_64").name == \
        "ftracetest-stock-x86_64.txt"
    # arm64 has no unpatched config yet: said, not compared with ARM32's
    with pytest.raises(WorkbenchError, match="no unpatched config of arm64"):
        baseline("patched-arm64")


def test_confirm_runs_failures_again_and_keeps_flaky_ones_apart(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    stock = Results({"up1.tc": "PASS", "up2.tc": "PASS"})
    got = Results({"up1.tc": "FAIL", "up2.tc": "FAIL", "own1.tc": "FAIL",
                   "own2.tc": "FAIL"})
    retried = []

    def second_run(config: object, tests: list[str], *args: object) -> Results:
        retried.extend(tests)
        # up1 and own1 fail again, up2 and own2 pass this time
        return Results({"up1.tc": "FAIL", "up2.tc": "PASS",
                        "own1.tc": "UNRESOLVED", "own2.tc": "PASS"})

    monkeypatch.setattr(selftest, "run_tests", second_run)
    problems, flaky = confirm(
        None, stock, got, ["own1.tc", "own2.tc"], 2, 300,  # type: ignore
        tmp_path)
    assert retried == ["own1.tc", "own2.tc", "up1.tc", "up2.tc"]
    assert problems == ["regression: up1.tc: PASS on stock, FAIL here",
                        "project test failed: own1.tc: FAIL"]
    assert flaky == ["regression: up2.tc: PASS on stock, FAIL here",
                     "project test failed: own2.tc: FAIL"]


def test_results_file_round_trip(tmp_path: Path) -> None:
    res = Results({"x/a.tc": "PASS", "x/a.tc(instance)": "XFAIL"}, 12.0, 1)
    path = tmp_path / "r.txt"
    res.save(path, ["header"])
    assert Results.load(path).results == res.results
    path.write_text("x/a.tc PASS\n")
    with pytest.raises(WorkbenchError, match="r.txt:1"):
        Results.load(path)


def test_checked_in_stock_results_are_readable() -> None:
    stock = Results.load(EXPECTED)
    assert len(stock.results) > 100
    assert stock.results["00basic/basic1.tc"] == "PASS"


def test_every_stock_result_but_a_pass_has_its_reason() -> None:
    stock = Results.load(EXPECTED)
    reasons = load_reasons()
    not_passed = {n for n, r in stock.results.items() if r != "PASS"}
    assert sorted(not_passed - reasons.keys()) == []
    # a reason does not outlive its failure
    assert sorted(reasons.keys() - not_passed) == []
    # and none of them is the guest's
    kinds = {reason.split(":", 1)[0] for reason in reasons.values()}
    assert kinds <= {"kernel", "configuration", "toolchain", "test"}


def test_a_reason_line_without_its_tab_is_named(tmp_path: Path) -> None:
    path = tmp_path / "reasons.txt"
    path.write_text("# comment\na.tc\tkernel: why\nb.tc kernel: why\n")
    with pytest.raises(WorkbenchError, match="reasons.txt:3"):
        load_reasons(path)


def test_a_config_with_its_own_expected_results_is_compared_with_them(
        ) -> None:
    assert expected_path("stock") == EXPECTED
    assert baseline("stock") == "stock"
    assert baseline("no-such-config") == "stock"
    assert baseline("thumb2") == "thumb2"
    assert expected_path("thumb2").name == "ftracetest-thumb2.txt"
    # An OOPS recorded as expected is not a regression; a PASS lost is,
    # and is named against the config's own results.
    thumb2 = Results({"kprobe/probepoint.tc": "OOPS", "a.tc": "PASS"})
    got = Results({"kprobe/probepoint.tc": "OOPS", "a.tc": "FAIL"})
    assert compare(thumb2, got, [], "thumb2") == [
        "regression: a.tc: PASS on thumb2, FAIL here"]


def test_only_a_full_run_is_saved_as_expected() -> None:
    for tests, ftset in ((["ftrace/*"], "full"), ([], "ci")):
        args = argparse.Namespace(config="thumb2", tests=tests, set=ftset,
                                  smp=2)
        with pytest.raises(WorkbenchError, match="full run"):
            save_expected(args, Results(), [])


def test_checked_in_thumb2_results_record_no_crash() -> None:
    stock = Results.load(EXPECTED)
    thumb2 = Results.load(expected_path("thumb2"))
    # The series fixed the Thumb-2 kprobe PANIC and OOPSes: a result
    # file that still records one is out of date.
    crashed = {name for name, result in thumb2.results.items()
               if result in CRASHES}
    assert not crashed
    # Each other result that is not a PASS says why.
    reasons = load_reasons(THUMB2_REASONS)
    for name, result in thumb2.results.items():
        if result not in ("PASS", "UNSUPPORTED") and \
                stock.results.get(name) == "PASS":
            assert name in reasons, name
    # The function graph tests of the issue pass there.
    for name in ("fgraph-retval.tc", "fgraph-retval-values.tc",
                 "fgraph-stacktrace.tc", "fgraph-thresh-tree.tc"):
        assert thumb2.results["ftrace/" + name] == "PASS", name
    assert thumb2.results["ftrace/fgraph-filter.tc"] == "PASS"


def test_tests_are_dealt_out_to_guests_and_merged(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    runs: dict[Path, list[str]] = {}
    prepared: list[object] = []
    tree = tmp_path / "linux"

    def source_tree(config: object) -> Path:
        prepared.append(config)
        return tree

    def one_guest(config: object, in_tree: Path, tests: list[str], smp: int,
                  timeout: float, out_dir: Path) -> Results:
        assert in_tree == tree
        runs[out_dir] = tests
        got = Results({t: "PASS" for t in tests}, boots=1)
        got.durations = {t: 1.0 for t in tests}
        return got

    monkeypatch.setattr(selftest, "_run_in_one_guest", one_guest)
    monkeypatch.setattr(selftest.guest, "initramfs", lambda **kw: None)
    monkeypatch.setattr(selftest.guest, "suite_tools", lambda arch: None)
    # The source tree is prepared once, not by each guest's thread at
    # the same time (they raced on its state file)
    monkeypatch.setattr(selftest.build, "source_tree", source_tree)
    config = type("Config", (), {"arch": None})()
    tests = [f"t{i}.tc" for i in range(7)]
    got = selftest.run_tests(config, tests, 2, 300, tmp_path,  # type: ignore
                             guests=3)
    assert sorted(runs) == [tmp_path / f"guest-{n}" for n in (1, 2, 3)]
    assert runs[tmp_path / "guest-1"] == ["t0.tc", "t3.tc", "t6.tc"]
    assert sorted(t for share in runs.values() for t in share) == tests
    assert sorted(got.results) == tests and got.boots == 3
    assert sorted(got.durations) == tests
    assert prepared == [config]
    # One guest: the tests run in out_dir itself, as before
    runs.clear()
    selftest.run_tests(config, tests[:1], 2, 300, tmp_path,  # type: ignore
                       guests=3)
    assert runs == {tmp_path: ["t0.tc"]}
