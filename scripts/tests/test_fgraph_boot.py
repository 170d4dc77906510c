# SPDX-License-Identifier: GPL-2.0
"""The early boot function graph buffer (CONFIG_FGRAPH_BOOT_BUFFER), booted.

The patched configs of 32-bit ARM and arm64 build it in but leave it off
at run time (CONFIG_FGRAPH_BOOT_BUFFER_DEFAULT_ON=n), so every test boots
each of them with its own fgraph_boot= options, copies the tracefs file
fgraph_boot_trace back and checks it here, and with ftd.  The first test
also boots the mcount config (ARM's -pg hook) and fgboot-arm64 (arm64
with KASLR and pointer authentication, without CALL_OPS), which build
the buffer in the same way.  One test reads the build instead of booting
it: what the graph handlers may call.
"""

from __future__ import annotations

import bisect
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from wbench import build as build_module  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
WORKBENCH = REPO / "scripts" / "workbench"
FTD = REPO / "tools" / "tracing" / "ftd" / "ftd"
TRACE = "/sys/kernel/tracing/fgraph_boot_trace"

# " 12.345678 |   0)   1.234 us    |    name();"
LINE_RE = re.compile(
    r" *(\d+)\.(\d{6}) \|  +(\d+)\) "
    r"(?:[ +!#*@$] (\d+(?:\.\d*)?) us +| {14})\|  ( *)(.*)$")
# function_graph's context switch lines: a rule,
# " 0)   <idle>-0    =>  comm-1", a rule and an empty line.  The first
# is the boot thread's move from init_task to pid 1; any later one, on
# another CPU, says that pid 1 moved there.
RULE = " " + "-" * 42
SWITCH_RE = re.compile(r" +(\d+)\)   <idle>-0    =>  (.+)-1$")

COPY = f"""
dmesg > /out/dmesg
if [ -e {TRACE} ]; then
    cat {TRACE} > /out/trace
    ls -l {TRACE} > /out/mode
fi
"""


def build(config: str) -> None:
    proc = subprocess.run([str(WORKBENCH), "build", config],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]


# One config per architecture, each with the hook in front of the
# prologue: every guest test runs on both.
KERNELS = ["patched", "patched-arm64"]


@pytest.fixture(scope="module", params=KERNELS)
def kernel(request: pytest.FixtureRequest) -> str:
    """A config of KERNELS, built."""
    build(request.param)
    return str(request.param)


# A hung guest fails its test after this many seconds, not the
# workbench's 600: the slowest test here (every call kept, on mcount)
# took 25 s on a 2-core host.
GUEST_TIMEOUT = 300


def boot(tmp_path: Path, append: str, config: str, smp: int = 1,
         script: str = COPY) -> Path:
    """Boot CONFIG with APPEND on the command line, run SCRIPT; the
    guest's /out."""
    job = tmp_path / "job.sh"
    job.write_text(script)
    out = tmp_path / "out"
    proc = subprocess.run(
        [str(WORKBENCH), "run", config, "--no-build", "--quiet",
         "--smp", str(smp), "--timeout", str(GUEST_TIMEOUT),
         "--append", append, "--out", str(out), str(job)],
        capture_output=True, text=True, timeout=GUEST_TIMEOUT + 60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


Call = Tuple[str, int, int]  # name, start ns, duration ns


def parse(text: str, switches: Optional[List[int]] = None
          ) -> Tuple[List[str], List[Call], List[int]]:
    """Header lines, completed calls in the order they ended, and the
    time of every line; fails on any line out of shape or brace out of
    place.  SWITCHES gets the number of calls completed before each
    switch to pid 1 (at most one, with no call open then).  Every line
    must be on the CPU of the last switch line."""
    header = [ln for ln in text.splitlines() if ln.startswith("#")]
    calls: List[Call] = []
    times: List[int] = []
    stack: List[Tuple[str, int]] = []
    seen: List[int] = []
    cpu = "0"
    for ln in text.splitlines():
        if ln.startswith("#") or ln == RULE or ln == "":
            continue
        sw = SWITCH_RE.match(ln)
        if sw and not seen:
            assert not stack, f"calls left open at the switch: {stack}"
            assert sw.group(1) == cpu, f"switch on another CPU: {ln!r}"
            seen.append(len(calls))
            continue
        if sw:
            assert sw.group(1) != cpu, f"move to the same CPU: {ln!r}"
            cpu = sw.group(1)
            continue
        m = LINE_RE.match(ln)
        assert m, f"malformed line: {ln!r}"
        assert m.group(3) == cpu, f"CPU {cpu} expected: {ln!r}"
        ts = int(m.group(1)) * 10**9 + int(m.group(2)) * 1000
        dur: Optional[int] = None
        if m.group(4) is not None:
            dur = int(float(m.group(4)) * 1000 + 0.5)
        indent, body = len(m.group(5)), m.group(6)
        # A closing line is indented like its opening line.
        depth = len(stack) - 1 if body.startswith("}") else len(stack)
        assert indent == 2 * depth, f"depth out of place: {ln!r}"
        times.append(ts)
        if body.endswith("() {"):
            assert dur is None
            stack.append((body[:-4], ts))
        elif body.endswith("();"):
            assert dur is not None
            calls.append((body[:-3], ts, dur))
        else:
            assert body.startswith("}") and dur is not None, ln
            assert stack, f"closing brace without an open call: {ln!r}"
            name, start = stack.pop()
            assert body == f"}} /* {name} */", ln
            calls.append((name, start, dur))
    assert not stack, f"calls left open: {stack}"
    assert len(seen) <= 1, f"{len(seen)} switches"
    if switches is not None:
        switches[:] = seen
    return header, calls, times


def header_value(header: List[str], key: str) -> str:
    for ln in header:
        if ln.startswith(f"# {key}: "):
            return ln[len(key) + 4:]
    raise AssertionError(f"no '{key}' in the header: {header}")


# "16383 of 16384 (24 bytes each), dropped calls: 1, too deep: 0,
#  no return address: 0"
RECORDS_RE = re.compile(r"(\d+) of (\d+) \(\d+ bytes each\), dropped calls: "
                        r"(\d+), too deep: (\d+), no return address: (\d+)$")


def records(header: List[str]) -> Tuple[int, int, int, int, int]:
    """The header's records line: used, size, dropped calls, too deep,
    no return address."""
    m = RECORDS_RE.match(header_value(header, "records"))
    assert m, header
    used, size, dropped, deep, no_ret = (int(g) for g in m.groups())
    return used, size, dropped, deep, no_ret


def ftd_report(trace: Path) -> str:
    proc = subprocess.run([str(FTD), "report", "--strict", str(trace)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


# patched hooks the traced functions in front of their prologue (the sites
# are made to call the buffer before start_kernel()), mcount with -pg.
@pytest.mark.parametrize("config", KERNELS + ["mcount", "fgboot-arm64"])
def test_records_from_start_kernel_with_threshold(tmp_path: Path,
                                                  config: str) -> None:
    build(config)
    thresh_us = 50
    out = boot(tmp_path, f"fgraph_boot=on fgraph_boot_thresh={thresh_us}",
               config=config)
    assert (out / "mode").read_text().startswith("-r--r-----")
    text = (out / "trace").read_text()
    switches: List[int] = []
    header, calls, times = parse(text, switches)
    assert header_value(header, "threshold").startswith(f"{thresh_us} us")
    assert "architecture counter" in header_value(header, "clock")
    # Without ftrace=function_graph the boot thread is recorded until
    # the late initcalls, unless the buffer fills up first; recording
    # then ends at the first call it had no room for.
    until = header_value(header, "fgraph_boot")
    full = until.endswith("until the buffer filled up")
    assert full or until.endswith(
        "until the late initcall that copies the records out"), until
    _, _, dropped, deep, no_ret = records(header)
    assert dropped == int(full) and no_ret == 0, header
    # On 64-bit machines fgraph's shadow stack (a page) holds half as many
    # calls: after sched_init() the deepest do not fit (see
    # test_counts_every_call_of_boot).
    assert deep == 0 or "arm64" in config, header

    body = [ln for ln in text.splitlines() if not ln.startswith("#")]
    assert body[0].endswith("|  start_kernel() {"), body[0]
    assert times == sorted(times), "times go backwards"

    # Recording goes on after ftrace_init(), through a graph tracer,
    # from sched_init() on: start_kernel()'s calls after it (time_init())
    # are there, then pid 1's (its initcalls) after the switch to it.
    m = re.match(r"counter (\d+) to (\d+) \((\d+) us\), from the end of "
                 r"ftrace_init\(\) to sched_init\(\)$",
                 header_value(header, "not recording"))
    assert m, header
    paused_from, paused_to = int(m.group(1)), int(m.group(2))
    assert paused_from < paused_to
    assert switches, "no switch to pid 1"
    before = [c[0] for c in calls[:switches[0]]]
    after = [c[0] for c in calls[switches[0]:]]
    assert "start_kernel" in before and "time_init" in before
    assert "start_kernel" not in after
    assert "do_one_initcall" in after and "kernel_init" in after

    names = [c[0] for c in calls]
    assert "setup_arch" in names
    assert "mm_core_init" in names
    # setup_arch() and some of its callees, each with its duration.
    sa = next(c for c in calls if c[0] == "setup_arch")
    inner = [c for c in calls
             if c[1] >= sa[1] and c[1] + c[2] <= sa[1] + sa[2] and c != sa]
    assert inner, "nothing recorded inside setup_arch()"
    # Every call is at least the threshold (the clock's rounding aside),
    # but the ones still running when recording stopped, closed then.
    short = [c for c in calls if c[2] < thresh_us * 1000 - 1000]
    assert not short, short[:5]

    (tmp_path / "trace.txt").write_text(text)
    report = ftd_report(tmp_path / "trace.txt")
    assert "setup_arch" in report and "start_kernel" in report


MAIN_COPY = f"""
echo 0 > /sys/kernel/tracing/tracing_on
cat {TRACE} > /out/early.txt
cd /sys/kernel/tracing
echo 1 > options/funcgraph-abstime
echo 1 > options/funcgraph-cpu
echo 1 > options/funcgraph-proc
cat trace > /out/main.txt
"""


def test_hands_off_to_the_regular_tracer(tmp_path: Path, kernel: str) -> None:
    out = boot(tmp_path,
               "fgraph_boot=on fgraph_boot_thresh=100 ftrace=function_graph "
               "tracing_thresh=100 "
               "trace_options=funcgraph-thresh-tree,nooverwrite",
               kernel, script=MAIN_COPY)
    switches: List[int] = []
    header, calls, times = parse((out / "early.txt").read_text(), switches)
    assert header_value(header, "fgraph_boot").endswith(
        "until another function graph user started"), header
    assert times == sorted(times)
    assert switches and "do_one_initcall" in \
        [c[0] for c in calls[switches[0]:]]
    # The early records end before the main buffer's calls begin (ftd
    # refuses inputs whose calls overlap), and what lies between is
    # short: the end of init_graph_trace() after the tracer started,
    # and calls under the threshold on either side (about 2 ms under
    # TCG; before the early buffer went on past ftrace_init(), this was
    # the whole hand-off, about 90 ms under icount).
    res = subprocess.run([str(FTD), "boot", "--format", "json",
                          str(out / "main.txt"), str(out / "early.txt")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    view = json.loads(res.stdout)
    between = [g for g in view["gaps"] if "early.txt" in g["what"]]
    assert sum(g["time_us"] for g in between) < 10000, between


def test_two_cpus(tmp_path: Path, kernel: str) -> None:
    # smp_init() brings up the second CPU while the early buffer's graph
    # user records pid 1: its idle task is forked with a shadow stack,
    # which fgraph used to warn about; and pid 1 may move between CPUs.
    out = boot(tmp_path, "fgraph_boot=on fgraph_boot_thresh=100 "
               "ftrace=function_graph tracing_thresh=100", kernel, smp=2)
    dmesg = (out / "dmesg").read_text()
    assert "smp: Brought up 1 node, 2 CPUs" in dmesg, dmesg[-2000:]
    for bad in ("WARNING:", "BUG:", "Oops", "Unable to handle"):
        assert bad not in dmesg, dmesg[dmesg.index(bad) - 200:][:3000]
    switches: List[int] = []
    header, calls, times = parse((out / "trace").read_text(), switches)
    assert times == sorted(times)
    assert header_value(header, "fgraph_boot").endswith(
        "until another function graph user started"), header
    after = [c[0] for c in calls[switches[0]:]]
    assert "smp_init" in after and "do_one_initcall" in after
    # ftd follows pid 1 from CPU to CPU, its calls still nested
    ftd_report(out / "trace")


def test_two_cpus_until_the_late_initcall(tmp_path: Path,
                                          kernel: str) -> None:
    # Without a regular tracer, pid 1 is recorded through the initcalls,
    # where it may move to the other CPU (it did in a trial boot): the
    # lines say on which CPU, and a switch line marks each move (parse()
    # checks).
    out = boot(tmp_path, "fgraph_boot=on fgraph_boot_thresh=100", kernel,
               smp=2)
    dmesg = (out / "dmesg").read_text()
    assert "smp: Brought up 1 node, 2 CPUs" in dmesg, dmesg[-2000:]
    text = (out / "trace").read_text()
    header, calls, times = parse(text)
    assert times == sorted(times)
    # (the 256 KiB buffer may fill up in the initcalls first)
    assert header_value(header, "fgraph_boot").endswith(
        ("until the late initcall that copies the records out",
         "until the buffer filled up")), header
    assert "do_one_initcall" in [c[0] for c in calls]
    ftd_report(out / "trace")


def test_no_threshold_fills_the_buffer_cleanly(tmp_path: Path,
                                               kernel: str) -> None:
    out = boot(tmp_path, "fgraph_boot=on fgraph_boot_thresh=0", kernel)
    text = (out / "trace").read_text()
    header, calls, times = parse(text)
    used, size, dropped, _, _ = records(header)
    # With every call kept, early boot needs more than the default
    # buffer: it fills, recording stops, the rest is counted, and what was
    # recorded is still whole.
    assert dropped > 0
    assert size - 64 <= used <= size
    assert times == sorted(times)
    assert calls[-1][0] == "start_kernel"
    # Every call is kept: the first after start_kernel() is its first
    # traced callee (init/main.c), so none before it was missed.
    body = [ln for ln in text.splitlines() if not ln.startswith("#")]
    assert body[0].endswith("|  start_kernel() {"), body[0]
    assert body[1].endswith("|    set_task_stack_end_magic();"), body[1]


def test_bad_values_warn_and_keep_the_defaults(tmp_path: Path,
                                               kernel: str) -> None:
    # "1" too: the documented words only, the ones arm64 reads before
    # start_kernel() as well
    out = boot(tmp_path, "fgraph_boot=1 fgraph_boot_thresh=10us "
               "fgraph_boot_count=lots", kernel)
    dmesg = (out / "dmesg").read_text()
    assert "fgraph_boot=1: expected on or off, keeping off" in dmesg
    assert "fgraph_boot_thresh=10us: expected microseconds" in dmesg
    assert "fgraph_boot_count=lots: expected on or off, keeping on" in dmesg
    # Off by default in this config: nothing kept, no file.
    assert not (out / "trace").exists()


def test_bad_threshold_keeps_the_build_time_one(tmp_path: Path,
                                                kernel: str) -> None:
    out = boot(tmp_path, "fgraph_boot=on fgraph_boot_thresh=-5", kernel)
    header, calls, _ = parse((out / "trace").read_text())
    assert header_value(header, "threshold") == \
        "10 us (CONFIG_FGRAPH_BOOT_BUFFER_THRESH)"
    assert "fgraph_boot_thresh=-5: expected" in (out / "dmesg").read_text()


COUNTS = "/sys/kernel/tracing/trace_stat/fgraph_boot"
# A work item makes the file once a grace period after the counts end:
# give it up to 10 s after /init starts.
COUNT_COPY = COPY + f"""
i=0
while [ ! -e {COUNTS} ] && [ $i -lt 10 ]; do sleep 1; i=$((i + 1)); done
if [ -e {COUNTS} ]; then
    cat {COUNTS} > /out/counts
fi
"""
# "  do_one_initcall    520    441035.2 us    848.144 us    1506.3 us"
COUNT_RE = re.compile(r"  (\S+) +(\d+) +(\d+(?:\.\d*)?) us +"
                      r"(\d+(?:\.\d*)?) us +(\d+(?:\.\d*)?) us *$")


def read_counts(text: str) -> List[Tuple[str, int, float, float]]:
    """Name, hits, total and average us of each row; fails on a line out
    of the function profiler's layout.  Static functions of different
    files may share a name."""
    lines = text.splitlines()
    assert lines[0].split() == ["Function", "Hit", "Time", "Avg", "s^2"]
    assert lines[1].split() == ["--------", "---", "----", "---", "---"]
    rows = []
    for ln in lines[2:]:
        m = COUNT_RE.match(ln)
        assert m, ln
        rows.append((m.group(1), int(m.group(2)), float(m.group(3)),
                     float(m.group(4))))
    return rows


def hits(rows: List[Tuple[str, int, float, float]], name: str) -> int:
    found = [r[1] for r in rows if r[0] == name]
    assert len(found) == 1, f"{name}: {found}"
    return found[0]


# The counts are the early buffer's graph user's own: with the regular
# tracer started at core_initcall (ftrace=function_graph) or without it,
# every initcall is counted once, on both CPUs.
@pytest.mark.parametrize("main_tracer", [False, True])
def test_counts_every_call_of_boot(tmp_path: Path, kernel: str,
                                   main_tracer: bool) -> None:
    append = ("fgraph_boot=on fgraph_boot_thresh=100 initcall_debug "
              "log_buf_len=1M")
    if main_tracer:
        append += " ftrace=function_graph tracing_thresh=100"
    out = boot(tmp_path, append, kernel, smp=2, script=COUNT_COPY)
    dmesg = (out / "dmesg").read_text()
    # fgraph's shadow stack is a page: on 64-bit machines it holds half
    # as many calls, and the deepest of boot find no room there (the
    # trace's header counts them as too deep); the kernel log says that
    # they were not counted.
    bads = ["WARNING:", "BUG:", "Oops"]
    if not kernel.endswith("arm64"):
        bads.append("not counted")
    for bad in bads:
        assert bad not in dmesg, dmesg[dmesg.index(bad) - 200:][:3000]
    # The initcalls of pid 1 go through do_one_initcall(); the console's
    # (con_init, "@ 0") are called from console_init() directly.
    initcalls = len(re.findall(r"^calling  .* @ 1$", dmesg, re.M))
    assert initcalls > 100, dmesg[-2000:]
    rows = read_counts((out / "counts").read_text())
    assert hits(rows, "do_one_initcall") == initcalls
    # Calls far shorter than the threshold are counted too, and some
    # functions are called thousands of times.
    assert any(avg < 10 for _, _, _, avg in rows)
    assert max(n for _, n, _, _ in rows) > 1000
    # Before ftrace_init() (the mcount hook) and after sched_init()
    assert hits(rows, "setup_arch") == 1 and hits(rows, "time_init") == 1
    totals = [t for _, _, t, _ in rows]
    assert totals == sorted(totals, reverse=True), "not most time first"


def test_no_counts_when_off(tmp_path: Path, kernel: str) -> None:
    out = boot(tmp_path, "", kernel, script=COUNT_COPY)
    assert not (out / "counts").exists()


PID1_COPY = """
echo 0 > /sys/kernel/tracing/tracing_on
dmesg > /out/dmesg
echo 1 > /sys/kernel/tracing/options/funcgraph-proc
cat /sys/kernel/tracing/trace > /out/main
"""
# "  0)  swapper-1    | ! 105123.4 us |  } /* synchronize_rcu_tasks_generic */"
PID1_RE = re.compile(r"^ *\d+\) +\S+-1 +\|")


# The early buffer's graph user goes without a grace period on pid 1's
# path: when the regular tracer has started and the records alone are
# kept (an initcall lets it go, early: the main buffer must not
# overwrite it), and when the counts end in kernel_init() (late: the
# main buffer must keep its newest events).  The regular tracer, on from
# the core initcalls, sees every wait of 100 us or more.
@pytest.mark.parametrize("count", ["off", "on"])
def test_graph_user_goes_without_a_grace_period(tmp_path: Path, kernel: str,
                                                count: str) -> None:
    append = (f"fgraph_boot=on fgraph_boot_thresh=100 "
              f"fgraph_boot_count={count} "
              "ftrace=function_graph tracing_thresh=100")
    if count == "off":
        append += " trace_options=nooverwrite"
    out = boot(tmp_path, append, kernel, smp=2, script=PID1_COPY)
    dmesg = (out / "dmesg").read_text()
    for bad in ("WARNING:", "BUG:", "Oops"):
        assert bad not in dmesg, dmesg[dmesg.index(bad) - 200:][:3000]
    lines = (out / "main").read_text().splitlines()
    assert any(PID1_RE.match(ln) for ln in lines), "\n".join(lines[:40])
    waits = [ln for ln in lines
             if PID1_RE.match(ln) and "synchronize_rcu_tasks" in ln]
    assert not waits, "\n".join(waits)


# The graph handlers run inside function_graph_enter() and
# return_to_handler, which in 6.12 do not guard against a handler that
# calls a traced function: that call would run the handlers inside
# themselves.  They may call out only from the window in which their
# task's graph tracing is paused.  (arm64's arch_spin_lock() calls the
# traced queued_spin_lock_slowpath() when two CPUs contend, rarely: this
# reads the build instead of waiting for the race.)
HANDLERS = ["fgraph_boot_graph_entry", "fgraph_boot_graph_return"]
PAUSED = {"fgraph_boot_lock_irqsave"}
# "\tbl\tffff80008011b248 <fgraph_retrieve_data>"; a branch within a
# function names it with an offset and does not match
BRANCH_RE = re.compile(r"\t(?:b|bl|blx|b\.?[a-z]{2}|cbn?z|tbn?z)"
                       r"(?:\.[wn])?\t(?:\w+, )*[0-9a-f]+ <([\w.]+)>$")
INDIRECT_RE = re.compile(r"\t(?:blr|blx)\t[xr]\d+$")


def tool_output(*argv: str) -> str:
    return subprocess.run(argv, capture_output=True, text=True,
                          check=True).stdout


def traced_functions(tools: str, vmlinux: Path
                     ) -> Tuple[Dict[str, Tuple[int, int]], Set[str]]:
    """vmlinux's functions (start, end), and those with an ftrace call
    site in __mcount_loc: in the function, or in the NOPs just in front
    of it (arm64's CALL_OPS puts two there)."""
    funcs: Dict[str, Tuple[int, int]] = {}
    marks: Dict[str, int] = {}
    for line in tool_output(tools + "nm", "-S", "--defined-only",
                            str(vmlinux)).splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTwW" and int(f[1], 16):
            funcs[f[3]] = (int(f[0], 16), int(f[0], 16) + int(f[1], 16))
        elif f and f[-1] in ("__start_mcount_loc", "__stop_mcount_loc"):
            marks[f[-1]] = int(f[0], 16)
    dump = tool_output(tools + "objdump", "-s",
                       f"--start-address={marks['__start_mcount_loc']}",
                       f"--stop-address={marks['__stop_mcount_loc']}",
                       str(vmlinux))
    data = bytearray()
    for line in dump.splitlines():
        # " c08af0a8 0c810008 1c810008 2c810008 3c810008  ...."
        m = re.match(r" [0-9a-f]+ ((?:[0-9a-f]{2,8} ?){1,4})", line)
        if m:
            data += bytes.fromhex(m.group(1).replace(" ", ""))
    width = 8 if marks["__start_mcount_loc"] > 0xFFFFFFFF else 4
    spans = sorted((start, end, name) for name, (start, end) in funcs.items())
    starts = [start for start, _, _ in spans]
    traced = set()
    for i in range(0, len(data) - width + 1, width):
        site = int.from_bytes(data[i:i + width], "little")
        j = bisect.bisect_right(starts, site) - 1
        if j >= 0 and site < spans[j][1]:
            traced.add(spans[j][2])
        elif j + 1 < len(spans) and spans[j + 1][0] - site <= 8:
            traced.add(spans[j + 1][2])
    # A relocatable kernel's __mcount_loc holds zeros until it boots
    assert len(traced) > 1000, f"only {len(traced)} traced functions found"
    return funcs, traced


def test_graph_handlers_call_nothing_traced(kernel: str) -> None:
    """Every function the handlers reach by direct calls, but through
    PAUSED, is untraced; symbols without a size (assembly) are not
    followed."""
    config = build_module.KernelConfig.load(kernel)
    tools = config.arch.cross_compile
    vmlinux = config.build_dir / "vmlinux"
    funcs, traced = traced_functions(tools, vmlinux)
    seen = set(HANDLERS)
    todo = list(HANDLERS)
    problems = []
    while todo:
        name = todo.pop()
        start, end = funcs[name]
        for line in tool_output(tools + "objdump", "-d", "--no-show-raw-insn",
                                f"--start-address={start}",
                                f"--stop-address={end}",
                                str(vmlinux)).splitlines():
            if INDIRECT_RE.search(line):
                problems.append(f"{name}: an indirect call: {line.strip()}")
            m = BRANCH_RE.search(line)
            callee = m.group(1) if m else name
            if callee == name or callee in seen or callee not in funcs:
                continue
            seen.add(callee)
            if callee in traced:
                problems.append(f"{name} calls {callee}, which is traced")
            elif callee not in PAUSED:
                todo.append(callee)
    assert PAUSED <= seen, f"{PAUSED} inlined or gone: check by hand"
    assert not problems, "\n".join(problems)
