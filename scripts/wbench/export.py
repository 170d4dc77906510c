# SPDX-License-Identifier: GPL-2.0
"""Export the series as upstream-style patches: `workbench series`.

The patches are replayed as commits on a git repository of the base
(new files folded into the patch that patches/series assigns them to),
then written out with git format-patch and a cover letter taken from
patches/cover-letter.  --check runs checkpatch.pl --strict on each patch
and applies them all with git am to a clean base; --build-each builds
the patched config after every patch (bisectability).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import List

from . import build
from .base import base_tree
from .common import REPO, WorkbenchError, cache_dir, log, run
from .series import read_series, touched_files

COVER = REPO / "patches" / "cover-letter"
GIT_ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: Path, *args: str, capture: bool = True) -> str:
    return run(["git", "-C", str(repo), "-c", "user.name=workbench", "-c",
                "user.email=workbench@localhost", *args], env=GIT_ENV,
               capture=capture, what="git " + args[0]).stdout or ""


def base_repo() -> Path:
    """A git repository whose tag 'base' is the base tree (made once)."""
    base = base_tree()
    repo = cache_dir() / "series" / "git"
    stamp = cache_dir() / "series" / "base-path"
    if stamp.exists() and stamp.read_text() == str(base) and \
            (repo / ".git").is_dir():
        return repo
    if repo.exists():
        shutil.rmtree(repo)
    repo.mkdir(parents=True)
    run(["rsync", "-a", "--exclude=/.git", "--exclude=/.wb-prepared",
         f"{base}/", f"{repo}/"], what="copying the base")
    git(repo, "init", "-q")
    # Debian's tree ignores its whole top level in .gitignore: force.
    git(repo, "add", "-f", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "tag", "base")
    stamp.write_text(str(base))
    return repo


def replay(repo: Path) -> int:
    """Commit each patch of the series on top of base; return the count."""
    git(repo, "checkout", "-q", "-f", "base")
    git(repo, "clean", "-q", "-f", "-d", "-x")
    series = read_series()
    for patch in series:
        header = patch.header()
        if touched_files(patch.path.read_text()):
            git(repo, "apply", "--index", str(patch.path))
        for rel in patch.new_files:
            dest = repo / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            # Keep links as links (ftd's command is a link to ftd.py).
            shutil.copy2(REPO / rel, dest, follow_symlinks=False)
            git(repo, "add", "-f", rel)
        message = header.subject + "\n\n" + header.body
        msg_file = repo / ".git" / "WB_MSG"
        msg_file.write_text(message)
        git(repo, "commit", "-q", "--allow-empty", "--author", header.author,
            "-F", str(msg_file))
    return len(series)


def write_series(repo: Path, out: Path) -> List[Path]:
    if out.exists():
        shutil.rmtree(out)
    git(repo, "format-patch", "-q", "--cover-letter", "-o", str(out),
        "base..HEAD")
    patches = sorted(out.glob("0*.patch"))
    cover = out / "0000-cover-letter.patch"
    if cover.exists() and COVER.exists():
        subject, _, blurb = COVER.read_text().partition("\n")
        text = cover.read_text()
        text = text.replace("*** SUBJECT HERE ***", subject.strip())
        text = text.replace("*** BLURB HERE ***", blurb.strip())
        cover.write_text(text)
    return [p for p in patches if p != cover]


def unmaintained(repo: Path) -> List[str]:
    """New files that no MAINTAINERS entry covers (HEAD of the series)."""
    problems = []
    for patch in read_series():
        for rel in patch.new_files:
            proc = run(["perl", "scripts/get_maintainer.pl", "--no-git",
                        "--no-git-fallback", "--no-rolestats", "--no-l",
                        "--no-r", "-f", rel], cwd=repo, capture=True,
                       check=False)
            if proc.returncode != 0 or "@" not in proc.stdout:
                problems.append(f"MAINTAINERS: no entry covers {rel} "
                                f"(added by {patch.name})")
    return problems


def check(repo: Path, patches: List[Path]) -> List[str]:
    """checkpatch --strict on every patch, then git am onto a clean base.

    checkpatch's FILE_PATH_CHANGES warning fires for every added file,
    whether or not MAINTAINERS covers it; the check that every new file
    has a maintainer is made with get_maintainer.pl instead.  Its
    UNKNOWN_COMMIT_ID warning fires for every commit a Fixes: tag names:
    the base is the Debian source tree without its git history.
    """
    problems = unmaintained(repo)
    for patch in patches:
        proc = run(["perl", "scripts/checkpatch.pl", "--strict", "--quiet",
                    "--show-types", "--ignore",
                    "FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID",
                    str(patch)], cwd=repo, capture=True, check=False)
        if proc.returncode != 0:
            problems.append(f"checkpatch --strict: {patch.name}:\n"
                            + proc.stdout.rstrip())
    am = cache_dir() / "series" / "am"
    if am.exists():
        git(repo, "worktree", "remove", "--force", str(am))
    git(repo, "worktree", "prune")
    git(repo, "worktree", "add", "-q", "--detach", str(am), "base")
    proc = run(["git", "-C", str(am), "-c", "user.name=workbench", "-c",
                "user.email=workbench@localhost", "am", "-q"] +
               [str(p) for p in patches], env=GIT_ENV, capture=True,
               check=False)
    if proc.returncode != 0:
        problems.append("git am onto the base failed:\n" + proc.stdout)
    elif git(am, "rev-parse", "HEAD^{tree}") != \
            git(repo, "rev-parse", "HEAD^{tree}"):
        problems.append("git am gave a different tree than the series")
    return problems


def build_each(repo: Path, head: str, count: int,
               first: int = 1) -> List[str]:
    """Build the patched config at every patch of the series, from the
    first-th on (a run cut short goes on where it stopped)."""
    problems = []
    config = build.KernelConfig.load("patched")
    config.name = "bisect"
    for i in range(first, count + 1):
        git(repo, "checkout", "-q", "-f", f"{head}~{count - i}")
        subject = git(repo, "log", "-1", "--format=%s").strip()
        log(f"series: building after patch {i}/{count}: {subject}")
        try:
            build.configure(config, repo, strict=False)
            run(build.make_args(config, repo) + ["zImage", "modules"],
                what=f"build after patch {i}")
        except WorkbenchError as exc:
            problems.append(f"patch {i} ({subject}) does not build: {exc}")
    git(repo, "checkout", "-q", "-f", head)
    return problems


def cmd_series(args: argparse.Namespace) -> int:
    repo = base_repo()
    count = replay(repo)
    if count == 0:
        log("series: patches/series is empty; nothing to export")
        return 0
    if not 1 <= args.build_from <= count:
        raise WorkbenchError(f"--from {args.build_from}: the series has "
                             f"patches 1 to {count}")
    head = git(repo, "rev-parse", "HEAD").strip()
    # Absolute: git format-patch runs in the series repository.
    out = Path(args.out).resolve()
    patches = write_series(repo, out)
    log(f"series: wrote {len(patches)} patches and a cover letter to {out}")
    problems: List[str] = []
    if args.check or (args.build_each and args.build_from == 1):
        problems += check(repo, patches)
    if args.build_each:
        problems += build_each(repo, head, count, args.build_from)
    for p in problems:
        log(f"series: {p}")
    if args.check or args.build_each:
        log(f"series: {len(problems)} problem(s)")
    return 1 if problems else 0


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("series", help="export the upstream-style series",
                       description="Write the series as git format-patch "
                       "files plus a cover letter.")
    p.add_argument("--out", default=str(REPO / "out" / "series"),
                   help="output directory (out/series)")
    p.add_argument("--check", action="store_true",
                   help="checkpatch.pl --strict each patch and git am them "
                   "onto the base")
    p.add_argument("--build-each", action="store_true",
                   help="also build the patched config after every patch "
                   "(slow)")
    p.add_argument("--from", dest="build_from", type=int, default=1,
                   metavar="N", help="with --build-each: start at patch N, "
                   "without the checks of --check")
    p.set_defaults(func=cmd_series)
