# SPDX-License-Identifier: GPL-2.0
"""Opening trace files: plain, gzip, xz, bzip2 or stdin, in line batches."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
import time
import zlib
from typing import IO, Any, Iterator, List, Optional

from .model import FtdError

BATCH_BYTES = 1 << 20

MAGICS = (
    (b"\x1f\x8b", "gzip"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"BZh", "bzip2"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"\x5d\x00\x00", "lzma"),
)


class TruncatedInput(FtdError):
    """The compressed data ended early; what was read is still valid."""


class Progress:
    """A one-line progress meter on stderr, shown only on a terminal."""

    def __init__(self, name: str, size: int, enabled: bool) -> None:
        self.name = name
        self.size = size
        self.enabled = enabled and sys.stderr.isatty()
        self.start = time.monotonic()
        self.last = self.start
        self.shown = False

    def update(self, done: int, lines: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last < 0.5:
            return
        self.last = now
        rate = lines / max(now - self.start, 1e-6)
        if self.size > 0:
            pct = min(100.0, 100.0 * done / self.size)
            msg = "ftd: %s %5.1f%% %d lines (%.0f K lines/s)" % (
                self.name, pct, lines, rate / 1000)
        else:
            msg = "ftd: %s %d lines (%.0f K lines/s)" % (
                self.name, lines, rate / 1000)
        sys.stderr.write("\r" + msg + "\x1b[K")
        sys.stderr.flush()
        self.shown = True

    def finish(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.shown = False


class TraceInput:
    """A trace file opened for reading as text line batches."""

    def __init__(self, path: str, progress: bool = False) -> None:
        self.path = path
        self.name = "<stdin>" if path == "-" else path
        self.compression = "none"
        self.raw: IO[bytes]
        try:
            if path == "-":
                self.raw = sys.stdin.buffer
                size = 0
            else:
                self.raw = open(path, "rb")
                size = os.fstat(self.raw.fileno()).st_size
        except OSError as err:
            raise FtdError("%s: cannot open: %s" % (
                self.name, err.strerror or err)) from None
        self.size = size
        head = self._peek(8)
        stream: Any = self.raw
        for magic, kind in MAGICS:
            if head.startswith(magic):
                self.compression = kind
                break
        if self.compression == "gzip":
            stream = gzip.GzipFile(fileobj=self.raw, mode="rb")
        elif self.compression == "xz" or self.compression == "lzma":
            stream = lzma.LZMAFile(self.raw, mode="rb")
        elif self.compression == "bzip2":
            stream = bz2.BZ2File(self.raw, mode="rb")
        elif self.compression == "zstd":
            raise FtdError("%s: zstd-compressed input is not supported; "
                           "decompress it first (zstd -d)" % self.name)
        self.stream = io.BufferedReader(stream, 1 << 16) \
            if not isinstance(stream, io.BufferedReader) else stream
        self.text = io.TextIOWrapper(self.stream, encoding="utf-8",
                                     errors="replace", newline=None)
        self.progress = Progress(os.path.basename(self.name), size, progress)
        self._checked = False

    def _peek(self, n: int) -> bytes:
        raw = self.raw
        if isinstance(raw, io.BufferedReader):
            return raw.peek(n)[:n]
        if raw.seekable():
            pos = raw.tell()
            data = raw.read(n)
            raw.seek(pos)
            return data
        return b""

    def _check_binary(self) -> None:
        try:
            sample = self.stream.peek(4096)[:4096]
        except (EOFError, OSError, lzma.LZMAError, zlib.error) as err:
            raise FtdError("%s: damaged %s data: %s" % (
                self.name, self.compression, err)) from None
        if b"\x00" in sample:
            raise FtdError(
                "%s: binary data, not a text trace (for a trace-cmd "
                "trace.dat use `trace-cmd report`, or save "
                "/sys/kernel/tracing/trace as text)" % self.name)

    def batches(self) -> Iterator[List[str]]:
        """Yield lists of lines (with newline), about 1 MB at a time."""
        if not self._checked:
            self._check_binary()
            self._checked = True
        readlines = self.text.readlines
        lines = 0
        while True:
            try:
                batch = readlines(BATCH_BYTES)
            except EOFError:
                raise TruncatedInput(
                    "%s: truncated %s file: the compressed data ends "
                    "early (after about %d lines)" % (
                        self.name, self.compression, lines)) from None
            except (OSError, lzma.LZMAError, zlib.error, ValueError) as err:
                raise FtdError("%s: read error after about %d lines: %s" % (
                    self.name, lines, err)) from None
            if not batch:
                break
            lines += len(batch)
            if self.progress.enabled:
                try:
                    done = self.raw.tell() if self.raw.seekable() else 0
                except OSError:
                    done = 0
                self.progress.update(done, lines)
            yield batch
        self.progress.finish()

    def close(self) -> None:
        self.progress.finish()
        if self.raw is not sys.stdin.buffer:
            try:
                self.raw.close()
            except OSError:
                pass


def open_trace(path: str, progress: bool = False) -> TraceInput:
    return TraceInput(path, progress)
