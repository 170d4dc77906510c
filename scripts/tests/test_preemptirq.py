# SPDX-License-Identifier: GPL-2.0
"""Host tests of the preempt/irq toggle benchmark's result parsing and
tables (scripts/bench/preemptirq/run.py); the guest side runs in the
benchmark itself."""

import importlib.util
import sys
from pathlib import Path

import pytest

RUN_PY = (Path(__file__).resolve().parent.parent / "bench" / "preemptirq"
          / "run.py")
spec = importlib.util.spec_from_file_location("preemptirq_run", RUN_PY)
assert spec and spec.loader
pirq = importlib.util.module_from_spec(spec)
sys.modules["preemptirq_run"] = pirq
spec.loader.exec_module(pirq)


def _bench(state: str, base: float) -> str:
    """The module's output for STATE, as guest.sh prefixes it."""
    lines = [f"bench {state} cpus 1 pairs 200000 batch 1000"]
    for i, kind in enumerate(["irq", "irqsave", "preempt", "loop"]):
        v = base + i
        lines.append(f"bench {state} {kind} avg_ns {v:.2f} median_ns "
                     f"{v - 0.5:.2f} p99_ns {v + 2:.2f}")
    return "\n".join(lines) + "\n"


STOCK = ("kernel 6.12.117 cpus 1\n" + _bench("off", 10.0)
         + "events off entries 0 overrun 0\nunsupported on\n")
IRQSOFF = ("kernel 6.12.117 cpus 1\n" + _bench("off", 20.0)
           + "events off entries 3 overrun 0\n" + _bench("on", 400.0)
           + "events on entries 52000 overrun 1148000\n"
           + "mix on irq_disable: 10\nmix on preempt_enable: 20\n")


def test_parse_result_fields() -> None:
    res = pirq.parse_result(IRQSOFF)
    assert res.kernel == "6.12.117" and res.cpus == 1
    assert res.states() == ["off", "on"]
    assert res.stats[("off", "irq")] == {
        "avg_ns": 20.0, "median_ns": 19.5, "p99_ns": 22.0}
    assert res.stats[("on", "preempt")]["avg_ns"] == 402.0
    assert res.header["on"] == {"cpus": 1, "pairs": 200000, "batch": 1000}
    assert res.events["on"] == (52000, 1148000)
    assert res.mix == {"irq_disable": 10, "preempt_enable": 20}
    stock = pirq.parse_result(STOCK)
    assert stock.states() == ["off"] and stock.unsupported == ["on"]


@pytest.mark.parametrize("bad", [
    "bench off irq avg_ns 1.00 median_ns 1.00\n",           # p99 missing
    "bench off irq avg_ns x median_ns 1.00 p99_ns 1.00\n",  # not a number
    "bench off not run\n",                                  # never ran
    "something else\n",
    "events on entries\n",
])
def test_parse_result_rejects_malformed(bad: str) -> None:
    with pytest.raises(SystemExit):
        pirq.parse_result("kernel 6.12.117 cpus 1\n" + bad)


def test_table_columns_and_percentages() -> None:
    results = {"benchpi-stock": pirq.parse_result(STOCK),
               "benchpi-irqsoff": pirq.parse_result(IRQSOFF)}
    configs = ["benchpi-stock", "benchpi-irqsoff"]
    assert pirq.columns(configs, results) == [
        ("benchpi-stock", "off"), ("benchpi-irqsoff", "off"),
        ("benchpi-irqsoff", "on")]
    lines = pirq.format_table(configs, results)
    assert lines[0] == "| pair | metric | stock | irqsoff | irqsoff+ |"
    irq_avg = next(x for x in lines if "local_irq_disable" in x
                   and "| avg |" in x)
    assert irq_avg == ("| local_irq_disable/enable | avg | 10.00 | "
                       "20.00 (2.00x) | 400.00 (40.00x) |")
    # the pair alone: its median less the loop's median, same column
    irq_net = next(x for x in lines if "local_irq_disable" in x
                   and "| median - loop |" in x)
    assert irq_net == ("| local_irq_disable/enable | median - loop | "
                       "-3.00 | -3.00 (1.00x) | -3.00 (1.00x) |")
    # the loop row is the floor: no ratios and no net row
    loop_rows = [x for x in lines if "empty loop" in x]
    assert len(loop_rows) == 3
    assert all("x)" not in x for x in loop_rows)
    events = pirq.format_events(configs, results)
    assert "- stock: no preemptirq events" in events
    assert "- irqsoff, events on: 1,200,000 events recorded " \
        "(1,148,000 of them overwritten)" in events
    assert "- irqsoff, events on, left in the buffer at the end: " \
        "irq_disable 10, preempt_enable 20" in events


def test_sizes_against_the_first_config() -> None:
    lines = pirq.format_sizes(["benchpi-stock", "benchpi-irqsoff"],
                              {"benchpi-stock": 1000000,
                               "benchpi-irqsoff": 1012345})
    assert lines[2] == "| stock | 1,000,000 | +0 (+0.000%) |"
    assert lines[3] == "| irqsoff | 1,012,345 | +12,345 (+1.234%) |"
