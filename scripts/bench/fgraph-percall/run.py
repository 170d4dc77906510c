#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions per traced call, per tracer state and per function.

Boots each kernel once with "scripts/workbench run CONFIG --icount" and
has the ftrace-call-cost benchmark (samples/ftrace/ftrace-call-cost.c)
time CALLS calls of a traced function in every tracer state, one after
the other in the same guest.  The traced function is in the core kernel
where the kernel has the benchmark built in ("core"), and in a module
built from the same source file, loaded as ftrace_call_cost_mod
("module"); the graph entry finds a module function's frame the slow
way.  Under -icount shift=0,sleep=off one guest
nanosecond is one guest instruction, so the numbers count instructions.

With --profile STATE it boots once more per kernel with a QEMU TCG plugin
(insn-profile.c) that counts the instructions executed inside the
module's timed windows per translation block, and prints where the
instructions of one call go, per function.  --annotate FUNC also prints
FUNC's disassembly with the times each instruction ran per call.  ARM
and Thumb-2 kernels can both be profiled; arm64 kernels cannot (the
benchmark marks its windows on 32-bit ARM only).

Each config boots on its own architecture's machine (its arch= record):
--configs benchfg-stock-arm64,benchfg-arm64 measures arm64.

The stock kernel cannot hold the benchmark in its tree, so it gets the
module only.
"""

import argparse
import bisect
import functools
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
MODULE_SOURCE = REPO / "samples" / "ftrace" / "ftrace-call-cost.c"
sys.path.insert(0, str(REPO / "scripts"))

from wbench import arch, benchjob, build  # noqa: E402

STOCK_STATES = ["nop", "function", "function-off", "graph", "graph-off",
                "graph-skip", "thresh"]
PATCHED_STATES = STOCK_STATES + ["thresh-tree", "thresh-tree-reader",
                                 "thresh-lazy", "retval"]
DEFAULT_CONFIGS = ["benchfg-stock", "benchfg"]

STATE_TEXT = {
    "nop": "nop (call sites patched out)",
    "function": "function tracer",
    "function-off": "function tracer, tracing_on=0",
    "graph": "function_graph",
    "graph-off": "function_graph, tracing_on=0",
    "graph-skip": "function_graph, entry rejects (set_graph_function)",
    "thresh": "function_graph, tracing_thresh=100 (exits only)",
    "thresh-tree": "function_graph, tracing_thresh=100, thresh-tree",
    "thresh-tree-reader": "function_graph, tracing_thresh=100, "
                          "thresh-tree, a trace_pipe reader waiting",
    "thresh-lazy": "function_graph, tracing_thresh=100, thresh-lazy "
                   "(not for posting)",
    "retval": "function_graph, funcgraph-retval",
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


Results = Dict[Tuple[str, str], str]   # (target, state) -> result line


def boot(config: str, targets: List[str], states: List[str], calls: int,
         outdir: Path, module: Optional[Path], plugin: Optional[str],
         timeout: int) -> Results:
    """Run STATES on CONFIG in one boot."""
    files = {"ftrace-call-cost-mod.ko": module} if module else {}
    return read_result(benchjob.run_guest_job(
        config, HERE / "guest.sh",
        {"TARGETS": " ".join(targets), "STATES": " ".join(states),
         "CALLS": str(calls)},
        outdir, icount=True, timeout=timeout,
        plugins=[plugin] if plugin else [], files=files))


def read_result(path: Path) -> Results:
    found: Results = {}
    for line in path.read_text().splitlines():
        if line.startswith("percall "):
            _, target, state, rest = line.split(" ", 3)
            found[(target, state)] = rest
    return found


def field(result: str, name: str) -> float:
    m = re.search(rf"\b{name} (-?[0-9.]+)", result)
    if not m:
        raise SystemExit(f"no {name} in {result!r}")
    return float(m.group(1))


class Symbols:
    """Address to function name, from System.map and module kallsyms."""

    def __init__(self, system_map: Path, kallsyms: Optional[Path]) -> None:
        entries: List[Tuple[int, str]] = []
        for path, modules_only in ((system_map, False), (kallsyms, True)):
            if path is None or not path.exists():
                continue
            for line in path.read_text().splitlines():
                parts = line.split()
                if len(parts) < 3 or parts[1].lower() not in "tw":
                    continue
                if modules_only and not (len(parts) == 4
                                         and parts[3].startswith("[")):
                    continue
                entries.append((int(parts[0], 16), parts[2]))
        entries.sort()
        self.addrs = [a for a, _ in entries]
        self.names = [n for _, n in entries]

    def lookup(self, addr: int) -> str:
        i = bisect.bisect_right(self.addrs, addr) - 1
        return self.names[i] if i >= 0 else f"0x{addr:x}"


Block = Tuple[int, int, int]   # start address, instructions, times run


def read_profile(profile: Path) -> Tuple[int, List[Block]]:
    """The plugin's output: the timed windows, and the blocks run in them."""
    blocks: List[Block] = []
    windows = 0
    for line in profile.read_text().splitlines():
        if line.startswith("# windows "):
            windows = int(line.split()[2])
            continue
        addr, insns, execs = line.split()
        blocks.append((int(addr, 16), int(insns), int(execs)))
    if not windows:
        raise SystemExit(f"{profile}: no marked window ran")
    return windows, blocks


def profile_table(profile: Path, symbols: Symbols,
                  calls_per_window: int) -> Tuple[int, List[Tuple[str, float]]]:
    per_func: Dict[str, int] = defaultdict(int)
    windows, blocks = read_profile(profile)
    for addr, insns, execs in blocks:
        per_func[symbols.lookup(addr)] += insns * execs
    calls = windows * calls_per_window
    rows = sorted(((f, n / calls) for f, n in per_func.items()),
                  key=lambda r: -r[1])
    return calls, rows


def objdump(vmlinux: Path, *selection: str,
            cross_compile: str = arch.DEFAULT.cross_compile) -> Dict[int, str]:
    """The instructions of vmlinux that objdump's SELECTION options pick,
    by address, in address order; CROSS_COMPILE is that of vmlinux's
    architecture."""
    dis = subprocess.run(
        [cross_compile + "objdump", "-d", "--no-show-raw-insn",
         *selection, str(vmlinux)],
        check=True, capture_output=True, text=True).stdout
    insn = re.compile(r"^\s*([0-9a-f]+):\t(.*)$")
    return {int(m.group(1), 16): m.group(2)
            for m in map(insn.match, dis.splitlines()) if m}


def disassemble(vmlinux: Path, low: int, high: int,
                cross_compile: str = arch.DEFAULT.cross_compile
                ) -> Dict[int, str]:
    """vmlinux's instructions from LOW up to HIGH, by address."""
    return objdump(vmlinux, f"--start-address=0x{low:x}",
                   f"--stop-address=0x{high:x}", cross_compile=cross_compile)


@functools.lru_cache(maxsize=None)
def instruction_runs(vmlinux: Path, profile: Path, calls_per_window: int,
                     cross_compile: str = arch.DEFAULT.cross_compile
                     ) -> Tuple[int, Dict[int, int], Dict[int, str]]:
    """The calls profiled, how often each kernel instruction ran, and the
    instructions that ran; cached, as the annotation and the barrier
    counts read the same profile.

    A block is known by its start address and instruction count; the
    disassembly gives the addresses of its instructions, which in a
    Thumb-2 kernel are two or four bytes apart.  Blocks outside vmlinux
    (the module's loop and traced function) are left out.
    """
    windows, blocks = read_profile(profile)
    # No instruction is longer than four bytes: this bounds every block
    low = min(addr for addr, _, _ in blocks)
    high = max(addr + 4 * insns for addr, insns, _ in blocks)
    text = disassemble(vmlinux, low, high, cross_compile)
    addrs = sorted(text)
    runs: Dict[int, int] = defaultdict(int)
    for addr, insns, execs in blocks:
        i = bisect.bisect_left(addrs, addr)
        if i == len(addrs) or addrs[i] != addr:
            continue
        for a in addrs[i:i + insns]:
            runs[a] += execs
    return windows * calls_per_window, runs, text


def print_annotated(vmlinux: Path, funcs: List[str], profile: Path,
                    calls_per_window: int,
                    cross_compile: str = arch.DEFAULT.cross_compile) -> None:
    """Each of FUNCS' disassembly, each instruction with its runs per call."""
    calls, runs, _ = instruction_runs(vmlinux, profile, calls_per_window,
                                      cross_compile)
    for func in funcs:
        lines = objdump(vmlinux, f"--disassemble={func}",
                        cross_compile=cross_compile)
        if not lines:
            raise SystemExit(f"{vmlinux}: no function {func}")
        total = sum(runs.get(addr, 0) for addr in lines) / calls
        print(f"\n#### {func}: {total:,.1f} instructions per call\n")
        print("```")
        for addr, text in lines.items():
            n = runs.get(addr, 0) / calls
            cell = f"{n:6.2f}" if n else "     ."
            print(f"{cell}  {addr:x}:  {text.expandtabs(8)}")
        print("```")


# Instructions that icount counts as one but that cost far more on real
# cores: barriers, exclusive loads and stores, and reads of the counter.
# ARM32's: only ARM32 kernels mark the windows that a profile needs.
INSN_CLASSES = (("barriers (dmb/dsb/isb)", re.compile(r"^(dmb|dsb|isb)\b")),
                ("exclusive loads/stores", re.compile(r"^(ldrex|strex)")),
                ("counter reads (mrrc)", re.compile(r"^mrrc\b")))


def class_counts(vmlinux: Path, profile: Path, calls_per_window: int,
                 cross_compile: str = arch.DEFAULT.cross_compile
                 ) -> List[float]:
    """Per call, the instructions of each INSN_CLASSES class that ran.

    Only kernel text is looked at; the module's own code (the timed loop
    and the traced function) holds none of them.
    """
    calls, runs, text = instruction_runs(vmlinux, profile, calls_per_window,
                                         cross_compile)
    counts = [0] * len(INSN_CLASSES)
    for addr, ran in runs.items():
        for i, (_, pattern) in enumerate(INSN_CLASSES):
            if pattern.match(text[addr]):
                counts[i] += ran
    return [c / calls for c in counts]


def profile_dir(work: Path, config: str, target: str, state: str) -> Path:
    """Where the profiled boot of CONFIG's TARGET in STATE keeps its files."""
    return work / f"{config}-{target}-profile-{state}"


KERNEL_FILES = ("vmlinux", "System.map")


def keep_kernel(config: build.KernelConfig, work: Path) -> None:
    """Copy the kernel a run profiles beside its results, so that a later
    --report maps the profile with that kernel, not a rebuilt one."""
    (work / config.name).mkdir(parents=True, exist_ok=True)
    for name in KERNEL_FILES:
        shutil.copyfile(config.build_dir / name, work / config.name / name)


def profiled_kernel(config: build.KernelConfig, work: Path) -> Path:
    """The directory with the vmlinux and System.map of CONFIG's run."""
    kept = work / config.name
    if all((kept / name).exists() for name in KERNEL_FILES):
        return kept
    print(f"{kept}: no kernel kept with the run; mapping its profiles with "
          f"the latest build of {config.name}, which may be another kernel",
          file=sys.stderr)
    return config.build_dir


def print_profile(config: str, state: str, calls: int,
                  rows: List[Tuple[str, float]], minimum: float) -> None:
    total = sum(n for _, n in rows)
    print(f"\n### Where one call goes: {config}, {STATE_TEXT[state]}\n")
    print(f"{calls:,} calls profiled; {total:,.1f} instructions per call "
          "in the timed window (loop and untraced callee included).\n")
    print("| function | instructions/call | share |")
    print("|---|---|---|")
    rest = 0.0
    for func, n in rows:
        if n < minimum:
            rest += n
            continue
        print(f"| {func} | {n:,.1f} | {100 * n / total:.1f}% |")
    if rest:
        print(f"| (functions under {minimum:g} each) | {rest:,.1f} | "
              f"{100 * rest / total:.1f}% |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", default=",".join(DEFAULT_CONFIGS),
                    help="comma-separated configs (default %(default)s; "
                    "benchfg-stock-arm64,benchfg-arm64 on arm64), each "
                    "booted on its architecture's machine; configs on the "
                    "base tree get the states of the stock kernel")
    ap.add_argument("--calls", type=int, default=20000,
                    help="traced calls per state (default %(default)s)")
    ap.add_argument("--profile", action="append", default=[],
                    metavar="STATE", help="also profile STATE per function "
                    "(one more boot per config and state)")
    ap.add_argument("--min", type=float, default=5.0,
                    help="fold profile rows under this many instructions")
    ap.add_argument("--annotate", action="append", default=[],
                    metavar="FUNC", help="with --profile: also print FUNC's "
                    "instructions with their runs per call (core kernel "
                    "functions)")
    benchjob.add_run_options(ap)
    args = ap.parse_args()
    configs = args.configs.split(",")
    loaded = {name: build.KernelConfig.load(name) for name in configs}
    unmarked = [name for name, config in loaded.items()
                if config.arch.name != arch.ARM.name]
    if args.profile and unmarked and not args.report:
        raise SystemExit(f"--profile: {', '.join(unmarked)} cannot be "
                         "profiled: the benchmark marks its timed windows "
                         "on 32-bit ARM only (samples/ftrace/"
                         "ftrace-call-cost.c)")
    work = benchjob.work_dir(args, "fgraph-percall")
    results: Dict[str, Results] = {}
    columns: List[Tuple[str, str]] = []    # (config, target)
    for name in configs:
        if not args.report:
            benchjob.build_config(name)
        config = loaded[name]
        if args.report:
            result = work / name / "result.txt"
            if not result.exists():
                raise SystemExit(f"{result}: no results of {name} in "
                                 f"{work} (--configs names the configs "
                                 f"of that run)")
            results[name] = read_result(result)
            # The run's targets, not those of the config's latest build
            columns += [(name, t) for t in
                        dict.fromkeys(t for t, _ in results[name])]
            continue
        states = PATCHED_STATES
        if config.tree == "base":
            # The base has funcgraph-retval where the architecture has
            # the fgraph ftrace_regs (arm64, not ARM32)
            states = STOCK_STATES + (["retval"] if build.builds_in(
                config, "CONFIG_FUNCTION_GRAPH_RETVAL") else [])
        targets = (["core"] if build.builds_in(
            config, "CONFIG_SAMPLE_FTRACE_CALL_COST") else []) + ["module"]
        columns += [(name, t) for t in targets]
        if args.profile:
            keep_kernel(config, work)
        module = build.external_module(
            config, "ftrace-call-cost-mod", [MODULE_SOURCE], work)
        results[name] = boot(name, targets, states, args.calls, work / name,
                             module, None, args.timeout)
        for target in targets:
            for state in args.profile:
                plugin_so = work / "insn-profile.so"
                subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o",
                                str(plugin_so), str(HERE / "insn-profile.c")],
                               check=True)
                pdir = profile_dir(work, name, target, state)
                boot(name, [target], [state], args.calls, pdir, module,
                     f"{plugin_so},out={pdir / 'profile.txt'}",
                     args.timeout)

    print("| state | " + " | ".join(f"{c} ({t})" for c, t in columns)
          + " |")
    print("|---|" + "---|" * len(columns))
    for state in PATCHED_STATES:
        cells = []
        for name, target in columns:
            res = results[name].get((target, state))
            cells.append(f"{field(res, 'overhead_ns'):,.0f}" if res else "-")
        if any(c != "-" for c in cells):
            print(f"| {STATE_TEXT[state]} | " + " | ".join(cells) + " |")
    print()
    print("Instructions added per call of a traced function, medians "
          "over batches of 1000 calls (identical under icount).  Raw "
          "results: " + "; ".join(
              f"{c} {t} {s}: {r}" for c in configs
              for (t, s), r in results[c].items()))

    profiled = [(name, target, state) for name, target in columns
                for state in args.profile
                if (profile_dir(work, name, target, state) /
                    "profile.txt").exists()]
    kernels = {name: profiled_kernel(loaded[name], work)
               for name in dict.fromkeys(name for name, _, _ in profiled)}
    for name, target, state in profiled:
        pdir = profile_dir(work, name, target, state)
        kernel = kernels[name]
        symbols = Symbols(kernel / "System.map", pdir / "kallsyms")
        calls, rows = profile_table(pdir / "profile.txt", symbols, 1000)
        print_profile(f"{name} ({target})", state, calls, rows, args.min)
        if args.annotate:
            print_annotated(kernel / "vmlinux",
                            args.annotate, pdir / "profile.txt", 1000,
                            loaded[name].arch.cross_compile)

    if profiled:
        print("\n### Instructions that cost more than one on hardware\n")
        print("Per traced call, from the same profiles: icount counts each "
              "as one instruction.\n")
        print("| config | state | " +
              " | ".join(c for c, _ in INSN_CLASSES) + " |")
        print("|---|---|" + "---|" * len(INSN_CLASSES))
        for name, target, state in profiled:
            pdir = profile_dir(work, name, target, state)
            counts = class_counts(kernels[name] / "vmlinux",
                                  pdir / "profile.txt", 1000,
                                  loaded[name].arch.cross_compile)
            print(f"| {name} ({target}) | {STATE_TEXT[state]} | " +
                  " | ".join(f"{c:.1f}" for c in counts) + " |")

    print()
    machines = dict.fromkeys(benchjob.machine(name) for name in configs)
    print(f"Method: {' and '.join(machines)} -smp 1 -icount "
          "shift=0,sleep=off (1 guest ns = 1 guest instruction).  One "
          "boot per kernel; guest.sh sets each tracer state in tracefs in "
          "turn and writes CALLS to the benchmark's parameter "
          "/sys/module/ftrace_call_cost*/parameters/run, which times CALLS "
          "calls of a traced function and of its notrace twin in batches "
          "of 1000 with interrupts off (ktime_get_mono_fast_ns); the "
          "table shows the median per-call difference.  Profiles count, "
          "with a QEMU TCG plugin, the instructions of every translation "
          "block executed between the benchmark's two marker hints, mapped "
          "to functions with System.map and /proc/kallsyms, divided by "
          "the calls in the windows.")
    print(f"Per-boot results: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
