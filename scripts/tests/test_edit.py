# SPDX-License-Identifier: GPL-2.0
"""edit-series close: which commits it writes back, and as what text."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Dict

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wbench.edit import changed, patch_text, same_change  # noqa: E402


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=Dev", "-c",
         "user.email=dev@example.org", *args],
        check=True, capture_output=True, text=True).stdout.strip()


def commit(repo: Path, subject: str, files: Dict[str, str]) -> str:
    for name, text in files.items():
        (repo / name).write_text(text)
        git(repo, "add", name)
    git(repo, "commit", "-q", "-m", f"{subject}\n\nWhy {subject}.")
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def history(tmp_path: Path) -> Dict[str, str]:
    """base, A (changes a.txt), B (adds new.txt only), C (changes b.txt);
    then the same B and C again on A2, a changed A."""
    repo = tmp_path
    git(repo, "init", "-q")
    base = commit(repo, "base", {"a.txt": "a\n", "b.txt": "b\n"})
    revs = {"repo": str(repo), "A": commit(repo, "A", {"a.txt": "a1\n"})}
    revs["B"] = commit(repo, "B", {"new.txt": "new\n"})
    revs["C"] = commit(repo, "C", {"b.txt": "b1\n"})
    git(repo, "checkout", "-q", "-b", "edit", base)
    revs["A2"] = commit(repo, "A", {"a.txt": "a2\n"})
    git(repo, "cherry-pick", revs["B"], revs["C"])
    revs["B2"] = git(repo, "rev-parse", "HEAD^")
    revs["C2"] = git(repo, "rev-parse", "HEAD")
    return revs


def test_moved_commit_is_the_same_change(history: Dict[str, str]) -> None:
    repo = Path(history["repo"])
    assert same_change(repo, history["B2"], history["B"])
    assert same_change(repo, history["C2"], history["C"])
    assert not same_change(repo, history["A2"], history["A"])


def test_new_message_is_a_change(history: Dict[str, str]) -> None:
    repo = Path(history["repo"])
    git(repo, "commit", "-q", "--amend", "-m", "C\n\nAnother reason.")
    assert not same_change(repo, "HEAD", history["C"])


def test_commit_adding_only_new_files_gives_its_header(
        history: Dict[str, str]) -> None:
    text = patch_text(Path(history["repo"]), history["B2"], ["new.txt"])
    assert "Subject: [PATCH] B" in text
    assert "Why B." in text
    assert "diff --git" not in text
    assert text.endswith("Why B.\n")


def test_patch_text_is_the_commit_itself(history: Dict[str, str]) -> None:
    text = patch_text(Path(history["repo"]), history["C2"], ["new.txt"])
    assert "Subject: [PATCH] C" in text
    assert "diff --git a/b.txt b/b.txt" in text
    assert "new.txt" not in text


def test_patch_added_in_the_middle_leaves_the_later_ones(
        history: Dict[str, str]) -> None:
    """A new patch N between A and B: B and C moved, but made the same
    change as before, so only N is to be written."""
    repo = Path(history["repo"])
    git(repo, "reset", "-q", "--hard", history["A"])
    new = commit(repo, "N", {"n.txt": "n\n"})
    git(repo, "cherry-pick", history["B"], history["C"])
    revs = [history["A"], new, git(repo, "rev-parse", "HEAD^"),
            git(repo, "rev-parse", "HEAD")]
    origin = {"t/a.patch": history["A"], "t/b.patch": history["B"],
              "t/c.patch": history["C"]}
    names = ["t/a.patch", "t/n.patch", "t/b.patch", "t/c.patch"]
    assert changed(repo, revs, names, origin) == [1]
    # By position, as close once compared, B and C would look changed
    by_position = dict(zip(names, origin.values()))
    assert changed(repo, revs, names, by_position) == [1, 2, 3]
