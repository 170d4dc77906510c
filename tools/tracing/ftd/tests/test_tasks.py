# SPDX-License-Identifier: GPL-2.0
"""A task key ("comm-pid", "<idle>-0/CPU", "?/CPU") is built and taken
apart in ftdlib/tasks.py only."""

from __future__ import annotations

import re

from conftest import FTD_DIR
from ftdlib.tasks import (comm_pid, is_unknown, pid_of, task_key,
                          unknown_cpu, unknown_key)


def test_unknown_task_key_round_trip() -> None:
    key = task_key("", "3", {})
    assert key == unknown_key("3") and is_unknown(key)
    assert unknown_cpu(key) == "3"
    assert pid_of(key) == -1
    assert task_key("", "3", {"3": "sh-71"}) == "sh-71"


def test_comm_and_pid_of_a_task() -> None:
    assert comm_pid("kworker/0:1-37") == ("kworker/0:1", "37")
    assert comm_pid("a-b-12") == ("a-b", "12")
    assert comm_pid("?/1") == ("", "?/1")


def test_no_other_module_builds_or_splits_a_key() -> None:
    """The ways the key was built or taken apart outside tasks.py: the
    unknown task's "?/" prefix, cutting it off, and splitting comm from
    pid."""
    bad = re.compile(r'"\?/"|key\[2:\]|rpartition\("-"\)')
    found = [(p.name, n) for p in sorted((FTD_DIR / "ftdlib").glob("*.py"))
             if p.name != "tasks.py"
             for n, line in enumerate(p.read_text().splitlines(), 1)
             if bad.search(line)]
    assert found == []
