# SPDX-License-Identifier: GPL-2.0
"""Usage: every option has help text and one spelling, bad values and
filters that keep nothing are errors naming what is wrong, a failed
command leaves no output file, callers and callees take globs."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from conftest import DATA_DIR, run_ftd
from ftdlib.cli import build_parser

S3 = DATA_DIR / "s3_head.txt"
S1 = DATA_DIR / "s1_head.txt"


def subparsers() -> dict:
    p = build_parser()
    for act in p._actions:
        if isinstance(act, argparse._SubParsersAction):
            return dict(act.choices)
    raise AssertionError("no subcommands")


def test_every_option_has_help() -> None:
    for name, sub in subparsers().items():
        for act in sub._actions:
            if isinstance(act, argparse._HelpAction):
                continue
            assert act.help and act.help != argparse.SUPPRESS, (
                name, act.option_strings or act.dest)


def test_one_spelling_per_option() -> None:
    tree = subparsers()["tree"]
    opts = {o for act in tree._actions for o in act.option_strings}
    # the tree is shaped by the common depth and duration options
    assert "--max-depth" in opts and "--min-dur" in opts
    assert "--depth" not in opts and "--min-us" not in opts
    for name, sub in subparsers().items():
        dests = [act.dest for act in sub._actions]
        assert len(dests) == len(set(dests)), name


@pytest.mark.parametrize("args,what", [
    (["report", "-n", "-1"], "at least 1"),
    (["report", "-n", "0"], "at least 1"),
    (["flamechart", "--max-lanes", "-1"], "at least 1"),
    (["flamegraph", "--width", "-5"], "at least 100"),
    (["report", "--time", "48,47"], "ends before it starts"),
    (["tree", "--max-depth", "-2"], "at least 0"),
    (["flamechart", "--min-px", "-1"], "must not be negative"),
])
def test_bad_values(args: list, what: str) -> None:
    p = run_ftd(*(args + [str(S3)]), code=2)
    assert what.encode() in p.stderr


def test_diff_stdin_twice() -> None:
    p = run_ftd("diff", "-", "-", code=2)
    assert b"standard input can be read only once" in p.stderr
    assert b"internal error" not in p.stderr


def test_filters_keeping_nothing(tmp_path: Path) -> None:
    p = run_ftd("report", "--task", "nosuchtask", str(S3), code=1)
    assert b"no calls match --task 'nosuchtask'" in p.stderr
    assert b"ls-54" in p.stderr      # says which tasks there are
    p = run_ftd("folded", "--focus", "nosuch", str(S3), code=1)
    assert b"--focus 'nosuch': no such function" in p.stderr
    p = run_ftd("flamegraph", "--focus", "nosuch", str(S3), code=1)
    assert b"no such function" in p.stderr
    p = run_ftd("report", "-F", "nosuch*", str(S3), code=1)
    assert b"no function matches -F 'nosuch*'" in p.stderr


def test_negated_task_filter() -> None:
    full = run_ftd("report", "-f", "csv", str(S3)).stdout
    no_ls = run_ftd("report", "-f", "csv", "--task", "!ls", str(S3)).stdout
    only_ls = run_ftd("report", "-f", "csv", "--task", "ls", str(S3)).stdout
    assert no_ls and no_ls != full and only_ls != full

    def count(out: bytes) -> int:
        return sum(int(ln.split(b",")[1]) for ln in out.splitlines()[1:])
    assert count(no_ls) + count(only_ls) == count(full)


def test_failed_command_leaves_no_output(tmp_path: Path) -> None:
    out = tmp_path / "out.svg"
    # fails after parsing: no such function
    run_ftd("flamegraph", "--focus", "nosuch", str(S3), "-o", str(out),
            code=1)
    assert not out.exists()
    # an existing file is left as it was
    out.write_text("old\n")
    run_ftd("flamegraph", "--focus", "nosuch", str(S3), "-o", str(out),
            code=1)
    assert out.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["out.svg"]
    # and replaced whole when the command works
    run_ftd("flamegraph", str(S3), "-o", str(out))
    assert out.read_text().startswith("<?xml")
    assert os.listdir(tmp_path) == ["out.svg"]
    # a timeline of a trace without time stamps fails after opening -o
    out2 = tmp_path / "c.json"
    run_ftd("chrome", str(S1), "-o", str(out2), code=1)
    assert not out2.exists()


def test_output_to_devnull() -> None:
    run_ftd("report", str(S3), "-o", os.devnull)
    assert os.path.exists(os.devnull)


def test_callers_glob() -> None:
    one = run_ftd("callers", str(S3), "preempt_count_add").stdout.decode()
    both = run_ftd("callers", str(S3), "preempt_count_*").stdout.decode()
    assert "preempt_count_* matches 2 functions: preempt_count_add, " \
        "preempt_count_sub" in both
    assert " -> preempt_count_add" in both
    assert " -> preempt_count_sub" in both
    assert " -> " not in one
    out = run_ftd("callees", str(S3), "_raw_spin_*", "-f", "csv").stdout
    assert b"_raw_spin_lock -> preempt_count_add" in out
