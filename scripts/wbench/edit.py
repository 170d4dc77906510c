# SPDX-License-Identifier: GPL-2.0
"""Edit patches in the middle of the series with git: `workbench edit-series`.

`open DIR` replays the series as commits on the base (as `workbench
series` does) and clones them into DIR, a git repository of its own on
a branch "edit".  Change the commits there with the usual tools (`git
rebase -i base`, `git commit --fixup`, `--autosquash`).  `close DIR`
writes every commit whose change or message differs from the series it
started from back to its file in patches/, in the order of the topic
series there; the others are left byte for byte as they are.

New kernel files are edited in this repository, not in DIR: close checks
that DIR holds the same version of each.  To add a patch, first add its
name to its topic's series file (and create the empty file), then commit
it in DIR at the same place.
"""

from __future__ import annotations

import argparse
import re
import shutil
from pathlib import Path
from typing import Dict, List

from . import export
from .common import REPO, WorkbenchError, log
from .series import read_series

ORIGIN_FILE = "wb-origin"


def _revs(repo: Path, spec: str) -> List[str]:
    return export.git(repo, "rev-list", "--reverse", spec).split()


def cmd_open(args: argparse.Namespace) -> int:
    dest = Path(args.dir).resolve()
    if dest.exists():
        raise WorkbenchError(f"{dest} exists: close it, or remove it first")
    repo = export.base_repo()
    export.replay(repo)
    export.git(repo, "clone", "-q", str(repo), str(dest))
    export.git(dest, "checkout", "-q", "-b", "edit")
    author = read_series()[0].header().author
    name, _, email = author.partition("<")
    export.git(dest, "config", "user.name", name.strip())
    export.git(dest, "config", "user.email", email.rstrip(">").strip())
    (dest / ".git" / ORIGIN_FILE).write_text("".join(
        f"{rev} {patch.name}\n" for rev, patch in
        zip(_revs(dest, "base..HEAD"), read_series())))
    log(f"edit-series: the series is on branch 'edit' of {dest}; change it "
        f"there, then run: scripts/workbench edit-series close {dest}")
    return 0


def same_change(repo: Path, rev: str, orig: str) -> bool:
    """Whether REV makes the change ORIG made, with the same message.  The
    change is the diff against the parent, so a commit that a rebase only
    moved onto a changed earlier commit is the same change."""
    def info(r: str) -> List[str]:
        return [export.git(repo, "diff", f"{r}^", r),
                export.git(repo, "log", "-1", "--format=%B", r)]
    return info(rev) == info(orig)


def changed(repo: Path, revs: List[str], names: List[str],
            origin: Dict[str, str]) -> List[int]:
    """The positions of the commits REVS, of the patches NAMES, that do
    not make the change that ORIGIN (patch name to commit at open) had
    them make.  Matching by name, not by position, keeps a patch added
    or moved in the middle from making every later one look changed."""
    return [i for i, (rev, name) in enumerate(zip(revs, names))
            if name not in origin or not same_change(repo, rev, origin[name])]


def patch_text(repo: Path, rev: str, new_files: List[str]) -> str:
    """REV as a patch file of the series: its diff without NEW_FILES, which
    the series adds whole.  A commit that only adds new files gives its
    header and message alone.  (The range REV^..REV: a pathspec after a
    single revision would pick the last commit that touches the paths.)"""
    excluded = [f":(exclude){rel}" for rel in new_files]
    if not export.git(repo, "diff", f"{rev}^", rev, "--", ".", *excluded):
        text = export.git(repo, "format-patch", "--stdout", f"{rev}^..{rev}")
        return text.split("\n---\n", 1)[0].rstrip("\n") + "\n"
    return export.git(repo, "format-patch", "--stdout", f"{rev}^..{rev}",
                      "--", ".", *excluded)


def cmd_close(args: argparse.Namespace) -> int:
    dest = Path(args.dir).resolve()
    origin_file = dest / ".git" / ORIGIN_FILE
    if not origin_file.exists():
        raise WorkbenchError(f"{dest}: not opened with edit-series open")
    origin: Dict[str, str] = {}
    for line in origin_file.read_text().splitlines():
        rev, _, name = line.partition(" ")
        origin[name] = rev
    series = read_series()
    revs = _revs(dest, "base..HEAD")
    if len(revs) != len(series):
        raise WorkbenchError(f"{dest} has {len(revs)} commits after base, "
                             f"patches/ lists {len(series)} patches")
    for rev, patch in zip(revs, series):
        for rel in patch.new_files:
            ours, theirs = REPO / rel, dest / rel
            if rel.endswith("/") or not theirs.exists():
                continue
            if ours.read_bytes() != theirs.read_bytes():
                log(f"edit-series: warning: {rel} differs in {dest}; new "
                    "files are written from this repository, not from there")
    todo = changed(dest, revs, [p.name for p in series], origin)
    for i in todo:
        rev, patch = revs[i], series[i]
        text = patch_text(dest, rev, patch.new_files)
        # A rewritten patch keeps the date it had
        date = re.search(r"^Date: .*$", patch.path.read_text(), re.M)
        if date:
            stamp = date.group(0)
            text = re.sub(r"^Date: .*$", lambda _: stamp, text, count=1,
                          flags=re.M)
        patch.path.write_text(text)
        log(f"edit-series: wrote patches/{patch.name}")
    log(f"edit-series: {len(todo)} patch(es) written")
    if args.remove:
        shutil.rmtree(dest)
    return 0


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("edit-series", help="edit the series as git commits",
                       description=__doc__)
    actions = p.add_subparsers(dest="action", required=True)
    o = actions.add_parser("open", help="replay the series into DIR")
    o.add_argument("dir", help="a new directory for the git repository")
    o.set_defaults(func=cmd_open)
    c = actions.add_parser("close", help="write DIR's commits back to "
                           "patches/")
    c.add_argument("dir", help="the directory given to open")
    c.add_argument("--remove", action="store_true",
                   help="remove DIR afterwards")
    c.set_defaults(func=cmd_close)
