# SPDX-License-Identifier: GPL-2.0
"""What the workbench reads in a guest's console and in test output.

All of the workbench's result parsing, in one module (as
tools/testing/kunit/kunit_parser.py holds kunit.py's): the console lines
of the guest's /init (exit status, errors) and the kernel's oopses;
ftracetest's results as the per-test job of `workbench selftest`
reports them (Watcher), and as its KTAP output under run_kselftest.sh
(KtapFollower); KUnit's test case lines in a kernel log, and kunit.py's
--json results.  The modules that run tests decide what the results
mean; this one only reads them.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from .common import WorkbenchError

# The guest's console: a line that says the kernel went wrong
OOPS_RE = re.compile(r"Internal error: Oops|Unable to handle kernel|"
                     r"BUG: |WARNING: CPU: |kernel BUG at|"
                     r"Kernel panic - not syncing")


# /init's last line: "wb-exit TOKEN STATUS", TOKEN new for each boot so
# that a job cannot fake it; and its report of a failure of its own.
GUEST_ERROR = "wb-guest-error:"


def exit_re(token: str) -> "re.Pattern[str]":
    """The exit line of the boot whose token is token."""
    return re.compile(rf"wb-exit {token} (\d+)")


def guest_error(line: str) -> Optional[str]:
    """What /init reported as its failure on this line, if it did."""
    if GUEST_ERROR not in line:
        return None
    return line.split(GUEST_ERROR, 1)[1].strip()


# ftracetest's results; SKIP is KTAP's word for UNTESTED and UNSUPPORTED
# (workbench kselftest)
RESULTS = ("PASS", "FAIL", "UNRESOLVED", "UNTESTED", "UNSUPPORTED", "XFAIL",
           "UNDEFINED", "SKIP")
# Kinds of result the workbench adds when a test takes the guest down.
CRASHES = ("HANG", "PANIC", "OOPS")
GOOD = ("PASS",)
# Results of a test that could not run what it tests.
NOT_RUN = ("UNSUPPORTED", "UNRESOLVED")


# The lines of selftest.JOB around each test file
RESULT_RE = re.compile(r"wb-test-result (\S+) ([A-Z]+)\s*$")
BEGIN_RE = re.compile(r"wb-test-begin (\S+)")
END_RE = re.compile(r"wb-test-end (\S+)")


@dataclass
class Results:
    results: Dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    boots: int = 0
    durations: Dict[str, float] = field(default_factory=dict)

    def counts(self) -> Dict[str, int]:
        out: Dict[str, int] = {}
        for r in self.results.values():
            out[r] = out.get(r, 0) + 1
        return out

    def summary(self) -> str:
        counts = self.counts()
        order = list(RESULTS) + list(CRASHES)
        return f"{len(self.results)} results: " + ", ".join(
            f"{counts[r]} {r}" for r in order if r in counts)

    def save(self, path: Path, header: List[str]) -> None:
        lines = [f"# {h}" for h in header]
        lines.append(f"# run time: {self.seconds:.0f} s in {self.boots} "
                     f"boot(s); {self.summary()}")
        lines += [f"{name}\t{res}" for name, res in sorted(self.results.items())]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n")

    def save_durations(self, path: Path) -> None:
        """Seconds per test, slowest first."""
        path.write_text("".join(
            f"{sec:7.1f} {name}\n" for name, sec in
            sorted(self.durations.items(), key=lambda kv: -kv[1])))

    @classmethod
    def load(cls, path: Path) -> "Results":
        res = cls()
        for lineno, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            name, sep, result = line.partition("\t")
            if not sep or result not in RESULTS + CRASHES:
                raise WorkbenchError(f"{path}:{lineno}: want 'TEST<TAB>RESULT'")
            res.results[name] = result
        return res


class Watcher:
    """Follows the console of one boot and records results as they come."""

    def __init__(self, results: Results, per_test_timeout: float) -> None:
        self.results = results
        self.per_test_timeout = per_test_timeout
        self.current: Optional[str] = None
        self.started = 0.0
        self.oopsed = False
        self.done: List[str] = []

    def line(self, text: str) -> Optional[str]:
        m = BEGIN_RE.search(text)
        if m:
            self.current, self.started, self.oopsed = m.group(1), \
                time.monotonic(), False
            return None
        m = RESULT_RE.search(text)
        if m and self.current:
            self.results.results[m.group(1)] = m.group(2)
            return None
        if OOPS_RE.search(text) and self.current:
            self.oopsed = True
            return None
        m = END_RE.search(text)
        if m and self.current:
            self.done.append(self.current)
            self.results.durations[self.current] = \
                time.monotonic() - self.started
            if self.oopsed:
                # The test finished, but the kernel it leaves is suspect:
                # mark it and go on from a fresh boot.
                self.mark("OOPS")
                self.current = None
                return "kernel oops during a test; rebooting for the rest"
            self.current = None
        return None

    def tick(self) -> Optional[str]:
        if self.current and \
                time.monotonic() - self.started > self.per_test_timeout:
            return (f"{self.current} ran longer than "
                    f"{self.per_test_timeout:.0f} s")
        return None

    def mark(self, kind: str) -> None:
        """Record a crash against the part of the current test it hit."""
        assert self.current is not None
        got = self.results.results
        if kind == "OOPS":
            for name in (self.current, self.current + "(instance)"):
                if name in got or name == self.current:
                    got[name] = kind
        elif self.current in got:
            got[self.current + "(instance)"] = kind
        else:
            got[self.current] = kind


def crash_kind(failure: str, oopsed: bool) -> str:
    """PANIC, OOPS or HANG: how a guest failure took a test down."""
    if "panic" in failure:
        return "PANIC"
    if "oops" in failure.lower() or oopsed:
        return "OOPS"
    return "HANG"


# A result of ftracetest -K, one level into run_kselftest.sh's TAP:
# "# ok 3 Basic trace clock test", "# not ok 9 (instance) foo # UNRESOLVED"
KTAP_RE = re.compile(r"^# (ok|not ok) (\d+) (.*?)(?: # (\w+))?\s*$")
# ftracetest's KTAP result and comment -> its result word
KTAP_RESULTS = {("ok", None): "PASS", ("not ok", None): "FAIL",
                ("not ok", "UNRESOLVED"): "UNRESOLVED",
                ("ok", "SKIP"): "SKIP", ("ok", "XFAIL"): "XFAIL",
                ("not ok", "error"): "UNDEFINED"}


class KtapFollower:
    """Follows the console of a run_kselftest.sh boot: records each of
    ftracetest's KTAP results under its test's name, and knows which
    result was due when the guest went down."""

    def __init__(self, results: Results,
                 order: List[Tuple[str, str]],
                 per_test_timeout: float) -> None:
        self.results = results
        self.order = order
        self.per_test_timeout = per_test_timeout
        self.tap: List[str] = []
        self.running = False
        self.next = 0  # index in order of the result awaited
        self.started = 0.0
        self.oopsed = False
        # What did not fit ftracetest's output; stops the guest (raising
        # here would leave QEMU running)
        self.error = ""

    @property
    def current(self) -> Optional[str]:
        """The result name awaited, while ftracetest runs."""
        if self.running and self.next < len(self.order):
            return self.order[self.next][1]
        return None

    def line(self, text: str) -> Optional[str]:
        if text.startswith("wb-kselftest-begin"):
            self.running, self.started = True, time.monotonic()
            return None
        if text.startswith("wb-kselftest-end"):
            self.running = False
            return None
        if not self.running:
            return None
        self.tap.append(text)
        if OOPS_RE.search(text):
            self.oopsed = True
            return None
        m = KTAP_RE.match(text)
        if not m:
            return None
        result = KTAP_RESULTS.get((m.group(1), m.group(4)))
        if int(m.group(2)) != self.next + 1 or result is None:
            self.error = (f"unexpected KTAP result (result {self.next + 1} "
                          f"was due): {text}")
            return self.error
        name = self.order[self.next][1]
        now = time.monotonic()
        self.results.results[name] = "OOPS" if self.oopsed else result
        self.results.durations[name] = now - self.started
        self.next, self.started = self.next + 1, now
        if self.oopsed:
            # The test finished, but the kernel it leaves is suspect.
            return "kernel oops during a test; rebooting for the rest"
        return None

    def tick(self) -> Optional[str]:
        name = self.current
        if name and time.monotonic() - self.started > self.per_test_timeout:
            return f"{name} ran longer than {self.per_test_timeout:.0f} s"
        return None

    def crashed(self, failure: str) -> Optional[str]:
        """Record a guest failure against the result that was due."""
        name = self.current
        if name is not None:
            self.results.results[name] = crash_kind(failure, self.oopsed)
        return name


# A KUnit test case's result line in the kernel log, after the printk
# time stamp: "    ok 3 rw_test_nested", indented under its suite (the
# suites' own result lines are not indented).
KUNIT_CASE_RE = re.compile(r"^(?:\[[^\]]*\] )?\s+(not ok|ok) \d+ (\w+)")


@dataclass
class KunitCase:
    """A test case's result line in a kernel log."""
    name: str
    ok: bool
    said: List[str]  # its failed expectations and what it printed


def kunit_log_cases(lines: List[str]) -> Iterator[KunitCase]:
    """The test cases of a kernel log's KTAP output, skipped ones left
    out; a failed case comes with the lines it printed ("# NAME: ...")."""
    for line in lines:
        m = KUNIT_CASE_RE.match(line)
        if not m or "# SKIP" in line:
            continue
        said: List[str] = []
        if m.group(1) != "ok":
            mark = f"# {m.group(2)}: "
            said = [text.split(mark, 1)[1].strip() for text in lines
                    if mark in text]
        yield KunitCase(m.group(2), m.group(1) == "ok", said)


def kunit_log_skips(lines: List[str]) -> Iterator[str]:
    """The test cases of a kernel log's KTAP output that were skipped."""
    for line in lines:
        m = KUNIT_CASE_RE.match(line)
        if m and "# SKIP" in line:
            yield m.group(2)


def kunit_json_cases(json_out: Path) -> Iterator[Tuple[str, str]]:
    """(suite.case, status) of each test case in kunit.py's --json file;
    status is PASS, FAIL, SKIP or ERROR."""
    def walk(group: Dict[str, Any], prefix: str) -> Iterator[Tuple[str, str]]:
        for case in group.get("test_cases", []):
            yield prefix + case["name"], case["status"]
        for sub in group.get("sub_groups", []):
            yield from walk(sub, sub["name"] + ".")
    yield from walk(json.loads(json_out.read_text()), "")
