# SPDX-License-Identifier: GPL-2.0
"""Paths, command execution and errors shared by the workbench modules."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Optional, Sequence, Union

REPO = Path(__file__).resolve().parent.parent.parent
SCRIPTS = REPO / "scripts"


def cache_dir() -> Path:
    """Where unpacked sources, builds and guest images live (gitignored)."""
    return Path(os.environ.get("WB_CACHE", str(REPO / ".cache"))).resolve()


class WorkbenchError(Exception):
    """An error the user can act on: printed without a traceback."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@contextlib.contextmanager
def locked(directory: Path, what: str, shared: bool = False
           ) -> Iterator[None]:
    """Hold a lock on directory (a build directory or source tree,
    through the empty file .NAME.lock beside it) for the block: a second
    workbench process that wants it waits for the first one instead of
    writing into it, or reading it, while it is written.  Writers take
    it exclusive, readers shared.  Not reentrant: one holder per
    process."""
    path = directory.parent / f".{directory.name}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    with open(path, "a") as handle:
        try:
            fcntl.flock(handle, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"waiting for another workbench process {what}")
            fcntl.flock(handle, mode)
        yield


def _show(cmd: Sequence[Union[str, Path]], cwd: Optional[Path]) -> str:
    text = "$ " + " ".join(shlex.quote(str(c)) for c in cmd)
    if cwd is not None:
        text = f"$ cd {shlex.quote(str(cwd))} && " + text[2:]
    return text


def run(cmd: Sequence[Union[str, Path]], cwd: Optional[Path] = None,
        env: Optional[Mapping[str, str]] = None, capture: bool = False,
        check: bool = True, what: str = "") -> subprocess.CompletedProcess[str]:
    """Run a command after echoing it, as the workbench always does.

    With capture, stdout and stderr come back in the result; otherwise
    they go to the terminal.  A failure raises WorkbenchError naming
    what failed, unless check is false.
    """
    log(_show(cmd, cwd))
    full_env = None
    if env is not None:
        full_env = dict(os.environ)
        full_env.update(env)
    try:
        proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=full_env,
                              text=True, errors="replace",
                              stdout=subprocess.PIPE if capture else None,
                              stderr=subprocess.STDOUT if capture else None)
    except FileNotFoundError as exc:
        raise WorkbenchError(f"{cmd[0]}: command not found; "
                             "run scripts/install-deps") from exc
    if check and proc.returncode != 0:
        detail = ""
        if capture and proc.stdout:
            detail = "\n" + "\n".join(proc.stdout.splitlines()[-20:])
        raise WorkbenchError(f"{what or cmd[0]} failed "
                             f"(exit {proc.returncode}){detail}")
    return proc


def need_commands(commands: Mapping[str, str], arch_name: str = "") -> None:
    """Fail early, naming the Debian package, when a host tool is missing;
    arch_name names the architecture whose tools they are."""
    missing = [f"{cmd} (package {pkg})" for cmd, pkg in commands.items()
               if shutil.which(cmd) is None]
    if missing:
        raise WorkbenchError("missing host tools: " + ", ".join(missing) +
                             "\n  run: scripts/install-deps"
                             + (f" --arch {arch_name}" if arch_name else ""))


def digest(parts: Iterable[Union[str, bytes, Path]]) -> str:
    """A stable hash of strings, bytes and file contents."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, Path):
            h.update(part.read_bytes() if part.exists() else b"<missing>")
        elif isinstance(part, str):
            h.update(part.encode())
        else:
            h.update(part)
        h.update(b"\0")
    return h.hexdigest()


def write_if_changed(path: Path, text: str) -> bool:
    """Write text unless the file already holds it (keeps mtimes stable)."""
    if path.exists() and path.read_text() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)
    return True
