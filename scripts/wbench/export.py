# SPDX-License-Identifier: GPL-2.0
"""Export the series as upstream-style patches: `workbench series`.

The patches are replayed as commits on a git repository of the base
(new files folded into the patch that their topic's series assigns them
to), then each topic is written out with git format-patch into a
directory of its own, NN-topic/, with the cover letter of
patches/NN-topic/cover-letter and a closing paragraph that names the
base and the topics it requires.  --check runs checkpatch.pl --strict on
each patch, applies the topics with git am, one after the other, to a
clean base, and applies each topic alone on the base plus the topics it
requires; --build-topics builds each topic that way; --build-each builds
the patched config after every patch of the whole series
(bisectability).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Tuple

from . import build
from .base import base_tree, kernel_version
from .common import REPO, WorkbenchError, cache_dir, log, run
from .series import (Topic, new_file_at, read_series, read_topics,
                     touched_files)

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


def topic_tag(topic: Topic) -> str:
    return f"topic/{topic.name}"


def replay(repo: Path) -> List[Topic]:
    """Commit each patch of the series on top of base, and tag the last
    commit of each topic "topic/NN-topic"; return the topics."""
    git(repo, "checkout", "-q", "-f", "base")
    git(repo, "clean", "-q", "-f", "-d", "-x")
    topics = read_topics()
    series = [patch for topic in topics for patch in topic.patches]
    done = 0
    for topic in topics:
        for patch in topic.patches:
            header = patch.header()
            done += 1
            if touched_files(patch.path.read_text()):
                git(repo, "apply", "--index", str(patch.path))
            for rel in patch.new_files:
                dest = repo / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                # A later patch changes it: add it as it was before that.
                text = new_file_at(rel, series, done)
                if text is not None:
                    dest.write_text(text)
                    shutil.copymode(REPO / rel, dest)
                else:
                    # Keep links as links (ftd's command is a link to
                    # ftd.py).
                    shutil.copy2(REPO / rel, dest, follow_symlinks=False)
                git(repo, "add", "-f", rel)
            message = header.subject + "\n\n" + header.body
            msg_file = repo / ".git" / "WB_MSG"
            msg_file.write_text(message)
            git(repo, "commit", "-q", "--allow-empty", "--author",
                header.author, "-F", str(msg_file))
        git(repo, "tag", "-f", topic_tag(topic))
    return topics


def base_paragraph(topic: Topic, topics: List[Topic]) -> str:
    """The cover letter's last paragraph: what the topic applies to."""
    base = f"Linux {kernel_version(base_tree())}"
    if not topic.requires:
        return f"Base: {base}, with no other series before it."
    by_name = {t.name: t for t in topics}
    lines = [f"Base: {base}, after these series, in this order:"]
    for name in topic.requires:
        lines.append(f"- {by_name[name].cover_letter()[0]} "
                     f"(patches/{name}/)")
    return "\n".join(lines)


def write_series(repo: Path, topics: List[Topic],
                 out: Path) -> List[Tuple[Topic, List[Path]]]:
    """git format-patch each topic into out/NN-topic/, cover letter
    included; return each topic's patch files."""
    if out.exists():
        shutil.rmtree(out)
    written = []
    since = "base"
    for topic in topics:
        dest = out / topic.name
        # The cover letter is from the author of the topic's first patch
        name, _, email = topic.patches[0].header().author.partition("<")
        git(repo, "-c", f"user.name={name.strip()}", "-c",
            f"user.email={email.rstrip('>').strip()}", "format-patch", "-q",
            "--cover-letter", "--subject-prefix", topic.subject_prefix,
            "-o", str(dest), f"{since}..{topic_tag(topic)}")
        cover = dest / "0000-cover-letter.patch"
        subject, blurb = topic.cover_letter()
        text = cover.read_text()
        text = text.replace("*** SUBJECT HERE ***", subject)
        text = text.replace("*** BLURB HERE ***", blurb.strip() + "\n\n" +
                            base_paragraph(topic, topics))
        cover.write_text(text)
        written.append((topic, sorted(p for p in dest.glob("0*.patch")
                                      if p != cover)))
        since = topic_tag(topic)
    return written


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


MAINTAINERS = "MAINTAINERS"


def check(repo: Path,
          written: List[Tuple[Topic, List[Path]]]) -> Dict[str, List[str]]:
    """checkpatch --strict on every patch, then git am each topic in turn
    onto a clean base.  The problems found, by topic name (MAINTAINERS
    for the new files no entry covers).

    checkpatch's FILE_PATH_CHANGES warning fires for every added file,
    whether or not MAINTAINERS covers it; the check that every new file
    has a maintainer is made with get_maintainer.pl instead.  Its
    UNKNOWN_COMMIT_ID warning fires for every commit a Fixes: tag names:
    the base is the Debian source tree without its git history.
    """
    problems: Dict[str, List[str]] = {MAINTAINERS: unmaintained(repo)}

    def checkpatch(patch: Path) -> subprocess.CompletedProcess[str]:
        return run(["perl", "scripts/checkpatch.pl", "--strict", "--quiet",
                    "--show-types", "--ignore",
                    "FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID", str(patch)],
                   cwd=repo, capture=True, check=False)

    # The patches are independent: one checkpatch per host CPU
    with ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        checked = {patch: pool.submit(checkpatch, patch)
                   for _, patches in written for patch in patches}
        for topic, patches in written:
            mine = problems.setdefault(topic.name, [])
            if not patches:
                mine.append(f"{topic.name}: no patches")
            for patch in patches:
                proc = checked[patch].result()
                if proc.returncode != 0:
                    mine.append(f"{topic.name}: checkpatch --strict: "
                                f"{patch.name}:\n" + proc.stdout.rstrip())
    am = am_worktree(repo)
    for topic, patches in written:
        proc = run(["git", "-C", str(am), "-c", "user.name=workbench", "-c",
                    "user.email=workbench@localhost", "am", "-q"] +
                   [str(p) for p in patches], env=GIT_ENV, capture=True,
                   check=False)
        if proc.returncode != 0:
            problems[topic.name].append(
                f"{topic.name}: git am onto the base and the topics before "
                "it failed:\n" + proc.stdout)
            break
        if git(am, "rev-parse", "HEAD^{tree}") != \
                git(repo, "rev-parse", f"{topic_tag(topic)}^{{tree}}"):
            problems[topic.name].append(
                f"{topic.name}: git am gave a different tree than the "
                "series")
            break
    for topic, _ in written:
        failed = apply_on_own_base(am, topic, written)
        if failed:
            problems[topic.name].append(failed)
    return {key: lines for key, lines in problems.items() if lines}


def am_worktree(repo: Path) -> Path:
    """A fresh worktree of the series repository, at the base."""
    am = cache_dir() / "series" / "am"
    if am.exists():
        git(repo, "worktree", "remove", "--force", str(am))
    git(repo, "worktree", "prune")
    git(repo, "worktree", "add", "-q", "--detach", str(am), "base")
    return am


def apply_on_own_base(am: Path, topic: Topic,
                      written: List[Tuple[Topic, List[Path]]]) -> str:
    """Reset the worktree AM to the base, then git am the topics TOPIC
    requires and TOPIC itself: what a maintainer does with the series
    and its stated prerequisites.  Returns what failed, or ""."""
    patches = {t.name: files for t, files in written}
    git(am, "reset", "-q", "--hard", "base")
    git(am, "clean", "-q", "-f", "-d", "-x")
    for name in topic.requires + [topic.name]:
        proc = run(["git", "-C", str(am), "-c", "user.name=workbench", "-c",
                    "user.email=workbench@localhost", "am", "-q"] +
                   [str(p) for p in patches[name]], env=GIT_ENV,
                   capture=True, check=False)
        if proc.returncode != 0:
            run(["git", "-C", str(am), "am", "--abort"], env=GIT_ENV,
                capture=True, check=False)
            stated = ", ".join(topic.requires) or "no other topic"
            return (f"{topic.name}: does not apply on the base plus the "
                    f"topics it requires ({stated}); git am of {name} "
                    "failed:\n" + proc.stdout)
    return ""


def build_topics(repo: Path,
                 written: List[Tuple[Topic, List[Path]]]) -> List[str]:
    """Build the patched config with each topic applied alone on the base
    plus the topics it requires (options of the config that need other
    topics are left out)."""
    problems = []
    config = build.KernelConfig.load("patched")
    config.name = "topics"
    am = am_worktree(repo)
    for i, (topic, _) in enumerate(written, 1):
        log(f"series: build {i}/{len(written)}: {topic.name} on the base "
            f"plus {', '.join(topic.requires) or 'nothing'}")
        failed = apply_on_own_base(am, topic, written)
        if failed:
            problems.append(failed)
            continue
        try:
            build.configure(config, am, strict=False)
            run(build.make_args(config, am)
                + [config.arch.kernel_target, "modules"],
                what=f"build of {topic.name}")
        except WorkbenchError as exc:
            problems.append(f"{topic.name}: does not build on the base "
                            f"plus what it requires: {exc}")
    return problems


def build_at(repo: Path, head: str, revs: List[str]) -> List[str]:
    """Build the patched config at each of REVS, then go back to HEAD."""
    problems = []
    config = build.KernelConfig.load("patched")
    config.name = "bisect"
    for i, rev in enumerate(revs, 1):
        git(repo, "checkout", "-q", "-f", rev)
        subject = git(repo, "log", "-1", "--format=%s").strip()
        log(f"series: build {i}/{len(revs)}, after: {subject}")
        try:
            build.configure(config, repo, strict=False)
            run(build.make_args(config, repo)
                + [config.arch.kernel_target, "modules"],
                what=f"build after {subject}")
        except WorkbenchError as exc:
            problems.append(f"{subject}: does not build: {exc}")
    git(repo, "checkout", "-q", "-f", head)
    return problems


def build_each(repo: Path, head: str, count: int,
               first: int = 1) -> List[str]:
    """Build the patched config at every patch of the series, from the
    first-th on (a run cut short goes on where it stopped)."""
    return build_at(repo, head, [f"{head}~{count - i}"
                                 for i in range(first, count + 1)])


def cmd_series(args: argparse.Namespace) -> int:
    repo = base_repo()
    topics = replay(repo)
    count = sum(len(t.patches) for t in topics)
    if count == 0:
        log("series: patches/ holds no topic; nothing to export")
        return 0
    if not 1 <= args.build_from <= count:
        raise WorkbenchError(f"--from {args.build_from}: the series has "
                             f"patches 1 to {count}")
    head = git(repo, "rev-parse", "HEAD").strip()
    # Absolute: git format-patch runs in the series repository.
    out = Path(args.out).resolve()
    written = write_series(repo, topics, out)
    for topic, patches in written:
        log(f"series: {out / topic.name}: {len(patches)} patches and a "
            "cover letter")
    problems: List[str] = []
    if args.check or (args.build_each and args.build_from == 1):
        problems += [p for lines in check(repo, written).values()
                     for p in lines]
    if args.build_each:
        problems += build_each(repo, head, count, args.build_from)
    elif args.build_topics:
        problems += build_topics(repo, written)
    for p in problems:
        log(f"series: {p}")
    if args.check or args.build_each or args.build_topics:
        log(f"series: {len(problems)} problem(s)")
    return 1 if problems else 0


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("series", help="export the upstream-style series",
                       description="Write each topic series as git "
                       "format-patch files plus its cover letter, into "
                       "OUT/NN-topic/.")
    p.add_argument("--out", default=str(REPO / "out" / "series"),
                   help="output directory (out/series)")
    p.add_argument("--check", action="store_true",
                   help="checkpatch.pl --strict each patch and git am the "
                   "topics in order onto the base")
    p.add_argument("--build-each", action="store_true",
                   help="also build the patched config after every patch "
                   "(slow)")
    p.add_argument("--build-topics", action="store_true",
                   help="build the patched config with each topic applied "
                   "on the base plus the topics it requires")
    p.add_argument("--from", dest="build_from", type=int, default=1,
                   metavar="N", help="with --build-each: start at patch N, "
                   "without the checks of --check")
    p.set_defaults(func=cmd_series)
