# SPDX-License-Identifier: GPL-2.0
"""make demo-boot (scripts/wbench/demo.py): the kernel command line and
the files ftd boot is given.  No kernel is built and no guest boots."""

from __future__ import annotations

import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(SCRIPTS))

from wbench import demo  # noqa: E402


def test_cmdline_gives_dmesg_the_initcall_lines_with_times() -> None:
    words = demo.boot_holds_cmdline(100).split()
    # ftd boot --dmesg reads only initcall_debug lines with a printk
    # time, and the configs leave CONFIG_PRINTK_TIME off
    assert "initcall_debug" in words
    assert "printk.time=1" in words
    assert "log_buf_len=1M" in words
    assert "tracing_thresh=100" in words


def test_ftd_boot_reads_dmesg_and_system_map(tmp_path: Path) -> None:
    assert demo.boot_inputs(tmp_path) == []
    for name in ("fgraph_boot_stat.txt", "buffer-stats.txt", "dmesg.txt",
                 "System.map"):
        (tmp_path / name).write_text("")
    assert demo.boot_inputs(tmp_path) == [
        "--counts", "fgraph_boot_stat.txt",
        "--buffer-stats", "buffer-stats.txt",
        "--dmesg", "dmesg.txt", "--system-map", "System.map"]
