# SPDX-License-Identifier: GPL-2.0
"""Kernel configs (kconfig fragments) and incremental out-of-tree builds.

A buildable config is scripts/configs/NAME.config.  Its header line

    # workbench: tree=base|patched fragments=a,b [arch=NAME] [cpu=MODEL]

says which source tree it builds (the unpatched base, or the base with
the series applied), which scripts/configs/*.fragment files come before
its own lines, which architecture (arch.py's records: arm, the
default, arm64 or x86_64) and, when the architecture's QEMU CPU lacks
what the config tests, which -cpu to boot it on instead.  The
architecture's machine fragment (qemu-ARCH.fragment) comes first.  The
result is tinyconfig plus those fragments, built with
O=.cache/build/NAME, the architecture's cross compiler and ccache.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Union

from . import arch as arches
from .base import base_tree
from .common import (SCRIPTS, WorkbenchError, cache_dir, digest, locked,
                     log, need_commands, run, write_if_changed)
from .prepare import UPTO_ENV, prepare_kernel

CONFIG_DIR = SCRIPTS / "configs"


HEADER_RE = re.compile(r"^# workbench:((?: +\w+=[\w,=-]*)+) *$", re.M)
HEADER_KEYS = ("tree", "fragments", "arch", "cpu")


@dataclass
class KernelConfig:
    name: str
    tree: str
    fragments: List[Path]
    arch: arches.Arch = arches.DEFAULT

    @classmethod
    def load(cls, name: str) -> "KernelConfig":
        path = CONFIG_DIR / f"{name}.config"
        if not path.is_file():
            known = ", ".join(sorted(p.stem for p in
                                     CONFIG_DIR.glob("*.config")))
            raise WorkbenchError(f"unknown config '{name}' (known: {known})")
        header = parse_header(path)
        arch = arches.get(header.get("arch", arches.DEFAULT.name))
        if header.get("cpu"):
            arch = dataclasses.replace(arch, cpu=header["cpu"])
        names = [arch.fragment] + [f for f in header["fragments"].split(",")
                                   if f and f != arch.fragment]
        frags = [CONFIG_DIR / f"{f}.fragment" for f in names]
        for frag in frags:
            if not frag.is_file():
                raise WorkbenchError(f"{path}: no fragment {frag.name}")
        return cls(name, header["tree"], frags + [path], arch)

    @property
    def build_dir(self) -> Path:
        return cache_dir() / "build" / self.name

    @property
    def image(self) -> Path:
        return self.build_dir / self.arch.image

    @property
    def modules_dir(self) -> Path:
        """Where modules_install puts lib/modules/<release>/."""
        return self.build_dir / "modules-install"

    def wanted_options(self) -> Dict[str, str]:
        wanted: Dict[str, str] = {}
        for frag in self.fragments:
            for line in frag.read_text().splitlines():
                m = re.match(r"^(CONFIG_\w+)=(.*)$", line)
                if m:
                    wanted[m.group(1)] = m.group(2)
        return wanted


def parse_header(path: Path) -> Dict[str, str]:
    """The fields of a config's '# workbench: ...' line: tree and
    fragments, and arch and cpu if given."""
    m = HEADER_RE.search(path.read_text())
    fields: Dict[str, str] = {}
    for item in (m.group(1).split() if m else []):
        key, _, value = item.partition("=")
        if key not in HEADER_KEYS or key in fields:
            raise WorkbenchError(f"{path}: '{item}' in the workbench line: "
                                 f"want each of {', '.join(HEADER_KEYS)} "
                                 "once at most")
        fields[key] = value
    if fields.get("tree") not in ("base", "patched") or \
            "fragments" not in fields:
        raise WorkbenchError(f"{path}: needs a line '# workbench: "
                             "tree=base|patched fragments=a,b [arch=NAME] "
                             "[cpu=MODEL]'")
    return fields


def patched_tree() -> Path:
    """The base copied once, with the series applied (kept up to date):
    up to the patch that WB_SERIES_UPTO names, if set, which then needs a
    cache of its own (WB_CACHE) so that the builds of the whole series
    stay as they are."""
    if os.environ.get(UPTO_ENV) and "WB_CACHE" not in os.environ:
        raise WorkbenchError(f"{UPTO_ENV} needs WB_CACHE set too: the "
                             "series up to a patch is built in a cache of "
                             "its own")
    base = base_tree()
    tree = cache_dir() / "src" / "linux-patched"
    stamp = tree / ".wb-base"
    with locked(tree, f"preparing {tree}"):
        if not stamp.exists() or stamp.read_text() != str(base):
            log(f"copying the base to {tree}")
            tree.parent.mkdir(parents=True, exist_ok=True)
            run(["rsync", "-a", "--delete", "--exclude=/.git", f"{base}/",
                 f"{tree}/"], what="copying the base tree")
        else:
            # An interrupted preparation can leave a patch half applied:
            # without the stamp, the next one starts from a new copy
            stamp.unlink()
        prepare_kernel(tree)
        stamp.write_text(str(base))
    return tree


def source_tree(config: KernelConfig) -> Path:
    return base_tree() if config.tree == "base" else patched_tree()


def compiler_args(arch: arches.Arch = arches.DEFAULT) -> List[str]:
    """make's variables for the cross compiler, through ccache where
    there is one.  Kbuild hands gcc absolute paths under the cache
    directory, which ccache hashes: with CCACHE_BASEDIR there (make
    exports it to the compiler) it hashes them relative to the build
    directory, so a clone elsewhere hits the cache that another filled.
    The price: __FILE__ in the kernel reads ../../src/TREE/kernel/...
    instead of kernel/..."""
    cc = arch.cross_compile + "gcc"
    if not shutil.which("ccache"):
        return [f"CC={cc}"]
    return [f"CC=ccache {cc}", f"CCACHE_BASEDIR={cache_dir()}"]


def make_args(config: KernelConfig, src: Path,
              out: Optional[Path] = None) -> List[str]:
    jobs = os.cpu_count() or 2
    out = out or config.build_dir
    arch = config.arch
    return ["make", "-C", str(src), f"O={out}", f"ARCH={arch.kernel_arch}",
            f"CROSS_COMPILE={arch.cross_compile}", *compiler_args(arch),
            f"-j{jobs}"]


def configure(config: KernelConfig, src: Path, strict: bool = True) -> None:
    """(Re)generate .config when the fragments or the tree changed.

    The config is generated in a scratch directory and only copied into
    the build directory when it differs, so that regenerating it does
    not touch every option's timestamp and force a full rebuild.

    Strictly, every option the fragments set must end up so; a build of
    an early point in the series (strict=False) lets later options go.
    """
    stamp = config.build_dir / ".wb-config"
    key = digest([str(src)] + list(config.fragments))
    dotconfig = config.build_dir / ".config"
    if dotconfig.exists() and stamp.exists() and stamp.read_text() == key:
        return
    config.build_dir.mkdir(parents=True, exist_ok=True)
    scratch = config.build_dir.parent / f".{config.name}.kconfig"
    new = scratch / ".config"
    make = make_args(config, src, scratch)
    run(make + ["tinyconfig"], what="make tinyconfig")
    merge: List[Union[str, Path]] = [
        src / "scripts/kconfig/merge_config.sh", "-m", "-O", scratch, new]
    run(merge + list(config.fragments),
        env={"ARCH": config.arch.kernel_arch,
             "CROSS_COMPILE": config.arch.cross_compile},
        capture=True, what="merge_config.sh")
    run(make + ["olddefconfig"], what="make olddefconfig")
    if not dotconfig.exists() or dotconfig.read_text() != new.read_text():
        shutil.copyfile(new, dotconfig)
        run(make_args(config, src) + ["olddefconfig"],
            what="make olddefconfig")
    got: Dict[str, str] = {}
    for line in dotconfig.read_text().splitlines():
        m = re.match(r"^(CONFIG_\w+)=(.*)$", line)
        if m:
            got[m.group(1)] = m.group(2)
        m = re.match(r"^# (CONFIG_\w+) is not set", line)
        if m:
            got[m.group(1)] = "n"
    wrong = [f"{opt}={val} (got {got.get(opt, 'n')})"
             for opt, val in config.wanted_options().items()
             if got.get(opt, "n") != val]
    if wrong and strict:
        raise WorkbenchError(f"config {config.name}: options the fragments "
                             "ask for did not stick (a missing dependency?):\n  "
                             + "\n  ".join(wrong))
    write_if_changed(stamp, key)


def build(name: str) -> KernelConfig:
    """Build a config's kernel image and modules, incrementally."""
    config = KernelConfig.load(name)
    need_commands(config.arch.host_tools(), config.arch.name)
    src = source_tree(config)
    with locked(config.build_dir, f"building {name}"):
        configure(config, src)
        make = make_args(config, src)
        run(make + [config.arch.kernel_target, "modules"],
            what=f"building {name}")
        mods = config.modules_dir
        if mods.exists():
            shutil.rmtree(mods)
        run(make + ["modules_install", f"INSTALL_MOD_PATH={mods}",
                    "INSTALL_MOD_STRIP=1"], capture=True,
            what="make modules_install")
    log(f"built {config.image}")
    return config


def external_module(config: KernelConfig, name: str, sources: List[Path],
                    workdir: Path, notrace: bool = False) -> Path:
    """Build SOURCES as the out-of-tree module NAME against CONFIG's build.

    Benchmarks use it to run a module of the series on kernels whose tree
    does not hold it (the unpatched base).  The build of CONFIG must
    exist.  With notrace, the module is built without the function
    tracer's instrumentation, as the objects of kernel/trace/ are.
    Returns the path of NAME.ko, in WORKDIR/module-NAME-CONFIG/.
    """
    moddir = (workdir / f"module-{name}-{config.name}").resolve()
    moddir.mkdir(parents=True, exist_ok=True)
    objs = []
    for source in sources:
        shutil.copy(source, moddir / source.name)
        objs.append(source.with_suffix(".o").name)
    kbuild = f"obj-m += {name}.o\n"
    if objs != [f"{name}.o"]:
        kbuild += f"{name}-y := {' '.join(objs)}\n"
    if notrace:
        kbuild += "ccflags-remove-y += $(CC_FLAGS_FTRACE)\n"
    write_if_changed(moddir / "Kbuild", kbuild)
    run(make_args(config, source_tree(config)) + [f"M={moddir}", "modules"],
        capture=True, what=f"building module {name} for {config.name}")
    return moddir / f"{name}.ko"


def builds_in(config: KernelConfig, option: str) -> bool:
    """Whether CONFIG's last build has OPTION (CONFIG_FOO) built in (=y)."""
    dot_config = (config.build_dir / ".config").read_text()
    return f"{option}=y" in dot_config.splitlines()


def kernel_release(config: KernelConfig) -> str:
    path = config.build_dir / "include/config/kernel.release"
    return path.read_text().strip()
