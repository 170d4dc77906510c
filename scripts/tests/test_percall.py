# SPDX-License-Identifier: GPL-2.0
"""Host tests of the per-call benchmark's parsing and profile folding
(scripts/bench/fgraph-percall/run.py); the guest side runs in make bench."""

import importlib.util
import subprocess
import sys
import types
from pathlib import Path

import pytest

RUN_PY = (Path(__file__).resolve().parent.parent / "bench" / "fgraph-percall"
          / "run.py")
spec = importlib.util.spec_from_file_location("percall_run", RUN_PY)
assert spec and spec.loader
percall = importlib.util.module_from_spec(spec)
sys.modules["percall_run"] = percall
spec.loader.exec_module(percall)


def test_read_result_keys_by_target_and_state(tmp_path: Path) -> None:
    result = tmp_path / "result.txt"
    result.write_text(
        "kernel 6.12.117\n"
        "percall core graph calls 20000 traced_ns 1935.10 untraced_ns "
        "12.10 overhead_ns 1923.00\n"
        "percall module nop calls 20000 traced_ns 13.07 untraced_ns 11.07 "
        "overhead_ns 2.00\n")
    found = percall.read_result(result)
    assert set(found) == {("core", "graph"), ("module", "nop")}
    assert percall.field(found[("core", "graph")], "overhead_ns") == 1923.0
    assert percall.field(found[("module", "nop")], "untraced_ns") == 11.07


def test_report_maps_profiles_with_the_kernel_of_the_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_dir = tmp_path / "build"
    build_dir.mkdir()
    config = types.SimpleNamespace(name="benchfg-fentry", build_dir=build_dir)
    for name in percall.KERNEL_FILES:
        (build_dir / name).write_text(f"profiled {name}\n")
    work = tmp_path / "work"
    percall.keep_kernel(config, work)
    # The config is rebuilt after the run: the report must not notice.
    for name in percall.KERNEL_FILES:
        (build_dir / name).write_text(f"rebuilt {name}\n")
    kernel = percall.profiled_kernel(config, work)
    assert (kernel / "System.map").read_text() == "profiled System.map\n"
    assert (kernel / "vmlinux").read_text() == "profiled vmlinux\n"
    assert capsys.readouterr().err == ""

    # A run that kept no kernel falls back to the build, and says so.
    (work / "benchfg-fentry" / "vmlinux").unlink()
    assert percall.profiled_kernel(config, work) == build_dir
    assert "may be another kernel" in capsys.readouterr().err


def test_field_negative_and_missing() -> None:
    line = "calls 1000 traced_ns 10.00 untraced_ns 10.50 overhead_ns -0.50"
    assert percall.field(line, "overhead_ns") == -0.5
    with pytest.raises(SystemExit):
        percall.field(line, "nosuch")


def _symbols(tmp_path: Path) -> "percall.Symbols":
    system_map = tmp_path / "System.map"
    system_map.write_text(
        "c0100000 T _text\n"
        "c0100100 T func_a\n"
        "c0100200 t func_b\n"
        "c0100300 D some_data\n"
        "c0100400 W func_c\n")
    kallsyms = tmp_path / "kallsyms"
    kallsyms.write_text(
        "c0100100 T func_a\n"
        "bf000000 t mod_func\t[mymod]\n"
        "bf000080 T mod_other\t[mymod]\n")
    return percall.Symbols(system_map, kallsyms)


def test_symbols_lookup(tmp_path: Path) -> None:
    syms = _symbols(tmp_path)
    assert syms.lookup(0xc0100100) == "func_a"
    assert syms.lookup(0xc01001fc) == "func_a"
    # data symbols do not end a function
    assert syms.lookup(0xc0100310) == "func_b"
    assert syms.lookup(0xc0100400) == "func_c"
    assert syms.lookup(0xbf000010) == "mod_func"
    assert syms.lookup(0xbf000090) == "mod_other"
    assert syms.lookup(0x10) == "0x10"


def test_profile_table_per_call(tmp_path: Path) -> None:
    profile = tmp_path / "profile.txt"
    # two windows of 1000 calls: func_a runs 2 blocks, func_b one
    profile.write_text(
        "# windows 2\n"
        "c0100100 10 2000\n"
        "c0100120 4 2000\n"
        "c0100200 3 1000\n"
        "bf000000 6 2000\n")
    calls, rows = percall.profile_table(profile, _symbols(tmp_path), 1000)
    assert calls == 2000
    assert rows == [("func_a", 14.0), ("mod_func", 6.0), ("func_b", 1.5)]


def test_profile_table_without_windows_fails(tmp_path: Path) -> None:
    profile = tmp_path / "profile.txt"
    profile.write_text("# windows 0\n")
    with pytest.raises(SystemExit):
        percall.profile_table(profile, _symbols(tmp_path), 1000)


def test_annotate_counts_each_instruction(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    """A real ARM object from the cross compiler stands in for vmlinux."""
    src = tmp_path / "f.c"
    src.write_text("int g;\n"
                   "int f(int x)\n{\n\tif (x)\n\t\tg = x;\n\treturn g;\n}\n")
    obj = tmp_path / "f.o"
    subprocess.run([percall.arch.ARM.cross_compile + "gcc", "-O2", "-marm",
                    "-c", "-o", str(obj), str(src)], check=True)
    # one window of 1000 calls: the whole function ran in every call,
    # its first two instructions once more in half of them
    dis = subprocess.run([percall.arch.ARM.cross_compile + "objdump", "-d",
                          "--disassemble=f", str(obj)], check=True,
                         capture_output=True, text=True).stdout
    n = len([ln for ln in dis.splitlines() if ln.startswith("   ")])
    profile = tmp_path / "profile.txt"
    profile.write_text(f"# windows 1\n0 {n} 1000\n0 2 500\n")
    percall.print_annotated(obj, ["f"], profile, 1000)
    out = capsys.readouterr().out
    assert f"#### f: {n + 1:,.1f} instructions per call" in out
    runs = [float(ln.split()[0]) for ln in out.splitlines()
            if ln.strip() and ln.split()[0].replace(".", "").isdigit()]
    assert runs == [1.5, 1.5] + [1.0] * (n - 2)
    with pytest.raises(SystemExit):
        percall.print_annotated(obj, ["nosuch"], profile, 1000)


def test_thumb2_blocks_map_to_their_instructions(tmp_path: Path) -> None:
    """Thumb-2 code mixes 2- and 4-byte instructions: a block's
    instructions are found in the disassembly, not every 4 bytes."""
    src = tmp_path / "t.c"
    src.write_text("int g;\nint t(int x)\n{\n\tg = x;\n"
                   "\t__sync_synchronize();\n\treturn g + 1000000;\n}\n")
    obj = tmp_path / "t.o"
    subprocess.run([percall.arch.ARM.cross_compile + "gcc", "-O2", "-mthumb",
                    "-march=armv7-a", "-c", "-o", str(obj), str(src)],
                   check=True)
    text = percall.disassemble(obj, 0, 0x100)
    sizes = {b - a for a, b in zip(sorted(text), sorted(text)[1:])}
    assert sizes == {2, 4}, text
    profile = tmp_path / "profile.txt"
    profile.write_text(f"# windows 1\n0 {len(text)} 1000\n")
    calls, runs, _ = percall.instruction_runs(obj, profile, 1000)
    assert calls == 1000
    assert sorted(runs) == sorted(text)
    barriers, exclusives, counters = percall.class_counts(obj, profile, 1000)
    assert (barriers, exclusives, counters) == (1.0, 0.0, 0.0)
