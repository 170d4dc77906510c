#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cost of irq and preempt toggle pairs on ARM, per kernel config.

Builds each kernel config, builds the preemptirq_bench module
(kernel/trace/preemptirq_bench.c) out of tree against those that do not
have it built in, so that the unpatched base runs the same code as the
patched kernel, and boots each
kernel once per QEMU mode with "scripts/workbench run".  In the guest
(guest.sh) the module times PAIRS pairs of local_irq_disable/enable,
local_irq_save/restore and preempt_disable/enable on every CPU, first
with the preemptirq trace events off, then, where the kernel has them,
with all of them on ("+" columns).  Prints one table per mode (average,
median and 99th percentile ns per pair) plus the stripped vmlinux size
of each kernel, the number of inline static-key tests of each preemptirq
event in it (the sites the toggles add code to), and the method.

Modes: "icount" runs -icount shift=0,sleep=off (-smp 1: QEMU 7.2 needs
it), where one guest nanosecond is one guest instruction and the numbers
do not depend on the host's load; "tcg" runs plain TCG with -smp 2, in
host time, with one benchmark thread per guest CPU.
"""

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
MODULE = "preemptirq_bench"
MODULE_SOURCE = REPO / "kernel" / "trace" / f"{MODULE}.c"
sys.path.insert(0, str(REPO / "scripts"))

from wbench import benchjob, build  # noqa: E402
from wbench.common import log  # noqa: E402

DEFAULT_CONFIGS = ["benchpi-stock", "benchpi-patched", "benchpi-toggle",
                   "benchpi-irqsoff"]
MODES = ("icount", "tcg")
KINDS = ["irq", "irqsave", "preempt", "loop"]
KIND_TEXT = {
    "irq": "local_irq_disable/enable",
    "irqsave": "local_irq_save/restore",
    "preempt": "preempt_disable/enable",
    "loop": "empty loop (floor)",
}
METRICS = [("avg_ns", "avg"), ("median_ns", "median"), ("p99_ns", "p99")]

# (state, kind) -> {"avg_ns": ..., "median_ns": ..., "p99_ns": ...}
Stats = Dict[Tuple[str, str], Dict[str, float]]


class Result:
    """What guest.sh wrote to result.txt for one boot."""

    def __init__(self) -> None:
        self.kernel = ""
        self.cpus = 0
        self.stats: Stats = {}
        self.header: Dict[str, Dict[str, int]] = {}  # state -> cpus, pairs
        self.events: Dict[str, Tuple[int, int]] = {}  # state -> entries, overrun
        self.unsupported: List[str] = []
        # event -> how many the buffer held after the "on" run
        self.mix: Dict[str, int] = {}

    def states(self) -> List[str]:
        return [s for s in ("off", "on") if any(k[0] == s for k in self.stats)]


def parse_result(text: str) -> Result:
    """Parse guest.sh's output; a malformed line is an error."""
    res = Result()
    for n, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words:
            continue
        try:
            if words[0] == "kernel":
                res.kernel = words[1]
                res.cpus = int(words[3])
            elif words[0] == "unsupported":
                res.unsupported.append(words[1])
            elif words[0] == "mix":
                res.mix[words[2].rstrip(":")] = int(words[3])
            elif words[0] == "events":
                res.events[words[1]] = (int(words[3]), int(words[5]))
            elif words[0] == "bench" and words[2] == "cpus":
                res.header[words[1]] = {"cpus": int(words[3]),
                                        "pairs": int(words[5]),
                                        "batch": int(words[7])}
            elif words[0] == "bench" and words[2] in KINDS:
                fields = dict(zip(words[3::2], map(float, words[4::2])))
                if set(fields) != {m for m, _ in METRICS}:
                    raise ValueError("missing or extra fields")
                res.stats[(words[1], words[2])] = fields
            elif words[0] == "bench" and words[2] == "not":
                raise ValueError("the benchmark did not run")
            else:
                raise ValueError("unknown line")
        except (IndexError, ValueError) as exc:
            raise SystemExit(f"result line {n}: {exc}: {line!r}")
    return res


def stripped_size(config: build.KernelConfig, workdir: Path) -> int:
    """Bytes of CONFIG's vmlinux after strip, as the series reports it."""
    out = workdir / f"vmlinux-{config.name}.stripped"
    subprocess.run([config.arch.cross_compile + "strip", "-o", str(out),
                    str(config.build_dir / "vmlinux")], check=True)
    return out.stat().st_size


EVENTS = ["irq_disable", "irq_enable", "preempt_disable", "preempt_enable"]


def is_hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)


def key_sites(config: build.KernelConfig) -> Dict[str, int]:
    """Jump-label sites of each preemptirq event's key in CONFIG's vmlinux.

    The jump table lies between __start___jump_table and
    __stop___jump_table; an ARM32 jump_entry is three absolute words:
    code, target, key (the key's two low bits are flags).  A tracepoint's
    key sits right after its name pointer in struct tracepoint.
    """
    vmlinux = str(config.build_dir / "vmlinux")
    nm = subprocess.run([config.arch.cross_compile + "nm", vmlinux],
                        check=True,
                        capture_output=True, text=True).stdout
    keys = {}
    bounds = {}
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) != 3:
            continue
        addr, name = int(parts[0], 16), parts[2]
        if name.startswith("__tracepoint_") and name[13:] in EVENTS:
            keys[addr + 4] = name[13:]
        elif name in ("__start___jump_table", "__stop___jump_table"):
            bounds[name] = addr
    counts = {e: 0 for e in EVENTS}
    if len(bounds) != 2:
        return counts
    dump = subprocess.run(
        [config.arch.cross_compile + "objdump", "-s",
         f"--start-address={bounds['__start___jump_table']:#x}",
         f"--stop-address={bounds['__stop___jump_table']:#x}", vmlinux],
        check=True, capture_output=True, text=True).stdout
    words = []
    for line in dump.splitlines():
        parts = line.split()
        # " c0600670 a0b1c2d3 ... text": an address, then up to 4 words
        if len(parts) < 2 or not is_hex(parts[0]):
            continue
        for word in parts[1:5]:
            # a short last line is followed by its text column
            if len(word) != 8 or not is_hex(word):
                break
            words.append(int.from_bytes(bytes.fromhex(word), "little"))
    for i in range(2, len(words), 3):
        key = words[i] & ~3
        if key in keys:
            counts[keys[key]] += 1
    return counts


def format_sites(configs: List[str],
                 sites: Dict[str, Dict[str, int]]) -> List[str]:
    known = [c for c in configs if sum(sites.get(c, {}).values())]
    if not known:
        return []
    lines = ["| kernel | " + " | ".join(EVENTS) + " | all |",
             "|---" * (len(EVENTS) + 2) + "|"]
    for c in known:
        lines.append(f"| {label(c)} | " + " | ".join(
            f"{sites[c][e]:,}" for e in EVENTS)
            + f" | {sum(sites[c].values()):,} |")
    return lines


def boot(config: str, mode: str, pairs: int, module: Optional[Path],
         outdir: Path, timeout: int) -> Result:
    """Boot CONFIG in MODE once and run the benchmark in both states."""
    files = {f"{MODULE}.ko": module} if module else {}
    result = benchjob.run_guest_job(
        config, HERE / "guest.sh", {"PAIRS": str(pairs), "STATES": "off on"},
        outdir, icount=mode == "icount", smp=None if mode == "icount" else 2,
        timeout=timeout, files=files)
    return parse_result(result.read_text())


def label(config: str) -> str:
    return config[len("benchpi-"):] if config.startswith("benchpi-") \
        else config


def cell_value(res: Result, state: str, kind: str,
               key: str) -> Optional[float]:
    """KEY of KIND in STATE; "net" is the median less the loop's median."""
    if key != "net":
        return res.stats.get((state, kind), {}).get(key)
    pair = res.stats.get((state, kind), {}).get("median_ns")
    loop = res.stats.get((state, "loop"), {}).get("median_ns")
    return None if pair is None or loop is None else pair - loop


def columns(configs: List[str], results: Dict[str, Result]) \
        -> List[Tuple[str, str]]:
    """(config, state) columns: every config off, then those with events on."""
    cols = [(c, "off") for c in configs if c in results]
    cols += [(c, "on") for c in configs
             if c in results and "on" in results[c].states()]
    return cols


def format_table(configs: List[str],
                 results: Dict[str, Result]) -> List[str]:
    cols = columns(configs, results)
    if not cols:
        return []
    base = cols[0]
    heads = [label(c) + ("+" if s == "on" else "") for c, s in cols]
    lines = ["| pair | metric | " + " | ".join(heads) + " |",
             "|---|---|" + "---|" * len(cols)]
    for kind in KINDS:
        rows = [(key, name) for key, name in METRICS]
        if kind != "loop":
            rows.append(("net", "median - loop"))
        for key, name in rows:
            cells = []
            ref = cell_value(results[base[0]], base[1], kind, key)
            for c, s in cols:
                v = cell_value(results[c], s, kind, key)
                if v is None:
                    cells.append("-")
                elif (c, s) == base or not ref or kind == "loop":
                    cells.append(f"{v:,.2f}")
                else:
                    cells.append(f"{v:,.2f} ({v / ref:,.2f}x)")
            lines.append(f"| {KIND_TEXT[kind]} | {name} | "
                         + " | ".join(cells) + " |")
    return lines


def format_events(configs: List[str], results: Dict[str, Result]) \
        -> List[str]:
    """What the ring buffers took in per run: the events did fire."""
    lines = []
    for c in configs:
        r = results.get(c)
        if not r:
            continue
        for state in ("off", "on"):
            if state in r.events:
                entries, overrun = r.events[state]
                lines.append(f"- {label(c)}, events {state}: "
                             f"{entries + overrun:,} events recorded "
                             f"({overrun:,} of them overwritten)")
            elif state in r.unsupported:
                lines.append(f"- {label(c)}: no preemptirq events")
        if r.mix:
            lines.append(f"- {label(c)}, events on, left in the buffer at "
                         "the end: " + ", ".join(
                             f"{e} {n:,}" for e, n in sorted(r.mix.items())))
    return lines


def format_sizes(configs: List[str], sizes: Dict[str, int]) -> List[str]:
    known = [c for c in configs if c in sizes]
    if not known:
        return []
    ref = sizes[known[0]]
    lines = ["| kernel | stripped vmlinux (bytes) | vs " + label(known[0])
             + " |", "|---|---|---|"]
    for c in known:
        delta = sizes[c] - ref
        lines.append(f"| {label(c)} | {sizes[c]:,} | {delta:+,} "
                     f"({100 * delta / ref:+.3f}%) |")
    return lines


def method(pairs: int, config: str) -> str:
    return (
        f"Method: {benchjob.machine(config)} -m {benchjob.memory_mb(config)}"
        "; mode "
        "icount is -icount shift=0,sleep=off -smp 1 (1 guest ns = 1 guest "
        "instruction), mode tcg plain TCG -smp 2 in host time.  One boot "
        "per kernel and mode.  The preemptirq_bench module "
        "(kernel/trace/preemptirq_bench.c, built in or out of tree, "
        "without -pg either way) runs one bound kthread per online CPU, all "
        f"started together; each runs {pairs:,} pairs of every kind in "
        "batches of 1000, the kinds taking turns batch by batch, with "
        "interrupts enabled between pairs, and times each batch with "
        "ktime_get_mono_fast_ns().  avg = total time / total pairs; median "
        "and p99 (nearest rank) are over the batch means of all CPUs, so "
        "p99 is a percentile of 1000-pair means.  Times include the loop "
        "(its floor is the 'empty loop' row) and are in ns per pair.  "
        "'+' columns: the same kernel with every preemptirq event enabled "
        "(events/preemptirq/enable = 1, ring buffer on, default size, "
        "overwriting); the kernels without '+' have the events off or lack "
        "them.  'median - loop' is the median less the empty loop's "
        "median: the pair alone.  (N.NNx) is the ratio to the first "
        "column.  Stripped "
        "vmlinux: arm-linux-gnueabi-strip -o OUT vmlinux.")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", default=",".join(DEFAULT_CONFIGS),
                    help="comma-separated configs (default %(default)s); "
                    "the first is the reference for the percentages")
    ap.add_argument("--modes", default="icount,tcg",
                    help="comma-separated QEMU modes: icount, tcg "
                    "(default %(default)s)")
    ap.add_argument("--pairs", type=int, default=500000,
                    help="pairs of each kind per CPU and state "
                    "(default %(default)s)")
    benchjob.add_run_options(ap)
    args = ap.parse_args()
    modes = args.modes.split(",")
    for mode in modes:
        if mode not in MODES:
            ap.error(f"unknown mode {mode!r} (known: {', '.join(MODES)})")

    work = benchjob.work_dir(args, "preemptirq")
    configs = args.configs.split(",")
    results: Dict[str, Dict[str, Result]] = {m: {} for m in modes}
    sizes: Dict[str, int] = {}
    sites: Dict[str, Dict[str, int]] = {}
    for name in configs:
        if not args.report:
            benchjob.build_config(name)
        config = build.KernelConfig.load(name)
        if (config.build_dir / "vmlinux").exists():
            sizes[name] = stripped_size(config, work)
            sites[name] = key_sites(config)
        module = None
        if not args.report and not build.builds_in(
                config, "CONFIG_PREEMPTIRQ_BENCHMARK"):
            module = build.external_module(config, MODULE, [MODULE_SOURCE],
                                           work, notrace=True)
        for mode in modes:
            outdir = work / f"{name}-{mode}"
            if args.report:
                path = outdir / "result.txt"
                if path.exists():
                    results[mode][name] = parse_result(path.read_text())
                continue
            results[mode][name] = boot(name, mode, args.pairs, module,
                                       outdir, args.timeout)

    pairs = 0
    for mode in modes:
        res = results[mode]
        if not res:
            continue
        first = next(iter(res.values()))
        pairs = next(iter(first.header.values()), {}).get("pairs", 0)
        print(f"\n### {mode}: ns per pair ({first.cpus} guest CPU(s), "
              f"{pairs:,} pairs of each kind per CPU)\n")
        print("\n".join(format_table(configs, res)))
        print()
        print("\n".join(format_events(configs, res)))
    if sizes:
        print()
        print("\n".join(format_sizes(configs, sizes)))
    if any(sum(v.values()) for v in sites.values()):
        print("\nInline static-key tests (jump-label sites) of each "
              "preemptirq event:\n")
        print("\n".join(format_sites(configs, sites)))
    print()
    print(method(pairs or args.pairs, configs[0]))
    print(f"Per-boot results: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
