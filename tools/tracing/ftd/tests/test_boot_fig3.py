# SPDX-License-Identifier: GPL-2.0
"""ftd boot: the per-initcall rows of delays and console output (the
FreeBSD boot profiler's Fig. 3), device probes, and what closes the
gap an early buffer that filled up leaves."""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path
from typing import List

import pytest

from boottrace import Trace, collect
from conftest import run_ftd
from test_boot import REAL, early_lines


def fig3_trace() -> List[str]:
    """pid 1 runs two device initcalls: foo_init waits in udelay() and
    prints; bar_init registers a driver whose probe sleeps in msleep()
    and prints; then pid 1 sleeps in msleep() itself."""
    t = Trace()
    t.enter(0.0, 1, 0, "kernel_init")
    t.line(0.5, 1, 0, "/* initcall_level: level=device */")
    t.enter(1.0, 1, 0, "do_one_initcall")
    t.line(1.001, 1, 0, "/* initcall_start: func=foo_init+0x0/0x40 */")
    t.leaf(1.5, 1, 0, "__timer_const_udelay", 2.0)
    t.enter(4.0, 1, 0, "_printk")
    t.enter(4.1, 1, 0, "vprintk_emit")
    t.leaf(4.2, 1, 0, "console_unlock", 1.0)
    t.leave(5.3, 1, 0)
    t.leave(5.4, 1, 0)
    t.leave(6.0, 1, 0)
    t.enter(7.0, 1, 0, "do_one_initcall")
    t.line(7.001, 1, 0, "/* initcall_start: func=bar_init+0x0/0x20 */")
    t.enter(7.5, 1, 0, "__platform_driver_register")
    t.enter(8.0, 1, 0, "really_probe")
    t.leaf(8.1, 1, 0, "driver_sysfs_add", 0.4)
    t.enter(8.6, 1, 0, "platform_probe")
    t.leaf(8.7, 1, 0, "of_clk_set_defaults", 0.2)
    t.enter(9.0, 1, 0, "bar_probe")
    t.leaf(9.2, 1, 0, "msleep", 3.0)
    t.enter(12.5, 1, 0, "_dev_info")
    t.leaf(12.6, 1, 0, "console_unlock", 0.5)
    t.leave(13.2, 1, 0)
    t.leave(14.0, 1, 0)
    t.leave(14.5, 1, 0)
    t.leave(15.0, 1, 0)
    t.leave(15.5, 1, 0)
    t.leave(16.0, 1, 0)
    t.leaf(16.2, 1, 0, "msleep", 0.5)
    t.leaf(17.0, 1, 0, "run_init_process", 1.0)
    t.leave(19.0, 1, 0)
    return t.text()


def test_delay_and_console_rows_per_initcall() -> None:
    view, _ = collect(fig3_trace())
    # foo_init: 5 ms, 2 of them udelay, 1.4 printk; bar_init: 9 ms, of
    # which the probe (really_probe(), 7 ms) has 3 ms of msleep and
    # 0.7 ms of _dev_info(); the probe's row has really_probe()'s and
    # the bus's own helpers too
    got = [(r.kind, r.level, r.name, round(r.ns / 1e6, 3))
           for r in view.rows]
    # rows under their phase, not in time order: kernel_init's msleep
    # comes after the initcalls in time, but right under kernel_init
    assert got == [
        ("other", "", "kernel_init", 2.5),
        ("delay", "", "msleep in kernel_init", 0.5),
        ("initcall", "6", "foo_init", 1.6),
        ("delay", "6", "__timer_const_udelay in initcall 6 foo_init", 2.0),
        ("console", "6", "printk/console in initcall 6 foo_init", 1.4),
        ("initcall", "6", "bar_init", 2.0),
        ("probe", "6", "bar_probe (initcall 6 bar_init)", 3.3),
        ("delay", "6", "msleep in probe bar_probe (initcall 6 bar_init)",
         3.0),
        ("console", "6", "printk/console in probe bar_probe (initcall 6 "
         "bar_init)", 0.7),
        ("other", "", "run_init_process", 1.0),
    ]
    assert sum(r.ns for r in view.rows) == view.total
    # the levels count each initcall once, with all of its time
    assert view.levels["6"] == [2, 14000000]
    assert view.total == 18000000


def test_fig3_rows_in_csv(tmp_path: Path) -> None:
    f = tmp_path / "fig3.txt"
    f.write_text("".join(fig3_trace()))
    rows = list(csv.DictReader(io.StringIO(
        run_ftd("boot", str(f), "-f", "csv").stdout.decode())))
    kinds = [(r["kind"], r["name"].split(" ")[0]) for r in rows]
    assert kinds[2:5] == [("initcall", "foo_init"),
                          ("delay", "__timer_const_udelay"),
                          ("console", "printk/console")]


def test_full_early_buffer_says_what_closes_the_gap(tmp_path: Path) -> None:
    lines = [ln.replace("from start_kernel() to ftrace_init()",
                        "of the boot thread from start_kernel() until the "
                        "buffer filled up")
             .replace("dropped calls: 0", "dropped calls: 3")
             .replace("threshold: 100 us", "threshold: 10 us")
             for ln in early_lines()]
    early = tmp_path / "early.txt"
    early.write_text("".join(lines))
    text = run_ftd("boot", str(early), str(REAL)).stdout.decode()
    note = [ln for ln in text.splitlines() if "buffer full" in ln]
    assert len(note) == 1
    assert "fgraph_boot_thresh=100" in note[0]
    assert "CONFIG_FGRAPH_BOOT_BUFFER_SIZE" in note[0]
    assert "22.535 ms after it are not traced" in note[0]
    # a buffer that was not full: no such note
    early.write_text("".join(early_lines()))
    text = run_ftd("boot", str(early), str(REAL)).stdout.decode()
    assert "buffer full" not in text


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
