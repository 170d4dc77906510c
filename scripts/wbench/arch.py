# SPDX-License-Identifier: GPL-2.0
"""Settings for the one architecture the workbench drives: ARM32 on
QEMU's virt machine.  Held as data so that everything else reads them
from one place."""

ARCH = "arm"
CROSS_COMPILE = "arm-linux-gnueabi-"
KERNEL_TARGET = "zImage"
KERNEL_IMAGE = "arch/arm/boot/zImage"

QEMU = "qemu-system-arm"
QEMU_MACHINE = ["-M", "virt", "-cpu", "cortex-a15"]
QEMU_MEMORY_MB = 1024
CONSOLE = "ttyAMA0"

# Debian's statically linked busybox for the guest's userland.
BUSYBOX_PACKAGE = "busybox-static:armhf"

# Host commands the workbench runs, with the Debian package providing each.
HOST_TOOLS = {
    "arm-linux-gnueabi-gcc": "gcc-arm-linux-gnueabi",
    QEMU: "qemu-system-arm",
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
