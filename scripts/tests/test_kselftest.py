# SPDX-License-Identifier: GPL-2.0
"""Host tests of `workbench kselftest`: following run_kselftest.sh's TAP."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wbench.kselftest import KtapFollower, ktap_order, left_after  # noqa: E402
from wbench.selftest import Results  # noqa: E402

# The order of a run over b.tc and a/x.tc, where only a/x.tc is run in
# an instance too.
ORDER = [("a/x.tc", "a/x.tc"), ("b.tc", "b.tc"),
         ("a/x.tc", "a/x.tc(instance)")]

# The start of run_kselftest.sh's output around ftracetest -K
HEAD = ["wb-kselftest-begin", "TAP version 13", "1..1",
        "# timeout set to 0", "# selftests: ftrace: ftracetest-ktap",
        "# TAP version 13", "# 1..3"]


def follow(lines: List[str]) -> tuple[KtapFollower, List[str]]:
    follower = KtapFollower(Results(), ORDER, 300)
    stops = [s for s in map(follower.line, lines) if s is not None]
    return follower, stops


def test_order_is_ftracetests_files_then_their_instance_runs(
        tmp_path: Path) -> None:
    test_d = tmp_path / "test.d"
    (test_d / "a").mkdir(parents=True)
    (test_d / "a" / "x.tc").write_text("#!/bin/sh\n# flags: instance\n")
    (test_d / "b.tc").write_text("#!/bin/sh\n# description: b\n")
    assert ktap_order(tmp_path) == ORDER


def test_results_are_named_by_their_place_in_the_run() -> None:
    follower, stops = follow(HEAD + [
        "# ok 1 Test x", "# # a log line of b",
        "# not ok 2 Test b # UNRESOLVED",
        "# ok 3 (instance) Test x # SKIP",
        "# # Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:1",
        "ok 1 selftests: ftrace: ftracetest-ktap", "wb-kselftest-end 0"])
    assert stops == []
    assert follower.results.results == {
        "a/x.tc": "PASS", "b.tc": "UNRESOLVED", "a/x.tc(instance)": "SKIP"}
    assert follower.current is None
    assert follower.tap[0] == "TAP version 13"


def test_a_result_out_of_order_stops_the_guest_with_an_error() -> None:
    follower, stops = follow(HEAD + ["# ok 1 Test x",
                                     "# ok 3 (instance) Test x"])
    assert len(stops) == 1 and "result 2 was due" in stops[0]
    assert follower.error == stops[0]


def test_a_crash_is_charged_to_the_result_that_was_due() -> None:
    follower, _ = follow(HEAD + ["# ok 1 Test x"])
    assert follower.current == "b.tc"
    assert follower.crashed("Kernel panic - not syncing") == "b.tc"
    assert follower.results.results["b.tc"] == "PANIC"
    assert left_after(ORDER, follower.results) == ["a/x.tc"]


def test_an_oops_marks_the_test_it_hit_and_asks_for_a_reboot() -> None:
    follower, stops = follow(HEAD + [
        "# ok 1 Test x", "Internal error: Oops: 5 [#1] SMP ARM",
        "# not ok 2 Test b"])
    assert stops == ["kernel oops during a test; rebooting for the rest"]
    assert follower.results.results == {"a/x.tc": "PASS", "b.tc": "OOPS"}
    # the instance run of a/x.tc is left for the fresh boot
    assert left_after(ORDER, follower.results) == ["a/x.tc"]


def test_a_hang_is_named_by_the_tick() -> None:
    follower, _ = follow(HEAD + ["# ok 1 Test x"])
    follower.per_test_timeout = 0
    assert follower.tick() == "b.tc ran longer than 0 s"
    assert follower.crashed("no output for 300 s") == "b.tc"
    assert follower.results.results["b.tc"] == "HANG"
