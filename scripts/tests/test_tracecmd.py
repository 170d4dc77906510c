# SPDX-License-Identifier: GPL-2.0
"""trace-cmd, as kernel developers capture function_graph, on the
patched kernel, read back with the host's trace-cmd and with ftd.

One boot of the patched kernel with two CPUs and Debian's armhf
trace-cmd (`workbench run --with trace-cmd`) makes two captures of the
same workload, function_graph filtered to sys_getdents64 with
tracing_thresh and funcgraph-thresh-tree:

record
    `trace-cmd record -k -b 32`: its per-CPU recorders splice pages out
    of trace_pipe_raw while the workload runs (small buffers, so that
    they wake up during the run: checked with the stats' "read events"
    before trace-cmd stops), a consuming reader that the ring buffer
    rewind must survive.  `-k` keeps the buffers, so the per-CPU stats
    (rewinds refused among them) are read in the guest after the run.
    The data itself is consumed: the tracefs `trace` file has nothing
    of this run left to compare with.  So ftd's reading of `trace-cmd
    report` is checked against the same trace.dat decoded another way:
    `trace-cmd report -R` prints each event's raw fields, and every
    funcgraph_exit carries its own calltime and rettime.  The calls ftd
    counts, (task, function, printed duration), must be those of the
    raw exits, one for one (but for the cuts below).
extract
    `trace-cmd start`, the workload, `trace-cmd stop`; then the tracefs
    `trace` file is read (it does not consume), and only then `trace-cmd
    extract` takes the same buffers into a trace.dat.  That is the
    comparison with "the same run's tracefs text": ftd on the kernel's
    own text and ftd on `trace-cmd report` of the extracted data must
    give the same calls (task, CPU, function, duration, start).  No
    reader runs while the workload does, so this capture does not
    exercise the rewind against a reader; the record capture does.

For each capture, on the raw events and by ftd's counters:

- The trace nests: per task, an exit closes the call opened last at
  its depth, each call lies within its caller by calltime and rettime,
  and no call is left open.  One thing is allowed: calls one level
  deeper than the calls open.  fgraph lowers a task's depth only after
  the return callbacks ran, so an interrupt taken in that window (after
  the tracer rewound a short call's entry) records its calls at the
  short call's depth + 1 and under no entry.  It is not rare: an
  interrupt that fell due while the return callback ran with interrupts
  off (a timer tick, most often) is taken as soon as the callback
  enables them again, inside that window.  Such calls must be what the
  interrupt entry calls (IRQ_ENTRY): anything else one level too deep
  would be a slow call lost with both its entry and its return.  ftd
  must count exactly those calls as having an unknown caller, not guess
  one.
- ftd pairs a return with its entry only if the entry's stamp is within
  200 us of the return's stamp less the printed duration.  An event's
  stamp is taken when it is written, calltime and rettime when the
  function is entered and left; under TCG on a busy host the vCPU may
  stall between the two (one run in four or so has a return written
  300 us after its rettime).  ftd then ends the calls open there (calls
  cut, and the return counted as contradicting its entry): it may do so
  only at returns whose raw stamps, calltime and rettime disagree that
  much, and only with the calls open there.
- No call is shorter than tracing_thresh, except as many per CPU as
  that CPU's stats say rewinds were refused (an entry a reader had
  already taken cannot be rewound, so its short call stays).

Make check builds the patched kernel before this step; run alone,
build it first (`scripts/workbench build patched`): the test boots the
last build as it is (`--no-build`).
"""

from __future__ import annotations

import collections
import json
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Counter, Dict, List, Optional, Tuple

import pytest

REPO = Path(__file__).resolve().parents[2]
WORKBENCH = REPO / "scripts" / "workbench"
FTD = REPO / "tools" / "tracing" / "ftd" / "ftd"
THRESH_US = 100
GRAPH_FUNCTION = "sys_getdents64"
WORKLOAD = "find /sys/kernel/mm /sys/devices/system"
# The record capture runs the workload RECORD_RUNS times (one run
# fills about a page) into buffers of RECORD_BUFFER_KB per CPU.  The
# reader of trace_pipe_raw sleeps until the buffer is buffer_percent
# (50 %) full: with the default 1.4 MB per CPU trace-cmd would read
# nothing before it stops tracing; with 32 KB it splices pages out
# every 16 KB while the workload runs.
RECORD_RUNS = 20
RECORD_BUFFER_KB = 32

# Shell functions of the job, also sourced by the shell that trace-cmd
# record runs (sh -c does not inherit them).
FUNCTIONS = """
T=/sys/kernel/tracing
stats() {
    echo "buffer_size_kb: $(cat $T/buffer_size_kb)"
    for d in $T/per_cpu/cpu*; do echo "${d##*/}"; cat "$d/stats"; done
}
settings() {
    for f in tracing_thresh current_tracer set_graph_function \\
            options/funcgraph-thresh-tree; do
        echo "$f: $(cat $T/$f)"
    done
}
"""

JOB = f"""
. /in/functions.sh
echo {THRESH_US} > $T/tracing_thresh
trace-cmd record -k -b {RECORD_BUFFER_KB} -p function_graph \\
    -g {GRAPH_FUNCTION} -O funcgraph-thresh-tree -o /out/record.dat \\
    sh -c '. /in/functions.sh; settings > /out/record-settings
           for i in $(seq {RECORD_RUNS}); do {WORKLOAD} > /dev/null; done
           stats > /out/record-stats-before-stop' \\
    > /out/record.log 2>&1 || {{
    cat /out/record.log; exit 10; }}
stats > /out/record-stats

echo nop > $T/current_tracer
echo 1408 > $T/buffer_size_kb   # the default, which record -b changed
echo {THRESH_US} > $T/tracing_thresh
trace-cmd start -p function_graph -g {GRAPH_FUNCTION} \\
    -O funcgraph-thresh-tree > /out/start.log 2>&1 || {{
    cat /out/start.log; exit 11; }}
settings > /out/extract-settings
{WORKLOAD} > /dev/null
trace-cmd stop
echo 1 > $T/options/funcgraph-abstime
echo 1 > $T/options/funcgraph-proc
cat $T/trace > /out/extract-trace.txt
cat /proc/kallsyms > /out/kallsyms
stats > /out/extract-stats
trace-cmd extract -o /out/extract.dat > /out/extract.log 2>&1 || {{
    cat /out/extract.log; exit 12; }}
exit 0
"""

# `trace-cmd report -R -t`: "comm-pid [CPU] TS: funcgraph_entry: func=F
# depth=D" and "... funcgraph_exit: func=F retval=R depth=D overrun=O
# calltime=0x... rettime=0x..."
RAW_RE = re.compile(r"^\s*(.+)-(\d+)\s+\[(\d+)\]\s+(\d+\.\d+): "
                    r"funcgraph_(entry|exit):\s+(.*)$")
STAT_RE = re.compile(r"^cpu(\d+)$")

Call = Tuple[int, str, int]  # pid, function, duration ns

# What ARM's interrupt entry (__irq_svc, whose generic_handle_arch_irq
# is noinstr) calls first, on QEMU's virt machine with its GIC: the
# only calls that may appear one level too deep (see the docstring).
IRQ_ENTRY = ("gic_handle_irq", "irq_enter", "irq_exit",
             "preempt_schedule_irq")


@pytest.fixture(scope="module")
def guest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Boot once, make both captures; the guest's /out."""
    if shutil.which("trace-cmd") is None:
        pytest.fail("no trace-cmd on the host: run scripts/install-deps")
    tmp = tmp_path_factory.mktemp("tracecmd")
    job = tmp / "job.sh"
    job.write_text(JOB)
    (tmp / "functions.sh").write_text(FUNCTIONS)
    out = tmp / "out"
    proc = subprocess.run(
        [str(WORKBENCH), "run", "patched", "--no-build", "--quiet",
         "--smp", "2", "--with", "trace-cmd",
         "--file", f"functions.sh={tmp / 'functions.sh'}",
         "--out", str(out), str(job)],
        capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for name in ("record-stats-before-stop", "record-stats",
                 "extract-stats"):
        print(f"--- {name}: per-CPU stats")
        print((out / name).read_text())
    return out


def report(dat: Path, *args: str) -> str:
    proc = subprocess.run(["trace-cmd", "report", *args, str(dat)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def report_file(out: Path, name: str) -> Path:
    """`trace-cmd report` of NAME.dat, saved beside it."""
    path = out / f"{name}-report.txt"
    if not path.exists():
        path.write_text(report(out / f"{name}.dat"))
    return path


def ftd(*args: str) -> str:
    proc = subprocess.run([str(FTD), *args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc.stdout


def ftd_calls(trace: Path) -> List[Dict[str, object]]:
    """Every call ftd counts, one record each (`ftd slowest '*'`)."""
    return list(json.loads(ftd("slowest", "--strict", "-f", "json",
                               "-n", "1000000", str(trace), "*")))


def per_cpu(stats: str, key: str) -> Dict[int, int]:
    """One counter of every CPU, from the stats() dump of the job."""
    got: Dict[int, int] = {}
    cpu = -1
    for line in stats.splitlines():
        m = STAT_RE.match(line)
        if m:
            cpu = int(m.group(1))
        elif line.startswith(f"{key}:"):
            got[cpu] = int(line.split(":")[1])
    assert got, stats
    return got


def refused(stats: str) -> Dict[int, int]:
    """Rewinds refused per CPU."""
    return per_cpu(stats, "rewinds refused")


# How far apart ftd lets an entry's stamp and its return's stamp less
# the printed duration be (Documentation/tools/ftd/ftd.rst, "INPUT
# FORMAT"): farther apart, it ends the task's open calls there.
SKEW_NS = 200_000


@dataclass
class Frame:
    """An open call; func None for the rewound call under a gap."""
    func: Optional[str]
    depth: int
    stamp: int = 0    # the entry event's time stamp, ns
    children: List[Tuple[int, int]] = field(default_factory=list)
    skewed: bool = False


@dataclass
class Raw:
    """The calls of `trace-cmd report -R -t` output and how they nest."""
    calls: List[Tuple[int, Call]] = field(default_factory=list)  # exit CPU
    errors: List[str] = field(default_factory=list)
    # calls one level deeper than the calls open, and their siblings:
    # they interrupted the return of a call that was rewound (see the
    # module docstring), so their caller is not in the trace
    gaps: List[str] = field(default_factory=list)
    # the calls open at a return whose event stamps disagree with its
    # calltime and rettime by more than SKEW_NS, and that return's
    # call: ftd may end them there (calls_cut)
    skewed: Counter[Call] = field(default_factory=collections.Counter)
    skewed_returns: int = 0  # the returns themselves


def stamp_ns(text: str) -> int:
    sec, frac = text.split(".")
    return int(sec) * 10**9 + int(frac.ljust(9, "0"))


def raw_calls(text: str) -> Raw:
    """Per task: an entry's depth is the number of calls open, or one
    more (a gap); an exit closes the call opened last at its depth (same
    function); each call lies within its caller by calltime and rettime;
    no call is left open."""
    raw = Raw()
    open_: Dict[int, List[Frame]] = collections.defaultdict(list)

    def close_gaps(stack: List[Frame], depth: int, n: int) -> None:
        # the call whose return was interrupted has returned by now
        while len(stack) > depth and stack[-1].func is None:
            stack.pop()
        if len(stack) > depth:
            raw.errors.append(f"line {n}: depth {depth}, but "
                              f"{[(f.func, f.depth) for f in stack]} "
                              "are open")

    for n, line in enumerate(text.splitlines(), 1):
        m = RAW_RE.match(line)
        if not m:
            continue
        pid, cpu, kind = int(m.group(2)), int(m.group(3)), m.group(5)
        stamp = stamp_ns(m.group(4))
        fields = dict(f.split("=", 1) for f in m.group(6).split()
                      if "=" in f)
        func, depth = fields["func"], int(fields["depth"])
        stack = open_[pid]
        if kind == "entry":
            close_gaps(stack, depth, n)
            if depth == len(stack) + 1:
                stack.append(Frame(None, len(stack)))
            elif depth != len(stack):
                raw.errors.append(f"line {n}: depth {depth} with "
                                  f"{len(stack)} calls open: {line.strip()}")
                continue
            if stack and stack[-1].func is None:
                raw.gaps.append(line.strip())
                if func not in IRQ_ENTRY:
                    raw.errors.append(f"line {n}: {func} one level too "
                                      "deep, not called from an interrupt "
                                      f"entry: {line.strip()}")
            stack.append(Frame(func, depth, stamp))
            continue
        start, end = int(fields["calltime"], 0), int(fields["rettime"], 0)
        call = (pid, func, end - start)
        raw.calls.append((cpu, call))
        close_gaps(stack, depth + 1, n)
        if not stack or (stack[-1].func, stack[-1].depth) != (func, depth):
            raw.errors.append(f"line {n}: closes {func} at depth {depth}, "
                              "open: "
                              f"{[(f.func, f.depth) for f in stack]}")
            continue
        frame = stack.pop()
        if abs((stamp - end) - (frame.stamp - start)) > SKEW_NS:
            raw.skewed_returns += 1
            frame.skewed = True
            for f in stack:
                f.skewed = True
        if frame.skewed:
            raw.skewed[call] += 1
        for c_start, c_end in frame.children:
            if c_start < start or c_end > end:
                raw.errors.append(f"line {n}: {func} [{start}, {end}] does "
                                  f"not hold a callee at [{c_start}, {c_end}]")
        # the caller of a call under a gap is the call below the gap
        for f in reversed(stack):
            if f.func is not None:
                f.children.append((start, end))
                break
    for pid, stack in open_.items():
        if any(f.func is not None for f in stack):
            raw.errors.append(f"pid {pid}: calls never closed: "
                              f"{[(f.func, f.depth) for f in stack]}")
    return raw


_raw: Dict[Path, Raw] = {}


def raw_of(dat: Path) -> Raw:
    """raw_calls() of a trace.dat, once."""
    if dat not in _raw:
        _raw[dat] = raw_calls(report(dat, "-R", "-t"))
    return _raw[dat]


def short_calls(calls: List[Tuple[int, Call]]) -> Counter[int]:
    return collections.Counter(cpu for cpu, (_, _, dur) in calls
                               if dur < THRESH_US * 1000)


def check_settings(out: Path, name: str) -> None:
    text = (out / f"{name}-settings").read_text()
    for want in (f"tracing_thresh: {THRESH_US}",
                 "current_tracer: function_graph",
                 f"set_graph_function: {GRAPH_FUNCTION}",
                 "options/funcgraph-thresh-tree: 1"):
        assert want in text.splitlines(), text


def ftd_pairs(trace: Path) -> Counter[Call]:
    return collections.Counter(
        (int(str(c["task"]).rsplit("-", 1)[1]), str(c["function"]),
         round(float(str(c["duration_us"])) * 1000))
        for c in ftd_calls(trace))


@pytest.mark.parametrize("name", ["record", "extract"])
def test_nested(guest: Path, name: str) -> None:
    check_settings(guest, name)
    raw = raw_of(guest / f"{name}.dat")
    assert raw.calls, "no calls traced"
    assert not raw.errors, "\n".join(raw.errors[:20])
    print(f"{name}: {len(raw.calls)} calls, {len(raw.gaps)} under a "
          "rewound call's interrupted return, "
          f"{sum(raw.skewed.values())} open at a return whose stamps "
          "disagree with its calltime and rettime")
    for line in raw.gaps:
        print(f"  {line}")
    info = json.loads(ftd("info", "--strict", "-f", "json",
                          str(report_file(guest, name))))
    assert info["tracer"] == "function_graph (trace-cmd report)"
    for key in ("malformed", "returns_without_entry", "entries_without_return",
                "lost_returns", "returns_not_paired_by_time",
                "lost_event_markers"):
        assert info[key] == 0, (key, info[key])
    # ftd does not guess the caller that the trace does not have; nor
    # that of a cut call's return (below), left bare, an unnamed call
    unknown = info["calls_with_unknown_caller"]
    assert len(raw.gaps) <= unknown <= len(raw.gaps) + info["calls_cut"]
    # ftd ends the calls open at a return whose stamps disagree with its
    # duration, the only returns it may call contradicting their entry
    assert info["returns_contradicting_entry"] <= raw.skewed_returns
    assert info["calls_cut"] <= sum(raw.skewed.values())
    assert info["calls_counted"] == len(raw.calls) - info["calls_cut"]


@pytest.mark.parametrize("name", ["record", "extract"])
def test_no_call_below_the_threshold(guest: Path, name: str) -> None:
    raw = raw_of(guest / f"{name}.dat")
    below = short_calls(raw.calls)
    allowed = refused((guest / f"{name}-stats").read_text())
    print(f"{name}: {len(raw.calls)} calls, below {THRESH_US} us per CPU: "
          f"{dict(below)}, rewinds refused per CPU: {allowed}")
    # ftd sees the same short calls in the report's printed durations,
    # but for those it cut (test_nested)
    short = collections.Counter(call for _, call in raw.calls
                                if call[2] < THRESH_US * 1000)
    printed = collections.Counter(
        call for call in ftd_pairs(report_file(guest, name)).elements()
        if call[2] < THRESH_US * 1000)
    assert not printed - short
    assert not (short - printed) - raw.skewed
    over = {cpu: n for cpu, n in below.items() if n > allowed.get(cpu, 0)}
    assert not over, (f"{name}: calls below {THRESH_US} us per CPU "
                      f"{dict(below)}, rewinds refused {allowed}")


def test_record_reader_ran_during_the_workload(guest: Path) -> None:
    """trace-cmd's recorders consumed pages while the workload ran, not
    only when trace-cmd stopped tracing and read what was left."""
    during = per_cpu((guest / "record-stats-before-stop").read_text(),
                     "read events")
    after = per_cpu((guest / "record-stats").read_text(), "read events")
    print(f"record: events read per CPU before the stop {during}, "
          f"in all {after}")
    assert sum(during.values()) > 0


def test_record_ftd_matches_raw_events(guest: Path) -> None:
    raw = raw_of(guest / "record.dat")
    want = collections.Counter(call for _, call in raw.calls)
    got = ftd_pairs(report_file(guest, "record"))
    assert not got - want, f"only in ftd: {list((got - want).items())[:10]}"
    # what ftd leaves out, it cut where the stamps disagree
    missing = want - got
    assert not missing - raw.skewed, \
        f"only raw: {list((missing - raw.skewed).items())[:10]}"


def kallsyms(path: Path) -> Dict[str, str]:
    """Symbol name -> address, from the guest's /proc/kallsyms."""
    names: Dict[str, str] = {}
    for line in path.read_text().splitlines():
        addr, _, name = line.split()[:3]
        names.setdefault(name, addr)
    return names


def test_extract_ftd_matches_tracefs_text(guest: Path) -> None:
    """ftd on the kernel's text and on trace-cmd's report of the same
    buffers: the same calls, with two differences the sources make.
    The kernel names a function by one symbol and trace-cmd may pick an
    alias at the same address (sys_getdents64, __se_sys_getdents64), so
    functions are compared by address; the kernel cuts its time stamps
    to the microsecond and trace-cmd rounds them, so starts may differ by
    1 us; the kernel prints at most 7 digits of a duration (12392.19 us
    for 12392.192 us), so durations are compared to the digits it
    prints."""
    addr = kallsyms(guest / "kallsyms")

    def kernel_digits(ns: int) -> int:
        # trace_print_graph_duration(): 7 - (digits of the us) decimals
        unit: int = 10 ** max(0, len(str(ns // 1000)) - 4)
        return ns // unit * unit

    def per_call(trace: Path) -> List[Tuple[Tuple[int, int, str, int],
                                            int, str]]:
        calls = []
        for c in ftd_calls(trace):
            func = str(c["function"])
            assert func in addr, f"{trace.name}: {func} not in kallsyms"
            # The tracefs text cuts the task name to 7 characters: the pid.
            key = (int(str(c["task"]).rsplit("-", 1)[1]), int(str(c["cpu"])),
                   addr[func], kernel_digits(
                       round(float(str(c["duration_us"])) * 1000)))
            calls.append((key, round(float(str(c["start_s"])) * 1e6), func))
        return sorted(calls)

    from_text = per_call(guest / "extract-trace.txt")
    from_tc = per_call(report_file(guest, "extract"))
    assert from_text, "no calls in the tracefs text"
    keys_text = collections.Counter(c[0] for c in from_text)
    keys_tc = collections.Counter(c[0] for c in from_tc)
    assert keys_text == keys_tc, (
        f"only in the text: {list((keys_text - keys_tc).items())[:10]}, "
        f"only in trace-cmd: {list((keys_tc - keys_text).items())[:10]}")
    moved = [(a, b) for a, b in zip(from_text, from_tc)
             if abs(a[1] - b[1]) > 1]
    assert not moved, moved[:10]
    renamed = {(a[2], b[2]) for a, b in zip(from_text, from_tc)
               if a[2] != b[2]}
    print(f"extract: {len(from_text)} calls alike; named differently: "
          f"{sorted(renamed)}")
