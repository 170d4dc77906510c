# SPDX-License-Identifier: GPL-2.0
"""Boot a built kernel under QEMU and run one job in it.

The guest is busybox in an initramfs with scripts/guest/init as /init.
With root_disk, the same busybox and /init are on an ext2 file system on
a virtio disk instead, which the kernel mounts as a board's kernel mounts
its SD card (root=PARTUUID=... rootwait), after unpacking an initramfs
that has no /init.  The job and its files go in on one virtio disk (a tar
file), and what the job writes under /out comes back on another (a tar
file too), byte-exact whatever its size.  The console is echoed, copied
to a log file and watched: a kernel panic, an oops, a hang past the
timeout or a missing exit line ends the run as a failure with the last
console lines shown.
"""

from __future__ import annotations

import io
import os
import queue
import re
import secrets
import shutil
import struct
import subprocess
import tarfile
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Callable, Dict, List, Optional, Sequence

from . import arch as arches
from . import parser
from .base import base_tree
from .build import KernelConfig
from .common import (SCRIPTS, WorkbenchError, cache_dir, digest, locked, log,
                     need_commands, run, write_if_changed)

GUEST_FAILURE = 125  # exit status of `workbench run` when the guest fails


def _debian_files(arch: arches.Arch, package: str,
                  files: Dict[str, Path]) -> None:
    """Copy files (links followed) or directories out of one of Debian's
    packages of arch: files maps their paths in the package to where they
    go."""
    with tempfile.TemporaryDirectory(prefix="wb-deb.") as tmp:
        proc = run(["apt-get", "download", package], cwd=Path(tmp),
                   capture=True, check=False)
        debs = list(Path(tmp).glob(f"*_{arch.debian_arch}.deb"))
        if proc.returncode != 0 or len(debs) != 1:
            raise WorkbenchError(
                f"cannot download {package}: {proc.stdout.strip()}"
                f"\n  run scripts/install-deps --arch {arch.name} (it adds "
                f"the {arch.debian_arch} architecture)")
        run(["dpkg-deb", "-x", debs[0], Path(tmp) / "root"],
            what=f"unpacking {package}")
        for rel, target in files.items():
            src = Path(tmp) / "root" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if src.is_dir():
                shutil.copytree(src, target)
            else:
                shutil.copy2(src, target)


def guest_dir(arch: arches.Arch) -> Path:
    """Where an architecture's guest files are kept in the cache."""
    return cache_dir() / "guest" / arch.guest_subdir


def busybox(arch: arches.Arch = arches.DEFAULT) -> Path:
    """Debian's static busybox of arch, unpacked from its package once."""
    dest = guest_dir(arch) / "busybox"
    if not dest.exists():
        _debian_files(arch, arch.busybox_package, {"bin/busybox": dest})
    return dest


def tool_tree(name: str, arch: arches.Arch = arches.DEFAULT) -> Path:
    """A tree to copy over the guest's root: the set of Debian programs
    arch.guest_tools[name], with the libraries they load, unpacked once
    into the cache.  Only the jobs that ask for a set take it, so that
    the default guest (and the benchmarks') stays busybox alone."""
    if name not in arch.guest_tools:
        raise WorkbenchError(f"unknown guest tool set '{name}' on "
                             f"{arch.name} (known: "
                             f"{', '.join(sorted(arch.guest_tools))})")
    packages = arch.guest_tools[name]
    dest = guest_dir(arch) / ("suite-tools" if name == "suite"
                              else f"tools-{name}")
    stamp = dest.with_suffix(".key")
    want = repr(sorted(packages.items()))
    if stamp.exists() and stamp.read_text() == want:
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    for package, paths in packages.items():
        _debian_files(arch, package, {rel: dest / rel for rel in paths})
    stamp.write_text(want)
    return dest


def suite_tools(arch: arches.Arch = arches.DEFAULT) -> Path:
    """The programs that ftracetest runs and busybox lacks
    (arch.guest_tools["suite"]), with the C library they load."""
    return tool_tree("suite", arch)


def with_tools(job: str, files: Dict[str, Path], names: Sequence[str],
               arch: arches.Arch = arches.DEFAULT) -> str:
    """job, preceded by the copy of each named tool set over the guest's
    root; the sets go into files, at /in/tools-NAME."""
    setup = ""
    for name in names:
        files[f"tools-{name}"] = tool_tree(name, arch)
        setup += f"cp -a /in/tools-{name}/. / || exit 1\n"
    return setup + job


GUEST_DIRS = ["/bin", "/sbin", "/usr", "/usr/bin", "/usr/sbin", "/dev",
              "/proc", "/sys", "/tmp", "/root", "/etc", "/mnt", "/in", "/out",
              "/lib"]


def _guest_files(arch: arches.Arch) -> Dict[str, Path]:
    """The guest's files besides its directories: path -> host file."""
    return {"/bin/busybox": busybox(arch),
            "/init": SCRIPTS / "guest" / "init",
            # users and groups besides root, for tests of file ownership
            "/etc/passwd": SCRIPTS / "guest" / "passwd",
            "/etc/group": SCRIPTS / "guest" / "group"}


def _mode(dest: str) -> int:
    return 0o755 if dest in ("/init", "/bin/busybox") else 0o644


def initramfs(with_init: bool = True,
              arch: arches.Arch = arches.DEFAULT) -> Path:
    """The guest's initramfs: busybox, /init and the users, packed without
    root.  Without /init (with_init false), the kernel unpacks it, finds
    no program to run in it and mounts root= instead: the root disk
    boot."""
    gdir = guest_dir(arch)
    name = "initramfs" if with_init else "initramfs-noinit"
    cpio = gdir / f"{name}.cpio"
    files = _guest_files(arch)
    if not with_init:
        del files["/init"]
    key = digest([repr(sorted(files)), repr(GUEST_DIRS)]
                 + [files[f] for f in sorted(files)])
    stamp = gdir / f"{name}.key"
    if cpio.exists() and stamp.exists() and stamp.read_text() == key:
        return cpio
    # a host program: one for all architectures
    gen = cache_dir() / "guest" / "gen_init_cpio"
    if not gen.exists():
        run(["cc", "-O2", "-o", gen, base_tree() / "usr" / "gen_init_cpio.c"],
            what="building gen_init_cpio")
    spec = [f"dir {d} 0755 0 0" for d in GUEST_DIRS]
    spec += ["nod /dev/console 0600 0 0 c 5 1"]
    for dest, src in files.items():
        spec.append(f"file {dest} {src} {_mode(dest):04o} 0 0")
        if dest == "/bin/busybox":
            spec.append("slink /bin/sh busybox 0777 0 0")
    listing = gdir / f"{name}.list"
    listing.write_text("\n".join(spec) + "\n")
    with open(cpio.with_suffix(".tmp"), "wb") as out:
        log(f"$ {gen} {listing} > {cpio}")
        subprocess.run([str(gen), str(listing)], stdout=out, check=True)
    cpio.with_suffix(".tmp").replace(cpio)
    write_if_changed(stamp, key)
    return cpio


# The root disk: an MBR with one Linux partition from 1 MiB on, holding
# an ext2 file system of ROOT_FS_MB.  The kernel finds it by the MBR's
# disk signature, root=PARTUUID=<signature>-01, whatever name (vda, vdb,
# ...) the probe order gives it: with driver_async_probe=virtio_blk the
# disks are probed in parallel, so their names may change from boot to
# boot.
ROOT_DISK_SIGNATURE = 0x77624f01
ROOT_PARTUUID = f"{ROOT_DISK_SIGNATURE:08x}-01"
ROOT_FS_OFFSET = 1 << 20
ROOT_FS_MB = 32
# What the disk root boot adds to the command line: the root partition,
# mounted read-write (/init installs busybox's links in /bin), waited
# for as a board waits for its SD card, whose host drivers probe
# asynchronously (PROBE_PREFER_ASYNCHRONOUS): driver_async_probe= does
# the same for the virtio disks.  The initramfs has no /init, so the
# kernel mounts the disk and runs /init from there.
ROOT_DISK_CMDLINE = (f"root=PARTUUID={ROOT_PARTUUID} rootfstype=ext2 "
                     "rootwait rw init=/init driver_async_probe=virtio_blk")


def _mbr(signature: int, first_lba: int, sectors: int) -> bytes:
    """A master boot record with one primary Linux partition (type 0x83),
    addressed by LBA (its CHS fields say "beyond CHS")."""
    entry = struct.pack("<B3sB3sII", 0x00, b"\xfe\xff\xff", 0x83,
                        b"\xfe\xff\xff", first_lba, sectors)
    mbr = bytearray(512)
    struct.pack_into("<I", mbr, 440, signature)
    mbr[446:462] = entry
    mbr[510:512] = b"\x55\xaa"
    return bytes(mbr)


def root_disk_image(path: Path, arch: arches.Arch = arches.DEFAULT) -> Path:
    """Write the root disk image to path: the guest's directories and
    files (_guest_files(), /init among them) in an ext2 file system made
    without root by mke2fs -d, in partition 1 of an MBR disk."""
    # /sbin is not on a user's PATH on Debian
    mke2fs = shutil.which("mke2fs") or shutil.which(
        "mke2fs", path="/usr/sbin:/sbin")
    if mke2fs is None:
        need_commands({"mke2fs": "e2fsprogs"})
        mke2fs = "mke2fs"
    with tempfile.TemporaryDirectory(prefix="wb-rootfs.") as tmp:
        tree = Path(tmp)
        for d in GUEST_DIRS:
            (tree / d.lstrip("/")).mkdir(parents=True, exist_ok=True)
        for dest, src in _guest_files(arch).items():
            shutil.copyfile(src, tree / dest.lstrip("/"))
            os.chmod(tree / dest.lstrip("/"), _mode(dest))
        (tree / "bin" / "sh").symlink_to("busybox")
        os.chmod(tree / "dev", 0o755)
        size = ROOT_FS_MB << 20
        with open(path, "wb") as f:
            f.write(_mbr(ROOT_DISK_SIGNATURE, ROOT_FS_OFFSET // 512,
                         size // 512))
            f.truncate(ROOT_FS_OFFSET + size)
        run([mke2fs, "-q", "-F", "-t", "ext2", "-L", "wbroot",
             "-E", f"offset={ROOT_FS_OFFSET},root_owner=0:0", "-d", tree,
             path, f"{ROOT_FS_MB}M"], capture=True,
            what="mke2fs (the root disk)")
    return path


@dataclass
class GuestResult:
    status: Optional[int]  # the job's exit status, None without a clean exit
    failure: str           # why the run failed, "" if the guest exited cleanly
    log: Path
    oopses: List[str] = field(default_factory=list)
    tail: List[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failure and self.status == 0

    def exit_code(self) -> int:
        if self.failure or self.status is None:
            return GUEST_FAILURE
        return self.status

    def report(self) -> None:
        """On failure, say why and show the last console lines."""
        if not self.failure and not self.oopses:
            return
        log("")
        if self.failure:
            log(f"guest failure: {self.failure}")
        for oops in self.oopses[:5]:
            log(f"kernel reported: {oops}")
        log(f"last console lines (whole log: {self.log}):")
        for line in self.tail:
            log(f"  | {line}")


# Called with each console line; may return a reason to stop the guest.
LineHook = Callable[[str], Optional[str]]
# Called about once a second; may return a reason to stop the guest.
TickHook = Callable[[], Optional[str]]


def _input_tar(path: Path, job: str, token: str, config: KernelConfig,
               files: Dict[str, Path]) -> None:
    def no_links_out(info: tarfile.TarInfo) -> Optional[tarfile.TarInfo]:
        # modules_install may leave build/source links to the host tree.
        if re.fullmatch(r"lib/modules/[^/]+/(build|source)", info.name):
            return None
        return info

    # Dereference: the prepared tree links its new files into this repo.
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT,
                      dereference=True) as tar:
        def add_bytes(name: str, data: bytes, mode: int = 0o644) -> None:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = mode
            info.mtime = int(time.time())
            tar.addfile(info, io.BytesIO(data))
        add_bytes("job", job.encode(), 0o755)
        add_bytes(".token", token.encode())
        # A build of the config in another process reinstalls them.
        with locked(config.build_dir, f"building {config.name}",
                    shared=True):
            mods = config.modules_dir / "lib" / "modules"
            if mods.is_dir():
                tar.add(mods, arcname="lib/modules", filter=no_links_out)
        for dest, src in files.items():
            tar.add(src, arcname=dest)
    # A block device must be a whole number of sectors.
    size = path.stat().st_size
    with open(path, "ab") as f:
        f.truncate(size + (-size) % 512)


def _extract(image: Path, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    root = out_dir.resolve()
    try:
        with tarfile.open(image, "r:") as tar:
            for member in tar:
                target = (root / member.name).resolve()
                if target != root and root not in target.parents:
                    raise WorkbenchError(f"guest output: unsafe path "
                                         f"{member.name!r}")
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                elif member.isfile():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    src = tar.extractfile(member)
                    assert src is not None
                    with open(target, "wb") as dst:
                        shutil.copyfileobj(src, dst, 1 << 20)
                    os.chmod(target, member.mode & 0o777)
                elif member.issym():
                    if target.is_symlink() or target.exists():
                        target.unlink()
                    target.symlink_to(member.linkname)
    except tarfile.TarError as exc:
        raise WorkbenchError(f"guest output disk is not a tar file ({exc}); "
                             "was /out larger than --out-size?") from exc


def _reader(stream: IO[bytes], lines: "queue.Queue[Optional[str]]") -> None:
    for raw in stream:
        lines.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
    lines.put(None)


def boot(config: KernelConfig, job: str, *, files: Optional[Dict[str, Path]]
         = None, out_dir: Optional[Path] = None, smp: int = 2,
         icount: bool = False, append: str = "", timeout: float = 600,
         out_size_mb: int = 2048, echo: bool = True,
         on_line: Optional[LineHook] = None,
         on_tick: Optional[TickHook] = None,
         log_path: Optional[Path] = None,
         interactive: bool = False,
         plugins: Sequence[str] = (),
         root_disk: bool = False) -> GuestResult:
    """Boot config's kernel, run the shell script text job, collect /out.

    Interactive runs hand the terminal to the guest's console (QEMU's
    monitor on Ctrl-A C, quit with Ctrl-A X) and are not watched.
    plugins are QEMU TCG plugin specs ("lib.so,arg=value").
    With root_disk, the root file system is on a virtio disk of its own
    (a fresh copy each boot), mounted by the kernel with ROOT_DISK_CMDLINE,
    and the initramfs has no /init.
    """
    image = config.image
    if not image.exists():
        raise WorkbenchError(f"{image} is missing: build {config.name} first")
    if icount and smp != 1:
        # QEMU 7.2 stops making progress at the end of boot with -icount
        # and more than one vCPU.
        raise WorkbenchError("--icount needs --smp 1 with this QEMU")
    arch = config.arch
    cpio = initramfs(with_init=not root_disk, arch=arch)
    token = secrets.token_hex(8)
    logs = cache_dir() / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    if log_path is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        log_path = logs / f"{config.name}-{stamp}-{token[:4]}.log"
    with tempfile.TemporaryDirectory(prefix="wb-guest.",
                                     dir=cache_dir()) as tmpdir:
        tmp = Path(tmpdir)
        in_tar, out_img = tmp / "in.tar", tmp / "out.img"
        _input_tar(in_tar, job, token, config, files or {})
        with open(out_img, "wb") as f:
            f.truncate(out_size_mb << 20)
        root_img = root_disk_image(tmp / "root.img", arch) if root_disk \
            else None
        cmd = qemu_command(arch, image, cpio, in_tar, out_img, smp=smp,
                           append=append, root_img=root_img)
        if icount:
            cmd += ["-icount", "shift=0,sleep=off"]
        for plugin in plugins:
            cmd += ["-plugin", plugin]
        if interactive:
            cmd[cmd.index("stdio")] = "mon:stdio"
            log("$ " + " ".join(cmd))
            proc = subprocess.run(cmd)
            return GuestResult(proc.returncode, "", log_path)
        result = _watch(cmd, token, log_path, timeout, echo, on_line, on_tick)
        if result.status is not None and out_dir is not None:
            _extract(out_img, out_dir)
    return result


def qemu_command(arch: arches.Arch, image: Path, cpio: Path, in_tar: Path,
                 out_img: Path, smp: int = 2, append: str = "",
                 root_img: Optional[Path] = None) -> List[str]:
    """QEMU's command line for one boot of arch's machine: the kernel,
    the initramfs, the input and output disks, and the root disk if
    root_img is given (then the initramfs is the one without /init)."""
    disk = arch.disk_device
    cmdline = f"console={arch.console} panic=-1 rdinit=/init {append}"
    root: List[str] = []
    if root_img is not None:
        cmdline = (f"console={arch.console} panic=-1 {ROOT_DISK_CMDLINE} "
                   f"{append}")
        root = ["-drive", f"if=none,format=raw,file={root_img},id=wbroot",
                "-device", f"{disk},drive=wbroot,serial=wb-root"]
    return arch.qemu_machine() + [
        "-smp", str(smp), "-m", str(arch.memory_mb),
        "-kernel", str(image), "-initrd", str(cpio),
        "-append", cmdline.strip(),
        "-display", "none", "-monitor", "none", "-serial", "stdio",
        "-nic", "none",
        "-no-reboot"] + root + [
        "-drive", f"if=none,format=raw,file={in_tar},id=wbin,readonly=on",
        "-device", f"{disk},drive=wbin,serial=wb-in",
        "-drive", f"if=none,format=raw,file={out_img},id=wbout",
        "-device", f"{disk},drive=wbout,serial=wb-out"]


def _watch(cmd: List[str], token: str, log_path: Path, timeout: float,
           echo: bool, on_line: Optional[LineHook],
           on_tick: Optional[TickHook]) -> GuestResult:
    log("$ " + " ".join(cmd))
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    lines: "queue.Queue[Optional[str]]" = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines),
                     daemon=True).start()
    result = GuestResult(None, "", log_path)
    exit_re = parser.exit_re(token)
    deadline = time.monotonic() + timeout
    last_tick = 0.0
    with open(log_path, "w") as console:
        while True:
            try:
                line = lines.get(timeout=1.0)
            except queue.Empty:
                line = ""
            else:
                if line is None:
                    break
                console.write(line + "\n")
                console.flush()
                if echo:
                    print(line, flush=True)
                result.tail = (result.tail + [line])[-30:]
                m = exit_re.search(line)
                if m:
                    result.status = int(m.group(1))
                error = parser.guest_error(line)
                if error is not None:
                    result.failure = error
                if parser.OOPS_RE.search(line):
                    result.oopses.append(line.strip())
                    if "Kernel panic" in line:
                        result.failure = "kernel panic: " + line.strip()
                if on_line is not None:
                    reason = on_line(line)
                    if reason:
                        result.failure = reason
                        break
            now = time.monotonic()
            if now > deadline:
                result.failure = f"no exit within the {timeout:.0f} s timeout"
                break
            if on_tick is not None and now - last_tick >= 1.0:
                last_tick = now
                reason = on_tick()
                if reason:
                    result.failure = reason
                    break
    if proc.poll() is None:
        # A clean guest powers itself off; give it a moment, then stop it.
        try:
            proc.wait(timeout=0 if result.failure else 30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if not result.failure and result.status is None:
        result.failure = ("the guest stopped without reporting an exit status"
                          f" (QEMU exit {proc.returncode})")
    if result.failure:
        result.status = None
    return result

