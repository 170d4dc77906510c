# SPDX-License-Identifier: GPL-2.0
"""The command lines the workbench builds for its ARM32 configs, pinned.

The architecture settings are data; these tests hold the QEMU, make and
kunit.py command lines of the ARM32 configs to what they were before
that data moved, so that a change of the records cannot change ARM32
runs unnoticed.  No kernel is built and no guest boots: the guest's
console watcher is replaced by one that keeps the command line.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wbench import arch, build, guest, kunit  # noqa: E402
from wbench.common import WorkbenchError  # noqa: E402

# The parts every ARM32 boot shares, before the disks; CACHE and TMP
# stand for the cache directory and the boot's scratch directory.
ARM_HEAD = ["qemu-system-arm", "-M", "virt", "-cpu", "cortex-a15"]
ARM_MIDDLE = ["-display", "none", "-monitor", "none", "-serial", "stdio",
              "-nic", "none", "-no-reboot"]
ARM_DISKS = [
    "-drive", "if=none,format=raw,file=TMP/in.tar,id=wbin,readonly=on",
    "-device", "virtio-blk-device,drive=wbin,serial=wb-in",
    "-drive", "if=none,format=raw,file=TMP/out.img,id=wbout",
    "-device", "virtio-blk-device,drive=wbout,serial=wb-out"]
ARM_IMAGE = "CACHE/build/patched/arch/arm/boot/zImage"


def arm_boot(smp: str, initrd: str, append: str) -> List[str]:
    return ARM_HEAD + ["-smp", smp, "-m", "1024", "-kernel", ARM_IMAGE,
                       "-initrd", f"CACHE/guest/{initrd}",
                       "-append", append] + ARM_MIDDLE


CASES: List[Any] = [
    pytest.param({}, arm_boot("2", "initramfs.cpio",
                              "console=ttyAMA0 panic=-1 rdinit=/init")
                 + ARM_DISKS, id="default"),
    pytest.param({"smp": 1, "icount": True},
                 arm_boot("1", "initramfs.cpio",
                          "console=ttyAMA0 panic=-1 rdinit=/init")
                 + ARM_DISKS + ["-icount", "shift=0,sleep=off"],
                 id="icount"),
    pytest.param({"root_disk": True, "append": "x=1"},
                 arm_boot("2", "initramfs-noinit.cpio",
                          "console=ttyAMA0 panic=-1 root=PARTUUID=77624f01-01"
                          " rootfstype=ext2 rootwait rw init=/init "
                          "driver_async_probe=virtio_blk x=1")
                 + ["-drive", "if=none,format=raw,file=TMP/root.img,"
                    "id=wbroot",
                    "-device", "virtio-blk-device,drive=wbroot,serial=wb-root"]
                 + ARM_DISKS, id="root-disk"),
    pytest.param({"plugins": ["a.so,b=1"], "append": "y"},
                 arm_boot("2", "initramfs.cpio",
                          "console=ttyAMA0 panic=-1 rdinit=/init y")
                 + ARM_DISKS + ["-plugin", "a.so,b=1"], id="plugin"),
]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache with a built patched image, busybox and a gen_init_cpio
    stand-in, so that guest.boot() builds its real initramfs path."""
    monkeypatch.setenv("WB_CACHE", str(tmp_path))
    config = build.KernelConfig.load("patched")
    config.image.parent.mkdir(parents=True)
    config.image.write_bytes(b"kernel")
    gdir = tmp_path / "guest"
    gdir.mkdir()
    (gdir / "busybox").write_bytes(b"busybox")
    gen = gdir / "gen_init_cpio"
    gen.write_text("#!/bin/sh\necho cpio\n")
    gen.chmod(0o755)
    return tmp_path


def boot_command(cache: Path, monkeypatch: pytest.MonkeyPatch,
                 kwargs: Dict[str, Any]) -> List[str]:
    seen: List[List[str]] = []

    def watch(cmd: List[str], *args: Any) -> guest.GuestResult:
        seen.append(cmd)
        return guest.GuestResult(0, "", cache / "console.log")

    monkeypatch.setattr(guest, "_watch", watch)
    monkeypatch.setattr(guest, "root_disk_image", lambda path, *arch: path)
    guest.boot(build.KernelConfig.load("patched"), "true", **kwargs)
    assert len(seen) == 1
    tmp = [a for a in seen[0] if "/wb-guest." in a][0]
    scratch = tmp[tmp.index(str(cache)):].split("/wb-guest.")[1]
    scratch = str(cache / ("wb-guest." + scratch.split("/")[0]))
    return [a.replace(scratch, "TMP").replace(str(cache), "CACHE")
            for a in seen[0]]


@pytest.mark.parametrize("kwargs,want", CASES)
def test_arm_qemu_command_is_pinned(cache: Path,
                                    monkeypatch: pytest.MonkeyPatch,
                                    kwargs: Dict[str, Any],
                                    want: List[str]) -> None:
    assert boot_command(cache, monkeypatch, kwargs) == want


def test_arm_make_command_is_pinned(cache: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda cmd, **kw: "/usr/bin/" + cmd)
    config = build.KernelConfig.load("patched")
    assert build.make_args(config, Path("/src")) == [
        "make", "-C", "/src", f"O={cache}/build/patched", "ARCH=arm",
        "CROSS_COMPILE=arm-linux-gnueabi-",
        "CC=ccache arm-linux-gnueabi-gcc", f"CCACHE_BASEDIR={cache}",
        f"-j{build.os.cpu_count() or 2}"]


@pytest.mark.parametrize("thumb2", [False, True])
def test_arm_kunit_command_is_pinned(cache: Path,
                                     monkeypatch: pytest.MonkeyPatch,
                                     thumb2: bool) -> None:
    monkeypatch.setattr(shutil, "which", lambda cmd, **kw: "/usr/bin/" + cmd)
    got = kunit.kunit_command(Path("/src"), Path("/j.json"),
                              [] if thumb2 else ["x"], thumb2)
    want = ["/src/tools/testing/kunit/kunit.py", "run", "--arch=arm",
            "--cross_compile=arm-linux-gnueabi-", "--kunitconfig=kernel/trace",
            "--qemu_args=-smp 2",
            f"--build_dir={cache}/build/kunit-"
            + ("thumb2" if thumb2 else "arm"),
            "--make_options=CC=ccache arm-linux-gnueabi-gcc",
            f"--make_options=CCACHE_BASEDIR={cache}",
            "--json=/j.json", "--kconfig_add",
            "CONFIG_ARM_FTRACE_PATCHABLE_ENTRY=y"]
    want += (["--kconfig_add", "CONFIG_THUMB2_KERNEL=y"] if thumb2
             else ["x"])
    assert got == want


def test_every_config_names_a_known_arch_and_its_machine_first() -> None:
    for path in sorted(build.CONFIG_DIR.glob("*.config")):
        config = build.KernelConfig.load(path.stem)
        assert config.fragments[0].name == config.arch.fragment + ".fragment"
        assert config.image.name == Path(config.arch.image).name


def test_the_header_names_the_arch(tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "CONFIG_DIR", tmp_path)
    for frag in ("qemu-arm", "qemu-arm64", "ftrace"):
        (tmp_path / f"{frag}.fragment").write_text("CONFIG_X=y\n")
    (tmp_path / "a.config").write_text(
        "# workbench: tree=base fragments=ftrace arch=arm64\n")
    (tmp_path / "b.config").write_text(
        "# workbench: tree=patched fragments=qemu-arm,ftrace\n")
    a, b = build.KernelConfig.load("a"), build.KernelConfig.load("b")
    assert a.arch is arch.ARM64 and a.tree == "base"
    assert [f.name for f in a.fragments] == [
        "qemu-arm64.fragment", "ftrace.fragment", "a.config"]
    assert a.image == a.build_dir / "arch/arm64/boot/Image"
    # the default is ARM32, and naming its machine again changes nothing
    assert b.arch is arch.ARM
    assert [f.name for f in b.fragments] == [
        "qemu-arm.fragment", "ftrace.fragment", "b.config"]


@pytest.mark.parametrize("header", [
    "# workbench: tree=base fragments= arch=sparc",
    "# workbench: tree=base fragments= arch=arm arch=arm64",
    "# workbench: tree=base fragments= mach=arm64",
    "# workbench: tree=elsewhere fragments=",
    "# workbench: fragments= arch=arm64",
])
def test_bad_headers_are_refused(tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch,
                                 header: str) -> None:
    monkeypatch.setattr(build, "CONFIG_DIR", tmp_path)
    (tmp_path / "qemu-arm.fragment").write_text("")
    (tmp_path / "bad.config").write_text(header + "\n")
    with pytest.raises(WorkbenchError):
        build.KernelConfig.load("bad")


def test_x86_64_runs_single_threaded_tcg_on_pci_disks() -> None:
    cmd = guest.qemu_command(arch.X86_64, Path("/k"), Path("/i"),
                             Path("/in"), Path("/out"))
    assert cmd[:7] == ["qemu-system-x86_64", "-M", "q35", "-cpu", "max",
                       "-accel", "tcg,thread=single"]
    assert "console=ttyS0 panic=-1 rdinit=/init" in cmd
    assert "virtio-blk-pci,drive=wbin,serial=wb-in" in cmd
    assert "thread=single" in arch.X86_64.method()
    assert "int3" in arch.X86_64.accel_why


def test_arm64_record() -> None:
    cmd = guest.qemu_command(arch.ARM64, Path("/k"), Path("/i"),
                             Path("/in"), Path("/out"))
    assert cmd[:5] == ["qemu-system-aarch64", "-M", "virt", "-cpu",
                       "cortex-a57"]
    assert "virtio-blk-device,drive=wbout,serial=wb-out" in cmd
    assert arch.ARM64.busybox_package == "busybox-static:arm64"
    assert arch.ARM64.host_packages() == [
        "gcc-aarch64-linux-gnu", "binutils-aarch64-linux-gnu",
        "qemu-system-arm"]


def test_the_method_line_of_arm_is_unchanged() -> None:
    assert arch.ARM.method() == "qemu-system-arm -M virt -cpu cortex-a15"
