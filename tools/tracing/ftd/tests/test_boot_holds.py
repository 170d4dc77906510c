# SPDX-License-Identifier: GPL-2.0
"""ftd boot: boot holds on synthetic boot traces (boottrace.py), their
rows in text, CSV and JSON, and their pseudo-stacks in the boot-ordered
folded stacks and flame chart."""

from __future__ import annotations

import csv
import io
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import List, Tuple

import pytest

from boottrace import TASK, Trace, collect
from conftest import run_ftd
from ftdlib.analysis import folded
from ftdlib.boot import BootView
from ftdlib.bootinput import BootInputs
from ftdlib.bootholds import SCHED_CMDLINE, Hold, find_holds
from ftdlib.bootstacks import boot_stacks, merge


def boot_with_holds(chain: bool = True, irq: bool = False) -> Trace:
    """pid 1 waits three times:

    1. in wait_for_initramfs() from 1.000040 s until unpack-30 wakes it
       at 1.060 s.  unpack (created at 0.990 s) itself sleeps from
       1.010 s until helper-40 (created at 1.005 s) wakes it at
       1.0295 s: unpack is blamed for 9.96 + 30.5 ms, helper for
       19.5 ms.
    2. in async_synchronize_full() from 1.100 to 1.150 s, woken by
       async1-50, and again from 1.1502 to 1.180 s, woken by async2-51.
       async1 and async2 run side by side from 1.090 and 1.095 s: the
       two holds overlap in the work of their wakers, and each is
       blamed on its own waker for its own wait only.
    3. in msleep() from 1.200 s until it is back on the CPU at 1.210 s,
       with no wakeup in the trace: unexplained.
    """
    t = Trace()
    t.enter(0.0, 1, 0, "kernel_init")
    # unpack-30 is created by pid 1 before the wait
    t.wake(-10.0, 1, 0, 30, "sched_wakeup_new")
    t.enter(-9.9, 30, 1, "do_populate_rootfs")
    t.enter(-9.8, 30, 1, "unpack_to_rootfs")
    t.enter(0.010, 1, 0, "wait_for_initramfs")
    t.enter(0.020, 1, 0, "async_synchronize_cookie_domain")
    t.enter(0.030, 1, 0, "schedule")
    t.switch(0.040, 0, 1, 0)
    if chain:
        t.wake(5.0, 30, 1, 40, "sched_wakeup_new")
        t.enter(9.0, 30, 1, "wait_for_completion")
        t.enter(9.5, 30, 1, "schedule")
        t.switch(10.0, 1, 30, 40)
        t.enter(10.01, 40, 1, "crc_work")
        t.leaf(10.02, 40, 1, "crc32_le", 19.0)
        t.wake(29.5, 40, 1, 30)
        t.leave(29.9, 40, 1)
        t.switch(29.95, 1, 40, 30, "S")
        t.leave(30.0, 30, 1)
        t.leave(30.05, 30, 1)
    t.leaf(31.0, 30, 1, "gunzip", 28.0)
    if irq:
        t.enter(59.9, 30, 1, "gic_handle_irq")
    t.wake(60.0, 30, 1, 1)
    if irq:
        t.leave(60.05, 30, 1)
    t.leave(60.5, 30, 1)
    t.leave(61.0, 30, 1)
    t.line(60.1, 0, 0, "/* sched_switch: prev_comm=swapper/0 prev_pid=0 "
           "prev_prio=120 prev_state=R ==> next_comm=swapper/0 "
           "next_pid=1 next_prio=120 */")
    t.leave(60.2, 1, 0)
    t.leave(60.25, 1, 0)
    t.leave(60.3, 1, 0)
    # 2: two async threads on CPUs 1 and 2
    t.wake(89.0, 1, 0, 50, "sched_wakeup_new")
    t.wake(89.5, 1, 0, 51, "sched_wakeup_new")
    t.enter(90.0, 50, 1, "async_run_entry_fn")
    t.leaf(90.1, 50, 1, "probe_one", 59.0)
    t.enter(95.0, 51, 2, "async_run_entry_fn")
    t.leaf(95.1, 51, 2, "probe_two", 84.0)
    t.enter(99.0, 1, 0, "async_synchronize_full")
    t.enter(99.5, 1, 0, "schedule")
    t.switch(100.0, 0, 1, 0)
    t.wake(150.0, 50, 1, 1)
    t.leave(150.05, 50, 1)
    t.leave(150.1, 1, 0)
    t.enter(150.15, 1, 0, "schedule")
    t.switch(150.2, 0, 1, 0)
    t.wake(180.0, 51, 2, 1)
    t.leave(180.05, 51, 2)
    t.leave(180.2, 1, 0)
    t.leave(180.3, 1, 0)
    # 3: no wakeup in the trace
    t.enter(199.0, 1, 0, "msleep")
    t.enter(199.5, 1, 0, "schedule")
    t.switch(200.0, 0, 1, 0)
    t.line(210.0, 0, 0, "/* sched_switch: prev_comm=swapper/0 prev_pid=0 "
           "prev_prio=120 prev_state=R ==> next_comm=swapper/0 "
           "next_pid=1 next_prio=120 */")
    t.leave(210.1, 1, 0)
    t.leave(210.2, 1, 0)
    t.leaf(211.0, 1, 0, "run_init_process", 1.0)
    t.leave(213.0, 1, 0)
    return t


def analysed(lines: List[str]) -> Tuple[BootView, List[Hold], BootInputs]:
    view, col = collect(lines)
    holds = find_holds(col.sched, col.tl, view.pieces, view.start, view.end)
    return view, holds, col


def ms(ns: int) -> float:
    return round(ns / 1e6, 3)


def test_chain_and_overlapping_holds() -> None:
    view, holds, _ = analysed(boot_with_holds().text())
    assert [(h.wait_fn, ms(h.start - 1000000000), ms(h.ns)) for h in holds] \
        == [("wait_for_initramfs", 0.04, 59.96),
            ("async_synchronize_full", 100.0, 50.0),
            ("async_synchronize_full", 150.2, 29.8),
            ("msleep", 200.0, 10.0)]
    h = holds[0]
    assert h.thread == "init-1" and h.waker == "unpack-30"
    blamed = {b.thread: (ms(b.ns), b.via) for b in h.blames}
    # unpack from the wait's start (it was created before) less its
    # own sleep, which goes to helper, the thread that woke it
    assert blamed == {"unpack-30": (40.46, []),
                      "helper-40": (19.5, ["unpack-30"])}
    assert h.unexplained == 0
    helper = [b for b in h.blames if b.thread == "helper-40"][0]
    assert helper.spans == [(1010000000, 1029500000)]
    assert helper.top[0][0] == "crc32_le"
    # the pseudo-frames: unpack's stack down to what it waited in
    assert helper.prefix == ["THREAD unpack-30", "do_populate_rootfs",
                             "unpack_to_rootfs", "THREAD helper-40"]
    # the overlapping holds: each blamed on its own waker, for its own
    # wait only, although async2 worked through the first one too
    a, b = holds[1], holds[2]
    assert [(x.thread, ms(x.ns)) for x in a.blames] == [("async1-50", 50.0)]
    assert [(x.thread, ms(x.ns)) for x in b.blames] == [("async2-51", 29.8)]
    assert a.blames[0].top == [("probe_one", 49100000),
                               ("async_run_entry_fn", 900000)]
    assert b.blames[0].top == [("probe_two", 28900000),
                               ("async_run_entry_fn", 900000)]
    # the wait whose wakeup the trace does not have: all unexplained
    u = holds[3]
    assert u.blames == [] and u.unexplained == u.ns == 10000000
    assert "not in the trace" in u.why
    for x in holds:
        assert x.blamed + x.unexplained == x.ns
        for bl in x.blames:
            for s0, s1 in bl.spans:
                assert x.start <= s0 < s1 <= x.end


def test_waker_not_started_is_not_blamed_before() -> None:
    """Without helper, unpack's sleep is not in the trace, and unpack
    gets the whole wait (it was created before the wait started); with
    unpack created during the wait, the time before is unexplained."""
    t = boot_with_holds(chain=False)
    _, holds, _ = analysed(t.text())
    assert [(b.thread, ms(b.ns)) for b in holds[0].blames] == \
        [("unpack-30", 59.96)]
    late = [ln.replace("%12.6f" % 0.990, "%12.6f" % 1.020)
            if "sched_wakeup_new: comm=unpack" in ln else ln
            for ln in t.text()]
    _, holds, _ = analysed(late)
    assert [(b.thread, ms(b.ns)) for b in holds[0].blames] == \
        [("unpack-30", 40.0)]
    assert ms(holds[0].unexplained) == 19.96
    assert "before unpack-30 started" in holds[0].why


def test_wakeup_from_idle_or_interrupt_blames_nobody() -> None:
    t = boot_with_holds(chain=False)
    text = [ln.replace(TASK[30].center(14), TASK[0].center(14))
            if "sched_waking: comm=swapper/0 pid=1" in ln and
            "1.060000" in ln else ln for ln in t.text()]
    _, holds, _ = analysed(text)
    assert holds[0].blames == [] and holds[0].unexplained == holds[0].ns
    assert "idle" in holds[0].why
    # a wakeup made in an interrupt handler on the waker's CPU
    _, holds, _ = analysed(boot_with_holds(chain=False, irq=True).text())
    assert holds[0].blames == []
    assert "interrupt (gic_handle_irq)" in holds[0].why


def test_pseudo_stacks_in_boot_order() -> None:
    view, holds, col = analysed(boot_with_holds().text())
    items = list(folded({"": merge(boot_stacks(view, col.tl, holds))},
                        first_seen=True))
    stacks = dict(items)
    assert stacks["kernel_init;wait_for_initramfs;THREAD unpack-30;"
                  "do_populate_rootfs;unpack_to_rootfs;gunzip"] == 28000000
    assert stacks["kernel_init;wait_for_initramfs;THREAD unpack-30;"
                  "do_populate_rootfs;unpack_to_rootfs;THREAD helper-40;"
                  "crc_work;crc32_le"] == 19000000
    assert "kernel_init;async_synchronize_full;THREAD async1-50;" \
        "async_run_entry_fn;probe_one" in stacks
    # all of the boot path, nothing twice
    assert sum(stacks.values()) == view.total
    # boot order, not alphabetical: wait_for_initramfs before
    # async_synchronize_full before msleep
    order = [s.split(";")[1] for s, _ in items if s.count(";")]
    firsts = [order.index(f) for f in ("wait_for_initramfs",
                                       "async_synchronize_full", "msleep")]
    assert firsts == sorted(firsts)
    assert order != sorted(order)


def test_holds_in_text_csv_json(tmp_path: Path) -> None:
    f = tmp_path / "holds.txt"
    f.write_text("".join(boot_with_holds().text()))
    text = run_ftd("boot", str(f)).stdout.decode()
    assert "Boot holds: 4 waits of the boot threads" in text
    row = [ln for ln in text.splitlines() if "wait_for_initramfs" in ln
           and "unpack-30" in ln][0]
    assert "init-1" in row and "59.960" in row and "unpack-30" in row
    assert "helper-40 (waking unpack-30)" in text
    rows = list(csv.DictReader(io.StringIO(run_ftd(
        "boot", str(f), "-f", "csv", "--table", "holds").stdout.decode())))
    assert [(r["wait_function"], r["blamed"], r["blamed_us"]) for r in rows] \
        == [("wait_for_initramfs", "unpack-30", "40460.000"),
            ("wait_for_initramfs", "helper-40 (waking unpack-30)",
             "19500.000"),
            ("async_synchronize_full", "async1-50", "50000.000"),
            ("async_synchronize_full", "async2-51", "29800.000"),
            ("msleep", "-", "0.000")]
    assert rows[-1]["unexplained_us"] == "10000.000"
    j = json.loads(run_ftd("boot", str(f), "-f", "json").stdout)
    hs = j["boot_holds"]["holds"]
    assert len(hs) == 4 and hs[0]["blamed"][1]["via"] == ["unpack-30"]
    assert j["boot_holds"]["events"]["sched_switch"] == 8
    folded_out = tmp_path / "boot.folded"
    svg = tmp_path / "boot.svg"
    run_ftd("boot", str(f), "--folded", str(folded_out), "--flame", str(svg))
    assert "THREAD helper-40;crc_work;crc32_le 19000.000" in \
        folded_out.read_text()
    ns = "{http://www.w3.org/2000/svg}"
    frames = [(g.get("data-n"), g.get("data-l"), float(g.get("data-s")),
               g.get("data-c")) for g in ET.parse(svg).getroot().iter(
                   ns + "g") if g.get("class") == "f"]
    colour = {(n, lv): c for n, lv, _, c in frames}
    assert colour[("THREAD unpack-30", "2")] == "#8a56cc"
    # a delay and what it calls are blue; other frames are not
    assert colour[("msleep", "1")] == "#3a78d8"
    x = [x for n, _, x, _ in frames if n == "msleep"][0]
    under = [(c, x1) for n, lv, x1, c in frames
             if n == "schedule" and lv == "2"]
    assert sorted(under, key=lambda u: abs(u[1] - x))[0][0] == "#3a78d8"
    assert any(c != "#3a78d8" for c, _ in under)
    assert colour[("kernel_init", "0")] not in ("#3a78d8", "#8a56cc")
    legend = svg.read_text()
    for text in ("delay loops and sleeps", "printk and console output",
                 "THREAD: the thread a hold is blamed on", "not traced"):
        assert text in legend


def test_no_sched_events(tmp_path: Path) -> None:
    lines = [ln for ln in boot_with_holds().text() if "sched_" not in ln]
    view, holds, col = analysed(lines)
    assert holds == [] and not col.sched
    f = tmp_path / "nosched.txt"
    f.write_text("".join(lines))
    r = run_ftd("boot", str(f))
    out = r.stdout.decode()
    assert "boot holds need the scheduler events; boot with %s " % \
        SCHED_CMDLINE in out
    assert SCHED_CMDLINE == ("trace_event=sched:sched_switch,"
                             "sched:sched_waking,sched:sched_wakeup,"
                             "sched:sched_wakeup_new")
    j = json.loads(run_ftd("boot", str(f), "-f", "json").stdout)
    assert j["boot_holds"]["holds"] == []
    assert "trace_event=" in j["boot_holds"]["note"]
    # the wait is still one call with nothing blamed in the chart
    items = dict(folded({"": merge(boot_stacks(view, col.tl, holds))},
                        first_seen=True))
    assert not any("THREAD" in s for s in items)


def test_bad_sched_event_names_file_and_line(tmp_path: Path) -> None:
    lines = boot_with_holds().text()
    i = [k for k, ln in enumerate(lines) if "sched_switch" in ln][0]
    lines[i] = lines[i].replace("prev_pid=1", "prev_pid=x")
    f = tmp_path / "bad.txt"
    f.write_text("".join(lines))
    r = run_ftd("boot", str(f))
    assert ("%s:%d: a sched_switch event not in the 6.12 format" % (
        f, i + 1)).encode() in r.stderr
    assert b"(left out)" in r.stderr and b"Traceback" not in r.stderr
    # the other waits are still found
    assert "Boot holds: 3 waits" in r.stdout.decode()


def test_holds_table_durations_with_units(tmp_path: Path) -> None:
    """The holds table's times go through human(), like every text
    table, each column as wide as its widest cell; CSV keeps plain
    microseconds, and the top functions in milliseconds."""
    f = tmp_path / "holds.txt"
    f.write_text("".join(boot_with_holds().text()))
    lines = run_ftd("boot", str(f)).stdout.decode().splitlines()
    head = [i for i, ln in enumerate(lines) if ln.startswith("Waiting ")][0]
    table = lines[head:head + 7]
    assert table[0] == (
        "Waiting Wait function             At(s)      Wait Blamed thread"
        "                   Blamed Unexplained Top functions of the blamed"
        " thread")
    assert set(table[1]) == {"-"} and len(table[1]) == len(table[0])
    assert table[2] == (
        "init-1  wait_for_initramfs     1.000040 59.960 ms unpack-30      "
        "              40.460 ms    0.000 us gunzip 28.000 ms, "
        "unpack_to_rootfs 10.910 ms, schedule 1.000 ms")
    assert table[3].endswith(
        " helper-40 (waking unpack-30) 19.500 ms             crc32_le "
        "19.000 ms, crc_work 490.000 us")
    assert table[6].endswith(
        " 1.200000 10.000 ms -                             0.000 us   "
        "10.000 ms")
    # the units of each column line up
    for unit_at in (table[0].index(" Wait Blamed") + 5,
                    table[0].index(" Blamed Unexplained") + 7,
                    table[0].index("Unexplained") + 11):
        assert {ln[unit_at - 3:unit_at] for ln in table[2:]
                if ln[unit_at - 1] != " "} <= {" ms", " us"}
    rows = list(csv.DictReader(io.StringIO(run_ftd(
        "boot", str(f), "-f", "csv", "--table", "holds").stdout.decode())))
    assert (rows[0]["wait_us"], rows[0]["blamed_us"],
            rows[0]["unexplained_us"], rows[0]["top"]) == (
        "59960.000", "40460.000", "0.000",
        "gunzip 28.000, unpack_to_rootfs 10.910, schedule 1.000")


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
