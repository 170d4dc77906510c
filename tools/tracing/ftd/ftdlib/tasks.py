# SPDX-License-Identifier: GPL-2.0
"""A task, as ftd keys it: "comm-pid" as the trace prints it.

Each CPU has its own idle task, all printed as "<idle>-0", so the idle
task's key has its CPU appended: "<idle>-0/1".  Without a task column,
a line's task is the one its CPU last switched to, and "?/CPU" when
that cannot be known.  Keys are built and taken apart here only."""

from __future__ import annotations

from typing import Dict, Tuple

IDLE_SUFFIX = "-0"
IDLE = "<idle>-0"
UNKNOWN = "?/"


def task_key(task: str, cpu: str, curtask: Dict[str, str]) -> str:
    """The key of a line's task (task: its comm-pid field, "" without a
    task column; curtask: the task each CPU last switched to)."""
    if task:
        return task if task[-2:] != IDLE_SUFFIX or not cpu else \
            task + "/" + cpu
    return curtask.get(cpu) or UNKNOWN + cpu


def unknown_key(cpu: str) -> str:
    """The key of the task that a CPU ran before the trace named one
    (no task column, and no context switch seen yet on the CPU)."""
    return UNKNOWN + cpu


def unknown_cpu(key: str) -> str:
    """The CPU of an unknown task's key (is_unknown())."""
    return key[len(UNKNOWN):]


def idle_key(cpu: str) -> str:
    """The key of the idle task of a CPU."""
    return IDLE + "/" + cpu


def task_name(key: str) -> str:
    """The task (comm-pid) of a task key: an idle task's key without
    its CPU."""
    base, sep, cpu = key.rpartition("/")
    if sep and cpu.isdigit() and base.endswith(IDLE_SUFFIX):
        return base
    return key


def task_cpu(key: str) -> str:
    """The CPU of an idle task key, else ""."""
    base, sep, cpu = key.rpartition("/")
    if sep and cpu.isdigit() and base.endswith(IDLE_SUFFIX):
        return cpu
    return ""


def comm_pid(task: str) -> Tuple[str, str]:
    """The comm and the pid text of a task (comm-pid, as task_name()
    gives it): "kworker/0:1-37" -> ("kworker/0:1", "37"); ("", task)
    when it has no "-"."""
    comm, _, pid = task.rpartition("-")
    return comm, pid


def pid_text(key: str) -> str:
    """The pid of a task key as the trace prints it (not always a
    number: "" or the whole key when the key has none)."""
    return comm_pid(task_name(key))[1]


def pid_of(key: str) -> int:
    """The pid of a task key; -1 when unknown."""
    tail = pid_text(key)
    return int(tail) if tail.isdigit() else -1


def is_idle(key: str) -> bool:
    """Whether the key is an idle task's (pid 0)."""
    return task_name(key).endswith(IDLE_SUFFIX)


def is_unknown(key: str) -> bool:
    """Whether the key stands for a task the trace does not name (no
    task column, and no context switch seen yet on its CPU)."""
    return key[:1] == "?"
