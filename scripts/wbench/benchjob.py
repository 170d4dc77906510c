# SPDX-License-Identifier: GPL-2.0
"""One guest boot of a benchmark runner (scripts/bench/*/run.py)."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

from .common import REPO, SCRIPTS

WORKBENCH = SCRIPTS / "workbench"


def run_guest_job(config: str, guest_script: Path, settings: Dict[str, str],
                  outdir: Path, run_args: List[str],
                  files: Optional[Dict[str, Path]] = None) -> Path:
    """Boot CONFIG once and run GUEST_SCRIPT in it; return its result file.

    GUEST_SCRIPT runs as /in/guest.sh after the shell variables SETTINGS
    are set; FILES go to /in/NAME.  RUN_ARGS are more `workbench run`
    options (--icount, --no-build, --timeout...).  The guest's /out comes
    back to OUTDIR, and the script must have written /out/result.txt.
    """
    outdir.mkdir(parents=True, exist_ok=True)
    job = outdir / "job.sh"
    job.write_text("".join(f"{name}={shlex.quote(value)}\n"
                           for name, value in settings.items())
                   + ". /in/guest.sh\n")
    cmd = [str(WORKBENCH), "run", config, "--quiet", "--out", str(outdir),
           "--file", f"guest.sh={guest_script}"] + run_args
    for name, path in (files or {}).items():
        cmd += ["--file", f"{name}={path}"]
    cmd.append(str(job))
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    status = subprocess.run(cmd, stdout=sys.stderr).returncode
    result = outdir / "result.txt"
    if status != 0 or not result.exists():
        raise SystemExit(f"{config}: workbench run failed (status {status}); "
                         f"see {outdir}")
    return result


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
    subprocess.run([str(WORKBENCH), "build", name], check=True,
                   stdout=sys.stderr)
