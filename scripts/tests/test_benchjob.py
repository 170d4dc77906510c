# SPDX-License-Identifier: GPL-2.0
"""benchjob: a benchmark's guest run goes through guest.boot() itself,
with the options `workbench run` gave it before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wbench import benchjob, guest  # noqa: E402


@pytest.fixture
def boots(monkeypatch: pytest.MonkeyPatch) -> List[Dict[str, Any]]:
    seen: List[Dict[str, Any]] = []

    def boot(config: Any, job: str, **kw: Any) -> guest.GuestResult:
        seen.append(dict(kw, config=config.name, job=job))
        out = kw["out_dir"]
        if "fail" not in job:
            (out / "result.txt").write_text("ok 1\n")
        return guest.GuestResult(0, "", out / "console.log")

    monkeypatch.setattr(guest, "boot", boot)
    return seen


def test_icount_runs_take_one_vcpu(tmp_path: Path,
                                   boots: List[Dict[str, Any]]) -> None:
    script = tmp_path / "guest.sh"
    script.write_text("true\n")
    extra = tmp_path / "mod.ko"
    res = benchjob.run_guest_job("benchfg", script, {"A": "x y"},
                                 tmp_path / "out", icount=True, timeout=99,
                                 plugins=["p.so"], files={"m.ko": extra})
    assert res == tmp_path / "out" / "result.txt"
    (kw,) = boots
    assert kw["config"] == "benchfg" and kw["icount"] and kw["smp"] == 1
    assert kw["timeout"] == 99 and list(kw["plugins"]) == ["p.so"]
    assert kw["files"] == {"guest.sh": script, "m.ko": extra}
    assert kw["job"] == "A='x y'\n. /in/guest.sh\n"
    assert kw["echo"] is False


def test_plain_runs_take_two_vcpus_and_a_missing_result_fails(
        tmp_path: Path, boots: List[Dict[str, Any]]) -> None:
    script = tmp_path / "guest.sh"
    script.write_text("true\n")
    with pytest.raises(SystemExit):
        benchjob.run_guest_job("benchpi-stock", script, {"X": "fail"},
                               tmp_path / "out")
    assert boots[0]["smp"] == 2 and not boots[0]["icount"]


def test_stdout_goes_to_stderr_in_the_block(tmp_path: Path) -> None:
    code = ("import sys, subprocess; sys.path.insert(0, sys.argv[1]);"
            "from wbench import benchjob;"
            "print('table', flush=True)\n"
            "with benchjob.stdout_to_stderr():\n"
            "    print('build', flush=True);"
            " subprocess.run(['echo', 'make'])\n"
            "print('table', flush=True)")
    proc = subprocess.run([sys.executable, "-c", code,
                           str(Path(benchjob.__file__).parents[1])],
                          capture_output=True, text=True,
                          env=dict(os.environ))
    assert proc.stdout == "table\ntable\n"
    assert proc.stderr == "build\nmake\n"
