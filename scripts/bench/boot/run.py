#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Early boot function graph buffer: boot time, coverage and buffer size.

Boots the patched kernel (CONFIG_FGRAPH_BOOT_BUFFER=y) and the same
config without the buffer (fgboot-off) under -icount shift=0,sleep=off
with "scripts/workbench run CONFIG --icount", once per run below, and
measures on the guest's own clock; on 32-bit ARM by default, on arm64
with --arch arm64 (patched-arm64 and fgboot-off-arm64), or on the
architecture of --on-config:

- boot time, from the first instruction of start_kernel() to the
  "Run /init as init process" printk (the exec of /init follows it
  directly): config off; config on with fgraph_boot=off; and
  fgraph_boot=on at each --thresholds value, the main tracer off, with
  the counts of every call (trace_stat/fgraph_boot) and without them
  (fgraph_boot_count=off);
- the static buffer needed to hold the early records at each
  threshold (start_kernel() to ftrace_init(), then the boot thread
  from sched_init() to the late initcalls), from the records the
  buffer kept and the calls it dropped;
- coverage: the share of start_kernel() to /init during which a
  function_graph tracer was recording, with the early buffer plus
  "ftrace=function_graph tracing_thresh=T" on the command line, and
  without the early buffer (upstream's best), at each --cov-thresholds
  value; every stretch no tracer covers is named with its length.

Clocks: the architecture counter (CNTVCT, CNTVCT_EL0 on arm64, 62.5 MHz
on QEMU 7.2's virt machine, counting virtual time from the reset of the
machine) is the common timeline.  A QEMU TCG
plugin (start-insns.c) counts the guest instructions until
start_kernel() first runs; with -icount shift=0 that is its time in ns,
since nothing waits before it.  printk's clock (local_clock()) is put on
the counter by a guest helper (cntvct.c) that reads the counter on both
sides of a write to /dev/kmsg.  The main trace buffer uses the same
local_clock(); the early buffer's records are counter readings.
"""

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from wbench import benchjob, build  # noqa: E402

# Each architecture's kernel with the early buffer, and the same without it
CONFIGS = {"arm": ("patched", "fgboot-off"),
           "arm64": ("patched-arm64", "fgboot-off-arm64")}
# sizeof(struct fgraph_boot_rec): a u64 time, an unsigned long and a u32,
# padded to 8 bytes on 64-bit
REC_BYTES = {"arm": 16, "arm64": 24}
# compiler options of the guest helper cntvct.c
CNTVCT_CFLAGS = {"arm": ["-march=armv7-a", "-marm"], "arm64": []}
KCONFIG_BUFFER_KIB = 256  # CONFIG_FGRAPH_BOOT_BUFFER_SIZE's default
MAIN_BUF_SIZE = "32M"   # trace_buf_size= of the coverage runs


def main_opts(buf_size: str) -> str:
    """The coverage runs' options of the main tracer, after tracing_thresh."""
    return ("trace_options=funcgraph-thresh-tree,nooverwrite "
            f"trace_buf_size={buf_size} "
            "trace_event=initcall:initcall_finish "
            "trace_instance=boot,initcall:initcall_level,"
            "initcall:initcall_finish")


FTD = REPO / "tools" / "tracing" / "ftd" / "ftd"


class Run:
    """One boot: its name, kernel config and command line."""

    def __init__(self, name: str, config: str, append: str, kind: str,
                 thresh: Optional[int] = None) -> None:
        self.name, self.config, self.append = name, config, append
        self.kind, self.thresh = kind, thresh


def plan(thresholds: List[int], cov: List[int], repeat: int,
         buf_size: str = MAIN_BUF_SIZE, on: str = CONFIGS["arm"][0],
         off: str = CONFIGS["arm"][1]) -> List[Run]:
    runs = []
    for i in range(1, repeat + 1):
        runs.append(Run(f"config-off.{i}", off, "", "boot"))
        runs.append(Run(f"tracer-off.{i}", on, "fgraph_boot=off",
                        "boot"))
        for t in thresholds:
            runs.append(Run(f"on-{t}us.{i}", on,
                            f"fgraph_boot=on fgraph_boot_thresh={t}",
                            "boot", t))
            # the records alone, without the counts of every call
            runs.append(Run(f"on-{t}us-nocount.{i}", on,
                            f"fgraph_boot=on fgraph_boot_thresh={t} "
                            "fgraph_boot_count=off", "boot", t))
    for t in cov:
        main = (f"ftrace=function_graph tracing_thresh={t} "
                f"{main_opts(buf_size)}")
        runs.append(Run(f"cov-early-{t}us", on,
                        f"fgraph_boot=on fgraph_boot_thresh={t} {main}",
                        "cov", t))
        runs.append(Run(f"cov-upstream-{t}us", off, main, "cov", t))
    return runs


# ---------------------------------------------------------------- parsing

class Early:
    """The header of fgraph_boot_trace."""

    def __init__(self, text: str) -> None:
        def get(regex: str) -> Tuple[str, ...]:
            m = re.search(regex, text, re.M)
            if not m:
                raise SystemExit(f"early file: no match for {regex!r}")
            return m.groups()
        self.freq = int(get(r"^# clock: architecture counter at (\d+) Hz")[0])
        self.thresh = int(get(r"^# threshold: (\d+) us")[0])
        first, last = get(r"^# recorded: \d+ us, counter (\d+) to (\d+)")
        self.first, self.last = int(first), int(last)
        self.until = get(r"^# fgraph_boot: function calls (?:of the boot "
                         r"thread )?from start_kernel\(\) (?:until|to) "
                         r"(.*)$")[0]
        # Since the graph tracer hand-off: the stretch from the end of
        # ftrace_init() to sched_init() that nothing records.
        m = re.search(r"^# not recording: counter (\d+) to (\d+)", text,
                      re.M)
        self.pause = (int(m.group(1)), int(m.group(2))) if m else None
        recs = get(r"^# records: (\d+) of (\d+) \((\d+) bytes each\), "
                   r"dropped calls: (\d+), too deep: (\d+), "
                   r"no return address: (\d+)")
        (self.records, self.capacity, self.rec_bytes, self.dropped,
         self.too_deep, self.unhooked) = map(int, recs)
        body = [ln for ln in text.splitlines() if not ln.startswith("#")]
        if not body or not body[0].endswith("start_kernel() {"):
            raise SystemExit("early file: the first record is not "
                             "start_kernel()")


class Boot:
    """What one boot measured; times in ns since the machine's reset."""

    def __init__(self, run: Run, outdir: Path) -> None:
        self.run = run
        self.outdir = outdir
        text = (outdir / "result.txt").read_text()
        res = text.split()
        if res[:1] != ["cntvct"] or "done" not in res:
            raise SystemExit(f"{outdir}: bad result.txt")
        self.freq = int(res[1])
        sync_cnt = (int(res[2]) + int(res[3])) / 2
        self.sync_err_ns = (int(res[3]) - int(res[2])) / 2 * 1e9 / self.freq
        self.stats: Dict[str, int] = {}
        for m in re.finditer(r"stats ([a-z ]+): (\d+)\b", text):
            self.stats[m.group(1)] = self.stats.get(m.group(1), 0) \
                + int(m.group(2))
        kmsg = kmsg_times(outdir / "kmsg.txt")
        if "sync" not in kmsg or "init" not in kmsg:
            raise SystemExit(f"{outdir}: no sync or /init line in kmsg.txt")
        # local_clock() ns -> ns since reset, through the counter
        self.offset = sync_cnt * 1e9 / self.freq - kmsg["sync"]
        self.init = self.local(kmsg["init"])
        # Without icount (--smp above 1) there is no instruction count:
        # times are then from the machine's reset.
        self.start = 0
        if (outdir / "insns.txt").exists():
            n = re.search(r"insns (\d+)",
                          (outdir / "insns.txt").read_text())
            if not n:
                raise SystemExit(f"{outdir}: no instruction count")
            self.start = int(n.group(1))
        self.early: Optional[Early] = None
        if (outdir / "early.txt").exists():
            self.early = Early((outdir / "early.txt").read_text())
        self.main: Optional[Dict[str, object]] = None
        if (outdir / "main.txt").exists():
            self.main = main_trace(outdir, self.local)

    def local(self, ns: float) -> float:
        return ns + self.offset

    def cnt(self, ticks: int) -> float:
        return ticks * 1e9 / self.freq

    @property
    def boot_ns(self) -> float:
        return self.init - self.start


def kmsg_times(path: Path) -> Dict[str, float]:
    """local_clock() ns of the printk lines the benchmark needs."""
    out: Dict[str, float] = {}
    for line in path.read_text(errors="replace").splitlines():
        m = re.match(r"\d+,\d+,(\d+),[^;]*;(.*)", line)
        if not m:
            continue
        ns, text = int(m.group(1)) * 1000.0, m.group(2)
        if text.startswith("Run /init as init process"):
            out["init"] = ns
        elif text.startswith("boot-bench: sync"):
            out["sync"] = ns
    return out


TRACE_RE = re.compile(r"\s*(\d+)\.(\d{6}) \|")
EVENT_RE = re.compile(r"\s(\d+)\.(\d{6}): initcall_(level|finish): "
                      r"(?:level=(\w+)|func=(\w+)\+)")


def main_trace(outdir: Path, local) -> Dict[str, object]:  # type: ignore
    """First and last function_graph line of the main buffer, the
    initcall levels and the end of init_graph_trace() (which starts
    ftrace=function_graph), all in ns since reset.  The main buffer is
    reset when the tracer starts, so the initcall events come from the
    instance "boot" (events.txt); the start of sched_clock in
    time_init(), local_clock() 0, is one more mark."""
    first = last = None
    levels: List[Tuple[float, str]] = [(local(0.0), "time_init()")]
    graph_on = None
    for line in (outdir / "main.txt").open(errors="replace"):
        m = TRACE_RE.match(line)
        if not m:
            continue
        ns = local(int(m.group(1)) * 1e9 + int(m.group(2)) * 1e3)
        body = line.rsplit("|", 1)[-1].strip()
        if body.startswith("/*"):
            if "initcall_finish: func=init_graph_trace+" in body:
                graph_on = ns
            continue
        if first is None:
            first = ns
        last = ns
    events = outdir / "events.txt"
    if events.exists():
        for m in EVENT_RE.finditer(events.read_text(errors="replace")):
            ns = local(int(m.group(1)) * 1e9 + int(m.group(2)) * 1e3)
            if m.group(3) == "level":
                levels.append((ns, f"initcall level {m.group(4)}"))
            elif m.group(5) == "init_graph_trace":
                graph_on = ns
    return {"first": first, "last": last, "levels": sorted(levels),
            "graph_on": graph_on}


# ---------------------------------------------------------------- tables

def ms(ns: float) -> str:
    return f"{ns / 1e6:,.3f}"


def boot_table(boots: Dict[str, Boot], runs: List[Run]) -> List[str]:
    """One row per run: start_kernel() to time_init() (interrupts off,
    no waiting: the same in every boot of a run), time_init() to /init
    and the sum, the fastest boot of the run, and its spread."""
    groups: Dict[str, List[Boot]] = {}
    for r in runs:
        if r.kind == "boot" and r.name in boots:
            groups.setdefault(r.name.rsplit(".", 1)[0], []).append(
                boots[r.name])
    if not groups:
        return []

    def best(bs: List[Boot]) -> Boot:
        return min(bs, key=lambda b: b.boot_ns)

    def median(bs: List[Boot]) -> float:
        ns = sorted(b.boot_ns for b in bs)
        mid = len(ns) // 2
        return ns[mid] if len(ns) % 2 else (ns[mid - 1] + ns[mid]) / 2

    ref = best(groups["config-off"]) if "config-off" in groups else None
    lines = ["| run | kernel | command line | boots | start_kernel() at "
             "(ms) | start_kernel() to time_init() (ms) | time_init() to "
             "/init (ms) | start_kernel() to /init (ms) | vs config off | "
             "median boot (ms) | slowest boot (ms) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, bs in groups.items():
        b = best(bs)
        early = b.local(0.0) - b.start
        late = b.init - b.local(0.0)
        vs = "-" if not ref or name == "config-off" else (
            f"{100 * (b.boot_ns - ref.boot_ns) / ref.boot_ns:+.3f}% "
            f"({(b.boot_ns - ref.boot_ns) / 1e6:+,.3f} ms)")
        slow = max(bs, key=lambda b: b.boot_ns)
        lines.append(
            f"| {name} | {b.run.config} | `{b.run.append or '(none)'}` | "
            f"{len(bs)} | {ms(b.start)} | {ms(early)} | {ms(late)} | "
            f"{ms(b.boot_ns)} | {vs} | {ms(median(bs))} | "
            f"{ms(slow.boot_ns)} |")
    return lines


def size_table(boots: Dict[str, Boot], runs: List[Run],
               arch: str = "arm") -> List[str]:
    """Records needed at each threshold, against the buffer of ARCH's
    default config (the on config of CONFIGS)."""
    default_kib = boot_buffer_kib(CONFIGS[arch][0])
    default_recs = default_kib * 1024 // REC_BYTES[arch]
    lines = ["| threshold | records kept | dropped calls | too deep | "
             "records needed | buffer needed (KiB) | fits the default "
             f"{default_kib} KiB | recorded until |",
             "|---|---|---|---|---|---|---|---|"]
    seen = set()
    for r in runs:
        b = boots.get(r.name)
        if r.kind != "boot" or not b or not b.early or r.thresh in seen:
            continue
        seen.add(r.thresh)
        e = b.early
        if e.until == "the buffer filled up":
            # the graph tracer's recording ended at the first call that
            # found no room: what the rest needed is not known
            need = f"more than {e.records:,}"
            kib = f"more than {e.records * e.rec_bytes / 1024:,.1f}"
        elif e.dropped == 0:
            need = f"{e.records:,}"
            kib = f"{e.records * e.rec_bytes / 1024:,.1f}"
        elif e.thresh == 0:
            # every call keeps its entry and its exit at threshold 0
            n = e.records + 2 * e.dropped
            need = f"{n:,}"
            kib = f"{n * e.rec_bytes / 1024:,.1f}"
        else:
            n = e.records + 2 * e.dropped
            need = f"{e.records:,} to {n:,}"
            kib = (f"{e.records * e.rec_bytes / 1024:,.1f} to "
                   f"{n * e.rec_bytes / 1024:,.1f}")
        # the run's buffer may be larger than the default one
        whole = e.dropped == 0 and e.until != "the buffer filled up"
        fits = "yes" if whole and e.records <= default_recs else "no"
        lines.append(f"| {e.thresh} us | {e.records:,} of {e.capacity:,} | "
                     f"{e.dropped:,} | {e.too_deep:,} | {need} | {kib} | "
                     f"{fits} | {e.until} |")
    return lines if len(lines) > 2 else []


def coverage(b: Boot, start_kernel: float) -> Tuple[float, List[Tuple[
        float, float, str]]]:
    """Covered ns and the named gaps of one coverage boot."""
    end = b.init
    spans: List[Tuple[float, float, str]] = []
    spans.extend(early_spans(b))
    mt = b.main or {}
    graph_on = mt.get("graph_on")
    if graph_on is not None:
        stop = end
        if b.stats.get("dropped events", 0):
            stop = min(end, float(mt["last"]))  # type: ignore[arg-type]
        spans.append((float(graph_on), stop, "main"))  # type: ignore
    gaps = []
    t = start_kernel
    prev = "start_kernel()"
    levels = mt.get("levels") or []
    for a, z, what in sorted(spans):
        if a > t:
            gaps.extend(split_gap(t, a, prev, what, levels))  # type: ignore
        t = max(t, z)
        prev = what
    if t < end:
        gaps.append((t, end, f"after the {prev} tracer stopped "
                     "(main buffer full)" if prev == "main" else
                     f"after {prev}"))
    covered = (end - start_kernel) - sum(z - a for a, z, _ in gaps)
    return covered, gaps


def early_spans(b: Boot) -> List[Tuple[float, float, str]]:
    """The stretches the early buffer recorded: start_kernel() to its
    end, or to ftrace_init() and from sched_init() to its end."""
    e = b.early
    if not e:
        return []
    if not e.pause:
        return [(b.cnt(e.first), b.cnt(e.last), "early")]
    return [(b.cnt(e.first), b.cnt(e.pause[0]), "early-paused"),
            (b.cnt(e.pause[1]), b.cnt(e.last), "early-graph")]


def split_gap(a: float, z: float, prev: str, nxt: str,
              levels: List[Tuple[float, str]]) -> List[Tuple[float, float,
                                                             str]]:
    """Name the pieces of a gap by the marks (time_init(), initcall
    levels) that fall in it."""
    if prev == "start_kernel()" and nxt in ("early", "early-paused"):
        return [(a, z, "start_kernel() entry to its first record (its "
                 "mcount call)")]
    names = [{"start_kernel()": "start_kernel()",
              "early": "end of the early buffer (ftrace_init())",
              "early-paused": "end of ftrace_init() (early buffer paused)",
              "early-graph": "end of the early buffer (its graph tracer "
                             "stopped)"}[prev]]
    cuts = [a]
    for t, what in levels:
        if a < t < z:
            cuts.append(t)
            names.append(what)
    cuts.append(z)
    names.append("sched_init() (early buffer records again)"
                 if nxt == "early-graph" else
                 "ftrace=function_graph on (end of init_graph_trace())")
    return [(cuts[i], cuts[i + 1], f"{names[i]} to {names[i + 1]}")
            for i in range(len(cuts) - 1)]


def cov_table(boots: Dict[str, Boot], runs: List[Run]) -> List[str]:
    lines = []
    for r in runs:
        b = boots.get(r.name)
        if r.kind != "cov" or not b:
            continue
        covered, gaps = coverage(b, b.start)
        total = b.boot_ns
        what = ("early buffer + ftrace=function_graph" if b.early else
                "ftrace=function_graph only (upstream's best)")
        lines.append(f"\n**{r.name}** ({r.config}, {what}, thresholds "
                     f"{r.thresh} us): start_kernel() to /init "
                     f"{ms(total)} ms, covered {ms(covered)} ms = "
                     f"**{100 * covered / total:.2f}%**; main buffer: "
                     f"{b.stats.get('entries', 0):,} events kept, "
                     f"{b.stats.get('dropped events', 0):,} dropped, "
                     f"{b.stats.get('overrun', 0):,} overwritten\n")
        lines.append("| from (ms) | to (ms) | length (ms) | % of boot | "
                     "not traced |")
        lines.append("|---|---|---|---|---|")
        rows = list(gaps)
        for a, z, what in early_spans(b):
            if what == "early-graph":
                name = ("(covered: early buffer, boot thread, sched_init() "
                        f"until {b.early.until})")  # type: ignore[union-attr]
            elif what == "early-paused":
                name = ("(covered: early buffer, start_kernel() to "
                        "ftrace_init())")
            else:
                name = ("(covered: early buffer, start_kernel() to "
                        f"{b.early.until})")  # type: ignore[union-attr]
            rows.append((a, z, name))
        mt = b.main or {}
        if mt.get("graph_on") is not None:
            rows.append((float(mt["graph_on"]), b.init,  # type: ignore
                         "(covered: main buffer, init_graph_trace() to "
                         "/init)"))
        for a, z, name in sorted(rows):
            lines.append(f"| {ms(a - b.start)} | {ms(z - b.start)} | "
                         f"{ms(z - a)} | {100 * (z - a) / total:.2f} | "
                         f"{name} |")
        lines.append(ftd_line(b))
    return lines


def ftd_line(b: Boot) -> str:
    """ftd boot's own account: time inside the calls that were kept."""
    d = b.outdir
    files = [str(d / f) for f in ("main.txt", "early.txt")
             if (d / f).exists()]
    proc = subprocess.run([str(FTD), "boot", "--format", "json"] + files,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return f"\nftd boot failed: {proc.stderr.strip()[-200:]}"
    v = json.loads(proc.stdout)
    return (f"\nftd boot on the same files (from its first record, "
            f"{v['start_s']:.6f} s, to the {v['end']}): "
            f"{v['total_us'] / 1000:,.3f} ms, inside kept calls "
            f"{v['traced_us'] / 1000:,.3f} ms "
            f"({100 * v['traced_us'] / max(v['total_us'], 1):.1f}%); the "
            "rest is calls under the threshold and the gaps above.")


def boot_buffer_kib(config: str) -> int:
    """CONFIG_FGRAPH_BOOT_BUFFER_SIZE of CONFIG, or its default."""
    text = (REPO / "scripts" / "configs" / f"{config}.config").read_text()
    m = re.search(r"^CONFIG_FGRAPH_BOOT_BUFFER_SIZE=(\d+)$", text, re.M)
    return int(m.group(1)) if m else KCONFIG_BUFFER_KIB


def config_arch(config: str) -> str:
    """The architecture CONFIG builds for (its header's arch=)."""
    return build.KernelConfig.load(config).arch.name


def method(repeat: int, buf_size: str, on: str, off: str) -> str:
    return (
        f"Method: {benchjob.machine(on)} -m {benchjob.memory_mb(on)} -smp 1 "
        "-icount shift=0,sleep=off (1 guest ns = 1 guest instruction while "
        "the CPU runs; idle time jumps to the next timer), kernel from "
        f"scripts/configs/{on}.config (CONFIG_FGRAPH_BOOT_BUFFER=y, "
        f"{boot_buffer_kib(on)} KiB, default threshold 10 us, off unless "
        "fgraph_boot=on) and "
        f"{off}.config (the same without the buffer).  start_kernel()"
        ": guest instructions before its first instruction (QEMU TCG "
        "plugin start-insns.c; nothing idles before it, so this is its "
        "time since reset).  /init: the local_clock() stamp of the printk "
        "'Run /init as init process' (run_init_process(), right before "
        "kernel_execve()) read from /dev/kmsg, put on the counter with a "
        "CNTVCT reading on both sides of a /dev/kmsg write in the guest "
        "(cntvct.c; the stamps are in us).  time_init(): where "
        "local_clock() is 0 (sched_clock starts on the architecture "
        "counter there).  Boot time runs have no main tracer; each is "
        f"booted {repeat} time(s) and the fastest boot is shown: a boot "
        "can wait for the host to finish a virtio disk read (partition "
        "scan) while icount's virtual time jumps from timer to timer, "
        "which adds up to seconds after time_init() at random; before "
        "time_init() interrupts are off and nothing waits, and that part "
        "is the same in every boot of a run.  Buffer needed: records kept x "
        f"{REC_BYTES[config_arch(on)]} bytes; when the "
        "buffer filled, at threshold 0 each dropped call would have needed "
        "two records, above 0 between 0 and two.  Coverage runs add "
        "'ftrace=function_graph tracing_thresh=T "
        f"{main_opts(buf_size)}'; covered is "
        "the time a function_graph tracer was recording: the early buffer "
        "from its first to its last record, less the stretch its header "
        "says it did not record (end of ftrace_init() to sched_init(); "
        "after sched_init() it records the boot thread only: init_task, "
        "then pid 1), the main "
        "buffer from the end of init_graph_trace() (the core initcall that "
        "starts ftrace=function_graph; initcall_finish event) to /init, "
        "or to its last event if it dropped any.  Calls shorter than the "
        "threshold are not gaps: the tracer was on and filtered them.")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--thresholds", default="0,10,100",
                    help="fgraph_boot_thresh= values of the boot time runs "
                    "(default %(default)s)")
    ap.add_argument("--cov-thresholds", default="100,10",
                    help="thresholds of the coverage runs (default "
                    "%(default)s; empty: none)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="boots of each boot time run (default %(default)s)")
    ap.add_argument("--arch", choices=sorted(CONFIGS),
                    help="boot this architecture's configs: "
                    + ", ".join(f"{a}: {on} and {off}"
                                for a, (on, off) in CONFIGS.items())
                    + " (default: --on-config's architecture, else arm)")
    ap.add_argument("--on-config",
                    help="the kernel with the early buffer (default: the "
                    "architecture's; fgboot-big has a 4 MiB buffer)")
    ap.add_argument("--off-config",
                    help="the same kernel without it (default: the "
                    "architecture's)")
    ap.add_argument("--trace-buf-size", default=MAIN_BUF_SIZE,
                    help="trace_buf_size= of the coverage runs: the main "
                    "buffer is allocated in the gap between the two "
                    "tracers, so its size sets the gap's length (default "
                    "%(default)s)")
    ap.add_argument("--only", action="append", default=[],
                    help="boot only the runs whose name contains TEXT "
                    "(repeatable; with --keep, adds to what is there)")
    ap.add_argument("--smp", type=int, default=1,
                    help="guest CPUs (default %(default)s, under -icount); "
                    "above 1 the guest runs without -icount (QEMU 7.2 "
                    "needs -smp 1 for it), its time follows the host's "
                    "and its load, and the times are from the machine's "
                    "reset: repeat the boots and compare medians")
    ap.add_argument("--no-build", action="store_true",
                    help="boot the configs as they were built last")
    benchjob.add_run_options(ap)
    args = ap.parse_args()
    arch = args.arch or (config_arch(args.on_config) if args.on_config
                         else "arm")
    on = args.on_config or CONFIGS[arch][0]
    off = args.off_config or CONFIGS[arch][1]
    for name in (on, off):
        if config_arch(name) != arch:
            raise SystemExit(f"{name} is a config for "
                             f"{config_arch(name)}, not {arch}")

    def ints(s: str) -> List[int]:
        return [int(x) for x in s.split(",") if x]
    runs = plan(ints(args.thresholds), ints(args.cov_thresholds),
                args.repeat, args.trace_buf_size, on, off)
    work = benchjob.work_dir(args, "boot")
    todo = [r for r in runs
            if not args.only or any(t in r.name for t in args.only)]
    configs = sorted({r.config for r in todo})

    start_kernel_addr: Dict[str, str] = {}
    if not args.report:
        for name in configs:
            if not args.no_build:
                benchjob.build_config(name)
        cntvct = work / "cntvct"
        # built with the cross compiler of the configs' architecture
        subprocess.run([benchjob.cross_compile(on) + "gcc",
                        "-Os", "-static",
                        "-nostdlib", "-ffreestanding", "-fno-stack-protector",
                        *CNTVCT_CFLAGS[arch], "-o", str(cntvct),
                        str(HERE / "cntvct.c")], check=True)
        plugin = work / "start-insns.so"
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(plugin),
                        str(HERE / "start-insns.c")], check=True)
        for name in configs:
            sysmap = build.KernelConfig.load(name).build_dir / "System.map"
            m = re.search(r"^([0-9a-f]+) T start_kernel$",
                          sysmap.read_text(), re.M)
            if not m:
                raise SystemExit(f"{sysmap}: no start_kernel")
            start_kernel_addr[name] = f"0x{m.group(1)}"

    boots: Dict[str, Boot] = {}
    for r in runs:
        outdir = work / r.name
        if not args.report and r in todo:
            if args.smp > 1:
                # several vCPUs cannot run under icount (QEMU 7.2)
                benchjob.run_guest_job(
                    r.config, HERE / "guest.sh", {}, outdir, smp=args.smp,
                    timeout=args.timeout, append=r.append,
                    files={"cntvct": cntvct})
            else:
                (outdir / "insns.txt").unlink(missing_ok=True)
                benchjob.run_guest_job(
                    r.config, HERE / "guest.sh", {}, outdir, icount=True,
                    timeout=args.timeout, append=r.append,
                    plugins=[f"{plugin},addr={start_kernel_addr[r.config]},"
                             f"out={outdir / 'insns.txt'}"],
                    files={"cntvct": cntvct})
                if not (outdir / "insns.txt").exists():
                    # a kernel moved by KASLR runs elsewhere
                    raise SystemExit(f"{outdir}: start_kernel() never ran "
                                     f"at {start_kernel_addr[r.config]}")
        if (outdir / "result.txt").exists():
            boots[r.name] = Boot(r, outdir)

    if args.smp > 1:
        print(f"\n### Boot time (-smp {args.smp}, no icount: guest time "
              "follows the host's; start_kernel() columns are from the "
              "machine's reset)\n")
    else:
        print("\n### Boot time (guest time under icount)\n")
    print("\n".join(boot_table(boots, runs)))
    print("\n### Early buffer needed, from start_kernel() to the end of "
          "recording (boot time runs: no main tracer, so the boot thread "
          "is recorded until the late initcalls)\n")
    print("\n".join(size_table(boots, runs, arch)))
    cov = cov_table(boots, runs)
    if cov:
        print("\n### Coverage of start_kernel() to /init "
              "(times from start_kernel())")
        print("\n".join(cov))
    print()
    print(method(args.repeat, args.trace_buf_size, on, off))
    if args.smp > 1:
        print(f"With --smp {args.smp}: -smp {args.smp} without -icount "
              "and without the start-insns plugin, so the start_kernel() "
              "columns count from the machine's reset (decompression "
              "included) and every time follows the host's clock and "
              "load; compare the medians of repeated boots.")
    print(f"Per-boot results: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
