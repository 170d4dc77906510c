# SPDX-License-Identifier: GPL-2.0
"""`workbench kunit`: the tracing KUnit suites through kunit.py.

Runs the kernel's own runner, tools/testing/kunit/kunit.py, in the
patched tree with kernel/trace/.kunitconfig (the ring buffer's rewind and
guarded-writer suites, kprobes and fprobe), on its QEMU ARM machine:

    ./tools/testing/kunit/kunit.py run --arch=arm \\
        --cross_compile=arm-linux-gnueabi- --kunitconfig=kernel/trace \\
        --kconfig_add CONFIG_ARM_FTRACE_PATCHABLE_ENTRY=y \\
        --qemu_args='-smp 2'

plus a build directory under .cache/build and ccache.  Arguments after
the options go to kunit.py (e.g. a filter glob: 'ring_buffer_rewind.*').
--build-only stops after the build (kunit.py build), as make check does
to have the kernel ready before its step.  --thumb2 builds a Thumb-2
kernel instead (CONFIG_THUMB2_KERNEL, with the hook before the prologue
too), in a build directory of its own: the kprobes suite's cases that
register a probe by function pointer need it to see the Thumb bit.
"""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path
from typing import List, Optional, Sequence, Set

from . import arch as arches
from . import build
from .common import (WorkbenchError, cache_dir, locked, log,
                     need_commands, run)

KUNITCONFIG = "kernel/trace"


def build_dir(arch: arches.Arch, thumb2: bool = False) -> Path:
    return cache_dir() / "build" / ("kunit-thumb2" if thumb2
                                    else f"kunit-{arch.name}")


def kunit_command(tree: Path, json_out: Optional[Path], extra: List[str],
                  thumb2: bool = False,
                  arch: arches.Arch = arches.DEFAULT) -> List[str]:
    """kunit.py's command line for arch: run, or only build when json_out
    is None; what kernel/trace/.kunitconfig cannot say without breaking
    other architectures is in arch.kunit_options."""
    if thumb2 and arch is not arches.ARM:
        raise WorkbenchError("--thumb2 is for ARM32 only")
    cmd = [str(tree / "tools" / "testing" / "kunit" / "kunit.py"),
           "build" if json_out is None else "run",
           f"--arch={arch.kunit_arch}",
           f"--cross_compile={arch.cross_compile}",
           f"--kunitconfig={KUNITCONFIG}",
           # two CPUs: the stress suite's writers then race a reader on
           # another CPU; and the QEMU mode the record chose for its
           # guests (x86_64: kprobes patch text with int3)
           "--qemu_args=" + shlex.join(["-smp", "2", *arch.accel]),
           f"--build_dir={build_dir(arch, thumb2)}"]
    cmd += [f"--make_options={arg}" for arg in build.compiler_args(arch)]
    if json_out is not None:
        cmd.append(f"--json={json_out}")
    for option in list(arch.kunit_options) + (["CONFIG_THUMB2_KERNEL=y"]
                                              if thumb2 else []):
        cmd += ["--kconfig_add", option]
    return cmd + extra


def run_kunit(json_out: Optional[Path], extra: List[str],
              thumb2: bool = False,
              arch: arches.Arch = arches.DEFAULT) -> int:
    """kunit.py's exit status; its results go to json_out, and without
    json_out it only builds."""
    need_commands(arch.host_tools(), arch.name)
    tree = build.patched_tree()
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.unlink(missing_ok=True)
    out = build_dir(arch, thumb2)
    with locked(out, f"building {out.name}"):
        return run(kunit_command(tree, json_out, extra, thumb2, arch),
                   cwd=tree, check=False).returncode


# A KUnit suite's name in a test's source: the .name of a struct
# kunit_suite's initializer
SUITE_RE = re.compile(r"struct\s+kunit_suite\s+\w+\s*=\s*\{[^}]*?"
                      r"\.name\s*=\s*\"(\w+)\"", re.S)
OBJ_RE = r"^obj-\$\({option}\)\s*\+=\s*(.*)$"


def kunitconfig_options(tree: Path) -> List[str]:
    """The options KUNITCONFIG's .kunitconfig sets to y."""
    text = (tree / KUNITCONFIG / ".kunitconfig").read_text()
    return re.findall(r"^(CONFIG_\w+)=y\s*$", text, re.M)


def kunitconfig_suites(tree: Path, turned_off: Sequence[str] = ()
                       ) -> Set[str]:
    """The KUnit suites that KUNITCONFIG's .kunitconfig builds: for each
    option it sets, but for those turned_off, the objects a Makefile of
    tree builds with it ("obj-$(CONFIG_FOO) += foo.o"), and the suites
    their sources define.  Read from the tree, so that a suite the
    config loses is missed by name instead of showing as fewer cases."""
    options = [opt for opt in kunitconfig_options(tree)
               if opt not in turned_off]
    wanted = {opt: re.compile(OBJ_RE.format(option=opt), re.M)
              for opt in options}
    suites: Set[str] = set()
    for subdir in ("kernel", "lib", "mm", "fs", "drivers"):
        for makefile in sorted((tree / subdir).rglob("Makefile")):
            text = makefile.read_text(errors="replace")
            if "CONFIG_" not in text:
                continue
            for regex in wanted.values():
                for m in regex.finditer(text):
                    for obj in m.group(1).split():
                        source = makefile.parent / (obj[:-2] + ".c")
                        if obj.endswith(".o") and source.is_file():
                            suites.update(SUITE_RE.findall(
                                source.read_text(errors="replace")))
    if not suites:
        raise WorkbenchError(f"no KUnit suite found for the options of "
                             f"{KUNITCONFIG}/.kunitconfig in {tree}")
    return suites


def cmd_kunit(args: argparse.Namespace) -> int:
    json_out = None if args.build_only else \
        cache_dir() / "kunit" / "results.json"
    status = run_kunit(json_out, args.kunit_args, args.thumb2,
                       arches.get(args.arch))
    if json_out and json_out.exists():
        log(f"kunit: results in {json_out}")
    return status


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("kunit", help="run the tracing KUnit suites with "
                       "kunit.py on its QEMU ARM machine",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--arch", default=arches.DEFAULT.name,
                   choices=sorted(arches.ARCHES),
                   help="the architecture (default %(default)s)")
    p.add_argument("--thumb2", action="store_true",
                   help="build a Thumb-2 kernel (own build directory)")
    p.add_argument("--build-only", action="store_true",
                   help="configure and build kunit.py's kernel, run "
                   "nothing (kunit.py build)")
    p.add_argument("kunit_args", nargs=argparse.REMAINDER,
                   help="passed on to kunit.py run (or build, with "
                   "--build-only)")
    p.set_defaults(func=cmd_kunit)
