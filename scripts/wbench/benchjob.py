# SPDX-License-Identifier: GPL-2.0
"""One guest boot of a benchmark runner (scripts/bench/*/run.py)."""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Dict, Iterator, Optional, Sequence

from . import build, guest
from .common import REPO, WorkbenchError, log


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send what this process and its children write to stdout to stderr
    instead, for the length of the block: a runner's tables alone go to
    stdout."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def run_guest_job(config: str, guest_script: Path, settings: Dict[str, str],
                  outdir: Path, *, icount: bool = False,
                  smp: Optional[int] = None, timeout: float = 600,
                  append: str = "", plugins: Sequence[str] = (),
                  build_first: bool = False,
                  files: Optional[Dict[str, Path]] = None) -> Path:
    """Boot CONFIG once and run GUEST_SCRIPT in it; return its result file.

    GUEST_SCRIPT runs as /in/guest.sh after the shell variables SETTINGS
    are set; FILES go to /in/NAME.  The boot is `workbench run`'s
    (guest.boot()): -icount with icount, SMP vCPUs (1 with icount, else
    2), a guest that runs longer than TIMEOUT seconds counts as hung,
    APPEND goes on the kernel command line, PLUGINS are QEMU TCG plugin
    specs; with build_first, CONFIG is built first.  The guest's /out
    comes back to OUTDIR, and the script must have written
    /out/result.txt.
    """
    outdir.mkdir(parents=True, exist_ok=True)
    job = "".join(f"{name}={shlex.quote(value)}\n"
                  for name, value in settings.items()) + ". /in/guest.sh\n"
    (outdir / "job.sh").write_text(job)
    status: object = "no boot"
    try:
        if build_first:
            build_config(config)
        kconfig = build.KernelConfig.load(config)
        result = guest.boot(
            kconfig, job, files={"guest.sh": guest_script, **(files or {})},
            out_dir=outdir, smp=smp if smp is not None else
            (1 if icount else 2), icount=icount, append=append,
            timeout=timeout, echo=False, plugins=plugins)
        result.report()
        log(f"console log: {result.log}")
        status = result.exit_code()
    except WorkbenchError as exc:
        log(f"error: {exc}")
        status = f"error: {exc}"
    res = outdir / "result.txt"
    if status != 0 or not res.exists():
        raise SystemExit(f"{config}: the guest run failed (status {status}); "
                         f"see {outdir}")
    return res


def machine(config: str) -> str:
    """The QEMU machine CONFIG boots on, as a method line names it:
    its architecture record's binary, machine and CPU."""
    return build.KernelConfig.load(config).arch.method()


def memory_mb(config: str) -> int:
    """The guest memory CONFIG boots with (QEMU's -m)."""
    return build.KernelConfig.load(config).arch.memory_mb


def cross_compile(config: str) -> str:
    """The cross compiler prefix of CONFIG's architecture."""
    return build.KernelConfig.load(config).arch.cross_compile


def add_run_options(ap: argparse.ArgumentParser) -> None:
    """The options every runner has: --timeout, --keep and --report."""
    ap.add_argument("--timeout", type=int, default=1800,
                    help="seconds before a guest counts as hung "
                    "(default %(default)s)")
    ap.add_argument("--keep", type=Path,
                    help="keep the per-boot results in this directory")
    ap.add_argument("--report", type=Path, help="boot nothing: print the "
                    "tables from a previous --keep directory")


def work_dir(args: argparse.Namespace, prefix: str) -> Path:
    """Where the runner keeps per-boot results: --report, --keep or a
    fresh temporary directory.  Also points the workbench at the
    repository's cache unless WB_CACHE says otherwise."""
    os.environ.setdefault("WB_CACHE", str(REPO / ".cache"))
    work: Path = (args.report or args.keep
                  or Path(tempfile.mkdtemp(prefix=prefix + ".")))
    work.mkdir(parents=True, exist_ok=True)
    return work


def build_config(name: str) -> None:
    """Build config NAME if needed, with the build's output on stderr (it
    would break up the tables on stdout)."""
    with stdout_to_stderr():
        try:
            build.build(name)
        except WorkbenchError as exc:
            raise SystemExit(f"error: {exc}") from exc
