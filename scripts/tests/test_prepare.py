# SPDX-License-Identifier: GPL-2.0
"""The apply step on a small tree shaped like Linux 6.12, with real patch(1)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Tuple

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wbench.common import WorkbenchError, locked  # noqa: E402
from wbench.prepare import STATE_DIR, prepare_kernel  # noqa: E402
from wbench.series import PatchHeader, read_series, read_topics  # noqa: E402

FOO = "int foo(void)\n{\n\treturn 1;\n}\n" + "".join(
    f"int line{i};\n" for i in range(20))


def make_patch(name: str, subject: str, old: str, new: str) -> str:
    return (f"From 0000 Mon Sep 17 00:00:00 2001\n"
            f"From: A Developer <dev@example.org>\n"
            f"Subject: [PATCH] {subject}\n\n"
            f"Body of {name}.\n\nSigned-off-by: A Developer <dev@example.org>\n"
            f"---\n"
            f"diff --git a/kernel/foo.c b/kernel/foo.c\n"
            f"--- a/kernel/foo.c\n+++ b/kernel/foo.c\n"
            "@@ -1,5 +1,5 @@\n int foo(void)\n {\n"
            f"-\t{old}\n+\t{new}\n }}\n int line0;\n")


TOPIC = Path("patches") / "01-foo"


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path]:
    tree = tmp_path / "linux"
    (tree / "kernel").mkdir(parents=True)
    (tree / "Makefile").write_text("VERSION = 6\nPATCHLEVEL = 12\n"
                                   "SUBLEVEL = 117\nEXTRAVERSION =\n")
    (tree / "kernel" / "foo.c").write_text(FOO)
    repo = tmp_path / "repo"
    (repo / TOPIC).mkdir(parents=True)
    (repo / "kernel").mkdir()
    (repo / "kernel" / "bar.c").write_text("int bar;\n")
    (repo / TOPIC / "0001-foo.patch").write_text(
        make_patch("0001", "kernel: Return two", "return 1;", "return 2;"))
    (repo / TOPIC / "series").write_text(
        "# test series\n0001-foo.patch\n\tkernel/bar.c\n")
    (repo / TOPIC / "cover-letter").write_text("kernel: foo\n\nText.\n")
    return tree, repo


def test_apply_links_new_files_and_is_idempotent(setup: tuple[Path, Path]) -> None:
    tree, repo = setup
    prepare_kernel(tree, repo=repo)
    assert "return 2;" in (tree / "kernel/foo.c").read_text()
    bar = tree / "kernel/bar.c"
    assert bar.is_symlink() and os.readlink(bar) == str(repo / "kernel/bar.c")
    before = (tree / "kernel/foo.c").stat().st_mtime_ns
    prepare_kernel(tree, repo=repo)
    assert (tree / "kernel/foo.c").stat().st_mtime_ns == before
    assert (tree / "kernel/foo.c").read_text().count("return 2;") == 1


def test_changed_patch_is_reverted_then_reapplied(setup: tuple[Path, Path]) -> None:
    tree, repo = setup
    prepare_kernel(tree, repo=repo)
    (repo / TOPIC / "0001-foo.patch").write_text(
        make_patch("0001", "kernel: Return three", "return 1;", "return 3;"))
    prepare_kernel(tree, repo=repo, copy=True)
    text = (tree / "kernel/foo.c").read_text()
    assert "return 3;" in text and "return 2;" not in text
    bar = tree / "kernel/bar.c"
    assert not bar.is_symlink() and bar.read_text() == "int bar;\n"


def test_broken_patch_names_patch_file_and_hunk(setup: tuple[Path, Path]) -> None:
    tree, repo = setup
    (repo / TOPIC / "0002-bad.patch").write_text(
        make_patch("0002", "kernel: Broken", "return 42;", "return 43;"))
    (repo / TOPIC / "series").write_text(
        "0001-foo.patch\n\tkernel/bar.c\n0002-bad.patch\n")
    with pytest.raises(WorkbenchError) as err:
        prepare_kernel(tree, repo=repo)
    msg = str(err.value)
    assert "patches/01-foo/0002-bad.patch does not apply" in msg
    assert "kernel/foo.c" in msg and "Hunk #1 FAILED" in msg
    # The dry run failed first, so nothing in the tree changed.
    assert (tree / "kernel/foo.c").read_text() == FOO
    assert not (tree / "kernel/bar.c").exists()
    assert not (tree / STATE_DIR).exists()


def test_outpatch_leaves_tree_alone(setup: tuple[Path, Path], tmp_path: Path) -> None:
    tree, repo = setup
    out = tmp_path / "all.diff"
    prepare_kernel(tree, repo=repo, outpatch=out)
    diff = out.read_text()
    assert "+\treturn 2;" in diff and "+int bar;" in diff
    assert (tree / "kernel/foo.c").read_text() == FOO
    # The combined diff recreates the prepared tree with patch(1).
    os.system(f"patch -s -p1 -d {tree} < {out}")
    assert "return 2;" in (tree / "kernel/foo.c").read_text()
    assert (tree / "kernel/bar.c").read_text() == "int bar;\n"


def test_dry_run_changes_nothing(setup: tuple[Path, Path]) -> None:
    tree, repo = setup
    prepare_kernel(tree, repo=repo, dry_run=True)
    assert (tree / "kernel/foo.c").read_text() == FOO
    assert not (tree / STATE_DIR).exists()


def test_other_version_is_refused(setup: tuple[Path, Path]) -> None:
    tree, repo = setup
    (tree / "Makefile").write_text("VERSION = 6\nPATCHLEVEL = 6\n"
                                   "SUBLEVEL = 60\nEXTRAVERSION =\n")
    with pytest.raises(WorkbenchError, match=r"is Linux 6\.6\.60.*6\.12\.y"):
        prepare_kernel(tree, repo=repo)


def test_unassigned_new_file_is_an_error(setup: tuple[Path, Path]) -> None:
    _, repo = setup
    (repo / "kernel" / "stray.c").write_text("int stray;\n")
    with pytest.raises(WorkbenchError, match="kernel/stray.c"):
        read_series(repo)


def test_new_file_that_exists_upstream_is_refused(setup: tuple[Path, Path]) -> None:
    tree, repo = setup
    (tree / "kernel" / "bar.c").write_text("upstream\n")
    with pytest.raises(WorkbenchError, match="not one of this project's"):
        prepare_kernel(tree, repo=repo)
    assert (tree / "kernel/bar.c").read_text() == "upstream\n"


def test_file_a_patch_created_may_become_a_new_file(
        setup: tuple[Path, Path]) -> None:
    """A patch that created kernel/baz.c itself, applied, then keeps the
    file in the repository instead: the revert removes the tree's copy."""
    tree, repo = setup
    patch = repo / TOPIC / "0001-foo.patch"
    inline = patch.read_text() + (
        "diff --git a/kernel/baz.c b/kernel/baz.c\n"
        "new file mode 100644\n--- /dev/null\n+++ b/kernel/baz.c\n"
        "@@ -0,0 +1 @@\n+int baz;\n")
    patch.write_text(inline)
    prepare_kernel(tree, repo=repo)
    assert (tree / "kernel/baz.c").read_text() == "int baz;\n"
    patch.write_text(make_patch("0001", "kernel: Return two", "return 1;",
                                "return 2;"))
    (repo / "kernel" / "baz.c").write_text("int baz = 1;\n")
    (repo / TOPIC / "series").write_text(
        "0001-foo.patch\n\tkernel/bar.c\n\tkernel/baz.c\n")
    prepare_kernel(tree, repo=repo)
    assert (tree / "kernel/baz.c").read_text() == "int baz = 1;\n"
    assert (tree / "kernel/foo.c").read_text().count("return 2;") == 1


def test_directory_entry_takes_every_file(setup: tuple[Path, Path]) -> None:
    _, repo = setup
    (repo / "kernel" / "sub").mkdir()
    (repo / "kernel" / "sub" / "a.c").write_text("int a;\n")
    (repo / TOPIC / "series").write_text(
        "0001-foo.patch\n\tkernel/bar.c\n\tkernel/sub/\n")
    assert read_series(repo)[0].new_files == ["kernel/bar.c", "kernel/sub/a.c"]


def test_topics_apply_in_the_order_of_their_names(
        setup: tuple[Path, Path]) -> None:
    tree, repo = setup
    second = repo / "patches" / "02-bar"
    second.mkdir()
    (second / "0002-foo.patch").write_text(
        make_patch("0002", "kernel: Return four", "return 2;", "return 4;"))
    (second / "series").write_text("0002-foo.patch\n")
    topics = read_topics(repo)
    assert [t.name for t in topics] == ["01-foo", "02-bar"]
    assert [p.name for p in read_series(repo)] == [
        "01-foo/0001-foo.patch", "02-bar/0002-foo.patch"]
    prepare_kernel(tree, repo=repo)
    assert "return 4;" in (tree / "kernel/foo.c").read_text()
    with pytest.raises(WorkbenchError, match="02-bar/cover-letter: missing"):
        topics[1].cover_letter()


def _three_topics(repo: Path) -> None:
    """01-foo, then 02-bar and 03-baz, each changing foo() again."""
    for n, (old, new) in ((2, ("return 2;", "return 4;")),
                          (3, ("return 4;", "return 8;"))):
        topic = repo / "patches" / f"0{n}-t{n}"
        topic.mkdir()
        (topic / f"000{n}-foo.patch").write_text(
            make_patch(f"000{n}", f"kernel: Step {n}", old, new))
        (topic / "series").write_text(f"000{n}-foo.patch\n")


def test_requires_lists_earlier_topics_in_order(
        setup: tuple[Path, Path]) -> None:
    _, repo = setup
    _three_topics(repo)
    (repo / "patches/02-t2/requires").write_text("01-foo\n")
    (repo / "patches/03-t3/requires").write_text("# what 03 needs\n"
                                                 "01-foo\n02-t2\n")
    topics = read_topics(repo)
    assert [t.requires for t in topics] == [[], ["01-foo"],
                                            ["01-foo", "02-t2"]]


@pytest.mark.parametrize("listed, message", [
    ("02-t2\n", "02-t2 requires 01-foo: list it too"),
    ("03-t3\n", "03-t3 is not a topic that comes before"),
    ("02-t2\n01-foo\n", "in the order the topics apply"),
    ("01-foo\n01-foo\n02-t2\n", "list each topic once"),
])
def test_bad_requires_is_refused(setup: tuple[Path, Path], listed: str,
                                 message: str) -> None:
    _, repo = setup
    _three_topics(repo)
    (repo / "patches/02-t2/requires").write_text("01-foo\n")
    (repo / "patches/03-t3/requires").write_text(listed)
    with pytest.raises(WorkbenchError,
                       match=f"patches/03-t3/requires: .*{message}"):
        read_topics(repo)


def test_series_upto_a_patch_applies_only_that_far(
        setup: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    tree, repo = setup
    _three_topics(repo)
    monkeypatch.setenv("WB_SERIES_UPTO", "02-t2/0002-foo.patch")
    prepare_kernel(tree, repo=repo)
    assert "return 4;" in (tree / "kernel/foo.c").read_text()
    monkeypatch.setenv("WB_SERIES_UPTO", "")
    prepare_kernel(tree, repo=repo)
    assert "return 8;" in (tree / "kernel/foo.c").read_text()
    monkeypatch.setenv("WB_SERIES_UPTO", "02-t2/none.patch")
    with pytest.raises(WorkbenchError, match="no such patch"):
        prepare_kernel(tree, repo=repo)


def test_not_for_posting_comes_last(setup: tuple[Path, Path]) -> None:
    _, repo = setup
    local = repo / "patches" / "00-tools-not-for-posting"
    local.mkdir()
    (local / "series").write_text("")
    with pytest.raises(WorkbenchError, match="must come after"):
        read_topics(repo)


def test_patch_file_the_series_does_not_list(setup: tuple[Path, Path]) -> None:
    _, repo = setup
    (repo / TOPIC / "0009-stray.patch").write_text("")
    with pytest.raises(WorkbenchError, match="does not list: 0009-stray.patch"):
        read_series(repo)


def test_topic_directory_name_is_checked(setup: tuple[Path, Path]) -> None:
    _, repo = setup
    (repo / "patches" / "misc").mkdir()
    with pytest.raises(WorkbenchError, match="patches/misc: a topic"):
        read_series(repo)


def test_folded_from_header_keeps_the_email() -> None:
    text = ("From 1234 Mon Sep 17 00:00:00 2001\n"
            "From: A Long Name Of Maintainers\n <maint@example.org>\n"
            "Date: Mon, 23 Nov 2026 09:53:42 +0000\n"
            "Subject: [PATCH] kernel: A subject long enough to be\n"
            " folded\n\nBody.\n---\n")
    header = PatchHeader.parse("01-foo/x.patch", text)
    assert header.author == "A Long Name Of Maintainers <maint@example.org>"
    assert header.subject == "kernel: A subject long enough to be folded"


def _bar_changed_later(repo: Path) -> None:
    """01-foo adds kernel/bar.c; 02-bar's patch then changes it."""
    (repo / "kernel" / "bar.c").write_text("int bar;\nint baz;\n")
    topic = repo / "patches" / "02-bar"
    topic.mkdir()
    (topic / "0002-bar.patch").write_text(
        "From 0000 Mon Sep 17 00:00:00 2001\n"
        "From: A Developer <dev@example.org>\n"
        "Subject: [PATCH] kernel: Add baz\n\nBody.\n\n"
        "Signed-off-by: A Developer <dev@example.org>\n---\n"
        "diff --git a/kernel/bar.c b/kernel/bar.c\n"
        "--- a/kernel/bar.c\n+++ b/kernel/bar.c\n"
        "@@ -1 +1,2 @@\n int bar;\n+int baz;\n")
    (topic / "series").write_text("0002-bar.patch\n")


def test_later_patch_may_change_a_new_file(
        setup: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    tree, repo = setup
    _bar_changed_later(repo)
    bar = tree / "kernel/bar.c"
    # Up to the patch that adds it: as it was before the later change
    monkeypatch.setenv("WB_SERIES_UPTO", "01-foo/0001-foo.patch")
    prepare_kernel(tree, repo=repo)
    assert not bar.is_symlink() and bar.read_text() == "int bar;\n"
    # The whole series: this repository's version, linked again
    monkeypatch.setenv("WB_SERIES_UPTO", "")
    prepare_kernel(tree, repo=repo)
    assert bar.is_symlink() and bar.read_text() == "int bar;\nint baz;\n"
    prepare_kernel(tree, repo=repo)
    assert bar.read_text() == "int bar;\nint baz;\n"


def test_later_change_that_does_not_undo_is_named(
        setup: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    tree, repo = setup
    _bar_changed_later(repo)
    (repo / "kernel" / "bar.c").write_text("int other;\n")
    monkeypatch.setenv("WB_SERIES_UPTO", "01-foo/0001-foo.patch")
    with pytest.raises(WorkbenchError,
                       match="kernel/bar.c: the change patches/02-bar/"
                       "0002-bar.patch makes to it does not undo"):
        prepare_kernel(tree, repo=repo)


HOLD = """
import sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from wbench.common import locked
with locked(Path(sys.argv[2]), "holding", shared=sys.argv[3] == "shared"):
    print("held", flush=True)
    sys.stdin.readline()
"""


def hold(locked_dir: Path, mode: str) -> "subprocess.Popen[str]":
    """Another process holding locked_dir's lock, shared or exclusive,
    until a line on its stdin."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD,
         str(Path(__file__).resolve().parents[1]), str(locked_dir), mode],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    assert holder.stdout.readline() == "held\n"
    return holder


def take(locked_dir: Path, shared: bool
         ) -> Tuple[threading.Thread, threading.Event]:
    """A thread that takes locked_dir's lock, and the event it sets once
    it holds it."""
    got = threading.Event()

    def taker() -> None:
        with locked(locked_dir, "building patched", shared):
            got.set()
    thread = threading.Thread(target=taker)
    thread.start()
    return thread, got


@pytest.mark.parametrize("held, shared", [
    # make check builds kernels ahead in another process: a step that
    # wants the same build directory or tree waits until it is free
    ("exclusive", False),
    # a guest packing a config's modules waits for its build to end
    ("exclusive", True),
    # and a build for the guests that read them
    ("shared", False)])
def test_a_second_process_waits_for_the_lock_and_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], held: str,
        shared: bool) -> None:
    locked_dir = tmp_path / "sub" / "patched"
    holder = hold(locked_dir, held)
    try:
        assert holder.stdin is not None
        taker, got = take(locked_dir, shared)
        assert not got.wait(1.0)
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert got.wait(30)
        taker.join()
    finally:
        holder.kill()
        holder.wait()
    assert "waiting for another workbench process building patched" in \
        capsys.readouterr().err
    # free again: taken at once, without a word
    with locked(locked_dir, "building patched"):
        pass
    assert "waiting" not in capsys.readouterr().err


def test_readers_share_the_lock(tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    """Guests of one config (ftracetest's, in two threads) pack its
    modules at the same time."""
    locked_dir = tmp_path / "patched"
    holder = hold(locked_dir, "shared")
    # a thread: were it refused, the holder's end lets it go
    taker, got = take(locked_dir, shared=True)
    try:
        assert got.wait(10)
    finally:
        holder.kill()
        holder.wait()
        taker.join()
    assert "waiting" not in capsys.readouterr().err


def test_an_interrupted_preparation_starts_again_from_a_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """make check's builds ahead can be stopped while they prepare the
    patched tree; a patch half applied must not be taken for applied."""
    from wbench import build
    base = tmp_path / "base"
    base.mkdir()
    (base / "Makefile").write_text(
        "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\nEXTRAVERSION =\n")
    monkeypatch.setenv("KSRC", str(base))
    monkeypatch.setenv("WB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(build, "prepare_kernel", lambda tree: None)
    tree = build.patched_tree()
    assert (tree / "Makefile").is_file()

    def stopped(tree: Path) -> None:
        (tree / "kernel").mkdir()
        (tree / "kernel" / "half-patched.c").write_text("<<<")
        raise KeyboardInterrupt
    monkeypatch.setattr(build, "prepare_kernel", stopped)
    with pytest.raises(KeyboardInterrupt):
        build.patched_tree()
    monkeypatch.setattr(build, "prepare_kernel", lambda tree: None)
    assert build.patched_tree() == tree
    assert not (tree / "kernel").exists()
    assert (tree / ".wb-base").read_text() == str(base)
