# SPDX-License-Identifier: GPL-2.0
"""The apply step: put this project into a kernel tree.

It installs the new files at their in-tree paths (symbolic links by
default, copies on request) and applies the topic series of patches/.
What it did is recorded in the tree (.wb-prepared/), so that running it
again changes nothing, and a changed series is brought in by reverting only the
patches that changed and applying their new versions.  Every change is
first tried on a scratch copy of the files it touches; a patch that does
not apply is named with its failing file and hunk, and the tree is left
as it was.
"""

from __future__ import annotations

import filecmp
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .base import check_version
from .common import REPO, WorkbenchError, log
from .series import (Patch, new_file_at, read_series, touched_files,
                     without_files)

STATE_DIR = ".wb-prepared"


@dataclass
class State:
    """What an earlier run installed into a tree."""
    applied: List[Tuple[str, str]] = field(default_factory=list)  # name, text
    files: Dict[str, str] = field(default_factory=dict)  # path -> link|copy

    @classmethod
    def load(cls, tree: Path) -> "State":
        path = tree / STATE_DIR / "state.json"
        if not path.exists():
            return cls()
        data = json.loads(path.read_text())
        applied = [(name, (tree / STATE_DIR / "patches" / name).read_text())
                   for name in data["applied"]]
        return cls(applied, dict(data["files"]))

    def save(self, tree: Path) -> None:
        sdir = tree / STATE_DIR
        pdir = sdir / "patches"
        pdir.mkdir(parents=True, exist_ok=True)
        names = [name for name, _ in self.applied]
        for name, text in self.applied:
            (pdir / name).parent.mkdir(parents=True, exist_ok=True)
            (pdir / name).write_text(text)
        # Names are "topic/file.patch": remove what is gone, then the
        # topic directories left empty.
        for old in sorted(pdir.rglob("*"), reverse=True):
            rel = old.relative_to(pdir).as_posix()
            if old.is_file() and rel not in names:
                old.unlink()
            elif old.is_dir() and not any(old.iterdir()):
                old.rmdir()
        tmp = sdir / "state.json.tmp"
        tmp.write_text(json.dumps({"applied": names, "files": self.files},
                                  indent=1, sort_keys=True) + "\n")
        tmp.replace(sdir / "state.json")


def _patch(tree: Path, name: str, text: str, reverse: bool = False) -> None:
    """Apply (or revert) one patch with patch(1), strictly: no fuzz."""
    if not touched_files(text):
        return
    cmd = ["patch", "-p1", "--fuzz=0", "--no-backup-if-mismatch", "-r", "-",
           "-N", "-d", str(tree)]
    if reverse:
        cmd.insert(1, "-R")
    proc = subprocess.run(cmd, input=text, text=True, capture_output=True)
    if proc.returncode == 0:
        return
    out = proc.stdout + proc.stderr
    failures: List[str] = []
    current = "?"
    for line in out.splitlines():
        m = re.match(r"^(?:patching|checking) file (\S+)", line)
        if m:
            current = m.group(1)
        elif "FAILED" in line or "can't find file" in line or \
                "previously applied" in line or "No such file" in line:
            failures.append(f"{current}: {line.strip()}")
    action = "revert" if reverse else "apply"
    detail = "\n  ".join(failures or out.strip().splitlines()[-8:])
    hint = ("the tree was changed by hand since it was prepared"
            if reverse else "refresh the patch against the base")
    raise WorkbenchError(f"patches/{name} does not {action} cleanly:\n  "
                         f"{detail}\n  ({hint})")


# Names the last patch to apply (NN-topic/FILE.patch), to build and
# measure a state of the series rather than all of it.
UPTO_ENV = "WB_SERIES_UPTO"


def series_upto(series: List[Patch]) -> List[Patch]:
    """SERIES up to and including the patch that WB_SERIES_UPTO names;
    all of it when the variable is unset or empty."""
    upto = os.environ.get(UPTO_ENV, "")
    if not upto:
        return series
    names = [p.name for p in series]
    if upto not in names:
        raise WorkbenchError(f"{UPTO_ENV}={upto}: no such patch in "
                             "patches/*/series (name it NN-topic/FILE.patch)")
    return series[:names.index(upto) + 1]


class Preparer:
    def __init__(self, tree: Path, copy: bool = False,
                 repo: Path = REPO) -> None:
        self.tree = tree.resolve()
        self.copy = copy
        self.repo = repo
        self.version = check_version(self.tree)
        self.full = read_series(repo)
        self.series = series_upto(self.full)
        self.state = State.load(self.tree)
        # The new files are installed whole after the patches, as they
        # are at the last patch applied: a patch's changes to one of
        # them are left out when it is applied.
        self.new = {rel for p in self.full for rel in p.new_files}

    def text(self, patch: Patch) -> str:
        """PATCH as it is applied: without its changes to new files."""
        return without_files(patch.text(), self.new)

    def new_file(self, rel: str) -> Optional[str]:
        """New file REL as it is at the last patch applied, or None when
        it is this repository's version."""
        return new_file_at(rel, self.full, len(self.series), self.repo)

    def plan(self, from_base: bool = False) -> Tuple[List[Tuple[str, str]],
                                                      List[Patch]]:
        """Patches to revert (newest first) and to apply, in order."""
        keep = 0
        if not from_base:
            for (name, text), patch in zip(self.state.applied, self.series):
                if name != patch.name or text != self.text(patch):
                    break
                keep += 1
        return list(reversed(self.state.applied[keep:])), self.series[keep:]

    def simulate(self, scratch: Path, from_base: bool = False) -> Path:
        """Run the plan on copies of the touched files under scratch.

        Returns the directory holding the files as they were before the
        plan and leaves the result in scratch/b.
        """
        revert, apply = self.plan(from_base)
        touched = sorted({f for _, text in revert for f in touched_files(text)} |
                         {f for p in apply
                          for f in touched_files(self.text(p))})
        before, after = scratch / "a", scratch / "b"
        for rel in touched:
            src = self.tree / rel
            if src.is_file():
                (after / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, after / rel)
        after.mkdir(parents=True, exist_ok=True)
        for name, text in revert:
            _patch(after, name, text, reverse=True)
        shutil.copytree(after, before)
        for patch in apply:
            _patch(after, patch.name, self.text(patch))
        return before

    def check_new_files(self) -> None:
        # A file that an applied patch created (and its revert removes)
        # may become a new file of the project
        revert, _ = self.plan()
        reverted = {f for _, text in revert for f in touched_files(text)}
        for patch in self.series:
            for rel in patch.new_files:
                dest = self.tree / rel
                if (dest.exists() or dest.is_symlink()) and \
                        rel not in self.state.files and rel not in reverted:
                    raise WorkbenchError(
                        f"{dest} exists in the tree but is not one of this "
                        f"project's files; patches/ says {patch.name} "
                        "adds it as a new file")

    def check(self) -> Tuple[List[Tuple[str, str]], List[Patch]]:
        """Try the whole change on scratch copies; raise if any part fails."""
        self.check_new_files()
        with tempfile.TemporaryDirectory(prefix="wb-prepare.") as tmp:
            self.simulate(Path(tmp))
        return self.plan()

    def dry_run(self) -> None:
        revert, apply = self.check()
        for name, _ in revert:
            log(f"would revert {name}")
        for patch in apply:
            log(f"would apply {patch.name}")
        log(f"dry run: {self.tree} ({self.version}) takes the series cleanly")

    def write_outpatch(self, out: Path) -> None:
        """One combined diff of the series against the base, tree untouched."""
        with tempfile.TemporaryDirectory(prefix="wb-prepare.") as tmp:
            scratch = Path(tmp)
            self.simulate(scratch, from_base=True)
            for patch in self.series:
                for rel in patch.new_files:
                    (scratch / "b" / rel).parent.mkdir(parents=True,
                                                       exist_ok=True)
                    shutil.copy2(self.repo / rel, scratch / "b" / rel)
                    text = self.new_file(rel)
                    if text is not None:
                        (scratch / "b" / rel).write_text(text)
            proc = subprocess.run(["diff", "-urN", "a", "b"], cwd=scratch,
                                  capture_output=True, text=True)
            if proc.returncode > 1:
                raise WorkbenchError(f"diff failed: {proc.stderr.strip()}")
            out.write_text(proc.stdout)
        log(f"wrote the combined diff to {out}")

    def apply(self) -> None:
        revert, apply = self.check()
        for name, text in revert:
            log(f"reverting {name}")
            _patch(self.tree, name, text, reverse=True)
            self.state.applied.pop()
            self.state.save(self.tree)
        for patch in apply:
            log(f"applying {patch.name}")
            _patch(self.tree, patch.name, self.text(patch))
            self.state.applied.append((patch.name, self.text(patch)))
            self.state.save(self.tree)
        self.install_new_files()
        log(f"{self.tree} ({self.version}): {len(self.series)} patches "
            f"applied, {len(self.state.files)} new files "
            f"{'copied' if self.copy else 'linked'}")

    def install_new_files(self) -> None:
        wanted = {rel for p in self.series for rel in p.new_files}
        for rel in sorted(set(self.state.files) - wanted):
            dest = self.tree / rel
            if dest.is_symlink() or dest.is_file():
                dest.unlink()
            del self.state.files[rel]
        mode = "copy" if self.copy else "link"
        for rel in sorted(wanted):
            src, dest = self.repo / rel, self.tree / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            text = self.new_file(rel)
            if text is not None:
                # An earlier version than this repository's: a copy
                if dest.is_symlink():
                    dest.unlink()
                if not dest.exists() or dest.read_text() != text:
                    dest.write_text(text)
                    shutil.copymode(src, dest)
                self.state.files[rel] = "copy"
                continue
            if self.copy:
                if dest.is_symlink():
                    dest.unlink()
                if not dest.exists() or not filecmp.cmp(src, dest,
                                                        shallow=False):
                    shutil.copy2(src, dest)
            elif not (dest.is_symlink() and os.readlink(dest) == str(src)):
                if dest.exists() or dest.is_symlink():
                    dest.unlink()
                dest.symlink_to(src)
            self.state.files[rel] = mode
        self.state.save(self.tree)


def prepare_kernel(tree: Path, copy: bool = False, dry_run: bool = False,
                   outpatch: Optional[Path] = None, repo: Path = REPO) -> None:
    preparer = Preparer(tree, copy=copy, repo=repo)
    if outpatch is not None:
        preparer.write_outpatch(outpatch)
    elif dry_run:
        preparer.dry_run()
    else:
        preparer.apply()
