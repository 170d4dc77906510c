# SPDX-License-Identifier: GPL-2.0
"""Shared test setup: paths to ftd, the repository and the real traces."""

import os
import sys
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent
FTD_DIR = TESTS_DIR.parent
REPO_ROOT = FTD_DIR.parent.parent.parent
TRACES_DIR = REPO_ROOT.parent / "shared" / "traces"
DATA_DIR = TESTS_DIR / "data"
FTD = FTD_DIR / "ftd"

for p in (str(FTD_DIR), str(TESTS_DIR)):
    if p not in sys.path:
        sys.path.insert(0, p)

os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")


import subprocess  # noqa: E402

import pytest  # noqa: E402


def run_ftd(*args: str, stdin: bytes = b"", code: int = 0):  # type: ignore
    p = subprocess.run([sys.executable, str(FTD)] + list(args),
                       input=stdin, capture_output=True, timeout=300)
    if code >= 0:
        assert p.returncode == code, (p.returncode, p.stderr.decode())
    assert b"Traceback" not in p.stderr
    return p


@pytest.fixture
def ftd():  # type: ignore[no-untyped-def]
    def call(*args: str) -> str:
        return run_ftd(*args).stdout.decode()
    return call
