# SPDX-License-Identifier: GPL-2.0
"""Command line of scripts/workbench and scripts/prepare-kernel."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Dict, List, Optional

from . import (arch, build, demo, edit, export, guest, kselftest, kunit,
               selftest)
from .common import WorkbenchError, log

# Modules that define further subcommands with add_parser(subparsers).
SUBCOMMAND_MODULES = [selftest, kselftest, kunit, export, edit, demo]


def cmd_build(args: argparse.Namespace) -> int:
    for name in args.config:
        build.build(name)
    return 0


def _files(specs: List[str]) -> Dict[str, Path]:
    files: Dict[str, Path] = {}
    for spec in specs:
        dest, sep, src = spec.partition("=")
        if not sep or not dest or not Path(src).exists():
            raise WorkbenchError(f"--file {spec}: want GUEST_NAME=HOST_PATH "
                                 "with an existing host path")
        files[dest.lstrip("/")] = Path(src)
    return files


def cmd_run(args: argparse.Namespace) -> int:
    script = Path(args.script)
    if not script.is_file():
        raise WorkbenchError(f"{script}: no such script")
    config = (build.KernelConfig.load(args.config) if args.no_build
              else build.build(args.config))
    smp = args.smp if args.smp is not None else (1 if args.icount else 2)
    files = _files(args.file)
    job = guest.with_tools(script.read_text(), files, args.tools,
                           config.arch)
    result = guest.boot(config, job, files=files,
                        out_dir=Path(args.out) if args.out else None,
                        smp=smp, icount=args.icount, append=args.append,
                        timeout=args.timeout, echo=not args.quiet,
                        plugins=args.plugin, root_disk=args.root_disk)
    result.report()
    if result.status is not None and args.out:
        log(f"guest /out copied to {args.out}")
    log(f"console log: {result.log}")
    return result.exit_code()


def cmd_shell(args: argparse.Namespace) -> int:
    config = (build.KernelConfig.load(args.config) if args.no_build
              else build.build(args.config))
    smp = args.smp if args.smp is not None else (1 if args.icount else 2)
    files: Dict[str, Path] = {}
    job = guest.with_tools("exec setsid cttyhack sh -l\n", files, args.tools,
                           config.arch)
    guest.boot(config, job, files=files, smp=smp, icount=args.icount,
               append=args.append, interactive=True,
               root_disk=args.root_disk)
    return 0


def cmd_prepare(args: argparse.Namespace) -> int:
    from .prepare import prepare_kernel
    prepare_kernel(Path(args.linux), copy=args.copy, dry_run=args.dry_run,
                   outpatch=Path(args.outpatch) if args.outpatch else None)
    return 0


def add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", help="a config name from scripts/configs/")
    p.add_argument("--icount", action="store_true",
                   help="deterministic timing: -icount shift=0,sleep=off "
                   "(1 ns of guest time per instruction; implies --smp 1)")
    p.add_argument("--smp", type=int, help="vCPUs (default 2, 1 with --icount)")
    p.add_argument("--append", default="", help="extra kernel command line")
    p.add_argument("--timeout", type=float, default=600,
                   help="seconds before the guest counts as hung (600)")
    p.add_argument("--no-build", action="store_true",
                   help="boot the last build without rebuilding")
    p.add_argument("--root-disk", action="store_true",
                   help="boot as a board does: the root file system on a "
                   "virtio disk (ext2), mounted by the kernel with "
                   f"'{guest.ROOT_DISK_CMDLINE}'; the initramfs has no /init")
    p.add_argument("--with", dest="tools", action="append", default=[],
                   choices=arch.all_guest_tool_names(), metavar="TOOLS",
                   help="copy a set of Debian programs of the config's "
                   "architecture over the guest's root before the job: "
                   + ", ".join(arch.all_guest_tool_names())
                   + " (repeatable; the default guest is busybox alone)")


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="workbench",
        description="Build, boot and test the ARM ftrace series under QEMU.")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("build", help="build configs incrementally")
    p.add_argument("config", nargs="+")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("run", help="boot a config and run a script in it",
                       description="Boot CONFIG and run the host file SCRIPT "
                       "in the guest with busybox sh, as root, with tracefs "
                       "at /sys/kernel/tracing.  What it writes under /out "
                       "comes back to --out.  Exits with SCRIPT's status, or "
                       f"{guest.GUEST_FAILURE} when the guest panics, hangs "
                       "or stops without an exit status.")
    add_run_options(p)
    p.add_argument("--out", help="host directory for the guest's /out")
    p.add_argument("--file", action="append", default=[],
                   metavar="GUEST=HOST",
                   help="put a host file or directory at /in/GUEST")
    p.add_argument("--quiet", action="store_true",
                   help="do not echo the console (it is still logged)")
    p.add_argument("--plugin", action="append", default=[],
                   metavar="LIB.so[,ARG=VALUE...]",
                   help="load a QEMU TCG plugin (repeatable)")
    p.add_argument("script")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("shell", help="boot a config to an interactive shell",
                       description="Boot CONFIG with the console on this "
                       "terminal and a root shell in it.  Ctrl-A X quits "
                       "QEMU; Ctrl-A C toggles its monitor.")
    add_run_options(p)
    p.set_defaults(func=cmd_shell)

    p = sub.add_parser("prepare", help="apply the series to a kernel tree "
                       "(same as scripts/prepare-kernel)")
    add_prepare_options(p)
    p.set_defaults(func=cmd_prepare)

    for module in SUBCOMMAND_MODULES:
        module.add_parser(sub)
    return top


def add_prepare_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--linux", required=True, metavar="DIR",
                   help="the Linux 6.12.y tree to prepare")
    p.add_argument("--copy", action="store_true",
                   help="copy the new files instead of linking them")
    p.add_argument("--dry-run", action="store_true",
                   help="only check that everything applies")
    p.add_argument("--outpatch", metavar="FILE",
                   help="write one combined diff instead of changing DIR")


def main(argv: Optional[List[str]] = None,
         prog_parser: Optional[argparse.ArgumentParser] = None) -> int:
    args = (prog_parser or parser()).parse_args(argv)
    try:
        return int(args.func(args))
    except WorkbenchError as exc:
        log(f"error: {exc}")
        return exc.exit_code
    except KeyboardInterrupt:
        log("interrupted")
        return 130


def prepare_kernel_main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(
        prog="prepare-kernel",
        description="Install this project's new files into a Linux 6.12.y "
        "tree and apply the topic series of patches/.  Checks the version, "
        "tries every change on a scratch copy first, and can run again "
        "without harm.")
    add_prepare_options(p)
    p.set_defaults(func=cmd_prepare)
    return main(argv, p)


if __name__ == "__main__":
    sys.exit(main())
