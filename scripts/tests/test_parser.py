# SPDX-License-Identifier: GPL-2.0
"""The workbench's result parsing (wbench/parser.py), and how make check
finds its host tests, reports skips and names the KUnit suites."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wbench import check, kunit, parser  # noqa: E402
from wbench.common import WorkbenchError, cache_dir, locked  # noqa: E402

KUNIT_LOG = """\
[    1.0] KTAP version 1
[    1.1]     # Subtest: ring_buffer_rewind
[    1.2]     ok 1 rw_test_basic
[    1.3]     # rw_test_nested: EXPECTATION FAILED at x.c:12
[    1.4]     # rw_test_nested: Expected a == b
[    1.5]     not ok 2 rw_test_nested
[    1.6]     ok 3 rw_test_lpae # SKIP needs LPAE
[    1.7] not ok 1 ring_buffer_rewind
[    1.8] ok 2 ring_buffer_guarded
"""


def test_kunit_log_cases() -> None:
    lines = KUNIT_LOG.splitlines()
    cases = list(parser.kunit_log_cases(lines))
    assert [(c.name, c.ok) for c in cases] == [
        ("rw_test_basic", True), ("rw_test_nested", False)]
    assert cases[1].said == ["EXPECTATION FAILED at x.c:12",
                             "Expected a == b"]
    assert list(parser.kunit_log_skips(lines)) == ["rw_test_lpae"]


def test_kunit_json_cases(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"name": "main", "test_cases": [],
                                "sub_groups": [
        {"name": "kprobes_test", "sub_groups": [],
         "test_cases": [{"name": "a", "status": "PASS"},
                        {"name": "b", "status": "SKIP"}]}]}))
    assert list(parser.kunit_json_cases(path)) == [
        ("kprobes_test.a", "PASS"), ("kprobes_test.b", "SKIP")]


def test_console_lines() -> None:
    assert parser.exit_re("abcd").search("wb-exit abcd 3").group(1) == "3"
    assert not parser.exit_re("abcd").search("wb-exit abce 0")
    assert parser.guest_error("x wb-guest-error: no input disk ") == \
        "no input disk"
    assert parser.guest_error("all well") is None
    assert parser.OOPS_RE.search("[ 3.1] Internal error: Oops: 5 [#1]")
    assert parser.OOPS_RE.search("Kernel panic - not syncing: x")
    assert not parser.OOPS_RE.search("Oopsie in a file name")


def test_kunitconfig_suites_come_from_the_tree(tmp_path: Path) -> None:
    (tmp_path / "kernel/trace").mkdir(parents=True)
    (tmp_path / "lib").mkdir()
    (tmp_path / "kernel/trace/.kunitconfig").write_text(
        "CONFIG_KUNIT=y\nCONFIG_FOO_TEST=y\nCONFIG_BAR_TEST=y\n"
        "# CONFIG_OFF_TEST=y\n")
    (tmp_path / "kernel/trace/Makefile").write_text(
        "obj-$(CONFIG_FOO_TEST) += foo_kunit.o\n"
        "obj-$(CONFIG_OFF_TEST) += off_kunit.o\n")
    (tmp_path / "lib/Makefile").write_text(
        "obj-$(CONFIG_BAR_TEST) += test_bar.o\n")
    suite = ("static struct kunit_suite s%d = {\n\t.name = \"%s\",\n"
             "\t.test_cases = c,\n};\n")
    (tmp_path / "kernel/trace/foo_kunit.c").write_text(
        suite % (1, "foo") + suite % (2, "foo_stress"))
    (tmp_path / "kernel/trace/off_kunit.c").write_text(suite % (1, "off"))
    (tmp_path / "lib/test_bar.c").write_text(suite % (1, "bar_test"))
    assert kunit.kunitconfig_suites(tmp_path) == {"foo", "foo_stress",
                                                  "bar_test"}
    # an option the architecture turns off (FPROBE on arm64) takes its
    # suites out of what must run
    assert kunit.kunitconfig_suites(tmp_path, ["CONFIG_BAR_TEST"]) == {
        "foo", "foo_stress"}
    (tmp_path / "lib/Makefile").write_text("")
    (tmp_path / "kernel/trace/Makefile").write_text("")
    with pytest.raises(WorkbenchError):
        kunit.kunitconfig_suites(tmp_path)


def test_the_repo_kunitconfig_names_the_tracing_suites() -> None:
    tree = cache_dir() / "src" / "linux-patched"
    # make check may be preparing it in its builds ahead
    with locked(tree, "reading the patched tree"):
        if not (tree / "lib" / "Makefile").exists():
            pytest.skip("no patched tree in .cache (workbench build patched)")
        suites = kunit.kunitconfig_suites(tree)
    assert suites >= {
        "ring_buffer_rewind", "ring_buffer_rewind_stress",
        "ring_buffer_guarded", "kprobes_test", "fprobe_test"}


def test_host_tests_are_found_not_listed() -> None:
    found = check.host_tests()
    names = {Path(p).name for p in found}
    assert "test_parser.py" in names and "test_arch.py" in names
    assert not names & set(check.GUEST_TESTS)
    on_disk = {p.name for p in (check.REPO / check.TESTS).glob("test_*.py")}
    assert names | set(check.GUEST_TESTS) == on_disk


def test_pytest_step_reports_skips_and_refuses_a_missing_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check, "REPO", tmp_path)
    monkeypatch.setenv("WB_CACHE", str(tmp_path / "cache"))
    (tmp_path / "t").mkdir()
    (tmp_path / "t/test_x.py").write_text(
        "import pytest\n"
        "def test_ok() -> None:\n    pass\n"
        "def test_skip() -> None:\n    pytest.skip('no board')\n"
        "def test_bad() -> None:\n    assert False\n")
    check._failures.clear()
    check._skips.clear()
    assert check.pytest_step("t/test_x.py")() == (1, 1)
    assert check._failures == ["t.test_x::test_bad"]
    assert len(check._skips) == 1 and "test_skip" in check._skips[0] \
        and "no board" in check._skips[0]
    check._failures.clear()
    check._skips.clear()
    with pytest.raises(WorkbenchError):
        check.pytest_step("t/test_x.py", "t/test_gone.py")()
