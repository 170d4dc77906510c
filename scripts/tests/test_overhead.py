# SPDX-License-Identifier: GPL-2.0
"""Host tests of the find /sys overhead benchmark's table
(scripts/bench/fgraph-overhead/run.py --report on made-up results); the
guest side runs in make bench."""

import subprocess
import sys
from pathlib import Path

RUN_PY = (Path(__file__).resolve().parent.parent / "bench" / "fgraph-overhead"
          / "run.py")


def write_result(keep: Path, config: str, state: str, lines: str) -> None:
    d = keep / f"{config}-{state}"
    d.mkdir(parents=True)
    (d / "result.txt").write_text(f"state {state}\nkernel 6.12.117\n" + lines)


def report(keep: Path, only: str = "notrace,benchfg-fentry",
           *options: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(RUN_PY), "--report", str(keep),
         "--only", only, *options],
        capture_output=True, text=True, check=True)
    return proc.stdout


def row(out: str, label: str) -> list:
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == label:
            return cells
    raise AssertionError(f"no row {label!r} in:\n{out}")


def test_calls_counted_in_the_round(tmp_path: Path) -> None:
    """Each traced round is divided by the calls it traced itself: two
    events per call under function_graph, and the rounds scaled to ten
    iterations of find /sys."""
    write_result(tmp_path, "notrace", "notrace",
                 "iterations 10\nelapsed_ns 600000000\n"
                 "elapsed_ns 600000000\nelapsed_ns 600000000\n")
    write_result(tmp_path, "benchfg-fentry", "nop",
                 "iterations 10\nelapsed_ns 620000000\n"
                 "calls_per_iteration 1000000\n")
    # Rounds of one iteration, scaled to ten: 1.6 s and 1.8 s, over
    # 1.0 M and 1.2 M calls (2.0 M and 2.4 M events): 1,000 per call
    # above TRACE=n's 0.6 s in both
    write_result(tmp_path, "benchfg-fentry", "graph",
                 "iterations 1\nelapsed_ns 160000000\n"
                 "events_written 200000\nelapsed_ns 180000000\n"
                 "events_written 240000\n")
    out = report(tmp_path)
    graph = row(out, "graph (fentry)")
    assert graph[-2] == "1,100,000"
    assert graph[-1] == "1,000"
    # Over the profiler's count of the nop round: (1.7 s - 0.6 s) / 10 M
    assert graph[-3] == "110"
    assert "graph (fentry): 1000000, 1200000" in out


def test_rounds_without_counts_show_no_in_round_figure(
        tmp_path: Path) -> None:
    write_result(tmp_path, "notrace", "notrace",
                 "iterations 10\nelapsed_ns 600000000\n")
    write_result(tmp_path, "benchfg-fentry", "function",
                 "iterations 1\nelapsed_ns 100000000\n")
    function = row(report(tmp_path), "function (fentry)")
    assert function[-2:] == ["-", "-"]


def test_fentry_rows_run_on_a_variant_config(tmp_path: Path) -> None:
    """--fentry-config puts a variant of benchfg-fentry in the fentry
    rows, under its own name, against the same TRACE=n floor."""
    write_result(tmp_path, "notrace", "notrace",
                 "iterations 10\nelapsed_ns 600000000\n")
    write_result(tmp_path, "benchfg-fentry-lpae", "function",
                 "iterations 1\nelapsed_ns 100000000\n"
                 "events_written 100000\n")
    out = report(tmp_path, "notrace,benchfg-fentry-lpae",
                 "--fentry-config", "benchfg-fentry-lpae")
    function = row(out, "function (benchfg-fentry-lpae)")
    assert function[1] == "benchfg-fentry-lpae"
    # (1.0 s - 0.6 s) / 1 M calls, the round scaled to ten iterations
    assert function[-1] == "400"
    assert "(fentry)" not in out
