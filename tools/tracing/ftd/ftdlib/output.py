# SPDX-License-Identifier: GPL-2.0
"""Writers: output files, tables (text, CSV, JSON), trees and folded
stacks."""

from __future__ import annotations

import os
import stat
import tempfile
from typing import (Callable, Dict, Iterable, List, Optional,
                    Sequence, TextIO, Tuple)

from .model import FtdError, FuncStats, Node
from .table import Column, dur_col, human, int_col, text_col

class OutFile:
    """An output file that appears only complete: written under a
    temporary name next to it, renamed over it by commit(), removed by
    discard().  A path that is not a regular file (/dev/null, a pipe)
    is written directly."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.tmp: Optional[str] = None
        try:
            st = os.stat(path)
        except FileNotFoundError:
            st = None
        except OSError as err:
            raise FtdError("%s: cannot write: %s" % (path, err.strerror))
        try:
            if st is not None and not stat.S_ISREG(st.st_mode):
                self.file: TextIO = open(path, "w", encoding="utf-8")
                return
            fd, self.tmp = tempfile.mkstemp(
                dir=os.path.dirname(os.path.abspath(path)),
                prefix="." + os.path.basename(path) + ".", suffix=".tmp")
        except OSError as err:
            raise FtdError("%s: cannot write: %s" % (path, err.strerror))
        if st is not None:
            mode = stat.S_IMODE(st.st_mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(fd, mode)
        self.file = os.fdopen(fd, "w", encoding="utf-8")

    def commit(self) -> None:
        self.file.close()
        if self.tmp is not None:
            os.replace(self.tmp, self.path)
            self.tmp = None

    def discard(self) -> None:
        try:
            self.file.close()
        except OSError:
            pass
        if self.tmp is not None:
            try:
                os.unlink(self.tmp)
            except OSError:
                pass
            self.tmp = None

    def __enter__(self) -> TextIO:
        return self.file

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        """Commit what was written when the block ended normally; leave
        nothing half written otherwise."""
        if exc_type is None:
            self.commit()
        self.discard()


SORT_KEYS: Dict[str, Callable[[FuncStats], object]] = {
    "function": lambda f: f.function,
    "count": lambda f: f.count,
    "total": lambda f: f.total,
    "avg": lambda f: f.avg,
    "min": lambda f: f.min if f.count else 0,
    "max": lambda f: f.max,
    "local": lambda f: f.local,
    "oncpu": lambda f: f.oncpu,
}
SORT_ALIASES = {"name": "function", "func": "function", "calls": "count",
                "call": "count", "self": "local", "average": "avg",
                "time": "total"}


# what each sort key means, for the first line of a text report:
# (what the rows are ordered by, what that counts)
SORT_MEANING = {
    "function": ("function name", ""),
    "count": ("number of calls", ""),
    "total": ("total time", "callees and time asleep included "
              "(-s oncpu: time on the CPU)"),
    "avg": ("average time per call", ""),
    "min": ("shortest call", ""),
    "max": ("longest call", ""),
    "local": ("local time", "total less the callees' time"),
    "oncpu": ("time on the CPU", "total less the time the task was "
              "switched out"),
}


def order_line(keys: Sequence[str], reverse: bool,
               rows: str = "") -> str:
    """The first line of a text report: what the order of its rows
    means (and rows: which calls they count, when not all)."""
    first = keys[0]
    label, note = SORT_MEANING[first]
    if first == "function":
        how = "Z to A" if reverse else "A to Z"
    else:
        how = "smallest first" if reverse else "largest first"
    line = "# By %s, %s" % (label, how)
    if note:
        line += ": " + note
    if len(keys) > 1:
        line += "; then by %s" % ", ".join(keys[1:])
    if rows:
        line += "; " + rows
    return line + "\n"


def parse_sort(spec: str) -> List[str]:
    keys = []
    for k in spec.split(","):
        k = k.strip().lower()
        k = SORT_ALIASES.get(k, k)
        if k.endswith("_us"):
            k = k[:-3]
        if k not in SORT_KEYS:
            raise FtdError("unknown sort key %r (use one of: %s)" % (
                k, ", ".join(SORT_KEYS)), 2)
        keys.append(k)
    return keys


def sort_stats(rows: List[FuncStats], keys: Sequence[str],
               reverse: bool = False) -> List[FuncStats]:
    """Numbers sort large first, names A to Z; --reverse flips."""
    out = sorted(rows, key=lambda f: f.function)
    for k in reversed(keys):
        desc = k != "function"
        if reverse:
            desc = not desc
        out.sort(key=SORT_KEYS[k], reverse=desc)  # type: ignore[arg-type]
    return out


def stats_columns(oncpu: bool = False) -> List[Column]:
    """The columns of report, callers and callees: function, count,
    total, average, min, max and local time (and on-CPU time)."""
    cols = [
        text_col("Function", "function", lambda f: f.function, width=48),
        int_col("Count", "count", lambda f: f.count),
        dur_col("Total", "total_us", lambda f: f.total),
        dur_col("Avg", "avg_us", lambda f: f.avg),
        dur_col("Min", "min_us", lambda f: f.min if f.count else 0),
        dur_col("Max", "max_us", lambda f: f.max),
        dur_col("Local", "local_us", lambda f: f.local),
    ]
    if oncpu:
        cols.append(dur_col("OnCPU", "oncpu_us", lambda f: f.oncpu))
    return cols


def write_tree(out: TextIO, top: Node, max_depth: Optional[int],
               min_ns: int, sort: str = "total") -> None:
    """uftrace-graph style: TOTAL : (CALLS) name, children indented.
    The times with units, as in every text table (table.human())."""
    out.write("# %12s %12s %9s  %s\n" % ("TOTAL", "LOCAL", "CALLS",
                                        "FUNCTION"))

    def key(n: Node) -> object:
        if sort == "count":
            return -n.count
        if sort == "function":
            return n.name
        return -n.total

    # iterative pre-order walk with the guide prefix
    stack: List[Tuple[Node, str, bool, int]] = []
    if top.name:
        stack.append((top, "", True, 0))
        first_is_root = True
    else:
        kids = sorted(top.kids.values(), key=key)  # type: ignore
        for i, k in reversed(list(enumerate(kids))):
            stack.append((k, "", True, 0))
        first_is_root = False
    while stack:
        n, prefix, last, depth = stack.pop()
        if depth and n.total < min_ns:
            continue
        guide = ""
        if depth:
            guide = prefix + ("`-" if last else "+-")
        out.write("  %12s %12s %9d  %s%s\n" % (
            human(n.total), human(n.local), n.count, guide, n.name))
        if max_depth is not None and depth >= max_depth:
            continue
        kids = [k for k in n.kids.values() if k.total >= min_ns
                or k.count]
        kids.sort(key=key)  # type: ignore
        child_prefix = prefix + ("  " if last else "| ") if depth else ""
        for i in range(len(kids) - 1, -1, -1):
            stack.append((kids[i], child_prefix, i == len(kids) - 1,
                          depth + 1))
    del first_is_root


def write_folded(out: TextIO, items: Iterable[Tuple[str, int]],
                 weight: str) -> None:
    """One line per stack: microseconds with three decimals for weight
    time, else the integer (ns, or calls)."""
    for stack, v in items:
        if weight == "time":
            out.write("%s %.3f\n" % (stack, v / 1000.0))
        else:
            out.write("%s %d\n" % (stack, v))
