# SPDX-License-Identifier: GPL-2.0
"""`workbench run` end to end on the real patched kernel under QEMU.

Each test boots the guest through the command line users run, and checks
what they rely on: the exit status, byte-exact files back from /out, and
a clear non-zero failure when the guest panics or hangs.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

WORKBENCH = Path(__file__).resolve().parents[1] / "workbench"
GUEST_FAILURE = 125


@pytest.fixture(scope="module", autouse=True)
def built() -> None:
    proc = subprocess.run([str(WORKBENCH), "build", "patched"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]


def run_guest(tmp_path: Path, script: str, *args: str,
              out: Path | None = None) -> subprocess.CompletedProcess[str]:
    job = tmp_path / "job.sh"
    job.write_text(script)
    cmd = [str(WORKBENCH), "run", "patched", "--no-build", "--quiet", *args]
    if out is not None:
        cmd += ["--out", str(out)]
    return subprocess.run(cmd + [str(job)], capture_output=True, text=True,
                          timeout=900)


def test_large_file_comes_back_byte_exact(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = run_guest(tmp_path, """
        dd if=/dev/urandom of=/out/trace.bin bs=1M count=100 2>/dev/null
        mkdir -p /out/sub && echo nested > /out/sub/file.txt
        sha256sum /out/trace.bin | cut -d' ' -f1 > /out/trace.sha256
        exit 7
        """, out=out)
    assert proc.returncode == 7, proc.stderr[-3000:]
    data = (out / "trace.bin").read_bytes()
    assert len(data) == 100 << 20
    assert hashlib.sha256(data).hexdigest() == \
        (out / "trace.sha256").read_text().strip()
    assert (out / "sub/file.txt").read_text() == "nested\n"


def test_tracefs_and_input_files(tmp_path: Path) -> None:
    extra = tmp_path / "data.txt"
    extra.write_text("from the host\n")
    out = tmp_path / "out"
    proc = run_guest(tmp_path, """
        set -e
        cat /sys/kernel/tracing/available_tracers > /out/tracers
        cp /in/data.txt /out/data.txt
        id -u > /out/uid
        """, "--file", f"data.txt={extra}", "--smp", "1", out=out)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "function_graph" in (out / "tracers").read_text().split()
    assert (out / "data.txt").read_text() == "from the host\n"
    assert (out / "uid").read_text().strip() == "0"


def test_guest_panic_fails_clearly(tmp_path: Path) -> None:
    proc = run_guest(tmp_path, "echo c > /proc/sysrq-trigger\nsleep 60\n")
    assert proc.returncode == GUEST_FAILURE
    assert "guest failure: kernel panic" in proc.stderr
    assert "last console lines" in proc.stderr


def test_guest_hang_times_out(tmp_path: Path) -> None:
    proc = run_guest(tmp_path, "sleep 1000\n", "--timeout", "25")
    assert proc.returncode == GUEST_FAILURE
    assert "no exit within the 25 s timeout" in proc.stderr


def test_root_on_a_virtio_disk(tmp_path: Path) -> None:
    # `run --root-disk` boots as a board does: the kernel unpacks an
    # initramfs without /init, waits for the disk (root=PARTUUID=...
    # rootwait, probed asynchronously), mounts it and runs /init from it,
    # and the job runs as on the initramfs, its files back byte-exact.
    out = tmp_path / "out"
    proc = run_guest(tmp_path, """
        set -e
        cat /proc/mounts > /out/mounts
        cat /proc/cmdline > /out/cmdline
        dmesg > /out/dmesg
        cp /init /out/init
        for s in /sys/block/vd*/serial; do
            echo "$(basename "$(dirname "$s")") $(cat "$s")"
        done > /out/disks
        exit 3
        """, "--root-disk", "--smp", "1", out=out)
    assert proc.returncode == 3, proc.stderr[-3000:]
    cmdline = (out / "cmdline").read_text().split()
    assert "rootwait" in cmdline and "rdinit=/init" not in cmdline
    root = [ln.split() for ln in (out / "mounts").read_text().splitlines()
            if ln.split()[1] == "/"]
    assert root and root[-1][:3] == ["/dev/root", "/", "ext2"], root
    assert "rw" in root[-1][3].split(","), root
    dmesg = (out / "dmesg").read_text()
    assert "VFS: Mounted root (ext2 filesystem) on device" in dmesg, \
        dmesg[-3000:]
    assert "Run /init as init process" in dmesg, dmesg[-3000:]
    # the /init that ran is the workbench's, from the disk: the initramfs
    # of this boot has none
    init = Path(__file__).resolve().parents[1] / "guest" / "init"
    assert (out / "init").read_bytes() == init.read_bytes()
    disks = dict(ln.split()[::-1] for ln in
                 (out / "disks").read_text().splitlines())
    assert set(disks) == {"wb-root", "wb-in", "wb-out"}, disks
