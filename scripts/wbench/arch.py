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

# What ftracetest needs that this busybox lacks, from Debian's armhf
# packages with the libraries they load: dash as /bin/sh, as on Debian
# (busybox's shell runs its applets without exec, so a test that waits
# for "ping" to exec never sees it), chrt for the wakeup tracers, nice
# for the onchange and snapshot hist triggers, perl to run
# checkbashisms for the selftest/bashisms.tc meta-test, and
# /usr/bin/env for kselftest's "#!/usr/bin/env perl".
# Package -> paths in it.
SUITE_TOOLS = {
    "dash:armhf": ["bin/dash"],
    "libc6:armhf": ["lib/ld-linux-armhf.so.3",
                    "lib/arm-linux-gnueabihf/libc.so.6",
                    "lib/arm-linux-gnueabihf/libm.so.6"],
    "libcrypt1:armhf": ["lib/arm-linux-gnueabihf/libcrypt.so.1"],
    "util-linux:armhf": ["usr/bin/chrt"],
    "coreutils:armhf": ["usr/bin/nice", "usr/bin/env"],
    "perl-base:armhf": ["usr/bin/perl",
                        "usr/lib/arm-linux-gnueabihf/perl-base"],
    "devscripts:armhf": ["usr/bin/checkbashisms"],
}

# trace-cmd as kernel developers run it, with the libraries it loads
# (readelf -d: libtracefs, libtraceevent, libzstd, the C library; its
# libtracecmd is built in).  Only what `record` needs: the event
# plugins are for `report`, which runs on the host.  Package -> paths.
TRACE_CMD_TOOLS = {
    "trace-cmd:armhf": ["usr/bin/trace-cmd"],
    "libtracefs1:armhf": ["usr/lib/arm-linux-gnueabihf/libtracefs.so.1"],
    "libtraceevent1:armhf": [
        "usr/lib/arm-linux-gnueabihf/libtraceevent.so.1"],
    "libzstd1:armhf": ["usr/lib/arm-linux-gnueabihf/libzstd.so.1"],
    "libc6:armhf": ["lib/ld-linux-armhf.so.3",
                    "lib/arm-linux-gnueabihf/libc.so.6"],
}

# The sets of Debian armhf programs that `workbench run --with NAME`
# copies over the guest's root before the job starts.
GUEST_TOOLS = {
    "suite": SUITE_TOOLS,
    "trace-cmd": TRACE_CMD_TOOLS,
}

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
