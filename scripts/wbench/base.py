# SPDX-License-Identifier: GPL-2.0
"""The pinned base kernel: Linux 6.12.y, by default Debian's 6.12.117."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from .common import WorkbenchError, cache_dir, locked, log, run

BASE_TARBALL = Path("/usr/src/linux-source-6.12.tar.xz")
BASE_PACKAGE = "linux-source-6.12 (6.12.117-1~deb12u1)"
BASE_VERSION = "6.12.117"
SERIES_MAJOR = (6, 12)


def kernel_version(tree: Path) -> str:
    """The version a kernel tree's top Makefile declares, e.g. 6.12.117."""
    makefile = tree / "Makefile"
    if not makefile.is_file():
        raise WorkbenchError(f"{tree}: not a kernel tree (no Makefile)")
    fields = {}
    for line in makefile.read_text(errors="replace").splitlines()[:12]:
        m = re.match(r"^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)\s*=\s*(.*)$",
                     line)
        if m:
            fields[m.group(1)] = m.group(2).strip()
    try:
        return "{VERSION}.{PATCHLEVEL}.{SUBLEVEL}{EXTRAVERSION}".format(**fields)
    except KeyError as exc:
        raise WorkbenchError(f"{makefile}: no {exc.args[0]} line; "
                             "not a kernel tree") from exc


def check_version(tree: Path) -> str:
    """Refuse any tree that is not 6.12.y: the series is written for it."""
    version = kernel_version(tree)
    m = re.match(r"^(\d+)\.(\d+)\.", version + ".")
    if not m or (int(m.group(1)), int(m.group(2))) != SERIES_MAJOR:
        raise WorkbenchError(
            f"{tree} is Linux {version}, but this series is for Linux "
            f"{SERIES_MAJOR[0]}.{SERIES_MAJOR[1]}.y (tested on {BASE_VERSION});"
            " pass KSRC=<a 6.12.y tree> or unset KSRC to use the pinned base")
    return version


def unpack(tree: Path) -> None:
    tree.parent.mkdir(parents=True, exist_ok=True)
    log(f"unpacking the base kernel into {tree}")
    # Unpack beside the final place and rename, so that an interrupted
    # unpack never leaves a half tree that looks complete.
    tmp = Path(tempfile.mkdtemp(prefix="unpack.", dir=tree.parent))
    try:
        run(["tar", "-xJf", BASE_TARBALL, "-C", tmp], what="unpacking the base")
        (tmp / "linux-source-6.12").rename(tree)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def base_tree() -> Path:
    """The unpatched base tree: $KSRC if given, else the unpacked package."""
    ksrc = os.environ.get("KSRC")
    if ksrc:
        tree = Path(ksrc).resolve()
        if not tree.is_dir():
            raise WorkbenchError(f"KSRC={ksrc}: no such directory")
        check_version(tree)
        return tree
    tree = cache_dir() / "src" / "linux-source-6.12"
    if (tree / "Makefile").is_file():
        check_version(tree)
        return tree
    if not BASE_TARBALL.is_file():
        raise WorkbenchError(f"{BASE_TARBALL} is missing: install the "
                             f"package {BASE_PACKAGE} with scripts/install-deps")
    with locked(tree, f"unpacking {tree}"):
        # another process may have unpacked it while this one waited
        if not (tree / "Makefile").is_file():
            unpack(tree)
    version = check_version(tree)
    if version != BASE_VERSION:
        raise WorkbenchError(f"{BASE_TARBALL} holds Linux {version}, expected "
                             f"{BASE_VERSION}: install {BASE_PACKAGE}")
    return tree
