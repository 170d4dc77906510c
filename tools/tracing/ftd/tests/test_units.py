# SPDX-License-Identifier: GPL-2.0
"""Text tables print durations with units, aligned, the way uftrace
and perf do; CSV and JSON keep plain microseconds.  A text report says
first what the order of its rows means."""

from __future__ import annotations

import csv
import io
import json

from conftest import DATA_DIR, run_ftd

NESTED = DATA_DIR / "nested_thresh.txt"


def text(*args: str) -> str:
    return run_ftd(*args).stdout.decode()


def test_report_durations_have_units_and_line_up() -> None:
    rows = text("report", str(NESTED)).splitlines()
    assert rows[0] == ("# By total time, largest first: callees and time "
                       "asleep included (-s oncpu: time on the CPU)")
    assert rows[1].split() == ["Function", "Count", "Total", "Avg", "Min",
                               "Max", "Local"]
    cells = {r.split()[0]: r for r in rows[3:]}
    # 1234567 us: seconds; 2100 us: ms; 99.5 us: us
    assert "1.235  s" in cells["very_slow"]
    assert "2.100 ms" in cells["do_one_initcall"]
    assert " 99.500 us" in cells["do_one_initcall"]
    # each column's units end under the end of its header
    for head in ("Total", "Avg", "Min", "Max", "Local"):
        end = rows[1].index(head) + len(head)
        assert {r[end - 2:end] for r in rows[3:]} <= {"us", "ms", " s"}, (
            head, rows)
        assert all(r[end - 3] == " " and r[end - 4].isdigit()
                   for r in rows[3:]), (head, rows)


def test_csv_and_json_keep_microseconds() -> None:
    out = text("report", "-f", "csv", str(NESTED))
    got = {r["function"]: r for r in csv.DictReader(io.StringIO(out))}
    assert got["very_slow"]["total_us"] == "1234567.000"
    js = json.loads(text("report", "-f", "json", str(NESTED)))
    assert {r["function"]: r["total_us"] for r in js}["very_slow"] == \
        1234567.0


def test_report_says_what_its_order_means() -> None:
    first = text("report", "-s", "local", "-r", str(NESTED)).splitlines()[0]
    assert first == ("# By local time, smallest first: total less the "
                     "callees' time")
    first = text("report", "-s", "count,function",
                 str(NESTED)).splitlines()[0]
    assert first == "# By number of calls, largest first; then by function"


def test_slowest_and_callers_use_units() -> None:
    out = text("slowest", str(NESTED), "very_slow").splitlines()
    assert out[1].split()[0] == "Duration"
    assert out[3].split()[:2] == ["1.235", "s"]
    out = text("callers", str(NESTED), "driver_probe").splitlines()
    assert out[0].startswith("driver_probe: 1 calls, 1.800 ms total, "
                             "300.500 us local")
