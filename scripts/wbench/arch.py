# SPDX-License-Identifier: GPL-2.0
"""The architectures the workbench drives, one record each.

Everything that differs between architectures is here, as data, the way
tools/testing/kunit/qemu_configs/ describe kunit.py's machines: the
cross compiler, the machine's kconfig fragment, the image to build, the
QEMU machine, the Debian packages of the guest and of the host.  Build,
guest, export, selftest, kselftest, kunit and the benchmarks read a
config's record (KernelConfig.arch) and nothing else.

A config names its architecture in its header line (arch=arm64); ARM32
(arm) is the default.

    python3 -m wbench.arch packages NAME...
    python3 -m wbench.arch debian-arch NAME...

print the host's Debian packages the named architectures need, and the
Debian architectures whose packages their guests take (for
scripts/install-deps); `python3 -m wbench.arch show NAME` prints a record.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Sequence, Tuple

from .common import WorkbenchError

# Package -> paths in it: Debian programs copied over the guest's root.
ToolSet = Mapping[str, Sequence[str]]


def _suite_tools(deb: str, triplet: str, loader: str) -> ToolSet:
    """What ftracetest needs that busybox lacks, from Debian's packages
    of one architecture (deb), with the libraries they load: dash as
    /bin/sh, as on Debian (busybox's shell runs its applets without exec,
    so a test that waits for "ping" to exec never sees it), chrt for the
    wakeup tracers, nice for the onchange and snapshot hist triggers,
    perl to run checkbashisms for the selftest/bashisms.tc meta-test, and
    /usr/bin/env for kselftest's "#!/usr/bin/env perl"."""
    return {
        f"dash:{deb}": ["bin/dash"],
        f"libc6:{deb}": [loader, f"lib/{triplet}/libc.so.6",
                         f"lib/{triplet}/libm.so.6"],
        f"libcrypt1:{deb}": [f"lib/{triplet}/libcrypt.so.1"],
        f"util-linux:{deb}": ["usr/bin/chrt"],
        f"coreutils:{deb}": ["usr/bin/nice", "usr/bin/env"],
        f"perl-base:{deb}": ["usr/bin/perl", f"usr/lib/{triplet}/perl-base"],
        f"devscripts:{deb}": ["usr/bin/checkbashisms"],
    }


def _trace_cmd_tools(deb: str, triplet: str, loader: str) -> ToolSet:
    """trace-cmd as kernel developers run it, with the libraries it loads
    (readelf -d: libtracefs, libtraceevent, libzstd, the C library; its
    libtracecmd is built in).  Only what `record` needs: the event
    plugins are for `report`, which runs on the host."""
    return {
        f"trace-cmd:{deb}": ["usr/bin/trace-cmd"],
        f"libtracefs1:{deb}": [f"usr/lib/{triplet}/libtracefs.so.1"],
        f"libtraceevent1:{deb}": [f"usr/lib/{triplet}/libtraceevent.so.1"],
        f"libzstd1:{deb}": [f"usr/lib/{triplet}/libzstd.so.1"],
        f"libc6:{deb}": [loader, f"lib/{triplet}/libc.so.6"],
    }


def _guest_tools(deb: str, triplet: str, loader: str
                 ) -> Dict[str, ToolSet]:
    """The sets of Debian programs that `workbench run --with NAME`
    copies over the guest's root before the job starts."""
    return {"suite": _suite_tools(deb, triplet, loader),
            "trace-cmd": _trace_cmd_tools(deb, triplet, loader)}


@dataclass(frozen=True)
class Arch:
    """One architecture: how to build its kernel and boot it under QEMU."""

    name: str            # the workbench's name, as in a config's arch=
    kernel_arch: str     # make ARCH=
    cross_compile: str   # make CROSS_COMPILE=
    compiler_package: str  # the Debian package of CROSS_COMPILE's gcc
    fragment: str        # scripts/configs/FRAGMENT.fragment: the machine
    kernel_target: str   # what make builds besides modules
    image: str           # the image QEMU boots, in the build directory
    qemu: str            # QEMU's binary
    qemu_package: str    # the Debian package that holds it
    machine: str         # -M
    cpu: str             # -cpu
    console: str         # console= of the kernel command line
    disk_device: str     # QEMU's device for a virtio disk (-device)
    debian_arch: str     # Debian's name: busybox-static:DEBIAN_ARCH
    kunit_arch: str      # kunit.py run --arch=
    # Further QEMU options, each with the reason in accel_why
    accel: Tuple[str, ...] = ()
    accel_why: str = ""
    memory_mb: int = 1024
    # What kunit.py adds to kernel/trace/.kunitconfig on this arch
    kunit_options: Tuple[str, ...] = ()
    # Where the guest's busybox and initramfs live under .cache/guest/
    # ("" for ARM32, whose files were there before other arches came)
    guest_subdir: str = ""
    guest_tools: Mapping[str, ToolSet] = field(default_factory=dict)
    # The unpatched base's config, whose ftracetest results are what the
    # patched configs of the architecture are compared with ("" if none)
    stock_config: str = ""

    @property
    def busybox_package(self) -> str:
        return f"busybox-static:{self.debian_arch}"

    def qemu_machine(self) -> List[str]:
        """QEMU's binary and machine: what every boot starts with."""
        return [self.qemu, "-M", self.machine, "-cpu", self.cpu,
                *self.accel]

    def method(self) -> str:
        """The machine as a benchmark's method line names it."""
        return " ".join(self.qemu_machine())

    def host_tools(self) -> Dict[str, str]:
        """Host commands the workbench runs, with the Debian package
        providing each."""
        return {f"{self.cross_compile}gcc": self.compiler_package,
                self.qemu: self.qemu_package, **COMMON_HOST_TOOLS}

    def host_packages(self) -> List[str]:
        """What scripts/install-deps installs for this architecture.  The
        guest's busybox is not installed: guest.busybox() downloads
        BUSYBOX_PACKAGE, once the host knows DEBIAN_ARCH's packages."""
        return [self.compiler_package,
                "binutils-" + self.cross_compile.rstrip("-").replace("_", "-"),
                self.qemu_package]


COMMON_HOST_TOOLS = {
    "make": "make",
    "bc": "bc",
    "bison": "bison",
    "flex": "flex",
    "rsync": "rsync",
    "patch": "patch",
    "depmod": "kmod",
    "dpkg-deb": "dpkg",
    "cc": "gcc",
}

ARM = Arch(
    name="arm", kernel_arch="arm", cross_compile="arm-linux-gnueabi-",
    compiler_package="gcc-arm-linux-gnueabi", fragment="qemu-arm",
    kernel_target="zImage", image="arch/arm/boot/zImage",
    qemu="qemu-system-arm", qemu_package="qemu-system-arm",
    machine="virt", cpu="cortex-a15", console="ttyAMA0",
    disk_device="virtio-blk-device", debian_arch="armhf",
    kunit_arch="arm",
    # fprobe on 32-bit ARM needs the hook in front of the prologue, which
    # kernel/trace/.kunitconfig cannot ask for without breaking others
    kunit_options=("CONFIG_ARM_FTRACE_PATCHABLE_ENTRY=y",),
    stock_config="stock",
    guest_tools=_guest_tools("armhf", "arm-linux-gnueabihf",
                             "lib/ld-linux-armhf.so.3"))

ARM64 = Arch(
    name="arm64", kernel_arch="arm64", cross_compile="aarch64-linux-gnu-",
    compiler_package="gcc-aarch64-linux-gnu", fragment="qemu-arm64",
    kernel_target="Image", image="arch/arm64/boot/Image",
    # Debian 12 ships qemu-system-aarch64 in qemu-system-arm
    qemu="qemu-system-aarch64", qemu_package="qemu-system-arm",
    machine="virt", cpu="cortex-a57", console="ttyAMA0",
    disk_device="virtio-blk-device", debian_arch="arm64",
    kunit_arch="arm64", guest_subdir="arm64",
    # fprobe needs DYNAMIC_FTRACE_WITH_REGS, which arm64 lacks in 6.12:
    # kunit.py runs the other suites of kernel/trace/.kunitconfig
    kunit_options=("CONFIG_FPROBE=n", "CONFIG_FPROBE_SANITY_TEST=n"),
    guest_tools=_guest_tools("arm64", "aarch64-linux-gnu",
                             "lib/ld-linux-aarch64.so.1"))

X86_64 = Arch(
    # On an amd64 host (these machines), Debian's gcc is this compiler
    name="x86_64", kernel_arch="x86_64", cross_compile="x86_64-linux-gnu-",
    compiler_package="gcc", fragment="qemu-x86_64",
    kernel_target="bzImage", image="arch/x86/boot/bzImage",
    qemu="qemu-system-x86_64", qemu_package="qemu-system-x86",
    machine="q35", cpu="max", console="ttyS0",
    disk_device="virtio-blk-pci", debian_arch="amd64",
    kunit_arch="x86_64", guest_subdir="x86_64",
    accel=("-accel", "tcg,thread=single"),
    accel_why=(
        "x86 patches kernel text with int3 (text_poke_bp), which QEMU "
        "7.2's multi-threaded TCG does not make atomic for the other "
        "vCPUs: switching current_tracer while 'find /sys' ran oopsed "
        "on a stray int3 at function+0x1 in 4 of 4 runs of unpatched "
        "6.12.117 and 5 of 5 patched (issue 50); with thread=single "
        "neither crashed, in the one or two runs of each tried so "
        "far.  Two vCPUs on one host thread still "
        "interleave, so SMP code is still exercised.  KVM does not "
        "work on these machines (-cpu host fails to set an MSR)."),
    guest_tools=_guest_tools("amd64", "x86_64-linux-gnu",
                             "lib64/ld-linux-x86-64.so.2"),
    stock_config="stock-x86_64")

ARCHES: Dict[str, Arch] = {a.name: a for a in (ARM, ARM64, X86_64)}
DEFAULT = ARM


def get(name: str) -> Arch:
    """The record of an architecture by its workbench name."""
    try:
        return ARCHES[name]
    except KeyError:
        raise WorkbenchError(f"unknown architecture '{name}' (known: "
                             f"{', '.join(ARCHES)})") from None


def all_guest_tool_names() -> List[str]:
    """The names `workbench run --with` accepts, on any architecture."""
    return sorted({n for a in ARCHES.values() for n in a.guest_tools})


def main(argv: Sequence[str]) -> int:
    if len(argv) >= 2 and argv[0] in ("packages", "debian-arch"):
        for name in argv[1:]:
            if name not in ARCHES:
                print(f"unknown architecture '{name}' (known: "
                      f"{', '.join(ARCHES)})", file=sys.stderr)
                return 2
            record = ARCHES[name]
            print("\n".join(record.host_packages()) if argv[0] == "packages"
                  else record.debian_arch)
        return 0
    if len(argv) == 2 and argv[0] == "show" and argv[1] in ARCHES:
        print(ARCHES[argv[1]])
        return 0
    print("usage: python3 -m wbench.arch packages|debian-arch NAME... | "
          "show NAME",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
