# SPDX-License-Identifier: GPL-2.0
"""Host tests of the boot benchmark's clocks and coverage arithmetic
(scripts/bench/boot/run.py); the guest side runs in make bench."""

import importlib.util
import sys
from pathlib import Path

import pytest

RUN_PY = (Path(__file__).resolve().parent.parent / "bench" / "boot"
          / "run.py")
spec = importlib.util.spec_from_file_location("boot_run", RUN_PY)
assert spec and spec.loader
boot = importlib.util.module_from_spec(spec)
sys.modules["boot_run"] = boot
spec.loader.exec_module(boot)

# A counter at 62.5 MHz: 16 ns a tick.
EARLY = """# tracer: function_graph
#
# fgraph_boot: function calls from start_kernel() to ftrace_init()
# clock: architecture counter at 62500000 Hz
# threshold: 100 us (fgraph_boot_thresh=)
# recorded: 1500 us, counter 125000 to 218750
# local_clock() was 5000000 ns at counter 375000
# records: 4 of 16384 (16 bytes each), dropped calls: 7, too deep: 0, no return address: 0
#
    0.002000 |   0)               |  start_kernel() {
    0.002100 |   0) ! 200.000 us  |    setup_arch();
    0.003500 |   0) $ 1500000 us  |  } /* start_kernel */
"""


def guest_out(tmp_path: Path, early: str = EARLY) -> Path:
    """A boot's /out: the sync line at 12 ms of local_clock() read at
    counter 1,000,000 (16 ms since reset), so local_clock() 0 is 4 ms
    after reset; /init at 10 ms local (14 ms); start_kernel() at 2 ms;
    the early buffer from 2 ms to 3.5 ms; the early initcalls at 3 ms
    local (7 ms) and init_graph_trace() done at 5 ms local (9 ms)."""
    d = tmp_path / "out"
    d.mkdir()
    (d / "result.txt").write_text(
        "cntvct 62500000 999990 1000010\n"
        "stats entries: 5\nstats dropped events: 0\nstats overrun: 0\n"
        "done\n")
    (d / "kmsg.txt").write_text(
        "5,0,0,-;Linux version 6.12.117\n"
        "6,93,10000,-;Run /init as init process\n"
        " SUBSYSTEM=none\n"
        "12,99,12000,-;boot-bench: sync\n")
    (d / "insns.txt").write_text("insns 2000000\n")
    (d / "early.txt").write_text(early)
    (d / "main.txt").write_text(
        "# tracer: function_graph\n"
        "    0.005100 |   0)     init-1     | + 25.168 us   |  foo();\n"
        "    0.009000 |   0)     init-1     | ! 200.000 us  |  bar();\n")
    (d / "events.txt").write_text(
        "          <idle>-0       [000] ...1.     0.000077: initcall_level: "
        "level=console\n"
        "            init-1       [000] .....     0.003000: initcall_level: "
        "level=early\n"
        "            init-1       [000] .....     0.005000: initcall_finish: "
        "func=init_graph_trace+0x0/0x84 ret=0\n")
    return d


def test_clocks_put_printk_times_on_the_counter(tmp_path: Path) -> None:
    run = boot.Run("x", "patched", "", "cov", 100)
    b = boot.Boot(run, guest_out(tmp_path))
    assert b.start == 2_000_000
    assert b.local(0.0) == pytest.approx(4_000_000)
    assert b.init == pytest.approx(14_000_000)
    assert b.boot_ns == pytest.approx(12_000_000)
    assert b.early is not None and b.early.dropped == 7
    assert b.cnt(b.early.last) == pytest.approx(3_500_000)


def test_coverage_names_every_gap_and_adds_up(tmp_path: Path) -> None:
    run = boot.Run("x", "patched", "", "cov", 100)
    b = boot.Boot(run, guest_out(tmp_path))
    covered, gaps = boot.coverage(b, b.start)
    spans = [(round(a / 1e3), round(z / 1e3)) for a, z, _ in gaps]
    assert spans == [(3500, 4000), (4000, 4077), (4077, 7000), (7000, 9000)]
    names = [n for _, _, n in gaps]
    assert names[0] == ("end of the early buffer (ftrace_init()) to "
                        "time_init()")
    assert names[-1].startswith("initcall level early to ftrace=")
    # early 1.5 ms + main 5 ms
    assert covered == pytest.approx(6_500_000)
    assert covered + sum(z - a for a, z, _ in gaps) == \
        pytest.approx(b.boot_ns)


# The same boot with the graph tracer hand-off: the early buffer
# records until 3.5 ms but not from 2.5 ms (end of ftrace_init()) to
# 2.8 ms (sched_init()), and stops when the main tracer starts.
EARLY_GRAPH = EARLY.replace(
    "function calls from start_kernel() to ftrace_init()",
    "function calls of the boot thread from start_kernel() until another "
    "function graph user started\n"
    "# not recording: counter 156250 to 175000 (300 us), from the end of "
    "ftrace_init() to sched_init()")


def test_coverage_leaves_out_the_pause_of_the_early_buffer(
        tmp_path: Path) -> None:
    b = boot.Boot(boot.Run("x", "patched", "", "cov", 100),
                  guest_out(tmp_path, EARLY_GRAPH))
    assert b.early is not None
    assert b.early.until == "another function graph user started"
    covered, gaps = boot.coverage(b, b.start)
    spans = [(round(a / 1e3), round(z / 1e3)) for a, z, _ in gaps]
    assert spans[0] == (2500, 2800)
    assert gaps[0][2] == ("end of ftrace_init() (early buffer paused) to "
                          "sched_init() (early buffer records again)")
    assert gaps[1][2].startswith("end of the early buffer (its graph "
                                 "tracer stopped) to time_init()")
    # early 1.5 ms less the 0.3 ms pause, main 5 ms
    assert covered == pytest.approx(6_200_000)
    assert covered + sum(z - a for a, z, _ in gaps) == \
        pytest.approx(b.boot_ns)


def test_without_early_buffer_the_gap_starts_at_start_kernel(
        tmp_path: Path) -> None:
    d = guest_out(tmp_path)
    (d / "early.txt").unlink()
    b = boot.Boot(boot.Run("x", "fgboot-off", "", "cov", 100), d)
    covered, gaps = boot.coverage(b, b.start)
    assert gaps[0][0] == b.start
    assert gaps[0][2] == "start_kernel() to time_init()"
    assert covered == pytest.approx(5_000_000)


def test_early_file_must_begin_with_start_kernel(tmp_path: Path) -> None:
    bad = EARLY.replace("start_kernel() {", "setup_arch() {", 1)
    with pytest.raises(SystemExit):
        boot.Boot(boot.Run("x", "patched", "", "cov", 100),
                  guest_out(tmp_path, bad))


def test_each_architectures_configs_and_default_buffer() -> None:
    # the default buffers of ARM32 (256 KiB of 16-byte records) and
    # arm64 (384 KiB of 24-byte records) hold the same number of records
    for arch, (on, off) in boot.CONFIGS.items():
        assert boot.config_arch(on) == boot.config_arch(off) == arch
        assert boot.boot_buffer_kib(on) * 1024 // boot.REC_BYTES[arch] \
            == 16384


def test_size_table_compares_with_the_architectures_buffer(
        tmp_path: Path) -> None:
    early = EARLY.replace("dropped calls: 7", "dropped calls: 0").replace(
        "16 bytes each", "24 bytes each")
    run = boot.Run("on-100us.1", "patched-arm64", "", "boot", 100)
    b = boot.Boot(run, guest_out(tmp_path, early))
    table = boot.size_table({run.name: b}, [run], "arm64")
    assert "fits the default 384 KiB" in table[0]
    # 4 records of 24 bytes, in the default buffer
    assert table[2].split(" | ")[5:7] == ["0.1", "yes"]
