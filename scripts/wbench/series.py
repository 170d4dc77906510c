# SPDX-License-Identifier: GPL-2.0
"""The patch series: topics of patches in patches/, and the new files.

patches/ holds one directory per topic series, named NN-topic; they apply
in the order of their names.  Each holds its patches, a cover letter
("cover-letter": subject line, blank line, text) and a file "series"
that lists the topic's patches in the order they apply.  In "series", a
line that is not indented names a patch file of the directory; the
indented lines under it name the new files, at their in-tree paths in
this repository, that belong to that patch (a path ending in "/" names
every new file under that directory).  Every new file belongs to exactly
one patch, the one that adds it; a later patch may change it with a
diff, as it changes any other file.  The file in this repository is the
version at the end of the series: the patch that adds it adds it with
the changes of the later patches undone (new_file_at()).  A topic whose name ends in "-not-for-posting" holds what
exists only to measure: it applies last and is never sent upstream.
An optional file "subject-prefix" replaces the "PATCH" of the subjects
(for instance "PATCH 6.12.y" for fixes meant for one stable tree).  An
optional file "requires" names, one per line, the earlier topics that must
be applied before this one (all of them: the prerequisites of a
prerequisite are listed too); without it the topic applies to the base
alone.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Collection, Dict, List, Optional, Tuple

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


def _split_diffs(patch_text: str) -> List[Tuple[Optional[str], str]]:
    """PATCH_TEXT cut before each "diff --git": the path each part
    changes (None for the header before the first) and its text."""
    parts = re.split(r"(?m)^(?=diff --git )", patch_text)
    out: List[Tuple[Optional[str], str]] = [(None, parts[0])]
    for part in parts[1:]:
        m = re.match(r"diff --git a/\S+ b/(\S+)", part)
        out.append((m.group(1) if m else None, part))
    return out


def without_files(patch_text: str, files: Collection[str]) -> str:
    """PATCH_TEXT without its diffs of FILES."""
    return "".join(text for rel, text in _split_diffs(patch_text)
                   if rel is None or rel not in files)


def only_file(patch_text: str, rel: str) -> str:
    """The diff of REL in PATCH_TEXT, without the rest."""
    return "".join(text for r, text in _split_diffs(patch_text) if r == rel)


NOT_FOR_POSTING = "-not-for-posting"


@dataclass
class Patch:
    name: str  # "topic/file.patch", its path under patches/
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
            # A long header goes on in indented lines (RFC 5322 folding)
            while i + 1 < len(lines) and lines[i + 1].startswith((" ", "\t")):
                i += 1
                line += " " + lines[i].strip()
            if line.startswith("From: "):
                author = line[6:].strip()
            elif line.startswith("Subject: "):
                subject = line[9:].strip()
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


@dataclass
class Topic:
    name: str  # the directory under patches/, "NN-topic"
    path: Path
    patches: List[Patch] = field(default_factory=list)

    @property
    def for_posting(self) -> bool:
        return not self.name.endswith(NOT_FOR_POSTING)

    @property
    def subject_prefix(self) -> str:
        """What goes in the brackets of each subject: what the topic's
        "subject-prefix" file says, if it has one."""
        custom = self.path / "subject-prefix"
        if custom.is_file():
            return custom.read_text().strip()
        return "PATCH" if self.for_posting else "NOT FOR POSTING"

    @property
    def requires(self) -> List[str]:
        """The names of the topics this one applies after, from its
        "requires" file, in the order they apply."""
        listed = self.path / "requires"
        if not listed.is_file():
            return []
        return [line.split("#", 1)[0].strip()
                for line in listed.read_text().splitlines()
                if line.split("#", 1)[0].strip()]

    def cover_letter(self) -> Tuple[str, str]:
        """The cover letter's subject and text."""
        where = f"patches/{self.name}/cover-letter"
        cover = self.path / "cover-letter"
        if not cover.is_file():
            raise WorkbenchError(f"{where}: missing")
        subject, _, text = cover.read_text().partition("\n")
        if not subject.strip() or not text.strip():
            raise WorkbenchError(f"{where}: needs a subject line, a blank "
                                 "line and the text")
        return subject.strip(), text.strip() + "\n"


def read_topics(repo: Path = REPO) -> List[Topic]:
    """Parse every patches/NN-topic/series and check them against the
    repository."""
    root = repo / "patches"
    topics = [Topic(d.name, d) for d in sorted(root.iterdir())
              if d.is_dir()] if root.is_dir() else []
    for topic in topics:
        if not re.fullmatch(r"\d\d-[a-z0-9.-]+", topic.name):
            raise WorkbenchError(f"patches/{topic.name}: a topic directory "
                                 "is named NN-topic (two digits, a dash, "
                                 "then lower case letters, digits, dots "
                                 "and dashes)")
        if not (topic.path / "series").is_file():
            raise WorkbenchError(f"patches/{topic.name}: no series file")
    posting = [t.for_posting for t in topics]
    if posting != sorted(posting, reverse=True):
        raise WorkbenchError("patches/: the -not-for-posting topics must "
                             "come after all the others")
    _check_requires(topics)
    owner: Dict[str, str] = {}
    seen: List[str] = []
    for topic in topics:
        _read_topic(repo, topic, owner, seen)
    unassigned = [f for f in new_files(repo) if f not in owner]
    if unassigned:
        raise WorkbenchError(
            "new files that no patches/*/series assigns to a patch:\n  " +
            "\n  ".join(unassigned) +
            "\n  list each under the patch that adds it")
    return topics


def _check_requires(topics: List[Topic]) -> None:
    """Each topic requires earlier topics only, in their order, and with
    everything they require in turn."""
    earlier: Dict[str, Topic] = {}
    order = [t.name for t in topics]
    for topic in topics:
        where = f"patches/{topic.name}/requires"
        needed = topic.requires
        for name in needed:
            if name not in earlier:
                raise WorkbenchError(f"{where}: {name} is not a topic that "
                                     "comes before this one")
            missing = [n for n in earlier[name].requires if n not in needed]
            if missing:
                raise WorkbenchError(f"{where}: {name} requires "
                                     f"{', '.join(missing)}: list it too")
        if needed != sorted(needed, key=order.index) or \
                len(set(needed)) != len(needed):
            raise WorkbenchError(f"{where}: list each topic once, in the "
                                 "order the topics apply")
        earlier[topic.name] = topic


def _read_topic(repo: Path, topic: Topic, owner: Dict[str, str],
                seen: List[str]) -> None:
    series_file = topic.path / "series"
    listed: List[str] = []
    for lineno, raw in enumerate(series_file.read_text().splitlines(), 1):
        where = f"patches/{topic.name}/series:{lineno}"
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if not line[0].isspace():
            file = line.strip()
            patch = Patch(f"{topic.name}/{file}", topic.path / file)
            if "/" in file or not patch.path.is_file():
                raise WorkbenchError(f"{where}: no such patch: "
                                     f"patches/{patch.name}")
            if file in seen:
                raise WorkbenchError(f"{where}: {file} is listed twice")
            seen.append(file)
            listed.append(file)
            topic.patches.append(patch)
            continue
        if not topic.patches:
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
            owner[member] = topic.patches[-1].name
            topic.patches[-1].new_files.append(member)
    if not topic.patches:
        raise WorkbenchError(f"patches/{topic.name}/series lists no patch")
    stray = sorted(p.name for p in topic.path.glob("*.patch")
                   if p.name not in listed)
    if stray:
        raise WorkbenchError(f"patches/{topic.name}: patches its series "
                             f"does not list: {', '.join(stray)}")


def new_file_at(rel: str, series: List[Patch], upto: int,
                repo: Path = REPO) -> Optional[str]:
    """New file REL as it is after the first UPTO patches of SERIES: this
    repository's version with the changes that the later patches make to
    it undone, newest first; None when no later patch changes it (the
    repository's version is the one)."""
    later = [p for p in series[upto:] if rel in touched_files(p.text())]
    if not later:
        return None
    with tempfile.TemporaryDirectory(prefix="wb-newfile.") as tmp:
        dest = Path(tmp) / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / rel, dest)
        for patch in reversed(later):
            proc = subprocess.run(
                ["patch", "-p1", "-R", "--fuzz=0", "--no-backup-if-mismatch",
                 "-r", "-", "-d", tmp], input=only_file(patch.text(), rel),
                text=True, capture_output=True)
            if proc.returncode != 0:
                raise WorkbenchError(
                    f"{rel}: the change patches/{patch.name} makes to it "
                    "does not undo from this repository's version:\n  " +
                    "\n  ".join((proc.stdout + proc.stderr).splitlines()[-6:]))
        return dest.read_text()


def read_series(repo: Path = REPO) -> List[Patch]:
    """Every patch of every topic, in the order they apply."""
    return [p for t in read_topics(repo) for p in t.patches]
