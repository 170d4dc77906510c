# SPDX-License-Identifier: GPL-2.0
"""The patch series: patches/series, its patches and the new files.

patches/series lists the patches in the order they apply.  A line that
is not indented names a patch file in patches/.  The indented lines
under it name the new files, at their in-tree paths in this repository,
that belong to that patch; a path ending in "/" names every new file
under that directory.  Every new file belongs to exactly one patch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List

from .common import REPO, WorkbenchError

# Top-level directories of a kernel tree.  Files under these in this
# repository are new kernel files; everything else is the workbench.
KERNEL_DIRS = ("arch", "block", "certs", "crypto", "Documentation", "drivers",
               "fs", "include", "init", "io_uring", "ipc", "kernel", "lib",
               "mm", "net", "rust", "samples", "security", "sound", "tools",
               "usr", "virt")
IGNORED_PARTS = {"__pycache__", ".pytest_cache", ".mypy_cache", ".hypothesis"}
IGNORED_SUFFIXES = (".pyc", ".pyo", "~", ".swp")


def touched_files(patch_text: str) -> List[str]:
    """The in-tree paths a patch's diff changes, creates or deletes."""
    files: List[str] = []
    for line in patch_text.splitlines():
        m = re.match(r"^(?:---|\+\+\+) (?:a|b)/(\S+)", line)
        if m and m.group(1) not in files:
            files.append(m.group(1))
    return files


@dataclass
class Patch:
    name: str
    path: Path
    new_files: List[str] = field(default_factory=list)

    def text(self) -> str:
        return self.path.read_text()

    def header(self) -> "PatchHeader":
        return PatchHeader.parse(self.name, self.text())


@dataclass
class PatchHeader:
    author: str
    subject: str
    body: str

    @classmethod
    def parse(cls, name: str, text: str) -> "PatchHeader":
        """Read author, subject and message of a git format-patch file."""
        lines = text.splitlines()
        author = subject = ""
        i = 0
        while i < len(lines) and lines[i].strip():
            line = lines[i]
            if line.startswith("From: "):
                author = line[6:].strip()
            elif line.startswith("Subject: "):
                subject = line[9:].strip()
                while i + 1 < len(lines) and lines[i + 1].startswith((" ", "\t")):
                    i += 1
                    subject += " " + lines[i].strip()
            i += 1
        subject = re.sub(r"^\[PATCH[^\]]*\]\s*", "", subject)
        body: List[str] = []
        for line in lines[i + 1:]:
            if line == "---" or line.startswith("diff --git "):
                break
            body.append(line)
        if not author or not subject:
            raise WorkbenchError(f"patches/{name}: not in git format-patch "
                                 "form (no From: or Subject: header)")
        return cls(author, subject, "\n".join(body).strip() + "\n")


def new_files(repo: Path = REPO) -> List[str]:
    """The new kernel files this repository holds, as in-tree paths."""
    found: List[str] = []
    for top in KERNEL_DIRS:
        root = repo / top
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(repo)
            if (path.is_dir() or IGNORED_PARTS & set(rel.parts)
                    or path.name.endswith(IGNORED_SUFFIXES)):
                continue
            found.append(rel.as_posix())
    return found


def read_series(repo: Path = REPO) -> List[Patch]:
    """Parse patches/series and check it against the repository."""
    series_file = repo / "patches" / "series"
    patches: List[Patch] = []
    owner: Dict[str, str] = {}
    for lineno, raw in enumerate(series_file.read_text().splitlines(), 1):
        where = f"patches/series:{lineno}"
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if not line[0].isspace():
            patch = Patch(line.strip(), repo / "patches" / line.strip())
            if not patch.path.is_file():
                raise WorkbenchError(f"{where}: no such patch: "
                                     f"patches/{patch.name}")
            if any(p.name == patch.name for p in patches):
                raise WorkbenchError(f"{where}: {patch.name} listed twice")
            patches.append(patch)
            continue
        if not patches:
            raise WorkbenchError(f"{where}: a new file before any patch")
        rel = line.strip()
        if rel.endswith("/"):
            # A directory: every new file under it.
            members = [f for f in new_files(repo) if f.startswith(rel)]
            if not members:
                raise WorkbenchError(f"{where}: no new files under {rel}")
        elif (repo / rel).is_file():
            members = [rel]
        else:
            raise WorkbenchError(f"{where}: no such new file: {rel}")
        for member in members:
            if member in owner:
                raise WorkbenchError(f"{where}: {member} is already in "
                                     f"{owner[member]}")
            owner[member] = patches[-1].name
            patches[-1].new_files.append(member)
    unassigned = [f for f in new_files(repo) if f not in owner]
    if unassigned:
        raise WorkbenchError(
            "new files that patches/series assigns to no patch:\n  " +
            "\n  ".join(unassigned) +
            "\n  list each under the patch that adds it")
    return patches
