# SPDX-License-Identifier: GPL-2.0
"""Command line of ftd: one module per command (cmd_*.py), each with
add_parser() and run(); this file puts them together and turns errors
into messages and exit codes."""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from types import ModuleType
from typing import Dict, Optional, Sequence

from . import VERSION
from .command import EPILOG, Parser, UsageError, warn
from .model import (EXIT_INPUT, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE,
                    FtdError)
from .output import OutFile

DESCRIPTION = """\
ftd (function trace dump) reads the text output of the function_graph
tracer (the tracefs files trace or trace_pipe, plain or compressed with
gzip, xz or bzip2, or '-' for stdin) and reports where the time went."""

# in the order of --help; a command whose module is not installed
# is left out (each comes with the patch that adds it)
ORDER = ["report", "callers", "callees", "slowest", "hist", "tree",
         "folded", "flamegraph", "flamechart", "chrome", "speedscope",
         "diff", "boot", "info"]


def _commands() -> Dict[str, ModuleType]:
    out: Dict[str, ModuleType] = {}
    for name in ORDER:
        mod = "%s.cmd_%s" % (__package__, name)
        try:
            out[name] = importlib.import_module(mod)
        except ModuleNotFoundError as err:
            if err.name != mod:
                raise
    return out


COMMANDS = _commands()


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="ftd", description=DESCRIPTION, epilog=EPILOG,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version",
                   version="ftd " + VERSION)
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND",
                           parser_class=Parser)
    for mod in COMMANDS.values():
        mod.add_parser(sub)
    return p


def _open_out(a: argparse.Namespace) -> Optional[OutFile]:
    if getattr(a, "output", None) and a.output != "-":
        return OutFile(a.output)
    return None


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    outfile: Optional[OutFile] = None
    try:
        args = parser.parse_args(argv)
        if not args.cmd:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        outfile = _open_out(args)
        out = sys.stdout if outfile is None else outfile.file
        w = COMMANDS[args.cmd].run(args, out)
        out.flush()
        if outfile is not None:
            outfile.commit()
            outfile = None
        if w.info.truncated:
            warn(w.info.truncated + "; results cover the data before "
                 "that point")
            return EXIT_INPUT
        return EXIT_OK
    except UsageError as err:
        warn(str(err))
        return EXIT_USAGE
    except FtdError as err:
        warn(str(err))
        return err.code
    except KeyboardInterrupt:
        warn("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_OK
    except RecursionError:
        warn("input nests too deeply")
        return EXIT_INPUT
    except MemoryError:
        warn("out of memory")
        return EXIT_INPUT
    except OSError as err:
        if err.errno == errno.EPIPE:
            _quiet_stdout()
            return EXIT_OK
        warn("I/O error: %s" % err)
        return EXIT_INPUT
    finally:
        # a command that failed leaves no output file behind
        if outfile is not None:
            outfile.discard()


def _quiet_stdout() -> None:
    """After EPIPE, point stdout at /dev/null so that the interpreter's
    final flush does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def run() -> None:
    try:
        code = main()
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    except Exception as err:  # last resort: never a traceback
        sys.stderr.write("ftd: internal error: %s: %s\n" % (
            type(err).__name__, err))
        code = 70
    try:
        sys.stdout.flush()
    except (BrokenPipeError, OSError):
        _quiet_stdout()
    sys.exit(code)


if __name__ == "__main__":
    run()
